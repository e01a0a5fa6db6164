/* Deconvolution's front: checks the call, takes the colour channels to
 * float planes (linear light through the transfer), runs Richardson–Lucy
 * as convolutions by the engine itself (so each step takes whatever path
 * costs least: on the GPU its methods on device planes, on the CPU direct
 * sums, two passes or FFTW's tiles) with point-wise steps between them
 * (deconvolve-steps.h), or Wiener's filter (on the GPU kernels/wiener.cu,
 * on the CPU deconvolve-fft.c), and writes the result with alpha and the
 * kept channels as they were.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "deconvolve.h"
#include "deconvolve-steps.h"
#include "samples.h"
#include "setting-table.h"
/* Rows a worker takes at a time in the point-wise steps. */
#define ROWS_GRAIN 16

static const char *const algorithm_names[CC_DECONVOLVE_COUNT] = { "richardson-lucy", "wiener" };
static const char *const start_names[CC_DECONVOLVE_START_COUNT] = { "image", "flat" };

void
cc_deconvolve_params_init (CcDeconvolveParams *p)
{
  memset (p, 0, sizeof *p);
  p->algorithm = CC_SETTING_DEFAULT (ALGORITHM);
  p->iterations = CC_SETTING_DEFAULT (ITERATIONS);
  p->start = CC_SETTING_DEFAULT (INIT);
  p->tv_weight = CC_SETTING_DEFAULT (TV_WEIGHT);
  p->noise = CC_SETTING_DEFAULT (NOISE);
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
  int                       planes;     /* channels a plane holds: K, or on the GPU
                                           where K's do not fit, 1 */
  float                    *f;          /* the blurred image, K a pixel */
  float                    *u;          /* the estimate */
  float                    *t, *g;      /* the steps' planes */
  bool                      gpu;        /* the planes below are on the device */
  CcMethod                  method;     /* the GPU's convolutions' */
  CcGpuSource              *source;     /* the source on the device */
  float                    *dev[4];     /* f, u, t, g on the device */
  bool                      on_gpu;     /* the job ran there, and wrote dst */
  bool                      staged;     /* it ran there on host planes: u is dst's */
  int                       spectra_on_host; /* Wiener's steps' spectra in host memory */
  double                    t_read;     /* when the source was read */
  double                    t_restored; /* when the restoring was done */
  CcMethod                  ran;        /* what the last convolution took */
  bool                      folded;     /* the steps rode in fft's finish */
  CcMask                    blur;       /* scaled to sum 1 */
  CcMask                    turned;     /* the same turned half a turn: the adjoint */
  double                    done;       /* progress before the running step */
  double                    part;       /* the running strip's share of the whole */
  int                       strips;     /* the GPU's pieces of the image (1: whole) */
  double                    share;      /* the running step's part of the whole */
  int64_t                   non_finite; /* source samples taken as 0 */
  const CcImage            *src, *dst;
  CcJob                     store;      /* the output's row store: alpha and kept
                                           channels copied */
  bool                      row_failed; /* a worker had no memory for its row */
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

/* Whether 'mask' can be the blur: no offset, weights adding up to more than
 * 0, none negative for Richardson–Lucy; their sum in *sum. */
static CcStatus
check_blur (const CcMask *mask, const CcDeconvolveParams *p, double *sum, CcResult *r)
{
  const int n = mask->width * mask->height;
  int negative = 0;

  *sum = 0;
  if (mask->offset != 0)
    return cc_fail (r, CC_ERROR_INVALID,
                    "a blur has no offset; this mask's is %g", mask->offset);
  for (int i = 0; i < n; i++)
    {
      *sum += mask->values[i] / mask->divisor;
      negative += mask->values[i] / mask->divisor < 0;
    }
  if (p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY && negative)
    return cc_fail (r, CC_ERROR_INVALID,
                    "Richardson-Lucy takes no negative weights; this mask has %d", negative);
  if (!(*sum > 0) || !isfinite (*sum))
    return cc_fail (r, CC_ERROR_INVALID,
                    "a blur's weights add up to more than 0; this mask's add up to %g", *sum);
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
  double sum;
  CcStatus status;

  if ((status = check_blur (mask, p, &sum, r)) != CC_OK)
    return status;
  for (int i = 0; i < n; i++)
    {
      values[i] = mask->values[i] / mask->divisor / sum;
      values[2 * n - 1 - i] = values[i];
    }
  *blur = (CcMask) { mask->width, mask->height, values, 1.0, 0.0 };
  *turned = (CcMask) { mask->width, mask->height, values + n, 1.0, 0.0 };
  return CC_OK;
}

bool
cc_deconvolve_check (const CcMask *mask, const CcDeconvolveParams *params, char *message,
                     size_t size)
{
  CcResult r = { 0 };
  double sum;
  bool ok = check_params (params, &r) == CC_OK &&
            cc_mask_check (mask, r.message, sizeof r.message) &&
            check_blur (mask, params, &sum, &r) == CC_OK;

  if (size)
    snprintf (message, size, "%s", ok ? "" : r.message);
  return ok;
}

/* The colour channels restored (all but alpha), as floats in the scale the
 * convolution takes them. */
static int
restored_channels (const CcImage *src, const CcOptions *o)
{
  return src->channels - (o->has_alpha ? 1 : 0);
}

/* Reads rows y0..y1 of the source's restored channels into d->f, as
 * floats; non-finite samples are 0 (cc_workers_run). */
static void
read_rows (int64_t y0, int64_t y1, void *data)
{
  Deconv *d = data;
  const CcImage *src = d->src;
  const int C = src->channels, K = d->K;
  float *row = malloc (sizeof (float) * (size_t) (d->w * C));
  int64_t non_finite = 0;

  if (!row)
    {
      __atomic_store_n (&d->row_failed, true, __ATOMIC_RELAXED);
      return;
    }
  for (int64_t y = y0; y < y1; y++)
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

            non_finite += !isfinite (v);
            f[x * K + k] = isfinite (v) ? v : 0.0f;
          }
    }
  __atomic_fetch_add (&d->non_finite, non_finite, __ATOMIC_RELAXED);
  free (row);
}

/* Writes rows y0..y1 of the restored channels, clamped where the options
 * clamp, through the CPU path's row store: alpha and the kept channels
 * copied from the source exactly (d->store's modes); in place, from a copy
 * of the row taken before it is written over. */
static void
write_rows (int64_t y0, int64_t y1, void *data)
{
  Deconv *d = data;
  const int C = d->src->channels, K = d->K;
  const size_t row_bytes = (size_t) (d->w * C) * cc_type_size (d->src->type);
  const bool in_place = d->src->data == d->dst->data;
  float *row = malloc (sizeof (float) * (size_t) (d->w * C));
  char *kept = in_place ? malloc (row_bytes) : NULL;

  if (!row || (in_place && !kept))
    {
      __atomic_store_n (&d->row_failed, true, __ATOMIC_RELAXED);
      free (row);
      free (kept);
      return;
    }
  for (int64_t y = y0; y < y1; y++)
    {
      const float *u = d->u + y * d->w * K;
      const char *src_row = (const char *) d->src->data + y * d->src->stride;

      for (int64_t x = 0; x < d->w; x++)
        for (int c = 0; c < C; c++)
          {
            const float v = c < K && isfinite (u[x * K + c]) ? u[x * K + c] : 0.0f;

            row[x * C + c] = d->o->clamp ? cc_clamp01f (v) : v;
          }
      if (kept)
        memcpy (kept, src_row, row_bytes);
      cc_cpu_store_row_from (&d->store, 0, y, d->w, row, kept ? kept : src_row);
    }
  free (row);
  free (kept);
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

/* out = mask (x) in, by the engine's own convolution, on the GPU's device
 * planes or the CPU's, with the call's border; 'share' of the whole job. */
static CcStatus
convolve_planes (Deconv *d, const CcMask *mask, const float *in, float *out,
                 const CcFollow *follow, double share, CcResult *r)
{
  const int64_t stride = d->w * d->planes * (int64_t) sizeof (float);
  const CcImage src = { (void *) in, CC_TYPE_FLOAT, d->planes, d->w, d->h, stride, d->gpu };
  const CcImage dst = { out, CC_TYPE_FLOAT, d->planes, d->w, d->h, stride, d->gpu };
  CcOptions o;
  CcStatus status;

  cc_options_init (&o);
  o.method = d->gpu ? d->method : CC_METHOD_CPU;
  /* The planes hold colour alone, where black is 0. */
  o.border = d->o->border == CC_BORDER_BLACK ? CC_BORDER_ZERO : d->o->border;
  o.clamp = false;
  o.alpha_weighting = false;
  o.progress = d->o->progress ? step_progress : NULL;
  o.cancel = d->o->cancel ? step_cancel : NULL;
  o.user_data = d;
  d->share = share;
  status = cc_convolve_followed (d->ctx, &src, 0, 0, &dst, mask, &o, follow, r);
  d->ran = r->method_used;
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
    d->t[i] = cc_rl_quotient (d->f[i], d->t[i]);
}

static void
multiply_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;
  const int64_t n = d->w * d->K;

  for (int64_t i = y0 * n; i < y1 * n; i++)
    d->u[i] *= d->g[i];
}

/* t = total variation's denominators of u: every pixel reads its
 * neighbours' u, so u changes only after. */
static void
tv_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;

  for (int64_t y = y0; y < y1; y++)
    for (int64_t x = 0; x < d->w; x++)
      for (int k = 0; k < d->K; k++)
        d->t[(y * d->w + x) * d->K + k] =
          cc_tv_denominator (d->u, d->w, d->h, d->K, x, y, k, (float) d->p->tv_weight);
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

/* Richardson–Lucy's start on rows y0..y1 of the host planes: the image's
 * negative light as 0, the estimate flat or the image. */
static void
start_rows (int64_t y0, int64_t y1, void *data)
{
  const Deconv *d = data;
  const int64_t n = d->w * d->K;

  for (int64_t i = y0 * n; i < y1 * n; i++)
    {
      d->f[i] = d->f[i] > 0.0f ? d->f[i] : 0.0f;
      d->u[i] = d->p->start == CC_DECONVOLVE_START_FLAT ? 0.5f : d->f[i];
    }
}

static void
rl_start (Deconv *d)
{
  cc_workers_run (d->workers, d->h, ROWS_GRAIN, start_rows, d);
}

/* One iteration's point-wise steps: after the first convolution, and after
 * the second. */
static CcStatus
rl_divide (Deconv *d, CcResult *r)
{
  if (d->gpu)
    return cc_gpu_rl_divide (d->ctx->gpu, d->dev[2], d->dev[0], d->w * d->h * d->planes,
                             r->message, sizeof r->message);
  cc_workers_run (d->workers, d->h, ROWS_GRAIN, divide_rows, d);
  return CC_OK;
}

static CcStatus
rl_update (Deconv *d, CcResult *r)
{
  if (d->gpu)
    return cc_gpu_rl_update (d->ctx->gpu, d->dev[1], d->dev[3], d->dev[2], d->w, d->h,
                             d->planes, (float) d->p->tv_weight, r->message,
                             sizeof r->message);
  if (d->p->tv_weight > 0)
    {
      cc_workers_run (d->workers, d->h, ROWS_GRAIN, tv_rows, d);
      cc_workers_run (d->workers, d->h, ROWS_GRAIN, tv_update_rows, d);
    }
  else
    cc_workers_run (d->workers, d->h, ROWS_GRAIN, multiply_rows, d);
  return CC_OK;
}

/* One iteration on the planes.  On the GPU by fft without a total
 * variation, the point-wise steps ride in the convolutions' finish (t = f /
 * (u (x) blur), then u = u (t (x) turned)): two passes over three planes
 * fewer, the same arithmetic. */
static CcStatus
rl_iteration (Deconv *d, float *u, float *t, float *g, double share, CcResult *r)
{
  const CcFollow none = { CC_FOLLOW_NONE, NULL }, quotient = { CC_FOLLOW_QUOTIENT, d->dev[0] },
                 product = { CC_FOLLOW_PRODUCT, u };
  CcStatus status;

  if (d->folded)
    return (status = convolve_planes (d, &d->blur, u, t, &quotient, share, r)) != CC_OK
           ? status : convolve_planes (d, &d->turned, t, u, &product, share, r);
  if ((status = convolve_planes (d, &d->blur, u, t, &none, share, r)) != CC_OK ||
      (status = rl_divide (d, r)) != CC_OK ||
      (status = convolve_planes (d, &d->turned, t, g, &none, share, r)) != CC_OK)
    return status;
  return rl_update (d, r);
}

/* The iterations on the planes, for one group of channels of the job's
 * (progress runs on from d->done). */
static CcStatus
rl_iterate (Deconv *d, CcResult *r)
{
  const int groups = (d->K + d->planes - 1) / d->planes;
  const double share = d->part / (2.0 * d->p->iterations * groups);
  float *const u = d->gpu ? d->dev[1] : d->u, *const t = d->gpu ? d->dev[2] : d->t;
  float *const g = d->gpu ? d->dev[3] : d->g;
  CcStatus status = CC_OK;

  d->folded = d->gpu && d->method == CC_METHOD_FFT && d->p->tv_weight <= 0;
  for (int k = 0; k < d->p->iterations && status == CC_OK; k++)
    status = rl_iteration (d, u, t, g, share, r);
  return status;
}

static void
gpu_planes_free (Deconv *d)
{
  for (int i = 0; i < 4; i++)
    {
      if (d->dev[i])
        cc_device_free (d->ctx, d->dev[i]);
      d->dev[i] = NULL;
    }
  d->gpu = false;
}

static uint64_t
device_budget (Deconv *d)
{
  uint64_t budget;

  pthread_mutex_lock (&d->ctx->lock);
  budget = d->ctx->budget;
  pthread_mutex_unlock (&d->ctx->lock);
  return budget;
}

static size_t
source_bytes (const Deconv *d)
{
  return (size_t) (d->w * d->h * d->src->channels) * cc_type_size (d->src->type);
}

/* 'n' planes on the device, of d->planes channels each; with a device
 * budget, within 'share' of it with the source. */
static CcStatus
gpu_planes (Deconv *d, int n, double share, CcResult *r)
{
  const size_t bytes = sizeof (float) * (size_t) (d->w * d->h * d->planes);
  const uint64_t budget = device_budget (d);
  CcStatus status = CC_OK;

  if (budget && source_bytes (d) + n * bytes > budget * share)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "the deconvolution's source and %d plane%s "
                    "(%zu MB each) take more than %g of the device budget", n,
                    n == 1 ? "" : "s", bytes >> 20, share);
  for (int i = 0; i < n && status == CC_OK; i++)
    status = cc_device_alloc (d->ctx, bytes, (void **) &d->dev[i]);
  if (status != CC_OK)
    {
      gpu_planes_free (d);
      return cc_fail (r, status, "no room on the GPU for the deconvolution's %d plane%s "
                      "(%zu MB each)", n, n == 1 ? "" : "s", bytes >> 20);
    }
  d->gpu = true;
  return CC_OK;
}

/* The source up to the device, once, in its own samples (under the
 * context's lock: pageable rows cross through the scheduler's staging). */
static CcStatus
gpu_source_up (Deconv *d, CcResult *r)
{
  CcStatus status;

  pthread_mutex_lock (&d->ctx->lock);
  status = cc_gpu_source_up (d->ctx->gpu, d->src, d->o->transfer, d->K, &d->source,
                             r->message, sizeof r->message);
  pthread_mutex_unlock (&d->ctx->lock);
  return status;
}

/* The source down into dst where the job went well, and the device's
 * memory freed. */
static CcStatus
gpu_source_down (Deconv *d, CcStatus status, CcResult *r)
{
  d->t_restored = cc_now_ms ();
  if (status == CC_OK)
    {
      pthread_mutex_lock (&d->ctx->lock);
      status = cc_gpu_source_down (d->source, d->dst, &d->non_finite, r->message,
                                   sizeof r->message);
      pthread_mutex_unlock (&d->ctx->lock);
    }
  d->on_gpu = status == CC_OK;
  gpu_planes_free (d);
  cc_gpu_source_free (d->source);
  d->source = NULL;
  return status;
}

/* Richardson–Lucy on the GPU: the source up once in its own samples, its
 * colour channels restored together where their four planes fit (within
 * three quarters of a device budget, so that the convolutions keep room
 * for their own), else one at a time, each read, iterated and written back
 * there, and the result down once. */
static CcStatus
rl_gpu (Deconv *d, CcResult *r)
{
  const bool flat = d->p->start == CC_DECONVOLVE_START_FLAT;
  CcStatus status;

  if ((status = gpu_source_up (d, r)) != CC_OK)
    return status;
  d->planes = d->K;
  status = gpu_planes (d, 4, 0.75, r);
  if (status == CC_ERROR_OUT_OF_MEMORY && d->K > 1)
    {
      d->planes = 1;
      status = gpu_planes (d, 4, 0.75, r);
    }
  d->t_read = cc_now_ms ();
  for (int k0 = 0; k0 < d->K && status == CC_OK; k0 += d->planes)
    if ((status = cc_gpu_source_read (d->source, k0, d->planes, d->dev[0], d->dev[1], flat,
                                      r->message, sizeof r->message)) == CC_OK &&
        (status = rl_iterate (d, r)) == CC_OK)
      status = cc_gpu_source_write (d->source, d->dev[1], k0, d->planes, d->store.mode,
                                    d->o->clamp, r->message, sizeof r->message);
  return gpu_source_down (d, status, r);
}

/* The source's non-finite samples in rows y0..y1 of the restored channels
 * (which the strips' overlapping reads would count more than once). */
static int64_t
count_non_finite (const Deconv *d, int64_t y0, int64_t y1)
{
  const CcImage *src = d->src;
  const int C = src->channels;
  float *row;
  int64_t n = 0;

  if (src->type != CC_TYPE_HALF && src->type != CC_TYPE_FLOAT && src->type != CC_TYPE_DOUBLE)
    return 0;
  if (!(row = malloc (sizeof (float) * (size_t) (d->w * C))))
    return 0;
  for (int64_t y = y0; y < y1; y++)
    {
      cc_samples_to_float ((const char *) src->data + y * src->stride, src->type, 0,
                           d->w * C, row);
      for (int64_t x = 0; x < d->w; x++)
        for (int k = 0; k < d->K; k++)
          n += !isfinite (row[x * C + k]);
    }
  free (row);
  return n;
}

/* The rows an image of h rows restores in strips of 'rows' with margins of
 * H, each 'passes' times. */
static int64_t
strip_work (int64_t h, int64_t rows, int64_t H, int passes)
{
  return rows > 0 ? (h + rows - 1) / rows * (rows + 2 * H) * passes : INT64_MAX;
}

/* Richardson–Lucy on the GPU in strips of rows where the whole image does
 * not fit: each strip with a margin of the rows its iterations reach
 * (2 mask radii an iteration, and 1 for the total variation's gradient),
 * so that its own rows come out as the whole image's would; the strip's
 * source staged through host memory (dst may be src: the rows the next
 * strip still reads are kept first).  Sized by the device budget or the
 * GPU's free memory, each strip's planes within three quarters of it. */
static CcStatus
rl_gpu_strips (Deconv *d, CcResult *r)
{
  const CcImage *const src = d->src, *const dst = d->dst;
  const int64_t H = (int64_t) d->p->iterations *
                    (2 * ((d->blur.height - 1) / 2) + (d->p->tv_weight > 0 ? 1 : 0));
  const size_t row_bytes = (size_t) d->w * src->channels * cc_type_size (src->type);
  const uint64_t budget = device_budget (d), free_bytes = cc_gpu_memory_free (d->ctx->gpu);
  const uint64_t room = (uint64_t) (0.75 * (double) (budget ? budget : free_bytes));
  /* A row's source and four planes of all its channels, or of one (rl_gpu
   * takes a channel at a time where all do not fit): whichever restores
   * fewer rows, margins included. */
  const size_t plane_row = 4 * sizeof (float) * (size_t) d->w;
  const int64_t all = (int64_t) (room / (row_bytes + plane_row * d->K)) - 2 * H;
  const int64_t one = (int64_t) (room / (row_bytes + plane_row)) - 2 * H;
  const int64_t rows = all > 0 && strip_work (d->h, all, H, 1) <= strip_work (d->h, one, H, d->K)
                       ? all : one > 0 ? one : 0;
  const int64_t strips = rows ? (d->h + rows - 1) / rows : 0;
  const bool in_place = src->data == dst->data;
  char *in = NULL, *out = NULL, *kept = NULL;
  int64_t non_finite = 0;
  CcStatus status = CC_OK;

  if (strips < 2 || d->o->border == CC_BORDER_WRAP)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "%s", strips < 2 && rows
                    ? "the whole image's planes do not fit on the GPU"
                    : d->o->border == CC_BORDER_WRAP
                    ? "a wrapped image does not split into strips"
                    : "not even a strip of rows and its margins fits on the GPU");
  if (!(in = malloc (row_bytes * (size_t) (rows + 2 * H))) ||
      !(out = malloc (row_bytes * (size_t) (rows + 2 * H))) ||
      (in_place && !(kept = malloc (row_bytes * (size_t) H))))
    {
      status = cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for a strip's rows");
      goto out;
    }
  d->part = 1.0 / (double) strips;
  for (int64_t y0 = 0; y0 < d->h && status == CC_OK; y0 += rows)
    {
      const int64_t y1 = y0 + rows < d->h ? y0 + rows : d->h;
      const int64_t a = y0 - H > 0 ? y0 - H : 0, b = y1 + H < d->h ? y1 + H : d->h;
      const CcImage view_in = { in, src->type, src->channels, d->w, b - a,
                                (int64_t) row_bytes, false };
      const CcImage view_out = { out, src->type, src->channels, d->w, b - a,
                                 (int64_t) row_bytes, false };

      /* Rows above y0 were written by the strip before: kept's copy. */
      for (int64_t y = a; y < b; y++)
        memcpy (in + (y - a) * row_bytes, in_place && y < y0
                ? kept + (y - (y0 - H)) * row_bytes
                : (const char *) src->data + y * src->stride, row_bytes);
      non_finite += count_non_finite (d, y0, y1);
      d->src = &view_in;
      d->dst = &view_out;
      d->h = b - a;
      status = rl_gpu (d, r);
      d->src = src;
      d->dst = dst;
      d->h = src->height;
      if (status != CC_OK)
        break;
      if (in_place && y1 < d->h)
        for (int64_t y = y1 - H; y < y1; y++)
          memcpy (kept + (y - (y1 - H)) * row_bytes,
                  (const char *) src->data + y * src->stride, row_bytes);
      for (int64_t y = y0; y < y1; y++)
        memcpy ((char *) dst->data + y * dst->stride, out + (y - a) * row_bytes, row_bytes);
    }
  d->strips = (int) strips;
  d->non_finite = non_finite;
out:
  free (in);
  free (out);
  free (kept);
  d->part = 1.0;
  return status;
}

/* Whether the GPU can write this job's result (it writes the source's own
 * samples); if not, why. */
static CcStatus
gpu_usable (Deconv *d, char *why, size_t size)
{
  CcStatus status = cc_context_gpu_status (d->ctx, why, size);

  if (status != CC_OK)
    return status;
  if (d->dst->type != d->src->type)
    {
      snprintf (why, size, "the GPU writes the source's own sample type");
      return CC_ERROR_UNSUPPORTED;
    }
  return CC_OK;
}

/* Whether Richardson–Lucy can run on the GPU, and by which method
 * (d->method: 'auto' weighs the mask once a job, not once a convolution);
 * if not, why.  A device image has no constant border but 0, and the
 * planes' black is 0: white stays on the CPU. */
static CcStatus
gpu_method (Deconv *d, char *why, size_t size)
{
  CcStatus status = gpu_usable (d, why, size);

  if (status != CC_OK)
    return status;
  if (d->o->border == CC_BORDER_WHITE)
    {
      snprintf (why, size, "the GPU takes no white border");
      return CC_ERROR_UNSUPPORTED;
    }
  d->method = d->o->method == CC_METHOD_AUTO
              ? cc_method_resolve (d->ctx, CC_METHOD_AUTO, &d->blur, d->K, false)
              : d->o->method;
  if (d->method == CC_METHOD_CPU)
    {
      snprintf (why, size, "no GPU method takes a %dx%d mask", d->blur.width, d->blur.height);
      return CC_ERROR_UNSUPPORTED;
    }
  return CC_OK;
}

/* The source's restored channels as host planes of floats (d->f), and the
 * estimate's (d->u), for the paths on the CPU and Wiener's staged one (a
 * second call reads them again into the same planes). */
static CcStatus
host_planes (Deconv *d, CcResult *r)
{
  const size_t bytes = sizeof (float) * (size_t) (d->w * d->h * d->K);

  d->planes = d->K;
  d->non_finite = 0;
  if ((!d->f && !(d->f = malloc (bytes))) || (!d->u && !(d->u = malloc (bytes))) ||
      cc_fault ("cpu"))
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                    "out of host memory for the deconvolution's planes (%zu MB each)",
                    bytes >> 20);
  cc_workers_run (d->workers, d->h, ROWS_GRAIN, read_rows, d);
  if (d->row_failed)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for a row");
  d->t_read = cc_now_ms ();
  return CC_OK;
}

/* The GPU's ways for cc_run_gpu_or_cpu, the same for both algorithms:
 * Richardson–Lucy needs a GPU method that takes the mask, Wiener only a
 * GPU (its transforms are its own). */
static CcStatus
deconv_usable (void *data, char *why, size_t size)
{
  Deconv *d = data;

  return d->p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY ? gpu_method (d, why, size)
                                                           : gpu_usable (d, why, size);
}

/* Richardson–Lucy on the GPU, whole or, where its planes do not fit, in
 * strips. */
static CcStatus
rl_on_gpu (void *data, CcResult *r)
{
  Deconv *d = data;
  char why[sizeof r->message];
  CcStatus status;

  d->done = 0;
  if ((status = rl_gpu (d, r)) != CC_ERROR_OUT_OF_MEMORY)
    return status;
  snprintf (why, sizeof why, "%s", r->message);
  d->done = 0;
  if ((status = rl_gpu_strips (d, r)) == CC_ERROR_OUT_OF_MEMORY)
    cc_fail (r, status, "%.300s; in strips: %.300s", why, r->message);
  return status;
}

static CcStatus
rl_on_cpu (void *data, CcResult *r)
{
  Deconv *d = data;
  CcStatus status;

  if ((status = host_planes (d, r)) != CC_OK)
    return status;
  if (!(d->t = malloc (sizeof (float) * (size_t) (d->w * d->h * d->K))) ||
      !(d->g = malloc (sizeof (float) * (size_t) (d->w * d->h * d->K))))
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for the deconvolution's "
                    "planes");
  rl_start (d);
  d->done = 0;
  return rl_iterate (d, r);
}

static bool
wiener_tick (double fraction, void *data)
{
  const Deconv *d = data;

  if (d->o->progress)
    d->o->progress (fraction, d->o->user_data);
  return d->o->cancel && d->o->cancel (d->o->user_data);
}

static CcWienerJob
wiener_job (Deconv *d, const float *observed, float *restored)
{
  return (CcWienerJob) { d->w, d->h, d->K, observed, restored, &d->blur, d->o->border,
                         d->p->noise, d->ctx->threads, d->workers, wiener_tick, d };
}

/* Wiener on the GPU with the image's planes there: the source up once in
 * its own samples, read into one plane of its colour there, filtered in
 * place (kernels/wiener.cu: the canvas and its steps within the budget
 * left), written back and down once. */
static CcStatus
wiener_gpu_planes (Deconv *d, CcResult *r)
{
  const uint64_t budget = device_budget (d), source = source_bytes (d);
  CcWienerJob job;
  CcStatus status;

  d->planes = d->K;
  if ((status = gpu_source_up (d, r)) != CC_OK)
    return status;
  if ((status = gpu_planes (d, 1, 1.0, r)) == CC_OK)
    {
      job = wiener_job (d, d->dev[0], d->dev[0]);
      d->t_read = cc_now_ms ();
      if ((status = cc_gpu_source_read (d->source, 0, d->K, d->dev[0], NULL, false,
                                        r->message, sizeof r->message)) == CC_OK &&
          (status = cc_gpu_wiener (d->ctx->gpu, &job,
                                   budget ? (budget > source ? budget - source : 1) : 0,
                                   false, &d->spectra_on_host, r->message,
                                   sizeof r->message)) == CC_OK)
        status = cc_gpu_source_write (d->source, d->dev[0], 0, d->K, d->store.mode,
                                      d->o->clamp, r->message, sizeof r->message);
    }
  return gpu_source_down (d, status, r);
}

/* Wiener on the GPU with the image's planes in host memory, the CPU
 * path's (read and written there, as the CPU's are), which the kernels
 * read and write over the bus: where the source and its plane do not fit
 * beside the canvas.  Only the canvas must fit on the device. */
static CcStatus
wiener_gpu_staged (Deconv *d, CcResult *r)
{
  CcWienerJob job;
  CcStatus status;

  if ((status = host_planes (d, r)) != CC_OK)
    return status;
  job = wiener_job (d, d->f, d->u);
  status = cc_gpu_wiener (d->ctx->gpu, &job, device_budget (d), true, &d->spectra_on_host,
                          r->message, sizeof r->message);
  d->staged = d->on_gpu = status == CC_OK;
  return status;
}

/* Wiener on the GPU: its planes there, or where they do not fit, in host
 * memory. */
static CcStatus
wiener_gpu (void *data, CcResult *r)
{
  Deconv *d = data;
  char why[sizeof r->message];
  CcStatus status;

  /* The transforms are Wiener's own, of the fft method's kind. */
  d->ran = CC_METHOD_FFT;
  if ((status = wiener_gpu_planes (d, r)) != CC_ERROR_OUT_OF_MEMORY)
    return status;
  snprintf (why, sizeof why, "%s", r->message);
  if ((status = wiener_gpu_staged (d, r)) == CC_ERROR_OUT_OF_MEMORY)
    cc_fail (r, status, "%.300s; with its planes in host memory: %.300s", why, r->message);
  return status;
}

static CcStatus
wiener_on_cpu (void *data, CcResult *r)
{
  Deconv *d = data;
  CcWienerJob job;
  CcStatus status;

  if ((status = host_planes (d, r)) != CC_OK)
    return status;
  job = wiener_job (d, d->f, d->u);
  return cc_wiener (&job, r);
}

/* What ran, where, and what the caller should know. */
static void
tell_result (const Deconv *d, const char *note, CcResult *r)
{
  r->method_used = d->on_gpu ? d->ran : CC_METHOD_CPU;
  snprintf (r->device, sizeof r->device, "%s",
            d->on_gpu ? cc_context_device_name (d->ctx) : cc_context_cpu_name (d->ctx));
  if (d->p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY)
    snprintf (r->kernel, sizeof r->kernel, "%s richardson-lucy, %d iterations%s%s%s%s%s%s",
              d->on_gpu ? "gpu" : "cpu", d->p->iterations,
              d->p->tv_weight > 0 ? ", total variation" : "",
              d->on_gpu && d->strips > 1 ? ", in strips" : "",
              d->on_gpu && d->planes < d->K ? ", a channel at a time" : "",
              d->on_gpu ? " by " : "", d->on_gpu ? cc_method_name (d->ran) : "",
              d->on_gpu && d->folded ? ", the steps in its finish" : "");
  else
    {
      CcWienerCanvas c;
      const CcWienerJob job = { .width = d->w, .height = d->h, .channels = d->K,
                                .blur = &d->blur, .border = d->o->border };
      const int on_host = d->on_gpu ? d->spectra_on_host : 0;

      cc_wiener_canvas (&job, &c);
      snprintf (r->kernel, sizeof r->kernel, "%s wiener, %lldx%lld canvas%s%.0d%s%s",
                d->on_gpu ? "gpu" : "cpu", (long long) c.tx, (long long) c.ty,
                on_host ? ", " : "", on_host, on_host ? " spectra in host memory" : "",
                d->staged ? ", the planes in host memory" : "");
    }
  if (d->non_finite)
    snprintf (r->message, sizeof r->message, "%s%s%lld non-finite source samples taken as 0",
              note, note[0] ? "; " : "", (long long) d->non_finite);
  else
    snprintf (r->message, sizeof r->message, "%s", note);
}

CcStatus
cc_deconvolve (CcContext *ctx, const CcImage *src, const CcImage *dst, const CcMask *mask,
               const CcOptions *o, const CcDeconvolveParams *p, CcResult *r)
{
  const double t0 = cc_now_ms ();
  Deconv d = { 0 };
  double *values = NULL;
  char note[sizeof r->message] = "";
  CcOptions store_options;
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

  values = malloc (sizeof (double) * 2 * (size_t) (mask->width * mask->height));
  if (!values)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for the mask");
  if ((status = blur_masks (mask, p, values, &d.blur, &d.turned, r)) != CC_OK)
    goto out;

  d.ctx = ctx;
  d.o = o;
  d.p = p;
  d.src = src;
  store_options = *o;
  store_options.affect_alpha = false;
  cc_job_init (&d.store, src, 0, 0, dst, mask, &store_options);
  d.workers = cc_workers_new (ctx->threads - 1);
  d.w = src->width;
  d.h = src->height;
  d.K = restored_channels (src, o);
  d.dst = dst;
  d.part = 1.0;
  d.strips = 1;
  {
    const bool rl = p->algorithm == CC_DECONVOLVE_RICHARDSON_LUCY;
    const CcGpuOrCpu where = { deconv_usable, rl ? rl_on_gpu : wiener_gpu,
                               rl ? rl_on_cpu : wiener_on_cpu, &d, false };

    status = cc_run_gpu_or_cpu (o->method, &where, note, sizeof note, r);
  }
  if (status != CC_OK)
    goto out;
  if (!d.on_gpu || d.staged)
    {
      d.t_restored = cc_now_ms ();
      cc_workers_run (d.workers, d.h, ROWS_GRAIN, write_rows, &d);
      if (d.row_failed)
        {
          status = cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory for a row");
          goto out;
        }
    }
  tell_result (&d, note, r);
  r->strips = d.strips;
  r->upload_ms = d.t_read - t0;
  r->kernel_ms = d.t_restored - d.t_read;
  r->download_ms = cc_now_ms () - d.t_restored;

out:
  cc_workers_free (d.workers);
  free (d.f);
  free (d.u);
  free (d.t);
  free (d.g);
  free (values);
  r->status = status;
  r->total_ms = cc_now_ms () - t0;
  return status;
}
