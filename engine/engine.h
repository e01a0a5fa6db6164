/* The engine's insides, shared by its front (convolve.c), the CPU path and
 * deconvolution; what the GPU side shares with them is gpu-side.h.  Not
 * for callers: they use convolve.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_ENGINE_H
#define CC_ENGINE_H

#include <pthread.h>

#include "gpu-side.h"

#ifdef __cplusplus
extern "C" {
#endif

struct _CcContext
{
  pthread_mutex_t  lock;         /* one call at a time per context */
  uint64_t         budget;       /* device bytes per call, 0 = free memory */
  int              threads;      /* CPU worker threads */
  char             cpu_name[64];
  bool             cpu_only;     /* made by cc_context_new_cpu: never starts a GPU */
  struct _CcGpu   *gpu;          /* NULL when built without CUDA, or CPU-only */
  double          *sep_mask;     /* the last mask split into terms ... */
  int              sep_w;
  int              sep_h;
  int              sep_terms;    /* ... and the split */
  float           *sep_u;
  float           *sep_v;
};

/* cc_convolve with a deconvolution step in the fft method's finish
 * (CcJob.follow), into device planes; a method whose finish does not take
 * it refuses the job (CC_ERROR_UNSUPPORTED). */
CcStatus cc_convolve_followed (CcContext *ctx, const CcImage *src, int64_t out_x,
                               int64_t out_y, const CcImage *dst, const CcMask *mask,
                               const CcOptions *o, const CcFollow *follow, CcResult *result);

/* Checks what a call asks for, whatever the method. */
CcStatus cc_check_call (const CcImage *src, int64_t out_x, int64_t out_y,
                        const CcImage *dst, const CcMask *mask,
                        const CcOptions *options, CcResult *result);

/* Fills a job from a checked call; the caller sets mask and sum_abs. */
void     cc_job_init (CcJob *job, const CcImage *src, int64_t out_x, int64_t out_y,
                      const CcImage *dst, const CcMask *mask, const CcOptions *options);

/* The separable method's terms: the fewest (at most 'max_terms') rank-1
 * terms that reproduce the mask, or 0; u holds terms x h, v terms x w. */
int      cc_mask_separate (const double *mask, int width, int height, int max_terms,
                           float *u, float *v);

/* The CPU path's hot loops, compiled twice on x86-64 (AVX2 with FMA, and the
 * baseline) and picked at load time by what the CPU has.  GCC only: clang
 * (the fuzzing build) cannot call such a function from another file. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define CC_HOT __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define CC_HOT
#endif

/* Where a job runs when the GPU cannot take it (fallback.c): what failed,
 * before the GPU ran (unusable: no GPU, its driver or start-up; unsuited:
 * the job does not suit it) or as it ran (out of memory, refused as
 * unsupported, a GPU error); and what follows, by the one table
 * cc_fallback_rule reads. */
typedef enum
{
  CC_GPU_UNUSABLE,
  CC_GPU_UNSUITED,
  CC_GPU_RAN_OUT,
  CC_GPU_REFUSED,
  CC_GPU_FAILED,
  CC_GPU_FAILURE_COUNT
} CcGpuFailure;

CcFallback   cc_fallback_rule  (CcMethod asked, CcGpuFailure what);
/* A status as what failed; CC_GPU_FAILURE_COUNT (no rule: the error
 * stands) for a cancel or an invalid call. */
CcGpuFailure cc_gpu_failure_of (CcStatus status, bool before);

/* A job that may run on the GPU or the CPU: 'usable' says whether the GPU
 * can take it (if not, why), 'gpu' and 'cpu' run it; 'on_device': its
 * images are in device memory, which the CPU cannot read. */
typedef struct
{
  CcStatus (*usable) (void *data, char *why, size_t size);
  CcStatus (*gpu)    (void *data, CcResult *r);
  CcStatus (*cpu)    (void *data, CcResult *r);
  void      *data;
  bool       on_device;
} CcGpuOrCpu;

/* Runs 'job' where 'asked' and the rule say, the CPU's note (why the GPU
 * did not run it) in 'note' ("" where there is none). */
CcStatus     cc_run_gpu_or_cpu (CcMethod asked, const CcGpuOrCpu *job, char *note,
                                size_t size, CcResult *r);

/* A region's luminance, malloc'd (NULL: out of memory): the mean of its
 * colour channels (alpha left out), in linear light where a transfer is
 * given (estimate.c, for the blur's estimate and a star's mask). */
float   *cc_luminance (const CcImage *src, const CcRect *rc, const CcTransfer *transfer,
                       bool has_alpha);

/* The CPU path (cpu.c); a rank-1 mask of this size runs there as
 * a column pass and a row pass. */
CcStatus cc_cpu_run (CcContext *ctx, const CcJob *job, CcResult *result);
bool     cc_cpu_two_passes_pay (int width, int height);

#ifdef __cplusplus
}
#endif

#endif /* CC_ENGINE_H */
