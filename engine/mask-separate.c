/* Splits a mask into a few rank-1 terms, M = sum_k u_k v_k^T, for the
 * separable method: a one-sided Jacobi SVD in double precision, then the
 * fewest terms whose sum reproduces M within a tolerance far below the
 * engine's error bound.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* sum |M - M_r| may be at most this fraction of sum |M|: 10 times under the
 * engine's per-sample bound of 1e-5 * sum |M| / |divisor|, and above the
 * float rounding of the terms themselves (~1e-7). */
#define SEPARABLE_TOLERANCE 1e-6

/* One-sided Jacobi on the columns of a (h x w, row-major): on return the
 * columns of a are orthogonal (sigma_k u_k) and v (w x w) holds V. */
static void
jacobi_svd (double *a, int h, int w, double *v)
{
  memset (v, 0, sizeof (double) * w * w);
  for (int i = 0; i < w; i++)
    v[i * w + i] = 1.0;

  for (int sweep = 0; sweep < 60; sweep++)
    {
      bool rotated = false;

      for (int p = 0; p < w - 1; p++)
        for (int q = p + 1; q < w; q++)
          {
            double alpha = 0, beta = 0, gamma = 0, zeta, t, c, s;

            for (int r = 0; r < h; r++)
              {
                alpha += a[r * w + p] * a[r * w + p];
                beta  += a[r * w + q] * a[r * w + q];
                gamma += a[r * w + p] * a[r * w + q];
              }
            if (fabs (gamma) <= 1e-15 * sqrt (alpha * beta) || gamma == 0.0)
              continue;
            rotated = true;
            zeta = (beta - alpha) / (2.0 * gamma);
            t = (zeta >= 0 ? 1.0 : -1.0) / (fabs (zeta) + sqrt (1.0 + zeta * zeta));
            c = 1.0 / sqrt (1.0 + t * t);
            s = c * t;
            for (int r = 0; r < h; r++)
              {
                double x = a[r * w + p], y = a[r * w + q];
                a[r * w + p] = c * x - s * y;
                a[r * w + q] = s * x + c * y;
              }
            for (int r = 0; r < w; r++)
              {
                double x = v[r * w + p], y = v[r * w + q];
                v[r * w + p] = c * x - s * y;
                v[r * w + q] = s * x + c * y;
              }
          }
      if (!rotated)
        break;
    }
}

/* M as one term, column pj times row pi over their crossing, where that
 * reproduces M within the tolerance; else 0. */
static int
rank1 (const double *m, int w, int h, float *u, float *v)
{
  int pivot = 0;
  double total = 0.0, err = 0.0;

  for (int k = 0; k < w * h; k++)
    {
      total += fabs (m[k]);
      if (fabs (m[k]) > fabs (m[pivot]))
        pivot = k;
    }
  if (m[pivot] == 0.0)
    return 0;
  for (int j = 0; j < h; j++)
    u[j] = (float) m[j * w + pivot % w];
  for (int i = 0; i < w; i++)
    v[i] = (float) (m[(pivot / w) * w + i] / m[pivot]);
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      err += fabs (m[j * w + i] - (double) u[j] * v[i]);
  return err <= SEPARABLE_TOLERANCE * total ? 1 : 0;
}

/* The columns of a (h x w, after jacobi_svd) by decreasing singular value:
 * their indices into order, their squared norms (sigma_k^2) into norms. */
static void
order_by_singular_value (const double *a, int h, int w, double *norms, int *order)
{
  for (int k = 0; k < w; k++)
    {
      norms[k] = 0.0;
      for (int r = 0; r < h; r++)
        norms[k] += a[r * w + k] * a[r * w + k];
      order[k] = k;
    }
  for (int x = 1; x < w; x++)
    for (int y = x; y > 0 && norms[order[y]] > norms[order[y - 1]]; y--)
      {
        int t = order[y];
        order[y] = order[y - 1];
        order[y - 1] = t;
      }
}

int
cc_mask_separate (const double *m, int w, int h, int max_terms, float *u, float *v)
{
  double *a, *vv, *approx, *norms;
  int *order, terms = 0;
  double total = 0.0;

  /* A 1D mask is its own single term. */
  if (w == 1 || h == 1)
    {
      for (int j = 0; j < h; j++)
        u[j] = (float) (w == 1 ? m[j] : 1.0);
      for (int i = 0; i < w; i++)
        v[i] = (float) (w == 1 ? 1.0 : m[i]);
      return 1;
    }

  /* The SVD costs w^2 h a sweep, minutes past the direct methods' sizes:
   * there only a rank-1 mask is found, as its largest tap's row and
   * column. */
  if (w > CC_DIRECT_MASK_MAX || h > CC_DIRECT_MASK_MAX)
    return rank1 (m, w, h, u, v);

  a = malloc (sizeof (double) * w * h);
  vv = malloc (sizeof (double) * w * w);
  approx = calloc ((size_t) w * h, sizeof (double));
  norms = malloc (sizeof (double) * w);
  order = malloc (sizeof (int) * w);
  if (!a || !vv || !approx || !norms || !order)
    goto out;
  memcpy (a, m, sizeof (double) * w * h);
  for (int k = 0; k < w * h; k++)
    total += fabs (m[k]);
  jacobi_svd (a, h, w, vv);

  order_by_singular_value (a, h, w, norms, order);

  for (int n = 0; n < max_terms && n < w; n++)
    {
      const int k = order[n];
      double err = 0.0;

      for (int j = 0; j < h; j++)
        u[n * h + j] = (float) a[j * w + k];     /* sigma_k u_k */
      for (int i = 0; i < w; i++)
        v[n * w + i] = (float) vv[i * w + k];
      /* The error of the float terms, as the GPU will use them. */
      for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
          {
            approx[j * w + i] += (double) u[n * h + j] * v[n * w + i];
            err += fabs (m[j * w + i] - approx[j * w + i]);
          }
      if (err <= SEPARABLE_TOLERANCE * total)
        {
          terms = n + 1;
          break;
        }
    }

out:
  free (a);
  free (vv);
  free (approx);
  free (norms);
  free (order);
  return terms;
}
