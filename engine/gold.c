/* The CPU reference ("gold"): double precision, one thread, straight from
 * the definition in convolve.h, for the tests and the bench.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>

#include "engine.h"
#include "pixel.h"
#include "samples.h"

/* A source sample in the 0..1 scale, in linear light where a transfer
 * says colour samples are codes of an encoding. */
static double
load_sample (const CcImage *im, const CcOptions *o, int64_t x, int64_t y, int c)
{
  const char *row = (const char *) im->data + y * im->stride;
  const int colour = im->channels - (o->has_alpha ? 1 : 0);

  if (o->transfer && c < colour)
    return cc_transfer_decode (o->transfer, c,
                               im->type == CC_TYPE_U8
                                 ? ((const uint8_t *) row)[x * im->channels + c]
                                 : ((const uint16_t *) row)[x * im->channels + c]);
  return cc_sample_get (row, im->type, x * im->channels + c);
}

/* A sample at any coordinate: past the source, the border's ghost cell
 * (zero; black or white, colour 0 or 1 with alpha 1), or the pixel its
 * rule maps to. */
static double
gold_fetch (const CcImage *src, const CcOptions *o, int64_t x, int64_t y, int c)
{
  const bool constant = o->border == CC_BORDER_BLACK || o->border == CC_BORDER_WHITE;
  const int border = constant ? CC_BORDER_ZERO : o->border;
  int64_t mx = cc_border_index (x, src->width, border);
  int64_t my = cc_border_index (y, src->height, border);

  if (mx >= 0 && my >= 0)
    return load_sample (src, o, mx, my, c);
  if (!constant)
    return 0.0;
  return (o->has_alpha && c == src->channels - 1) || o->border == CC_BORDER_WHITE ? 1.0 : 0.0;
}

/* Channel c's samples at (x0 + x, y0 + y) for x < pw, y < ph, into out. */
static void
reach (const CcImage *src, const CcOptions *o, int64_t x0, int64_t y0, int64_t pw,
       int64_t ph, int c, double *out)
{
  for (int64_t y = 0; y < ph; y++)
    for (int64_t x = 0; x < pw; x++)
      out[y * pw + x] = gold_fetch (src, o, x0 + x, y0 + y, c);
}

/* The call's checks: the output is double, never the transfer's type, so
 * the call is checked without it, and the transfer against the source
 * alone. */
static CcStatus
gold_check (const CcImage *src, int64_t out_x, int64_t out_y, const CcImage *dst,
            const CcMask *mask, const CcOptions *o)
{
  CcResult result;
  CcStatus status;
  CcOptions plain = *o;

  plain.transfer = NULL;
  if ((status = cc_check_call (src, out_x, out_y, dst, mask, &plain, &result)) != CC_OK)
    return status;
  if (dst->type != CC_TYPE_DOUBLE || dst->on_device || src->on_device ||
      (o->transfer && cc_transfer_type (o->transfer) != src->type))
    return CC_ERROR_INVALID;
  return CC_OK;
}

/* What one channel's outputs read: the mask, and the channel's samples
 * (and alpha's, where weighting) over the rectangle the output reaches. */
typedef struct
{
  const CcMask *mask;
  double        sum_abs;   /* sum |mask| */
  const double *plane;
  const double *alpha;     /* NULL unless weighting */
  int64_t       pw;        /* the rectangle's width */
} GoldReach;

/* The output at (x, y) of a channel computed by 'mode', plain or
 * weighted, from its reach. */
static double
gold_sum (const GoldReach *r, int mode, const CcOptions *o, int64_t x, int64_t y)
{
  const CcMask *mask = r->mask;
  const int w = mask->width, h = mask->height;
  double plain = 0.0, kca = 0.0, wabs = 0.0, v;

  for (int j = 0; j < h; j++)
    {
      const double *k = mask->values + j * w;
      const double *s = r->plane + (y + j) * r->pw + x;
      const double *a = r->alpha ? r->alpha + (y + j) * r->pw + x : NULL;

      for (int i = 0; i < w; i++)
        {
          plain += k[i] * s[i];
          if (mode == CC_MODE_WEIGHTED)
            {
              kca  += k[i] * s[i] * a[i];
              wabs += fabs (k[i] * a[i]);
            }
        }
    }
  if (mode == CC_MODE_WEIGHTED && wabs != 0.0)
    plain = kca * r->sum_abs / wabs;
  v = plain / mask->divisor + mask->offset;
  if (o->clamp)
    v = cc_clamp01 (v);
  return v;
}

CcStatus
cc_convolve_gold (const CcImage *src, int64_t out_x, int64_t out_y,
                  const CcImage *dst, const CcMask *mask, const CcOptions *o)
{
  CcJob job;
  CcStatus status;
  int rx, ry;
  int64_t ph;
  double *plane, *alpha;
  GoldReach r = { .mask = mask, .sum_abs = 0.0 };

  if ((status = gold_check (src, out_x, out_y, dst, mask, o)) != CC_OK)
    return status;

  cc_job_init (&job, src, out_x, out_y, dst, mask, o);
  rx = (mask->width - 1) / 2;
  ry = (mask->height - 1) / 2;
  for (int i = 0; i < mask->width * mask->height; i++)
    r.sum_abs += fabs (mask->values[i]);

  /* Each channel's samples over the rectangle the output reaches, fetched
   * once each (and alpha's, for weighting), so that the sums read rows. */
  r.pw = dst->width + mask->width - 1;
  ph = dst->height + mask->height - 1;
  plane = malloc (sizeof (double) * r.pw * ph);
  alpha = job.weighted ? malloc (sizeof (double) * r.pw * ph) : NULL;
  if (!plane || (job.weighted && !alpha))
    {
      free (plane);
      free (alpha);
      return CC_ERROR_OUT_OF_MEMORY;
    }
  if (alpha)
    reach (src, o, out_x - rx, out_y - ry, r.pw, ph, job.alpha, alpha);
  r.plane = plane;
  r.alpha = alpha;

  for (int c = 0; c < job.channels; c++)
    {
      if (job.mode[c] != CC_MODE_COPY)
        reach (src, o, out_x - rx, out_y - ry, r.pw, ph, c, plane);
      for (int64_t y = 0; y < dst->height; y++)
        for (int64_t x = 0; x < dst->width; x++)
          ((double *) ((char *) dst->data + y * dst->stride))[x * job.channels + c] =
            job.mode[c] == CC_MODE_COPY ? load_sample (src, o, out_x + x, out_y + y, c)
                                        : gold_sum (&r, job.mode[c], o, x, y);
    }
  free (plane);
  free (alpha);
  return CC_OK;
}
