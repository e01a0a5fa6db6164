/* The engine's front: takes a checked call to the CPU path or the GPU
 * back end, choosing the GPU method for 'auto', with the options and
 * fallbacks that do not depend on the method.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "pixel.h"
#include "samples.h"

/* The mask's rank-1 terms, for the separable method, kept for the next call
 * with the same mask (a preview repeats it).  Called with ctx->lock held. */
static void
separate (CcContext *ctx, const CcMask *mask, CcJob *job)
{
  const int w = mask->width, h = mask->height;
  const size_t n = (size_t) w * h;

  if (!ctx->sep_mask || ctx->sep_w != w || ctx->sep_h != h ||
      memcmp (ctx->sep_mask, mask->values, sizeof (double) * n) != 0)
    {
      double *m = realloc (ctx->sep_mask, sizeof (double) * n);
      float *u = realloc (ctx->sep_u, sizeof (float) * CC_SEPARABLE_MAX_TERMS * h);
      float *v = realloc (ctx->sep_v, sizeof (float) * CC_SEPARABLE_MAX_TERMS * w);

      ctx->sep_mask = m;
      ctx->sep_u = u;
      ctx->sep_v = v;
      if (!m || !u || !v)
        {
          free (ctx->sep_mask);
          ctx->sep_mask = NULL;
          job->terms = 0;
          return;
        }
      memcpy (m, mask->values, sizeof (double) * n);
      ctx->sep_w = w;
      ctx->sep_h = h;
      ctx->sep_terms = cc_mask_separate (mask->values, w, h, CC_SEPARABLE_MAX_TERMS, u, v);
    }
  job->terms = ctx->sep_terms;
  job->sep_u = ctx->sep_u;
  job->sep_v = ctx->sep_v;
}

/* A job with only what the methods' checks look at. */
static void
probe_job (CcJob *job, const CcMask *mask, int channels, bool weighted)
{
  memset (job, 0, sizeof *job);
  job->channels = channels;
  job->mask_width = mask->width;
  job->mask_height = mask->height;
  job->weighted = weighted;
  job->alpha = weighted ? channels - 1 : -1;
}

CcStatus
cc_method_check (CcContext *ctx, CcMethod method, const CcMask *mask, int channels,
                 bool weighted, char *message, size_t size)
{
  CcJob job;
  CcStatus status;

  if (!cc_mask_check (mask, message, size))
    return CC_ERROR_INVALID;
  if ((unsigned) method >= CC_METHOD_COUNT)
    {
      snprintf (message, size, "unknown method %d", (int) method);
      return CC_ERROR_INVALID;
    }
  if (!cc_method_takes_size (method, mask->width, mask->height, message, size))
    return CC_ERROR_UNSUPPORTED;
  if (method == CC_METHOD_AUTO || method == CC_METHOD_CPU)
    return CC_OK;
  if (channels < 1 || channels > 4 || (weighted && channels < 2))
    {
      snprintf (message, size, "%d channels%s: 1 to 4 are supported, and alpha needs 2",
                channels, weighted ? " with alpha" : "");
      return CC_ERROR_INVALID;
    }
  if ((status = cc_context_gpu_status (ctx, message, size)) != CC_OK)
    return status;
  probe_job (&job, mask, channels, weighted);
  pthread_mutex_lock (&ctx->lock);
  if (method == CC_METHOD_SEPARABLE)
    separate (ctx, mask, &job);
  status = cc_gpu_check (ctx->gpu, method, &job, message, size);
  pthread_mutex_unlock (&ctx->lock);
  return status;
}

/* The GPU method 'auto' takes, as the method table weighs them: by
 * auto_order, first where the table's taps bounds hold the mask, then
 * ignoring them, then the last resorts; the CPU where no GPU method takes
 * a mask of its size. */
static CcMethod
auto_gpu_method (CcContext *ctx, const CcMask *mask, CcJob *job)
{
  const int taps = cc_mask_width_class (mask->width) * mask->height;
  char msg[8];

  if (!job->weighted)
    separate (ctx, mask, job);
  for (int pass = 0; pass < 3; pass++)
    for (int order = 1; order <= CC_METHOD_COUNT; order++)
      for (int m = 0; m < CC_METHOD_COUNT; m++)
        {
          const CcMethodInfo *info = &cc_methods[m];

          if (info->auto_order != order || info->auto_last_resort != (pass == 2) ||
              (info->auto_rank1 && (job->weighted || job->terms != 1)) ||
              !cc_method_takes_size ((CcMethod) m, mask->width, mask->height, msg, sizeof msg))
            continue;
          if (pass == 0)
            {
              const int min_taps = info->auto_min_taps_one_pass &&
                                   cc_gpu_one_pass (ctx->gpu, (CcMethod) m, job)
                                   ? info->auto_min_taps_one_pass : info->auto_min_taps;

              if ((min_taps && taps < min_taps) ||
                  (info->auto_max_taps && taps > info->auto_max_taps))
                continue;
            }
          if (cc_gpu_check (ctx->gpu, (CcMethod) m, job, msg, sizeof msg) == CC_OK)
            return (CcMethod) m;
        }
  return cc_method_takes_size (CC_METHOD_BASIC, mask->width, mask->height, msg, sizeof msg)
         ? CC_METHOD_BASIC : CC_METHOD_CPU;
}

CcMethod
cc_method_resolve (CcContext *ctx, CcMethod method, const CcMask *mask, int channels,
                   bool weighted)
{
  CcJob job;
  char why[8];

  if (method != CC_METHOD_AUTO)
    return method;
  if (!cc_mask_check (mask, why, sizeof why) ||
      cc_context_gpu_status (ctx, why, sizeof why) != CC_OK)
    return CC_METHOD_CPU;
  probe_job (&job, mask, channels, weighted);
  pthread_mutex_lock (&ctx->lock);
  method = auto_gpu_method (ctx, mask, &job);
  pthread_mutex_unlock (&ctx->lock);
  return method;
}

/* The CPU path, given the mask's terms where two passes could pay. */
static CcStatus
run_cpu (CcContext *ctx, const CcMask *mask, CcJob *job, CcResult *result)
{
  if (cc_cpu_two_passes_pay (mask->width, mask->height))
    separate (ctx, mask, job);
  return cc_cpu_run (ctx, job, result);
}

/* A black or white border as a source padded with its pixel (colour 0 or
 * 1, alpha 1) wherever the output's halo reaches past the source, so that
 * every method runs it as a zero border it never reaches.  The copy is of
 * the output's rectangle and halo only. */
static CcStatus
pad_constant_border (const CcImage *src, int64_t out_x, int64_t out_y, const CcImage *dst,
                     const CcMask *mask, const CcOptions *o, CcImage *padded,
                     CcResult *result)
{
  const int rx = (mask->width - 1) / 2, ry = (mask->height - 1) / 2, C = src->channels;
  const size_t size = cc_type_size (src->type), px = size * C;
  const int64_t x0 = out_x - rx, y0 = out_y - ry;
  const int64_t w = dst->width + 2 * rx, h = dst->height + 2 * ry;
  const int64_t lo = x0 < 0 ? 0 : x0;
  const int64_t hi = x0 + w > src->width ? src->width : x0 + w;
  const double colour = o->border == CC_BORDER_WHITE ? 1.0 : 0.0;
  char *ghost;

  if (src->on_device)
    return cc_fail (result, CC_ERROR_UNSUPPORTED,
                    "black and white borders need the source in host memory");
  *padded = *src;
  padded->width = w;
  padded->height = h;
  padded->stride = w * px;
  padded->data = malloc ((size_t) (padded->stride * h));
  ghost = malloc ((size_t) padded->stride);
  if (!padded->data || !ghost)
    {
      free (padded->data);
      free (ghost);
      return cc_fail (result, CC_ERROR_OUT_OF_MEMORY,
                      "out of host memory for the %s border's padding",
                      cc_border_name (o->border));
    }
  for (int64_t i = 0; i < w * C; i++)
    cc_sample_set (ghost, src->type, i,
                   o->has_alpha && i % C == C - 1 ? 1.0 : colour);
  for (int64_t y = 0; y < h; y++)
    {
      char *row = (char *) padded->data + y * padded->stride;
      const int64_t sy = y0 + y;

      memcpy (row, ghost, (size_t) padded->stride);
      if (sy >= 0 && sy < src->height && hi > lo)
        memcpy (row + (lo - x0) * px, (const char *) src->data + sy * src->stride + lo * px,
                (size_t) ((hi - lo) * px));
    }
  free (ghost);
  return CC_OK;
}

/* A convolution's three ways for cc_run_gpu_or_cpu: whether the GPU takes
 * it (which method, for 'auto' the one the mask suits), and the runs. */
typedef struct
{
  CcContext    *ctx;
  const CcMask *mask;
  CcJob        *job;
  CcMethod      method;
} Convolution;

static CcStatus
convolution_usable (void *data, char *why, size_t size)
{
  Convolution *c = data;
  const CcStatus gpu = cc_context_gpu_status (c->ctx, why, size);

  if (gpu != CC_OK)
    return gpu;
  if (c->method == CC_METHOD_AUTO)
    c->method = auto_gpu_method (c->ctx, c->mask, c->job);
  else if (c->method == CC_METHOD_SEPARABLE)
    separate (c->ctx, c->mask, c->job);
  if (c->method == CC_METHOD_CPU)
    {
      snprintf (why, size, "no GPU method takes a %dx%d mask", c->mask->width,
                c->mask->height);
      return CC_ERROR_UNSUPPORTED;
    }
  return CC_OK;
}

static CcStatus
convolution_gpu (void *data, CcResult *r)
{
  const Convolution *c = data;

  return cc_gpu_run (c->ctx->gpu, c->ctx->budget, c->method, c->job, r);
}

static CcStatus
convolution_cpu (void *data, CcResult *r)
{
  const Convolution *c = data;

  return run_cpu (c->ctx, c->mask, c->job, r);
}

CcStatus
cc_convolve (CcContext *ctx, const CcImage *src, int64_t out_x, int64_t out_y,
             const CcImage *dst, const CcMask *mask, const CcOptions *o,
             CcResult *result)
{
  const CcFollow none = { CC_FOLLOW_NONE, NULL };

  return cc_convolve_followed (ctx, src, out_x, out_y, dst, mask, o, &none, result);
}

CcStatus
cc_convolve_followed (CcContext *ctx, const CcImage *src, int64_t out_x, int64_t out_y,
                      const CcImage *dst, const CcMask *mask, const CcOptions *o,
                      const CcFollow *follow, CcResult *result)
{
  CcJob job;
  CcStatus status;
  float *maskf;
  double t0 = cc_now_ms ();
  bool on_device;

  memset (result, 0, sizeof *result);
  if (!ctx)
    return cc_fail (result, CC_ERROR_INVALID, "no engine context");
  if ((status = cc_check_call (src, out_x, out_y, dst, mask, o, result)) != CC_OK)
    return status;

  if (cc_border_is_constant (o->border))
    {
      const int rx = (mask->width - 1) / 2, ry = (mask->height - 1) / 2;
      CcOptions zero = *o;
      CcImage padded;

      zero.border = CC_BORDER_ZERO;
      if (out_x - rx >= 0 && out_y - ry >= 0 && out_x + dst->width + rx <= src->width &&
          out_y + dst->height + ry <= src->height)
        return cc_convolve_followed (ctx, src, out_x, out_y, dst, mask, &zero, follow,
                                     result);
      if ((status = pad_constant_border (src, out_x, out_y, dst, mask, o, &padded, result))
          != CC_OK)
        return status;
      status = cc_convolve_followed (ctx, &padded, rx, ry, dst, mask, &zero, follow, result);
      free (padded.data);
      result->total_ms = cc_now_ms () - t0;
      return status;
    }

  on_device = src->on_device || dst->on_device;
  if (follow->step != CC_FOLLOW_NONE && !dst->on_device)
    return cc_fail (result, CC_ERROR_INVALID,
                    "a deconvolution step follows a convolution into device planes only");
  if (o->method == CC_METHOD_CPU && on_device)
    return cc_fail (result, CC_ERROR_INVALID,
                    "the cpu method needs images in host memory");

  maskf = malloc (sizeof (float) * mask->width * mask->height);
  if (!maskf)
    return cc_fail (result, CC_ERROR_OUT_OF_MEMORY, "out of host memory for the mask");
  cc_job_init (&job, src, out_x, out_y, dst, mask, o);
  job.follow = *follow;
  for (int i = 0; i < mask->width * mask->height; i++)
    {
      maskf[i] = (float) mask->values[i];
      job.sum_abs += fabsf (maskf[i]);
    }
  job.mask = maskf;

  pthread_mutex_lock (&ctx->lock);
  {
    Convolution c = { ctx, mask, &job, o->method };
    const CcGpuOrCpu where = { convolution_usable, convolution_gpu, convolution_cpu, &c,
                               on_device };
    char note[sizeof result->message];

    status = cc_run_gpu_or_cpu (o->method, &where, note, sizeof note, result);
    if (status == CC_OK && note[0])
      snprintf (result->message, sizeof result->message, "%s", note);
  }
  pthread_mutex_unlock (&ctx->lock);
  free (maskf);

  result->status = status;
  result->total_ms = cc_now_ms () - t0;
  return status;
}
