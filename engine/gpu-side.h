/* What the engine and its GPU side (gpu/ and kernels/) share, the one
 * engine header they include: a job and its transfer tables, the
 * environment, the workers, Wiener's job and canvas, the methods' kernels
 * and the GPU back end's calls.  Not for callers: they use convolve.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_GPU_SIDE_H
#define CC_GPU_SIDE_H

#include "convolve.h"
#include "deconvolve-steps.h"
#include "estimate-steps.h"
#include "ground.h"
#include "pixel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Transfer tables (cc_transfer_new), in one block so that a device copy
 * is one upload: steps, then to_linear, then midpoints. */
struct _CcTransfer
{
  CcType    type;
  int       codes;        /* 256 or 65536 */
  int       curves;       /* 1: every colour channel; 3: one each */
  float    *to_linear;    /* curves x codes */
  float    *midpoints;    /* curves x codes: codes - 1 midpoints, then +inf */
  CcTransferStep *steps;  /* curves x (buckets + 2), see cc_transfer_code */
  int       buckets;      /* 4096 for 8 bits (32 KB a curve), 65536 for 16 */
  bool      single;       /* no bucket holds two midpoints: cc_transfer_code_single */
  size_t    bytes;        /* the block's size, from steps on */
  uint64_t  serial;       /* unique to this transfer, for device copies */
};

/* The curve colour channel c takes. */
static inline int
cc_transfer_curve (const CcTransfer *t, int c)
{
  return t->curves == 1 ? 0 : c;
}

/* A deconvolution step that the fft method's finish applies to each
 * result r where it writes it, instead of a pass of its own: 'with' / (r +
 * epsilon) (cc_rl_quotient), or 'with' r; 'with' a device plane of floats
 * laid out as the output, which may be the output itself. */
typedef enum
{
  CC_FOLLOW_NONE,
  CC_FOLLOW_QUOTIENT,
  CC_FOLLOW_PRODUCT
} CcFollowStep;

typedef struct
{
  CcFollowStep step;
  const float *with;
} CcFollow;

/* A validated call, in the form the back ends take. */
typedef struct
{
  const CcImage   *src;
  const CcImage   *dst;
  int64_t          out_x;
  int64_t          out_y;
  int              channels;
  int              mask_width;
  int              mask_height;
  const float     *mask;         /* row-major, float */
  float            inv_divisor;
  float            offset;
  float            sum_abs;      /* sum |k|, for alpha weighting */
  int              border;
  int              clamp;
  unsigned char    mode[4];      /* CC_MODE_* per channel */
  bool             weighted;     /* some channel is CC_MODE_WEIGHTED */
  int              terms;        /* rank-1 terms of the mask, 0: more than allowed */
  const float     *sep_u;        /* terms x mask_height, column factors */
  const float     *sep_v;        /* terms x mask_width, row factors */
  int              alpha;        /* alpha channel, or -1 */
  int              colour;       /* colour channels: the first 'colour' */
  const CcTransfer *transfer;    /* colour channels' encoding, or NULL */
  const CcOptions *options;      /* progress and cancel */
  CcFollow         follow;       /* the fft method's alone, on device planes */
} CcJob;

/* The most rank-1 terms the separable method takes (cc_mask_separate). */
#define CC_SEPARABLE_MAX_TERMS 3

/* The engine's environment variables (env.c, the one place that reads
 * them), as a context takes them at its creation. */
typedef struct
{
  int         threads;        /* CUDA_CONVOLVE_THREADS: CPU threads; 0: one a core */
  uint64_t    device_budget;  /* CUDA_CONVOLVE_DEVICE_BUDGET: bytes; 0: free memory */
  bool        no_gpu;         /* CUDA_CONVOLVE_NO_GPU set (not "0"): the CPU only */
  bool        pipeline;       /* CUDA_CONVOLVE_PIPELINE=0 turns lanes and staging off */
  const char *cufft;          /* CUDA_CONVOLVE_CUFFT: cuFFT's path, or NULL */
  uint64_t    shared_limit;   /* CUDA_CONVOLVE_SHARED_LIMIT: bytes of shared memory a block
                                 and a multiprocessor have at most, as on a smaller GPU
                                 (the tests); 0: the device's */
} CcEnv;

void     cc_env_read (CcEnv *env);

/* Fault injection for tests: CUDA_CONVOLVE_FAULT names what fails, "alloc"
 * (the GPU's memory), "launch" (a kernel) or "cpu" (the CPU path's memory). */
bool     cc_fault (const char *what);

/* A pool of threads for one loop at a time (workers.c): cc_workers_run
 * splits [0, n) into ranges of at least 'grain' (one a thread, the caller's
 * included) and returns when 'fn' has run on all of them.  A NULL pool, or
 * one whose threads did not start, runs the loop on the caller's thread. */
typedef struct _CcWorkers CcWorkers;
typedef void (*CcWorkFn) (int64_t begin, int64_t end, void *data);
CcWorkers *cc_workers_new  (int threads);
void       cc_workers_free (CcWorkers *w);
void       cc_workers_run  (CcWorkers *w, int64_t n, int64_t grain, CcWorkFn fn, void *data);

/* Reports progress and polls for cancel; true when the caller cancelled. */
bool     cc_job_tick (const CcJob *job, double fraction);

/* The GPU methods' kernels, for the method table (kernels/). */
#ifdef HAVE_CUDA
extern const CcKernels cc_kernels_basic, cc_kernels_constant, cc_kernels_tiled,
                       cc_kernels_caching, cc_kernels_register, cc_kernels_separable,
                       cc_kernels_fft;
#endif

/* Wiener deconvolution's job, on the CPU (deconvolve-fft.c) or the GPU
 * (kernels/wiener.cu): planes of 'channels' interleaved floats a pixel,
 * width x height, in host memory for the CPU and device memory for the
 * GPU. */
typedef struct
{
  int64_t      width, height;
  int          channels;
  const float *observed;     /* the blurred image */
  float       *restored;     /* what the call writes */
  const CcMask *blur;        /* scaled to sum 1, divisor 1, offset 0 */
  CcBorder     border;
  double       noise;        /* Wiener's balance */
  int          threads;      /* the CPU's, for its transforms */
  CcWorkers   *workers;      /* for its point-wise steps (NULL: the caller's thread) */
  /* Called before the first channel and after each (on the GPU, each
   * pair), with the share done; true: stop. */
  bool       (*tick) (double fraction, void *data);
  void        *data;
} CcWienerJob;

/* Wiener's canvas: wrap, the image's own sides, its period.  Any other
 * border: the image at (left, top) on sides cc_fft_fast_side takes, with
 * room for the blur's reach and a seam past it (CC_WIENER_SEAM); its
 * pixels outside the image are unknowns that 'steps' conjugate-gradient
 * steps solve for, so that a photograph, which is not periodic, does not
 * ring from the canvas's edges.  The CPU and the GPU share it, so that
 * they agree (docs/deconvolution.md). */
typedef struct
{
  int64_t tx, ty;
  int64_t left, top;
  int     steps;
} CcWienerCanvas;

#define CC_WIENER_SEAM  32
#define CC_WIENER_STEPS 5
/* The steps stop where the residual's <r, r / den> falls this far below
 * the right side's: past it they would only steer rounding. */
#define CC_WIENER_SOLVED 1e-10

void     cc_wiener_canvas (const CcWienerJob *job, CcWienerCanvas *canvas);

/* The canvas's first guess, row by row (rows) or column by column: canvas
 * index i shows (1 - t) v(a) + t v(b), v the image's row or column, -1 the
 * border's constant.  Inside the image a = b = i - offset; past it, the
 * border's extension of the near edge for the blur's reach, blended into
 * that of the far edge, which the canvas's period brings next. */
typedef struct
{
  int64_t a, b;
  float   t;
} CcWienerTap;

void     cc_wiener_taps   (const CcWienerJob *job, const CcWienerCanvas *canvas, bool rows,
                           CcWienerTap *taps);
/* The 4-neighbour Laplacian's spectrum along one side: 2 - 2 cos (2 pi k / n). */
float    cc_wiener_laplacian (int64_t k, int64_t n);

/* Where CUDA found no usable GPU ('status'), what the machine under
 * 'root' ("" for this one) says more, naming the fix: inside Flathub's
 * sandbox, the NVIDIA driver extension of the host's driver; the
 * nvidia_uvm module not loaded.  "" where it says nothing more
 * (gpu-hint.c). */
void     cc_gpu_hint (CcStatus status, const char *root, char *hint, size_t size);

/* The GPU back end (gpu/device.cu, or no-cuda.c without CUDA). */
struct _CcGpu *cc_gpu_new        (const CcEnv *env, int threads);
void           cc_gpu_free       (struct _CcGpu *gpu);
CcStatus       cc_gpu_status     (struct _CcGpu *gpu, char *message, size_t size);
/* Whether start-up has finished, well or not, without waiting for it. */
bool           cc_gpu_started    (struct _CcGpu *gpu);
/* Whether the driver is still compiling the kernels for this GPU. */
bool           cc_gpu_compiling  (struct _CcGpu *gpu);
const char    *cc_gpu_name       (struct _CcGpu *gpu);
/* The device memory free now, in bytes (0: no usable GPU). */
uint64_t       cc_gpu_memory_free (struct _CcGpu *gpu);
CcStatus       cc_gpu_check      (struct _CcGpu *gpu, CcMethod method, const CcJob *job,
                                  char *message, size_t size);
/* Whether 'method' would run 'job' in one pass (before any image: a
 * probe job, its source NULL, is taken as a well-aligned one). */
bool           cc_gpu_one_pass   (struct _CcGpu *gpu, CcMethod method, const CcJob *job);
CcStatus       cc_gpu_run        (struct _CcGpu *gpu, uint64_t budget, CcMethod method,
                                  const CcJob *job, CcResult *result);
CcStatus       cc_gpu_alloc      (struct _CcGpu *gpu, size_t bytes, void **ptr,
                                  char *message, size_t size);
void           cc_gpu_release    (struct _CcGpu *gpu, void *ptr);
CcStatus       cc_gpu_copy       (struct _CcGpu *gpu, void *dst, const void *src,
                                  size_t bytes, char *message, size_t size);
/* Deconvolution's source on the GPU (kernels/deconvolve.cu), queued on the
 * legacy default stream.  It goes up once in its own samples, with its
 * transfer's tables (NULL: none) for its first 'colour' channels; reading
 * takes its channels k0 .. k0 + K - 1 into the device plane f (non-finite
 * samples, counted, as 0), and with u starts Richardson–Lucy (negative
 * light as 0 too; u flat, 0.5, or f); writing puts a plane back into those
 * channels of the source's samples (clamped where asked; a channel whose
 * mode is CC_MODE_COPY left as it came), and the source goes down into
 * 'dst' (of its type, channels and size), with the count of non-finite
 * samples read.  Up and down, pageable rows cross through the scheduler's
 * page-locked staging: call them under the context's lock. */
typedef struct _CcGpuSource CcGpuSource;
CcStatus       cc_gpu_source_up  (struct _CcGpu *gpu, const CcImage *src, const CcTransfer *t,
                                  int colour, CcGpuSource **out, char *message, size_t size);
CcStatus       cc_gpu_source_read (CcGpuSource *s, int k0, int K, float *f, float *u,
                                   bool flat, char *message, size_t size);
CcStatus       cc_gpu_source_write (CcGpuSource *s, const float *u, int k0, int K,
                                    const unsigned char *mode, bool clamp, char *message,
                                    size_t size);
CcStatus       cc_gpu_source_down (CcGpuSource *s, const CcImage *dst, int64_t *non_finite,
                                   char *message, size_t size);
void           cc_gpu_source_free (CcGpuSource *s);
/* The point-wise steps on device planes of K channels: t = f / (t +
 * epsilon); and u = u g, or with a total-variation weight u g / (its
 * denominator, made in t). */
CcStatus       cc_gpu_rl_divide  (struct _CcGpu *gpu, float *t, const float *f, int64_t n,
                                  char *message, size_t size);
CcStatus       cc_gpu_rl_update  (struct _CcGpu *gpu, float *u, const float *g, float *t,
                                  int64_t w, int64_t h, int K, float tv_weight,
                                  char *message, size_t size);
/* Wiener's filter on the GPU (kernels/wiener.cu), on the job's planes in
 * device memory, or with 'planes_on_host' in host memory that it maps
 * (observed and restored may be one), the filter's spectrum made once.
 * Its canvas is on the device; the steps' spectra are there while they
 * fit in 'budget' (bytes, 0: the GPU's free memory), and past it in
 * mapped host memory, *spectra_on_host of them.  CC_ERROR_UNSUPPORTED
 * where a canvas side has a prime factor past 7 or is longer than the
 * GPU's transforms take, CC_ERROR_OUT_OF_MEMORY where the canvas (and the
 * planes on the device) do not fit. */
CcStatus       cc_gpu_wiener     (struct _CcGpu *gpu, const CcWienerJob *job, uint64_t budget,
                                  bool planes_on_host, int *spectra_on_host, char *message,
                                  size_t size);
/* The blur estimate's candidates scored on the GPU (kernels/estimate.cu):
 * the spectrum's K frequencies (their index in T x T, the periodogram
 * there, and rho^-alpha for each of 'alphas' exponents, exponent a's from
 * a * T * T / 2 on), and 'n' candidate masks, mask
 * i's taps (x, y about its centre, and value) being first[i] to
 * first[i + 1] - 1 of 'taps'.  Each candidate's negative log-likelihood,
 * its best over the exponents, goes to nll[i] (engine/estimate.c has the
 * model and the fit, which this follows step for step). */
typedef struct
{
  int          T, K, alphas;
  const int   *index;
  const float *power;
  const float *rho_alpha;
} CcEstimateSpectrum;

CcStatus       cc_gpu_estimate_scores (struct _CcGpu *gpu, const CcEstimateSpectrum *s, int n,
                                       const int *first, const float *taps, float *nll,
                                       char *message, size_t size);
/* Page-locked host memory, or NULL (no GPU, or none to spare); freeing
 * returns false where 'ptr' is not the GPU's. */
void          *cc_gpu_host_alloc (struct _CcGpu *gpu, size_t bytes);
bool           cc_gpu_host_free  (struct _CcGpu *gpu, void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* CC_GPU_SIDE_H */
