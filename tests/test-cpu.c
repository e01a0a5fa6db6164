/* The engine's convolution on the CPU: border rules, argument checks,
 * cancel, hand-computed results, and the cpu and auto methods against the
 * gold over the whole sweep.  Runs everywhere (auto takes the GPU where
 * there is one).  Masks: test-masks.c; samples and transfers:
 * test-samples.c; names: test-names.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine.h"
#include "pixel.h"

static void
test_border_index (void)
{
  /* n = 4, "a b c d" at 0..3; i from -7 to 10. */
  static const int64_t want[CC_BORDER_BLACK][18] = {
    { -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, -1, -1, -1 },
    { 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3 },
    { 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2 },
    /* ... c b | a b c d | c b a ...: period 6 */
    { 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2 },
  };

  for (int b = 0; b < CC_BORDER_BLACK; b++)
    for (int i = -7; i <= 10; i++)
      CHECK (cc_border_index (i, 4, b) == want[b][i + 7],
             "border %s: index %d of 4 mapped to %lld, want %lld",
             cc_border_name ((CcBorder) b), i, (long long) cc_border_index (i, 4, b),
             (long long) want[b][i + 7]);
  /* One pixel: mirror behaves as extend; far halos wrap many periods. */
  for (int i = -300; i <= 300; i += 7)
    CHECK (cc_border_index (i, 1, CC_BORDER_MIRROR) == 0 &&
           cc_border_index (i, 1, CC_BORDER_WRAP) == 0, "1-pixel axis, index %d", i);
  CHECK (cc_border_index (-1000001, 3, CC_BORDER_WRAP) == 1, "wrap far left");
  CHECK (cc_border_index (1000001, 3, CC_BORDER_MIRROR) == 1, "mirror far right");
  /* Black and white are ghost cells, as zero is, to callers that gather
   * halos. */
  for (int b = CC_BORDER_BLACK; b < CC_BORDER_COUNT; b++)
    for (int i = -7; i <= 10; i++)
      CHECK (cc_border_map (i, 4, (CcBorder) b) == want[CC_BORDER_ZERO][i + 7],
             "border %s: index %d of 4 mapped to %lld", cc_border_name ((CcBorder) b), i,
             (long long) cc_border_map (i, 4, (CcBorder) b));
  /* The GPU's 32-bit form agrees, up to the ends of int. */
  for (int b = 0; b < CC_BORDER_BLACK; b++)
    for (int n = 1; n <= 9; n++)
      for (int i = -40; i <= 40; i++)
        CHECK (cc_border_index32 (i, n, b) == cc_border_index (i, n, b),
               "border %s: 32-bit index %d of %d", cc_border_name ((CcBorder) b), i, n);
  CHECK (cc_border_index32 (INT_MIN, INT_MAX, CC_BORDER_MIRROR) ==
         cc_border_index (INT_MIN, INT_MAX, CC_BORDER_MIRROR) &&
         cc_border_index32 (INT_MIN, 7, CC_BORDER_WRAP) ==
         cc_border_index (INT_MIN, 7, CC_BORDER_WRAP),
         "32-bit border index at INT_MIN");
}

/* cc_border_runs against cc_border_map row by row: the runs cover the rows
 * in order, each maps to consecutive source rows (or all ghosts), and no
 * two neighbours could have been one run. */
typedef struct
{
  int64_t next;     /* the row the next run starts at */
  int64_t map[32];  /* what the runs said of each row */
  int64_t last_from, last_rows;
  int     bad;
} RunLog;

static bool
log_run (int64_t at, int64_t from, int64_t rows, void *data)
{
  RunLog *log = data;

  log->bad += at != log->next || rows < 1 ||
              (log->next > 0 && (from < 0 ? log->last_from < 0
                                          : log->last_from >= 0 &&
                                            from == log->last_from + log->last_rows));
  for (int64_t r = 0; r < rows && at + r < 32; r++)
    log->map[at + r] = from < 0 ? -1 : from + r;
  log->next = at + rows;
  log->last_from = from;
  log->last_rows = rows;
  return true;
}

static void
test_border_runs (void)
{
  for (int b = 0; b < CC_BORDER_COUNT; b++)
    for (int n = 1; n <= 5; n++)
      for (int first = -9; first <= 7; first++)
        for (int count = 1; count <= 20; count++)
          {
            RunLog log = { 0 };
            int wrong = 0;

            cc_border_runs (first, count, n, (CcBorder) b, log_run, &log);
            for (int r = 0; r < count; r++)
              wrong += log.map[r] != cc_border_map (first + r, n, (CcBorder) b);
            CHECK (!log.bad && !wrong && log.next == count,
                   "border %s, rows %d + %d of %d: %d rows mapped wrong, %d runs out of "
                   "place or mergeable", cc_border_name ((CcBorder) b), first, count, n,
                   wrong, log.bad);
          }
}

/* Fills 'values' (the mask's) with taps uniform in [-0.5, 1], their sum the
 * divisor; returns sum |k|, for the transform's error bound. */
static double
random_mask (CcMask *mask, double *values)
{
  double sum_abs = 0.0;

  mask->divisor = 0.0;
  for (int i = 0; i < mask->width * mask->height; i++)
    {
      values[i] = check_uniform (-0.5, 1.0);
      mask->divisor += values[i];
      sum_abs += fabs (values[i]);
    }
  return sum_abs;
}

/* Large masks on the CPU through FFTW (where the build has it): the
 * transform's tiles ran (CcResult.kernel), within the transform's bound of
 * the gold, for full-rank masks to 127x127, every border, with alpha
 * weighting over alpha that is often 0 (the weight's three zones), and an
 * infinity or a NaN reaching only as far as the mask. */
static void
test_cpu_fft (CcContext *ctx)
{
#ifdef HAVE_FFTW
  static const struct
  {
    int size, channels;
    bool weighted;
    CcBorder border;
    double odd;      /* a sample put mid-image, or 0 */
  } cases[] = {
    { 17, 3, false, CC_BORDER_EXTEND, 0 }, { 25, 1, false, CC_BORDER_ZERO, 0 },
    { 31, 4, true, CC_BORDER_MIRROR, 0 }, { 63, 3, false, CC_BORDER_WRAP, 0 },
    { 127, 4, true, CC_BORDER_EXTEND, 0 }, { 45, 2, true, CC_BORDER_ZERO, 0 },
    { 31, 3, false, CC_BORDER_EXTEND, NAN }, { 31, 4, true, CC_BORDER_MIRROR, INFINITY },
  };
  enum { W = 400, H = 300 };
  static float in[W * H * 4], out[W * H * 4];
  static double gold[W * H * 4], m[127 * 127];

  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      const int n = cases[k].size, C = cases[k].channels;
      CcImage src = { in, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
      CcImage dst = { out, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
      CcImage ref = { gold, CC_TYPE_DOUBLE, C, W, H, W * C * 8, false };
      CcMask mask = { n, n, m, 0.0, 0.0 };
      const double sum_abs = random_mask (&mask, m);
      CcOptions o;
      CcResult r;
      size_t first = 0;
      int bad;

      /* A photograph's smooth regions and edges, and alpha 0 over a third
       * of the image (the weighted zones: nought, quotient, in between). */
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
          for (int c = 0; c < C; c++)
            in[(y * W + x) * C + c] =
              (float) (c == C - 1 && cases[k].weighted
                       ? (x < W / 3 ? 0.0 : x < W / 2 ? check_uniform (0.0, 1e-3) : 1.0)
                       : 0.5 + 0.3 * sin (x * 0.05 + c) * cos (y * 0.07) +
                         check_uniform (-0.05, 0.05));
      if (cases[k].odd != 0.0)
        in[((H / 2) * W + W / 2) * C] = (float) cases[k].odd;
      cc_options_init (&o);
      o.method = CC_METHOD_CPU;
      o.border = cases[k].border;
      o.clamp = false;
      o.has_alpha = cases[k].weighted;
      o.alpha_weighting = cases[k].weighted;
      if (!CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
                  cc_convolve_gold (&src, 0, 0, &ref, &mask, &o) == CC_OK,
                  "%dx%d: %s", n, n, r.message))
        continue;
      bad = check_off_gold (out, gold, (size_t) W * H * C,
                            1e-4 * sum_abs / fabs (mask.divisor) * 1.0 + 1e-5, &first);
      CHECK (strcmp (r.kernel, "cpu fft") == 0 && bad == 0,
             "%dx%d, %d channels%s, border %s%s: ran '%s'; %d samples off the gold, the first "
             "(%d,%d) channel %d: %g, gold %g", n, n, C, cases[k].weighted ? ", weighted" : "",
             cc_border_name (cases[k].border), cases[k].odd != 0.0 ? ", an odd sample" : "",
             r.kernel, bad, (int) (first / C % W), (int) (first / C / W), (int) (first % C),
             out[first], gold[first]);
    }
  /* Small masks stay with the direct sums. */
  {
    CcImage src = { in, CC_TYPE_FLOAT, 3, W, H, W * 12, false };
    CcImage dst = { out, CC_TYPE_FLOAT, 3, W, H, W * 12, false };
    double box[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 3 };
    CcMask mask = { 3, 3, box, 18.0, 0.0 };
    CcOptions o;
    CcResult r;

    cc_options_init (&o);
    o.method = CC_METHOD_CPU;
    CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
           strcmp (r.kernel, "cpu direct") == 0, "3x3 on the CPU ran '%s'", r.kernel);
  }
#endif
}

static void
test_errors (CcContext *ctx)
{
  float in[4 * 5 * 3], out[4 * 5 * 3], keep[4 * 5 * 3];
  double m3[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 }, m_nan[9] = { 0, NAN, 0, 0, 1, 0, 0, 0, 0 };
  CcImage src = { in, CC_TYPE_FLOAT, 3, 5, 4, 5 * 3 * 4, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 3, 5, 4, 5 * 3 * 4, false };
  CcMask mask = { 3, 3, m3, 1.0, 0.0 };
  CcOptions o;
  CcResult r;
  char msg[256];
  struct { const char *what; CcStatus want; } cases[] = {
    { "even mask width", CC_ERROR_INVALID }, { "mask of 1025", CC_ERROR_INVALID },
    { "NaN in the mask", CC_ERROR_INVALID }, { "divisor 0", CC_ERROR_INVALID },
    { "infinite offset", CC_ERROR_INVALID }, { "output outside the source", CC_ERROR_INVALID },
    { "channel counts differ", CC_ERROR_INVALID }, { "stride too small", CC_ERROR_INVALID },
    { "alpha on 1 channel", CC_ERROR_INVALID }, { "unknown border", CC_ERROR_INVALID },
    { "cpu on device images", CC_ERROR_INVALID }, { "no pixels", CC_ERROR_INVALID },
  };

  for (int i = 0; i < 60; i++)
    in[i] = (float) check_uniform (0, 1);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      CcImage s = src, d = dst;
      CcMask mk = mask;
      int64_t ox = 0;
      CcStatus st;

      cc_options_init (&o);
      o.method = CC_METHOD_CPU;
      switch (k)
        {
        case 0: mk.width = 2; break;
        case 1: mk.width = CC_MASK_MAX + 2; break;
        case 2: mk.values = m_nan; break;
        case 3: mk.divisor = 0.0; break;
        case 4: mk.offset = INFINITY; break;
        case 5: ox = 1; break;
        case 6: d.channels = 2; break;
        case 7: s.stride = 8; break;
        case 8: s.channels = d.channels = 1; o.has_alpha = true; break;
        case 9: o.border = (CcBorder) 9; break;
        case 10: s.on_device = true; break;
        default: s.data = NULL; break;
        }
      for (int i = 0; i < 60; i++)
        out[i] = keep[i] = (float) check_uniform (0, 1);
      st = cc_convolve (ctx, &s, ox, 0, &d, &mk, &o, &r);
      CHECK (st == cases[k].want && r.message[0] && memcmp (out, keep, sizeof out) == 0,
             "%s: got %s '%s'", cases[k].what, cc_status_name (st), r.message);
    }

  /* A GPU method where no GPU is usable says why; auto takes the CPU. */
  if (cc_context_gpu_status (ctx, msg, sizeof msg) != CC_OK)
    {
      CcStatus st;

      printf ("no GPU here: %s\n", msg);
      cc_options_init (&o);
      for (int m = CC_METHOD_BASIC; m < CC_METHOD_COUNT; m++)
        {
          o.method = (CcMethod) m;
          memcpy (keep, out, sizeof out);
          st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
          CHECK (st != CC_OK && st != CC_ERROR_INVALID && strstr (r.message, msg) &&
                 memcmp (out, keep, sizeof out) == 0,
                 "%s without a GPU: got %s '%s'", cc_method_name (o.method),
                 cc_status_name (st), r.message);
          CHECK (cc_method_check (ctx, o.method, &mask, 4, false, msg, sizeof msg) != CC_OK,
                 "cc_method_check accepts %s without a GPU", cc_method_name (o.method));
        }
      o.method = CC_METHOD_AUTO;
      st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
      CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU && strstr (r.message, "no GPU"),
             "auto without a GPU: %s, method %s, '%s'", cc_status_name (st),
             cc_method_name (r.method_used), r.message);
    }
}

/* Masks past the GPU's direct methods: to 1023x1023 on the CPU, within
 * the transform's bound of the gold (on small images: the gold sums a
 * million taps a sample), and refused by name by the methods that stop
 * short of them, the output untouched.  A large rank-1 mask is found as one
 * term without the SVD, and a full-rank one is not. */
static void
test_large_masks (CcContext *ctx)
{
  static const struct { int w, h, W, H, C; bool weighted; CcBorder border; } cases[] = {
    { 1023, 1023, 32, 24, 1, false, CC_BORDER_MIRROR },
    { 129, 513, 48, 32, 4, true, CC_BORDER_EXTEND },
    { 1023, 1, 300, 5, 1, false, CC_BORDER_WRAP },
  };
  static float in[300 * 70 * 4], out[300 * 70 * 4], keep[300 * 70 * 4];
  static double gold[300 * 70 * 4];
  double *m = malloc (sizeof (double) * CC_MASK_MAX * CC_MASK_MAX);
  float *u = malloc (sizeof (float) * CC_MASK_MAX), *v = malloc (sizeof (float) * CC_MASK_MAX);

  if (!CHECK (m && u && v, "memory for large masks"))
    goto out;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      const int w = cases[k].w, h = cases[k].h, W = cases[k].W, H = cases[k].H;
      const int C = cases[k].C;
      CcImage src = { in, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
      CcImage dst = { out, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
      CcImage ref = { gold, CC_TYPE_DOUBLE, C, W, H, W * C * 8, false };
      CcMask mask = { w, h, m, 0.0, 0.0 };
      const double sum_abs = random_mask (&mask, m);
      CcOptions o;
      CcResult r;
      size_t first = 0;
      int bad;

      for (int i = 0; i < W * H * C; i++)
        in[i] = (float) (C > 1 && i % C == C - 1 && cases[k].weighted
                         ? (i / C % W < W / 3 ? 0.0 : 1.0)
                         : 0.5 + 0.3 * sin (i * 0.01) + check_uniform (-0.05, 0.05));
      cc_options_init (&o);
      o.method = CC_METHOD_CPU;
      o.border = cases[k].border;
      o.clamp = false;
      o.has_alpha = o.alpha_weighting = cases[k].weighted;
      if (!CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
                  cc_convolve_gold (&src, 0, 0, &ref, &mask, &o) == CC_OK,
                  "%dx%d: %s", w, h, r.message))
        continue;
      bad = check_off_gold (out, gold, (size_t) W * H * C,
                            1e-4 * sum_abs / fabs (mask.divisor) + 1e-5, &first);
#ifdef HAVE_FFTW
      CHECK (h == 1 || strcmp (r.kernel, "cpu fft") == 0, "%dx%d ran '%s'", w, h, r.kernel);
#endif
      CHECK (bad == 0, "%dx%d on %dx%d, %d channels, border %s: %d samples off the gold, "
             "the first (%d,%d) channel %d: %g, gold %g", w, h, W, H, C,
             cc_border_name (cases[k].border), bad, (int) (first / C % W),
             (int) (first / C / W), (int) (first % C), out[first], gold[first]);

      /* The direct GPU methods stop at 127x127, whether or not a GPU is here
       * (test-gpu runs fft past it). */
      for (int method = CC_METHOD_BASIC; method < CC_METHOD_COUNT; method++)
        if (w > cc_methods[method].mask_max || h > cc_methods[method].mask_max)
          {
            char msg[256], size[32];
            CcStatus st;

            o.method = (CcMethod) method;
            snprintf (size, sizeof size, "%dx%d", cc_methods[method].mask_max,
                      cc_methods[method].mask_max);
            memcpy (keep, out, sizeof out);
            st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
            CHECK (st == CC_ERROR_UNSUPPORTED && strstr (r.message, cc_method_name (o.method)) &&
                   strstr (r.message, size) && memcmp (out, keep, sizeof out) == 0 &&
                   cc_method_check (ctx, o.method, &mask, C, cases[k].weighted, msg,
                                    sizeof msg) == CC_ERROR_UNSUPPORTED,
                   "%s with a %dx%d mask: %s '%s'", cc_method_name (o.method), w, h,
                   cc_status_name (st), r.message);
          }
    }

  /* A 1023x801 outer product is one term; noise of that size is none. */
  for (int j = 0; j < 801; j++)
    for (int i = 0; i < 1023; i++)
      m[j * 1023 + i] = exp (-(i - 511) * (i - 511) / 3e4) * (1.0 + 0.5 * cos (j * 0.01));
  CHECK (cc_mask_separate (m, 1023, 801, CC_SEPARABLE_MAX_TERMS, u, v) == 1 &&
         fabs ((double) u[400] * v[511] - m[400 * 1023 + 511]) < 1e-6,
         "a 1023x801 rank-1 mask is one term");
  for (int i = 0; i < 1023 * 801; i++)
    m[i] = check_uniform (0.0, 1.0);
  CHECK (cc_mask_separate (m, 1023, 801, CC_SEPARABLE_MAX_TERMS, u, v) == 0,
         "a 1023x801 random mask is not separated");
out:
  free (m);
  free (u);
  free (v);
}

/* Calls that mix a transfer with what it cannot take are refused. */
static void
test_transfer_errors (CcContext *ctx)
{
  uint8_t in8[2 * 3 * 4] = { 0 }, out8[2 * 3 * 4];
  uint16_t out16[2 * 3 * 4];
  double m[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
  CcImage src = { in8, CC_TYPE_U8, 4, 3, 2, 12, false };
  CcImage dst = { out8, CC_TYPE_U8, 4, 3, 2, 12, false };
  CcImage dst16 = { out16, CC_TYPE_U16, 4, 3, 2, 24, false };
  CcMask mask = { 3, 3, m, 1.0, 0.0 };
  CcTransfer *t8 = cc_transfer_new_srgb (CC_TYPE_U8);
  float lin[3 * 256], mid[3 * 255];
  char msg[256];
  CcTransfer *three;
  CcOptions o;
  CcResult r;

  for (int k = 0; k < 3; k++)
    {
      for (int i = 0; i < 256; i++)
        lin[k * 256 + i] = i / 255.0f;
      for (int i = 0; i < 255; i++)
        mid[k * 255 + i] = (i + 0.5f) / 255.0f;
    }
  three = cc_transfer_new (CC_TYPE_U8, 3, lin, mid, msg, sizeof msg);
  cc_options_init (&o);
  o.method = CC_METHOD_CPU;
  o.transfer = t8;
  CHECK (cc_convolve (ctx, &src, 0, 0, &dst16, &mask, &o, &r) == CC_ERROR_INVALID &&
         strstr (r.message, "u16"), "a u8 transfer on a u16 output is refused: %s", r.message);
  o.transfer = three;
  o.has_alpha = false;
  CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_ERROR_INVALID &&
         strstr (r.message, "curves"), "3 curves for 4 colour channels are refused: %s",
         r.message);
  o.has_alpha = true;
  CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK,
         "3 curves for RGB and alpha: %s", r.message);
  cc_transfer_free (t8);
  cc_transfer_free (three);
}

static void
test_cancel (CcContext *ctx)
{
  const int64_t w = 1500, h = 1000;
  uint8_t *in = malloc (w * h * 4), *out = malloc (w * h * 4);
  double m[31 * 31];
  CcImage src = { in, CC_TYPE_U8, 4, w, h, w * 4, false };
  CcImage dst = { out, CC_TYPE_U8, 4, w, h, w * 4, false };
  CcMask mask = { 31, 31, m, 961.0, 0.0 };
  CcOptions o;
  CcResult r;
  CcStatus st;
  CheckCancel c;

  for (int i = 0; i < 961; i++)
    m[i] = 1.0;
  for (int64_t i = 0; i < w * h * 4; i++)
    in[i] = (uint8_t) check_rand ();
  cc_options_init (&o);
  o.method = CC_METHOD_CPU;

  /* Cancelled at the first poll: nothing is computed. */
  check_cancel_hooks (&o, &c, 0);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_ERROR_CANCELLED, "cancel at once: %s", cc_status_name (st));
  /* Cancelled during the run: it stops. */
  check_cancel_reset (&c, 1);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_ERROR_CANCELLED, "cancel while running: %s", cc_status_name (st));
  /* Not cancelled: progress ends at 1. */
  check_cancel_reset (&c, INT_MAX);
  mask.width = mask.height = 3;
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_OK && c.last == 1.0, "progress ended at %g", c.last);
  free (in);
  free (out);
}

/* An allocation failure in the CPU path is an error that leaves the output
 * as it was. */
static void
test_cpu_fault (CcContext *ctx)
{
  float in[7 * 5 * 4], out[7 * 5 * 4], keep[7 * 5 * 4];
  double m[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  CcImage src = { in, CC_TYPE_FLOAT, 4, 7, 5, 7 * 16, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 4, 7, 5, 7 * 16, false };
  CcMask mask = { 3, 3, m, 16.0, 0.0 };
  CcOptions o;
  CcResult r;
  CcStatus st;

  for (int i = 0; i < 7 * 5 * 4; i++)
    {
      in[i] = (float) check_uniform (0, 1);
      out[i] = keep[i] = -1.0f;
    }
  cc_options_init (&o);
  o.method = CC_METHOD_CPU;
  setenv ("CUDA_CONVOLVE_FAULT", "cpu", 1);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  unsetenv ("CUDA_CONVOLVE_FAULT");
  CHECK (st == CC_ERROR_OUT_OF_MEMORY && strstr (r.message, "memory") &&
         memcmp (out, keep, sizeof out) == 0,
         "CPU allocation failure: %s '%s', output %s", cc_status_name (st), r.message,
         memcmp (out, keep, sizeof out) ? "touched" : "untouched");
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_OK, "the CPU path works again after the fault: %s", r.message);
}

/* A CPU-only context: its thread count, no GPU started or offered, GPU
 * methods refused with a reason, and auto and cpu right on the known cases. */
static void
test_cpu_only (void)
{
  static const CcMethod methods[] = { CC_METHOD_CPU, CC_METHOD_AUTO };
  CcContext *ctx = cc_context_new_cpu (3);
  float in[5 * 5], out[5 * 5];
  double m[9] = { 0, 1, 0, 1, 4, 1, 0, 1, 0 };
  CcImage src = { in, CC_TYPE_FLOAT, 1, 5, 5, 5 * 4, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 1, 5, 5, 5 * 4, false };
  CcMask mask = { 3, 3, m, 8.0, 0.0 };
  CcOptions o;
  CcResult r;
  CcStatus st;
  char why[128];

  CHECK (strcmp (cc_context_cpu_name (ctx), "CPU (3 threads)") == 0 &&
         strcmp (cc_context_device_name (ctx), "CPU (3 threads)") == 0,
         "a CPU-only context of 3 threads: '%s'", cc_context_device_name (ctx));
  st = cc_context_gpu_status (ctx, why, sizeof why);
  CHECK (st == CC_ERROR_NO_GPU && strstr (why, "CPU-only"),
         "a CPU-only context offers no GPU: %s '%s'", cc_status_name (st), why);
  st = cc_method_check (ctx, CC_METHOD_REGISTER, &mask, 1, false, why, sizeof why);
  CHECK (st == CC_ERROR_NO_GPU && strstr (why, "CPU-only"),
         "a CPU-only context refuses register: %s '%s'", cc_status_name (st), why);
  CHECK (cc_method_resolve (ctx, CC_METHOD_AUTO, &mask, 1, false) == CC_METHOD_CPU,
         "auto resolves to cpu on a CPU-only context");
  for (int i = 0; i < 25; i++)
    in[i] = (float) i;
  cc_options_init (&o);
  o.method = CC_METHOD_REGISTER;
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_ERROR_NO_GPU && strstr (r.message, "CPU-only"),
         "register on a CPU-only context: %s '%s'", cc_status_name (st), r.message);
  o.method = CC_METHOD_AUTO;
  o.clamp = false;
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  /* Pixel (2,2): (7 + 11 + 4 * 12 + 13 + 17) / 8 = 12. */
  CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU && out[12] == 12.0f,
         "auto on a CPU-only context: %s, %s, centre %g (want 12)", cc_status_name (st),
         cc_method_name (r.method_used), out[12]);
  check_known (ctx, methods, 2);
  cc_context_free (ctx);
}

int
main (void)
{
  static const CcMethod methods[] = { CC_METHOD_CPU, CC_METHOD_AUTO };
  CcContext *ctx;

  check_seed ();
  ctx = cc_context_new ();
  printf ("device for auto: %s\n", cc_context_device_name (ctx));

  test_border_index ();
  test_border_runs ();
  test_cpu_fft (ctx);
  test_large_masks (ctx);
  test_errors (ctx);
  test_transfer_errors (ctx);
  test_cancel (ctx);
  test_cpu_fault (ctx);
  test_cpu_only ();
  check_known (ctx, methods, 2);
  check_sweep (ctx, methods, 2, false);
  check_odd_samples (ctx, methods, 2, false);
  check_threads (ctx, CC_METHOD_CPU);

  cc_context_free (ctx);
  printf ("%s: %d failure%s\n", check_failures ? "FAIL" : "PASS", (int) check_failures,
          check_failures == 1 ? "" : "s");
  return check_failures ? 1 : 0;
}
