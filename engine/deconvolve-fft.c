/* Wiener deconvolution through FFTW.  The restoration x minimises
 *   |blur (x) - observed|^2 + noise |L x|^2
 * over the image, L the 4-neighbour Laplacian.  On a wrapped image, one
 * step: each channel's spectrum times M / (|M|^2 + noise |L|^2), M the
 * mask's spectrum (a correlation: conj (M) blurs).  Any other border:
 * that filter on a seamless canvas (cc_wiener_taps) is the first guess,
 * and CC_WIENER_STEPS conjugate-gradient steps, that filter their
 * preconditioner, solve for the canvas outside the image, which the image
 * does not see (docs/deconvolution.md).  kernels/wiener.cu does the same
 * on the GPU.  A transform's plan runs on one thread, channel after
 * channel, so that progress is told from the caller's thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "deconvolve.h"

int64_t
cc_fft_fast_side (int64_t n)
{
  for (int64_t m = n < 1 ? 1 : n;; m++)
    {
      int64_t r = m;

      for (int p = 2; p <= 7; p++)
        while (r % p == 0)
          r /= p;
      if (r == 1)
        return m;
    }
}

void
cc_wiener_canvas (const CcWienerJob *job, CcWienerCanvas *c)
{
  const CcMask *m = job->blur;

  if (job->border == CC_BORDER_WRAP)
    *c = (CcWienerCanvas) { job->width, job->height, 0, 0, 0 };
  else
    {
      c->tx = cc_fft_fast_side (job->width + m->width - 1 + CC_WIENER_SEAM);
      c->ty = cc_fft_fast_side (job->height + m->height - 1 + CC_WIENER_SEAM);
      c->left = (c->tx - job->width) / 2;
      c->top = (c->ty - job->height) / 2;
      c->steps = CC_WIENER_STEPS;
    }
}

void
cc_wiener_taps (const CcWienerJob *job, const CcWienerCanvas *c, bool rows, CcWienerTap *taps)
{
  const int64_t t = rows ? c->ty : c->tx, n = rows ? job->height : job->width,
                offset = rows ? c->top : c->left, margin = t - n,
                reach = ((rows ? job->blur->height : job->blur->width) - 1) / 2,
                seam = margin - 2 * reach;

  for (int64_t i = 0; i < t; i++)
    {
      const int64_t s = i - offset;
      int64_t d;
      double u;

      if (c->steps == 0 || (s >= 0 && s < n))
        {
          taps[i] = (CcWienerTap) { cc_border_map (s, n, job->border), 0, 0.0f };
          taps[i].b = taps[i].a;
          continue;
        }
      /* d: how far past the image's far edge, the near edge next. */
      d = s >= n ? s - n : s + t - n;
      u = seam > 0 ? (d - reach + 0.5) / (double) seam : (d + 0.5) / (double) margin;
      u = u < 0 ? 0 : u > 1 ? 1 : u;
      taps[i] = (CcWienerTap) { cc_border_map (n + d, n, job->border),
                                cc_border_map (d - margin, n, job->border),
                                (float) (0.5 - 0.5 * cos (M_PI * u)) };
    }
}

float
cc_wiener_laplacian (int64_t k, int64_t n)
{
  return (float) (2.0 - 2.0 * cos (2.0 * M_PI * (double) k / (double) n));
}

#ifdef HAVE_FFTW
#include <fftw3.h>

typedef struct
{
  const CcWienerJob *job;
  CcWienerCanvas     c;
  int64_t            cx;             /* complex columns */
  fftwf_plan         forward, inverse;
  float             *real;           /* the canvas */
  fftwf_complex     *blur;           /* M, the mask's spectrum (conj (M) blurs) */
  float             *den;            /* |M|^2 + noise |L|^2 */
  float             *lx, *ly;        /* the Laplacian's spectrum along each side */
  fftwf_complex     *x, *r, *p, *w;  /* the restoration's spectrum, the steps' vectors */
  CcWienerTap       *rows, *columns;
  double             rz_start;       /* the right side's <b, b / den> */
} Wiener;

/* M and the preconditioner's denominator, from the blur at the origin of a
 * canvas of its own. */
static void
make_blur (Wiener *w)
{
  const CcMask *m = w->job->blur;
  const int64_t tx = w->c.tx, ty = w->c.ty;
  const int rx = (m->width - 1) / 2, ry = (m->height - 1) / 2;

  memset (w->real, 0, sizeof (float) * (size_t) (tx * ty));
  /* A mask wider than a wrapped image folds onto its period. */
  for (int j = 0; j < m->height; j++)
    for (int i = 0; i < m->width; i++)
      {
        const int64_t y = ((j - ry) % ty + ty) % ty, x = ((i - rx) % tx + tx) % tx;

        w->real[y * tx + x] += (float) m->values[j * m->width + i];
      }
  fftwf_execute_dft_r2c (w->forward, w->real, w->blur);
  for (int64_t x = 0; x < w->cx; x++)
    w->lx[x] = cc_wiener_laplacian (x, tx);
  for (int64_t y = 0; y < ty; y++)
    w->ly[y] = cc_wiener_laplacian (y, ty);
  for (int64_t y = 0; y < ty; y++)
    for (int64_t x = 0; x < w->cx; x++)
      {
        const int64_t i = y * w->cx + x;
        const double re = w->blur[i][0], im = w->blur[i][1], l = (double) w->lx[x] + w->ly[y];

        w->den[i] = (float) (re * re + im * im + w->job->noise * l * l);
      }
}

/* Channel k on the canvas: the first guess (cc_wiener_taps), or with
 * 'inside', the image alone, 0 around it. */
static void
fill_canvas (const Wiener *w, int k, bool inside)
{
  const CcWienerJob *job = w->job;
  const float ghost = job->border == CC_BORDER_WHITE ? 1.0f : 0.0f;

  for (int64_t y = 0; y < w->c.ty; y++)
    {
      const CcWienerTap ty = w->rows[y];
      const bool in_y = y >= w->c.top && y < w->c.top + job->height;
      float *row = w->real + y * w->c.tx;

      for (int64_t x = 0; x < w->c.tx; x++)
        {
          const CcWienerTap tx = w->columns[x];
          const int64_t ys[2] = { ty.a, ty.b }, xs[2] = { tx.a, tx.b };
          const float wy[2] = { 1.0f - ty.t, ty.t }, wx[2] = { 1.0f - tx.t, tx.t };
          float v = 0.0f;

          if (inside)
            {
              row[x] = in_y && x >= w->c.left && x < w->c.left + job->width
                       ? job->observed[(ys[0] * job->width + xs[0]) * job->channels + k] : 0.0f;
              continue;
            }
          for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++)
              if (wy[j] != 0.0f && wx[i] != 0.0f)
                v += wy[j] * wx[i] * (ys[j] < 0 || xs[i] < 0 ? ghost
                                      : job->observed[(ys[j] * job->width + xs[i]) *
                                                      job->channels + k]);
          row[x] = v;
        }
    }
}

/* The steps' inner product, the real canvases' (over N): a half spectrum's
 * columns other than 0 and tx / 2 stand for two; with 'den', <a, a / den>. */
static double
dot (const Wiener *w, fftwf_complex *a, fftwf_complex *b, bool over_den)
{
  double sum = 0.0;

  for (int64_t y = 0; y < w->c.ty; y++)
    for (int64_t x = 0; x < w->cx; x++)
      {
        const int64_t i = y * w->cx + x;
        const double weight = x == 0 || 2 * x == w->c.tx ? 1.0 : 2.0;
        double v;

        if (over_den)
          v = w->den[i] > 0 ? (a[i][0] * a[i][0] + a[i][1] * a[i][1]) / w->den[i] : 0.0;
        else
          v = a[i][0] * b[i][0] + a[i][1] * b[i][1];
        sum += weight * v;
      }
  return sum;
}

/* w = the normal equations' operator on v: M F (inside F^-1 (conj (M) v))
 * + noise |L|^2 v, the blur seen over the image only. */
static void
apply_normal (Wiener *w, fftwf_complex *v)
{
  const CcWienerJob *job = w->job;
  const size_t n = (size_t) (w->cx * w->c.ty);
  const float scale = 1.0f / ((float) w->c.tx * (float) w->c.ty);

  for (size_t i = 0; i < n; i++)
    {
      const float mr = w->blur[i][0], mi = w->blur[i][1];

      w->w[i][0] = mr * v[i][0] + mi * v[i][1];
      w->w[i][1] = mr * v[i][1] - mi * v[i][0];
    }
  fftwf_execute_dft_c2r (w->inverse, w->w, w->real);
  for (int64_t y = 0; y < w->c.ty; y++)
    for (int64_t x = 0; x < w->c.tx; x++)
      {
        float *p = &w->real[y * w->c.tx + x];

        *p = y >= w->c.top && y < w->c.top + job->height && x >= w->c.left &&
             x < w->c.left + job->width ? *p * scale : 0.0f;
      }
  fftwf_execute_dft_r2c (w->forward, w->real, w->w);
  for (int64_t y = 0; y < w->c.ty; y++)
    for (int64_t x = 0; x < w->cx; x++)
      {
        const int64_t i = y * w->cx + x;
        const float mr = w->blur[i][0], mi = w->blur[i][1], l = w->lx[x] + w->ly[y];
        const float lap = (float) job->noise * l * l;
        const float re = w->w[i][0], im = w->w[i][1];

        w->w[i][0] = mr * re - mi * im + lap * v[i][0];
        w->w[i][1] = mr * im + mi * re + lap * v[i][1];
      }
}

/* The first guess's spectrum, x = M F (canvas) / den; and r = M F (the
 * image alone) - the operator on x, the steps' residual. */
static void
first_guess (Wiener *w, int k)
{
  const size_t n = (size_t) (w->cx * w->c.ty);

  fill_canvas (w, k, false);
  fftwf_execute_dft_r2c (w->forward, w->real, w->x);
  for (size_t i = 0; i < n; i++)
    {
      const float mr = w->blur[i][0], mi = w->blur[i][1], re = w->x[i][0], im = w->x[i][1];
      const float q = w->den[i] > 0 ? 1.0f / w->den[i] : 0.0f;

      w->x[i][0] = (mr * re - mi * im) * q;
      w->x[i][1] = (mr * im + mi * re) * q;
    }
  if (w->c.steps == 0)
    return;
  fill_canvas (w, k, true);
  fftwf_execute_dft_r2c (w->forward, w->real, w->r);
  for (size_t i = 0; i < n; i++)
    {
      const float mr = w->blur[i][0], mi = w->blur[i][1], re = w->r[i][0], im = w->r[i][1];

      w->r[i][0] = mr * re - mi * im;
      w->r[i][1] = mr * im + mi * re;
    }
  w->rz_start = dot (w, w->r, NULL, true);
  apply_normal (w, w->x);
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 2; c++)
      w->r[i][c] -= w->w[i][c];
}

/* Preconditioned conjugate gradients on the normal equations, the first
 * guess's filter the preconditioner. */
static void
solve (Wiener *w)
{
  const size_t n = (size_t) (w->cx * w->c.ty);
  double rz;

  if (w->c.steps == 0)
    return;
  for (size_t i = 0; i < n; i++)
    {
      const float q = w->den[i] > 0 ? 1.0f / w->den[i] : 0.0f;

      w->p[i][0] = w->r[i][0] * q;
      w->p[i][1] = w->r[i][1] * q;
    }
  rz = dot (w, w->r, NULL, true);
  for (int s = 0; s < w->c.steps && rz > CC_WIENER_SOLVED * w->rz_start; s++)
    {
      double pw, rz_next;
      float alpha, beta;

      apply_normal (w, w->p);
      if ((pw = dot (w, w->p, w->w, false)) <= 0)
        break;
      alpha = (float) (rz / pw);
      for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 2; c++)
          {
            w->x[i][c] += alpha * w->p[i][c];
            w->r[i][c] -= alpha * w->w[i][c];
          }
      rz_next = dot (w, w->r, NULL, true);
      beta = (float) (rz_next / rz);
      rz = rz_next;
      for (size_t i = 0; i < n; i++)
        {
          const float q = w->den[i] > 0 ? 1.0f / w->den[i] : 0.0f;

          for (int c = 0; c < 2; c++)
            w->p[i][c] = w->r[i][c] * q + beta * w->p[i][c];
        }
    }
}

static void
restore_channel (Wiener *w, int k)
{
  const CcWienerJob *job = w->job;
  const float scale = 1.0f / ((float) w->c.tx * (float) w->c.ty);

  first_guess (w, k);
  solve (w);
  fftwf_execute_dft_c2r (w->inverse, w->x, w->real);
  for (int64_t y = 0; y < job->height; y++)
    for (int64_t x = 0; x < job->width; x++)
      job->restored[(y * job->width + x) * job->channels + k] =
        w->real[(y + w->c.top) * w->c.tx + x + w->c.left] * scale;
}

static void
wiener_free (Wiener *w)
{
  pthread_mutex_lock (&cc_fftw_planner_lock);
  if (w->forward)
    fftwf_destroy_plan (w->forward);
  if (w->inverse)
    fftwf_destroy_plan (w->inverse);
  pthread_mutex_unlock (&cc_fftw_planner_lock);
  fftwf_free (w->real);
  fftwf_free (w->blur);
  fftwf_free (w->x);
  fftwf_free (w->r);
  fftwf_free (w->p);
  fftwf_free (w->w);
  free (w->den);
  free (w->lx);
  free (w->ly);
  free (w->rows);
  free (w->columns);
}

CcStatus
cc_wiener (const CcWienerJob *job, CcResult *result)
{
  Wiener w = { .job = job };
  size_t n;

  cc_wiener_canvas (job, &w.c);
  w.cx = w.c.tx / 2 + 1;
  n = (size_t) (w.cx * w.c.ty);
  w.real = fftwf_alloc_real ((size_t) (w.c.tx * w.c.ty));
  w.blur = fftwf_alloc_complex (n);
  w.x = fftwf_alloc_complex (n);
  w.w = fftwf_alloc_complex (n);
  if (w.c.steps > 0)
    {
      w.r = fftwf_alloc_complex (n);
      w.p = fftwf_alloc_complex (n);
    }
  w.den = malloc (sizeof (float) * n);
  w.lx = malloc (sizeof (float) * (size_t) w.cx);
  w.ly = malloc (sizeof (float) * (size_t) w.c.ty);
  w.rows = malloc (sizeof (CcWienerTap) * (size_t) w.c.ty);
  w.columns = malloc (sizeof (CcWienerTap) * (size_t) w.c.tx);
  if (!w.real || !w.blur || !w.x || !w.w || (w.c.steps > 0 && (!w.r || !w.p)) || !w.den ||
      !w.lx || !w.ly || !w.rows || !w.columns)
    {
      wiener_free (&w);
      return cc_fail (result, CC_ERROR_OUT_OF_MEMORY,
                      "out of host memory for Wiener's %lldx%lld transforms",
                      (long long) w.c.tx, (long long) w.c.ty);
    }
  pthread_mutex_lock (&cc_fftw_planner_lock);
  w.forward = fftwf_plan_dft_r2c_2d ((int) w.c.ty, (int) w.c.tx, w.real, w.x, FFTW_ESTIMATE);
  w.inverse = fftwf_plan_dft_c2r_2d ((int) w.c.ty, (int) w.c.tx, w.x, w.real, FFTW_ESTIMATE);
  pthread_mutex_unlock (&cc_fftw_planner_lock);
  if (!w.forward || !w.inverse)
    {
      wiener_free (&w);
      return cc_fail (result, CC_ERROR_OUT_OF_MEMORY, "FFTW could not plan a %lldx%lld transform",
                      (long long) w.c.tx, (long long) w.c.ty);
    }
  cc_wiener_taps (job, &w.c, true, w.rows);
  cc_wiener_taps (job, &w.c, false, w.columns);
  make_blur (&w);
  for (int k = 0; k <= job->channels; k++)
    {
      if (k > 0)
        restore_channel (&w, k - 1);
      if (job->tick && job->tick ((double) k / job->channels, job->data))
        {
          wiener_free (&w);
          return cc_fail (result, CC_ERROR_CANCELLED, "cancelled");
        }
    }
  wiener_free (&w);
  return CC_OK;
}

#else

CcStatus
cc_wiener (const CcWienerJob *job, CcResult *result)
{
  (void) job;
  return cc_fail (result, CC_ERROR_UNSUPPORTED,
                  "Wiener deconvolution needs FFTW, which this build is without");
}

#endif
