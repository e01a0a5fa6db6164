/* Large masks on the CPU through FFTW: overlap-save tiles, each channel's
 * plane transformed once, multiplied by the mask's conjugate spectrum
 * (correlation, as the direct sums), and transformed back; the tile's
 * outputs are the part the wrap-around does not reach.  With alpha
 * weighting the planes are colour times alpha, alpha, and |alpha| against
 * |mask|'s spectrum for the weight sum |k a|, the plain colour only where a
 * pixel's weight is nought; where the weight is neither nought nor well
 * above the transform's rounding, that pixel is summed directly, as the
 * GPU's fft does (kernels/fft.cu).  Single precision, like every path.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "pixel.h"

#ifdef HAVE_FFTW
#include <fftw3.h>

/* Weight shares (sum |k a| over sum |k|) at or under which a pixel counts as
 * unweighted, and above which the quotient of the two transformed sums is
 * kept; between them the pixel is summed directly.  As the GPU's fft. */
#define WEIGHT_NOUGHT   1e-6f
#define WEIGHT_QUOTIENT 1e-2f

pthread_mutex_t cc_fftw_planner_lock = PTHREAD_MUTEX_INITIALIZER;

struct _CcCpuFft
{
  int            tx, ty;        /* the transform's sides */
  int            cx;            /* complex columns: tx / 2 + 1 */
  int64_t        tile_w, tile_h;   /* outputs a tile: tx - w + 1, ty - h + 1 */
  fftwf_plan     forward, inverse;
  fftwf_complex *mask;          /* conj (mask's spectrum) / (tx ty) */
  fftwf_complex *abs_mask;      /* the same of |mask|, with alpha weighting */
};

typedef struct
{
  float         *real;          /* ty x tx */
  fftwf_complex *spectrum;      /* ty x cx */
  float         *sums;          /* planes x tile_h x tile_w: the transformed sums */
} FftScratch;

/* FFTW's fast sides, and what a transform costs there against a power of
 * two's (FFTW is near that speed on 2^a 3^b 5^c). */
static const int sides[] = { 32, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768,
                             1024, 1280, 1536, 2048 };

/* Floating-point operations a tile's planes cost, per output pixel. */
static double
fft_cost (int tx, int ty, int w, int h, int planes)
{
  const double n = (double) tx * ty, outputs = (double) (tx - w + 1) * (ty - h + 1);

  /* A real 2D transform each way (about 2.5 n log2 n each), the product,
   * the copies in and out. */
  return planes * (5.0 * n * log2 (n) + 8.0 * n) / outputs;
}

/* The direct sums' cost per output pixel: two flops a tap a plane, at FMA
 * speed in vectors, which FFTW's flops do not reach.  The factor puts the
 * crossing where it was measured, at 15x15 (docs/performance-log.md). */
#define DIRECT_ADVANTAGE 4.5

static double
direct_cost (const CcJob *job)
{
  const int w = job->mask_width, h = job->mask_height, C = job->channels;
  const double taps = job->terms == 1 && cc_cpu_two_passes_pay (w, h) ? w + h : (double) w * h;
  /* With alpha weighting, colour times alpha and |k a| (the plain sums
   * only where a row has a pixel of weight nought). */
  const double planes = job->weighted ? C + 1 : C;

  return 2.0 * taps * planes / DIRECT_ADVANTAGE;
}

/* The mask's spectrum for correlation: conj (FFT (k at the origin)),
 * scaled by 1 / (tx ty) for the unnormalised inverse. */
static fftwf_complex *
spectrum_of (const CcCpuFft *f, const float *mask, int w, int h, bool absolute)
{
  float *real = fftwf_alloc_real ((size_t) f->tx * f->ty);
  fftwf_complex *spec = fftwf_alloc_complex ((size_t) f->cx * f->ty);
  const float scale = 1.0f / ((float) f->tx * f->ty);

  if (!real || !spec)
    {
      fftwf_free (real);
      fftwf_free (spec);
      return NULL;
    }
  memset (real, 0, sizeof (float) * f->tx * f->ty);
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      real[j * f->tx + i] = absolute ? fabsf (mask[j * w + i]) : mask[j * w + i];
  fftwf_execute_dft_r2c (f->forward, real, spec);
  for (size_t k = 0; k < (size_t) f->cx * f->ty; k++)
    {
      spec[k][0] *= scale;
      spec[k][1] *= -scale;
    }
  fftwf_free (real);
  return spec;
}

/* What a worker holds for tiles of these sides: the loaded input (as
 * float, colour times alpha and |alpha|), a plane and its spectrum, and
 * the transformed sums. */
static double
worker_bytes (int tx, int ty, int w, int h, int C)
{
  return 4.0 * tx * ty * (2 * C + 2) + 8.0 * (tx / 2 + 1) * ty +
         4.0 * 9 * (tx - w + 1) * (ty - h + 1);
}

/* Sides past 1024 only where a worker's buffers stay under this, or the
 * mask needs them: each of the CPU's threads holds its own. */
#define WORKER_BYTES (96.0 * 1024 * 1024)

CcCpuFft *
cc_cpu_fft_new (const CcJob *job)
{
  const int w = job->mask_width, h = job->mask_height, C = job->channels;
  const int planes = job->weighted ? C + 1 : C;
  const int64_t W = job->dst->width, H = job->dst->height;
  double best = direct_cost (job);
  int tx = 0, ty = 0;
  CcCpuFft *f;
  float *real;
  fftwf_complex *spec;

  /* The sides that cost least an output, counting the tiles an image of
   * this size really takes (a tile larger than the image is wasted). */
  for (size_t a = 0; a < sizeof sides / sizeof sides[0]; a++)
    for (size_t b = 0; b < sizeof sides / sizeof sides[0]; b++)
      {
        const int sx = sides[a], sy = sides[b];
        double cost;

        if (sx < w + 15 || sy < h + 15 ||
            (worker_bytes (sx, sy, w, h, C) > WORKER_BYTES && (sx > 1024 || sy > 1024) &&
             w + 15 <= 1024 && h + 15 <= 1024))
          continue;
        cost = fft_cost (sx, sy, w, h, planes) *
               (double) ((W + sx - w) / (sx - w + 1) * (sx - w + 1)) / W *
               (double) ((H + sy - h) / (sy - h + 1) * (sy - h + 1)) / H;
        if (cost < best)
          {
            best = cost;
            tx = sx;
            ty = sy;
          }
      }
  if (!tx || !(f = calloc (1, sizeof *f)))
    return NULL;
  f->tx = tx;
  f->ty = ty;
  f->cx = tx / 2 + 1;
  f->tile_w = tx - w + 1;
  f->tile_h = ty - h + 1;
  real = fftwf_alloc_real ((size_t) tx * ty);
  spec = fftwf_alloc_complex ((size_t) f->cx * ty);
  pthread_mutex_lock (&cc_fftw_planner_lock);
  if (real && spec)
    {
      f->forward = fftwf_plan_dft_r2c_2d (ty, tx, real, spec, FFTW_ESTIMATE);
      f->inverse = fftwf_plan_dft_c2r_2d (ty, tx, spec, real, FFTW_ESTIMATE);
    }
  pthread_mutex_unlock (&cc_fftw_planner_lock);
  fftwf_free (real);
  fftwf_free (spec);
  if (!f->forward || !f->inverse ||
      !(f->mask = spectrum_of (f, job->mask, w, h, false)) ||
      (job->weighted && !(f->abs_mask = spectrum_of (f, job->mask, w, h, true))))
    {
      cc_cpu_fft_free (f);
      return NULL;
    }
  return f;
}

void
cc_cpu_fft_free (CcCpuFft *f)
{
  if (!f)
    return;
  pthread_mutex_lock (&cc_fftw_planner_lock);
  if (f->forward)
    fftwf_destroy_plan (f->forward);
  if (f->inverse)
    fftwf_destroy_plan (f->inverse);
  pthread_mutex_unlock (&cc_fftw_planner_lock);
  fftwf_free (f->mask);
  fftwf_free (f->abs_mask);
  free (f);
}

void
cc_cpu_fft_tile_size (const CcCpuFft *f, int64_t *tile_w, int64_t *tile_h)
{
  *tile_w = f->tile_w;
  *tile_h = f->tile_h;
}

void *
cc_cpu_fft_scratch_new (const CcCpuFft *f)
{
  FftScratch *s = calloc (1, sizeof *s);

  if (!s)
    return NULL;
  s->real = fftwf_alloc_real ((size_t) f->tx * f->ty);
  s->spectrum = fftwf_alloc_complex ((size_t) f->cx * f->ty);
  /* Plain sums and colour times alpha (C planes each, C to 4), |k a|. */
  s->sums = malloc (sizeof (float) * 9 * f->tile_w * f->tile_h);
  if (!s->real || !s->spectrum || !s->sums)
    {
      cc_cpu_fft_scratch_free (s);
      return NULL;
    }
  return s;
}

void
cc_cpu_fft_scratch_free (void *scratch)
{
  FftScratch *s = scratch;

  if (!s)
    return;
  fftwf_free (s->real);
  fftwf_free (s->spectrum);
  free (s->sums);
  free (s);
}

/* Correlates one plane (sample 'c' of every 'stride' floats of 'in', rows
 * in_w pixels wide) with a spectrum; the tile's outputs into 'out'. */
static void
correlate (const CcCpuFft *f, FftScratch *s, const float *in, int stride, int c,
           int64_t in_w, int64_t in_h, const fftwf_complex *spectrum, int64_t tw,
           int64_t th, float *out)
{
  memset (s->real, 0, sizeof (float) * f->tx * f->ty);
  for (int64_t y = 0; y < in_h; y++)
    for (int64_t x = 0; x < in_w; x++)
      s->real[y * f->tx + x] = in[(y * in_w + x) * stride + c];
  fftwf_execute_dft_r2c (f->forward, s->real, s->spectrum);
  for (size_t k = 0; k < (size_t) f->cx * f->ty; k++)
    {
      const float re = s->spectrum[k][0], im = s->spectrum[k][1];

      s->spectrum[k][0] = re * spectrum[k][0] - im * spectrum[k][1];
      s->spectrum[k][1] = re * spectrum[k][1] + im * spectrum[k][0];
    }
  fftwf_execute_dft_c2r (f->inverse, s->spectrum, s->real);
  for (int64_t y = 0; y < th; y++)
    memcpy (out + y * tw, s->real + y * f->tx, sizeof (float) * tw);
}

/* One pixel's sums by the definition, from the loaded tile. */
static void
exact_sums (const CcJob *job, const CpuScratch *t, int64_t in_w, int64_t x, int64_t y,
            float *plain, float *kca, float *wabs)
{
  const int C = job->channels, w = job->mask_width, h = job->mask_height;

  memset (plain, 0, sizeof (float) * C);
  memset (kca, 0, sizeof (float) * C);
  *wabs = 0.0f;
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      {
        const float k = job->mask[j * w + i];
        const int64_t p = (y + j) * in_w + x + i;

        for (int c = 0; c < C; c++)
          {
            plain[c] += k * t->in[p * C + c];
            kca[c] += k * t->ca[p * C + c];
          }
        *wabs += fabsf (k) * t->absa[p];
      }
}

static bool
all_finite (const float *v, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    if (!isfinite (v[i]))
      return false;
  return true;
}

void
cc_cpu_fft_tile (const CcCpuFft *f, const CcJob *job, int64_t x0, int64_t y0, int64_t tw,
                 int64_t th, void *scratch, CpuScratch *t)
{
  FftScratch *s = scratch;
  const int C = job->channels;
  const int64_t in_w = tw + job->mask_width - 1, in_h = th + job->mask_height - 1;
  const int64_t n = tw * th;
  float *const plain = s->sums, *const kca = s->sums + C * n, *const wabs = s->sums + 2 * C * n;
  bool need_plain = !job->weighted;

  /* A colour channel by the plain formula in a weighted job needs its
   * plain sums everywhere. */
  for (int c = 0; c + 1 < C && !need_plain; c++)
    need_plain = job->mode[c] == CC_MODE_PLAIN;

  cc_cpu_load_tile (job, x0, y0, in_w, in_h, t);
  /* A transform spreads an infinity or a NaN over its whole plane; the
   * direct sums keep it where the mask reaches. */
  if (!all_finite (t->in, in_w * in_h * C))
    {
      for (int64_t y = 0; y < th; y += CC_CPU_TILE_H)
        for (int64_t x = 0; x < tw; x += CC_CPU_TILE_W)
          cc_cpu_compute_tile (job, x0 + x, y0 + y,
                               tw - x < CC_CPU_TILE_W ? tw - x : CC_CPU_TILE_W,
                               th - y < CC_CPU_TILE_H ? th - y : CC_CPU_TILE_H, t);
      return;
    }
  if (job->weighted)
    {
      for (int c = 0; c < C; c++)
        correlate (f, s, t->ca, C, c, in_w, in_h, f->mask, tw, th, kca + c * n);
      correlate (f, s, t->absa, 1, 0, in_w, in_h, f->abs_mask, tw, th, wabs);
      for (int64_t i = 0; i < n && !need_plain; i++)
        need_plain = wabs[i] <= WEIGHT_NOUGHT * job->sum_abs;
    }
  if (need_plain)
    for (int c = 0; c < C; c++)
      correlate (f, s, t->in, C, c, in_w, in_h, f->mask, tw, th, plain + c * n);

  for (int64_t y = 0; y < th; y++)
    {
      for (int64_t x = 0; x < tw; x++)
        {
          const int64_t i = y * tw + x;
          float *out = t->out + x * C;

          if (!job->weighted)
            {
              for (int c = 0; c < C; c++)
                out[c] = cc_finish (plain[c * n + i], job->inv_divisor, job->offset, job->clamp);
              continue;
            }
          {
            const float share = job->sum_abs > 0.0f ? wabs[i] / job->sum_abs : 0.0f;
            float p[4], k[4], wa = wabs[i];

            for (int c = 0; c < C; c++)
              {
                p[c] = need_plain ? plain[c * n + i] : 0.0f;
                k[c] = kca[c * n + i];
              }
            if (share <= WEIGHT_NOUGHT)
              wa = 0.0f;
            else if (share <= WEIGHT_QUOTIENT)
              exact_sums (job, t, in_w, x, y, p, k, &wa);
            for (int c = 0; c < C; c++)
              out[c] = job->mode[c] == CC_MODE_WEIGHTED
                       ? cc_finish_weighted (p[c], k[c], wa, job->sum_abs, job->inv_divisor,
                                             job->offset, job->clamp)
                       /* alpha (and kept channels): its sum is in kca's slot */
                       : cc_finish (c == C - 1 ? k[c] : p[c], job->inv_divisor, job->offset,
                                    job->clamp);
          }
        }
      cc_cpu_store_row (job, x0, y0 + y, tw, t->out);
    }
}

#else

CcCpuFft *
cc_cpu_fft_new (const CcJob *job)
{
  return NULL;
}

void
cc_cpu_fft_free (CcCpuFft *fft)
{
}

void
cc_cpu_fft_tile_size (const CcCpuFft *fft, int64_t *tile_w, int64_t *tile_h)
{
}

void *
cc_cpu_fft_scratch_new (const CcCpuFft *fft)
{
  return NULL;
}

void
cc_cpu_fft_scratch_free (void *scratch)
{
}

void
cc_cpu_fft_tile (const CcCpuFft *fft, const CcJob *job, int64_t x0, int64_t y0, int64_t tw,
                 int64_t th, void *scratch, CpuScratch *s)
{
}

#endif
