/* The engine's front: checks a call, turns it into a job and hands it to the
 * CPU path or the GPU back end.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "pixel.h"
#include "samples.h"

static const char *const border_names[CC_BORDER_COUNT] =
  { "zero", "extend", "wrap", "mirror", "black", "white" };

/* GEGL's names for the same borders (its abyss policies). */
#define CC_BORDER_ALIASES 3
static const char *const border_aliases[CC_BORDER_ALIASES] = { "none", "clamp", "loop" };
static const CcBorder border_alias_of[CC_BORDER_ALIASES] =
  { CC_BORDER_ZERO, CC_BORDER_EXTEND, CC_BORDER_WRAP };

static const char *const type_names[CC_TYPE_COUNT] =
  { "u8", "u16", "u32", "half", "float", "double" };

static const size_t type_sizes[CC_TYPE_COUNT] = { 1, 2, 4, 2, 4, 8 };

/* A table of n names as one comma-separated string, made once. */
static const char *
join_names (const char *const *names, int n, char *buf, size_t size)
{
  size_t used = 0;

  for (int i = 0; i < n && used < size; i++)
    used += (size_t) snprintf (buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
  return buf;
}

static char method_list[128], border_list[128];

static void
make_lists (void)
{
  const char *method_names[CC_METHOD_COUNT];

  for (int m = 0; m < CC_METHOD_COUNT; m++)
    method_names[m] = cc_methods[m].name;
  join_names (method_names, CC_METHOD_COUNT, method_list, sizeof method_list);
  join_names (border_names, CC_BORDER_COUNT, border_list, sizeof border_list);
}

static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

const char *
cc_method_names (void)
{
  pthread_once (&lists_once, make_lists);
  return method_list;
}

const char *
cc_border_names (void)
{
  pthread_once (&lists_once, make_lists);
  return border_list;
}

/* Where 'name' stands in a table of n names, or -1. */
static int
name_index (const char *name, const char *const *names, int n)
{
  for (int i = 0; name && i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

const char *
cc_method_name (CcMethod method)
{
  return (unsigned) method < CC_METHOD_COUNT ? cc_methods[method].name : "?";
}

bool
cc_method_from_name (const char *name, CcMethod *method)
{
  for (int m = 0; name && m < CC_METHOD_COUNT; m++)
    if (strcmp (name, cc_methods[m].name) == 0)
      {
        *method = (CcMethod) m;
        return true;
      }
  return false;
}

bool
cc_method_is_gpu (CcMethod method)
{
  return (unsigned) method < CC_METHOD_COUNT && cc_methods[method].gpu;
}

const char *
cc_border_name (CcBorder border)
{
  return (unsigned) border < CC_BORDER_COUNT ? border_names[border] : "?";
}

bool
cc_border_from_name (const char *name, CcBorder *border)
{
  int i = name_index (name, border_names, CC_BORDER_COUNT);

  if (i >= 0)
    *border = (CcBorder) i;
  else if ((i = name_index (name, border_aliases, CC_BORDER_ALIASES)) >= 0)
    *border = border_alias_of[i];
  return i >= 0;
}

const char *
cc_type_name (CcType type)
{
  return (unsigned) type < CC_TYPE_COUNT ? type_names[type] : "?";
}

bool
cc_type_from_name (const char *name, CcType *type)
{
  const int i = name_index (name, type_names, CC_TYPE_COUNT);

  if (i >= 0)
    *type = (CcType) i;
  return i >= 0;
}

size_t
cc_type_size (CcType type)
{
  return (unsigned) type < CC_TYPE_COUNT ? type_sizes[type] : 0;
}

const char *
cc_status_name (CcStatus status)
{
  switch (status)
    {
    case CC_OK:                   return "ok";
    case CC_ERROR_INVALID:        return "invalid argument";
    case CC_ERROR_NO_DRIVER:      return "no NVIDIA driver";
    case CC_ERROR_DRIVER_TOO_OLD: return "NVIDIA driver too old";
    case CC_ERROR_NO_GPU:         return "no GPU";
    case CC_ERROR_OUT_OF_MEMORY:  return "out of memory";
    case CC_ERROR_UNSUPPORTED:    return "unsupported";
    case CC_ERROR_CANCELLED:      return "cancelled";
    case CC_ERROR_GPU:            return "GPU error";
    }
  return "?";
}

CcStatus
cc_fail (CcResult *result, CcStatus status, const char *format, ...)
{
  va_list args;

  result->status = status;
  va_start (args, format);
  vsnprintf (result->message, sizeof result->message, format, args);
  va_end (args);
  return status;
}

double
cc_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

bool
cc_job_tick (const CcJob *job, double fraction)
{
  const CcOptions *o = job->options;

  if (o->progress)
    o->progress (fraction, o->user_data);
  return o->cancel && o->cancel (o->user_data);
}

int
cc_mask_width_class (int width)
{
  static const int classes[] = { 1, 3, 5, 7, 9, 15, 25, 31, 63, 127 };

  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (width <= classes[i])
      return classes[i];
  return 0;
}

void
cc_options_init (CcOptions *options)
{
  memset (options, 0, sizeof *options);
  options->method          = CC_METHOD_AUTO;
  options->border          = CC_BORDER_EXTEND;
  options->clamp           = true;
  options->alpha_weighting = true;
  options->affect_alpha    = true;
}

/* Black and white are ghost cells as zero is; the front pads the source
 * with their pixel (pad_constant_border), so no back end sees them. */
static bool
border_is_constant (CcBorder border)
{
  return border == CC_BORDER_BLACK || border == CC_BORDER_WHITE;
}

int64_t
cc_border_map (int64_t i, int64_t n, CcBorder border)
{
  return cc_border_index (i, n, border_is_constant (border) ? CC_BORDER_ZERO : border);
}

void
cc_mask_normalize (CcMask *mask)
{
  double sum = 0.0;

  for (int i = 0; i < mask->width * mask->height; i++)
    sum += mask->values[i];
  if (sum > 0)
    mask->divisor = sum;
  else if (sum < 0)
    {
      mask->divisor = -sum;
      mask->offset  = 1.0;
    }
  else
    {
      mask->divisor = 1.0;
      mask->offset  = 0.5;
    }
}

CcContext *
cc_context_new (void)
{
  CcContext *ctx = calloc (1, sizeof *ctx);
  CcEnv env;
  long n;

  if (!ctx)
    return NULL;
  pthread_mutex_init (&ctx->lock, NULL);
  cc_env_read (&env);

  n = env.threads ? env.threads : sysconf (_SC_NPROCESSORS_ONLN);
  ctx->threads = n < 1 ? 1 : n > 256 ? 256 : (int) n;
  snprintf (ctx->cpu_name, sizeof ctx->cpu_name, "CPU (%d thread%s)",
            ctx->threads, ctx->threads == 1 ? "" : "s");
  ctx->budget = env.device_budget;
  ctx->gpu = cc_gpu_new (&env);
  return ctx;
}

void
cc_context_free (CcContext *ctx)
{
  if (!ctx)
    return;
  cc_gpu_free (ctx->gpu);
  free (ctx->sep_mask);
  free (ctx->sep_u);
  free (ctx->sep_v);
  pthread_mutex_destroy (&ctx->lock);
  free (ctx);
}

CcStatus
cc_context_gpu_status (CcContext *ctx, char *message, size_t size)
{
  return cc_gpu_status (ctx->gpu, message, size);
}

const char *
cc_context_device_name (CcContext *ctx)
{
  char buf[8];

  if (cc_gpu_status (ctx->gpu, buf, sizeof buf) == CC_OK)
    return cc_gpu_name (ctx->gpu);
  return ctx->cpu_name;
}

void
cc_context_set_device_budget (CcContext *ctx, uint64_t bytes)
{
  pthread_mutex_lock (&ctx->lock);
  ctx->budget = bytes;
  pthread_mutex_unlock (&ctx->lock);
}

static bool
mask_is_valid (const CcMask *mask, char *message, size_t size)
{
  if (!mask || !mask->values)
    {
      snprintf (message, size, "no mask given");
      return false;
    }
  if (mask->width < 1 || mask->width > CC_MASK_MAX || !(mask->width & 1) ||
      mask->height < 1 || mask->height > CC_MASK_MAX || !(mask->height & 1))
    {
      snprintf (message, size,
                "mask size %dx%d: width and height must be odd, 1 to %d",
                mask->width, mask->height, CC_MASK_MAX);
      return false;
    }
  for (int i = 0; i < mask->width * mask->height; i++)
    if (!isfinite (mask->values[i]))
      {
        snprintf (message, size, "mask value %d (row %d, column %d) is not a finite number",
                  i, i / mask->width + 1, i % mask->width + 1);
        return false;
      }
  if (!isfinite (mask->divisor) || mask->divisor == 0.0)
    {
      snprintf (message, size, "the divisor must be a non-zero finite number");
      return false;
    }
  if (!isfinite (mask->offset))
    {
      snprintf (message, size, "the offset must be a finite number");
      return false;
    }
  return true;
}

static bool
image_is_valid (const CcImage *im, const char *what, char *message, size_t size)
{
  if (!im || !im->data)
    {
      snprintf (message, size, "%s: no pixels given", what);
      return false;
    }
  if ((unsigned) im->type >= CC_TYPE_COUNT)
    {
      snprintf (message, size, "%s: unknown sample type %d", what, (int) im->type);
      return false;
    }
  if (im->channels < 1 || im->channels > 4)
    {
      snprintf (message, size, "%s: %d channels; 1 to 4 are supported", what, im->channels);
      return false;
    }
  if (im->width < 1 || im->height < 1 || im->width > INT32_MAX || im->height > INT32_MAX)
    {
      snprintf (message, size, "%s: size %lldx%lld is out of range", what,
                (long long) im->width, (long long) im->height);
      return false;
    }
  if (im->stride < im->width * im->channels * (int64_t) cc_type_size (im->type) ||
      im->stride % (int64_t) cc_type_size (im->type) != 0)
    {
      snprintf (message, size,
                "%s: row stride %lld must hold a row and be a multiple of the sample size",
                what, (long long) im->stride);
      return false;
    }
  return true;
}

CcStatus
cc_check_call (const CcImage *src, int64_t out_x, int64_t out_y, const CcImage *dst,
                  const CcMask *mask, const CcOptions *o, CcResult *result)
{
  char m[sizeof result->message];
  size_t n = sizeof m;

  if (!o)
    return cc_fail (result, CC_ERROR_INVALID, "no options given");
  if (!mask_is_valid (mask, m, n) || !image_is_valid (src, "source", m, n) ||
      !image_is_valid (dst, "output", m, n))
    return cc_fail (result, CC_ERROR_INVALID, "%s", m);
  if (src->channels != dst->channels)
    return cc_fail (result, CC_ERROR_INVALID,
                    "source has %d channels, output %d: they must match",
                    src->channels, dst->channels);
  if (out_x < 0 || out_y < 0 || out_x + dst->width > src->width ||
      out_y + dst->height > src->height)
    return cc_fail (result, CC_ERROR_INVALID,
                    "output rectangle %lldx%lld at (%lld,%lld) is not inside the %lldx%lld source",
                    (long long) dst->width, (long long) dst->height,
                    (long long) out_x, (long long) out_y,
                    (long long) src->width, (long long) src->height);
  if ((unsigned) o->border >= CC_BORDER_COUNT)
    return cc_fail (result, CC_ERROR_INVALID, "unknown border mode %d", (int) o->border);
  if ((unsigned) o->method >= CC_METHOD_COUNT)
    return cc_fail (result, CC_ERROR_INVALID, "unknown method %d", (int) o->method);
  if (o->has_alpha && src->channels < 2)
    return cc_fail (result, CC_ERROR_INVALID,
                    "an image with alpha needs at least 2 channels");
  if (o->transfer)
    {
      const CcTransfer *t = o->transfer;
      const int colour = src->channels - (o->has_alpha ? 1 : 0);

      if (src->type != t->type || dst->type != t->type)
        return cc_fail (result, CC_ERROR_INVALID,
                        "the transfer tables are for %s samples; the source is %s and "
                        "the output %s", cc_type_name (t->type), cc_type_name (src->type),
                        cc_type_name (dst->type));
      if (t->curves != 1 && t->curves != colour)
        return cc_fail (result, CC_ERROR_INVALID,
                        "the transfer tables have %d curves for %d colour channels",
                        t->curves, colour);
    }
  return CC_OK;
}

void
cc_job_init (CcJob *job, const CcImage *src, int64_t out_x, int64_t out_y,
             const CcImage *dst, const CcMask *mask, const CcOptions *o)
{
  memset (job, 0, sizeof *job);
  job->src         = src;
  job->dst         = dst;
  job->out_x       = out_x;
  job->out_y       = out_y;
  job->channels    = src->channels;
  job->mask_width  = mask->width;
  job->mask_height = mask->height;
  job->inv_divisor = (float) (1.0 / mask->divisor);
  job->offset      = (float) mask->offset;
  job->border      = o->border;
  job->clamp       = o->clamp;
  job->alpha       = o->has_alpha ? src->channels - 1 : -1;
  job->colour      = src->channels - (o->has_alpha ? 1 : 0);
  job->transfer    = o->transfer;
  job->options     = o;
  for (int c = 0; c < src->channels; c++)
    {
      if (c == job->alpha)
        job->mode[c] = o->affect_alpha ? CC_MODE_PLAIN : CC_MODE_COPY;
      else if (c < 3 && o->keep_colour[c])
        job->mode[c] = CC_MODE_COPY;
      else
        job->mode[c] = o->has_alpha && o->alpha_weighting ? CC_MODE_WEIGHTED
                                                          : CC_MODE_PLAIN;
      job->weighted |= job->mode[c] == CC_MODE_WEIGHTED;
    }
}

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

CcStatus
cc_method_check (CcContext *ctx, CcMethod method, const CcMask *mask, int channels,
                 bool weighted, char *message, size_t size)
{
  CcJob job;
  CcStatus status;

  if (!mask_is_valid (mask, message, size))
    return CC_ERROR_INVALID;
  if (method == CC_METHOD_AUTO || method == CC_METHOD_CPU)
    return CC_OK;
  if ((unsigned) method >= CC_METHOD_COUNT)
    {
      snprintf (message, size, "unknown method %d", (int) method);
      return CC_ERROR_INVALID;
    }
  if (channels < 1 || channels > 4 || (weighted && channels < 2))
    {
      snprintf (message, size, "%d channels%s: 1 to 4 are supported, and alpha needs 2",
                channels, weighted ? " with alpha" : "");
      return CC_ERROR_INVALID;
    }
  memset (&job, 0, sizeof job);
  job.channels = channels;
  job.mask_width = mask->width;
  job.mask_height = mask->height;
  job.weighted = weighted;
  job.alpha = weighted ? channels - 1 : -1;
  pthread_mutex_lock (&ctx->lock);
  if (method == CC_METHOD_SEPARABLE)
    separate (ctx, mask, &job);
  status = cc_gpu_check (ctx->gpu, method, &job, message, size);
  pthread_mutex_unlock (&ctx->lock);
  return status;
}

/* The GPU method 'auto' takes, as the method table weighs them: by
 * auto_order, first where the table's taps bounds hold the mask, then
 * ignoring them, then the last resorts. */
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
              (pass == 0 && ((info->auto_min_taps && taps < info->auto_min_taps) ||
                             (info->auto_max_taps && taps > info->auto_max_taps))))
            continue;
          if (cc_gpu_check (ctx->gpu, (CcMethod) m, job, msg, sizeof msg) == CC_OK)
            return (CcMethod) m;
        }
  return CC_METHOD_BASIC;
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

CcStatus
cc_convolve (CcContext *ctx, const CcImage *src, int64_t out_x, int64_t out_y,
             const CcImage *dst, const CcMask *mask, const CcOptions *o,
             CcResult *result)
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

  if (border_is_constant (o->border))
    {
      const int rx = (mask->width - 1) / 2, ry = (mask->height - 1) / 2;
      CcOptions zero = *o;
      CcImage padded;

      zero.border = CC_BORDER_ZERO;
      if (out_x - rx >= 0 && out_y - ry >= 0 && out_x + dst->width + rx <= src->width &&
          out_y + dst->height + ry <= src->height)
        return cc_convolve (ctx, src, out_x, out_y, dst, mask, &zero, result);
      if ((status = pad_constant_border (src, out_x, out_y, dst, mask, o, &padded, result))
          != CC_OK)
        return status;
      status = cc_convolve (ctx, &padded, rx, ry, dst, mask, &zero, result);
      free (padded.data);
      result->total_ms = cc_now_ms () - t0;
      return status;
    }

  on_device = src->on_device || dst->on_device;
  if (o->method == CC_METHOD_CPU && on_device)
    return cc_fail (result, CC_ERROR_INVALID,
                    "the cpu method needs images in host memory");

  maskf = malloc (sizeof (float) * mask->width * mask->height);
  if (!maskf)
    return cc_fail (result, CC_ERROR_OUT_OF_MEMORY, "out of host memory for the mask");
  cc_job_init (&job, src, out_x, out_y, dst, mask, o);
  for (int i = 0; i < mask->width * mask->height; i++)
    {
      maskf[i] = (float) mask->values[i];
      job.sum_abs += fabsf (maskf[i]);
    }
  job.mask = maskf;

  pthread_mutex_lock (&ctx->lock);
  if (o->method == CC_METHOD_CPU)
    status = run_cpu (ctx, mask, &job, result);
  else
    {
      char why[sizeof result->message];
      CcStatus gpu = cc_gpu_status (ctx->gpu, why, sizeof why);
      CcMethod method = o->method;

      if (gpu != CC_OK && (method != CC_METHOD_AUTO || on_device))
        status = cc_fail (result, gpu, "%s", why);
      else if (gpu != CC_OK)
        {
          status = run_cpu (ctx, mask, &job, result);
          if (status == CC_OK)
            snprintf (result->message, sizeof result->message,
                      "no GPU used: %.400s", why);
        }
      else
        {
          if (method == CC_METHOD_AUTO)
            method = auto_gpu_method (ctx, mask, &job);
          else if (method == CC_METHOD_SEPARABLE)
            separate (ctx, mask, &job);
          status = cc_gpu_run (ctx->gpu, ctx->budget, method, &job, result);
          if (status != CC_OK && o->method == CC_METHOD_AUTO && !on_device &&
              (status == CC_ERROR_OUT_OF_MEMORY || status == CC_ERROR_GPU))
            {
              /* 'auto' promises a result: take the CPU and say why. */
              snprintf (why, sizeof why, "%s", result->message);
              status = run_cpu (ctx, mask, &job, result);
              if (status == CC_OK)
                snprintf (result->message, sizeof result->message,
                          "fell back to the CPU: %.400s", why);
            }
        }
    }
  pthread_mutex_unlock (&ctx->lock);
  free (maskf);

  result->status = status;
  result->total_ms = cc_now_ms () - t0;
  return status;
}

CcStatus
cc_device_alloc (CcContext *ctx, size_t bytes, void **ptr)
{
  char msg[256];

  return cc_gpu_alloc (ctx->gpu, bytes, ptr, msg, sizeof msg);
}

void
cc_device_free (CcContext *ctx, void *ptr)
{
  cc_gpu_release (ctx->gpu, ptr);
}

CcStatus
cc_device_copy (CcContext *ctx, void *dst, const void *src, size_t bytes,
                bool to_device)
{
  char msg[256];

  (void) to_device;   /* unified addressing tells the direction */
  return cc_gpu_copy (ctx->gpu, dst, src, bytes, msg, sizeof msg);
}

void *
cc_host_alloc (CcContext *ctx, size_t bytes)
{
  void *ptr = ctx ? cc_gpu_host_alloc (ctx->gpu, bytes) : NULL;

  return ptr ? ptr : malloc (bytes);
}

void
cc_host_free (CcContext *ctx, void *ptr)
{
  if (ptr && !(ctx && cc_gpu_host_free (ctx->gpu, ptr)))
    free (ptr);
}
