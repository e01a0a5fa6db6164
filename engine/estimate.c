/* The blur's estimate from the image alone: a disc's, a Gaussian's or a
 * motion line's parameters, by the likelihood of the image's averaged
 * spectrum under each candidate mask (docs/estimate.md says which papers
 * this follows and what it cannot find).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "estimate-steps.h"
#include "samples.h"

/* The image's spectrum model, S(rho) = A rho^-alpha, takes its exponent
 * from this grid: photographs lie between 1 and 5, noise at 0. */
#define ALPHAS      11
#define ALPHA_FIRST 0.0
#define ALPHA_STEP  0.5
/* Below this confidence the estimate says it found no blur: noise alone
 * reaches 0.04, the blurs of tests/test-estimate 0.25 and more. */
#define CONFIDENCE_LEAST 0.1
/* Tiles along a side of the region at most. */
#define TILES_ALONG 12
/* The shortest motion line searched, as its half-length. */
#define MOTION_RADIUS_MIN 1.5

/* The averaged spectrum (Welch's periodogram) of a region, on T x T
 * frequencies, and what the fit reads of it: the frequencies it uses
 * (past the lowest ring, which the window and the mean distort; half the
 * plane, the other half its mirror), their rho^-alpha for each alpha. */
typedef struct
{
  int     T;
  int     tiles;
  int     K;            /* frequencies used */
  int    *index;        /* their index in T x T */
  float  *power;        /* K: the periodogram there */
  float  *rho_alpha;    /* ALPHAS x K */
} Spectrum;

/* A candidate's fit: its negative log-likelihood (per tile, summed over
 * the frequencies), at its best exponent. */
typedef struct
{
  double nll;
} Fit;

/* ---- A power-of-two FFT, in place, for the periodogram and the masks ---- */

/* In place, n points 'stride' apart, with the twiddles of n points
 * (wr, wi: cos and -sin of 2 pi k / n, k < n / 2). */
static void
fft (double *re, double *im, int n, int stride, const double *wr, const double *wi)
{
  for (int i = 1, j = 0; i < n; i++)
    {
      int bit = n >> 1;

      for (; j & bit; bit >>= 1)
        j ^= bit;
      j ^= bit;
      if (i < j)
        {
          double t = re[i * stride]; re[i * stride] = re[j * stride]; re[j * stride] = t;
          t = im[i * stride]; im[i * stride] = im[j * stride]; im[j * stride] = t;
        }
    }
  for (int len = 2; len <= n; len <<= 1)
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; k++)
        {
          const double c = wr[k * (n / len)], sn = wi[k * (n / len)];
          const int p = (i + k) * stride, q = (i + k + len / 2) * stride;
          const double xr = re[q] * c - im[q] * sn, xi = re[q] * sn + im[q] * c;

          re[q] = re[p] - xr; im[q] = im[p] - xi;
          re[p] += xr; im[p] += xi;
        }
}

/* |DFT|^2 of a T x T plane (T at most 256; re; im zeroed here) into
 * 'power'. */
static void
power_2d (double *re, double *im, int T, double *power)
{
  double wr[128], wi[128];

  for (int k = 0; k < T / 2; k++)
    {
      wr[k] = cos (2.0 * M_PI * k / T);
      wi[k] = -sin (2.0 * M_PI * k / T);
    }
  memset (im, 0, sizeof *im * T * T);
  for (int y = 0; y < T; y++)
    fft (re + y * T, im + y * T, T, 1, wr, wi);
  for (int x = 0; x < T; x++)
    fft (re + x, im + x, T, T, wr, wi);
  for (int i = 0; i < T * T; i++)
    power[i] = re[i] * re[i] + im[i] * im[i];
}

/* ---- The region's luminance and its spectrum ---- */

float *
cc_luminance (const CcImage *src, const CcRect *rc, const CcTransfer *transfer, bool has_alpha)
{
  const int C = src->channels, colour = has_alpha && C > 1 ? C - 1 : C;
  float *plane = malloc (sizeof *plane * rc->width * rc->height);
  float *row = malloc (sizeof *row * rc->width * C);

  for (int64_t y = 0; plane && row && y < rc->height; y++)
    {
      const char *p = (const char *) src->data + (rc->y + y) * src->stride;

      if (transfer)
        cc_samples_decode (p, transfer, C, colour, rc->x * C, rc->width * C, row);
      else
        cc_samples_to_float (p, src->type, rc->x * C, rc->width * C, row);
      for (int64_t x = 0; x < rc->width; x++)
        {
          double sum = 0.0;

          for (int c = 0; c < colour; c++)
            sum += row[x * C + c];
          plane[y * rc->width + x] = (float) (sum / colour);
        }
    }
  free (row);
  if (!row)
    {
      free (plane);
      return NULL;
    }
  return plane;
}

/* Why the plane gives nothing to go on, or NULL: flat, or saturated (more
 * than a third of its pixels at its darkest or its brightest). */
static const char *
plane_refusal (const float *plane, int64_t n)
{
  double lo = plane[0], hi = plane[0], sum = 0.0, sum2 = 0.0;
  int64_t at_lo = 0, at_hi = 0;

  for (int64_t i = 0; i < n; i++)
    {
      if (!isfinite (plane[i]))
        return "it holds samples that are not finite";
      lo = fmin (lo, plane[i]);
      hi = fmax (hi, plane[i]);
      sum += plane[i];
      sum2 += (double) plane[i] * plane[i];
    }
  if (sum2 / n - (sum / n) * (sum / n) < 1e-10 || hi - lo < 1e-4)
    return "it is flat: there is no detail to find a blur in";
  for (int64_t i = 0; i < n; i++)
    {
      at_lo += plane[i] <= lo + 1e-6 * (hi - lo);
      at_hi += plane[i] >= hi - 1e-6 * (hi - lo);
    }
  if (at_lo > n / 3 || at_hi > n / 3)
    return "it is saturated: more than a third of it is at its darkest or brightest";
  return NULL;
}

/* Tiles of T along a side of n: half overlapping, or at most TILES_ALONG
 * spread evenly where more would fit (the average is as good, and a large
 * image costs no more than a 16-megapixel one). */
static int64_t
tile_step (int64_t n, int T)
{
  const int64_t spread = (n - T) / (TILES_ALONG - 1);

  return spread > T / 2 ? spread : T / 2;
}

/* Welch's periodogram, a range of its tiles on one of the workers'
 * threads: each tile less its mean under a Hann window, its power added
 * to the sum under the lock. */
typedef struct
{
  const float    *plane;
  int64_t         w, h, across;   /* the plane's size; tiles along a row */
  int             T;
  double         *sum;
  pthread_mutex_t lock;
  bool            failed;
} Tiles;

static void
tiles_range (int64_t begin, int64_t end, void *data)
{
  Tiles *t = data;
  const int T = t->T;
  double *re = malloc (sizeof *re * T * T), *im = malloc (sizeof *im * T * T);
  double *p = malloc (sizeof *p * T * T), *acc = calloc ((size_t) T * T, sizeof *acc);

  if (!re || !im || !p || !acc)
    t->failed = true;
  for (int64_t i = begin; re && im && p && acc && i < end; i++)
    {
      const int64_t x0 = i % t->across * tile_step (t->w, T);
      const int64_t y0 = i / t->across * tile_step (t->h, T);
      double mean = 0.0;

      for (int y = 0; y < T; y++)
        for (int x = 0; x < T; x++)
          mean += t->plane[(y0 + y) * t->w + x0 + x];
      mean /= (double) T * T;
      for (int y = 0; y < T; y++)
        for (int x = 0; x < T; x++)
          re[y * T + x] = (t->plane[(y0 + y) * t->w + x0 + x] - mean) *
                          (0.5 - 0.5 * cos (2.0 * M_PI * (x + 0.5) / T)) *
                          (0.5 - 0.5 * cos (2.0 * M_PI * (y + 0.5) / T));
      power_2d (re, im, T, p);
      for (int k = 0; k < T * T; k++)
        acc[k] += p[k];
    }
  if (acc)
    {
      pthread_mutex_lock (&t->lock);
      for (int k = 0; k < T * T; k++)
        t->sum[k] += acc[k];
      pthread_mutex_unlock (&t->lock);
    }
  free (re); free (im); free (p); free (acc);
}

/* Welch's periodogram: tiles of T x T (tile_step apart), averaged. */
static bool
periodogram (CcWorkers *workers, const float *plane, int64_t w, int64_t h, int T, double *out,
             int *tiles)
{
  Tiles t = { plane, w, h, (w - T) / tile_step (w, T) + 1, T, out,
              PTHREAD_MUTEX_INITIALIZER, false };
  const int64_t n = t.across * ((h - T) / tile_step (h, T) + 1);

  memset (out, 0, sizeof *out * T * T);
  cc_workers_run (workers, n, 1, tiles_range, &t);
  pthread_mutex_destroy (&t.lock);
  for (int i = 0; i < T * T; i++)
    out[i] /= n;
  *tiles = (int) n;
  return !t.failed;
}

/* The frequency index i's radius in cycles a pixel. */
static double
rho_of (int i, int T)
{
  const int kx = i % T, ky = i / T;
  const double fx = (kx <= T / 2 ? kx : kx - T) / (double) T;
  const double fy = (ky <= T / 2 ? ky : ky - T) / (double) T;

  return sqrt (fx * fx + fy * fy);
}

static void
spectrum_free (Spectrum *s)
{
  free (s->index);
  free (s->power);
  free (s->rho_alpha);
}

/* The spectrum the fit reads: half the plane (ky in 1 .. T/2 - 1, and ky
 * 0 with kx in 1 .. T/2 - 1), past the lowest two rings. */
static bool
spectrum_new (const double *full, int T, int tiles, Spectrum *s)
{
  memset (s, 0, sizeof *s);
  s->T = T;
  s->tiles = tiles;
  s->index = malloc (sizeof *s->index * T * T / 2);
  s->power = malloc (sizeof *s->power * T * T / 2);
  s->rho_alpha = malloc (sizeof *s->rho_alpha * ALPHAS * T * T / 2);
  if (!s->index || !s->power || !s->rho_alpha)
    return false;
  for (int ky = 0; ky < T / 2; ky++)
    for (int kx = 0; kx < T; kx++)
      {
        const int i = ky * T + kx;
        const double rho = rho_of (i, T);

        if ((ky == 0 && (kx == 0 || kx >= T / 2)) || kx == T / 2 || rho < 2.5 / T)
          continue;
        s->index[s->K] = i;
        s->power[s->K] = (float) full[i];
        for (int a = 0; a < ALPHAS; a++)
          s->rho_alpha[a * (T * T / 2) + s->K] = (float) pow (rho, -(ALPHA_FIRST + a * ALPHA_STEP));
        s->K++;
      }
  return true;
}

/* ---- A candidate's likelihood ---- */

/* The model m = A u + noise fitted to the power P by the Whittle
 * likelihood, sum log m + P / m, for one alpha (estimate-steps.h). */
static Fit
fit_alpha (const Spectrum *s, const float *hs, const float *ra)
{
  double A = 0.0, n = 0.0;
  Fit f = { 0.0 };

  for (int it = 0; it < CC_ESTIMATE_FIT_STEPS; it++)
    {
      double sums[5] = { 0, 0, 0, 0, 0 };

      for (int k = 0; k < s->K; k++)
        cc_estimate_sums ((double) hs[k] * ra[k], s->power[k], it, A, n, sums);
      if (!cc_estimate_solve (sums, &A, &n))
        break;
    }
  for (int k = 0; k < s->K; k++)
    f.nll += cc_estimate_term ((double) hs[k] * ra[k], s->power[k], A, n);
  return f;
}

/* The best fit over the alphas for a mask whose smoothed |H|^2 at the
 * spectrum's frequencies is 'hs': a descent along the grid from its middle
 * (the likelihood has one minimum along it; the GPU, which fits every
 * alpha at once, takes the least of all). */
static Fit
fit_mask (const Spectrum *s, const float *hs)
{
  const int stride = s->T * s->T / 2;
  Fit at[ALPHAS];
  int a = ALPHAS / 2;

  for (int i = 0; i < ALPHAS; i++)
    at[i].nll = NAN;
  at[a] = fit_alpha (s, hs, s->rho_alpha + a * stride);
  for (;;)
    {
      int next = a;

      for (int d = -1; d <= 1; d += 2)
        if (a + d >= 0 && a + d < ALPHAS)
          {
            if (isnan (at[a + d].nll))
              at[a + d] = fit_alpha (s, hs, s->rho_alpha + (a + d) * stride);
            if (at[a + d].nll < at[next].nll)
              next = a + d;
          }
      if (next == a)
        return isnan (at[a].nll) ? (Fit) { DBL_MAX } : at[a];
      a = next;
    }
}

/* ---- Candidates ---- */

/* A thread's buffers for a candidate's mask spectrum. */
typedef struct
{
  double *re, *im, *power;
  float  *hs;
} Scratch;

static bool
scratch_new (Scratch *w, const Spectrum *s)
{
  const int n = s->T * s->T;

  w->re = malloc (sizeof *w->re * n);
  w->im = malloc (sizeof *w->im * n);
  w->power = malloc (sizeof *w->power * n);
  w->hs = malloc (sizeof *w->hs * s->K);
  return w->re && w->im && w->power && w->hs;
}

static void
scratch_free (Scratch *w)
{
  free (w->re); free (w->im); free (w->power); free (w->hs);
}

/* The mask's |H|^2 at the spectrum's frequencies, smoothed as the Hann
 * window smooths the periodogram; false where the mask cannot be made or
 * does not fit. */
static bool
mask_power (const Spectrum *s, const CcShapeSpec *spec, Scratch *w)
{
  const int T = s->T;
  CcMask mask;
  double *values;
  char why[160];

  if (!cc_mask_shape (spec, &mask, &values, why, sizeof why))
    return false;
  if (mask.width > T / 2 || mask.height > T / 2)
    {
      free (values);
      return false;
    }
  memset (w->re, 0, sizeof *w->re * T * T);
  for (int y = 0; y < mask.height; y++)
    for (int x = 0; x < mask.width; x++)
      {
        const int ty = (y - mask.height / 2 + T) % T, tx = (x - mask.width / 2 + T) % T;

        w->re[ty * T + tx] = values[y * mask.width + x];
      }
  free (values);
  power_2d (w->re, w->im, T, w->power);
  for (int y = 0; y < T; y++)
    for (int x = 0; x < T; x++)
      w->re[y * T + x] = (w->power[y * T + (x + T - 1) % T] + w->power[y * T + (x + 1) % T]) *
                           CC_ESTIMATE_SMOOTH + w->power[y * T + x] * (1 - 2 * CC_ESTIMATE_SMOOTH);
  for (int y = 0; y < T; y++)
    for (int x = 0; x < T; x++)
      w->power[y * T + x] = (w->re[((y + T - 1) % T) * T + x] + w->re[((y + 1) % T) * T + x]) *
                              CC_ESTIMATE_SMOOTH + w->re[y * T + x] * (1 - 2 * CC_ESTIMATE_SMOOTH);
  for (int k = 0; k < s->K; k++)
    w->hs[k] = (float) fmax (w->power[s->index[k]], CC_ESTIMATE_H_FLOOR);
  return true;
}

/* A batch of candidates scored on the workers' threads. */
typedef struct
{
  const Spectrum    *s;
  const CcShapeSpec *specs;
  Fit               *fits;
} Batch;

static void
score_range (int64_t begin, int64_t end, void *data)
{
  const Batch *b = data;
  Scratch w;

  if (scratch_new (&w, b->s))
    for (int64_t i = begin; i < end; i++)
      {
        b->fits[i].nll = DBL_MAX;
        if (mask_power (b->s, &b->specs[i], &w))
          b->fits[i] = fit_mask (b->s, w.hs);
      }
  else
    for (int64_t i = begin; i < end; i++)
      b->fits[i].nll = DBL_MAX;
  scratch_free (&w);
}

/* A search's state: where it scores (the workers, or the GPU), and its
 * progress and cancel. */
typedef struct
{
  const Spectrum  *s;
  CcWorkers       *workers;
  struct _CcGpu   *gpu;          /* NULL: the CPU */
  const CcOptions *options;
  int              chunk;        /* the CPU's candidates between two reports */
  int              done, total;  /* candidates scored, and to score */
  CcStatus         status;       /* why the search stopped, where it did */
  char             message[256];
} Search;

/* The candidates' masks as the GPU takes them: each one's taps (x, y and
 * value, about its centre) after the previous one's; a mask that cannot
 * be made or does not fit in half a tile gets no taps and is not scored. */
static bool
gpu_score (Search *se, const CcShapeSpec *specs, int n, Fit *fits)
{
  const int T = se->s->T;
  int *first = malloc (sizeof *first * (n + 1));
  float *taps = NULL, *nll = malloc (sizeof *nll * n);
  size_t used = 0, room = 0;
  bool ok = first && nll;

  for (int i = 0; ok && i < n; i++)
    {
      CcMask mask;
      double *values;
      char why[160];

      first[i] = (int) (used / 3);
      if (!cc_mask_shape (&specs[i], &mask, &values, why, sizeof why))
        continue;
      if (mask.width <= T / 2 && mask.height <= T / 2)
        for (int k = 0; ok && k < mask.width * mask.height; k++)
          {
            if (values[k] == 0.0)
              continue;
            if (used + 3 > room)
              {
                float *grown = realloc (taps, sizeof *taps * (room = room ? 2 * room : 4096));

                ok = grown != NULL;
                taps = grown ? grown : taps;
                if (!ok)
                  break;
              }
            taps[used++] = (float) (k % mask.width - mask.width / 2);
            taps[used++] = (float) (k / mask.width - mask.height / 2);
            taps[used++] = (float) values[k];
          }
      free (values);
    }
  if (!ok)
    {
      se->status = CC_ERROR_OUT_OF_MEMORY;
      snprintf (se->message, sizeof se->message, "out of host memory");
    }
  else
    {
      const CcEstimateSpectrum es = { T, se->s->K, ALPHAS, se->s->index, se->s->power,
                                      se->s->rho_alpha };

      first[n] = (int) (used / 3);
      se->status = cc_gpu_estimate_scores (se->gpu, &es, n, first, taps, nll, se->message,
                                           sizeof se->message);
      for (int i = 0; se->status == CC_OK && i < n; i++)
        fits[i] = (Fit) { first[i + 1] > first[i] && isfinite (nll[i]) ? nll[i] : DBL_MAX };
    }
  free (first);
  free (taps);
  free (nll);
  return se->status == CC_OK;
}

/* Candidates the CPU scores between two reports of progress, at least:
 * a motion line's first grid, scored at once, had been two thirds of its
 * search (3 s on 2 cores) without a report or a chance to cancel.  Four a
 * thread keep many cores busy. */
#define SCORE_CHUNK 16

/* Counts 'n' more candidates scored, reports the share done and asks
 * whether to stop; false (se->status says why) where it should. */
static bool
scored (Search *se, int n)
{
  const CcOptions *o = se->options;

  se->done += n;
  if (o->progress)
    o->progress (fmin (1.0, (double) se->done / se->total), o->user_data);
  if (o->cancel && o->cancel (o->user_data))
    {
      se->status = CC_ERROR_CANCELLED;
      snprintf (se->message, sizeof se->message, "cancelled");
      return false;
    }
  return true;
}

/* Scores 'n' candidates; returns the best's index, or -1 where none could
 * be, or the search stops (se->status says why: the GPU's error, a
 * cancel). */
static int
score (Search *se, const CcShapeSpec *specs, int n, Fit *fits)
{
  int best = -1;

  if (se->status != CC_OK)
    return -1;
  if (se->gpu)
    {
      if (!gpu_score (se, specs, n, fits) || !scored (se, n))
        return -1;
    }
  else
    for (int i0 = 0; i0 < n; i0 += se->chunk)
      {
        const int m = n - i0 < se->chunk ? n - i0 : se->chunk;
        Batch b = { se->s, specs + i0, fits + i0 };

        cc_workers_run (se->workers, m, 1, score_range, &b);
        if (!scored (se, m))
          return -1;
      }
  for (int i = 0; i < n; i++)
    if (fits[i].nll < DBL_MAX && (best < 0 || fits[i].nll < fits[best].nll))
      best = i;
  return best;
}

/* The largest radius a search tries: its mask within half a tile. */
static double
radius_max (int T)
{
  return fmin (T / 4 - 1, 40);
}

/* The best radius of a disc or a Gaussian: a grid a quarter pixel apart,
 * then a twentieth about the best. */
static Fit
search_radius (Search *se, CcShape shape, CcShapeSpec *out)
{
  const Spectrum *s = se->s;
  enum { N = 200 };
  CcShapeSpec specs[N];
  Fit fits[N], best = { DBL_MAX };
  int n = 0, i;
  double centre;

  for (double r = 0.5; r <= radius_max (s->T) && n < N; r += 0.25)
    specs[n++] = (CcShapeSpec) { shape, r, 0.0, 6, 0.0 };
  if ((i = score (se, specs, n, fits)) < 0)
    return best;
  centre = specs[i].radius;
  n = 0;
  for (double r = fmax (0.5, centre - 0.25); r <= centre + 0.25 + 1e-9; r += 0.05)
    specs[n++] = (CcShapeSpec) { shape, r, 0.0, 6, 0.0 };
  if ((i = score (se, specs, n, fits)) < 0)
    return best;
  *out = specs[i];
  return fits[i];
}

/* Refines a motion line about 'c': half-lengths 'dr' apart (nr each
 * way) at angles 'da' apart (5 each way). */
static Fit
refine_motion (Search *se, CcShapeSpec *c, double dr, int nr, double da, CcShapeSpec *specs,
               Fit *fits)
{
  Fit none = { DBL_MAX };
  const CcShapeSpec centre = *c;
  int n = 0, i;

  for (int ka = -5; ka <= 5; ka++)
    for (int kr = -nr; kr <= nr; kr++)
      if (centre.radius + kr * dr >= MOTION_RADIUS_MIN)
        specs[n++] = (CcShapeSpec) { CC_SHAPE_MOTION, centre.radius + kr * dr,
                                     fmod (centre.angle + ka * da + 180.0, 180.0), 6, 0.0 };
  if ((i = score (se, specs, n, fits)) < 0)
    return none;
  *c = specs[i];
  return fits[i];
}

/* The best motion line, 4 pixels long or more (MOTION_RADIUS_MIN: a
 * shorter one cannot be told from the photograph's own grain, which it
 * would describe better than a small Gaussian does): half-lengths a pixel apart at angles
 * 6 degrees apart; about each of the best three, a quarter pixel and a
 * degree apart, then about the best, a tenth of a pixel and a fifth of a
 * degree (the likelihood has a minimum at each of the line's harmonics,
 * which a single descent can stop in). */
static Fit
search_motion (Search *se, CcShapeSpec *out)
{
  const Spectrum *s = se->s;
  const int coarse_n = (int) radius_max (s->T) * 30;
  CcShapeSpec *specs = malloc (sizeof *specs * (coarse_n > 400 ? coarse_n : 400));
  Fit *fits = malloc (sizeof *fits * (coarse_n > 400 ? coarse_n : 400));
  Fit best = { DBL_MAX };
  CcShapeSpec top[3];
  int n = 0, tops = 0;

  if (!specs || !fits)
    goto done;
  for (int r = (int) ceil (MOTION_RADIUS_MIN); r <= (int) radius_max (s->T); r++)
    for (int a = 0; a < 180; a += 6)
      specs[n++] = (CcShapeSpec) { CC_SHAPE_MOTION, r, a, 6, 0.0 };
  if (score (se, specs, n, fits) < 0)
    goto done;
  for (; tops < 3; tops++)
    {
      int i = -1;

      for (int k = 0; k < n; k++)
        if (fits[k].nll < DBL_MAX && (i < 0 || fits[k].nll < fits[i].nll))
          i = k;
      if (i < 0)
        break;
      top[tops] = specs[i];
      fits[i].nll = DBL_MAX;
    }
  for (int t = 0; t < tops; t++)
    {
      Fit f = refine_motion (se, &top[t], 0.25, 6, 1.0, specs, fits);

      if (f.nll < best.nll)
        {
          best = f;
          *out = top[t];
        }
    }
  if (best.nll < DBL_MAX)
    best = refine_motion (se, out, 0.1, 3, 0.2, specs, fits);
done:
  free (specs);
  free (fits);
  return best;
}

/* ---- The estimate ---- */

/* The tile side: 128 (masks to 63 pixels wide, every blur issue 63 names,
 * at a quarter of 256's cost a candidate), or 64 where the region does not
 * hold four tiles of 128 half overlapping; 0 where it does not hold four
 * of 64. */
static int
tile_side (int64_t w, int64_t h)
{
  for (int T = 128; T >= 64; T /= 2)
    if ((w / (T / 2) - 1) * (h / (T / 2) - 1) >= 4)
      return T;
  return 0;
}

/* How sure: the likelihood's gain over no blur, per tile and frequency,
 * 0 for none and towards 1 for a blur the spectrum shows plainly; and
 * for 'auto', shared with the next best shape by their likelihoods
 * (second; DBL_MAX: none, which gives the blur's evidence alone). */
static double
confidence (const Spectrum *s, double none, double best, double second)
{
  const double gain = (none - best) / s->K;
  double c = gain / (gain + 0.05);

  if (second < DBL_MAX)
    c *= 1.0 - exp (-(second - best) * s->tiles / 10.0);
  return c;
}

/* What the call asks, checked: CC_OK, or the refusal and why. */
static CcStatus
check_request (const CcImage *src, const CcRect *rc, CcShape shape, CcResult *r)
{
  if (!src || !src->data || src->on_device || src->channels < 1 || src->channels > 4)
    return cc_fail (r, CC_ERROR_INVALID, "the estimate needs an image in host memory");
  if (shape != CC_SHAPE_MATRIX && shape != CC_SHAPE_DISC && shape != CC_SHAPE_GAUSSIAN &&
      shape != CC_SHAPE_MOTION)
    return cc_fail (r, CC_ERROR_INVALID, "the estimate finds a disc, a gaussian or a motion "
                    "line (or auto: which of them), not a %s", cc_shape_name (shape));
  if (rc->x < 0 || rc->y < 0 || rc->width <= 0 || rc->height <= 0 ||
      rc->x + rc->width > src->width || rc->y + rc->height > src->height)
    return cc_fail (r, CC_ERROR_INVALID, "the region %lldx%lld at (%lld, %lld) is not inside "
                    "the %lldx%lld image", (long long) rc->width, (long long) rc->height,
                    (long long) rc->x, (long long) rc->y, (long long) src->width,
                    (long long) src->height);
  if (!tile_side (rc->width, rc->height))
    return cc_fail (r, CC_ERROR_INVALID, "the region is too small to estimate a blur from: "
                    "%lldx%lld, where 96x96 is the least", (long long) rc->width,
                    (long long) rc->height);
  return CC_OK;
}

/* The fit with no blur (H = 1), what the confidence weighs against: every
 * alpha tried (once an estimate, where the candidates descend). */
static double
fit_none (const Spectrum *s)
{
  float *flat = malloc (sizeof *flat * s->K);
  double best = DBL_MAX;

  if (!flat)
    return DBL_MAX;
  for (int k = 0; k < s->K; k++)
    flat[k] = 1.0f;
  for (int a = 0; a < ALPHAS; a++)
    {
      const Fit f = fit_alpha (s, flat, s->rho_alpha + a * (s->T * s->T / 2));

      if (f.nll < best)
        best = f.nll;
    }
  free (flat);
  return best;
}

/* The candidates a search of 'shape' (auto: all three) scores, for its
 * progress: as search_radius and search_motion make them. */
static int
search_size (CcShape shape, int T)
{
  const int radius = (int) ((radius_max (T) - 0.5) / 0.25) + 1 + 11;
  const int motion = ((int) radius_max (T) - (int) ceil (MOTION_RADIUS_MIN) + 1) * 30 +
                     3 * 11 * 13 + 11 * 7;

  return shape == CC_SHAPE_MATRIX ? 2 * radius + motion
                                  : shape == CC_SHAPE_MOTION ? motion : radius;
}

/* An estimate's search, where cc_run_gpu_or_cpu runs it. */
typedef struct
{
  CcContext      *ctx;
  Search          se;
  CcShape         shape;
  CcBlurEstimate *out;
} Estimate;

/* The best of the shapes 'shape' allows (all three for auto), into 'out';
 * the search's status where it stopped (out of memory, the GPU, a cancel). */
static CcStatus
best_shape (Search *se, CcShape shape, CcBlurEstimate *out, CcResult *r)
{
  static const CcShape shapes[3] = { CC_SHAPE_DISC, CC_SHAPE_GAUSSIAN, CC_SHAPE_MOTION };
  const Spectrum *s = se->s;
  const double none = fit_none (s);
  double best = DBL_MAX, second = DBL_MAX;

  se->done = 0;
  se->total = search_size (shape, s->T);
  for (int i = 0; i < 3; i++)
    {
      CcShapeSpec spec = { shapes[i], 0, 0, 6, 0 };
      Fit f;

      if (shape != CC_SHAPE_MATRIX && shape != shapes[i])
        continue;
      f = shapes[i] == CC_SHAPE_MOTION ? search_motion (se, &spec)
                                       : search_radius (se, shapes[i], &spec);
      if (se->status != CC_OK)
        return cc_fail (r, se->status, "%s", se->message);
      /* The line's angle is a parameter more: Schwarz's criterion weighs it. */
      if (shapes[i] == CC_SHAPE_MOTION && f.nll < DBL_MAX)
        f.nll += 0.5 * log ((double) s->K * s->tiles) / s->tiles;
      if (f.nll < best)
        {
          second = best;
          best = f.nll;
          out->shape = spec.shape;
          out->radius = spec.radius;
          out->angle = spec.angle;
        }
      else if (f.nll < second)
        second = f.nll;
    }
  if (best == DBL_MAX || none == DBL_MAX)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* The search's size was its most; it is done. */
  if (se->options->progress)
    se->options->progress (1.0, se->options->user_data);
  out->confidence = confidence (s, none, best, second);
  /* Two shapes that fit alike share the confidence; the evidence for a
   * blur at all is the best's gain alone. */
  if (confidence (s, none, best, DBL_MAX) < CONFIDENCE_LEAST)
    return cc_fail (r, CC_ERROR_INVALID, "no blur found: the image is about as likely "
                    "without one (confidence %.2f)", confidence (s, none, best, DBL_MAX));
  return CC_OK;
}

static CcStatus
estimate_usable (void *data, char *why, size_t size)
{
  return cc_context_gpu_status (((Estimate *) data)->ctx, why, size);
}

static CcStatus
estimate_gpu (void *data, CcResult *r)
{
  Estimate *e = data;
  CcStatus status;

  e->se.gpu = e->ctx->gpu;
  e->se.status = CC_OK;
  if ((status = best_shape (&e->se, e->shape, e->out, r)) == CC_OK)
    {
      snprintf (r->device, sizeof r->device, "%s", cc_gpu_name (e->ctx->gpu));
      snprintf (r->kernel, sizeof r->kernel, "gpu estimate");
    }
  return status;
}

static CcStatus
estimate_cpu (void *data, CcResult *r)
{
  Estimate *e = data;
  CcStatus status;

  e->se.gpu = NULL;
  e->se.status = CC_OK;
  if ((status = best_shape (&e->se, e->shape, e->out, r)) == CC_OK)
    {
      r->method_used = CC_METHOD_CPU;
      snprintf (r->device, sizeof r->device, "%s", e->ctx->cpu_name);
      snprintf (r->kernel, sizeof r->kernel, "cpu estimate");
    }
  return status;
}

CcStatus
cc_estimate_blur (CcContext *ctx, const CcImage *src, const CcRect *region, CcShape shape,
                  const CcOptions *options, CcBlurEstimate *out, CcResult *r)
{
  const CcRect rc = region ? *region : (CcRect) { 0, 0, src ? src->width : 0,
                                                  src ? src->height : 0 };
  const double start = cc_now_ms ();
  CcOptions defaults;
  CcStatus status;
  Spectrum s = { 0 };
  CcWorkers *workers = NULL;
  float *plane = NULL;
  double *full = NULL;
  const char *why;
  char note[sizeof r->message];
  int T, tiles;

  memset (r, 0, sizeof *r);
  memset (out, 0, sizeof *out);
  if (!options)
    {
      cc_options_init (&defaults);
      options = &defaults;
    }
  if ((status = check_request (src, &rc, shape, r)) != CC_OK)
    return status;
  T = tile_side (rc.width, rc.height);
  if (!(plane = cc_luminance (src, &rc, options->transfer, options->has_alpha)))
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory");
  if ((why = plane_refusal (plane, rc.width * rc.height)))
    status = cc_fail (r, CC_ERROR_INVALID, "no blur can be estimated from this image: %s", why);
  else if (!(full = malloc (sizeof *full * T * T)) ||
           !periodogram ((workers = cc_workers_new (ctx->threads - 1)), plane, rc.width,
                         rc.height, T, full, &tiles) ||
           !spectrum_new (full, T, tiles, &s))
    status = cc_fail (r, CC_ERROR_OUT_OF_MEMORY, "out of host memory");
  else
    {
      const int chunk = 4 * ctx->threads > SCORE_CHUNK ? 4 * ctx->threads : SCORE_CHUNK;
      Estimate e = { ctx, { &s, workers, NULL, options, chunk, 0, 0, CC_OK, "" }, shape, out };
      const CcGpuOrCpu where = { estimate_usable, estimate_gpu, estimate_cpu, &e, false };
      const double searched = cc_now_ms ();

      status = cc_run_gpu_or_cpu (options->method, &where, note, sizeof note, r);
      r->kernel_ms = cc_now_ms () - searched;
      if (status == CC_OK)
        snprintf (r->message, sizeof r->message, "%s", note);
      else
        memset (out, 0, sizeof *out);
    }
  r->total_ms = cc_now_ms () - start;
  cc_workers_free (workers);
  spectrum_free (&s);
  free (full);
  free (plane);
  return r->status = status;
}
