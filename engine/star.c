/* A blur's mask taken from a point source (a star, a distant light): the
 * region about it less its background, centred on its centroid, cut to
 * its support and scaled to sum 1 (docs/estimate.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static int
compare_float (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

/* The background's level and its noise (the median and 1.4826 times the
 * median absolute deviation) on the region's outer ring. */
static bool
ring_level (const float *p, int n, double *level, double *noise)
{
  float *ring = malloc (sizeof *ring * 4 * n);
  int m = 0;

  if (!ring)
    return false;
  for (int i = 0; i < n; i++)
    {
      ring[m++] = p[i];
      ring[m++] = p[(n - 1) * n + i];
      if (i > 0 && i < n - 1)
        {
          ring[m++] = p[i * n];
          ring[m++] = p[i * n + n - 1];
        }
    }
  qsort (ring, m, sizeof *ring, compare_float);
  *level = ring[m / 2];
  for (int i = 0; i < m; i++)
    ring[i] = fabsf (ring[i] - (float) *level);
  qsort (ring, m, sizeof *ring, compare_float);
  *noise = 1.4826 * ring[m / 2];
  free (ring);
  return true;
}

/* Lanczos's kernel of three lobes. */
static double
lanczos3 (double t)
{
  if (fabs (t) < 1e-9)
    return 1.0;
  if (fabs (t) >= 3.0)
    return 0.0;
  return 3.0 * sin (M_PI * t) * sin (M_PI * t / 3.0) / (M_PI * M_PI * t * t);
}

/* p (n x n) moved by (-dx, -dy), so that what was at (n/2 + dx, n/2 + dy)
 * comes to the centre: Lanczos-3 along x then y, which keeps a sharp
 * source's peak where bilinear interpolation flattens it; negative
 * ringing clipped to 0. */
static bool
shift (double *p, int n, double dx, double dy)
{
  double *t = calloc ((size_t) n * n, sizeof *t);

  if (!t)
    return false;
  for (int pass = 0; pass < 2; pass++)
    {
      const double d = pass ? dy : dx;
      const double *from = pass ? t : p;
      double *to = pass ? p : t;

      for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
          {
            const int at = pass ? y : x;
            double v = 0.0, wsum = 0.0;

            for (int k = (int) floor (at + d) - 2; k <= (int) floor (at + d) + 3; k++)
              {
                const double wgt = lanczos3 (at + d - k);

                wsum += wgt;
                if (k >= 0 && k < n)
                  v += wgt * from[pass ? k * n + x : y * n + k];
              }
            to[y * n + x] = pass ? fmax (v / wsum, 0.0) : v / wsum;
          }
    }
  free (t);
  return true;
}

/* The source less its background, what lies within the noise set to 0,
 * moved so that its centroid falls on the region's centre; false where
 * nothing stands out of the noise. */
static bool
centred_source (const float *p, int n, double level, double noise, double *out)
{
  const double least = fmax (3.0 * noise, 1e-7);
  double sum = 0.0, sx = 0.0, sy = 0.0, dx, dy;

  for (int i = 0; i < n * n; i++)
    {
      const double v = p[i] - level;

      out[i] = v > least ? v : 0.0;
      sum += out[i];
      sx += out[i] * (i % n);
      sy += out[i] * (i / n);
    }
  if (sum <= 0.0)
    return false;
  dx = sx / sum - n / 2;
  dy = sy / sum - n / 2;
  if (fabs (dx) >= 1e-3 || fabs (dy) >= 1e-3)
    return shift (out, n, dx, dy);
  return true;
}

/* Why the region's source cannot be a mask, or NULL: its brightest pixels
 * flat at the top (saturated), or nothing brighter than its noise. */
static const char *
source_refusal (const float *p, int n, double level, double noise)
{
  double peak = p[0];
  int at_peak = 0;

  for (int i = 1; i < n * n; i++)
    peak = fmax (peak, p[i]);
  for (int i = 0; i < n * n; i++)
    at_peak += p[i] >= peak - 1e-6 * fabs (peak);
  if (peak - level <= 5.0 * noise || peak - level <= 1e-6)
    return "there is no point source there: nothing stands out of the background";
  if (at_peak >= 3)
    return "the point source is saturated: its brightest pixels are flat";
  return NULL;
}

bool
cc_mask_from_star (const CcImage *src, const CcTransfer *transfer, bool has_alpha,
                   double x, double y, int radius, CcMask *mask, double **values,
                   char *why, size_t size)
{
  const int n = 2 * radius + 1;
  const CcRect rc = { (int64_t) llround (x) - radius, (int64_t) llround (y) - radius, n, n };
  double level, noise, *source = NULL;
  float *p = NULL;
  const char *refusal;
  int h = 0;

  *values = NULL;
  if (radius < 1 || n > CC_MASK_MAX || !isfinite (x) || !isfinite (y) ||
      rc.x < 0 || rc.y < 0 || rc.x + n > src->width || rc.y + n > src->height)
    {
      snprintf (why, size, "the star's region, %dx%d about (%g, %g), is not inside the "
                "%lldx%lld image (its radius: 1 to %d)", n, n, x, y, (long long) src->width,
                (long long) src->height, CC_MASK_MAX / 2);
      return false;
    }
  if (!(p = cc_luminance (src, &rc, transfer, has_alpha)) ||
      !(source = malloc (sizeof *source * n * n)) || !ring_level (p, n, &level, &noise))
    {
      snprintf (why, size, "out of host memory");
      goto fail;
    }
  if ((refusal = source_refusal (p, n, level, noise)) ||
      (!centred_source (p, n, level, noise, source) &&
       (refusal = "there is no point source there: nothing stands out of the background")))
    {
      snprintf (why, size, "%s", refusal);
      goto fail;
    }
  /* The support: the farthest pixel left from the centre, along x or y. */
  for (int i = 0; i < n * n; i++)
    if (source[i] > 0.0)
      h = fmax (h, fmax (abs (i % n - radius), abs (i / n - radius)));
  {
    const int m = 2 * h + 1;
    double *v = malloc (sizeof *v * m * m), sum = 0.0;

    if (!v)
      {
        snprintf (why, size, "out of host memory");
        goto fail;
      }
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++)
        sum += v[j * m + i] = source[(radius - h + j) * n + radius - h + i];
    for (int i = 0; i < m * m; i++)
      v[i] /= sum;
    *values = v;
    *mask = (CcMask) { m, m, v, 1.0, 0.0 };
  }
  free (p);
  free (source);
  return true;
fail:
  free (p);
  free (source);
  return false;
}
