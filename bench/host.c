/* make bench-host: the GPU path as a GIMP user feels it, at the engine
 * level.  A 4096x4096 RGBA 8-bit image from host memory to host memory
 * (5x5, alpha weighting on, as the plug-in's defaults), against one
 * page-locked upload of the 8-bit data plus the kernel alone; CUDA start-up
 * plus the first result, with and without overlapping start-up with the
 * caller's own work; a preview-sized call on a warm context.  Wall-clock
 * medians after warm-ups; start-up in fresh processes.  A program, not a
 * test: results are compared with the CPU path, timings are not asserted.
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

#define RUNS 11
#define WARMUP 3
#define STARTS 5   /* fresh processes per start-up variant */

static FILE *markdown;

static void
fill_image (CcImage *im)
{
  uint8_t *p = im->data;

  for (int64_t i = 0; i < im->stride * im->height; i++)
    p[i] = (uint8_t) (bench_rand01 () * 256.0f);
}

static CcImage
image_u8 (void *data, int size, bool on_device)
{
  return (CcImage) { data, CC_TYPE_U8, 4, size, size, (int64_t) size * 4, on_device };
}

static void
box_mask (CcMask *mask, double *values, int k)
{
  for (int i = 0; i < k * k; i++)
    values[i] = 1.0;
  *mask = (CcMask) { k, k, values, (double) k * k, 0.0 };
}

/* Median wall-clock ms of a host-to-host (or device) call. */
static double
time_call (CcContext *ctx, const CcImage *src, const CcImage *dst, const CcMask *mask,
           const CcOptions *o, CcResult *r)
{
  double t[RUNS];

  for (int i = 0; i < WARMUP + RUNS; i++)
    {
      double t0 = bench_now_ms ();

      if (cc_convolve (ctx, src, 0, 0, dst, mask, o, r) != CC_OK)
        {
          fprintf (stderr, "bench-host: %s\n", r->message);
          exit (1);
        }
      if (i >= WARMUP)
        t[i - WARMUP] = bench_now_ms () - t0;
    }
  return bench_median (t, RUNS);
}

/* The alternative to staging: page-locking the caller's buffers for the
 * call (cudaHostRegister), as the engine could; median ms of the whole, and
 * of registering and releasing alone. */
static double
time_registered (CcContext *ctx, const CcImage *src, const CcImage *dst, const CcMask *mask,
                 const CcOptions *o, CcResult *r, double *register_ms)
{
  const size_t bytes = (size_t) (src->stride * src->height);
  double t[RUNS], reg[RUNS];

  for (int i = 0; i < WARMUP + RUNS; i++)
    {
      double t0 = bench_now_ms (), t1, t2;

      bench_die (cudaHostRegister (src->data, bytes, cudaHostRegisterDefault), "register");
      bench_die (cudaHostRegister (dst->data, bytes, cudaHostRegisterDefault), "register");
      t1 = bench_now_ms ();
      if (cc_convolve (ctx, src, 0, 0, dst, mask, o, r) != CC_OK)
        {
          fprintf (stderr, "bench-host: %s\n", r->message);
          exit (1);
        }
      t2 = bench_now_ms ();
      bench_die (cudaHostUnregister (src->data), "unregister");
      bench_die (cudaHostUnregister (dst->data), "unregister");
      if (i >= WARMUP)
        {
          t[i - WARMUP] = bench_now_ms () - t0;
          reg[i - WARMUP] = t1 - t0 + bench_now_ms () - t2;
        }
    }
  *register_ms = bench_median (reg, RUNS);
  return bench_median (t, RUNS);
}

/* Largest difference, in 8-bit steps, between two results. */
static int
max_diff (const CcImage *a, const CcImage *b)
{
  const uint8_t *p = a->data, *q = b->data;
  int worst = 0;

  for (int64_t i = 0; i < a->stride * a->height; i++)
    {
      int d = abs ((int) p[i] - (int) q[i]);
      worst = d > worst ? d : worst;
    }
  return worst;
}

static void
bench_host_to_host (CcContext *ctx, int size)
{
  const size_t bytes = (size_t) size * size * 4;
  CcImage pin_src = image_u8 (cc_host_alloc (ctx, bytes), size, false);
  CcImage pin_dst = image_u8 (cc_host_alloc (ctx, bytes), size, false);
  CcImage page_src = image_u8 (malloc (bytes), size, false);
  CcImage page_dst = image_u8 (malloc (bytes), size, false);
  CcImage cpu_dst = image_u8 (malloc (bytes), size, false);
  CcImage dev_src = image_u8 (NULL, size, true), dev_dst = image_u8 (NULL, size, true);
  double values[25], upload, kernel, pinned, pageable, download, registered, register_ms;
  CcMask mask;
  CcOptions o;
  CcResult r;

  if (!pin_src.data || !pin_dst.data || !page_src.data || !page_dst.data || !cpu_dst.data)
    {
      fprintf (stderr, "bench-host: out of host memory\n");
      exit (1);
    }
  fill_image (&page_src);
  memcpy (pin_src.data, page_src.data, bytes);
  memset (page_dst.data, 0, bytes);   /* the caller's pages exist already */
  memset (pin_dst.data, 0, bytes);
  bench_die (cudaMalloc (&dev_src.data, bytes), "alloc");
  bench_die (cudaMalloc (&dev_dst.data, bytes), "alloc");
  box_mask (&mask, values, 5);
  cc_options_init (&o);
  o.has_alpha = true;

  /* One page-locked upload of the 8-bit image, and one download. */
  upload = bench_time_copy (dev_src.data, pin_src.data, bytes, WARMUP, RUNS);
  download = bench_time_copy (pin_dst.data, dev_src.data, bytes, WARMUP, RUNS);

  /* The kernel alone: the image already on the device, 8-bit in and out
   * (conversions included). */
  kernel = time_call (ctx, &dev_src, &dev_dst, &mask, &o, &r);
  printf ("method %s on %s\n", cc_method_name (r.method_used), r.device);
  pinned = time_call (ctx, &pin_src, &pin_dst, &mask, &o, &r);
  printf ("host to host, page-locked buffers: %d strips\n", r.strips);
  pageable = time_call (ctx, &page_src, &page_dst, &mask, &o, &r);
  printf ("host to host, pageable buffers: %d strips\n", r.strips);
  registered = time_registered (ctx, &page_src, &page_dst, &mask, &o, &r, &register_ms);

  o.method = CC_METHOD_CPU;
  if (cc_convolve (ctx, &page_src, 0, 0, &cpu_dst, &mask, &o, &r) != CC_OK)
    exit (1);
  printf ("results: page-locked vs pageable differ by at most %d, GPU vs CPU path by %d "
          "(8-bit steps)\n", max_diff (&pin_dst, &page_dst), max_diff (&pin_dst, &cpu_dst));

  printf ("\n%dx%d RGBA u8, 5x5 box, alpha weighting, host memory to host memory (ms):\n",
          size, size);
  printf ("  page-locked upload of the 8-bit image   %8.3f\n", upload);
  printf ("  page-locked download (for reference)    %8.3f\n", download);
  printf ("  kernel alone (image on the device)      %8.3f\n", kernel);
  printf ("  upload + kernel (the reference)         %8.3f\n", upload + kernel);
  printf ("  ours, page-locked buffers               %8.3f  %.2fx the reference (target <= 1.5x)\n",
          pinned, pinned / (upload + kernel));
  printf ("  ours, pageable buffers                  %8.3f  %.2fx the reference, %.2fx "
          "page-locked (target <= 2x)\n", pageable, pageable / (upload + kernel),
          pageable / pinned);
  printf ("  pageable, registered for the call       %8.3f  %.2fx page-locked (registering "
          "and releasing both %.3f)\n", registered, registered / pinned, register_ms);
  if (markdown)
    {
      fprintf (markdown, "| %dx%d RGBA u8, 5x5, host to host | ms | vs upload + kernel |\n"
               "|---|---|---|\n", size, size);
      fprintf (markdown, "| page-locked upload | %.3f | |\n| kernel alone | %.3f | |\n",
               upload, kernel);
      fprintf (markdown, "| ours, page-locked buffers | %.3f | %.2fx |\n", pinned,
               pinned / (upload + kernel));
      fprintf (markdown, "| ours, pageable buffers | %.3f | %.2fx |\n", pageable,
               pageable / (upload + kernel));
      fprintf (markdown, "| pageable, registered for the call | %.3f | %.2fx |\n\n",
               registered, registered / (upload + kernel));
    }

  cudaFree (dev_src.data);
  cudaFree (dev_dst.data);
  cc_host_free (ctx, pin_src.data);
  cc_host_free (ctx, pin_dst.data);
  free (page_src.data);
  free (page_dst.data);
  free (cpu_dst.data);
}

/* In a fresh process: start-up plus the first result, the caller's own
 * work (filling the source, as reading the drawable does) included.
 * 'overlap' creates the context first, so CUDA starts on the engine's
 * helper thread during that work; otherwise after it. */
static int
startup_child (bool overlap, int size)
{
  const double t0 = bench_now_ms ();
  const size_t bytes = (size_t) size * size * 4;
  CcContext *ctx = overlap ? cc_context_new () : NULL;
  CcImage src = image_u8 (malloc (bytes), size, false);
  CcImage dst = image_u8 (malloc (bytes), size, false);
  double values[25], work;
  CcMask mask;
  CcOptions o;
  CcResult r;

  fill_image (&src);
  memset (dst.data, 0, bytes);
  work = bench_now_ms () - t0;
  if (!ctx)
    ctx = cc_context_new ();
  box_mask (&mask, values, 5);
  cc_options_init (&o);
  o.has_alpha = true;
  if (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) != CC_OK ||
      !cc_method_is_gpu (r.method_used))
    {
      fprintf (stderr, "bench-host: %s\n", r.message);
      return 1;
    }
  printf ("%.3f %.3f\n", bench_now_ms () - t0, work);
  cc_context_free (ctx);
  return 0;
}

static void
bench_startup (const char *self, int size)
{
  double total[2][STARTS], work[2][STARTS];
  char cmd[4096];

  for (int i = 0; i < STARTS; i++)
    for (int v = 0; v < 2; v++)
      {
        FILE *f;

        snprintf (cmd, sizeof cmd, "'%s' --startup-child %s --size %d", self,
                  v ? "overlap" : "serial", size);
        if (!(f = popen (cmd, "r")) || fscanf (f, "%lf %lf", &total[v][i], &work[v][i]) != 2)
          {
            fprintf (stderr, "bench-host: the start-up run failed\n");
            exit (1);
          }
        pclose (f);
      }
  printf ("\nstart-up plus the first result in a fresh process, %dx%d RGBA u8 5x5 "
          "(median of %d, ms):\n", size, size, STARTS);
  printf ("  caller's own work before it needs the GPU  %8.1f\n",
          bench_median (work[0], STARTS));
  printf ("  serial: work, then CUDA start-up, then the call  %8.1f\n",
          bench_median (total[0], STARTS));
  printf ("  overlapped: CUDA starts during the work          %8.1f\n",
          bench_median (total[1], STARTS));
  if (markdown)
    fprintf (markdown, "| start-up + first result, fresh process | ms |\n|---|---|\n"
             "| caller's work alone | %.1f |\n| serial | %.1f |\n| overlapped | %.1f |\n\n",
             bench_median (work[0], STARTS), bench_median (total[0], STARTS),
             bench_median (total[1], STARTS));
}

/* The live preview's work: a 1 MP region, 9x9, 8-bit, pageable buffers as
 * the dialog's, a warm context. */
static void
bench_preview (CcContext *ctx)
{
  const int size = 1024;
  const size_t bytes = (size_t) size * size * 4;
  CcImage src = image_u8 (malloc (bytes), size, false);
  CcImage dst = image_u8 (malloc (bytes), size, false);
  double values[81], sum = 0.0, ms;
  CcMask mask = { 9, 9, values, 1.0, 0.0 };
  CcOptions o;
  CcResult r;

  fill_image (&src);
  memset (dst.data, 0, bytes);
  for (int i = 0; i < 81; i++)
    sum += values[i] = bench_rand01 () - 0.25;
  mask.divisor = sum;
  cc_options_init (&o);
  o.has_alpha = true;
  ms = time_call (ctx, &src, &dst, &mask, &o, &r);
  printf ("\npreview: %dx%d RGBA u8, random 9x9, warm context, %s: %.3f ms "
          "(target <= 10)\n", size, size, cc_method_name (r.method_used), ms);
  if (markdown)
    fprintf (markdown, "| preview, 1 MP RGBA u8, 9x9, warm | %.3f ms |\n|---|---|\n", ms);
  free (src.data);
  free (dst.data);
}

/* --huge N: an NxN RGB float image (30000: 10.8 GB) from pageable host
 * memory to pageable host memory under a 4 GB device budget, as the tool
 * handed it to the engine before it streamed: its engine time, and its
 * result against the same call's from page-locked buffers, byte for byte
 * (that call's time the reference). */
static int
bench_huge (int size)
{
  const int64_t row = (int64_t) size * 3;
  const size_t bytes = (size_t) row * size * sizeof (float);
  CcImage src = { malloc (bytes), CC_TYPE_FLOAT, 3, size, size, row * 4, false };
  CcImage dst = src, pin_src = src, pin_dst = src;
  static double values[25] = { 1, 2, 0, -1, 1, 2, 3, 1, 0, -1, 0, 1, 4, 1, 0,
                               -1, 0, 1, 3, 2, 1, -1, 0, 2, 1 };
  CcMask mask = { 5, 5, values, 0.0, 0.0 };
  CcContext *ctx;
  CcOptions o;
  CcResult r;
  double t0, pageable, pinned, page_ms[3];
  uint32_t seed = 12345;
  char why[512];
  bool same;

  setenv ("CUDA_CONVOLVE_DEVICE_BUDGET", "4G", 1);
  ctx = cc_context_new ();
  dst.data = malloc (bytes);
  pin_src.data = cc_host_alloc (ctx, bytes);
  pin_dst.data = cc_host_alloc (ctx, bytes);
  if (cc_context_gpu_status (ctx, why, sizeof why) != CC_OK || !src.data || !dst.data ||
      !pin_src.data || !pin_dst.data)
    {
      fprintf (stderr, "bench-host: --huge needs a GPU and 4 x %.1f GB of host memory\n",
               bytes / 1e9);
      return 1;
    }
  for (int i = 0; i < 25; i++)
    mask.divisor += values[i];
  cc_options_init (&o);
  o.border = CC_BORDER_MIRROR;
  t0 = bench_now_ms ();
  for (size_t i = 0; i < bytes / sizeof (float); i++)
    seed = seed * 1664525u + 1013904223u,
    ((float *) src.data)[i] = (seed >> 8) * (1.0f / 16777216.0f);
  memcpy (pin_src.data, src.data, bytes);
  memset (dst.data, 0, bytes);   /* the caller's pages exist already, as a reader's do */
  printf ("\n%dx%d RGB float (%.1f GB), 5x5, mirror, 4 GB device budget; filled in %.1f s\n",
          size, size, bytes / 1e9, (bench_now_ms () - t0) / 1e3);
  for (int i = 0; i < 3; i++)
    {
      if (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) != CC_OK)
        {
          fprintf (stderr, "bench-host: %s\n", r.message);
          return 1;
        }
      page_ms[i] = r.total_ms;
    }
  pageable = bench_median (page_ms, 3);
  printf ("  pageable buffers: %s, %d strips, engine %.3f s (median of 3: %.3f %.3f %.3f)\n",
          cc_method_name (r.method_used), r.strips, pageable / 1e3, page_ms[0] / 1e3,
          page_ms[1] / 1e3, page_ms[2] / 1e3);
  if (cc_convolve (ctx, &pin_src, 0, 0, &pin_dst, &mask, &o, &r) != CC_OK)
    return 1;
  pinned = r.total_ms;
  same = memcmp (dst.data, pin_dst.data, bytes) == 0;
  printf ("  page-locked buffers: %d strips, engine %.3f s\n", r.strips, pinned / 1e3);
  printf ("  results: %s\n", same ? "identical, byte for byte" : "DIFFERENT");
  if (markdown)
    fprintf (markdown, "| %dx%d RGB float, 5x5, 4 GB budget | engine s |\n|---|---|\n"
             "| pageable buffers | %.3f |\n| page-locked buffers | %.3f |\n\n",
             size, size, pageable / 1e3, pinned / 1e3);
  cc_host_free (ctx, pin_src.data);
  cc_host_free (ctx, pin_dst.data);
  free (src.data);
  free (dst.data);
  cc_context_free (ctx);
  return same ? 0 : 1;
}

int
main (int argc, char **argv)
{
  CcContext *ctx;
  const char *child = NULL;
  int size = 4096, huge = 0;
  char why[512];

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--markdown") == 0 && i + 1 < argc)
      markdown = fopen (argv[++i], "w");
    else if (strcmp (argv[i], "--size") == 0 && i + 1 < argc)
      size = atoi (argv[++i]);
    else if (strcmp (argv[i], "--startup-child") == 0 && i + 1 < argc)
      child = argv[++i];
    else if (strcmp (argv[i], "--huge") == 0 && i + 1 < argc)
      huge = atoi (argv[++i]);
    else
      {
        fprintf (stderr, "usage: bench-host [--size N] [--markdown FILE] [--huge N]\n");
        return 2;
      }
  if (huge > 0)
    return bench_huge (huge);

  if (child)
    return startup_child (strcmp (child, "overlap") == 0, size);
  /* Start-up first, before this process's own context exists. */
  bench_startup (argv[0], size);
  ctx = cc_context_new ();
  if (cc_context_gpu_status (ctx, why, sizeof why) != CC_OK)
    {
      fprintf (stderr, "bench-host: needs a GPU: %s\n", why);
      return 1;
    }
  printf ("\nGPU: %s; wall-clock medians of %d calls after %d warm-ups\n",
          cc_context_device_name (ctx), RUNS, WARMUP);
  bench_host_to_host (ctx, size);
  bench_preview (ctx);
  if (markdown)
    fclose (markdown);
  cc_context_free (ctx);
  return 0;
}
