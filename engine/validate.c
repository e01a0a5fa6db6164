/* Validation: what a call asks for is checked here, whatever the method,
 * and turned into a job for the back ends, whose progress and cancel
 * cc_job_tick reports and asks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

bool
cc_mask_check (const CcMask *mask, char *message, size_t size)
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
  if (!cc_mask_check (mask, m, n) || !image_is_valid (src, "source", m, n) ||
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
  if (!cc_method_takes_size (o->method, mask->width, mask->height, m, n))
    return cc_fail (result, CC_ERROR_UNSUPPORTED, "%s", m);
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

bool
cc_job_tick (const CcJob *job, double fraction)
{
  const CcOptions *o = job->options;

  if (o->progress)
    o->progress (fraction, o->user_data);
  return o->cancel && o->cancel (o->user_data);
}
