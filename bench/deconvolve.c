/* bench --only deconvolve: Richardson–Lucy on the GPU, the job (a
 * size x size RGBA 8-bit sRGB image, 30 iterations, a disc of radius 10,
 * alpha kept), against the convolutions it runs measured alone: the same
 * mask on the same three device planes of floats, each call's median times
 * the 60 calls.  The rest is the planes' way up and down, the conversions
 * and the point-wise steps.  Then Wiener on the same image, on the GPU
 * and by FFTW, the whole job and its restoring (kernel_ms: on the GPU the
 * planes' way there and back included).  Wall-clock medians: a job syncs
 * at its end.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "convolve.h"
#include "util.h"

#define JOBS 5
#define CALLS 15

void bench_deconvolve (CcContext *ctx, int size);
void bench_deconvolve_memory (CcContext *ctx, int side);

void
bench_deconvolve (CcContext *ctx, int size)
{
  const int64_t n = (int64_t) size * size;
  uint8_t *in = malloc ((size_t) n * 4), *out = malloc ((size_t) n * 4);
  const CcImage src = { in, CC_TYPE_U8, 4, size, size, (int64_t) size * 4, false };
  const CcImage dst = { out, CC_TYPE_U8, 4, size, size, (int64_t) size * 4, false };
  const CcMaskSource source = { .shape = { CC_SHAPE_DISC, 10.0, 0, 6, 0.5 } };
  CcTransfer *srgb = cc_transfer_new_srgb (CC_TYPE_U8);
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  CcMask mask;
  double *values, job[JOBS], read[JOBS], restore[JOBS], write[JOBS], call[CALLS];
  void *planes[2];
  char why[256];

  if (!in || !out || !cc_mask_resolve (&source, &mask, &values, why, sizeof why))
    {
      fprintf (stderr, "bench: deconvolve: out of memory\n");
      exit (1);
    }
  for (int64_t i = 0; i < n * 4; i++)
    in[i] = (uint8_t) (bench_rand01 () * 256);
  cc_deconvolve_params_init (&p);
  cc_options_init (&o);
  o.has_alpha = true;
  o.transfer = srgb;
  for (int j = 0; j < JOBS; j++)
    {
      const double t0 = bench_now_ms ();

      if (cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r) != CC_OK)
        {
          fprintf (stderr, "bench: deconvolve: %s\n", r.message);
          exit (1);
        }
      job[j] = bench_now_ms () - t0;
      read[j] = r.upload_ms;
      restore[j] = r.kernel_ms;
      write[j] = r.download_ms;
    }
  printf ("\nRichardson-Lucy, %dx%d RGBA 8-bit sRGB, %d iterations, disc of radius 10 "
          "(%dx%d): %s\n", size, size, p.iterations, mask.width, mask.height, r.kernel);

  /* The convolutions alone, as the job runs them. */
  for (int i = 0; i < 2; i++)
    if (cc_device_alloc (ctx, sizeof (float) * (size_t) n * 3, &planes[i]) != CC_OK)
      {
        fprintf (stderr, "bench: deconvolve: no room on the GPU\n");
        exit (1);
      }
    else
      bench_die (cudaMemset (planes[i], 0, sizeof (float) * (size_t) n * 3), "cudaMemset");
  {
    const CcImage a = { planes[0], CC_TYPE_FLOAT, 3, size, size, (int64_t) size * 12, true };
    const CcImage b = { planes[1], CC_TYPE_FLOAT, 3, size, size, (int64_t) size * 12, true };
    CcOptions co;

    cc_options_init (&co);
    co.border = CC_BORDER_MIRROR;
    co.clamp = false;
    co.alpha_weighting = false;
    for (int i = -2; i < CALLS; i++)
      {
        const double t0 = bench_now_ms ();

        if (cc_convolve (ctx, &a, 0, 0, &b, &mask, &co, &r) != CC_OK)
          {
            fprintf (stderr, "bench: deconvolve: a convolution: %s\n", r.message);
            exit (1);
          }
        if (i >= 0)
          call[i] = bench_now_ms () - t0;
      }
  }
  {
    const double whole = bench_median (job, JOBS), one = bench_median (call, CALLS);

    printf ("| the job | %.1f ms |\n| its reading, restoring, writing | %.1f, %.1f, %.1f ms |\n| its %d convolutions alone (%s, %.2f ms each) | %.1f ms |\n"
            "| the job over its convolutions | %.2fx |\n", whole, bench_median (read, JOBS),
            bench_median (restore, JOBS), bench_median (write, JOBS), 2 * p.iterations,
            cc_method_name (r.method_used), one, 2 * p.iterations * one,
            whole / (2 * p.iterations * one));
  }
  for (int i = 0; i < 2; i++)
    cc_device_free (ctx, planes[i]);

  /* Wiener on the same image: the GPU's transforms, then FFTW's. */
  p.algorithm = CC_DECONVOLVE_WIENER;
  printf ("\nWiener, %dx%d RGBA 8-bit sRGB, noise %g, disc of radius 10:\n", size, size,
          p.noise);
  for (int m = 0; m < 2; m++)
    {
      double restore[JOBS];

      o.method = m == 0 ? CC_METHOD_AUTO : CC_METHOD_CPU;
      for (int j = 0; j < JOBS; j++)
        {
          const double t0 = bench_now_ms ();

          if (cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r) != CC_OK)
            {
              fprintf (stderr, "bench: deconvolve: Wiener: %s\n", r.message);
              exit (1);
            }
          job[j] = bench_now_ms () - t0;
          restore[j] = r.kernel_ms;
        }
      printf ("| %s | %.1f ms (the restoring %.1f ms) |\n", r.kernel, bench_median (job, JOBS),
              bench_median (restore, JOBS));
    }
  cc_transfer_free (srgb);
  free (values);
  free (in);
  free (out);
}

/* bench --only deconvolve-memory: issue 63's job, Richardson-Lucy's 30
 * iterations of a disc of radius 10 on a side x side RGBA 8-bit sRGB image
 * (8000: 64 MP), with the whole GPU free, then with 6 GB and 1.5 GB of it
 * left free (the rest held here, as another program would): what ran, the
 * median of 3, the time over the whole GPU's, and each result's largest
 * difference in codes from the CPU's. */
void
bench_deconvolve_memory (CcContext *ctx, int side)
{
  static const double free_gb[] = { 0, 6, 1.5 };
  const int64_t n = (int64_t) side * side;
  uint8_t *in = malloc ((size_t) n * 4), *out = malloc ((size_t) n * 4);
  uint8_t *cpu = malloc ((size_t) n * 4);
  const CcImage src = { in, CC_TYPE_U8, 4, side, side, (int64_t) side * 4, false };
  const CcImage dst = { out, CC_TYPE_U8, 4, side, side, (int64_t) side * 4, false };
  const CcImage dcpu = { cpu, CC_TYPE_U8, 4, side, side, (int64_t) side * 4, false };
  const CcMaskSource source = { .shape = { CC_SHAPE_DISC, 10.0, 0, 6, 0.5 } };
  CcTransfer *srgb = cc_transfer_new_srgb (CC_TYPE_U8);
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  CcMask mask;
  double *values, job[3], whole = 0;
  char why[256];

  if (!in || !out || !cpu || !cc_mask_resolve (&source, &mask, &values, why, sizeof why))
    {
      fprintf (stderr, "bench: deconvolve-memory: out of memory\n");
      exit (1);
    }
  for (int64_t i = 0; i < n * 4; i++)
    in[i] = (uint8_t) (bench_rand01 () * 256);
  cc_deconvolve_params_init (&p);
  cc_options_init (&o);
  o.has_alpha = true;
  o.transfer = srgb;
  o.method = CC_METHOD_CPU;
  {
    const double t0 = bench_now_ms ();

    if (cc_deconvolve (ctx, &src, &dcpu, &mask, &o, &p, &r) != CC_OK)
      {
        fprintf (stderr, "bench: deconvolve-memory: the CPU: %s\n", r.message);
        exit (1);
      }
    printf ("\nRichardson-Lucy, %dx%d RGBA 8-bit sRGB, %d iterations, disc of radius 10\n"
            "| GPU free | what ran | time | over the whole GPU's | from the CPU |\n"
            "|---|---|---|---|---|\n| - | %s | %.0f ms | | |\n", side, side, p.iterations,
            r.kernel, bench_now_ms () - t0);
  }
  o.method = CC_METHOD_AUTO;
  for (int f = 0; f < 3; f++)
    {
      size_t free_bytes = 0, total = 0, held = 0;
      void *hog = NULL;
      int worst = 0;

      bench_die (cudaMemGetInfo (&free_bytes, &total), "cudaMemGetInfo");
      if (free_gb[f] > 0 && free_bytes > free_gb[f] * 1e9)
        {
          held = free_bytes - (size_t) (free_gb[f] * 1e9);
          bench_die (cudaMalloc (&hog, held), "holding the GPU's memory");
        }
      for (int j = 0; j < 3; j++)
        {
          const double t0 = bench_now_ms ();

          if (cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r) != CC_OK)
            {
              fprintf (stderr, "bench: deconvolve-memory: %s\n", r.message);
              exit (1);
            }
          job[j] = bench_now_ms () - t0;
        }
      if (f == 0)
        whole = bench_median (job, 3);
      for (int64_t i = 0; i < n * 4; i++)
        worst = abs ((int) out[i] - (int) cpu[i]) > worst ? abs ((int) out[i] - (int) cpu[i]) : worst;
      printf ("| %s | %s%s%s | %.0f ms | %.2fx | %d |\n",
              f == 0 ? "whole" : f == 1 ? "6 GB" : "1.5 GB", r.kernel, r.message[0] ? "; " : "",
              r.message, bench_median (job, 3), bench_median (job, 3) / whole, worst);
      if (hog)
        cudaFree (hog);
    }
  cc_transfer_free (srgb);
  free (values);
  free (in);
  free (out);
  free (cpu);
}
