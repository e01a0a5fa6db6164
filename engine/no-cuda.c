/* The GPU back end of a build without CUDA: every GPU request gets a clear
 * answer, and 'auto' takes the CPU.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "engine.h"

static const char why[] = "no GPU methods in this build (configured --without-cuda)";

struct _CcGpu *
cc_gpu_new (const CcEnv *env, int threads)
{
  return NULL;
}

void
cc_gpu_free (struct _CcGpu *gpu)
{
  (void) gpu;
}

CcStatus
cc_gpu_status (struct _CcGpu *gpu, char *message, size_t size)
{
  (void) gpu;
  snprintf (message, size, "%s", why);
  return CC_ERROR_NO_GPU;
}

bool
cc_gpu_started (struct _CcGpu *gpu)
{
  (void) gpu;
  return true;
}

bool
cc_gpu_compiling (struct _CcGpu *gpu)
{
  (void) gpu;
  return false;
}

const char *
cc_gpu_name (struct _CcGpu *gpu)
{
  (void) gpu;
  return "";
}

uint64_t
cc_gpu_memory_free (struct _CcGpu *gpu)
{
  (void) gpu;
  return 0;
}

CcStatus
cc_gpu_check (struct _CcGpu *gpu, CcMethod method, const CcJob *job, char *message,
              size_t size)
{
  (void) method; (void) job;
  return cc_gpu_status (gpu, message, size);
}

bool
cc_gpu_one_pass (struct _CcGpu *gpu, CcMethod method, const CcJob *job)
{
  (void) gpu; (void) method; (void) job;
  return false;
}

CcStatus
cc_gpu_run (struct _CcGpu *gpu, uint64_t budget, CcMethod method, const CcJob *job,
            CcResult *result)
{
  (void) budget; (void) method; (void) job;
  return cc_fail (result, cc_gpu_status (gpu, result->message, sizeof result->message),
                  "%s", why);
}

CcStatus
cc_gpu_alloc (struct _CcGpu *gpu, size_t bytes, void **ptr, char *message, size_t size)
{
  (void) bytes;
  *ptr = NULL;
  return cc_gpu_status (gpu, message, size);
}

void
cc_gpu_release (struct _CcGpu *gpu, void *ptr)
{
  (void) gpu; (void) ptr;
}

CcStatus
cc_gpu_copy (struct _CcGpu *gpu, void *dst, const void *src, size_t bytes,
             char *message, size_t size)
{
  (void) dst; (void) src; (void) bytes;
  return cc_gpu_status (gpu, message, size);
}

CcStatus
cc_gpu_source_up (struct _CcGpu *gpu, const CcImage *src, const CcTransfer *t, int colour,
                  CcGpuSource **out, char *message, size_t size)
{
  (void) src; (void) t; (void) colour;
  *out = NULL;
  return cc_gpu_status (gpu, message, size);
}

CcStatus
cc_gpu_source_read (CcGpuSource *s, int k0, int K, float *f, float *u, bool flat,
                    char *message, size_t size)
{
  (void) s; (void) k0; (void) K; (void) f; (void) u; (void) flat;
  return cc_gpu_status (NULL, message, size);
}

CcStatus
cc_gpu_source_write (CcGpuSource *s, const float *u, int k0, int K, const unsigned char *mode,
                     bool clamp, char *message, size_t size)
{
  (void) s; (void) u; (void) k0; (void) K; (void) mode; (void) clamp;
  return cc_gpu_status (NULL, message, size);
}

CcStatus
cc_gpu_source_down (CcGpuSource *s, const CcImage *dst, int64_t *non_finite, char *message,
                    size_t size)
{
  (void) s; (void) dst; (void) non_finite;
  return cc_gpu_status (NULL, message, size);
}

void
cc_gpu_source_free (CcGpuSource *s)
{
  (void) s;
}

CcStatus
cc_gpu_rl_divide (struct _CcGpu *gpu, float *t, const float *f, int64_t n, char *message,
                  size_t size)
{
  (void) t; (void) f; (void) n;
  return cc_gpu_status (gpu, message, size);
}

CcStatus
cc_gpu_rl_update (struct _CcGpu *gpu, float *u, const float *g, float *t, int64_t w, int64_t h,
                  int K, float tv_weight, char *message, size_t size)
{
  (void) u; (void) g; (void) t; (void) w; (void) h; (void) K; (void) tv_weight;
  return cc_gpu_status (gpu, message, size);
}

CcStatus
cc_gpu_wiener (struct _CcGpu *gpu, const CcWienerJob *job, uint64_t budget,
               bool planes_on_host, int *spectra_on_host, char *message, size_t size)
{
  (void) job; (void) budget; (void) planes_on_host;
  *spectra_on_host = 0;
  return cc_gpu_status (gpu, message, size);
}

CcStatus
cc_gpu_estimate_scores (struct _CcGpu *gpu, const CcEstimateSpectrum *s, int n,
                        const int *first, const float *taps, float *nll, char *message,
                        size_t size)
{
  (void) s; (void) n; (void) first; (void) taps; (void) nll;
  return cc_gpu_status (gpu, message, size);
}

void *
cc_gpu_host_alloc (struct _CcGpu *gpu, size_t bytes)
{
  (void) gpu; (void) bytes;
  return NULL;
}

bool
cc_gpu_host_free (struct _CcGpu *gpu, void *ptr)
{
  (void) gpu; (void) ptr;
  return false;
}
