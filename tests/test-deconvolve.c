/* The engine's deconvolution on the CPU: against a double-precision
 * Richardson–Lucy written from its definition here, for every border; the
 * channels it keeps, exactly; refusals by word with the output untouched;
 * no NaN or infinity out of dark or broken images; progress and cancel;
 * masks up to 1023x1023; the gain on photographs (check_restoration).
 * scikit-image's own implementations are compared in tests/deconvolve.py.
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

/* Wiener on the CPU needs FFTW: a build without it refuses Wiener
 * (test_without_fftw) and the other tests leave Wiener out. */
static bool
runs_here (int algorithm)
{
  return algorithm != CC_DECONVOLVE_WIENER || check_cpu_wiener ();
}

/* The engine's convolution by its definition, in double: M correlated,
 * the border as cc_border_map says (white's constant 1, the others' 0). */
static void
correlate_gold (const double *in, double *out, int64_t w, int64_t h, const double *m, int mw,
                int mh, CcBorder border)
{
  const int rx = mw / 2, ry = mh / 2;

  for (int64_t y = 0; y < h; y++)
    for (int64_t x = 0; x < w; x++)
      {
        double sum = 0;

        for (int j = 0; j < mh; j++)
          for (int i = 0; i < mw; i++)
            {
              const int64_t sx = cc_border_map (x + i - rx, w, border);
              const int64_t sy = cc_border_map (y + j - ry, h, border);
              const double v = sx < 0 || sy < 0 ? (border == CC_BORDER_WHITE ? 1.0 : 0.0)
                                                : in[sy * w + sx];

              sum += m[j * mw + i] * v;
            }
        out[y * w + x] = sum;
      }
}

/* Richardson–Lucy from its definition, in double, from the flat start. */
static void
rl_gold (const double *f, double *u, int64_t w, int64_t h, const double *m, int mw, int mh,
         CcBorder border, int iterations)
{
  const size_t n = (size_t) (w * h);
  double *t = malloc (sizeof (double) * n), *g = malloc (sizeof (double) * n);
  double *turned = malloc (sizeof (double) * (size_t) (mw * mh));

  for (int i = 0; i < mw * mh; i++)
    turned[mw * mh - 1 - i] = m[i];
  for (size_t i = 0; i < n; i++)
    u[i] = 0.5;
  for (int k = 0; k < iterations; k++)
    {
      correlate_gold (u, t, w, h, m, mw, mh, border);
      for (size_t i = 0; i < n; i++)
        t[i] = f[i] / (t[i] + 1e-12);
      correlate_gold (t, g, w, h, turned, mw, mh, border);
      for (size_t i = 0; i < n; i++)
        u[i] *= g[i];
    }
  free (t);
  free (g);
  free (turned);
}

/* Every border, a one-channel float image blurred by an asymmetric mask:
 * the engine's Richardson–Lucy against the definition's. */
static void
test_against_definition (CcContext *ctx)
{
  const int64_t w = 37, h = 29;
  const int mw = 5, mh = 3, iterations = 7;
  static const double m[15] = { 1, 2, 4, 2, 0, 0, 3, 8, 5, 1, 1, 2, 3, 1, 0 };
  double f[37 * 29], gold[37 * 29], sharp[37 * 29], mask[15];
  float in[37 * 29], out[37 * 29];
  const CcImage src = { in, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcMask cm = { mw, mh, m, 33.0, 0.0 };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;

  for (int i = 0; i < 15; i++)
    mask[i] = m[i] / 33.0;
  for (int64_t i = 0; i < w * h; i++)
    sharp[i] = check_scene (i % w, i / w, 0);
  cc_deconvolve_params_init (&p);
  p.iterations = iterations;
  p.start = CC_DECONVOLVE_START_FLAT;
  for (int b = 0; b < CC_BORDER_COUNT; b++)
    {
      double worst = 0;
      CcStatus st;

      correlate_gold (sharp, f, w, h, mask, mw, mh, (CcBorder) b);
      for (int64_t i = 0; i < w * h; i++)
        in[i] = (float) f[i];
      for (int64_t i = 0; i < w * h; i++)
        f[i] = in[i];
      rl_gold (f, gold, w, h, mask, mw, mh, (CcBorder) b, iterations);
      cc_options_init (&o);
      o.border = (CcBorder) b;
      o.clamp = false;
      st = cc_deconvolve (ctx, &src, &dst, &cm, &o, &p, &r);
      for (int64_t i = 0; i < w * h; i++)
        worst = fmax (worst, fabs (out[i] - gold[i]));
      CHECK (st == CC_OK && worst <= 1e-5,
             "Richardson-Lucy, %s border, %d iterations: %s, %.2e off the definition (%s)",
             cc_border_name ((CcBorder) b), iterations, cc_status_name (st), worst, r.message);
      CHECK (st != CC_OK || strstr (r.kernel, "richardson-lucy, 7 iterations"),
             "what ran is said: '%s'", r.kernel);
    }
}

/* Alpha and the kept colour channels come out as they went in, exactly,
 * restored into another image or in place; an identity mask gives the
 * image back, through the sRGB transfer. */
static void
test_kept_channels (CcContext *ctx)
{
  const int64_t w = 48, h = 40;
  uint8_t in[48 * 40 * 4], out[48 * 40 * 4], again[48 * 40 * 4];
  const CcImage src = { in, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage dst = { out, CC_TYPE_U8, 4, w, h, w * 4, false };
  const CcImage in_place = { again, CC_TYPE_U8, 4, w, h, w * 4, false };
  double one = 1.0;
  CcMaskSource shape = { .shape = { CC_SHAPE_DISC, 2.0, 0, 6, 0.5 } };
  CcMask mask, identity = { 1, 1, &one, 1.0, 0.0 };
  CcTransfer *srgb = cc_transfer_new_srgb (CC_TYPE_U8);
  double *values;
  char why[256];
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  int moved = 0, kept_wrong = 0;

  CHECK (cc_mask_resolve (&shape, &mask, &values, why, sizeof why), "disc: %s", why);
  for (int64_t i = 0; i < w * h * 4; i++)
    in[i] = (uint8_t) (i % 4 == 3 ? check_rand ()
                                  : 255 * check_scene (i / 4 % w, i / 4 / w, (int) (i % 4)));
  cc_options_init (&o);
  o.has_alpha = true;
  o.transfer = srgb;
  o.keep_colour[1] = true;
  for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
    {
      if (!runs_here (a))
        continue;
      cc_deconvolve_params_init (&p);
      p.algorithm = (CcDeconvolveAlgorithm) a;
      p.iterations = 5;
      CHECK (cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r) == CC_OK, "%s: %s",
             cc_deconvolve_algorithm_name (p.algorithm), r.message);
      moved = kept_wrong = 0;
      for (int64_t i = 0; i < w * h * 4; i++)
        {
          if (i % 4 == 1 || i % 4 == 3)
            kept_wrong += in[i] != out[i];
          else
            moved += in[i] != out[i];
        }
      CHECK (kept_wrong == 0 && moved > w * h / 2,
             "%s: alpha and green kept (%d samples differ), red and blue restored (%d moved)",
             cc_deconvolve_algorithm_name (p.algorithm), kept_wrong, moved);
      memcpy (again, in, sizeof in);
      CHECK (cc_deconvolve (ctx, &in_place, &in_place, &mask, &o, &p, &r) == CC_OK &&
             memcmp (again, out, sizeof out) == 0,
             "%s in place: the bytes it writes into another image (%s)",
             cc_deconvolve_algorithm_name (p.algorithm), r.message);
      p.noise = 0;
      CHECK (cc_deconvolve (ctx, &src, &dst, &identity, &o, &p, &r) == CC_OK &&
             memcmp (in, out, sizeof in) == 0,
             "%s with a 1x1 mask gives the image back: %s",
             cc_deconvolve_algorithm_name (p.algorithm), r.message);
    }
  free (values);
  cc_transfer_free (srgb);
}

/* Bad input is refused by word and the output stays as it was. */
static void
test_refusals (CcContext *ctx)
{
  const int64_t w = 16, h = 12;
  float in[16 * 12], out[16 * 12], keep[16 * 12];
  double blur[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 }, sharpen[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  double flat_sum[3] = { 1, 0, -1 };
  const CcImage src = { in, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage small = { out, CC_TYPE_FLOAT, 1, w - 1, h, w * 4, false };
  const CcMask good = { 3, 3, blur, 16.0, 0.0 };
  const CcMask negative = { 3, 3, sharpen, 1.0, 0.0 };
  const CcMask offset = { 3, 3, blur, 16.0, 0.5 };
  const CcMask zero_sum = { 3, 1, flat_sum, 1.0, 0.0 };
  struct
  {
    const char *what, *word;
    CcDeconvolveAlgorithm algorithm;
    int iterations;
    double noise, tv;
    const CcMask *mask;
    const CcImage *dst;
    CcMethod method;
    CcStatus status;
  } cases[] = {
    { "negative weights", "negative", CC_DECONVOLVE_RICHARDSON_LUCY, 30, 0.01, 0, &negative,
      &dst, CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "0 iterations", "iterations", CC_DECONVOLVE_RICHARDSON_LUCY, 0, 0.01, 0, &good, &dst,
      CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "1001 iterations", "iterations", CC_DECONVOLVE_RICHARDSON_LUCY, 1001, 0.01, 0, &good,
      &dst, CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "a NaN noise", "noise", CC_DECONVOLVE_WIENER, 30, NAN, 0, &good, &dst, CC_METHOD_AUTO,
      CC_ERROR_INVALID },
    { "a negative noise", "noise", CC_DECONVOLVE_WIENER, 30, -1, 0, &good, &dst,
      CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "a total variation past 0.1", "total-variation", CC_DECONVOLVE_RICHARDSON_LUCY, 30,
      0.01, 0.2, &good, &dst, CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "a NaN total variation", "total-variation", CC_DECONVOLVE_RICHARDSON_LUCY, 30, 0.01,
      NAN, &good, &dst, CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "an offset", "offset", CC_DECONVOLVE_WIENER, 30, 0.01, 0, &offset, &dst,
      CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "weights that add up to 0", "add up", CC_DECONVOLVE_WIENER, 30, 0.01, 0, &zero_sum,
      &dst, CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "an output of another size", "whole", CC_DECONVOLVE_RICHARDSON_LUCY, 30, 0.01, 0, &good,
      &small, CC_METHOD_AUTO, CC_ERROR_INVALID },
    { "Wiener by a GPU method on a CPU-only context", "CPU-only", CC_DECONVOLVE_WIENER, 30,
      0.01, 0, &good, &dst, CC_METHOD_FFT, CC_ERROR_NO_GPU },
    { "a GPU method on a CPU-only context", "CPU-only", CC_DECONVOLVE_RICHARDSON_LUCY, 30,
      0.01, 0, &good, &dst, CC_METHOD_REGISTER, CC_ERROR_NO_GPU },
  };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;

  for (int64_t i = 0; i < w * h; i++)
    {
      in[i] = check_scene (i % w, i / w, 0);
      out[i] = keep[i] = -7.0f;
    }
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      CcStatus st;

      cc_deconvolve_params_init (&p);
      p.algorithm = cases[c].algorithm;
      p.iterations = cases[c].iterations;
      p.noise = cases[c].noise;
      p.tv_weight = cases[c].tv;
      cc_options_init (&o);
      o.method = cases[c].method;
      st = cc_deconvolve (ctx, &src, cases[c].dst, cases[c].mask, &o, &p, &r);
      CHECK (st == cases[c].status && strstr (r.message, cases[c].word) &&
             memcmp (out, keep, sizeof out) == 0,
             "%s refused: %s '%s', output %s", cases[c].what, cc_status_name (st), r.message,
             memcmp (out, keep, sizeof out) ? "touched" : "untouched");
    }
  /* Wiener takes a sharpening mask (its weights add up to 1). */
  cc_deconvolve_params_init (&p);
  p.algorithm = CC_DECONVOLVE_WIENER;
  cc_options_init (&o);
  CHECK (!runs_here (p.algorithm) ||
         cc_deconvolve (ctx, &src, &dst, &negative, &o, &p, &r) == CC_OK,
         "Wiener takes negative weights: %s", r.message);
}

/* A black image, a black border, a NaN and infinities in the source: no
 * NaN or infinity comes out. */
static void
test_finite (CcContext *ctx)
{
  const int64_t w = 33, h = 21;
  float in[33 * 21 * 3], out[33 * 21 * 3];
  const CcImage src = { in, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
  double m[49];
  const CcMask mask = { 7, 7, m, 1.0, 0.0 };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;

  for (int i = 0; i < 49; i++)
    m[i] = i % 3 == 0 ? 1.0 : 0.0;
  for (int pass = 0; pass < 2; pass++)
    {
      for (int64_t i = 0; i < w * h * 3; i++)
        in[i] = pass == 0 ? 0.0f : check_scene (i / 3 % w, i / 3 / w, (int) (i % 3));
      if (pass == 1)
        {
          in[5] = NAN;
          in[100] = INFINITY;
          in[200] = -INFINITY;
        }
      for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
        for (int b = 0; b < CC_BORDER_COUNT && runs_here (a); b++)
          {
            int bad = 0;
            CcStatus st;

            cc_deconvolve_params_init (&p);
            p.algorithm = (CcDeconvolveAlgorithm) a;
            p.iterations = 50;
            p.noise = 0;
            p.tv_weight = b % 2 ? 0.01 : 0;
            cc_options_init (&o);
            o.border = (CcBorder) b;
            o.clamp = false;
            st = cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r);
            for (int64_t i = 0; i < w * h * 3; i++)
              bad += !isfinite (out[i]);
            CHECK (st == CC_OK && bad == 0 &&
                   (pass == 0 || strstr (r.message, "3 non-finite source samples")),
                   "%s, %s border, %s source: %s, %d non-finite outputs ('%s')",
                   cc_deconvolve_algorithm_name (p.algorithm), cc_border_name (o.border),
                   pass == 0 ? "a black" : "a broken", cc_status_name (st), bad, r.message);
          }
    }
}

static void
test_progress_cancel (CcContext *ctx)
{
  const int64_t w = 300, h = 200;
  float *in = malloc (sizeof (float) * w * h), *out = malloc (sizeof (float) * w * h);
  const CcImage src = { in, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  double m[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  const CcMask mask = { 3, 3, m, 9.0, 0.0 };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  CcStatus st;
  CheckCancel c;

  for (int64_t i = 0; i < w * h; i++)
    {
      in[i] = check_scene (i % w, i / w, 0);
      out[i] = -1.0f;
    }
  cc_deconvolve_params_init (&p);
  cc_options_init (&o);
  check_cancel_hooks (&o, &c, 3);
  for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
    {
      if (!runs_here (a))
        continue;
      p.algorithm = (CcDeconvolveAlgorithm) a;
      out[0] = -1.0f;
      check_cancel_reset (&c, a == CC_DECONVOLVE_RICHARDSON_LUCY ? 3 : 0);
      st = cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r);
      CHECK (st == CC_ERROR_CANCELLED && out[0] == -1.0f && c.last < 1.0,
             "%s cancelled: %s, output %s, at %g", cc_deconvolve_algorithm_name (p.algorithm),
             cc_status_name (st), out[0] == -1.0f ? "untouched" : "touched", c.last);
      check_cancel_reset (&c, 1 << 30);
      st = cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r);
      CHECK (st == CC_OK && fabs (c.last - 1.0) < 1e-9 && c.polls > 1,
             "%s runs to the end: %s, progress at %g, %d polls",
             cc_deconvolve_algorithm_name (p.algorithm), cc_status_name (st), c.last,
             c.polls);
    }
  free (in);
  free (out);
}

/* Masks up to CC_MASK_MAX on a side, in both algorithms: lines and a
 * square, weighted at the centre with a faint tail to their far edges,
 * restore a picture they blurred. */
static void
test_large_masks (CcContext *ctx)
{
  const int64_t w = 160, h = 120;
  float *sharp = malloc (sizeof (float) * w * h), *blurred = malloc (sizeof (float) * w * h);
  float *out = malloc (sizeof (float) * w * h);
  const CcImage sharp_im = { sharp, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage blurred_im = { blurred, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage out_im = { out, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  static const struct { int width, height; } sizes[] = { { 1023, 1 }, { 1, 1023 },
                                                          { 1023, 1023 } };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;

  for (int64_t i = 0; i < w * h; i++)
    sharp[i] = check_scene (i % w, i / w, 1);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      const int mw = sizes[s].width, mh = sizes[s].height;
      double *m = calloc ((size_t) mw * mh, sizeof (double));
      CcMask mask = { mw, mh, m, 0.0, 0.0 };

      /* Weight near the centre and a faint tail to the far edge. */
      for (int j = 0; j < mh; j++)
        for (int i = 0; i < mw; i++)
          {
            const double dx = i - mw / 2, dy = j - mh / 2;

            m[j * mw + i] = exp (-(dx * dx + dy * dy) / 8.0) + 1e-6;
            mask.divisor += m[j * mw + i];
          }
      cc_options_init (&o);
      o.border = CC_BORDER_WRAP;
      o.clamp = false;
      CHECK (cc_convolve (ctx, &sharp_im, 0, 0, &blurred_im, &mask, &o, &r) == CC_OK,
             "blur %dx%d: %s", mw, mh, r.message);
      for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
        {
          double before = 0, after = 0;
          CcStatus st;

          if (!runs_here (a))
            continue;
          cc_deconvolve_params_init (&p);
          p.algorithm = (CcDeconvolveAlgorithm) a;
          p.iterations = 20;
          p.noise = 1e-4;
          st = cc_deconvolve (ctx, &blurred_im, &out_im, &mask, &o, &p, &r);
          for (int64_t i = 0; i < w * h; i++)
            {
              before += (blurred[i] - sharp[i]) * (double) (blurred[i] - sharp[i]);
              after += (out[i] - sharp[i]) * (double) (out[i] - sharp[i]);
            }
          CHECK (st == CC_OK && after < 0.75 * before,
                 "%s with a %dx%d mask: %s, squared error %.3g -> %.3g",
                 cc_deconvolve_algorithm_name (p.algorithm), mw, mh, cc_status_name (st),
                 before, after);
        }
      free (m);
    }
  free (sharp);
  free (blurred);
  free (out);
}

/* A build without FFTW refuses Wiener on the CPU by name, the output
 * untouched, and says the tests skipped it. */
static void
test_without_fftw (CcContext *ctx)
{
  const int64_t w = 9, h = 7;
  float in[9 * 7], out[9 * 7];
  const CcImage src = { in, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, 1, w, h, w * 4, false };
  double blur[3] = { 1, 2, 1 };
  const CcMask mask = { 3, 1, blur, 4.0, 0.0 };
  CcDeconvolveParams p;
  CcOptions o;
  CcResult r;
  CcStatus st;

  if (runs_here (CC_DECONVOLVE_WIENER))
    return;
  for (int64_t i = 0; i < w * h; i++)
    {
      in[i] = check_scene (i % w, i / w, 0);
      out[i] = -3.0f;
    }
  cc_deconvolve_params_init (&p);
  p.algorithm = CC_DECONVOLVE_WIENER;
  cc_options_init (&o);
  st = cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r);
  CHECK (st == CC_ERROR_UNSUPPORTED && strstr (r.message, "FFTW") && out[0] == -3.0f &&
         out[w * h - 1] == -3.0f,
         "Wiener without FFTW refused by name: %s '%s'", cc_status_name (st), r.message);
  printf ("SKIP: Wiener on the CPU: this build is without FFTW (its refusal checked)\n");
}

static void
test_names (void)
{
  CcDeconvolveAlgorithm a;
  CcDeconvolveStart s;

  CHECK (cc_deconvolve_algorithm_from_name ("richardson-lucy", &a) &&
         a == CC_DECONVOLVE_RICHARDSON_LUCY && cc_deconvolve_algorithm_from_name ("wiener", &a) &&
         a == CC_DECONVOLVE_WIENER && !cc_deconvolve_algorithm_from_name ("lucy", &a),
         "algorithm names");
  CHECK (cc_deconvolve_start_from_name ("flat", &s) && s == CC_DECONVOLVE_START_FLAT &&
         cc_deconvolve_start_from_name ("image", &s) && s == CC_DECONVOLVE_START_IMAGE &&
         strcmp (cc_deconvolve_start_name (CC_DECONVOLVE_START_FLAT), "flat") == 0,
         "start names");
}

int
main (void)
{
  CcContext *ctx;

  check_seed ();
  ctx = cc_context_new_cpu (0);
  test_names ();
  test_against_definition (ctx);
  test_kept_channels (ctx);
  test_refusals (ctx);
  test_finite (ctx);
  test_progress_cancel (ctx);
  test_large_masks (ctx);
  test_without_fftw (ctx);
  check_restoration (ctx, CC_METHOD_CPU, NULL);
  cc_context_free (ctx);
  printf ("deconvolution: %d failures\n", check_failures);
  return check_failures ? 1 : 0;
}
