/* Wiener deconvolution through FFTW: x minimises |blur (x) - observed|^2 +
 * noise |L x|^2 over the image, L the 4-neighbour Laplacian.  A wrapped
 * image takes one filter step; any other border a seamless canvas as the
 * first guess and CC_WIENER_STEPS preconditioned conjugate-gradient steps
 * for the canvas outside the image (docs/deconvolution.md).  The channels
 * in turn, each transform on the job's threads; kernels/wiener.cu does the
 * same on the GPU.
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

/* The point-wise steps, each a loop over the spectrum's rows (or, to
 * fill, mask and read the canvas, the canvas's), run on the job's workers
 * (kernels/wiener.cu has one kernel for each). */
typedef enum
{
  FILL_GUESS,   /* the canvas: the first guess (cc_wiener_taps) */
  FILL_INSIDE,  /* the canvas: the image alone, 0 around it */
  GUESS,        /* x = M x / den: the first guess's spectrum */
  RIGHT_SIDE,   /* r = M r, the normal equations' right side; sum <r, r / den> */
  BLUR,         /* w = conj (M) v, the blur's spectrum */
  INSIDE,       /* the canvas over tx ty inside the image, 0 around it */
  NORMAL,       /* w = M w + noise |L|^2 v; sum <v, w> */
  RESIDUAL,     /* r -= w, p = r / den; sum <r, r / den> */
  STEP,         /* x += alpha p, r -= alpha w; sum <r, r / den> */
  DIRECTION,    /* p = r / den + beta p */
  EXTRACT       /* the restored channel from the canvas, over tx ty */
} Op;

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
  double            *row_sums;       /* a loop's sum, row by row: the same in any split */
  /* The loop being run. */
  Op                 op;
  int                k;
  fftwf_complex     *v;
  float              alpha, beta;
} Wiener;

/* The threads the plans made next use, where FFTW has them; 1 is what
 * cpu-fft.c's tiles, each on a thread of its own, expect.  Called with the
 * planner's lock held. */
static void
plan_threads (int threads)
{
#ifdef HAVE_FFTW_THREADS
  static bool ready;

  if (!ready)
    ready = fftwf_init_threads () != 0;
  if (ready)
    fftwf_plan_with_nthreads (threads > 0 ? threads : 1);
#else
  (void) threads;
#endif
}

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

/* Canvas row y of channel k: the first guess's blend of up to four samples
 * (-1: the border's constant), or with 'inside' the image alone. */
static void
fill_row (const Wiener *w, int64_t y, bool inside)
{
  const CcWienerJob *job = w->job;
  const float ghost = job->border == CC_BORDER_WHITE ? 1.0f : 0.0f;
  const CcWienerTap ty = w->rows[y];
  const bool in_y = y >= w->c.top && y < w->c.top + job->height;
  const int64_t ys[2] = { ty.a, ty.b };
  const float wy[2] = { 1.0f - ty.t, ty.t };
  float *row = w->real + y * w->c.tx;

  for (int64_t x = 0; x < w->c.tx; x++)
    {
      const CcWienerTap tx = w->columns[x];
      const int64_t xs[2] = { tx.a, tx.b };
      const float wx[2] = { 1.0f - tx.t, tx.t };
      float v = 0.0f;

      if (inside)
        v = in_y && x >= w->c.left && x < w->c.left + job->width
            ? job->observed[(ys[0] * job->width + xs[0]) * job->channels + w->k] : 0.0f;
      else
        for (int j = 0; j < 2; j++)
          for (int i = 0; i < 2; i++)
            if (wy[j] != 0.0f && wx[i] != 0.0f)
              v += wy[j] * wx[i] * (ys[j] < 0 || xs[i] < 0
                                    ? ghost : job->observed[(ys[j] * job->width + xs[i]) *
                                                            job->channels + w->k]);
      row[x] = v;
    }
}

/* One row of the spectrum's point-wise steps; its sum, where the step has
 * one: the real canvases' inner product over tx ty, a half spectrum's
 * columns other than 0 and tx / 2 standing for two. */
static double
spectrum_row (const Wiener *w, int64_t y)
{
  const float noise = (float) w->job->noise;
  double sum = 0.0;

  for (int64_t x = 0, i = y * w->cx; x < w->cx; x++, i++)
    {
      const float mr = w->blur[i][0], mi = w->blur[i][1];
      const float q = w->den[i] > 0 ? 1.0f / w->den[i] : 0.0f;
      const double weight = x == 0 || 2 * x == w->c.tx ? 1.0 : 2.0;
      fftwf_complex *t;
      float re, im, l;

      switch (w->op)
        {
        case GUESS:
        case RIGHT_SIDE:
          t = w->op == GUESS ? &w->x[i] : &w->r[i];
          re = mr * (*t)[0] - mi * (*t)[1];
          im = mr * (*t)[1] + mi * (*t)[0];
          (*t)[0] = w->op == GUESS ? re * q : re;
          (*t)[1] = w->op == GUESS ? im * q : im;
          sum += weight * ((double) re * re + (double) im * im) * q;
          break;
        case BLUR:
          w->w[i][0] = mr * w->v[i][0] + mi * w->v[i][1];
          w->w[i][1] = mr * w->v[i][1] - mi * w->v[i][0];
          break;
        case NORMAL:
          l = w->lx[x] + w->ly[y];
          re = mr * w->w[i][0] - mi * w->w[i][1] + noise * l * l * w->v[i][0];
          im = mr * w->w[i][1] + mi * w->w[i][0] + noise * l * l * w->v[i][1];
          w->w[i][0] = re;
          w->w[i][1] = im;
          sum += weight * ((double) w->v[i][0] * re + (double) w->v[i][1] * im);
          break;
        case RESIDUAL:
        case STEP:
          for (int c = 0; c < 2; c++)
            {
              const float a = w->op == STEP ? w->alpha : 1.0f;

              if (w->op == STEP)
                w->x[i][c] += a * w->p[i][c];
              w->r[i][c] -= a * w->w[i][c];
              if (w->op == RESIDUAL)
                w->p[i][c] = w->r[i][c] * q;
            }
          sum += weight * ((double) w->r[i][0] * w->r[i][0] +
                           (double) w->r[i][1] * w->r[i][1]) * q;
          break;
        case DIRECTION:
          for (int c = 0; c < 2; c++)
            w->p[i][c] = w->r[i][c] * q + w->beta * w->p[i][c];
          break;
        default:
          break;
        }
    }
  return sum;
}

static void
wiener_rows (int64_t begin, int64_t end, void *data)
{
  Wiener *w = data;
  const CcWienerJob *job = w->job;
  const float scale = 1.0f / ((float) w->c.tx * (float) w->c.ty);

  for (int64_t y = begin; y < end; y++)
    switch (w->op)
      {
      case FILL_GUESS:
      case FILL_INSIDE:
        fill_row (w, y, w->op == FILL_INSIDE);
        break;
      case INSIDE:
        for (int64_t x = 0; x < w->c.tx; x++)
          {
            float *p = &w->real[y * w->c.tx + x];

            *p = y >= w->c.top && y < w->c.top + job->height && x >= w->c.left &&
                 x < w->c.left + job->width ? *p * scale : 0.0f;
          }
        break;
      case EXTRACT:
        for (int64_t x = 0; x < job->width; x++)
          job->restored[(y * job->width + x) * job->channels + w->k] =
            w->real[(y + w->c.top) * w->c.tx + x + w->c.left] * scale;
        break;
      default:
        w->row_sums[y] = spectrum_row (w, y);
        break;
      }
}

/* Runs step 'op' over its rows; the sum, where it has one. */
static double
run (Wiener *w, Op op)
{
  const int64_t rows = op == EXTRACT ? w->job->height : w->c.ty;
  double sum = 0.0;

  w->op = op;
  cc_workers_run (w->job->workers, rows, 16, wiener_rows, w);
  for (int64_t y = 0; op >= GUESS && op != INSIDE && op != EXTRACT && y < rows; y++)
    sum += w->row_sums[y];
  return sum;
}

/* w = the normal equations' operator on v: M F (inside F^-1 (conj (M) v))
 * + noise |L|^2 v, the blur seen over the image only; returns <v, w>. */
static double
apply_normal (Wiener *w, fftwf_complex *v)
{
  w->v = v;
  run (w, BLUR);
  fftwf_execute_dft_c2r (w->inverse, w->w, w->real);
  run (w, INSIDE);
  fftwf_execute_dft_r2c (w->forward, w->real, w->w);
  return run (w, NORMAL);
}

/* Channel k: the first guess x = M F (canvas) / den; then preconditioned
 * conjugate gradients on the normal equations from it, the first guess's
 * filter the preconditioner, r = M F (the image alone) - the operator on x
 * their first residual; x's inverse transform over the image. */
static void
restore_channel (Wiener *w, int k)
{
  double rz, start, pw, next;

  w->k = k;
  run (w, FILL_GUESS);
  fftwf_execute_dft_r2c (w->forward, w->real, w->x);
  run (w, GUESS);
  if (w->c.steps > 0)
    {
      run (w, FILL_INSIDE);
      fftwf_execute_dft_r2c (w->forward, w->real, w->r);
      start = run (w, RIGHT_SIDE);
      apply_normal (w, w->x);
      rz = run (w, RESIDUAL);
      for (int s = 0; s < w->c.steps && rz > CC_WIENER_SOLVED * start; s++)
        {
          if ((pw = apply_normal (w, w->p)) <= 0)
            break;
          w->alpha = (float) (rz / pw);
          next = run (w, STEP);
          w->beta = (float) (next / rz);
          rz = next;
          run (w, DIRECTION);
        }
    }
  fftwf_execute_dft_c2r (w->inverse, w->x, w->real);
  run (w, EXTRACT);
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
  free (w->row_sums);
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
  w.row_sums = malloc (sizeof (double) * (size_t) w.c.ty);
  if (!w.real || !w.blur || !w.x || !w.w || (w.c.steps > 0 && (!w.r || !w.p)) || !w.den ||
      !w.lx || !w.ly || !w.rows || !w.columns || !w.row_sums)
    {
      wiener_free (&w);
      return cc_fail (result, CC_ERROR_OUT_OF_MEMORY,
                      "out of host memory for Wiener's %lldx%lld transforms",
                      (long long) w.c.tx, (long long) w.c.ty);
    }
  pthread_mutex_lock (&cc_fftw_planner_lock);
  plan_threads (job->threads);
  w.forward = fftwf_plan_dft_r2c_2d ((int) w.c.ty, (int) w.c.tx, w.real, w.x, FFTW_ESTIMATE);
  w.inverse = fftwf_plan_dft_c2r_2d ((int) w.c.ty, (int) w.c.tx, w.x, w.real, FFTW_ESTIMATE);
  plan_threads (1);
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
