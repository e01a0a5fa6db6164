/* The GPU back end's state, shared by its services (device.cu), the run
 * of a job (scheduler.cu) and the launchers of kernels/ it hands a lane.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_GPU_CUH
#define CC_GPU_CUH

#include <pthread.h>

#include "launchers.cuh"

/* Strips in flight at once, each on its own stream, so that one strip's
 * upload, another's kernels and a third's download overlap. */
#define LANES 3

/* The kernels' modules (a translation unit each).  Where the build has no
 * cubin for the GPU, the driver compiles a module from its PTX when it
 * loads it: start-up loads them all at once, on helper threads, and a job
 * waits for those it runs (CcKernels.modules). */
enum
{
  MODULE_CONVERT,
  MODULE_TEXTBOOK,
  MODULE_REGISTER,
  MODULE_SEPARABLE,
  MODULE_FFT,
  MODULE_DECONVOLVE,
  MODULE_WIENER,
  MODULE_ESTIMATE,
  MODULE_COUNT
};
#define MODULE_BIT(m) (1u << (m))
/* Every job converts its samples; the exact kernel follows any method. */
#define MODULES_EVERY_JOB (MODULE_BIT (MODULE_CONVERT) | MODULE_BIT (MODULE_TEXTBOOK))

/* A kernel of each module: asking for its attributes loads the module. */
extern const void *const cc_module_convert, *const cc_module_textbook,
  *const cc_module_register, *const cc_module_separable, *const cc_module_fft,
  *const cc_module_deconvolve, *const cc_module_wiener, *const cc_module_estimate;

typedef struct
{
  cudaStream_t    stream;
  cudaEvent_t     ev[4];          /* start, uploaded, computed, downloaded */
  void           *scratch;        /* a strip's device buffers */
  size_t          scratch_bytes;
  char           *stage;          /* page-locked staging for pageable images */
  size_t          stage_bytes;
  Claims         *claims;         /* its kernels' shared words (ConvArgs) */
  Fallbacks      *ran;            /* its fallbacks' counts, as last copied ... */
  Fallbacks       ran_before;     /* ... and as they were when the job began */
  CcFftState     *fft;            /* fft's plans and mask spectra, once used */
  int64_t         strip_rows;     /* the job's strips' rows, as its scratch was sized */
  int64_t         y0;             /* the strip in flight ... */
  int64_t         rows;           /* ... 0: none */
} Lane;

/* A mask fft keeps, its values on the host and its spectra's number. */
struct FftMask
{
  float    *values;
  int       width, height;
  uint64_t  serial;
};

struct _CcGpu
{
  pthread_t       thread;
  bool            joined;
  int             started;        /* start-up finished (read and set atomically) */
  pthread_mutex_t lock;
  CcStatus        status;
  char            message[640];
  char            name[256];
  int             device;
  DeviceFacts     facts;          /* read once, at start-up */
  cudaStream_t    stream;         /* the mask's uploads and device copies */
  Lane            lane[LANES];
  bool            pipeline;       /* lanes and staging; CUDA_CONVOLVE_PIPELINE=0: off */
  CcWorkers      *stagers;        /* staging copies' threads, once a call stages */
  int             stage_threads;
  bool            no_gpu;         /* CUDA_CONVOLVE_NO_GPU: start no GPU */
  char           *fft_cufft;      /* CUDA_CONVOLVE_CUFFT: fft's rows by that cuFFT */
  uint64_t        shared_limit;   /* CUDA_CONVOLVE_SHARED_LIMIT, or 0 */
  float          *mask;           /* device copy for methods that read it there */
  Claims         *claims;         /* the lanes' shared words, one Claims each */
  Fallbacks      *ran;            /* the lanes' copies, one each (page-locked) */
  /* fft: the last two masks (host copies), each with the number its
   * spectra go by in the lanes (a new mask, a new number), so that masks
   * taken in turn, as deconvolution's blur and its half turn, each keep
   * theirs; fft_mask_now is the running job's. */
  FftMask         fft_masks[2];
  int             fft_mask_now;
  uint64_t        fft_mask_numbers;   /* numbers given so far */
  char           *transfer;       /* the last transfer's tables (CcTransfer's block) */
  size_t          transfer_bytes;
  uint64_t        transfer_serial;   /* which transfer they are; 0: none */
  pthread_t       loader[MODULE_COUNT];   /* where no cubin runs: a module's load each */
  unsigned        loaded;         /* MODULE_BITs of the modules loaded (atomic) */
  cudaError_t     load_error;     /* the first load that failed */
};

/* A GPU method's kernels (the method table's CcMethodInfo.kernels): what
 * the scheduler needs to know of them.  Each family defines its own beside
 * its kernels. */
struct _CcKernels
{
  /* Whether they take the job (the GPU aside), and the shared memory a block needs. */
  CcStatus    (*check)    (const CcJob *job, size_t *shared, char *message, size_t size);
  /* Puts the mask where they read it, on g->stream (fft: notes a new mask,
   * whose spectra each lane makes once); NULL where each launch does
   * (separable's passes). */
  cudaError_t (*set_mask) (struct _CcGpu *g, const CcJob *job);
  /* One strip, on the lane's stream: 'pass' and 'planes' are the scratch
   * 'passes' and 'planes' ask for. */
  cudaError_t (*launch)   (struct _CcGpu *g, Lane *lane, const CcJob *job, const ConvArgs &a,
                           float *pass, float *planes);
  bool        constant;   /* read __constant__ memory: hold cc_constant_mask_lock */
  bool        one_lane;   /* state the lanes would share (a mask rewritten between
                           * passes): one lane */
  bool        passes;     /* a row pass's output for the column pass */
  bool        planes;     /* transform planes, sized per strip (cc_fft_bytes) */
  /* Where 'passes': whether this job runs in one pass all the same, without
   * that output; NULL: never. */
  bool        (*one_pass) (const struct _CcGpu *g, const CcJob *job);
  /* Whether its sums reach samples past the mask (zero taps padding it, a
   * transform's whole plane), where an infinity or a NaN would make a NaN
   * the mask does not: then, on sources that can hold one, the kernels
   * get ConvArgs.nan and the exact kernel follows them; NULL: never. */
  bool        (*reach_past) (const struct _CcGpu *g, const CcJob *job);
  /* MODULE_BITs of the modules whose kernels it launches, besides MODULES_EVERY_JOB. */
  unsigned    modules;
  bool        follows;    /* its finish takes CcJob.follow */
};

CcStatus       cc_gpu_status_of   (cudaError_t err);
void           cc_gpu_set_status  (struct _CcGpu *g, CcStatus status, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));
/* Waits for start-up, once, and makes the GPU current on this thread. */
struct _CcGpu *cc_gpu_ready       (struct _CcGpu *g);
/* Where the driver compiles the kernels for this GPU: waits until 'modules'
 * are loaded, reporting the stage; else returns at once. */
CcStatus       cc_gpu_wait_modules (struct _CcGpu *g, unsigned modules, const CcJob *job,
                                    CcResult *r);
/* 'rows' rows of 'row' bytes between host rows 'stride' apart and device
 * rows side by side ('up': to the device), through the lanes' page-locked
 * buffers where the host's are pageable (gpu/scheduler.cu), the copies
 * there on the stagers' threads overlapping the crossings.  Call it under
 * the context's lock (the lanes are the scheduler's); done on return. */
cudaError_t    cc_gpu_copy_rows (struct _CcGpu *g, char *device, char *host, size_t stride,
                                 size_t row, int64_t rows, bool up);
/* Whether 'ptr' is page-locked host memory from CUDA. */
bool           cc_gpu_host_pinned (const void *ptr);

#endif /* CC_GPU_CUH */
