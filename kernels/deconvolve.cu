/* Richardson–Lucy's point-wise steps on device planes, between the
 * convolutions the engine runs by its GPU methods (engine/deconvolve.c).
 * They queue on the legacy default stream, after which cc_convolve reads
 * device images, so no iteration waits on the host.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "deconvolve-steps.h"
#include "gpu.cuh"

#define THREADS 256

/* The start: the image's negative light as 0; the estimate flat (0.5) or
 * the image. */
__global__ void
rl_begin (float *f, float *u, long long n, bool flat)
{
  for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
       i += (long long) gridDim.x * blockDim.x)
    {
      const float v = f[i] > 0.0f ? f[i] : 0.0f;

      f[i] = v;
      u[i] = flat ? 0.5f : v;
    }
}

/* t = f / (t + epsilon) */
__global__ void
rl_divide (float *t, const float *f, long long n)
{
  for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
       i += (long long) gridDim.x * blockDim.x)
    t[i] = cc_rl_quotient (f[i], t[i]);
}

/* u = u g, or u g / t where t holds total variation's denominators. */
__global__ void
rl_update (float *u, const float *g, const float *t, long long n)
{
  for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
       i += (long long) gridDim.x * blockDim.x)
    u[i] = t ? u[i] * (g[i] / t[i]) : u[i] * g[i];
}

/* t = total variation's denominator of u, a thread a sample. */
__global__ void
tv_denominators (float *t, const float *u, long long w, long long h, int K, float weight)
{
  const long long x = blockIdx.x * (long long) blockDim.x + threadIdx.x;

  if (x >= w)
    return;
  for (long long y = blockIdx.y; y < h; y += gridDim.y)
    for (int k = 0; k < K; k++)
      t[(y * w + x) * K + k] = cc_tv_denominator (u, w, h, K, x, y, k, weight);
}

static unsigned
blocks_for (long long n)
{
  const long long b = (n + THREADS - 1) / THREADS;

  return (unsigned) (b < 65536 ? b : 65536);
}

static CcStatus
launched (char *message, size_t size)
{
  const cudaError_t err = cudaGetLastError ();

  if (err == cudaSuccess)
    return CC_OK;
  snprintf (message, size, "%s", cudaGetErrorString (err));
  return cc_gpu_status_of (err);
}

extern "C" CcStatus
cc_gpu_rl_start (struct _CcGpu *g, float *f, float *u, int64_t n, bool flat, char *message,
                 size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);

  if (status != CC_OK)
    return status;
  rl_begin<<<blocks_for (n), THREADS>>> (f, u, n, flat);
  return launched (message, size);
}

extern "C" CcStatus
cc_gpu_rl_divide (struct _CcGpu *g, float *t, const float *f, int64_t n, char *message,
                  size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);

  if (status != CC_OK)
    return status;
  rl_divide<<<blocks_for (n), THREADS>>> (t, f, n);
  return launched (message, size);
}

extern "C" CcStatus
cc_gpu_rl_update (struct _CcGpu *g, float *u, const float *gr, float *t, int64_t w, int64_t h,
                  int K, float tv_weight, char *message, size_t size)
{
  const long long n = (long long) w * h * K;
  CcStatus status = cc_gpu_status (g, message, size);

  if (status != CC_OK)
    return status;
  if (tv_weight > 0)
    {
      const dim3 grid ((unsigned) ((w + THREADS - 1) / THREADS),
                       (unsigned) (h < 65535 ? h : 65535));

      tv_denominators<<<grid, THREADS>>> (t, u, w, h, K, tv_weight);
    }
  rl_update<<<blocks_for (n), THREADS>>> (u, gr, tv_weight > 0 ? t : NULL, n);
  return launched (message, size);
}

extern const void *const cc_module_deconvolve = (const void *) rl_divide;
