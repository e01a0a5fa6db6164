/* Wiener deconvolution through FFTW: the image extended by its border mode
 * to a side FFTW transforms fast (wrap: the image's own sides, its period;
 * cc_wiener_canvas, which the GPU's kernels/wiener.cu shares),
 * each channel transformed once, multiplied by
 *   M / (|M|^2 + noise |L|^2)
 * where M is the blur's spectrum as a correlation (conj (M) blurs) and L
 * the 4-neighbour Laplacian's, and transformed back.  A transform's
 * plan runs on one thread, channel after channel, so that progress is
 * told from the caller's thread.  Single precision, like every path.
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
    *c = (CcWienerCanvas) { job->width, job->height, 0, 0 };
  else
    {
      /* Room for the blur's reach on both sides, so that the canvas's own
       * period joins the border's extension, not the image. */
      c->tx = cc_fft_fast_side (job->width + m->width - 1);
      c->ty = cc_fft_fast_side (job->height + m->height - 1);
      c->left = (c->tx - job->width) / 2;
      c->top = (c->ty - job->height) / 2;
    }
}

#ifdef HAVE_FFTW
#include <fftw3.h>

typedef struct
{
  const CcWienerJob *job;
  int64_t            tx, ty, cx;     /* the canvas's sides; complex columns */
  int64_t            left, top;      /* where the image lies on it */
  fftwf_plan         forward, inverse;
  fftwf_complex     *filter;         /* ty x cx, with 1 / (tx ty) */
  float             *real;           /* the canvas */
  fftwf_complex     *spectrum;
  int64_t           *columns;        /* the source column each canvas column
                                        shows (cc_border_map: -1 the constant) */
} Wiener;

/* The filter, from the blur at the origin of a canvas of its own. */
static void
make_filter (Wiener *w)
{
  const CcMask *m = w->job->blur;
  const int rx = (m->width - 1) / 2, ry = (m->height - 1) / 2;
  const float scale = 1.0f / ((float) w->tx * (float) w->ty);
  float *real = w->real;

  memset (real, 0, sizeof (float) * (size_t) (w->tx * w->ty));
  /* A mask wider than a wrapped image folds onto its period. */
  for (int j = 0; j < m->height; j++)
    for (int i = 0; i < m->width; i++)
      {
        const int64_t y = ((j - ry) % w->ty + w->ty) % w->ty;
        const int64_t x = ((i - rx) % w->tx + w->tx) % w->tx;

        real[y * w->tx + x] += (float) m->values[j * m->width + i];
      }
  fftwf_execute_dft_r2c (w->forward, real, w->filter);
  for (int64_t ky = 0; ky < w->ty; ky++)
    {
      const double cy = cos (2.0 * M_PI * (double) ky / (double) w->ty);

      for (int64_t kx = 0; kx < w->cx; kx++)
        {
          fftwf_complex *h = &w->filter[ky * w->cx + kx];
          const double laplacian = 4.0 - 2.0 * cos (2.0 * M_PI * (double) kx / (double) w->tx)
                                   - 2.0 * cy;
          const double re = (*h)[0], im = (*h)[1];
          const double den = re * re + im * im + w->job->noise * laplacian * laplacian;

          /* Where the blur erases a frequency and no noise term is asked
           * for, nothing of it can come back. */
          (*h)[0] = den > 0 ? (float) (re / den) * scale : 0.0f;
          (*h)[1] = den > 0 ? (float) (im / den) * scale : 0.0f;
        }
    }
}

/* Channel k on canvas 'real', the border's constant where the mode has
 * one. */
static void
fill_canvas (const Wiener *w, int k, float *real)
{
  const CcWienerJob *job = w->job;
  const float ghost = job->border == CC_BORDER_WHITE ? 1.0f : 0.0f;

  for (int64_t y = 0; y < w->ty; y++)
    {
      const int64_t sy = cc_border_map (y - w->top, job->height, job->border);
      float *row = real + y * w->tx;

      for (int64_t x = 0; x < w->tx; x++)
        row[x] = sy < 0 || w->columns[x] < 0
                 ? ghost : job->observed[(sy * job->width + w->columns[x]) * job->channels + k];
    }
}

static void
restore_channel (const Wiener *w, int k)
{
  const CcWienerJob *job = w->job;
  float *real = w->real;
  fftwf_complex *spectrum = w->spectrum;
  const size_t n = (size_t) (w->cx * w->ty);

  fill_canvas (w, k, real);
  fftwf_execute_dft_r2c (w->forward, real, spectrum);
  for (size_t i = 0; i < n; i++)
    {
      const float re = spectrum[i][0], im = spectrum[i][1];
      const float fr = w->filter[i][0], fi = w->filter[i][1];

      spectrum[i][0] = re * fr - im * fi;
      spectrum[i][1] = re * fi + im * fr;
    }
  fftwf_execute_dft_c2r (w->inverse, spectrum, real);
  for (int64_t y = 0; y < job->height; y++)
    for (int64_t x = 0; x < job->width; x++)
      job->restored[(y * job->width + x) * job->channels + k] =
        real[(y + w->top) * w->tx + x + w->left];
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
  fftwf_free (w->spectrum);
  fftwf_free (w->filter);
  free (w->columns);
}

CcStatus
cc_wiener (const CcWienerJob *job, CcResult *result)
{
  Wiener w = { .job = job };
  CcWienerCanvas c;

  cc_wiener_canvas (job, &c);
  w.tx = c.tx;
  w.ty = c.ty;
  w.left = c.left;
  w.top = c.top;
  w.cx = w.tx / 2 + 1;
  w.real = fftwf_alloc_real ((size_t) (w.tx * w.ty));
  w.spectrum = fftwf_alloc_complex ((size_t) (w.cx * w.ty));
  w.filter = fftwf_alloc_complex ((size_t) (w.cx * w.ty));
  w.columns = malloc (sizeof (int64_t) * (size_t) w.tx);
  if (!w.real || !w.spectrum || !w.filter || !w.columns)
    {
      wiener_free (&w);
      return cc_fail (result, CC_ERROR_OUT_OF_MEMORY,
                      "out of host memory for Wiener's %lldx%lld transforms",
                      (long long) w.tx, (long long) w.ty);
    }
  pthread_mutex_lock (&cc_fftw_planner_lock);
  w.forward = fftwf_plan_dft_r2c_2d ((int) w.ty, (int) w.tx, w.real, w.spectrum,
                                     FFTW_ESTIMATE);
  w.inverse = fftwf_plan_dft_c2r_2d ((int) w.ty, (int) w.tx, w.spectrum, w.real,
                                     FFTW_ESTIMATE);
  pthread_mutex_unlock (&cc_fftw_planner_lock);
  if (!w.forward || !w.inverse)
    {
      wiener_free (&w);
      return cc_fail (result, CC_ERROR_OUT_OF_MEMORY, "FFTW could not plan a %lldx%lld transform",
                      (long long) w.tx, (long long) w.ty);
    }
  for (int64_t x = 0; x < w.tx; x++)
    w.columns[x] = cc_border_map (x - w.left, job->width, job->border);
  make_filter (&w);
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
