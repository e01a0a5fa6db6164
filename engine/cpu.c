/* The CPU path (method "cpu"): worker threads take tiles of the output; each
 * converts its tile's input, halo included, to float once, border resolved,
 * then adds one shifted row per mask tap (a loop the compiler vectorises),
 * or for a rank-1 mask a column pass and a row pass; or, where that costs
 * less, transforms its tile with FFTW (cpu-fft.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "pixel.h"
#include "samples.h"

typedef struct
{
  const CcJob      *job;
  const CcCpuFft   *fft;          /* FFT tiles, or NULL: direct sums */
  int64_t           tile_w;
  int64_t           tile_h;
  int64_t           tiles_x;
  int64_t           tiles;
  atomic_llong      next;
  atomic_llong      done;
  atomic_bool       stop;
  atomic_int        status;
  pthread_mutex_t   lock;
  pthread_cond_t    cond;
  int               running;
} CpuRun;

/* Colour times alpha (alpha itself in its own slot) and |alpha|, for each
 * of n pixels; alpha is the last channel. */
static inline __attribute__ ((always_inline)) void
weigh (const float *in, int64_t n, int C, float *restrict ca, float *restrict absa)
{
  for (int64_t p = 0; p < n; p++)
    {
      const float alpha = in[p * C + C - 1];

      for (int c = 0; c < C - 1; c++)
        ca[p * C + c] = in[p * C + c] * alpha;
      ca[p * C + C - 1] = alpha;
      absa[p] = fabsf (alpha);
    }
}

/* Each pixel's sum |k a| to its colour samples, 0 to its alpha sample. */
static inline __attribute__ ((always_inline)) void
spread (const float *restrict wabs, int64_t n, int C, float *restrict wsum)
{
  for (int64_t x = 0; x < n; x++)
    {
      for (int c = 0; c < C - 1; c++)
        wsum[x * C + c] = wabs[x];
      wsum[x * C + C - 1] = 0.0f;
    }
}

/* 'count' samples of a source row from sample 'first' (a pixel's first) as
 * float: in linear light through the job's transfer, if any. */
static inline void
load_samples (const CcJob *job, const void *row, int64_t first, int64_t count, float *out)
{
  if (job->transfer)
    cc_samples_decode (row, job->transfer, job->channels, job->colour, first, count, out);
  else
    cc_samples_to_float (row, job->src->type, first, count, out);
}

CC_HOT void
cc_cpu_load_tile (const CcJob *job, int64_t x0, int64_t y0, int64_t in_w, int64_t in_h,
                  CpuScratch *s)
{
  const CcImage *src = job->src;
  const int C = job->channels;
  const int rx = (job->mask_width - 1) / 2, ry = (job->mask_height - 1) / 2;
  const int64_t sx0 = job->out_x + x0 - rx;
  /* The part of the row inside the source, converted in one run. */
  const int64_t lo = sx0 < 0 ? 0 : sx0;
  const int64_t hi = sx0 + in_w > src->width ? src->width : sx0 + in_w;

  for (int64_t r = 0; r < in_h; r++)
    {
      int64_t sy = cc_border_index (job->out_y + y0 - ry + r, src->height, job->border);
      float *dst = s->in + r * in_w * C;
      const char *row;

      if (sy < 0)
        {
          memset (dst, 0, sizeof (float) * in_w * C);
          continue;
        }
      row = (const char *) src->data + sy * src->stride;
      if (hi > lo)
        load_samples (job, row, lo * C, (hi - lo) * C, dst + (lo - sx0) * C);
      for (int64_t x = 0; x < in_w; x++)
        {
          int64_t sx = sx0 + x, mx;

          if (sx >= lo && sx < hi)
            continue;
          mx = cc_border_index (sx, src->width, job->border);
          if (mx < 0)
            memset (dst + x * C, 0, sizeof (float) * C);
          else
            load_samples (job, row, mx * C, C, dst + x * C);
        }
    }

  if (job->weighted)
    {
      /* A constant C lets the loop vectorise. */
      if (C == 4)
        weigh (s->in, in_w * in_h, 4, s->ca, s->absa);
      else if (C == 2)
        weigh (s->in, in_w * in_h, 2, s->ca, s->absa);
      else
        weigh (s->in, in_w * in_h, C, s->ca, s->absa);
    }
}

/* acc[s] (+)= sum over taps t of k[t] * row[t][s], s < n: four taps a pass,
 * so that the accumulator is read and written once for four; 'set' starts
 * from zero instead of adding. */
static inline __attribute__ ((always_inline)) void
sum_taps (float *restrict acc, const float *const *row, const float *k, int taps,
          int64_t n, bool set)
{
  int t = 0;

  for (; t + 4 <= taps; t += 4, set = false)
    {
      const float *a = row[t], *b = row[t + 1], *c = row[t + 2], *d = row[t + 3];
      const float ka = k[t], kb = k[t + 1], kc = k[t + 2], kd = k[t + 3];

      if (set)
        for (int64_t s = 0; s < n; s++)
          acc[s] = ka * a[s] + kb * b[s] + kc * c[s] + kd * d[s];
      else
        for (int64_t s = 0; s < n; s++)
          acc[s] += ka * a[s] + kb * b[s] + kc * c[s] + kd * d[s];
    }
  for (; t < taps; t++, set = false)
    {
      const float *a = row[t], ka = k[t];

      if (set)
        for (int64_t s = 0; s < n; s++)
          acc[s] = ka * a[s];
      else
        for (int64_t s = 0; s < n; s++)
          acc[s] += ka * a[s];
    }
  if (set)
    memset (acc, 0, sizeof (float) * n);
}

/* Gathers the non-zero taps of a mask row (or column: 'step' apart) as
 * rows of 'in' 'shift' floats apart, then sums them into acc. */
static inline __attribute__ ((always_inline)) void
sum_line (float *restrict acc, const float *in, int64_t shift, const float *mask, int step,
          int count, bool absolute, int64_t n, bool set)
{
  const float *row[CC_MASK_MAX];
  float k[CC_MASK_MAX];
  int taps = 0;

  for (int i = 0; i < count; i++)
    {
      const float v = absolute ? fabsf (mask[i * step]) : mask[i * step];

      if (v != 0.0f)
        {
          row[taps] = in + i * shift;
          k[taps++] = v;
        }
    }
  sum_taps (acc, row, k, taps, n, set);
}

/* One output row's sums over 'in' (rows of in_w pixels of C samples, the
 * first the output row's top halo row): every tap, or for a rank-1 mask
 * u v^T a column pass into 'line' then a row pass, h + w taps instead of
 * h * w.  'absolute' sums |k| instead of k (alpha weighting's sum |k a|,
 * which stays rank-1: |u_j v_i| = |u_j| |v_i|). */
CC_HOT static void
sum_row (const CcJob *job, const float *in, int64_t in_w, int C, int64_t tw,
         bool separable, bool absolute, float *line, float *acc)
{
  const int w = job->mask_width, h = job->mask_height;

  if (separable)
    {
      sum_line (line, in, in_w * C, job->sep_u, 1, h, absolute, in_w * C, true);
      sum_line (acc, line, C, job->sep_v, 1, w, absolute, tw * C, true);
      return;
    }
  for (int j = 0; j < h; j++)
    sum_line (acc, in + j * in_w * C, C, job->mask + j * w, 1, w, absolute, tw * C, j == 0);
}

CC_HOT void
cc_cpu_compute_tile (const CcJob *job, int64_t x0, int64_t y0, int64_t tw, int64_t th,
                     CpuScratch *s)
{
  const int C = job->channels, w = job->mask_width, h = job->mask_height;
  const int64_t in_w = tw + w - 1, in_h = th + h - 1;
  const bool weighted = job->weighted;
  const bool separable = job->terms == 1 && cc_cpu_two_passes_pay (w, h);

  cc_cpu_load_tile (job, x0, y0, in_w, in_h, s);

  for (int64_t r = 0; r < th; r++)
    {
      const float *plain = s->plain;

      if (weighted)
        {
          bool all_weighted = true;

          sum_row (job, s->ca + r * in_w * C, in_w, C, tw, separable, false, s->line,
                   s->kca);
          sum_row (job, s->absa + r * in_w, in_w, 1, tw, separable, true, s->line,
                   s->wabs);
          for (int64_t x = 0; x < tw; x++)
            all_weighted &= s->wabs[x] != 0.0f;
          /* The plain sums serve only pixels whose sum |k a| is 0, and alpha,
           * whose sum kca already holds (ca keeps alpha in its slot): where
           * no pixel of the row needs them, kca stands in, with the same
           * bits, and the row costs five sums a pixel instead of nine. */
          if (all_weighted)
            plain = s->kca;
          else
            sum_row (job, s->in + r * in_w * C, in_w, C, tw, separable, false, s->line,
                     s->plain);
        }
      else
        sum_row (job, s->in + r * in_w * C, in_w, C, tw, separable, false, s->line, s->plain);

      /* One loop over the row's samples that vectorises: sum |k a| spread
       * to every colour sample, 0 in alpha's (the plain formula there);
       * copied channels are overwritten below. */
      if (weighted)
        {
          if (C == 4)
            spread (s->wabs, tw, 4, s->wsum);
          else
            spread (s->wabs, tw, C, s->wsum);
          for (int64_t i = 0; i < tw * C; i++)
            s->out[i] = cc_finish_weighted (plain[i], s->kca[i], s->wsum[i], job->sum_abs,
                                            job->inv_divisor, job->offset, job->clamp);
        }
      else
        for (int64_t i = 0; i < tw * C; i++)
          s->out[i] = cc_finish (plain[i], job->inv_divisor, job->offset, job->clamp);
      cc_cpu_store_row (job, x0, y0 + r, tw, s->out);
    }
}

void
cc_cpu_scratch_free (CpuScratch *s)
{
  free (s->in);
  free (s->ca);
  free (s->absa);
  free (s->plain);
  free (s->kca);
  free (s->wabs);
  free (s->wsum);
  free (s->line);
  free (s->out);
}

bool
cc_cpu_scratch_alloc (const CcJob *job, int64_t tile_w, int64_t tile_h, CpuScratch *s)
{
  const int C = job->channels;
  const size_t in_px = (size_t) (tile_w + job->mask_width - 1) *
                       (tile_h + job->mask_height - 1);
  const bool weighted = job->weighted;

  memset (s, 0, sizeof *s);
  if (cc_fault ("cpu"))
    return false;
  s->tile_w = tile_w;
  s->tile_h = tile_h;
  s->in    = malloc (sizeof (float) * in_px * C);
  s->plain = malloc (sizeof (float) * tile_w * C);
  s->out   = malloc (sizeof (float) * tile_w * C);
  s->line  = malloc (sizeof (float) * (tile_w + job->mask_width - 1) * C);
  if (weighted)
    {
      s->ca   = malloc (sizeof (float) * in_px * C);
      s->absa = malloc (sizeof (float) * in_px);
      s->kca  = malloc (sizeof (float) * tile_w * C);
      s->wabs = malloc (sizeof (float) * tile_w);
      s->wsum = malloc (sizeof (float) * tile_w * C);
    }
  if (!s->in || !s->plain || !s->out || !s->line ||
      (weighted && (!s->ca || !s->absa || !s->kca || !s->wabs || !s->wsum)))
    {
      cc_cpu_scratch_free (s);
      return false;
    }
  return true;
}

static void *
worker (void *data)
{
  CpuRun *run = data;
  const CcJob *job = run->job;
  CpuScratch s;
  void *fft_scratch = NULL;
  int64_t t;

  if (!cc_cpu_scratch_alloc (job, run->tile_w, run->tile_h, &s) ||
      (run->fft && !(fft_scratch = cc_cpu_fft_scratch_new (run->fft))))
    atomic_store (&run->status, CC_ERROR_OUT_OF_MEMORY);
  else
    while (!atomic_load (&run->stop) && (t = atomic_fetch_add (&run->next, 1)) < run->tiles)
      {
        int64_t x0 = (t % run->tiles_x) * run->tile_w, y0 = (t / run->tiles_x) * run->tile_h;
        int64_t tw = job->dst->width - x0 < run->tile_w ? job->dst->width - x0 : run->tile_w;
        int64_t th = job->dst->height - y0 < run->tile_h ? job->dst->height - y0 : run->tile_h;

        if (run->fft)
          cc_cpu_fft_tile (run->fft, job, x0, y0, tw, th, fft_scratch, &s);
        else
          cc_cpu_compute_tile (job, x0, y0, tw, th, &s);
        atomic_fetch_add (&run->done, 1);
      }
  cc_cpu_fft_scratch_free (fft_scratch);
  cc_cpu_scratch_free (&s);

  pthread_mutex_lock (&run->lock);
  run->running--;
  pthread_cond_signal (&run->cond);
  pthread_mutex_unlock (&run->lock);
  return NULL;
}

CcStatus
cc_cpu_run (CcContext *ctx, const CcJob *job, CcResult *result)
{
  CpuRun run;
  CcCpuFft *fft;
  pthread_t threads[256];
  int n = 0;
  double t0 = cc_now_ms ();
  bool cancelled = false;

  if (cc_job_tick (job, 0.0))
    return cc_fail (result, CC_ERROR_CANCELLED, "cancelled");
  memset (&run, 0, sizeof run);
  run.job = job;
  run.fft = fft = cc_fault ("cpu") ? NULL : cc_cpu_fft_new (job);
  run.tile_w = CC_CPU_TILE_W;
  run.tile_h = CC_CPU_TILE_H;
  if (fft)
    cc_cpu_fft_tile_size (fft, &run.tile_w, &run.tile_h);
  run.tiles_x = (job->dst->width + run.tile_w - 1) / run.tile_w;
  run.tiles = run.tiles_x * ((job->dst->height + run.tile_h - 1) / run.tile_h);
  atomic_init (&run.status, CC_OK);
  pthread_mutex_init (&run.lock, NULL);
  pthread_cond_init (&run.cond, NULL);

  pthread_mutex_lock (&run.lock);
  for (int i = 0; i < ctx->threads && i < run.tiles; i++)
    {
      if (pthread_create (&threads[n], NULL, worker, &run) != 0)
        break;
      n++;
      run.running++;
    }
  /* The caller's thread reports progress and polls for cancel, so that the
   * callbacks never run on a worker. */
  while (run.running > 0)
    {
      struct timespec ts;

      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_nsec += 50 * 1000000L;
      if (ts.tv_nsec >= 1000000000L)
        {
          ts.tv_sec++;
          ts.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&run.cond, &run.lock, &ts);
      pthread_mutex_unlock (&run.lock);
      if (!cancelled && cc_job_tick (job, (double) atomic_load (&run.done) / run.tiles))
        {
          cancelled = true;
          atomic_store (&run.stop, true);
        }
      pthread_mutex_lock (&run.lock);
    }
  pthread_mutex_unlock (&run.lock);
  for (int i = 0; i < n; i++)
    pthread_join (threads[i], NULL);
  pthread_mutex_destroy (&run.lock);
  pthread_cond_destroy (&run.cond);
  cc_cpu_fft_free (fft);

  result->method_used = CC_METHOD_CPU;
  snprintf (result->kernel, sizeof result->kernel, "%s",
            fft ? "cpu fft" : job->terms == 1 && cc_cpu_two_passes_pay (job->mask_width,
                                                                      job->mask_height)
                              ? "cpu two passes" : "cpu direct");
  result->strips = (int) run.tiles;
  snprintf (result->device, sizeof result->device, "%s", ctx->cpu_name);
  result->kernel_ms = cc_now_ms () - t0;

  if (n == 0)
    return cc_fail (result, CC_ERROR_OUT_OF_MEMORY, "could not start a CPU thread");
  if (cancelled)
    return cc_fail (result, CC_ERROR_CANCELLED, "cancelled");
  if (atomic_load (&run.status) != CC_OK)
    return cc_fail (result, atomic_load (&run.status),
                    "out of host memory for the CPU path's tiles");
  cc_job_tick (job, 1.0);
  return CC_OK;
}
