/* Test harness shared by test-cpu and test-gpu.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

_Atomic int check_failures;
static _Thread_local uint64_t rng_state;
static uint64_t base_seed;

bool
check_expect (bool ok, const char *file, int line, const char *format, ...)
{
  va_list args;

  if (ok)
    return true;
  check_failures++;
  fprintf (stderr, "FAIL %s:%d: ", file, line);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  return false;
}

void
check_seed (void)
{
  const char *env = getenv ("CHECK_SEED");

  base_seed = env ? strtoull (env, NULL, 0) : (uint64_t) time (NULL);
  printf ("random seed %llu (set CHECK_SEED to repeat)\n", (unsigned long long) base_seed);
  check_reseed (0);
}

void
check_reseed (uint64_t stream)
{
  rng_state = (base_seed + stream) * 2654435761u + 0x9e3779b97f4a7c15ull;
}

/* The next number of the xorshift64* stream at 'state'. */
static uint64_t
next_rand (uint64_t *state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545f4914f6cdd1dull;
}

/* A number of the stream in [0, 1). */
static double
unit (uint64_t *state)
{
  return (next_rand (state) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t
check_rand (void)
{
  return next_rand (&rng_state);
}

double
check_uniform (double lo, double hi)
{
  return lo + (hi - lo) * unit (&rng_state);
}

void
check_add_noise (float *p, size_t n, double sigma, uint64_t stream)
{
  uint64_t state = stream * 2654435761u + 0x9e3779b97f4a7c15ull;

  for (size_t i = 0; i < n; i++)
    {
      /* Box-Muller. */
      const double u = unit (&state), v = unit (&state);

      p[i] += (float) (sigma * sqrt (-2.0 * log (u + 1e-12)) * cos (2.0 * M_PI * v));
    }
}

static uint16_t
to_half (float v)
{
  /* Through the engine's own converter would test it against itself:
   * truncate instead, which is a valid half near v for test data. */
  union { float f; uint32_t u; } x = { v };
  uint32_t sign = (x.u >> 16) & 0x8000, exp = (x.u >> 23) & 0xff;
  if (exp < 113)
    return (uint16_t) sign;
  return (uint16_t) (sign | ((exp - 112) << 10) | ((x.u >> 13) & 0x3ff));
}

/* One random sample of a type: integers over their whole range; floats in
 * [-0.25, 1.25] so clamping matters.  Alpha is 0 now and then, so that the
 * weighted formula's fallback runs. */
static void
random_sample (void *row, CcType type, int64_t i, bool is_alpha)
{
  double v = check_uniform (-0.25, 1.25);

  if (is_alpha && check_rand () % 5 == 0)
    v = 0.0;
  switch (type)
    {
    case CC_TYPE_U8:
      ((uint8_t *) row)[i] = v == 0.0 ? 0 : (uint8_t) check_rand ();
      break;
    case CC_TYPE_U16:
      ((uint16_t *) row)[i] = v == 0.0 ? 0 : (uint16_t) check_rand ();
      break;
    case CC_TYPE_U32:
      ((uint32_t *) row)[i] = v == 0.0 ? 0 : (uint32_t) check_rand ();
      break;
    case CC_TYPE_HALF:
      ((uint16_t *) row)[i] = to_half ((float) v);
      break;
    case CC_TYPE_FLOAT:
      ((float *) row)[i] = (float) v;
      break;
    default:
      ((double *) row)[i] = v;
      break;
    }
}

static double
get_sample (const void *row, CcType type, int64_t i)
{
  switch (type)
    {
    case CC_TYPE_U8:    return ((const uint8_t *) row)[i];
    case CC_TYPE_U16:   return ((const uint16_t *) row)[i];
    case CC_TYPE_U32:   return ((const uint32_t *) row)[i];
    case CC_TYPE_FLOAT: return ((const float *) row)[i];
    case CC_TYPE_DOUBLE: return ((const double *) row)[i];
    default:
      {
        /* half, decoded independently of the engine */
        uint16_t h = ((const uint16_t *) row)[i];
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e == 0 ? ldexp (m, -24) : e == 31 ? NAN : ldexp (m + 1024, e - 25);
        return h & 0x8000 ? -v : v;
      }
    }
}

/* An image with a padded stride, 'pad' bytes (0: 1 to 5 samples at
 * random); the padding is poisoned too, to catch writes past a row. */
static CcImage
make_image (CcType type, int channels, int64_t w, int64_t h, int pad)
{
  CcImage im;
  size_t size = cc_type_size (type);

  memset (&im, 0, sizeof im);
  im.type = type;
  im.channels = channels;
  im.width = w;
  im.height = h;
  im.stride = w * channels * size + (pad ? (size_t) pad : (1 + check_rand () % 5) * size);
  im.data = malloc (im.stride * h);
  return im;
}

static void
poison (CcImage *im)
{
  /* NaN for the float types; an unlikely pattern for integers. */
  bool fp = im->type == CC_TYPE_HALF || im->type == CC_TYPE_FLOAT || im->type == CC_TYPE_DOUBLE;
  memset (im->data, fp ? 0xff : 0xa5, im->stride * im->height);
}

static void
fill_random (CcImage *im, bool alpha)
{
  for (int64_t y = 0; y < im->height; y++)
    {
      char *row = (char *) im->data + y * im->stride;
      for (int64_t i = 0; i < im->width * im->channels; i++)
        random_sample (row, im->type, i, alpha && i % im->channels == im->channels - 1);
    }
}

static double
type_max (CcType type)
{
  switch (type)
    {
    case CC_TYPE_U8:  return 255.0;
    case CC_TYPE_U16: return 65535.0;
    case CC_TYPE_U32: return 4294967295.0;
    default:          return 0.0;
    }
}

/* Whether 'got' (raw sample) matches the gold value 'want' within 'bound'. */
static bool
sample_ok (CcType type, double got, double want, double bound)
{
  double max = type_max (type);

  if (isnan (got))
    return false;
  if (max > 0.0)
    return fabs (got - fmin (fmax (want, 0.0), 1.0) * max) <= 0.5 + bound * max + 1e-3;
  if (type == CC_TYPE_HALF)
    return fabs (got - want) <= bound + fabs (want) * (1.0 / 2048) + 1.0 / (1 << 25);
  return fabs (got - want) <= bound;
}

static void
describe (const CheckCase *c, char *buf, size_t n)
{
  snprintf (buf, n,
            "mask %dx%d, src %lldx%lld out %lldx%lld at (%lld,%lld), %d ch%s%s%s, %s->%s, "
            "border %s, clamp %s%s%s%s%s%s",
            c->mask_width, c->mask_height, (long long) c->src_width,
            (long long) c->src_height, (long long) c->out_width, (long long) c->out_height,
            (long long) c->out_x, (long long) c->out_y, c->channels,
            c->alpha ? " +alpha" : "", c->alpha && !c->alpha_weighting ? " unweighted" : "",
            c->alpha && !c->affect_alpha ? " keep-alpha" : "",
            cc_type_name (c->src_type), cc_type_name (c->dst_type),
            cc_border_name (c->border), c->clamp ? "on" : "off",
            c->src_on_device ? ", src on device" : "",
            c->dst_on_device ? ", dst on device" : "",
            c->mask_rank == 1 ? ", rank-1 mask" : c->mask_rank == 2 ? ", rank-2 mask" : "",
            c->transfer == 1 ? ", sRGB codes" : c->transfer == 2 ? ", gamma codes" : "",
            c->keep_colour ? ", colour kept" : "");
}

/* ---- Transfer curves, written here from their definitions ---- */

static const double gammas[3] = { 1.8, 2.2, 2.6 };

static double
curve_to_linear (int transfer, int c, double v)
{
  if (transfer == 2)
    return pow (v, gammas[c]);
  return v <= 0.04045 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
}

static double
curve_from_linear (int transfer, int c, double v)
{
  if (transfer == 2)
    return pow (v, 1.0 / gammas[c]);
  return v <= 0.0031308 ? v * 12.92 : 1.055 * pow (v, 1.0 / 2.4) - 0.055;
}

/* The nearest code to linear light v in the encoding, exactly. */
static double
curve_code (int transfer, int c, double v, double max)
{
  return floor (curve_from_linear (transfer, c, fmin (fmax (v, 0.0), 1.0)) * max + 0.5);
}

/* The case's transfer: sRGB from the engine, gamma tables made here. */
static CcTransfer *
make_transfer (const CheckCase *c)
{
  const int codes = c->src_type == CC_TYPE_U8 ? 256 : 65536;
  float *lin, *mid;
  CcTransfer *t;
  char msg[256];

  if (c->transfer == 1)
    return cc_transfer_new_srgb (c->src_type);
  lin = malloc (sizeof (float) * 3 * codes);
  mid = malloc (sizeof (float) * 3 * (codes - 1));
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < codes; i++)
      {
        lin[k * codes + i] = (float) curve_to_linear (2, k, (double) i / (codes - 1));
        if (i < codes - 1)
          mid[k * (codes - 1) + i] = (float) curve_to_linear (2, k, (i + 0.5) / (codes - 1));
      }
  t = cc_transfer_new (c->src_type, 3, lin, mid, msg, sizeof msg);
  CHECK (t != NULL, "gamma transfer refused: %s", msg);
  free (lin);
  free (mid);
  return t;
}

/* Puts a host image on the device (same stride), or NULL data on failure. */
static CcImage
to_device (CcContext *ctx, const CcImage *host)
{
  CcImage dev = *host;
  size_t bytes = host->stride * host->height;

  dev.on_device = true;
  if (cc_device_alloc (ctx, bytes, &dev.data) != CC_OK)
    dev.data = NULL;
  else if (cc_device_copy (ctx, dev.data, host->data, bytes, true) != CC_OK)
    {
      cc_device_free (ctx, dev.data);
      dev.data = NULL;
    }
  return dev;
}

/* Whether raw sample 'got' of channel ch matches the gold value 'want'
 * within 'bound': for colour coded by a transfer, any code the exact
 * encoding gives within the bound of the linear gold. */
static bool
matches (const CheckCase *c, CcType type, int ch, bool colour, double got, double want,
         double bound)
{
  if (c->transfer && colour)
    {
      const double max = type_max (type);

      return curve_code (c->transfer, ch, want - bound, max) <= got &&
             got <= curve_code (c->transfer, ch, want + bound, max);
    }
  return sample_ok (type, got, want, bound);
}

/* A transform cannot tell a weight sum |k a| of nought from one within its
 * rounding, so fft takes the plain sum for colour where the weight is at
 * most this share of sum |k| (docs/methods.md); the definition's quotient
 * differs there (in sign, for a negative alpha).  Such outputs may match
 * either. */
#define CHECK_NOUGHT_SHARE 2e-6

/* Output pixel (x, y)'s weight sum |k a| over sum |k|, from the source's
 * alpha, its ghosts by the border (black and white ones opaque). */
static double
weight_share (const CheckCase *c, const CcImage *src, const CcMask *mask, double sum_abs,
              int64_t x, int64_t y)
{
  const double max = type_max (src->type) > 0.0 ? type_max (src->type) : 1.0;
  const bool opaque = c->border == CC_BORDER_BLACK || c->border == CC_BORDER_WHITE;
  double w = 0.0;

  for (int j = 0; j < mask->height; j++)
    for (int i = 0; i < mask->width; i++)
      {
        const int64_t sy = cc_border_map (c->out_y + y + j - mask->height / 2, src->height,
                                          c->border);
        const int64_t sx = cc_border_map (c->out_x + x + i - mask->width / 2, src->width,
                                          c->border);
        const double a = sx < 0 || sy < 0
                         ? (opaque ? 1.0 : 0.0)
                         : get_sample ((const char *) src->data + sy * src->stride, src->type,
                                       sx * c->channels + c->channels - 1) / max;

        w += fabs (mask->values[j * mask->width + i] * a);
      }
  return w / sum_abs;
}

/* The case's mask: weights of both signs, leaning positive, as real masks
 * do; or a sum of mask_rank outer products, which the separable method
 * takes.  Its divisor random in size and sign, its offset small. */
static CcMask
random_mask (const CheckCase *c, double *values, double *sum_abs)
{
  const int taps = c->mask_width * c->mask_height;
  CcMask mask = { c->mask_width, c->mask_height, values, 1.0, 0.0 };

  for (int i = 0; i < taps; i++)
    values[i] = c->mask_rank ? 0.0 : check_uniform (-0.5, 1.0);
  for (int k = 0; k < c->mask_rank; k++)
    {
      double u[CC_MASK_MAX], v[CC_MASK_MAX];

      for (int j = 0; j < c->mask_height; j++)
        u[j] = check_uniform (-0.5, 1.0);
      for (int i = 0; i < c->mask_width; i++)
        v[i] = check_uniform (-0.5, 1.0);
      for (int j = 0; j < c->mask_height; j++)
        for (int i = 0; i < c->mask_width; i++)
          values[j * c->mask_width + i] += u[j] * v[i];
    }
  *sum_abs = 0.0;
  for (int i = 0; i < taps; i++)
    *sum_abs += fabs (values[i]);
  mask.divisor = check_uniform (0.5, 1.5) * *sum_abs * (check_rand () % 4 ? 1 : -1);
  mask.offset = check_uniform (-0.1, 0.1);
  return mask;
}

/* What one case checks a method's output against, and with what. */
typedef struct
{
  const CheckCase *c;
  CcImage          src, gold, pristine;
  CcImage          plain;   /* the unweighted gold, made once needed */
  const CcMask    *mask;
  const CcOptions *o;
  double           sum_abs, bound, fft_bound;
  bool             weighted;
  const char      *what;
} Expect;

/* Sample i of output row y against the gold (or, where the weight is within
 * a transform's rounding of nought, the plain sum), copied channels bit for
 * bit. */
static bool
output_sample_ok (Expect *e, const CcResult *r, const CcImage *dst, int64_t y, int64_t i,
                  double b)
{
  const CheckCase *c = e->c;
  const char *row = (const char *) dst->data + y * dst->stride;
  const double *grow = (const double *) ((const char *) e->gold.data + y * e->gold.stride);
  const int ch = (int) (i % c->channels);
  const bool colour = ch < c->channels - (c->alpha ? 1 : 0);
  const double got = get_sample (row, dst->type, i);
  bool copied = c->alpha && !c->affect_alpha && ch == c->channels - 1;
  bool ok = matches (c, dst->type, ch, colour, got, grow[i], b);

  copied |= colour && ch < 3 && (c->keep_colour >> ch & 1);
  if (!ok && e->weighted && colour && check_transformed (r) &&
      weight_share (c, &e->src, e->mask, e->sum_abs, i / c->channels, y) <= CHECK_NOUGHT_SHARE)
    {
      if (!e->plain.data)
        {
          CcOptions unweighted = *e->o;

          unweighted.alpha_weighting = false;
          e->plain = make_image (CC_TYPE_DOUBLE, c->channels, c->out_width, c->out_height, 0);
          CHECK (cc_convolve_gold (&e->src, c->out_x, c->out_y, &e->plain, e->mask,
                                   &unweighted) == CC_OK, "plain gold refused");
        }
      ok = matches (c, dst->type, ch, colour, got,
                    ((const double *) ((const char *) e->plain.data +
                                       y * e->plain.stride))[i], b);
    }
  if (ok && copied && c->src_type == c->dst_type)
    {
      const char *srow = (const char *) e->src.data + (c->out_y + y) * e->src.stride;
      const size_t sz = cc_type_size (dst->type);

      ok = memcmp (row + i * sz, srow + ((c->out_x * c->channels) + i) * sz, sz) == 0;
    }
  return CHECK (ok, "%s: sample (%lld,%lld) channel %d: got %.9g, gold %.9g (bound %.3g): %s",
                cc_method_name (r->method_used), (long long) (i / c->channels), (long long) y,
                ch, got, grow[i], b, e->what);
}

/* The method's output, every sample and the row padding untouched; the
 * samples that failed, up to 3. */
static int
output_bad (Expect *e, const CcResult *r, const CcImage *dst, CcMethod method)
{
  const CheckCase *c = e->c;
  /* auto is held to the bound of the method it took. */
  const double b = check_transformed (r) ? e->fft_bound : e->bound;
  const size_t row_bytes = dst->width * c->channels * cc_type_size (dst->type);
  int bad = 0;

  for (int64_t y = 0; y < dst->height && bad < 3; y++)
    {
      const char *row = (const char *) dst->data + y * dst->stride;
      const char *prow = (const char *) e->pristine.data + y * dst->stride;

      for (int64_t i = 0; i < dst->width * c->channels && bad < 3; i++)
        bad += !output_sample_ok (e, r, dst, y, i, b);
      if (!CHECK (memcmp (row + row_bytes, prow + row_bytes, dst->stride - row_bytes) == 0,
                  "%s: wrote past the end of row %lld: %s", cc_method_name (method),
                  (long long) y, e->what))
        bad++;
    }
  return bad;
}

/* One method on the case: its output, or its clean refusal; 1 where it
 * failed. */
static int
check_method (CcContext *ctx, Expect *e, CcImage *dst, CcMethod method)
{
  const CheckCase *c = e->c;
  CcImage s = e->src, d = *dst;
  CcOptions o = *e->o;
  CcResult r;
  CcStatus st;
  char why[256];
  bool unsupported;

  o.method = method;
  memcpy (dst->data, e->pristine.data, dst->stride * dst->height);
  if (c->src_on_device)
    s = to_device (ctx, &e->src);
  if (c->dst_on_device)
    d = to_device (ctx, dst);
  if (!CHECK (s.data && d.data, "device allocation failed: %s", e->what))
    return 1;
  unsupported = cc_method_check (ctx, method, e->mask, c->channels, e->weighted, why,
                                 sizeof why) == CC_ERROR_UNSUPPORTED;
  if (c->src_on_device && (c->border == CC_BORDER_BLACK || c->border == CC_BORDER_WHITE))
    {
      snprintf (why, sizeof why, "black and white borders need a host source");
      unsupported = true;
    }
  st = cc_convolve (ctx, &s, c->out_x, c->out_y, &d, e->mask, &o, &r);
  if (c->dst_on_device)
    cc_device_copy (ctx, dst->data, d.data, dst->stride * dst->height, false);
  if (c->src_on_device)
    cc_device_free (ctx, s.data);
  if (c->dst_on_device)
    cc_device_free (ctx, d.data);
  /* A method that cannot take the mask says so and writes nothing. */
  if (unsupported)
    return !CHECK (st == CC_ERROR_UNSUPPORTED && r.message[0] &&
                   memcmp (dst->data, e->pristine.data, dst->stride * dst->height) == 0,
                   "%s: expected a clean refusal (%s), got %s '%s': %s",
                   cc_method_name (method), why, cc_status_name (st), r.message, e->what);
  if (!CHECK (st == CC_OK, "%s: %s (%s): %s", cc_method_name (method), cc_status_name (st),
              r.message, e->what))
    return 1;
  CHECK (r.strips >= c->min_strips, "%s: %d strips, expected at least %d: %s",
         cc_method_name (method), r.strips, c->min_strips, e->what);
  CHECK (!c->kernel || method == CC_METHOD_AUTO || method == CC_METHOD_CPU ||
         strcmp (r.kernel, c->kernel) == 0, "%s: ran '%s', not '%s': %s",
         cc_method_name (method), r.kernel, c->kernel, e->what);
  return output_bad (e, &r, dst, method) ? 1 : 0;
}

static void
cancel_progress (double fraction, void *data)
{
  CheckCancel *c = data;

  CHECK (fraction >= c->last - 1e-12, "progress went back: %g after %g", fraction, c->last);
  c->last = fraction;
}

static bool
cancel_after (void *data)
{
  CheckCancel *c = data;

  return ++c->polls > c->limit;
}

void
check_cancel_reset (CheckCancel *c, int limit)
{
  *c = (CheckCancel) { limit, 0, 0.0 };
}

void
check_cancel_hooks (CcOptions *o, CheckCancel *c, int limit)
{
  check_cancel_reset (c, limit);
  o->progress = cancel_progress;
  o->cancel = cancel_after;
  o->user_data = c;
}

int
check_case (CcContext *ctx, const CheckCase *c, const CcMethod *methods, int n_methods)
{
  double *values = malloc (sizeof (double) * c->mask_width * c->mask_height);
  CcImage dst = make_image (c->dst_type, c->channels, c->out_width, c->out_height,
                            c->row_pad);
  const char *filter = getenv ("CHECK_FILTER");
  Expect e = { .c = c };
  CcMask mask;
  CcOptions o;
  double max_in = 1.0;
  char what[512];
  int failed = 0;

  describe (c, what, sizeof what);
  /* CHECK_FILTER=text runs only the cases whose description holds it. */
  if (filter && !strstr (what, filter))
    {
      free (values);
      free (dst.data);
      return 0;
    }
  e.what = what;
  e.src = make_image (c->src_type, c->channels, c->src_width, c->src_height, c->row_pad);
  e.gold = make_image (CC_TYPE_DOUBLE, c->channels, c->out_width, c->out_height, 0);
  mask = random_mask (c, values, &e.sum_abs);
  e.mask = &mask;
  cc_options_init (&o);
  o.border = c->border;
  o.clamp = c->clamp;
  o.has_alpha = c->alpha;
  o.alpha_weighting = c->alpha_weighting;
  o.affect_alpha = c->affect_alpha;
  for (int k = 0; k < 3; k++)
    o.keep_colour[k] = c->keep_colour >> k & 1;
  if (c->transfer)
    o.transfer = make_transfer (c);
  e.o = &o;
  /* Weighted where some colour channel is convolved with alpha weighting. */
  e.weighted = c->alpha && c->alpha_weighting &&
               c->keep_colour != (1u << (c->channels - 1 < 3 ? c->channels - 1 : 3)) - 1;

  fill_random (&e.src, c->alpha);
  if (c->src_type == CC_TYPE_FLOAT || c->src_type == CC_TYPE_DOUBLE || c->src_type == CC_TYPE_HALF)
    max_in = 1.25;
  e.bound = (1e-5 * (e.sum_abs / fabs (mask.divisor)) + 1e-6) * max_in;
  /* The fft method's bound (issue #5): its rounding grows with the transform. */
  e.fft_bound = (1e-4 * (e.sum_abs / fabs (mask.divisor)) + 1e-5) * max_in;
  CHECK (cc_convolve_gold (&e.src, c->out_x, c->out_y, &e.gold, &mask, &o) == CC_OK,
         "gold refused: %s", what);
  e.pristine = dst;
  e.pristine.data = malloc (dst.stride * dst.height);
  poison (&e.pristine);
  for (int m = 0; m < n_methods; m++)
    failed += check_method (ctx, &e, &dst, methods[m]);

  cc_transfer_free ((CcTransfer *) o.transfer);
  free (e.plain.data);
  free (values);
  free (e.src.data);
  free (e.gold.data);
  free (dst.data);
  free (e.pristine.data);
  return failed;
}

/* Transfers and kept colour channels, rotating through the cases: 8- and
 * 16-bit images in and out take a transfer two cases in three (sRGB, or on
 * three colour channels three gamma curves too); one case in five keeps a
 * colour channel. */
static void
sweep_colour (CheckCase *c, int k)
{
  const int colour = c->channels - (c->alpha ? 1 : 0);

  if ((c->src_type == CC_TYPE_U8 || c->src_type == CC_TYPE_U16) &&
      c->dst_type == c->src_type && k % 3 != 2)
    c->transfer = colour == 3 && (k / 7) % 2 ? 2 : 1;
  if (k % 5 == 4 && colour > 0)
    c->keep_colour = 1u << ((k / 5) % (colour < 3 ? colour : 3));
}

int
check_sweep (CcContext *ctx, const CcMethod *methods, int n_methods, bool device)
{
  static const int shapes[][2] = {
    { 1, 1 }, { 3, 3 }, { 5, 5 }, { 7, 7 }, { 7, 3 }, { 3, 7 }, { 9, 9 }, { 9, 1 }, { 1, 9 },
    { 25, 1 }, { 1, 25 }, { 15, 15 }, { 31, 31 }, { 31, 5 }, { 25, 127 }, { 127, 1 },
    { 1, 127 }, { 127, 127 }
  };
  /* src w, h, then the output rectangle: x, y, w, h (w = 0: the whole source). */
  static const int sizes[][6] = {
    { 1, 1, 0, 0, 0, 0 }, { 2, 3, 0, 0, 0, 0 }, { 37, 29, 0, 0, 0, 0 },
    { 45, 31, 7, 9, 20, 13 }, { 4097, 33, 0, 0, 0, 0 }, { 33, 517, 0, 0, 0, 0 },
    { 64, 48, 1, 2, 61, 45 }
  };
  /* channels, alpha, weighting, affect alpha */
  static const int layouts[][4] = {
    { 1, 0, 0, 1 }, { 2, 0, 0, 1 }, { 3, 0, 0, 1 }, { 4, 0, 0, 1 }, { 2, 1, 1, 1 },
    { 3, 1, 1, 1 }, { 4, 1, 1, 1 }, { 4, 1, 0, 1 }, { 4, 1, 1, 0 }, { 2, 1, 0, 0 }
  };
  const int n_shapes = sizeof shapes / sizeof shapes[0];
  const int n_sizes = sizeof sizes / sizeof sizes[0];
  const int n_layouts = sizeof layouts / sizeof layouts[0];
  int k = 0, failed = 0, cases = 0;

  for (int s = 0; s < n_shapes; s++)
    for (int b = 0; b < CC_BORDER_COUNT; b++)
      for (int l = 0; l < n_layouts; l++, k++)
        {
          const int *sz = sizes[k % n_sizes];
          const int taps = shapes[s][0] * shapes[s][1];
          CheckCase c;

          memset (&c, 0, sizeof c);
          c.mask_width = shapes[s][0];
          c.mask_height = shapes[s][1];
          c.src_width = sz[0];
          c.src_height = sz[1];
          c.out_x = sz[2];
          c.out_y = sz[3];
          c.out_width = sz[4] ? sz[4] : sz[0];
          c.out_height = sz[5] ? sz[5] : sz[1];
          /* Keep the gold's work small: big masks get small images. */
          if ((double) c.out_width * c.out_height * taps > 4e6)
            {
              c.src_width = c.out_width = 11 + k % 7;
              c.src_height = c.out_height = 9 + k % 5;
              c.out_x = c.out_y = 0;
            }
          c.channels = layouts[l][0];
          c.alpha = layouts[l][1];
          c.alpha_weighting = layouts[l][2];
          c.affect_alpha = layouts[l][3];
          c.src_type = (CcType) (k % CC_TYPE_COUNT);
          c.dst_type = k % 3 ? c.src_type : (CcType) ((k / 3) % CC_TYPE_COUNT);
          c.border = (CcBorder) b;
          c.clamp = (k / 2) % 2;
          c.src_on_device = device && k % 5 == 2 && b < CC_BORDER_BLACK;
          c.dst_on_device = device && k % 7 == 3;
          c.mask_rank = (k / 5) % 3;
          sweep_colour (&c, k);
          failed += check_case (ctx, &c, methods, n_methods) ? 1 : 0;
          cases++;
        }
  printf ("sweep: %d cases x %d method%s, %d failed\n", cases, n_methods,
          n_methods == 1 ? "" : "s", failed);
  return failed;
}

int
check_reduced (CcContext *ctx, const CcMethod *methods, int n_methods)
{
  /* A rank-1 5x5 (separable runs), a random 9x7 and 9x9, and a 3x3
   * (register's 3x3 kernel, on 4 channels unweighted); 1 channel, 3 (rows
   * not 16-byte aligned), 4 with weighted alpha, 4 with plain alpha (fft
   * runs). */
  static const int shapes[][3] = { { 5, 5, 1 }, { 9, 7, 0 }, { 9, 9, 0 }, { 3, 3, 0 } };
  static const int layouts[][3] = { { 1, 0, 0 }, { 3, 0, 0 }, { 4, 1, 1 }, { 4, 1, 0 } };
  int k = 0, failed = 0, cases = 0;

  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int b = 0; b < CC_BORDER_COUNT; b++)
      for (int l = 0; l < 4; l++, k++)
        {
          CheckCase c;

          memset (&c, 0, sizeof c);
          c.mask_width = shapes[s][0];
          c.mask_height = shapes[s][1];
          c.mask_rank = shapes[s][2];
          c.src_width = 37;
          c.src_height = 29;
          c.out_x = 3;
          c.out_y = 2;
          c.out_width = 31;
          c.out_height = 23;
          c.channels = layouts[l][0];
          c.alpha = c.affect_alpha = layouts[l][1];
          c.alpha_weighting = layouts[l][2];
          c.src_type = k % 2 ? CC_TYPE_U8 : CC_TYPE_FLOAT;
          c.dst_type = k % 3 ? c.src_type : CC_TYPE_HALF;
          c.border = (CcBorder) b;
          c.clamp = k % 4 != 1;
          c.src_on_device = k % 5 == 2 && b < CC_BORDER_BLACK;
          c.dst_on_device = k % 7 == 3;
          sweep_colour (&c, k);
          failed += check_case (ctx, &c, methods, n_methods) ? 1 : 0;
          cases++;
        }
  printf ("reduced matrix: %d cases x %d method%s, %d failed\n", cases, n_methods,
          n_methods == 1 ? "" : "s", failed);
  return failed;
}

/* ---- Hand-computed results ---- */

/* A single-row float image through a method; false when the method
 * refuses it cleanly (it cannot take the mask), which check_case covers. */
static bool
run_gray (CcContext *ctx, CcMethod method, const float *in, int n, int channels,
          const double *m, int mw, double divisor, CcBorder border, bool alpha,
          float *out)
{
  CcImage src = { (void *) in, CC_TYPE_FLOAT, channels, n, 1, n * channels * 4, false };
  CcImage dst = { out, CC_TYPE_FLOAT, channels, n, 1, n * channels * 4, false };
  CcMask mask = { mw, 1, m, divisor, 0.0 };
  CcOptions o;
  CcResult r;
  char why[256];

  cc_options_init (&o);
  o.method = method;
  o.border = border;
  o.has_alpha = alpha;
  for (int i = 0; i < n * channels; i++)
    out[i] = NAN;
  if (cc_method_check (ctx, method, &mask, channels, alpha, why, sizeof why) ==
      CC_ERROR_UNSUPPORTED)
    return false;
  return CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK,
                "%s: %s", cc_method_name (method), r.message);
}

int
check_known (CcContext *ctx, const CcMethod *methods, int n_methods)
{
  static const float row[3] = { 0.2f, 0.4f, 0.8f };
  static const double m121[3] = { 1, 2, 1 };
  static const double m111[3] = { 1, 1, 1 };
  /* out(0) for each border: ghost cell 0, 0.2 (extend), 0.8 (wrap), 0.4
   * (mirror), 0 (black), 1 (white). */
  static const double first[CC_BORDER_COUNT] = { 0.2, 0.25, 0.4, 0.3, 0.2, 0.45 };
  int before = check_failures;

  for (int m = 0; m < n_methods; m++)
    {
      const char *name = cc_method_name (methods[m]);
      float out[8];

      for (int b = 0; b < CC_BORDER_COUNT; b++)
        {
          if (run_gray (ctx, methods[m], row, 3, 1, m121, 3, 4.0, (CcBorder) b, false, out))
            CHECK (fabsf (out[0] - (float) first[b]) < 1e-6f &&
                 fabsf (out[1] - 0.45f) < 1e-6f,
                 "%s, border %s: [1 2 1]/4 of [0.2 0.4 0.8] gave %g %g, want %g 0.45",
                 name, cc_border_name ((CcBorder) b), out[0], out[1], first[b]);
        }

      /* Alpha weighting: (1.0, a 0) (0.2, a 1) with [1 1 1]/3, extend.
       * Colour at pixel 0: sum kca = 0.2, sum |k| = 3, sum |ka| = 1 -> 0.2;
       * alpha (plain): 1/3. */
      {
        static const float ga[4] = { 1.0f, 0.0f, 0.2f, 1.0f };
        if (run_gray (ctx, methods[m], ga, 2, 2, m111, 3, 3.0, CC_BORDER_EXTEND, true, out))
          CHECK (fabsf (out[0] - 0.2f) < 1e-6f && fabsf (out[1] - 1.0f / 3) < 1e-6f,
               "%s: alpha-weighted colour %g alpha %g, want 0.2 0.333333", name,
               out[0], out[1]);
      }
      /* Where every alpha is 0 the plain formula holds: colour 0.6 stays. */
      {
        static const float clear[2] = { 0.6f, 0.0f };
        if (run_gray (ctx, methods[m], clear, 1, 2, m111, 3, 3.0, CC_BORDER_EXTEND, true, out))
          CHECK (fabsf (out[0] - 0.6f) < 1e-6f && out[1] == 0.0f,
               "%s: transparent pixel gave colour %g alpha %g, want 0.6 0", name,
               out[0], out[1]);
      }
    }
  return check_failures - before;
}

/* ---- Two threads at once ---- */

typedef struct
{
  CcContext *ctx;
  CheckCase  c;
  CcMethod   method;
  int        index;
  int        failed;
} ThreadJob;

static void *
thread_main (void *data)
{
  ThreadJob *t = data;

  check_reseed (1000 + t->index);
  t->failed = check_case (t->ctx, &t->c, &t->method, 1);
  return NULL;
}

int
check_threads (CcContext *ctx, CcMethod method)
{
  CcContext *other = cc_context_new ();
  ThreadJob jobs[4];
  pthread_t threads[4];
  int failed = 0;

  for (int i = 0; i < 4; i++)
    {
      CheckCase *c = &jobs[i].c;

      memset (c, 0, sizeof *c);
      c->mask_width = 3 + 2 * i;
      c->mask_height = 5;
      c->src_width = c->out_width = 301 + i;
      c->src_height = c->out_height = 203;
      c->channels = 4;
      c->alpha = c->alpha_weighting = c->affect_alpha = true;
      c->src_type = c->dst_type = CC_TYPE_U8;
      c->border = (CcBorder) i;
      c->clamp = true;
      jobs[i].ctx = i < 2 ? ctx : other;   /* two on one context, two on another */
      jobs[i].method = method;
      jobs[i].index = i;
    }
  for (int i = 0; i < 4; i++)
    pthread_create (&threads[i], NULL, thread_main, &jobs[i]);
  for (int i = 0; i < 4; i++)
    {
      pthread_join (threads[i], NULL);
      failed += jobs[i].failed;
    }
  cc_context_free (other);
  CHECK (failed == 0, "%s: %d of 4 concurrent runs failed", cc_method_name (method), failed);
  return failed;
}

bool
check_cpu_wiener (void)
{
#ifdef HAVE_FFTW
  return true;
#else
  return false;
#endif
}

/* ---- Deconvolution on photographs ---- */

float *
check_read_photo (const char *name, int64_t *w, int64_t *h)
{
  const char *top = getenv ("top_srcdir");
  char path[4096];
  unsigned char *bytes = NULL;
  float *out = NULL;
  int width, height, max;
  size_t n;
  FILE *f;

  snprintf (path, sizeof path, "%s/data/photo-%s.ppm", top ? top : "..", name);
  if (!(f = fopen (path, "rb")))
    return NULL;
  if (fscanf (f, "P6 %d %d %d", &width, &height, &max) == 3 && max == 255 &&
      fgetc (f) != EOF && width > 0 && height > 0)
    {
      n = (size_t) width * height * 3;
      bytes = malloc (n);
      out = malloc (sizeof (float) * n);
      if (bytes && out && fread (bytes, 1, n, f) == n)
        for (size_t i = 0; i < n; i++)
          out[i] = bytes[i] / 255.0f;
      else
        {
          free (out);
          out = NULL;
        }
      *w = width;
      *h = height;
    }
  free (bytes);
  fclose (f);
  return out;
}

bool
check_blur_noisy (CcContext *ctx, const CcImage *sharp, const CcShapeSpec *spec, float *out,
                  uint64_t stream)
{
  const CcImage b = { out, CC_TYPE_FLOAT, 3, sharp->width, sharp->height, sharp->stride, false };
  CcMask mask;
  double *values;
  char why[256];
  CcOptions o;
  CcResult r;
  bool ok;

  if (!cc_mask_shape (spec, &mask, &values, why, sizeof why))
    return false;
  cc_options_init (&o);
  o.method = CC_METHOD_CPU;
  o.border = CC_BORDER_MIRROR;
  ok = cc_convolve (ctx, sharp, 0, 0, &b, &mask, &o, &r) == CC_OK;
  free (values);
  check_add_noise (out, (size_t) (sharp->width * sharp->height * 3), 0.01, stream);
  return ok;
}

double
check_psnr (const float *a, const float *b, size_t n)
{
  double sum = 0.0;

  for (size_t i = 0; i < n; i++)
    sum += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
  return 10.0 * log10 ((double) n / sum);
}

int
check_restoration (CcContext *ctx, CcMethod method, double *gains)
{
  static const char *const photos[] = { "astronaut", "coffee", "chelsea" };
  /* The last, a blur with no symmetry, shows a mask used the wrong way
   * round (a shape's mask is symmetric about its centre). */
  static const double lopsided[] = { 0, 1, 2, 1, 0, 0, 0,  0, 2, 6, 3, 1, 0, 0,
                                     1, 3, 9, 7, 4, 2, 0,  0, 1, 4, 5, 3, 2, 1,
                                     0, 0, 1, 2, 1, 1, 0 };
  static const struct { const char *name; CcShapeSpec shape; } blurs[] = {
    { "disc of radius 4", { CC_SHAPE_DISC, 4.0, 0.0, 6, 0.5 } },
    { "disc of radius 10", { CC_SHAPE_DISC, 10.0, 0.0, 6, 0.5 } },
    { "15-pixel motion line", { CC_SHAPE_MOTION, 7.0, 30.0, 6, 0.5 } },
    { "lopsided 7x5 mask", { CC_SHAPE_MATRIX, 0, 0, 0, 0 } },
  };
  const int before = check_failures;
  int g = 0;

  for (size_t f = 0; f < sizeof photos / sizeof photos[0]; f++)
    {
      int64_t w = 0, h = 0;
      float *sharp = check_read_photo (photos[f], &w, &h);
      const size_t n = (size_t) (w * h * 3);
      float *blurred = sharp ? malloc (sizeof (float) * n) : NULL;
      float *restored = sharp ? malloc (sizeof (float) * n) : NULL;
      const CcImage in = { sharp, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
      const CcImage b = { blurred, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
      const CcImage out = { restored, CC_TYPE_FLOAT, 3, w, h, w * 12, false };

      CHECK (sharp && blurred && restored, "data/photo-%s.ppm read (top_srcdir: %s)",
             photos[f], getenv ("top_srcdir") ? getenv ("top_srcdir") : "unset");
      for (size_t k = 0; sharp && blurred && restored && k < sizeof blurs / sizeof blurs[0]; k++)
        {
          CcMask mask;
          double *values;
          char why[256];
          CcOptions o;
          CcResult r;

          const CcMaskSource source = { .values = lopsided, .n_values = 35, .width = 7,
                                        .height = 5, .divisor = 1.0, .normalize = true,
                                        .shape = blurs[k].shape };

          CHECK (cc_mask_resolve (&source, &mask, &values, why, sizeof why), "%s: %s",
                 blurs[k].name, why);
          for (int noisy = 0; noisy < 2; noisy++)
            {
              cc_options_init (&o);
              o.method = CC_METHOD_CPU;
              o.border = CC_BORDER_MIRROR;
              o.clamp = false;
              CHECK (cc_convolve (ctx, &in, 0, 0, &b, &mask, &o, &r) == CC_OK, "blur: %s",
                     r.message);
              if (noisy)
                {
                  check_add_noise (blurred, n, 0.01, f * 16 + k * 2 + 1);
                  for (size_t i = 0; i < n; i++)
                    blurred[i] = fminf (fmaxf (blurred[i], 0.0f), 1.0f);
                }
              for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
                {
                  CcDeconvolveParams p;
                  double before_db, gain;
                  CcStatus st;

                  if (a == CC_DECONVOLVE_WIENER && method == CC_METHOD_CPU &&
                      !check_cpu_wiener ())
                    {
                      if (gains)
                        gains[g++] = NAN;
                      continue;
                    }
                  cc_deconvolve_params_init (&p);
                  p.algorithm = (CcDeconvolveAlgorithm) a;
                  cc_options_init (&o);
                  o.method = method;
                  st = cc_deconvolve (ctx, &b, &out, &mask, &o, &p, &r);
                  before_db = check_psnr (blurred, sharp, n);
                  gain = st == CC_OK ? check_psnr (restored, sharp, n) - before_db
                                     : -INFINITY;
                  if (gains)
                    gains[g++] = gain;
                  CHECK (st == CC_OK && (method == CC_METHOD_CPU) ==
                                        (strncmp (r.kernel, "cpu ", 4) == 0) &&
                         gain >= (a == CC_DECONVOLVE_WIENER ? 2.0 : 1.0),
                         "%s restores %s blurred by a %s%s (mirror border), by %s: PSNR "
                         "%.2f -> %.2f dB (%+.2f) ('%s' %s)",
                         cc_deconvolve_algorithm_name (p.algorithm), photos[f], blurs[k].name,
                         noisy ? ", 1% noise" : "", cc_method_name (method), before_db,
                         before_db + gain, gain, r.kernel, r.message);
                  printf ("restoration: %-15s %-9s %-20s %s: %5.2f dB %+5.2f (%s)\n",
                          cc_deconvolve_algorithm_name (p.algorithm), photos[f], blurs[k].name,
                          noisy ? "1% noise" : "no noise", before_db, gain, r.kernel);
                }
            }
          free (values);
        }
      free (sharp);
      free (blurred);
      free (restored);
    }
  return check_failures - before;
}

/* ---- Samples past the ordinary ---- */

bool
check_transformed (const CcResult *r)
{
  return r->method_used == CC_METHOD_FFT || strcmp (r->kernel, "cpu fft") == 0;
}

int
check_off_gold (const float *out, const double *gold, size_t n, double bound, size_t *first)
{
  int bad = 0;

  for (size_t i = 0; i < n; i++)
    {
      const bool ok = isnan (gold[i]) ? isnan (out[i])
                      : isinf (gold[i]) ? out[i] == gold[i]
                      : fabs (out[i] - gold[i]) <= bound;

      if (!ok && bad++ == 0 && first)
        *first = i;
    }
  return bad;
}

int
check_odd_samples (CcContext *ctx, const CcMethod *methods, int n_methods, bool reduced)
{
  enum { W = 160, H = 72, C = 4, N = W * H * C };
  /* Square widths on either side of each class the kernels compile (their
   * taps zero-padded up to it), and a wide, short one. */
  static const int shapes[][2] = { { 3, 3 }, { 5, 5 }, { 9, 9 }, { 11, 11 }, { 17, 17 },
                                   { 25, 25 }, { 31, 31 }, { 45, 45 }, { 7, 3 } };
  static const float odd[] = { INFINITY, NAN, 1e5f };
  /* Mid-image, and in the corner where the border's ghosts repeat it. */
  static const int at[][2] = { { 81, 37 }, { 1, 2 } };
  float *in = malloc (sizeof (float) * N), *out = malloc (sizeof (float) * N);
  double *gold = malloc (sizeof (double) * N);
  CcImage src = { in, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
  CcImage dst = { out, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
  CcImage ref = { gold, CC_TYPE_DOUBLE, C, W, H, W * C * 8, false };
  int runs = 0, failed = 0;

  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    {
      const int mw = shapes[s][0], mh = shapes[s][1];

      /* Reduced: a padded class and a one pass. */
      if (reduced && mw != 11 && mw != 31)
        continue;
      double values[45 * 45], u[45], v[45], sum_abs = 0.0;
      CcMask mask = { mw, mh, values, 1.0, 0.0 };

      /* Rank 1, so that separable takes it too. */
      for (int j = 0; j < mh; j++)
        u[j] = check_uniform (-0.5, 1.0);
      for (int i = 0; i < mw; i++)
        v[i] = check_uniform (-0.5, 1.0);
      for (int j = 0; j < mh; j++)
        for (int i = 0; i < mw; i++)
          sum_abs += fabs (values[j * mw + i] = u[j] * v[i]);
      mask.divisor = sum_abs;
      for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++)
        for (int p = 0; p < 2; p++)
          {
            CcOptions o;
            const int clamp = (int) (k + p) % 2;
            const double scale = isfinite (odd[k]) ? fabs (odd[k]) : 1.0;

            cc_options_init (&o);
            o.clamp = clamp;
            o.border = p ? CC_BORDER_MIRROR : CC_BORDER_EXTEND;
            /* A smooth image, as photographs are, with a little grain. */
            for (int y = 0; y < H; y++)
              for (int x = 0; x < W; x++)
                for (int c = 0; c < C; c++)
                  in[(y * W + x) * C + c] =
                    (float) (0.5 + 0.3 * sin (0.05 * x + c) * cos (0.07 * y) +
                             check_uniform (-0.02, 0.02));
            in[(at[p][1] * W + at[p][0]) * C + 2] = odd[k];
            CHECK (cc_convolve_gold (&src, 0, 0, &ref, &mask, &o) == CC_OK, "gold refused");
            for (int m = 0; m < n_methods; m++)
              {
                char why[256];
                CcResult r;
                size_t first = 0;

                o.method = methods[m];
                if (cc_method_check (ctx, methods[m], &mask, C, false, why, sizeof why) ==
                    CC_ERROR_UNSUPPORTED)
                  continue;
                runs++;
                if (!CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK,
                            "%s, %dx%d, a sample of %g: %s", cc_method_name (methods[m]),
                            mw, mh, odd[k], r.message))
                  {
                    failed++;
                    continue;
                  }
                /* A NaN exactly where the gold's are (a zero tap padding
                 * the mask would carry one past its reach), infinities
                 * equal, the rest within the bound times the sample. */
                const double b = (check_transformed (&r) ? 1e-4 : 1e-5) * scale + 1e-6;
                const int bad = check_off_gold (out, gold, N, b, &first);

                if (!CHECK (bad == 0, "%s, %dx%d, %s, %s, a sample of %g at (%d,%d): %d outputs "
                            "off the gold, the first (%d,%d) channel %d: %g, gold %g",
                            cc_method_name (r.method_used), mw, mh, clamp ? "clamped" : "unclamped",
                            cc_border_name (o.border), odd[k], at[p][0], at[p][1], bad,
                            (int) (first / C % W), (int) (first / C / W), (int) (first % C),
                            out[first], gold[first]))
                  failed++;
              }
          }
    }
  printf ("odd samples: %d runs, %d failed\n", runs, failed);
  free (in);
  free (out);
  free (gold);
  return failed;
}

float
check_scene (int64_t x, int64_t y, int k)
{
  const double s = 0.5 + 0.25 * sin (0.11 * x + 0.7 * k) * cos (0.07 * y) +
                   (((x / 7) + (y / 5)) % 3 == 0 ? 0.15 : -0.1) + 0.05 * sin (1.3 * x * y);

  return (float) (s < 0.05 ? 0.05 : s > 0.95 ? 0.95 : s);
}
