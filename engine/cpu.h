/* The CPU path's pieces shared by its direct sums (cpu.c) and its FFT tiles
 * (cpu-fft.c).  Internal to engine/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_CPU_H
#define CC_CPU_H

#include "engine.h"

/* Direct sums' tiles: output pixels across, rows down. */
#define CC_CPU_TILE_W 256
#define CC_CPU_TILE_H 32

/* A worker's buffers, for tiles of up to tile_w x tile_h outputs. */
typedef struct
{
  int64_t tile_w, tile_h;
  float *in;     /* (tile_h + h - 1) rows of (tile_w + w - 1) * C samples */
  float *ca;     /* the same, colour times alpha (weighted only) */
  float *absa;   /* |alpha| per pixel (weighted only) */
  float *plain;  /* tile_w * C accumulators */
  float *kca;
  float *wabs;   /* tile_w accumulators */
  float *wsum;   /* the same spread over the row's samples */
  float *line;   /* one input row's column sums (separable) */
  float *out;
} CpuScratch;

bool cc_cpu_scratch_alloc (const CcJob *job, int64_t tile_w, int64_t tile_h, CpuScratch *s);
void cc_cpu_scratch_free  (CpuScratch *s);
/* Fills s->in (and with alpha weighting s->ca and s->absa) with the input
 * rows and columns outputs x0.. and y0.. read, border resolved, as float. */
void cc_cpu_load_tile     (const CcJob *job, int64_t x0, int64_t y0, int64_t in_w,
                           int64_t in_h, CpuScratch *s);
/* A tile by direct sums, up to CC_CPU_TILE_W x CC_CPU_TILE_H. */
void cc_cpu_compute_tile  (const CcJob *job, int64_t x0, int64_t y0, int64_t tw, int64_t th,
                           CpuScratch *s);
/* Writes tw finished samples a channel (s->out) as output row y from
 * column x0, in the output's type, copied channels from the source. */
void cc_cpu_store_row     (const CcJob *job, int64_t x0, int64_t y, int64_t tw,
                           const float *out);
/* The same with the copied channels from 'src_row' (the source's row y,
 * or a copy of it taken before an output that is the source is written). */
void cc_cpu_store_row_from (const CcJob *job, int64_t x0, int64_t y, int64_t tw,
                            const float *out, const char *src_row);

/* ---- cpu-fft.c: large masks through FFTW (HAVE_FFTW) ---- */

typedef struct _CcCpuFft CcCpuFft;

/* FFTW's planner is not thread-safe (executing a plan is): every plan is
 * made and destroyed under this lock. */
extern pthread_mutex_t cc_fftw_planner_lock;

/* The transforms for this job where they cost less than direct sums, else
 * NULL (and always NULL without FFTW). */
CcCpuFft *cc_cpu_fft_new          (const CcJob *job);
void      cc_cpu_fft_free         (CcCpuFft *fft);
/* Outputs a tile covers. */
void      cc_cpu_fft_tile_size    (const CcCpuFft *fft, int64_t *tile_w, int64_t *tile_h);
void     *cc_cpu_fft_scratch_new  (const CcCpuFft *fft);
void      cc_cpu_fft_scratch_free (void *scratch);
/* One tile; a tile whose input holds an infinity or a NaN (which a
 * transform would spread over it) goes to direct sums instead. */
void      cc_cpu_fft_tile         (const CcCpuFft *fft, const CcJob *job, int64_t x0,
                                   int64_t y0, int64_t tw, int64_t th, void *scratch,
                                   CpuScratch *s);

#endif /* CC_CPU_H */
