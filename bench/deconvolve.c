/* bench --only deconvolve: Richardson–Lucy on the GPU, the job (a
 * size x size RGBA 8-bit sRGB image, 30 iterations, a disc of radius 10,
 * alpha kept), against the convolutions it runs measured alone: the same
 * mask on the same three device planes of floats, each call's median times
 * the 60 calls.  The rest is the planes' way up and down, the conversions
 * and the point-wise steps; the job again on a page-locked image shows
 * what the pageable one's crossings cost.  Then Wiener on the same image, on the GPU
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
#include <string.h>

#include "convolve.h"
#include "util.h"

#define JOBS 5
#define CALLS 15

void bench_deconvolve (CcContext *ctx, int size);
void bench_deconvolve_memory (CcContext *ctx, int side);

/* The job, which both benches time: a side x side RGBA 8-bit sRGB
 * image of noise, a disc of radius 10, the defaults, alpha kept. */
typedef struct
{
  uint8_t           *in, *out;
  CcImage            src, dst;
  CcTransfer        *srgb;
  CcMask             mask;
  double            *values;
  CcDeconvolveParams p;
  CcOptions          o;
} DiscJob;

static void
disc_job_init (DiscJob *j, int side, const char *who)
{
  const int64_t n = (int64_t) side * side;
  const CcMaskSource source = { .shape = { CC_SHAPE_DISC, 10.0, 0, 6, 0.5 } };
  char why[256];

  j->in = malloc ((size_t) n * 4);
  j->out = malloc ((size_t) n * 4);
  if (!j->in || !j->out || !cc_mask_resolve (&source, &j->mask, &j->values, why, sizeof why))
    {
      fprintf (stderr, "bench: %s: out of memory\n", who);
      exit (1);
    }
  j->src = (CcImage) { j->in, CC_TYPE_U8, 4, side, side, (int64_t) side * 4, false };
  j->dst = (CcImage) { j->out, CC_TYPE_U8, 4, side, side, (int64_t) side * 4, false };
  for (int64_t i = 0; i < n * 4; i++)
    j->in[i] = (uint8_t) (bench_rand01 () * 256);
  j->srgb = cc_transfer_new_srgb (CC_TYPE_U8);
  cc_deconvolve_params_init (&j->p);
  cc_options_init (&j->o);
  j->o.has_alpha = true;
  j->o.transfer = j->srgb;
}

static void
disc_job_free (DiscJob *j)
{
  cc_transfer_free (j->srgb);
  free (j->values);
  free (j->in);
  free (j->out);
}

/* The job 'jobs' times into 'dst': each one's wall-clock time in ms[], the
 * last one's result in r. */
static void
time_jobs (CcContext *ctx, const DiscJob *j, const CcImage *dst, int jobs, double *ms,
           CcResult *r, const char *who)
{
  for (int k = 0; k < jobs; k++)
    {
      const double t0 = bench_now_ms ();

      if (cc_deconvolve (ctx, &j->src, dst, &j->mask, &j->o, &j->p, r) != CC_OK)
        {
          fprintf (stderr, "bench: %s: %s\n", who, r->message);
          exit (1);
        }
      ms[k] = bench_now_ms () - t0;
    }
}

/* The job JOBS times: each one's time, and its reading, restoring and
 * writing (CcResult's upload, kernel and download times); the last
 * one's result in r. */
static void
time_parts (CcContext *ctx, const DiscJob *j, double *job, double *read, double *restore,
            double *write, CcResult *r, const char *who)
{
  for (int k = 0; k < JOBS; k++)
    {
      time_jobs (ctx, j, &j->dst, 1, &job[k], r, who);
      read[k] = r->upload_ms;
      restore[k] = r->kernel_ms;
      write[k] = r->download_ms;
    }
}

/* The job again on the image in page-locked memory, as GIMP's operation
 * hands the engine its blocks: the source's way up and down without the
 * driver's staging of pageable memory. */
static void
pinned_jobs (CcContext *ctx, DiscJob *d, int size, double convolutions)
{
  const size_t bytes = (size_t) size * size * 4;
  uint8_t *in, *out;
  double job[JOBS], read[JOBS], restore[JOBS], write[JOBS];
  CcResult r;
  DiscJob p = *d;

  bench_die (cudaHostAlloc ((void **) &in, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  bench_die (cudaHostAlloc ((void **) &out, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  memcpy (in, d->in, bytes);
  p.src.data = in;
  p.dst.data = out;
  time_parts (ctx, &p, job, read, restore, write, &r, "deconvolve, page-locked");
  printf ("| the job, its image page-locked | %.1f ms (%.1f, %.1f, %.1f) |\n"
          "| that job over its convolutions | %.2fx |\n", bench_median (job, JOBS),
          bench_median (read, JOBS), bench_median (restore, JOBS), bench_median (write, JOBS),
          bench_median (job, JOBS) / convolutions);
  cudaFreeHost (in);
  cudaFreeHost (out);
}

void
bench_deconvolve (CcContext *ctx, int size)
{
  const int64_t n = (int64_t) size * size;
  DiscJob d;
  CcResult r;
  double job[JOBS], read[JOBS], restore[JOBS], write[JOBS], call[CALLS];
  void *planes[2];

  disc_job_init (&d, size, "deconvolve");
  time_parts (ctx, &d, job, read, restore, write, &r, "deconvolve");
  printf ("\nRichardson-Lucy, %dx%d RGBA 8-bit sRGB, %d iterations, disc of radius 10 "
          "(%dx%d): %s\n", size, size, d.p.iterations, d.mask.width, d.mask.height, r.kernel);

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

        if (cc_convolve (ctx, &a, 0, 0, &b, &d.mask, &co, &r) != CC_OK)
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
            bench_median (restore, JOBS), bench_median (write, JOBS), 2 * d.p.iterations,
            cc_method_name (r.method_used), one, 2 * d.p.iterations * one,
            whole / (2 * d.p.iterations * one));
  }
  for (int i = 0; i < 2; i++)
    cc_device_free (ctx, planes[i]);
  pinned_jobs (ctx, &d, size, 2 * d.p.iterations * bench_median (call, CALLS));

  /* Wiener on the same image: the GPU's transforms, then FFTW's. */
  d.p.algorithm = CC_DECONVOLVE_WIENER;
  printf ("\nWiener, %dx%d RGBA 8-bit sRGB, noise %g, disc of radius 10:\n", size, size,
          d.p.noise);
  for (int m = 0; m < 2; m++)
    {
      d.o.method = m == 0 ? CC_METHOD_AUTO : CC_METHOD_CPU;
      time_parts (ctx, &d, job, read, restore, write, &r, "deconvolve: Wiener");
      printf ("| %s | %.1f ms (the restoring %.1f ms) |\n", r.kernel, bench_median (job, JOBS),
              bench_median (restore, JOBS));
    }
  disc_job_free (&d);
}

/* One algorithm's rows of bench --only deconvolve-memory (below). */
static void
memory_rows (CcContext *ctx, DiscJob *d, const CcImage *dcpu, int64_t n)
{
  static const double free_gb[] = { 0, 6, 1.5 };
  const uint8_t *const cpu = dcpu->data;
  const bool rl = d->p.algorithm == CC_DECONVOLVE_RICHARDSON_LUCY;
  CcResult r;
  double job[3], whole = 0;

  d->o.method = CC_METHOD_CPU;
  time_jobs (ctx, d, dcpu, 1, job, &r, "deconvolve-memory: the CPU");
  printf ("\n%s, %lldx%lld RGBA 8-bit sRGB, %s, disc of radius 10\n"
          "| GPU free | what ran | time | over the whole GPU's | from the CPU |\n"
          "|---|---|---|---|---|\n| - | %s | %.0f ms | | |\n",
          rl ? "Richardson-Lucy" : "Wiener", (long long) d->src.width,
          (long long) d->src.height, rl ? "30 iterations" : "noise 0.01", r.kernel, job[0]);
  d->o.method = CC_METHOD_AUTO;
  for (int f = 0; f < 3; f++)
    {
      size_t free_bytes = 0, total = 0;
      void *hog = NULL;
      int worst = 0;

      bench_die (cudaMemGetInfo (&free_bytes, &total), "cudaMemGetInfo");
      if (free_gb[f] > 0 && free_bytes > free_gb[f] * 1e9)
        bench_die (cudaMalloc (&hog, free_bytes - (size_t) (free_gb[f] * 1e9)),
                   "holding the GPU's memory");
      time_jobs (ctx, d, &d->dst, 3, job, &r, "deconvolve-memory");
      if (f == 0)
        whole = bench_median (job, 3);
      for (int64_t i = 0; i < n * 4; i++)
        worst = abs ((int) d->out[i] - (int) cpu[i]) > worst
                ? abs ((int) d->out[i] - (int) cpu[i]) : worst;
      printf ("| %s | %s%s%s | %.0f ms | %.2fx | %d |\n",
              f == 0 ? "whole" : f == 1 ? "6 GB" : "1.5 GB", r.kernel, r.message[0] ? "; " : "",
              r.message, bench_median (job, 3), bench_median (job, 3) / whole, worst);
      if (hog)
        cudaFree (hog);
    }
}

/* bench --only deconvolve-memory: issue 63's jobs, Richardson-Lucy's 30
 * iterations and Wiener at its defaults, of a disc of radius 10 on a side
 * x side RGBA 8-bit sRGB image (8000: 64 MP), on the CPU, then with the
 * whole GPU free, with 6 GB and with 1.5 GB of it left free (the rest
 * held here, as another program would): what ran, the median of 3, the
 * time over the whole GPU's, and each result's largest difference in
 * codes from the CPU's. */
void
bench_deconvolve_memory (CcContext *ctx, int side)
{
  const int64_t n = (int64_t) side * side;
  uint8_t *cpu = malloc ((size_t) n * 4);
  const CcImage dcpu = { cpu, CC_TYPE_U8, 4, side, side, (int64_t) side * 4, false };
  DiscJob d;

  disc_job_init (&d, side, "deconvolve-memory");
  if (!cpu)
    {
      fprintf (stderr, "bench: deconvolve-memory: out of memory\n");
      exit (1);
    }
  memory_rows (ctx, &d, &dcpu, n);
  d.p.algorithm = CC_DECONVOLVE_WIENER;
  memory_rows (ctx, &d, &dcpu, n);
  disc_job_free (&d);
  free (cpu);
}
