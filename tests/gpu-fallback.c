/* The fallback rule's rows that need a GPU (engine/fallback.c), for each
 * job where the row can arise: the GPU unsuited to the job (checked before
 * it runs), out of memory (a device budget of 4 KB or less), refused as it
 * ran, and failed (an injected launch failure).  'auto' takes the CPU, saying
 * "no GPU used" or "fell back" and why, with the CPU's result; a GPU method
 * asked for fails with the GPU's status, the output untouched.  A
 * convolution 'auto' gives the GPU is never refused as it runs, and one by
 * name is refused by its mask's size before: test-fallback's made-up job
 * runs that row.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "convolve.h"

enum { CONVOLUTION, RICHARDSON_LUCY, WIENER };

typedef struct
{
  const char *what;
  int         job;
  CcBorder    border;
  int64_t     width;       /* 0: the image's; else a side that refuses (wrap) */
  int         mask;        /* its side, a disc's */
  CcMethod    method;      /* the GPU method asked for by name */
  const char *budget;      /* CUDA_CONVOLVE_... aside, a device budget in bytes */
  const char *fault;      /* CUDA_CONVOLVE_FAULT */
  bool        other_type;  /* the output of another sample type */
  CcStatus    status;      /* the GPU method's */
  const char *note;        /* auto's, and what the message names */
  const char *why;
} Row;

static const Row rows[] = {
  { "out of memory", CONVOLUTION, CC_BORDER_MIRROR, 0, 5, CC_METHOD_TILED, "256", NULL,
    false, CC_ERROR_OUT_OF_MEMORY, "fell back to the CPU", "device memory" },
  { "refused by its size", CONVOLUTION, CC_BORDER_MIRROR, 0, 129, CC_METHOD_REGISTER, NULL, NULL, false,
    CC_ERROR_UNSUPPORTED, NULL, "register" },
  { "failed", CONVOLUTION, CC_BORDER_MIRROR, 0, 5, CC_METHOD_TILED, NULL, "launch", false,
    CC_ERROR_GPU, "fell back to the CPU", "launch" },
  { "unsuited", RICHARDSON_LUCY, CC_BORDER_WHITE, 0, 5, CC_METHOD_TILED, NULL, NULL, false,
    CC_ERROR_UNSUPPORTED, "no GPU used", "white border" },
  { "out of memory", RICHARDSON_LUCY, CC_BORDER_MIRROR, 0, 5, CC_METHOD_TILED, "4096", NULL,
    false, CC_ERROR_OUT_OF_MEMORY, "fell back to the CPU", "strips" },
  { "failed", RICHARDSON_LUCY, CC_BORDER_MIRROR, 0, 5, CC_METHOD_TILED, NULL, "launch", false,
    CC_ERROR_GPU, "fell back to the CPU", "launch" },
  { "unsuited", WIENER, CC_BORDER_MIRROR, 0, 5, CC_METHOD_FFT, NULL, NULL, true,
    CC_ERROR_UNSUPPORTED, "no GPU used", "sample type" },
  { "out of memory", WIENER, CC_BORDER_MIRROR, 0, 5, CC_METHOD_FFT, "4096", NULL, false,
    CC_ERROR_OUT_OF_MEMORY, "fell back to the CPU", "budget" },
  { "refused", WIENER, CC_BORDER_WRAP, 101, 5, CC_METHOD_FFT, NULL, NULL, false,
    CC_ERROR_UNSUPPORTED, "fell back to the CPU", "primes 2, 3, 5 and 7" },
  { "failed", WIENER, CC_BORDER_MIRROR, 0, 5, CC_METHOD_FFT, NULL, "launch", false,
    CC_ERROR_GPU, "fell back to the CPU", "launch" },
};

static const char *const jobs[] = { "convolution", "richardson-lucy", "wiener" };

static CcStatus
run (CcContext *ctx, const Row *row, const CcImage *src, const CcImage *dst,
     const CcMask *mask, CcMethod method, CcResult *r)
{
  CcOptions o;
  CcDeconvolveParams p;
  CcStatus st;

  cc_options_init (&o);
  o.method = method;
  o.border = row->border;
  cc_deconvolve_params_init (&p);
  p.iterations = 5;
  p.algorithm = row->job == WIENER ? CC_DECONVOLVE_WIENER : CC_DECONVOLVE_RICHARDSON_LUCY;
  if (row->budget)
    cc_context_set_device_budget (ctx, strtoull (row->budget, NULL, 10));
  if (row->fault)
    setenv ("CUDA_CONVOLVE_FAULT", row->fault, 1);
  st = row->job == CONVOLUTION ? cc_convolve (ctx, src, 0, 0, dst, mask, &o, r)
                               : cc_deconvolve (ctx, src, dst, mask, &o, &p, r);
  unsetenv ("CUDA_CONVOLVE_FAULT");
  cc_context_set_device_budget (ctx, 0);
  return st;
}

int
check_fallback_gpu (CcContext *ctx)
{
  const int before = check_failures;

  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      const Row *row = &rows[i];
      const int64_t w = row->width ? row->width : 96, h = 80;
      const size_t n = (size_t) (w * h * 3);
      float *in = malloc (sizeof (float) * n), *out = malloc (sizeof (float) * n);
      float *cpu = malloc (sizeof (float) * n);
      double *half = malloc (sizeof (double) * n);
      const CcImage src = { in, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
      const CcImage dst = row->other_type
                          ? (CcImage) { half, CC_TYPE_DOUBLE, 3, w, h, w * 24, false }
                          : (CcImage) { out, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
      const CcImage dcpu = row->other_type
                           ? dst : (CcImage) { cpu, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
      const CcMaskSource source = { .shape = { CC_SHAPE_DISC, (row->mask - 1) / 2.0, 0, 6,
                                               0.5 } };
      CcMask mask;
      double *values;
      char why[256];
      CcResult r;
      CcStatus st;
      bool untouched = true;

      CHECK (cc_mask_resolve (&source, &mask, &values, why, sizeof why), "mask: %s", why);
      for (size_t k = 0; k < n; k++)
        in[k] = check_scene ((int64_t) (k / 3) % w, (int64_t) (k / 3) / w, (int) (k % 3));
      /* By name: the GPU's status, the output untouched. */
      memset (out, 0xff, sizeof (float) * n);
      memset (half, 0xff, sizeof (double) * n);
      st = run (ctx, row, &src, &dst, &mask, row->method, &r);
      for (size_t k = 0; k < n; k++)
        untouched = untouched && (row->other_type ? isnan (half[k]) : isnan (out[k]));
      CHECK (st == row->status && strstr (r.message, row->why) && untouched,
             "%s, %s, by %s: %s '%s' (the output %s)", jobs[row->job], row->what,
             cc_method_name (row->method), cc_status_name (st), r.message,
             untouched ? "untouched" : "written");
      /* By auto: the CPU, saying why, with the CPU's result; or where auto
       * never meets the row, nothing more to ask. */
      if (row->note)
        {
          CcResult rc;
          bool same = true;

          st = run (ctx, row, &src, &dst, &mask, CC_METHOD_AUTO, &r);
          if (!row->other_type)
            {
              const Row cpu_row = { .job = row->job, .border = row->border };

              CHECK (run (ctx, &cpu_row, &src, &dcpu, &mask, CC_METHOD_CPU, &rc) == CC_OK,
                     "the CPU: %s", rc.message);
              same = memcmp (out, cpu, sizeof (float) * n) == 0;
            }
          CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU &&
                 strncmp (r.message, row->note, strlen (row->note)) == 0 &&
                 strstr (r.message, row->why) && same,
                 "%s, %s, by auto: '%s' '%s'%s", jobs[row->job], row->what, r.kernel,
                 r.message, same ? "" : ", not the CPU's result");
        }
      free (values);
      free (in);
      free (out);
      free (cpu);
      free (half);
    }
  printf ("the fallback rule on the GPU: %zu rows, %d failed\n", sizeof rows / sizeof rows[0],
          check_failures - before);
  return check_failures - before;
}
