/* Deconvolution's front: checks the call, takes the colour channels to
 * float planes (linear light through the transfer), runs Richardson–Lucy
 * as convolutions by the engine itself (so each step takes whatever path
 * costs least: direct sums, two passes or FFTW's tiles) with point-wise
 * steps between them, or Wiener's filter (deconvolve-fft.c), and writes
 * the result with alpha and the kept channels as they were.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deconvolve.h"
#include "samples.h"

/* What Richardson–Lucy adds to the blurred estimate before dividing by it,
 * as scikit-image does: a pixel the estimate leaves dark divides by it, not
 * by 0. */
#define RL_EPSILON 1e-12f
/* The gradient's length below which total variation takes it as flat. */
#define TV_EPSILON 1e-4f
/* Rows a worker takes at a time in the point-wise steps. */
#define ROWS_GRAIN 16

static const char *const algorithm_names[CC_DECONVOLVE_COUNT] = { "richardson-lucy", "wiener" };
static const char *const start_names[CC_DECONVOLVE_START_COUNT] = { "image", "flat" };

void
cc_deconvolve_params_init (CcDeconvolveParams *p)
{
  memset (p, 0, sizeof *p);
  p->algorithm = CC_DECONVOLVE_RICHARDSON_LUCY;
  p->iterations = 30;
  p->start = CC_DECONVOLVE_START_FLAT;
  p->noise = 0.01;
}

const char *
cc_deconvolve_algorithm_name (CcDeconvolveAlgorithm algorithm)
{
  return (unsigned) algorithm < CC_DECONVOLVE_COUNT ? algorithm_names[algorithm] : "unknown";
}

bool
cc_deconvolve_algorithm_from_name (const char *name, CcDeconvolveAlgorithm *algorithm)
{
  for (int a = 0; a < CC_DECONVOLVE_COUNT; a++)
    if (name && strcmp (name, algorithm_names[a]) == 0)
      {
        *algorithm = (CcDeconvolveAlgorithm) a;
        return true;
      }
  return false;
}

const char *
cc_deconvolve_start_name (CcDeconvolveStart start)
{
  return (unsigned) start < CC_DECONVOLVE_START_COUNT ? start_names[start] : "unknown";
}

bool
cc_deconvolve_start_from_name (const char *name, CcDeconvolveStart *start)
{
  for (int s = 0; s < CC_DECONVOLVE_START_COUNT; s++)
    if (name && strcmp (name, start_names[s]) == 0)
      {
        *start = (CcDeconvolveStart) s;
        return true;
      }
  return false;
}

/* One call's planes and what its steps share. */
typedef struct
{
  CcContext                *ctx;
  CcWorkers                *workers;
  const CcOptions          *o;
  const CcDeconvolveParams *p;
  int64_t                   w, h;
  int                       K;          /* channels restored */
  float                    *f;          /* the blurred image, K a pixel */
  float                    *u;          /* the estimate */
  float                    *t, *g;      /* the steps' planes */
  CcMask                    blur;       /* scaled to sum 1 */
  CcMask                    turned;     /* the same turned half a turn: the adjoint */
  double                    done;       /* progress before the running step */
  double                    share;      /* the running step's part of the whole */
  int64_t                   non_finite; /* source samples taken as 0 */
} Deconv;

static CcStatus
check_params (const CcDeconvolveParams *p, CcResult *r)
{
  if (!p)
    return cc_fail (r, CC_ERROR_INVALID, "no deconvolution parameters given");
  if ((unsigned) p->algorithm >= CC_DECONVOLVE_COUNT)
    return cc_fail (r, CC_ERROR_INVALID, "unknown deconvolution algorithm %d",
                    (int) p->algorithm);
  if (p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY)
    {
      if (p->iterations < 1 || p->iterations > CC_DECONVOLVE_ITERATIONS_MAX)
        return cc_fail (r, CC_ERROR_INVALID,
                        "Richardson-Lucy takes 1 to %d iterations, not %d",
                        CC_DECONVOLVE_ITERATIONS_MAX, p->iterations);
      if ((unsigned) p->start >= CC_DECONVOLVE_START_COUNT)
        return cc_fail (r, CC_ERROR_INVALID, "unknown start %d", (int) p->start);
      if (!(p->tv_weight >= 0 && p->tv_weight <= CC_DECONVOLVE_TV_MAX))
        return cc_fail (r, CC_ERROR_INVALID,
                        "the total-variation weight is 0 to %g, not %g",
                        CC_DECONVOLVE_TV_MAX, p->tv_weight);
    }
  else if (!(isfinite (p->noise) && p->noise >= 0))
    return cc_fail (r, CC_ERROR_INVALID,
                    "Wiener's noise is a finite number at or above 0, not %g", p->noise);
  return CC_OK;
}

/* The mask as the blur: its weights over their sum, and turned half a turn
 * for Richardson–Lucy's correlation step; refused where it cannot be a
 * blur. */
static CcStatus
blur_masks (const CcMask *mask, const CcDeconvolveParams *p, double *values,
            CcMask *blur, CcMask *turned, CcResult *r)
{
  const int n = mask->width * mask->height;
  double sum = 0;
  int negative = 0;

  if (mask->offset != 0)
    return cc_fail (r, CC_ERROR_INVALID,
                    "a blur has no offset; this mask's is %g", mask->offset);
  for (int i = 0; i < n; i++)
    {
      sum += mask->values[i] / mask->divisor;
      negative += mask->values[i] / mask->divisor < 0;
    }
  if (p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY && negative)
    return cc_fail (r, CC_ERROR_INVALID,
                    "Richardson-Lucy takes no negative weights; this mask has %d", negative);
  if (!(sum > 0) || !isfinite (sum))
    return cc_fail (r, CC_ERROR_INVALID,
                    "a blur's weights add up to more than 0; this mask's add up to %g", sum);
  for (int i = 0; i < n; i++)
    {
      values[i] = mask->values[i] / mask->divisor / sum;
      values[2 * n - 1 - i] = values[i];
    }
  *blur = (CcMask) { mask->width, mask->height, values, 1.0, 0.0 };
  *turned = (CcMask) { mask->width, mask->height, values + n, 1.0, 0.0 };
  return CC_OK;
}

/* The colour channels restored (all but alpha), as floats in the scale the
 * convolution takes them. */
static int
restored_channels (const CcImage *src, const CcOptions *o)
{
  return src->channels - (o->has_alpha ? 1 : 0);
}

/* Reads the source's restored channels into d->f; non-finite samples are 0. */
static bool
read_observed (Deconv *d, const CcImage *src)
{
  const int C = src->channels, K = d->K;
  float *row = malloc (sizeof (float) * (size_t) (d->w * C));

  if (!row)
    return false;
  for (int64_t y = 0; y < d->h; y++)
    {
      const char *in = (const char *) src->data + y * src->stride;
      float *f = d->f + y * d->w * K;

      if (d->o->transfer)
        cc_samples_decode (in, d->o->transfer, C, K, 0, d->w * C, row);
      else
        cc_samples_to_float (in, src->type, 0, d->w * C, row);
      for (int64_t x = 0; x < d->w; x++)
        for (int k = 0; k < K; k++)
          {
            const float v = row[x * C + k];

            d->non_finite += !isfinite (v);
            f[x * K + k] = isfinite (v) ? v : 0.0f;
          }
    }
  free (row);
  return true;
}

/* Writes the restored channels, clamped where the options clamp, with
 * alpha and the kept channels copied from the source exactly. */
static bool
write_restored (const Deconv *d, const CcImage *src, const CcImage *dst)
{
  const int C = src->channels, K = d->K;
  float *row = malloc (sizeof (float) * (size_t) (d->w * C));

  if (!row)
    return false;
  for (int64_t y = 0; y < d->h; y++)
    {
      const char *in = (const char *) src->data + y * src->stride;
      char *out = (char *) dst->data + y * dst->stride;
      const float *u = d->u + y * d->w * K;

      for (int64_t x = 0; x < d->w; x++)
        for (int c = 0; c < C; c++)
          {
            float v = c < K ? u[x * K + c] : 0.0f;

            if (!isfinite (v))
              v = 0.0f;
            if (d->o->clamp)
              v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
            row[x * C + c] = v;
          }
      if (d->o->transfer)
        cc_samples_encode (row, d->w * C, C, K, d->o->transfer, out);
      else
        cc_samples_from_float (row, d->w * C, dst->type, out);
      for (int c = 0; c < C; c++)
        if (c >= K || (c < 3 && d->o->keep_colour[c]))
          for (int64_t x = 0; x < d->w; x++)
            cc_sample_set (out, dst->type, x * C + c, cc_sample_get (in, src->type, x * C + c));
    }
  free (row);
  return true;
}

static void
step_progress (double fraction, void *data)
{
  const Deconv *d = data;

  d->o->progress (d->done + d->share * fraction, d->o->user_data);
}

static bool
step_cancel (void *data)
{
  const Deconv *d = data;

  return d->o->cancel (d->o->user_data);
}

/* out = mask (x) in, by the engine's own convolution on the CPU, with the
 * call's border; 'share' of the whole job. */
static CcStatus
convolve_planes (Deconv *d, const CcMask *mask, const float *in, float *out, double share,
                 CcResult *r)
{
  const int64_t stride = d->w * d->K * (int64_t) sizeof (float);
  const CcImage src = { (void *) in, CC_TYPE_FLOAT, d->K, d->w, d->h, stride, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, d->K, d->w, d->h, stride, false };
  CcOptions o;
  CcStatus status;

  cc_options_init (&o);
  o.method = CC_METHOD_CPU;
  o.border = d->o->border;
  o.clamp = false;
  o.alpha_weighting = false;
  o.progress = d->o->progress ? step_progress : NULL;
  o.cancel = d->o->cancel ? step_cancel : NULL;
  o.user_data = d;
  d->share = share;
  status = cc_convolve (d->ctx, &src, 0, 0, &dst, mask, &o, r);
  d->done += share;
  return status;
}

/* Point-wise steps, a range of rows each call (cc_workers_run). */
static void
divide_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;
  const int64_t n = d->w * d->K;

  /* t = f / (t + epsilon): where the estimate blurs to nothing (or, by
   * rounding, below it), nothing to restore. */
  for (int64_t i = y0 * n; i < y1 * n; i++)
    {
      const float c = d->t[i] + RL_EPSILON, q = d->f[i] / c;

      d->t[i] = c > 0.0f && isfinite (q) ? q : 0.0f;
    }
}

static void
multiply_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;
  const int64_t n = d->w * d->K;

  for (int64_t i = y0 * n; i < y1 * n; i++)
    d->u[i] *= d->g[i];
}

/* The total variation's normalised gradient of channel k at (x, y), by
 * forward differences, 0 past the last row and column. */
static inline void
unit_gradient (const Deconv *d, int64_t x, int64_t y, int k, float *px, float *py)
{
  const int K = d->K;
  const float *u = d->u + (y * d->w + x) * K + k;
  const float dx = x + 1 < d->w ? u[K] - u[0] : 0.0f;
  const float dy = y + 1 < d->h ? u[d->w * K] - u[0] : 0.0f;
  const float length = sqrtf (dx * dx + dy * dy + TV_EPSILON * TV_EPSILON);

  *px = dx / length;
  *py = dy / length;
}

/* u = u g / (1 - weight div (grad u / |grad u|)), the divergence by
 * backward differences; writes t first, since every pixel reads its
 * neighbours' u. */
static void
tv_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;
  const float weight = (float) d->p->tv_weight;

  for (int64_t y = y0; y < y1; y++)
    for (int64_t x = 0; x < d->w; x++)
      for (int k = 0; k < d->K; k++)
        {
          float px, py, lx = 0.0f, ly = 0.0f, unused;

          unit_gradient (d, x, y, k, &px, &py);
          if (x > 0)
            unit_gradient (d, x - 1, y, k, &lx, &unused);
          if (y > 0)
            unit_gradient (d, x, y - 1, k, &unused, &ly);
          d->t[(y * d->w + x) * d->K + k] = 1.0f - weight * (px - lx + py - ly);
        }
}

static void
tv_update_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;
  const int64_t n = d->w * d->K;

  /* The weight's bound keeps the denominator at or above 1 - 4 x 0.1. */
  for (int64_t i = y0 * n; i < y1 * n; i++)
    d->u[i] *= d->g[i] / d->t[i];
}

static CcStatus
richardson_lucy (Deconv *d, CcResult *r)
{
  const size_t n = (size_t) (d->w * d->h * d->K);
  const double share = 1.0 / (2.0 * d->p->iterations);
  CcStatus status;

  for (size_t i = 0; i < n; i++)
    {
      d->f[i] = d->f[i] > 0.0f ? d->f[i] : 0.0f;
      d->u[i] = d->p->start == CC_DECONVOLVE_START_FLAT ? 0.5f : d->f[i];
    }
  for (int k = 0; k < d->p->iterations; k++)
    {
      if ((status = convolve_planes (d, &d->blur, d->u, d->t, share, r)) != CC_OK)
        return status;
      cc_workers_run (d->workers, d->h, ROWS_GRAIN, divide_rows, d);
      if ((status = convolve_planes (d, &d->turned, d->t, d->g, share, r)) != CC_OK)
        return status;
      if (d->p->tv_weight > 0)
        {
          cc_workers_run (d->workers, d->h, ROWS_GRAIN, tv_rows, d);
          cc_workers_run (d->workers, d->h, ROWS_GRAIN, tv_update_rows, d);
        }
      else
        cc_workers_run (d->workers, d->h, ROWS_GRAIN, multiply_rows, d);
    }
  return CC_OK;
}

static bool
wiener_tick (double fraction, void *data)
{
  const Deconv *d = data;

  if (d->o->progress)
    d->o->progress (fraction, d->o->user_data);
  return d->o->cancel && d->o->cancel (d->o->user_data);
}

static CcStatus
wiener (Deconv *d, CcResult *r)
{
  const CcWienerJob job = { d->w, d->h, d->K, d->f, d->u, &d->blur, d->o->border,
                            d->p->noise, wiener_tick, d };

  return cc_wiener (&job, r);
}

CcStatus
cc_deconvolve (CcContext *ctx, const CcImage *src, const CcImage *dst, const CcMask *mask,
               const CcOptions *o, const CcDeconvolveParams *p, CcResult *r)
{
  const double t0 = cc_now_ms ();
  Deconv d = { 0 };
  double *values = NULL;
  CcStatus status;

  memset (r, 0, sizeof *r);
  if (!ctx)
    return cc_fail (r, CC_ERROR_INVALID, "no engine context");
  if ((status = check_params (p, r)) != CC_OK ||
      (status = cc_check_call (src, 0, 0, dst, mask, o, r)) != CC_OK)
    return status;
  if (dst->width != src->width || dst->height != src->height)
    return cc_fail (r, CC_ERROR_INVALID,
                    "deconvolution writes the whole %lldx%lld image, not %lldx%lld",
                    (long long) src->width, (long long) src->height,
                    (long long) dst->width, (long long) dst->height);
  if (src->on_device || dst->on_device)
    return cc_fail (r, CC_ERROR_UNSUPPORTED, "deconvolution takes images in host memory");
  if (o->method != CC_METHOD_AUTO && o->method != CC_METHOD_CPU)
    return cc_fail (r, CC_ERROR_UNSUPPORTED,
                    "deconvolution runs on the CPU (method auto or cpu), not %s",
                    cc_method_name (o->method));

  values = malloc (sizeof (double) * 2 * (size_t) (mask->width * mask->height));
  if (!values)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for the mask");
  if ((status = blur_masks (mask, p, values, &d.blur, &d.turned, r)) != CC_OK)
    goto out;

  d.ctx = ctx;
  d.o = o;
  d.p = p;
  d.w = src->width;
  d.h = src->height;
  d.K = restored_channels (src, o);
  {
    const size_t bytes = sizeof (float) * (size_t) (d.w * d.h * d.K);
    const bool rl = p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY;

    d.f = malloc (bytes);
    d.u = malloc (bytes);
    d.t = rl ? malloc (bytes) : NULL;
    d.g = rl ? malloc (bytes) : NULL;
    d.workers = rl ? cc_workers_new (ctx->threads) : NULL;
    if (!d.f || !d.u || (rl && (!d.t || !d.g)) || cc_fault ("cpu"))
      {
        status = cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                          "out of host memory for the deconvolution's planes (%zu MB each)",
                          bytes >> 20);
        goto out;
      }
  }
  if (!read_observed (&d, src))
    {
      status = cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for a row");
      goto out;
    }
  status = p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY ? richardson_lucy (&d, r)
                                                           : wiener (&d, r);
  if (status != CC_OK)
    goto out;
  if (!write_restored (&d, src, dst))
    {
      status = cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for a row");
      goto out;
    }
  r->method_used = CC_METHOD_CPU;
  snprintf (r->device, sizeof r->device, "%s", cc_context_cpu_name (ctx));
  if (p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY)
    snprintf (r->kernel, sizeof r->kernel, "cpu richardson-lucy, %d iterations%s",
              p->iterations, p->tv_weight > 0 ? ", total variation" : "");
  else
    snprintf (r->kernel, sizeof r->kernel, "cpu wiener");
  r->message[0] = '\0';
  if (d.non_finite)
    snprintf (r->message, sizeof r->message, "%lld non-finite source samples taken as 0",
              (long long) d.non_finite);
  r->strips = 1;

out:
  cc_workers_free (d.workers);
  free (d.f);
  free (d.u);
  free (d.t);
  free (d.g);
  free (values);
  r->status = status;
  r->total_ms = cc_now_ms () - t0;
  r->kernel_ms = r->total_ms;
  return status;
}
