/* The GPU back end: CUDA start-up (on a helper thread), device memory, and
 * the run of one job in strips: rows are gathered onto the device with the
 * vertical border resolved, converted to float, convolved, converted back
 * and copied out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-kernels.cuh"

struct _CcGpu
{
  pthread_t       thread;
  bool            joined;
  pthread_mutex_t lock;
  CcStatus        status;
  char            message[256];
  char            name[256];
  int             device;
  size_t          shared_optin;   /* shared memory a block may ask for */
  cudaStream_t    stream;
  cudaEvent_t     ev[4];
  float          *mask;           /* device copy for methods that read it there */
  void           *scratch;
  size_t          scratch_bytes;
  CcFftState     *fft;            /* plans and the mask's spectrum, once used */
};

static CcStatus
status_of (cudaError_t err)
{
  switch (err)
    {
    case cudaSuccess:                 return CC_OK;
    case cudaErrorMemoryAllocation:   return CC_ERROR_OUT_OF_MEMORY;
    case cudaErrorInsufficientDriver: return CC_ERROR_DRIVER_TOO_OLD;
    case cudaErrorNoDevice:           return CC_ERROR_NO_GPU;
    default:                          return CC_ERROR_GPU;
    }
}

static void
set_status (struct _CcGpu *g, CcStatus status, const char *format, ...)
{
  va_list args;

  g->status = status;
  va_start (args, format);
  vsnprintf (g->message, sizeof g->message, format, args);
  va_end (args);
}

/* CUDA 13 needs an NVIDIA driver of the 580 series or later. */
#define DRIVER_NEEDED "580"

static void *
gpu_start (void *data)
{
  struct _CcGpu *g = (struct _CcGpu *) data;
  const char *off = getenv ("CUDA_CONVOLVE_NO_GPU");
  int driver = 0, count = 0;
  cudaDeviceProp prop;
  cudaError_t err;
  void *lib;

  if (off && *off && strcmp (off, "0") != 0)
    {
      set_status (g, CC_ERROR_NO_GPU, "GPU use is turned off (CUDA_CONVOLVE_NO_GPU is set)");
      return NULL;
    }
  /* The static runtime loads the driver itself; looking first tells "no
   * driver" apart from "driver too old". */
  if (!(lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)))
    {
      set_status (g, CC_ERROR_NO_DRIVER,
                  "no NVIDIA driver found (libcuda.so.1); the GPU methods need driver "
                  DRIVER_NEEDED " or later");
      return NULL;
    }
  dlclose (lib);
  cudaDriverGetVersion (&driver);
  if (driver < CUDART_VERSION)
    {
      set_status (g, CC_ERROR_DRIVER_TOO_OLD,
                  "the NVIDIA driver supports CUDA %d.%d, this build needs CUDA %d.%d "
                  "(driver " DRIVER_NEEDED " or later)",
                  driver / 1000, driver % 1000 / 10,
                  CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
      return NULL;
    }
  if ((err = cudaGetDeviceCount (&count)) != cudaSuccess || count == 0)
    {
      set_status (g, err == cudaSuccess ? CC_ERROR_NO_GPU : status_of (err),
                  "no usable NVIDIA GPU: %s",
                  err == cudaSuccess ? "none found" : cudaGetErrorString (err));
      return NULL;
    }
  g->device = 0;
  if ((err = cudaSetDevice (g->device)) != cudaSuccess ||
      (err = cudaGetDeviceProperties (&prop, g->device)) != cudaSuccess ||
      /* A blocking stream: it waits for what callers queued on the legacy
       * default stream, such as an upload of an on_device source whose DMA
       * from pageable memory may still be running when cudaMemcpy returns. */
      (err = cudaStreamCreateWithFlags (&g->stream, cudaStreamDefault)) != cudaSuccess ||
      (err = cudaMalloc (&g->mask, sizeof (float) * CC_MASK_MAX * CC_MASK_MAX)) != cudaSuccess)
    {
      set_status (g, status_of (err), "could not start the GPU: %s", cudaGetErrorString (err));
      return NULL;
    }
  for (int i = 0; i < 4; i++)
    if ((err = cudaEventCreate (&g->ev[i])) != cudaSuccess)
      {
        set_status (g, status_of (err), "could not start the GPU: %s", cudaGetErrorString (err));
        return NULL;
      }
  snprintf (g->name, sizeof g->name, "%s", prop.name);
  g->shared_optin = prop.sharedMemPerBlockOptin;
  g->status = CC_OK;
  return NULL;
}

extern "C" struct _CcGpu *
cc_gpu_new (void)
{
  struct _CcGpu *g = (struct _CcGpu *) calloc (1, sizeof *g);

  if (!g)
    return NULL;
  pthread_mutex_init (&g->lock, NULL);
  set_status (g, CC_ERROR_GPU, "GPU start-up did not run");
  if (pthread_create (&g->thread, NULL, gpu_start, g) != 0)
    {
      g->joined = true;
      gpu_start (g);
    }
  return g;
}

/* Waits for start-up, once. */
static struct _CcGpu *
gpu_ready (struct _CcGpu *g)
{
  pthread_mutex_lock (&g->lock);
  if (!g->joined)
    {
      pthread_join (g->thread, NULL);
      g->joined = true;
    }
  pthread_mutex_unlock (&g->lock);
  if (g->status == CC_OK)
    cudaSetDevice (g->device);   /* the current device is per thread */
  return g;
}

extern "C" void
cc_gpu_free (struct _CcGpu *g)
{
  if (!g)
    return;
  gpu_ready (g);
  if (g->status == CC_OK || g->stream)
    {
      cudaStreamSynchronize (g->stream);
      cc_fft_state_free (g->fft);
      cudaFree (g->scratch);
      cudaFree (g->mask);
      for (int i = 0; i < 4; i++)
        cudaEventDestroy (g->ev[i]);
      cudaStreamDestroy (g->stream);
    }
  pthread_mutex_destroy (&g->lock);
  free (g);
}

extern "C" CcStatus
cc_gpu_status (struct _CcGpu *g, char *message, size_t size)
{
  if (!g)
    {
      snprintf (message, size, "out of host memory");
      return CC_ERROR_OUT_OF_MEMORY;
    }
  gpu_ready (g);
  snprintf (message, size, "%s", g->status == CC_OK ? g->name : g->message);
  return g->status;
}

extern "C" const char *
cc_gpu_name (struct _CcGpu *g)
{
  return gpu_ready (g)->name;
}

extern "C" CcStatus
cc_gpu_check (struct _CcGpu *g, CcMethod method, const CcJob *job, char *message,
              size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  const int w = job->mask_width, h = job->mask_height, C = job->channels;
  size_t shared = 0;

  if (status != CC_OK)
    return status;
  switch (method)
    {
    case CC_METHOD_BASIC:
    case CC_METHOD_CONSTANT:
    case CC_METHOD_TILED:
    case CC_METHOD_CACHING:
      shared = cc_seed_shared_bytes (method, w, h, C);
      break;
    case CC_METHOD_REGISTER:
      if (!cc_mask_width_class (w))
        {
          snprintf (message, size, "register takes masks up to 127 wide; this one is %d", w);
          return CC_ERROR_UNSUPPORTED;
        }
      if (job->weighted && C != 2 && C != 4)
        {
          snprintf (message, size, "register weights by alpha on gray+alpha and RGBA "
                    "images only, not on %d channels", C);
          return CC_ERROR_UNSUPPORTED;
        }
      shared = cc_register_shared_bytes (w, h, C);
      break;
    case CC_METHOD_SEPARABLE:
      if (job->weighted)
        {
          snprintf (message, size, "separable does not weight colour by alpha (the "
                    "weighted formula's sum |k*a| does not separate); turn alpha "
                    "weighting off or choose another method");
          return CC_ERROR_UNSUPPORTED;
        }
      if (job->terms < 1)
        {
          snprintf (message, size, "this %dx%d mask is not separable: more than %d "
                    "rank-1 terms would be needed", w, h, CC_SEPARABLE_MAX_TERMS);
          return CC_ERROR_UNSUPPORTED;
        }
      /* Each pass's tile: the row pass w wide, the column pass h tall. */
      shared = cc_register_shared_bytes (w, 1, C);
      if (cc_register_shared_bytes (1, h, C) > shared)
        shared = cc_register_shared_bytes (1, h, C);
      break;
    case CC_METHOD_FFT:
      if (!cc_fft_available (message, size))
        return CC_ERROR_UNSUPPORTED;
      if (job->weighted)
        {
          snprintf (message, size, "fft does not weight colour by alpha; turn alpha "
                    "weighting off or choose another method");
          return CC_ERROR_UNSUPPORTED;
        }
      break;
    default:
      snprintf (message, size, "%s is not a GPU method", cc_method_name (method));
      return CC_ERROR_INVALID;
    }
  if (shared > g->shared_optin)
    {
      snprintf (message, size,
                "method %s cannot take a %dx%d mask on %d channels: it needs %zu KB of "
                "shared memory a block, and %s allows %zu KB", cc_method_name (method),
                w, h, C, shared / 1024, g->name, g->shared_optin / 1024);
      return CC_ERROR_UNSUPPORTED;
    }
  return CC_OK;
}

extern "C" CcStatus
cc_gpu_alloc (struct _CcGpu *g, size_t bytes, void **ptr, char *message, size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  cudaError_t err;

  if (status != CC_OK)
    return status;
  if ((err = cudaMalloc (ptr, bytes)) != cudaSuccess)
    {
      snprintf (message, size, "%s", cudaGetErrorString (err));
      return status_of (err);
    }
  return CC_OK;
}

extern "C" void
cc_gpu_release (struct _CcGpu *g, void *ptr)
{
  if (g && gpu_ready (g)->status == CC_OK)
    cudaFree (ptr);
}

extern "C" CcStatus
cc_gpu_copy (struct _CcGpu *g, void *dst, const void *src, size_t bytes,
             char *message, size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  cudaError_t err;

  if (status != CC_OK)
    return status;
  if ((err = cudaMemcpy (dst, src, bytes, cudaMemcpyDefault)) != cudaSuccess)
    {
      snprintf (message, size, "%s", cudaGetErrorString (err));
      return status_of (err);
    }
  return CC_OK;
}

/* ---- One job ---- */

/* How the job's buffers are laid out on the device. */
typedef struct
{
  bool    direct_in;      /* the source is float on the device: read it in place */
  bool    direct_out;     /* the output is float on the device: write it in place */
  size_t  raw_in_row;     /* bytes a row of each buffer; 0 = not needed */
  size_t  float_in_row;
  size_t  float_out_row;
  size_t  raw_out_row;
  size_t  pass_row;       /* separable: a row of the row pass's output */
  size_t  pass_fixed;     /* separable on a device source: all its rows at once */
  bool    fft;            /* planes for the transform, sized per strip */
  int     halo;           /* ry: extra input rows above and below a strip */
  int64_t strip;          /* output rows a strip */
} Plan;

/* Each buffer starts on a 256-byte boundary, whatever the sample size. */
static size_t
align_up (size_t bytes)
{
  return (bytes + 255) & ~(size_t) 255;
}

static size_t
plan_bytes (const Plan *p, int64_t rows)
{
  const int64_t in_rows = rows + 2 * p->halo;

  return align_up (in_rows * p->raw_in_row) + align_up (in_rows * p->float_in_row) +
         align_up (rows * p->float_out_row) + align_up (rows * p->raw_out_row) +
         align_up (in_rows * p->pass_row + p->pass_fixed);
}

/* What a strip of 'rows' output rows needs on the device, the transform's
 * planes and cuFFT's work area (about as large) included. */
static size_t
strip_bytes (const Plan *p, const CcJob *job, int64_t rows)
{
  size_t b = plan_bytes (p, rows);

  if (p->fft && rows > 0)
    b += 2 * align_up (cc_fft_bytes ((int) job->dst->width, (int) rows, job->mask_width,
                                     job->mask_height, job->channels));
  return b;
}

static CcStatus
make_plan (struct _CcGpu *g, uint64_t budget, CcMethod method, const CcJob *job, Plan *p,
           CcResult *r)
{
  const CcImage *src = job->src, *dst = job->dst;
  const size_t C = job->channels;
  size_t free_bytes = 0, total = 0, limit, per_row, fixed;

  memset (p, 0, sizeof *p);
  p->direct_in  = src->on_device && src->type == CC_TYPE_FLOAT;
  p->direct_out = dst->on_device && dst->type == CC_TYPE_FLOAT;
  p->halo = p->direct_in ? 0 : (job->mask_height - 1) / 2;
  if (!p->direct_in)
    {
      p->raw_in_row = src->width * C * cc_type_size (src->type);
      if (src->type != CC_TYPE_FLOAT)
        p->float_in_row = src->width * C * sizeof (float);
    }
  if (!p->direct_out)
    {
      p->float_out_row = dst->width * C * sizeof (float);
      if (!dst->on_device && dst->type != CC_TYPE_FLOAT)
        p->raw_out_row = dst->width * C * cc_type_size (dst->type);
    }
  p->fft = method == CC_METHOD_FFT;
  if (method == CC_METHOD_SEPARABLE && job->mask_width > 1 && job->mask_height > 1)
    {
      /* The row pass filters every input row the column pass reads: on a
       * device source that is all of them, in one strip. */
      if (p->direct_in)
        p->pass_fixed = (size_t) dst->width * C * sizeof (float) * src->height;
      else
        p->pass_row = dst->width * C * sizeof (float);
    }

  cudaMemGetInfo (&free_bytes, &total);
  /* What this context already holds counts as available to it. */
  limit = free_bytes + g->scratch_bytes;
  limit = limit > (64u << 20) ? limit - (64u << 20) : 0;   /* room for the runtime */
  if (budget && budget < limit)
    limit = budget;

  per_row = p->raw_in_row + p->float_in_row + p->float_out_row + p->raw_out_row +
            p->pass_row;
  fixed = plan_bytes (p, 0) + 5 * 256;   /* the halo rows, and alignment */
  if (per_row == 0 || p->pass_fixed)
    {
      p->strip = dst->height;
      if (plan_bytes (p, p->strip) > limit)
        return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                        "not enough device memory: %s needs %.1f MB, %.1f MB are available%s",
                        cc_method_name (method), plan_bytes (p, p->strip) / 1048576.0,
                        limit / 1048576.0, budget ? " under the device budget" : "");
    }
  else if (limit <= fixed || (p->strip = (limit - fixed) / per_row) < 1)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                    "not enough device memory: one output row needs %.1f MB, %.1f MB are "
                    "available%s",
                    (fixed + per_row) / 1048576.0, limit / 1048576.0,
                    budget ? " under the device budget" : "");
  if (p->strip > dst->height)
    p->strip = dst->height;
  /* The transform's planes grow with the strip: shrink it until they fit. */
  while (p->fft && p->strip > 1 && strip_bytes (p, job, p->strip) > limit)
    p->strip = p->strip * 3 / 4;
  if (strip_bytes (p, job, p->strip) > limit)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                    "not enough device memory: %s needs %.1f MB for one strip, %.1f MB "
                    "are available%s", cc_method_name (method),
                    strip_bytes (p, job, p->strip) / 1048576.0, limit / 1048576.0,
                    budget ? " under the device budget" : "");
  return CC_OK;
}

/* Copies the strip's input rows, vertical border resolved, onto the device. */
static cudaError_t
gather_rows (struct _CcGpu *g, const CcJob *job, const Plan *p, int64_t y0,
             int64_t rows, char *raw_in)
{
  const CcImage *src = job->src;
  cudaError_t err = cudaSuccess;
  int64_t r = 0;

  while (r < rows && err == cudaSuccess)
    {
      int64_t first = job->out_y + y0 - p->halo + r;
      int64_t my = cc_border_index (first, src->height, job->border);
      int64_t n = 1;

      /* A run of rows that map to consecutive source rows (or all to zero). */
      while (r + n < rows)
        {
          int64_t next = cc_border_index (first + n, src->height, job->border);
          if (my < 0 ? next >= 0 : next != my + n)
            break;
          n++;
        }
      if (my < 0)
        err = cudaMemset2DAsync (raw_in + r * p->raw_in_row, p->raw_in_row, 0,
                                 p->raw_in_row, n, g->stream);
      else
        err = cudaMemcpy2DAsync (raw_in + r * p->raw_in_row, p->raw_in_row,
                                 (const char *) src->data + my * src->stride, src->stride,
                                 p->raw_in_row, n, cudaMemcpyDefault, g->stream);
      r += n;
    }
  return err;
}

static float
elapsed (struct _CcGpu *g, int a, int b)
{
  float ms = 0.0f;

  cudaEventElapsedTime (&ms, g->ev[a], g->ev[b]);
  return ms;
}

/* separable: for each rank-1 term, a row pass over every input row into
 * 'pass', then a column pass adding into the output; only the last term's
 * column pass applies divisor, offset and clamping. */
static cudaError_t
launch_separable (struct _CcGpu *g, const CcJob *job, const ConvArgs &a, float *pass)
{
  const int w = job->mask_width, h = job->mask_height, C = job->channels;
  ConvArgs row = a, col = a;
  cudaError_t err = cudaSuccess;

  /* A 1D mask is its own single pass. */
  if (w == 1 || h == 1)
    {
      if ((err = cc_register_set_mask (job->mask, w, h, g->stream)) != cudaSuccess)
        return err;
      return cc_register_launch (a, g->shared_optin, g->stream);
    }

  row.mask_width = w;
  row.mask_height = 1;
  row.out_y = 0;
  row.dst = DevImage { pass, a.dst.width * (long long) C, a.dst.width, a.src.height };
  row.inv_divisor = 1.0f;
  row.offset = 0.0f;
  row.clamp = 0;
  col.mask_width = 1;
  col.mask_height = h;
  col.out_x = 0;
  col.src = row.dst;
  col.vec4 = 1;
  for (int k = 0; k < job->terms && err == cudaSuccess; k++)
    {
      const bool last = k == job->terms - 1;

      col.accumulate = k > 0;
      col.inv_divisor = last ? a.inv_divisor : 1.0f;
      col.offset = last ? a.offset : 0.0f;
      col.clamp = last ? a.clamp : 0;
      if ((err = cc_register_set_mask (job->sep_v + k * w, w, 1, g->stream)) != cudaSuccess ||
          (err = cc_register_launch (row, g->shared_optin, g->stream)) != cudaSuccess ||
          (err = cc_register_set_mask (job->sep_u + k * h, 1, h, g->stream)) != cudaSuccess)
        break;
      err = cc_register_launch (col, g->shared_optin, g->stream);
    }
  return err;
}

static cudaError_t
launch (struct _CcGpu *g, CcMethod method, const CcJob *job, const ConvArgs &a, float *pass,
        float *planes)
{
  if (cc_fault ("launch"))
    return cudaErrorLaunchFailure;
  switch (method)
    {
    case CC_METHOD_REGISTER:
      return cc_register_launch (a, g->shared_optin, g->stream);
    case CC_METHOD_SEPARABLE:
      return launch_separable (g, job, a, pass);
    case CC_METHOD_FFT:
      if (!g->fft && !(g->fft = cc_fft_state_new ()))
        return cudaErrorMemoryAllocation;
      return cc_fft_launch (g->fft, a, job->mask, planes, g->stream);
    default:
      return cc_seed_launch (method, a, g->stream);
    }
}

/* One strip: output rows y0 .. y0 + rows - 1. */
static cudaError_t
run_strip (struct _CcGpu *g, CcMethod method, const CcJob *job, const Plan *p,
           ConvArgs a, int64_t y0, int64_t rows)
{
  const CcImage *src = job->src, *dst = job->dst;
  const int C = job->channels;
  const int64_t in_rows = rows + 2 * p->halo;
  char *raw_in = (char *) g->scratch;
  float *float_in = (float *) (raw_in + align_up (in_rows * p->raw_in_row));
  float *float_out = (float *) ((char *) float_in + align_up (in_rows * p->float_in_row));
  char *raw_out = (char *) float_out + align_up (rows * p->float_out_row);
  float *pass = (float *) (raw_out + align_up (rows * p->raw_out_row));
  float *planes = (float *) ((char *) pass + align_up (in_rows * p->pass_row + p->pass_fixed));
  char *dst_rows = (char *) dst->data + y0 * dst->stride;
  cudaError_t err;

  cudaEventRecord (g->ev[0], g->stream);
  if (p->direct_in)
    {
      a.src = DevImage { (float *) src->data, src->stride / 4, (int) src->width,
                         (int) src->height };
      a.out_y = (int) (job->out_y + y0);
      a.border_y = job->border;
    }
  else
    {
      if ((err = gather_rows (g, job, p, y0, in_rows, raw_in)) != cudaSuccess)
        return err;
      a.src = DevImage { (float *) raw_in, src->width * C, (int) src->width, (int) in_rows };
      a.out_y = p->halo;
      a.border_y = CC_BORDER_EXTEND;   /* never reached: every row is there */
    }
  cudaEventRecord (g->ev[1], g->stream);

  if (p->float_in_row)
    {
      if ((err = cc_convert_to_float (src->type, raw_in, src->width * C, float_in,
                                      src->width * C, src->width * C, (int) in_rows,
                                      g->stream)) != cudaSuccess)
        return err;
      a.src.data = float_in;
    }
  if (p->direct_out)
    a.dst = DevImage { (float *) dst_rows, dst->stride / 4, (int) dst->width, (int) rows };
  else
    a.dst = DevImage { float_out, dst->width * C, (int) dst->width, (int) rows };
  a.vec4 = ((uintptr_t) a.src.data % 16 == 0) && (a.src.pitch % 4 == 0);
  if ((err = launch (g, method, job, a, pass, planes)) != cudaSuccess)
    return err;

  if (!p->direct_out && (dst->on_device || p->raw_out_row))
    {
      /* Copied channels come bit for bit from the source when types match. */
      const bool same = !p->direct_in && src->type == dst->type;
      const size_t tsize = cc_type_size (dst->type);
      const void *copy = same ? raw_in + p->halo * p->raw_in_row + job->out_x * C * tsize
                              : NULL;
      void *out = dst->on_device ? (void *) dst_rows : (void *) raw_out;
      long long out_pitch = dst->on_device ? dst->stride / (long long) tsize
                                           : dst->width * C;

      if ((err = cc_convert_from_float (dst->type, float_out, dst->width * C, out,
                                        out_pitch, dst->width * C, (int) rows, copy,
                                        src->width * C, C, job->mode, g->stream))
          != cudaSuccess)
        return err;
    }
  cudaEventRecord (g->ev[2], g->stream);
  if (!dst->on_device)
    {
      const char *from = p->raw_out_row ? raw_out : (const char *) float_out;
      size_t row = p->raw_out_row ? p->raw_out_row : p->float_out_row;

      if ((err = cudaMemcpy2DAsync (dst_rows, dst->stride, from, row, row, rows,
                                    cudaMemcpyDefault, g->stream)) != cudaSuccess)
        return err;
    }
  cudaEventRecord (g->ev[3], g->stream);
  return cudaStreamSynchronize (g->stream);
}

static ConvArgs
conv_args (struct _CcGpu *g, const CcJob *job)
{
  ConvArgs a;

  memset (&a, 0, sizeof a);
  a.out_x       = (int) job->out_x;
  a.channels    = job->channels;
  a.alpha       = job->alpha;
  a.weighted    = job->weighted;
  memcpy (a.mode, job->mode, sizeof a.mode);
  a.mask_width  = job->mask_width;
  a.mask_height = job->mask_height;
  a.border_x    = job->border;
  a.inv_divisor = job->inv_divisor;
  a.offset      = job->offset;
  a.sum_abs     = job->sum_abs;
  a.clamp       = job->clamp;
  a.mask        = g->mask;
  return a;
}

/* After a failure: a sticky error leaves the context unusable, so later calls
 * are told so at once (and 'auto' takes the CPU). */
static CcStatus
gpu_failed (struct _CcGpu *g, cudaError_t err, CcResult *r)
{
  CcStatus status = status_of (err);

  cudaGetLastError ();
  if (cudaStreamSynchronize (g->stream) != cudaSuccess)
    set_status (g, CC_ERROR_GPU, "the GPU failed earlier: %s", cudaGetErrorString (err));
  return cc_fail (r, status == CC_ERROR_OUT_OF_MEMORY ? status : CC_ERROR_GPU,
                  "%s on the GPU: %s", status == CC_ERROR_OUT_OF_MEMORY ?
                  "out of memory" : "error", cudaGetErrorString (err));
}

extern "C" CcStatus
cc_gpu_run (struct _CcGpu *g, uint64_t budget, CcMethod method, const CcJob *job,
            CcResult *r)
{
  const int taps = job->mask_width * job->mask_height;
  /* All but basic and fft read the mask from __constant__ memory. */
  const bool constant = method != CC_METHOD_BASIC && method != CC_METHOD_FFT;
  CcStatus status;
  cudaError_t err;
  Plan p;
  ConvArgs a;
  size_t need;
  int64_t y0;

  if ((status = cc_gpu_check (g, method, job, r->message, sizeof r->message)) != CC_OK)
    return r->status = status;
  if ((status = make_plan (g, budget, method, job, &p, r)) != CC_OK)
    return status;
  if (cc_job_tick (job, 0.0))
    return cc_fail (r, CC_ERROR_CANCELLED, "cancelled");

  need = strip_bytes (&p, job, p.strip);
  if (cc_fault ("alloc"))
    return gpu_failed (g, cudaErrorMemoryAllocation, r);
  if (need > g->scratch_bytes)
    {
      cudaFree (g->scratch);
      g->scratch = NULL;
      g->scratch_bytes = 0;
      if ((err = cudaMalloc (&g->scratch, need)) != cudaSuccess)
        return gpu_failed (g, err, r);
      g->scratch_bytes = need;
    }

  r->method_used = method;
  snprintf (r->device, sizeof r->device, "%s", g->name);
  a = conv_args (g, job);

  if (constant)
    pthread_mutex_lock (&cc_seed_constant_lock);
  if (method == CC_METHOD_REGISTER)
    err = cc_register_set_mask (job->mask, job->mask_width, job->mask_height, g->stream);
  else if (method == CC_METHOD_SEPARABLE || method == CC_METHOD_FFT)
    err = cudaSuccess;   /* each pass sets its own; fft keeps the spectrum */
  else if (constant)
    err = cc_seed_set_mask (job->mask, taps, g->stream);
  else
    err = cudaMemcpyAsync (g->mask, job->mask, sizeof (float) * taps,
                           cudaMemcpyHostToDevice, g->stream);

  for (y0 = 0; err == cudaSuccess && y0 < job->dst->height; y0 += p.strip)
    {
      int64_t rows = job->dst->height - y0 < p.strip ? job->dst->height - y0 : p.strip;

      if ((err = run_strip (g, method, job, &p, a, y0, rows)) != cudaSuccess)
        break;
      r->upload_ms   += elapsed (g, 0, 1);
      r->kernel_ms   += elapsed (g, 1, 2);
      r->download_ms += elapsed (g, 2, 3);
      r->strips++;
      if (cc_job_tick (job, (double) (y0 + rows) / job->dst->height) &&
          y0 + rows < job->dst->height)
        {
          status = cc_fail (r, CC_ERROR_CANCELLED, "cancelled");
          break;
        }
    }
  if (err != cudaSuccess)
    status = gpu_failed (g, err, r);
  if (constant)
    {
      cudaStreamSynchronize (g->stream);
      pthread_mutex_unlock (&cc_seed_constant_lock);
    }
  return status;
}
