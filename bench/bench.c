/* make bench: every GPU method on a 4096x4096 RGBA float image resident on
 * the GPU (or of 1 to 3 channels, --channels), beside the device copy floor
 * and NPP (RGBA only), and the 1D methods on long signals; beside each mask
 * its physical limit, the larger of the copy floor and what its arithmetic
 * takes at the FP32 rate measured in the same run.  CUDA events, warm-up,
 * median of many runs, random data; each result is spot-checked against the
 * gold.  A program, not a test; --csv writes its figures for
 * scripts/plot-bench.py.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#ifdef HAVE_NPP
#include <nppi_filtering_functions.h>
#endif

#include "convolve.h"
#include "util.h"

#define RUNS 15
#define WARMUP 3

static const CcMethod gpu_methods[] = {
  CC_METHOD_BASIC, CC_METHOD_CONSTANT, CC_METHOD_TILED, CC_METHOD_CACHING,
  CC_METHOD_REGISTER, CC_METHOD_SEPARABLE, CC_METHOD_FFT
};
#define N_METHODS (int) (sizeof gpu_methods / sizeof gpu_methods[0])

void bench_deconvolve (CcContext *ctx, int size);   /* deconvolve.c */
void bench_deconvolve_memory (CcContext *ctx, int side);

static FILE *markdown;
static const char *only;        /* --only METHOD: time just that one */
static int only_mask;           /* --mask K: just that 2D mask size */
static bool no_1d;              /* --no-1d */
static int channels = 4;        /* --channels N: the 2D image's */
static FILE *csv;               /* --csv FILE: every figure, one a line */
static const char *csv_table;   /* the table its lines belong to */
static double gflops;           /* the FP32 rate, measured first */
/* Checks three 8x8 (or 64x1) regions of the GPU result against the gold;
 * returns the worst error over the bound (<= 1 passes). */
static double
spot_check (const CcImage *host_src, const CcImage *dev_dst, const CcMask *mask,
            const CcOptions *o)
{
  const int C = host_src->channels;
  const int64_t rw = dev_dst->width < 64 ? dev_dst->width : dev_dst->height == 1 ? 64 : 8;
  const int64_t rh = dev_dst->height < 8 ? dev_dst->height : 8;
  double sum_abs = 0.0, worst = 0.0, bound;
  double gold[64 * 8 * 4];
  float got[64 * 8 * 4];

  for (int i = 0; i < mask->width * mask->height; i++)
    sum_abs += fabs (mask->values[i]);
  bound = 1e-5 * (sum_abs / fabs (mask->divisor)) + 1e-6;

  for (int k = 0; k < 3; k++)
    {
      /* corner, middle, far corner: the borders and the inside */
      int64_t x = k == 0 ? 0 : k == 1 ? (dev_dst->width - rw) / 2 : dev_dst->width - rw;
      int64_t y = k == 0 ? 0 : k == 1 ? (dev_dst->height - rh) / 2 : dev_dst->height - rh;
      CcImage g = { gold, CC_TYPE_DOUBLE, C, rw, rh, rw * C * 8, false };

      if (cc_convolve_gold (host_src, x, y, &g, mask, o) != CC_OK)
        return INFINITY;
      bench_die (cudaMemcpy2D (got, rw * C * 4, (char *) dev_dst->data + y * dev_dst->stride
                              + x * C * 4, dev_dst->stride, rw * C * 4, rh,
                              cudaMemcpyDeviceToHost), "download");
      for (int64_t i = 0; i < rw * rh * C; i++)
        {
          double e = fabs (got[i] - gold[i]) / bound;
          if (!(e <= worst))
            worst = isnan (e) ? INFINITY : e;
        }
    }
  return worst;
}

/* The engine's own kernel time (CUDA events inside it): median of RUNS. */
static double
time_method (CcContext *ctx, const CcImage *src, const CcImage *dst, const CcMask *mask,
             const CcOptions *o, bool *ok)
{
  double t[RUNS];
  CcResult r;

  for (int i = 0; i < WARMUP + RUNS; i++)
    {
      if (cc_convolve (ctx, src, 0, 0, dst, mask, o, &r) != CC_OK)
        {
          fprintf (stderr, "bench: %s: %s\n", cc_method_name (o->method), r.message);
          *ok = false;
          return NAN;
        }
      if (i >= WARMUP)
        t[i - WARMUP] = r.kernel_ms;
    }
  *ok = true;
  return bench_median (t, RUNS);
}

/* What a mask's arithmetic alone takes at the measured FP32 rate: 'flops'
 * an output sample (an FMA a tap is two), over 'samples' of them. */
static double
fp32_floor_ms (double flops, double samples)
{
  return flops * samples / (gflops * 1e6);
}

static void
csv_line (const char *mask, int k, const char *series, double ms)
{
  if (csv && ms > 0 && isfinite (ms))
    fprintf (csv, "%s,%s,%d,%s,%.4f\n", csv_table, mask, k, series, ms);
}

/* One table row: a mask's times for every method (NAN: it cannot take
 * the mask; INFINITY: a wrong result), the best, its bandwidth (the image
 * read and written once: 'bytes' in all), the best over NPP, the physical
 * limit (the larger of the copy floor and the FP32 floor) and the best as a
 * multiple of it, and the method auto picks. */
static void
row (const char *mask, int k, double floor_ms, double fp32_ms, double npp_ms, const double *ms,
     double bytes, const char *auto_pick)
{
  const double limit = floor_ms > fp32_ms ? floor_ms : fp32_ms;
  double best = INFINITY;
  int best_i = -1;
  char cell[32], vs_npp[16] = "-";

  printf ("%-13s", mask);
  if (markdown)
    fprintf (markdown, "| %s |", mask);
  for (int i = -1; i < N_METHODS; i++)
    {
      double t = i < 0 ? npp_ms : ms[i];

      if (isnan (t) || t <= 0)
        snprintf (cell, sizeof cell, "-");
      else if (isinf (t))
        snprintf (cell, sizeof cell, "WRONG");
      else
        snprintf (cell, sizeof cell, "%.3f", t);
      printf (" %9s", cell);
      if (markdown)
        fprintf (markdown, " %s |", cell);
      csv_line (mask, k, i < 0 ? "NPP" : cc_method_name (gpu_methods[i]), t);
      if (i >= 0 && t > 0 && t < best)
        {
          best = t;
          best_i = i;
        }
    }
  csv_line (mask, k, "copy floor", floor_ms);
  csv_line (mask, k, "FP32 floor", fp32_ms);
  if (best_i >= 0)
    {
      if (npp_ms > 0)
        snprintf (vs_npp, sizeof vs_npp, "%.2fx", npp_ms / best);
      printf ("  %-9s %7.0f %7s %7.3f %6.2fx", cc_method_name (gpu_methods[best_i]),
              bytes / best / 1e6, vs_npp, limit, best / limit);
      if (markdown)
        fprintf (markdown, " %s %.3f | %.0f | %s | %.3f | %.2fx |",
                 cc_method_name (gpu_methods[best_i]), best, bytes / best / 1e6, vs_npp,
                 limit, best / limit);
    }
  printf ("  %s\n", auto_pick);
  if (markdown)
    fprintf (markdown, " %s |\n", auto_pick);
}

static void
header (const char *title, double floor_ms)
{
  printf ("\n%s; copy floor %.3f ms, FP32 %.1f TFLOP/s\n%-13s %9s", title, floor_ms,
          gflops / 1e3, "mask", "NPP");
  if (markdown)
    fprintf (markdown, "\n%s; copy floor %.3f ms, FP32 %.1f TFLOP/s.\n\n| mask | NPP |",
             title, floor_ms, gflops / 1e3);
  for (int i = 0; i < N_METHODS; i++)
    {
      printf (" %9s", cc_method_name (gpu_methods[i]));
      if (markdown)
        fprintf (markdown, " %s |", cc_method_name (gpu_methods[i]));
    }
  printf ("  %-9s %7s %7s %7s %7s  %s\n", "best", "GB/s", "vs NPP", "limit", "/limit",
          "auto");
  if (markdown)
    {
      fprintf (markdown, " best | best GB/s | best vs NPP | limit* | best / limit | auto |\n"
               "|---|---|");
      for (int i = 0; i < N_METHODS + 6; i++)
        fprintf (markdown, "---|");
      fprintf (markdown, "\n");
    }
}

/* Every method on one mask: median ms, NAN where it cannot take it.
 * Returns the method auto picks ("-" under --only, "WRONG" if its result
 * is). */
static const char *
run_methods (CcContext *ctx, const CcImage *host, const CcImage *src, const CcImage *dst,
             const CcMask *mask, double *ms)
{
  const size_t bytes = dst->stride * dst->height;
  CcOptions o;
  CcResult r;

  cc_options_init (&o);
  for (int i = 0; i < N_METHODS; i++)
    {
      char why[256];
      bool ok;

      o.method = gpu_methods[i];
      ms[i] = NAN;
      if (only && strcmp (only, cc_method_name (o.method)) != 0)
        continue;
      /* The textbook methods would take seconds a row beyond 31x31. */
      if (mask->width > 31 && o.method != CC_METHOD_REGISTER && o.method != CC_METHOD_FFT)
        continue;
      if (cc_method_check (ctx, o.method, mask, host->channels, false, why, sizeof why) != CC_OK)
        continue;
      bench_die (cudaMemset (dst->data, 0xff, bytes), "poison");
      ms[i] = time_method (ctx, src, dst, mask, &o, &ok);
      if (ok && spot_check (host, dst, mask, &o) > 1.0)
        ms[i] = INFINITY;
    }
  if (only)
    return "-";
  o.method = CC_METHOD_AUTO;
  bench_die (cudaMemset (dst->data, 0xff, bytes), "poison");
  if (cc_convolve (ctx, src, 0, 0, dst, mask, &o, &r) != CC_OK)
    {
      fprintf (stderr, "bench: auto: %s\n", r.message);
      return "-";
    }
  return spot_check (host, dst, mask, &o) > 1.0 ? "WRONG" : cc_method_name (r.method_used);
}

#ifdef HAVE_NPP
typedef struct
{
  const float      *src;
  float            *dst;
  int               width;
  int               height;
  int               k;
  const float      *kernel;
  NppStreamContext  npp;
} NppRun;

static void
run_npp (void *data)
{
  NppRun *n = data;
  NppiSize size = { n->width, n->height }, ksize = { n->k, n->k };
  NppiPoint zero = { 0, 0 }, anchor = { n->k / 2, n->k / 2 };
  NppStatus st;

  st = nppiFilterBorder_32f_C4R_Ctx (n->src, n->width * 16, size, zero, n->dst, n->width * 16,
                                     size, n->kernel, ksize, anchor, NPP_BORDER_REPLICATE,
                                     n->npp);
  if (st != NPP_SUCCESS)
    {
      fprintf (stderr, "bench: NPP error %d\n", (int) st);
      exit (1);
    }
}

static NppStreamContext
npp_context (void)
{
  NppStreamContext c;
  struct cudaDeviceProp p;

  memset (&c, 0, sizeof c);
  cudaGetDeviceProperties (&p, 0);
  c.hStream = 0;
  c.nCudaDeviceId = 0;
  c.nMultiProcessorCount = p.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  c.nSharedMemPerBlock = p.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = p.major;
  c.nCudaDevAttrComputeCapabilityMinor = p.minor;
  return c;
}
#endif

#ifdef HAVE_NPP
static double
time_npp (const CcImage *src, const CcImage *dst, const CcMask *mask)
{
  const int k = mask->width;
  NppRun run = { src->data, dst->data, (int) src->width, (int) src->height, k, NULL,
                 npp_context () };
  float kernel[CC_DIRECT_MASK_MAX * CC_DIRECT_MASK_MAX], *dk;
  double ms;

  for (int i = 0; i < k * k; i++)
    kernel[i] = (float) mask->values[i];
  bench_die (cudaMalloc ((void **) &dk, sizeof (float) * k * k), "alloc");
  bench_die (cudaMemcpy (dk, kernel, sizeof (float) * k * k, cudaMemcpyHostToDevice), "upload");
  run.kernel = dk;
  ms = bench_time_events (run_npp, &run, WARMUP, RUNS);
  cudaFree (dk);
  return ms;
}
#endif

/* A w x h float image of c channels, random, on the host; on the GPU, its
 * copy (src) and an output of its shape (dst). */
static void
images_new (int64_t w, int64_t h, int c, CcImage *host, CcImage *src, CcImage *dst)
{
  const int64_t n = w * h * c;
  const size_t bytes = n * sizeof (float);

  *host = (CcImage) { malloc (bytes), CC_TYPE_FLOAT, c, w, h, w * c * (int64_t) sizeof (float),
                      false };
  for (int64_t i = 0; i < n; i++)
    ((float *) host->data)[i] = bench_rand01 ();
  *src = *dst = *host;
  src->on_device = dst->on_device = true;
  bench_die (cudaMalloc (&src->data, bytes), "alloc");
  bench_die (cudaMalloc (&dst->data, bytes), "alloc");
  bench_die (cudaMemcpy (src->data, host->data, bytes, cudaMemcpyHostToDevice), "upload");
}

static void
images_free (CcImage *host, CcImage *src, CcImage *dst)
{
  cudaFree (src->data);
  cudaFree (dst->data);
  free (host->data);
}

static void
bench_2d (CcContext *ctx, int size)
{
  static const int masks[] = { 3, 5, 7, 9, 15, 25, 31, 63, 127 };
  static const int gauss[] = { 5, 7, 9, 11, 15, 25, 31 };
  static const char *const layouts[] = { "1-channel", "2-channel", "3-channel", "RGBA" };
  const int64_t n = (int64_t) size * size * channels;
  const size_t bytes = n * sizeof (float);
  CcImage host, src, dst;
  static double values[127 * 127];
  double floor_ms, ms[N_METHODS];
  char title[160], name[32];
  const char *pick;

  images_new (size, size, channels, &host, &src, &dst);
  floor_ms = bench_time_copy (dst.data, src.data, bytes, WARMUP, RUNS);

  snprintf (title, sizeof title,
            "2D: %dx%d %s float on the GPU, border extend, random (non-separable) masks, ms",
            size, size, layouts[channels - 1]);
  header (title, floor_ms);
  csv_table = "random";
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
    {
      const int k = masks[m];
      double sum = 0.0, npp_ms = 0.0;
      CcMask mask = { k, k, values, 1.0, 0.0 };

      if (only_mask && k != only_mask)
        continue;
      for (int i = 0; i < k * k; i++)
        sum += values[i] = bench_rand01 () - 0.25;
      mask.divisor = sum;
#ifdef HAVE_NPP
      if (channels == 4)
        npp_ms = time_npp (&src, &dst, &mask);
#endif
      pick = run_methods (ctx, &host, &src, &dst, &mask, ms);
      snprintf (name, sizeof name, "%dx%d", k, k);
      row (name, k, floor_ms, fp32_floor_ms (2.0 * k * k, (double) n), npp_ms, ms, 2.0 * bytes,
           pick);
    }

  /* Separable masks, Gaussian (binomial) blurs: where separable overtakes
   * register, which auto must follow. */
  csv_table = "gaussian";
  for (size_t m = 0; m < sizeof gauss / sizeof gauss[0]; m++)
    {
      const int k = gauss[m];
      double g[31], npp_ms = 0.0;
      CcMask mask = { k, k, values, 0.0, 0.0 };

      if (only_mask && k != only_mask)
        continue;
      g[0] = 1.0;
      for (int i = 1; i < k; i++)
        {
          g[i] = 0.0;
          for (int j = i; j > 0; j--)
            g[j] += g[j - 1];
        }
      for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
          mask.divisor += values[j * k + i] = g[j] * g[i];
#ifdef HAVE_NPP
      if (channels == 4)
        npp_ms = time_npp (&src, &dst, &mask);
#endif
      pick = run_methods (ctx, &host, &src, &dst, &mask, ms);
      snprintf (name, sizeof name, "%dx%d gauss", k, k);
      row (name, k, floor_ms, fp32_floor_ms (4.0 * k, (double) n), npp_ms, ms, 2.0 * bytes,
           pick);
    }
  images_free (&host, &src, &dst);
}

/* fft with this project's transforms against fft with cuFFT's rows (a
 * context made with CUDA_CONVOLVE_CUFFT naming the toolkit's library), on
 * the same image and masks, alternately, several rounds: each figure the
 * median of its rounds' medians. */
static void
bench_fft_transforms (CcContext *own, int size)
{
  static const int masks[] = { 31, 127, 511, 1023 };
  const size_t bytes = (size_t) size * size * channels * sizeof (float);
  CcImage host, src, dst;
  static double values[1023 * 1023];
  CcContext *with_cufft;
  CcOptions o;
  char why[256];

  /* The toolkit's, where it was at build time, else by its soname. */
  const char *cufft = CUDA_LIB_DIR "/libcufft.so.12";
  void *probe = dlopen (cufft, RTLD_NOW | RTLD_LOCAL);

  if (!probe && !(probe = dlopen (cufft = "libcufft.so.12", RTLD_NOW | RTLD_LOCAL)))
    {
      printf ("(fft against cuFFT: %s)\n", dlerror ());
      return;
    }
  dlclose (probe);
  setenv ("CUDA_CONVOLVE_CUFFT", cufft, 1);
  with_cufft = cc_context_new ();
  unsetenv ("CUDA_CONVOLVE_CUFFT");
  if (cc_context_gpu_status (with_cufft, why, sizeof why) != CC_OK)
    {
      printf ("(fft against cuFFT: no second context: %s)\n", why);
      cc_context_free (with_cufft);
      return;
    }
  images_new (size, size, channels, &host, &src, &dst);
  cc_options_init (&o);
  o.method = CC_METHOD_FFT;
  printf ("\nfft's transforms: this project's against cuFFT's rows (the columns are ours in "
          "both), %dx%d %d-channel float on the GPU, ms, median of 5 alternating rounds\n",
          size, size, channels);
  printf ("| mask | own | cuFFT rows | own / cuFFT | checked |\n|---|---|---|---|---|\n");
  csv_table = "fft-transforms";
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
    {
      const int k = masks[m];
      CcMask mask = { k, k, values, 0.0, 0.0 };
      double t[2][5], med[2], worst = 0.0;
      char name[32];
      bool ok = true;

      if (only_mask && k != only_mask)
        continue;
      for (int i = 0; i < k * k; i++)
        mask.divisor += values[i] = bench_rand01 () - 0.25;
      for (int round = 0; round < 5 && ok; round++)
        for (int side = 0; side < 2 && ok; side++)
          {
            double e;

            bench_die (cudaMemset (dst.data, 0xff, bytes), "poison");
            t[side][round] = time_method (side ? with_cufft : own, &src, &dst, &mask, &o, &ok);
            /* The gold of a 1023x1023 mask takes seconds: each side once. */
            if (ok && round == 0 && (e = spot_check (&host, &dst, &mask, &o)) > worst)
              worst = e;
          }
      if (!ok)
        continue;
      for (int side = 0; side < 2; side++)
        med[side] = bench_median (t[side], 5);
      snprintf (name, sizeof name, "%dx%d", k, k);
      printf ("| %s | %.3f | %.3f | %.2fx | %s (worst %.2g of the bound) |\n", name, med[0],
              med[1], med[0] / med[1], worst <= 1.0 ? "yes" : "NO", worst);
      csv_line (name, k, "fft own", med[0]);
      csv_line (name, k, "fft cuFFT rows", med[1]);
    }
  cc_context_free (with_cufft);
  images_free (&host, &src, &dst);
}

static void
bench_1d (CcContext *ctx, int64_t n, int taps)
{
  const size_t bytes = n * sizeof (float);
  CcImage host, src, dst;
  double values[127], sum = 0.0, ms[N_METHODS];
  CcMask mask = { taps, 1, values, 1.0, 0.0 };
  char title[128], name[16], table[32];
  double floor_ms;
  const char *pick;

  images_new (n, 1, 1, &host, &src, &dst);
  for (int i = 0; i < taps; i++)
    sum += values[i] = bench_rand01 ();
  mask.divisor = sum;

  snprintf (title, sizeof title, "1D: n = 2^%d floats, %d taps, ms", (int) log2 ((double) n),
            taps);
  floor_ms = bench_time_copy (dst.data, src.data, bytes, WARMUP, RUNS);
  header (title, floor_ms);
  snprintf (table, sizeof table, "1d-2^%d", (int) log2 ((double) n));
  csv_table = table;
  pick = run_methods (ctx, &host, &src, &dst, &mask, ms);
  snprintf (name, sizeof name, "%dx1", taps);
  row (name, taps, floor_ms, fp32_floor_ms (2.0 * taps, (double) n), 0.0, ms, 2.0 * bytes, pick);
  images_free (&host, &src, &dst);
}

int
main (int argc, char **argv)
{
  CcContext *ctx = cc_context_new ();
  int size = 4096, driver = 0;
  char why[512];

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--markdown") == 0 && i + 1 < argc)
      markdown = fopen (argv[++i], "w");
    else if (strcmp (argv[i], "--size") == 0 && i + 1 < argc)
      size = atoi (argv[++i]);
    else if (strcmp (argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp (argv[i], "--mask") == 0 && i + 1 < argc)
      only_mask = atoi (argv[++i]);
    else if (strcmp (argv[i], "--csv") == 0 && i + 1 < argc)
      csv = fopen (argv[++i], "w");
    else if (strcmp (argv[i], "--no-1d") == 0)
      no_1d = true;
    else if (strcmp (argv[i], "--channels") == 0 && i + 1 < argc &&
             (channels = atoi (argv[++i])) >= 1 && channels <= 4)
      ;
    else
      {
        fprintf (stderr, "usage: bench [--size N] [--markdown FILE] [--csv FILE] "
                 "[--only METHOD|deconvolve|deconvolve-memory] [--mask K] [--no-1d] [--channels 1-4]\n");
        return 2;
      }
  if (cc_context_gpu_status (ctx, why, sizeof why) != CC_OK)
    {
      fprintf (stderr, "bench: needs a GPU: %s\n", why);
      return 1;
    }
  cudaDriverGetVersion (&driver);
  printf ("GPU: %s, driver CUDA %d.%d, runtime %d.%d; median of %d runs after %d warm-ups\n",
          cc_context_device_name (ctx), driver / 1000, driver % 1000 / 10,
          CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, RUNS, WARMUP);
  if (markdown)
    fprintf (markdown, "GPU: %s; CUDA events, median of %d runs after %d warm-ups.\n",
             cc_context_device_name (ctx), RUNS, WARMUP);
#ifndef HAVE_NPP
  printf ("(NPP not found at configure time: no NPP column)\n");
#endif
  gflops = bench_fma_gflops (WARMUP, RUNS);
  printf ("FP32: %.1f TFLOP/s measured (FMA chains); the limit is the larger of the copy "
          "floor and the FP32 floor, 2 FLOP a tap an output sample (a Gaussian's: 2 x 2K "
          "taps, as two 1D passes)\n", gflops / 1e3);
  if (markdown)
    fprintf (markdown, "\n\\* limit: the larger of the copy floor and the FP32 floor (2 FLOP a "
             "tap an output sample at the %.1f TFLOP/s measured; a Gaussian's as two 1D "
             "passes).\n", gflops / 1e3);
  if (csv)
    fprintf (csv, "# GPU: %s; FP32 %.1f TFLOP/s; CUDA events, median of %d runs\n"
             "table,mask,k,series,ms\n", cc_context_device_name (ctx), gflops / 1e3, RUNS);

  if (only && strcmp (only, "deconvolve-memory") == 0)
    bench_deconvolve_memory (ctx, 8000);
  else if (!only || strcmp (only, "deconvolve") != 0)
    bench_2d (ctx, size);
  if (!only || strcmp (only, "fft") == 0)
    bench_fft_transforms (ctx, size);
  if (!only || strcmp (only, "deconvolve") == 0)
    bench_deconvolve (ctx, size);
  if (!no_1d && !(only && strcmp (only, "deconvolve-memory") == 0))
    {
      bench_1d (ctx, (int64_t) 1 << 22, 25);
      bench_1d (ctx, (int64_t) 1 << 28, 25);
    }

  if (markdown)
    fclose (markdown);
  if (csv)
    fclose (csv);
  cc_context_free (ctx);
  return 0;
}
