/* Richardson–Lucy on the GPU against the CPU's, part of test-gpu: planes
 * on the device through every iteration, masks from 3x3 to 1023x1023,
 * borders, total variation, each sample type with and without a transfer,
 * a device budget, and 'auto''s reason where it takes the CPU.  Wiener on
 * the GPU against FFTW's, for masks to 1023x1023 and every border (without
 * FFTW: the GPU's path, and the CPU's refusal), and under device budgets
 * that keep its spectra or planes in host memory.
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
#include "pixel.h"

typedef struct
{
  int         mask;        /* width and height */
  CcShape     shape;       /* or a matrix of the mask's size, lopsided */
  int64_t     width, height;
  int         channels;
  CcBorder    border;
  double      tv_weight;
  CcMethod    method;      /* the GPU's convolutions: auto or one asked for */
} GpuCase;

static double *
case_mask (const GpuCase *c, CcMask *mask)
{
  double *values = NULL;
  char why[256];

  if (c->shape != CC_SHAPE_MATRIX)
    {
      const CcMaskSource source = { .shape = { c->shape, (c->mask - 1) / 2.0, 30.0, 6, 0.5 } };

      CHECK (cc_mask_resolve (&source, mask, &values, why, sizeof why), "mask: %s", why);
      return values;
    }
  values = malloc (sizeof (double) * c->mask * c->mask);
  for (int j = 0; j < c->mask; j++)
    for (int i = 0; i < c->mask; i++)
      values[j * c->mask + i] = 1.0 + (i + 2 * j) % 5 + (i > j ? 3.0 : 0.0);
  *mask = (CcMask) { c->mask, c->mask, values, 1.0, 0.0 };
  return values;
}

/* The largest difference between two float planes of n samples. */
static double
worst_of (const float *a, const float *b, size_t n)
{
  double worst = 0;

  for (size_t i = 0; i < n; i++)
    worst = fmax (worst, fabs ((double) a[i] - b[i]));
  return worst;
}

/* The job on the GPU by 'method' and on the CPU, float images: the
 * largest difference. */
static double
gpu_against_cpu (CcContext *ctx, const CcImage *src, const CcImage *og, const CcImage *oc,
                 const CcMask *mask, CcOptions *o, CcMethod method,
                 const CcDeconvolveParams *p, CcResult *rg, CcResult *rc, CcStatus *sg,
                 CcStatus *sc)
{
  o->method = method;
  *sg = cc_deconvolve (ctx, src, og, mask, o, p, rg);
  o->method = CC_METHOD_CPU;
  *sc = cc_deconvolve (ctx, src, oc, mask, o, p, rc);
  return worst_of (og->data, oc->data, (size_t) (src->width * src->height * src->channels));
}

static void
run_case (CcContext *ctx, const GpuCase *c, int iterations)
{
  const size_t n = (size_t) (c->width * c->height * c->channels);
  float *in = malloc (sizeof (float) * n), *gpu = malloc (sizeof (float) * n);
  float *cpu = malloc (sizeof (float) * n);
  const int64_t stride = c->width * c->channels * 4;
  const CcImage src = { in, CC_TYPE_FLOAT, c->channels, c->width, c->height, stride, false };
  const CcImage out_gpu = { gpu, CC_TYPE_FLOAT, c->channels, c->width, c->height, stride, false };
  const CcImage out_cpu = { cpu, CC_TYPE_FLOAT, c->channels, c->width, c->height, stride, false };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult rg, rc;
  CcMask mask;
  double *values = case_mask (c, &mask), worst;
  CcStatus sg, sc;
  bool folded;

  for (size_t i = 0; i < n; i++)
    in[i] = check_scene ((int64_t) (i / c->channels) % c->width,
                   (int64_t) (i / c->channels) / c->width, (int) (i % c->channels));
  cc_deconvolve_params_init (&p);
  p.iterations = iterations;
  p.tv_weight = c->tv_weight;
  cc_options_init (&o);
  o.border = c->border;
  o.clamp = false;
  worst = gpu_against_cpu (ctx, &src, &out_gpu, &out_cpu, &mask, &o, c->method, &p, &rg, &rc,
                           &sg, &sc);
  /* By fft without a total variation, the steps ride in its finish. */
  folded = strstr (rg.kernel, "by fft") && c->tv_weight <= 0;
  CHECK (sg == CC_OK && sc == CC_OK && worst <= 1e-4 &&
         strncmp (rg.kernel, "gpu richardson-lucy", 19) == 0 &&
         !strstr (rg.kernel, "the steps in its finish") == !folded,
         "Richardson-Lucy %dx%d %s, %lldx%lldx%d, %s border%s, %d iterations: GPU (%s, %.1f ms) "
         "%.2e from the CPU (%.1f ms) ('%s' '%s')", c->mask, c->mask,
         c->shape == CC_SHAPE_MATRIX ? "matrix" : cc_shape_name (c->shape),
         (long long) c->width, (long long) c->height, c->channels, cc_border_name (c->border),
         c->tv_weight > 0 ? ", total variation" : "", iterations, rg.kernel, rg.total_ms, worst,
         rc.total_ms, rg.message, rc.message);
  free (values);
  free (in);
  free (gpu);
  free (cpu);
}

/* The source read and the result written on the device, against the
 * host's, for both algorithms: a sample type, with the sRGB transfer or
 * without, alpha or not, red kept; codes within one step (halves within
 * one step at 1, floats within 1e-4), alpha and the kept channel the
 * source's, bit for bit.  Float
 * sources carry NaN and Inf, which both count and take as 0. */
typedef struct
{
  CcType type;
  int    channels;
  bool   alpha, srgb, keep_red;
} SampleCase;

static double
sample_at (const void *p, CcType type, int64_t i)
{
  switch (type)
    {
    case CC_TYPE_U8:   return ((const uint8_t *) p)[i];
    case CC_TYPE_U16:  return ((const uint16_t *) p)[i];
    case CC_TYPE_HALF: return cc_half_to_float (((const uint16_t *) p)[i]);
    default:           return ((const float *) p)[i];
    }
}

static void
run_samples (CcContext *ctx, const SampleCase *c, CcDeconvolveAlgorithm algorithm)
{
  const int64_t w = 517, h = 389, n = w * h * c->channels;
  const size_t size = cc_type_size (c->type);
  char *in = malloc ((size_t) n * size), *gpu = malloc ((size_t) n * size);
  char *cpu = malloc ((size_t) n * size);
  const CcImage src = { in, c->type, c->channels, w, h, w * c->channels * (int64_t) size, false };
  const CcImage og = { gpu, c->type, c->channels, w, h, src.stride, false };
  const CcImage oc = { cpu, c->type, c->channels, w, h, src.stride, false };
  const CcMaskSource source = { .shape = { CC_SHAPE_DISC, 10.0, 0, 6, 0.5 } };
  const bool is_float = c->type == CC_TYPE_FLOAT;
  CcTransfer *srgb = c->srgb ? cc_transfer_new_srgb (c->type) : NULL;
  CcDeconvolveParams p;
  CcOptions o;
  CcResult rg, rc;
  CcMask mask;
  double *values, worst = 0;
  char why[256];
  int64_t kept = 0;

  CHECK (cc_mask_resolve (&source, &mask, &values, why, sizeof why), "disc: %s", why);
  for (int64_t i = 0; i < n; i++)
    {
      const int ch = (int) (i % c->channels);
      const double v = c->alpha && ch == c->channels - 1
                       ? 1.0 - (double) (i % 7) / 255.0
                       : check_scene (i / c->channels % w, i / c->channels / w, ch);

      switch (c->type)
        {
        case CC_TYPE_U8:   ((uint8_t *) in)[i] = (uint8_t) (255 * v); break;
        case CC_TYPE_U16:  ((uint16_t *) in)[i] = (uint16_t) (65535 * v); break;
        case CC_TYPE_HALF: ((uint16_t *) in)[i] = cc_float_to_half ((float) v); break;
        default:           ((float *) in)[i] = i % 10007 == 5 ? NAN
                                               : i % 10007 == 9 ? INFINITY : (float) v; break;
        }
    }
  cc_deconvolve_params_init (&p);
  p.algorithm = algorithm;
  p.iterations = 10;
  cc_options_init (&o);
  o.has_alpha = c->alpha;
  o.transfer = srgb;
  o.clamp = !is_float;
  cc_options_keep_colour (&o, c->channels - c->alpha < 3, !c->keep_red, true, true);
  CHECK (cc_deconvolve (ctx, &src, &og, &mask, &o, &p, &rg) == CC_OK, "on the GPU: %s",
         rg.message);
  o.method = CC_METHOD_CPU;
  CHECK (cc_deconvolve (ctx, &src, &oc, &mask, &o, &p, &rc) == CC_OK, "on the CPU: %s",
         rc.message);
  for (int64_t i = 0; i < n; i++)
    {
      const int ch = (int) (i % c->channels);
      const bool copied = (c->alpha && ch == c->channels - 1) || (c->keep_red && ch == 0);

      worst = fmax (worst, fabs (sample_at (gpu, c->type, i) - sample_at (cpu, c->type, i)));
      kept += copied && memcmp (gpu + i * size, in + i * size, size) != 0;
    }
  /* Codes within one step (Wiener's, whose steps carry each side's
   * rounding on: two); a half's value within one of its steps at 1
   * (2^-11), a float's within 1e-4. */
  CHECK (worst <= (is_float ? 1e-4 : c->type == CC_TYPE_HALF ? 1.0 / 2048
                   : algorithm == CC_DECONVOLVE_WIENER ? 2 : 1) &&
         kept == 0 && strncmp (rg.kernel, "gpu", 3) == 0 &&
         strcmp (rg.message, rc.message) == 0,
         "%s, %s%s x%d%s%s, disc of radius 10: %g apart, %lld kept samples "
         "changed ('%s' '%s', %.1f ms; CPU '%s', %.1f ms)",
         cc_deconvolve_algorithm_name (algorithm), cc_type_name (c->type),
         c->srgb ? " sRGB" : "", c->channels, c->alpha ? " with alpha" : "",
         c->keep_red ? ", red kept" : "", worst, (long long) kept, rg.kernel, rg.message,
         rg.total_ms, rc.message, rc.total_ms);
  free (values);
  cc_transfer_free (srgb);
  free (in);
  free (gpu);
  free (cpu);
}

/* Where the colour's four planes do not fit the device budget but one
 * channel's do, the channels go one at a time, with the same result. */
static void
run_channel_at_a_time (CcContext *ctx)
{
  const GpuCase c = { 9, CC_SHAPE_GAUSSIAN, 640, 480, 3, CC_BORDER_MIRROR, 0,
                      CC_METHOD_REGISTER };
  const size_t n = (size_t) (c.width * c.height * c.channels);
  float *in = malloc (sizeof (float) * n), *gpu = malloc (sizeof (float) * n);
  float *cpu = malloc (sizeof (float) * n);
  const int64_t stride = c.width * c.channels * 4;
  const CcImage src = { in, CC_TYPE_FLOAT, 3, c.width, c.height, stride, false };
  const CcImage og = { gpu, CC_TYPE_FLOAT, 3, c.width, c.height, stride, false };
  const CcImage oc = { cpu, CC_TYPE_FLOAT, 3, c.width, c.height, stride, false };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult rg, rc;
  CcMask mask;
  double *values = case_mask (&c, &mask), worst;
  CcStatus sg, sc;

  for (size_t i = 0; i < n; i++)
    in[i] = check_scene ((int64_t) (i / 3) % c.width, (int64_t) (i / 3) / c.width, (int) (i % 3));
  cc_deconvolve_params_init (&p);
  p.iterations = 10;
  cc_options_init (&o);
  o.border = c.border;
  o.clamp = false;
  /* Source 3.7 MB and planes of 3.7 MB (three channels) or 1.2 MB (one):
   * three quarters of 16 MB take the one channel's (the CPU has no use
   * for the device budget). */
  cc_context_set_device_budget (ctx, 16 << 20);
  worst = gpu_against_cpu (ctx, &src, &og, &oc, &mask, &o, c.method, &p, &rg, &rc, &sg, &sc);
  cc_context_set_device_budget (ctx, 0);
  CHECK (sg == CC_OK && sc == CC_OK && worst <= 1e-4 &&
         strstr (rg.kernel, "gpu richardson-lucy") && strstr (rg.kernel, "a channel at a time"),
         "Richardson-Lucy under a 16 MB device budget: '%s' %.2e from the CPU ('%s')",
         rg.kernel, worst, rg.message);
  /* Under 8 MB not even one channel's fit: strips of rows, each with the
   * 80 rows its 10 iterations of a 9x9 mask reach, the CPU's result. */
  o.method = CC_METHOD_AUTO;
  cc_context_set_device_budget (ctx, 8 << 20);
  sg = cc_deconvolve (ctx, &src, &og, &mask, &o, &p, &rg);
  worst = worst_of (gpu, cpu, n);
  CHECK (sg == CC_OK && strstr (rg.kernel, "gpu richardson-lucy") &&
         strstr (rg.kernel, "in strips") && rg.strips >= 2 && worst <= 1e-4,
         "Richardson-Lucy under an 8 MB device budget: '%s' in %d strips, %.2e from the CPU "
         "('%s')", rg.kernel, rg.strips, worst, rg.message);
  /* Under 1 MB not even a strip and its margins fit: 'auto' takes the CPU
   * and says why, with the CPU's result. */
  cc_context_set_device_budget (ctx, 1 << 20);
  sg = cc_deconvolve (ctx, &src, &og, &mask, &o, &p, &rg);
  cc_context_set_device_budget (ctx, 0);
  CHECK (sg == CC_OK && strncmp (rg.kernel, "cpu", 3) == 0 &&
         strstr (rg.message, "fell back to the CPU") && strstr (rg.message, "device budget") &&
         strstr (rg.message, "strip") && memcmp (gpu, cpu, sizeof (float) * n) == 0,
         "Richardson-Lucy under a 1 MB device budget: '%s' '%s'", rg.kernel, rg.message);
  free (values);
  free (in);
  free (gpu);
  free (cpu);
}

/* The strips on an 8-bit RGBA photograph-like image restored in place (the
 * rows the next strip reads kept before they are written), with a
 * total-variation weight, and on a float image with non-finite samples
 * (counted once): the CPU's result within one code, alpha kept, the same
 * count. */
static void
run_strips (CcContext *ctx)
{
  const int64_t w = 701, h = 933;
  const size_t n = (size_t) (w * h * 4);
  uint8_t *in = malloc (n), *gpu = malloc (n), *cpu = malloc (n);
  float *fin = malloc (sizeof (float) * n), *fgpu = malloc (sizeof (float) * n);
  float *fcpu = malloc (sizeof (float) * n);
  const CcImage src = { in, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage in_place = { gpu, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage oc = { cpu, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage fsrc = { fin, CC_TYPE_FLOAT, 4, w, h, w * 16, false };
  const CcImage fog = { fgpu, CC_TYPE_FLOAT, 4, w, h, w * 16, false };
  const CcImage foc = { fcpu, CC_TYPE_FLOAT, 4, w, h, w * 16, false };
  const GpuCase c = { 7, CC_SHAPE_DISC, 0, 0, 0, CC_BORDER_EXTEND, 0, CC_METHOD_AUTO };
  CcTransfer *srgb = cc_transfer_new_srgb (CC_TYPE_U8);
  CcDeconvolveParams p;
  CcOptions o;
  CcResult rg, rc;
  CcMask mask;
  double *values = case_mask (&c, &mask), worst = 0;
  CcStatus sg, sc;
  int kept = 0;

  for (size_t i = 0; i < n; i++)
    {
      const int64_t x = (int64_t) (i / 4) % w, y = (int64_t) (i / 4) / w;

      in[i] = (uint8_t) (i % 4 == 3 ? 40 + (x + y) % 200 : 255 * check_scene (x, y, (int) (i % 4)));
      fin[i] = i % 4 == 3 ? 1.0f : check_scene (x, y, (int) (i % 4));
    }
  fin[4 * (w * 300 + 5)] = NAN;
  fin[4 * (w * 600 + 9) + 1] = INFINITY;
  memcpy (gpu, in, n);
  cc_deconvolve_params_init (&p);
  p.iterations = 12;
  p.tv_weight = 0.005;
  cc_options_init (&o);
  o.has_alpha = true;
  o.transfer = srgb;
  o.border = c.border;
  /* The source 2.6 MB, a channel's four planes 10.5 MB: three quarters of
   * 12 MB take strips of 505 rows a channel at a time, with margins of 12
   * iterations x 7 rows. */
  cc_context_set_device_budget (ctx, 12 << 20);
  sg = cc_deconvolve (ctx, &in_place, &in_place, &mask, &o, &p, &rg);
  cc_context_set_device_budget (ctx, 0);
  o.method = CC_METHOD_CPU;
  sc = cc_deconvolve (ctx, &src, &oc, &mask, &o, &p, &rc);
  for (size_t i = 0; i < n; i++)
    {
      worst = fmax (worst, abs ((int) gpu[i] - (int) cpu[i]));
      kept += i % 4 == 3 && gpu[i] != in[i];
    }
  CHECK (sg == CC_OK && sc == CC_OK && strstr (rg.kernel, "in strips") && rg.strips >= 2 &&
         worst <= 1 && kept == 0,
         "Richardson-Lucy with a total variation, 8-bit RGBA in place, in %d strips: '%s', "
         "%g codes from the CPU, %d alpha samples changed ('%s')", rg.strips, rg.kernel, worst,
         kept, rg.message);
  o.transfer = NULL;
  cc_context_set_device_budget (ctx, 24 << 20);
  worst = gpu_against_cpu (ctx, &fsrc, &fog, &foc, &mask, &o, CC_METHOD_AUTO, &p, &rg, &rc, &sg,
                           &sc);
  cc_context_set_device_budget (ctx, 0);
  CHECK (sg == CC_OK && sc == CC_OK && strstr (rg.kernel, "in strips") && worst <= 1e-4 &&
         strcmp (rg.message, rc.message) == 0 && strstr (rg.message, "2 non-finite"),
         "float RGBA with 2 non-finite samples, in %d strips: '%s', %.2e from the CPU, "
         "'%s' and the CPU's '%s'", rg.strips, rg.kernel, worst, rg.message, rc.message);
  free (values);
  cc_transfer_free (srgb);
  free (in);
  free (gpu);
  free (cpu);
  free (fin);
  free (fgpu);
  free (fcpu);
}

/* A small gray scene and a 3x3 binomial blur, for the checks of where a
 * job runs rather than of what it gives. */
#define SMALL_W 96
#define SMALL_H 80

typedef struct
{
  float   in[SMALL_W * SMALL_H], out[SMALL_W * SMALL_H];
  double  weights[9];
  CcImage src, dst;
  CcMask  mask;
} SmallJob;

static void
small_job (SmallJob *j)
{
  static const double binomial[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };

  for (int i = 0; i < SMALL_W * SMALL_H; i++)
    j->in[i] = check_scene (i % SMALL_W, i / SMALL_W, 0);
  memcpy (j->weights, binomial, sizeof binomial);
  j->src = (CcImage) { j->in, CC_TYPE_FLOAT, 1, SMALL_W, SMALL_H, SMALL_W * 4, false };
  j->dst = (CcImage) { j->out, CC_TYPE_FLOAT, 1, SMALL_W, SMALL_H, SMALL_W * 4, false };
  j->mask = (CcMask) { 3, 3, j->weights, 16.0, 0.0 };
}

/* A white border: 'auto' takes the CPU and says why; a GPU method asked
 * for is refused. */
static void
run_white (CcContext *ctx)
{
  static SmallJob j;
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  CcStatus st;

  small_job (&j);
  cc_deconvolve_params_init (&p);
  cc_options_init (&o);
  o.border = CC_BORDER_WHITE;
  st = cc_deconvolve (ctx, &j.src, &j.dst, &j.mask, &o, &p, &r);
  CHECK (st == CC_OK && strncmp (r.kernel, "cpu", 3) == 0 && strstr (r.message, "white"),
         "a white border under auto: %s '%s' '%s'", cc_status_name (st), r.kernel, r.message);
  o.method = CC_METHOD_FFT;
  st = cc_deconvolve (ctx, &j.src, &j.dst, &j.mask, &o, &p, &r);
  CHECK (st == CC_ERROR_UNSUPPORTED && strstr (r.message, "white"),
         "a white border by fft: %s '%s'", cc_status_name (st), r.message);
}

/* Wiener on the GPU against FFTW's on the CPU, on the same canvas: within
 * 1e-4 in float (2e-4 past a wrapped image), the GPU's path named in the
 * result ("gpu wiener"); or, where 'falls_back' (a wrapped side with a
 * prime factor past 7), the CPU
 * and a note saying why.  The scene is blurred by the mask first, as the
 * images Wiener is for are: on a sharp image a 1023x1023 blur's inverse
 * reaches 100 and FFTW's float result itself is 4e-4 from a double one. */
typedef struct
{
  int         mask;
  CcShape     shape;
  int64_t     width, height;
  int         channels;
  CcBorder    border;
  CcMethod    method;
  bool        falls_back;
} WienerCase;

static void
run_wiener (CcContext *ctx, const WienerCase *c)
{
  const size_t n = (size_t) (c->width * c->height * c->channels);
  float *in = malloc (sizeof (float) * n), *gpu = malloc (sizeof (float) * n);
  float *cpu = malloc (sizeof (float) * n);
  const int64_t stride = c->width * c->channels * 4;
  const CcImage src = { in, CC_TYPE_FLOAT, c->channels, c->width, c->height, stride, false };
  const CcImage out_gpu = { gpu, CC_TYPE_FLOAT, c->channels, c->width, c->height, stride, false };
  const CcImage out_cpu = { cpu, CC_TYPE_FLOAT, c->channels, c->width, c->height, stride, false };
  const GpuCase shape = { .mask = c->mask, .shape = c->shape };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult rg, rc;
  CcMask mask, blur;
  double *values = case_mask (&shape, &mask), worst, bound;
  CcStatus sg, sc;
  bool path;

  /* The blur Wiener undoes: the mask over its sum (the matrices' divisor
   * is 1). */
  blur = mask;
  cc_mask_normalize (&blur);
  for (size_t i = 0; i < n; i++)
    cpu[i] = check_scene ((int64_t) (i / c->channels) % c->width,
                          (int64_t) (i / c->channels) / c->width, (int) (i % c->channels));
  cc_options_init (&o);
  o.border = c->border;
  o.clamp = false;
  o.alpha_weighting = false;
  o.method = CC_METHOD_CPU;
  CHECK (cc_convolve (ctx, &out_cpu, 0, 0, &src, &blur, &o, &rc) == CC_OK, "the blur: %s",
         rc.message);
  cc_deconvolve_params_init (&p);
  p.algorithm = CC_DECONVOLVE_WIENER;
  cc_options_init (&o);
  o.border = c->border;
  o.clamp = false;
  if (!check_cpu_wiener ())
    {
      /* No reference here: the GPU's path, or the CPU's refusal. */
      o.method = c->method;
      sg = cc_deconvolve (ctx, &src, &out_gpu, &mask, &o, &p, &rg);
      CHECK (c->falls_back ? sg == CC_ERROR_UNSUPPORTED && strstr (rg.message, "FFTW")
                           : sg == CC_OK && strncmp (rg.kernel, "gpu wiener", 10) == 0,
             "Wiener %dx%d, %s border, without FFTW: %s '%s' '%s'", c->mask, c->mask,
             cc_border_name (c->border), cc_status_name (sg), rg.kernel, rg.message);
      free (values);
      free (in);
      free (gpu);
      free (cpu);
      return;
    }
  worst = gpu_against_cpu (ctx, &src, &out_gpu, &out_cpu, &mask, &o, c->method, &p, &rg, &rc,
                           &sg, &sc);
  /* Past a wrapped image, the conjugate-gradient steps carry each side's
   * rounding on (a 255x255 disc on 960x777: 1.1e-4, H200). */
  bound = c->border == CC_BORDER_WRAP ? 1e-4 : 2e-4;
  path = c->falls_back
         ? strncmp (rg.kernel, "cpu wiener", 10) == 0 && strstr (rg.message, "fell back") &&
           strstr (rg.message, "primes 2, 3, 5 and 7")
         : strncmp (rg.kernel, "gpu wiener", 10) == 0 && rg.method_used == CC_METHOD_FFT;
  CHECK (sg == CC_OK && sc == CC_OK && worst <= bound && path,
         "Wiener %dx%d %s, %lldx%lldx%d, %s border, by %s: GPU (%s, %.1f ms) %.2e from the "
         "CPU (%s, %.1f ms) ('%s' '%s')", c->mask, c->mask,
         c->shape == CC_SHAPE_MATRIX ? "matrix" : cc_shape_name (c->shape),
         (long long) c->width, (long long) c->height, c->channels, cc_border_name (c->border),
         cc_method_name (c->method), rg.kernel, rg.total_ms, worst, rc.kernel, rc.total_ms,
         rg.message, rc.message);
  printf ("wiener %dx%d %s, %lldx%lldx%d, %s: '%s', %.2e from the CPU, %.1f ms (CPU %.1f "
          "ms)\n", c->mask, c->mask,
          c->shape == CC_SHAPE_MATRIX ? "matrix" : cc_shape_name (c->shape),
          (long long) c->width, (long long) c->height, c->channels, cc_border_name (c->border),
          rg.kernel, worst, rg.total_ms, rc.total_ms);
  free (values);
  free (in);
  free (gpu);
  free (cpu);
}

/* A device budget below the job's planes stands for an image larger than
 * the GPU: for 'auto' the CPU runs it and says why; a GPU method asked for
 * fails, saying why (the one fallback rule, engine/fallback.c). */
static void
run_wiener_budget (CcContext *ctx)
{
  static const CcMethod methods[] = { CC_METHOD_AUTO, CC_METHOD_TILED };
  static SmallJob j;
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  CcStatus st;

  small_job (&j);
  cc_deconvolve_params_init (&p);
  p.algorithm = CC_DECONVOLVE_WIENER;
  cc_options_init (&o);
  cc_context_set_device_budget (ctx, 4096);
  for (int i = 0; i < 2; i++)
    {
      o.method = methods[i];
      st = cc_deconvolve (ctx, &j.src, &j.dst, &j.mask, &o, &p, &r);
      CHECK (methods[i] != CC_METHOD_AUTO
             ? st == CC_ERROR_OUT_OF_MEMORY && strstr (r.message, "budget")
             : check_cpu_wiener ()
             ? st == CC_OK && strncmp (r.kernel, "cpu wiener", 10) == 0 &&
               strstr (r.message, "fell back") && strstr (r.message, "budget")
             : st == CC_ERROR_UNSUPPORTED && strstr (r.message, "FFTW"),
             "Wiener past the device budget by %s: %s '%s' '%s'", cc_method_name (methods[i]),
             cc_status_name (st), r.kernel, r.message);
    }
  cc_context_set_device_budget (ctx, 0);
}

/* Wiener under device budgets that leave room for its canvas but not for
 * all its steps' spectra (those past it kept in host memory), or not even
 * for the image's planes beside it (read and written in host memory): on
 * the GPU still, the whole GPU's result within one code, the CPU's within
 * one where it has FFTW, alpha kept.  An 8-bit RGBA photograph-like
 * image, blurred by a disc first, restored in place. */
static void
run_wiener_staged (CcContext *ctx)
{
  const int64_t w = 701, h = 933;
  const size_t n = (size_t) (w * h * 4);
  /* The source 2.6 MB and its plane 7.8 MB; the 750x980 canvas 5.9 MB. */
  static const struct { uint64_t budget; const char *path; } budgets[] = {
    { 24 << 20, "spectra in host memory" }, { 12 << 20, "the planes in host memory" },
  };
  uint8_t *in = malloc (n), *whole = malloc (n), *staged = malloc (n), *cpu = malloc (n);
  float *scene = malloc (sizeof (float) * n), *blurred = malloc (sizeof (float) * n);
  const CcImage fs = { scene, CC_TYPE_FLOAT, 4, w, h, w * 16, false };
  const CcImage fb = { blurred, CC_TYPE_FLOAT, 4, w, h, w * 16, false };
  const CcImage src = { in, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage out_whole = { whole, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage out_cpu = { cpu, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage in_place = { staged, CC_TYPE_U8, 4, w, h, w * 4, false };
  const GpuCase c = { 15, CC_SHAPE_DISC, 0, 0, 0, CC_BORDER_MIRROR, 0, CC_METHOD_AUTO };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult rw, rs, rc;
  CcMask mask, blur;
  double *values = case_mask (&c, &mask);
  CcStatus sw, ss, sc = CC_OK;

  blur = mask;
  cc_mask_normalize (&blur);
  for (size_t i = 0; i < n; i++)
    scene[i] = check_scene ((int64_t) (i / 4) % w, (int64_t) (i / 4) / w, (int) (i % 4));
  cc_options_init (&o);
  o.border = c.border;
  o.method = CC_METHOD_CPU;
  CHECK (cc_convolve (ctx, &fs, 0, 0, &fb, &blur, &o, &rc) == CC_OK, "the blur: %s",
         rc.message);
  for (size_t i = 0; i < n; i++)
    in[i] = (uint8_t) (i % 4 == 3 ? 40 + i / 4 % 200
                                  : lrint (255 * fmin (fmax (blurred[i], 0.0), 1.0)));
  cc_deconvolve_params_init (&p);
  p.algorithm = CC_DECONVOLVE_WIENER;
  o.has_alpha = true;
  o.method = CC_METHOD_AUTO;
  sw = cc_deconvolve (ctx, &src, &out_whole, &mask, &o, &p, &rw);
  if (check_cpu_wiener ())
    {
      o.method = CC_METHOD_CPU;
      sc = cc_deconvolve (ctx, &src, &out_cpu, &mask, &o, &p, &rc);
      o.method = CC_METHOD_AUTO;
    }
  for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
    {
      int from_whole = 0, from_cpu = 0, kept = 0;

      memcpy (staged, in, n);
      cc_context_set_device_budget (ctx, budgets[b].budget);
      ss = cc_deconvolve (ctx, &in_place, &in_place, &mask, &o, &p, &rs);
      cc_context_set_device_budget (ctx, 0);
      for (size_t i = 0; i < n; i++)
        {
          const int dw = abs ((int) staged[i] - (int) whole[i]);
          const int dc = check_cpu_wiener () ? abs ((int) staged[i] - (int) cpu[i]) : 0;

          from_whole = dw > from_whole ? dw : from_whole;
          from_cpu = dc > from_cpu ? dc : from_cpu;
          kept += i % 4 == 3 && staged[i] != in[i];
        }
      CHECK (sw == CC_OK && ss == CC_OK && sc == CC_OK &&
             strncmp (rw.kernel, "gpu wiener", 10) == 0 && !strstr (rw.kernel, "host") &&
             strncmp (rs.kernel, "gpu wiener", 10) == 0 && strstr (rs.kernel, budgets[b].path) &&
             from_whole <= 1 && from_cpu <= 1 && kept == 0,
             "Wiener, 8-bit RGBA in place under a %llu MB device budget: '%s' (%.1f ms), %d "
             "codes from the whole GPU's ('%s', %.1f ms), %d from the CPU's, %d alpha samples "
             "changed ('%s')", (unsigned long long) (budgets[b].budget >> 20), rs.kernel,
             rs.total_ms, from_whole, rw.kernel, rw.total_ms, from_cpu, kept, rs.message);
    }
  free (values);
  free (in);
  free (whole);
  free (staged);
  free (cpu);
  free (scene);
  free (blurred);
}

/* The photographs' restorations on the GPU gain as much as on the CPU
 * (Wiener where the CPU has it), and each as much as check_restoration
 * asks. */
static void
run_restoration (CcContext *ctx)
{
  double gpu[CHECK_RESTORATIONS], cpu[CHECK_RESTORATIONS], worst = 0;

  check_restoration (ctx, CC_METHOD_AUTO, gpu);
  check_restoration (ctx, CC_METHOD_CPU, cpu);
  for (int i = 0; i < CHECK_RESTORATIONS; i++)
    if (isfinite (cpu[i]))
      worst = fmax (worst, fabs (gpu[i] - cpu[i]));
  CHECK (worst <= 0.02, "the photographs' restorations on the GPU gain what the CPU's do, "
         "within 0.02 dB (%.4f)", worst);
}

int
check_deconvolve_gpu (CcContext *ctx, bool reduced)
{
  static const GpuCase cases[] = {
    { 3, CC_SHAPE_MATRIX, 640, 480, 1, CC_BORDER_MIRROR, 0, CC_METHOD_AUTO },
    { 21, CC_SHAPE_DISC, 640, 480, 3, CC_BORDER_MIRROR, 0, CC_METHOD_AUTO },
    { 21, CC_SHAPE_DISC, 640, 480, 3, CC_BORDER_EXTEND, 0.005, CC_METHOD_FFT },
    { 15, CC_SHAPE_MOTION, 333, 251, 2, CC_BORDER_ZERO, 0, CC_METHOD_REGISTER },
    { 31, CC_SHAPE_MATRIX, 400, 300, 4, CC_BORDER_WRAP, 0, CC_METHOD_AUTO },
    { 127, CC_SHAPE_GAUSSIAN, 700, 500, 3, CC_BORDER_BLACK, 0, CC_METHOD_AUTO },
    { 255, CC_SHAPE_DISC, 600, 400, 1, CC_BORDER_MIRROR, 0, CC_METHOD_AUTO },
    { 1023, CC_SHAPE_GAUSSIAN, 1200, 1100, 1, CC_BORDER_MIRROR, 0, CC_METHOD_AUTO },
  };
  const int before = check_failures;
  const size_t n = reduced ? 2 : sizeof cases / sizeof cases[0];

  static const WienerCase wiener_cases[] = {
    { 3, CC_SHAPE_MATRIX, 640, 480, 1, CC_BORDER_MIRROR, CC_METHOD_AUTO, false },
    { 21, CC_SHAPE_DISC, 641, 479, 3, CC_BORDER_EXTEND, CC_METHOD_AUTO, false },
    { 15, CC_SHAPE_MOTION, 333, 251, 2, CC_BORDER_BLACK, CC_METHOD_REGISTER, false },
    { 21, CC_SHAPE_DISC, 420, 360, 4, CC_BORDER_WRAP, CC_METHOD_AUTO, false },
    { 127, CC_SHAPE_GAUSSIAN, 64, 49, 2, CC_BORDER_WRAP, CC_METHOD_FFT, false },
    { 21, CC_SHAPE_DISC, 401, 300, 3, CC_BORDER_WRAP, CC_METHOD_AUTO, true },
    { 31, CC_SHAPE_MATRIX, 300, 211, 3, CC_BORDER_ZERO, CC_METHOD_AUTO, false },
    { 9, CC_SHAPE_DISC, 199, 101, 1, CC_BORDER_WHITE, CC_METHOD_AUTO, false },
    { 127, CC_SHAPE_GAUSSIAN, 700, 500, 3, CC_BORDER_MIRROR, CC_METHOD_AUTO, false },
    { 1023, CC_SHAPE_GAUSSIAN, 1200, 1100, 1, CC_BORDER_MIRROR, CC_METHOD_AUTO, false },
    { 255, CC_SHAPE_DISC, 960, 777, 3, CC_BORDER_EXTEND, CC_METHOD_AUTO, false },
  };
  const size_t nw = reduced ? 2 : sizeof wiener_cases / sizeof wiener_cases[0];
  static const SampleCase samples[] = {
    { CC_TYPE_U8, 4, true, true, false },
    { CC_TYPE_U8, 3, false, true, true },
    { CC_TYPE_U16, 2, true, true, false },
    { CC_TYPE_HALF, 4, true, false, true },
    { CC_TYPE_FLOAT, 4, true, false, false },
  };

  for (size_t c = 0; c < n; c++)
    run_case (ctx, &cases[c], reduced ? 3 : 10);
  for (size_t c = 0; c < nw; c++)
    run_wiener (ctx, &wiener_cases[c]);
  run_wiener_staged (ctx);
  if (!reduced)
    {
      for (size_t c = 0; c < sizeof samples / sizeof samples[0]; c++)
        for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
          if (a != CC_DECONVOLVE_WIENER || check_cpu_wiener ())
            run_samples (ctx, &samples[c], (CcDeconvolveAlgorithm) a);
      run_channel_at_a_time (ctx);
      run_strips (ctx);
      run_white (ctx);
      run_wiener_budget (ctx);
      run_restoration (ctx);
    }
  if (!check_cpu_wiener ())
    printf ("SKIP: Wiener on the GPU against the CPU's: this build is without FFTW (the GPU's "
            "path and the CPU's refusals checked)\n");
  return check_failures - before;
}
