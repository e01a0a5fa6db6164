/* Deconvolution's source on the GPU, and Richardson–Lucy's steps around
 * the convolutions the engine runs by its GPU methods (engine/deconvolve.c):
 * the source goes up once in its own samples and is read into float planes
 * here (linear light through its transfer's tables), Richardson–Lucy's
 * point-wise steps run between the convolutions (Wiener's transforms are
 * kernels/wiener.cu), and the result is written back into the source's
 * samples, which go down once; so the host converts nothing and no plane
 * of floats crosses the bus.  Everything queues on the legacy default stream, after which
 * cc_convolve reads device images, so no iteration waits on the host.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu.cuh"
#include "samples.cuh"

#define THREADS 256

/* The source on the device, in its own samples (rows packed), with its
 * transfer's tables: the restored channels are read from it into planes,
 * and written back into it, where alpha and the kept channels stay as they
 * came. */
struct _CcGpuSource
{
  struct _CcGpu      *gpu;
  CcType              type;
  int                 channels;
  int64_t             width, height;
  void               *samples;
  char               *tables;       /* the transfer's block, or NULL */
  DevTransfer         transfer;
  unsigned long long *non_finite;   /* samples read as 0 */
};

/* A restored channel's sample in linear light: through the tables for 8-
 * and 16-bit codes where there are any, else as a float; and back. */
template <typename T>
__device__ __forceinline__ float
sample_in (const DevTransfer &t, bool tables, int c, T v)
{
  if constexpr (has_codes<T>)
    if (tables)
      return code_to_linear (t, transfer_curve (t, c), v);
  return to_f (v);
}

template <typename T>
__device__ __forceinline__ void
sample_out (const DevTransfer &t, bool tables, int c, float v, T *o)
{
  if constexpr (has_codes<T>)
    if (tables)
      {
        *o = linear_to_code<T> (t, transfer_curve (t, c), v);
        return;
      }
  from_f (v, o);
}

/* Channels k0 .. k0 + K - 1 of the source into f, non-finite samples
 * (counted) as 0; with u, Richardson-Lucy's start: negative light as 0 too,
 * and the estimate u flat (0.5) or the image.  A thread a column. */
template <typename T>
__global__ void
source_read (const T *in, int C, long long w, long long h, DevTransfer t, bool tables,
             int k0, int K, float *f, float *u, bool flat, unsigned long long *non_finite)
{
  const long long x = blockIdx.x * (long long) blockDim.x + threadIdx.x;
  unsigned long long odd = 0;

  if (x >= w)
    return;
  for (long long y = blockIdx.y; y < h; y += gridDim.y)
    for (int k = 0; k < K; k++)
      {
        const float v = sample_in<T> (t, tables, k0 + k, in[(y * w + x) * C + k0 + k]);
        const float s = !isfinite (v) ? 0.0f : u && v < 0.0f ? 0.0f : v;
        const long long i = (y * w + x) * K + k;

        odd += !isfinite (v);
        f[i] = s;
        if (u)
          u[i] = flat ? 0.5f : s;
      }
  if (odd)
    atomicAdd (non_finite, odd);
}

/* The restored channels k0 .. k0 + K - 1 back into the source's samples:
 * non-finite as 0, clamped where asked, channels whose mode is copy left as
 * they are. */
template <typename T>
__global__ void
source_write (const float *u, int k0, int K, T *out, int C, long long w, long long h,
              DevTransfer t, bool tables, uchar4 mode, bool clamp)
{
  const long long x = blockIdx.x * (long long) blockDim.x + threadIdx.x;
  const unsigned char m[4] = { mode.x, mode.y, mode.z, mode.w };

  if (x >= w)
    return;
  for (long long y = blockIdx.y; y < h; y += gridDim.y)
    for (int k = 0; k < K; k++)
      if (m[k0 + k] != CC_MODE_COPY)
        {
          const float v = u[(y * w + x) * K + k];
          const float s = isfinite (v) ? v : 0.0f;

          sample_out<T> (t, tables, k0 + k, clamp ? cc_clamp01f (s) : s,
                         out + (y * w + x) * C + k0 + k);
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

static dim3
column_grid (long long w, long long h)
{
  return dim3 ((unsigned) ((w + THREADS - 1) / THREADS), (unsigned) (h < 65535 ? h : 65535));
}

extern "C" CcStatus
cc_gpu_source_up (struct _CcGpu *g, const CcImage *src, const CcTransfer *t, int colour,
                  CcGpuSource **out, char *message, size_t size)
{
  const size_t row = (size_t) src->width * src->channels * cc_type_size (src->type);
  CcStatus status = cc_gpu_status (g, message, size);
  CcGpuSource *s;
  cudaError_t err;

  *out = NULL;
  if (status != CC_OK)
    return status;
  if (!(s = (CcGpuSource *) calloc (1, sizeof *s)))
    {
      snprintf (message, size, "out of host memory");
      return CC_ERROR_OUT_OF_MEMORY;
    }
  *s = (CcGpuSource) { g, src->type, src->channels, src->width, src->height };
  if ((err = cudaMalloc (&s->samples, row * (size_t) src->height)) != cudaSuccess ||
      (err = cudaMalloc ((void **) &s->non_finite, sizeof *s->non_finite)) != cudaSuccess ||
      (t && (err = cudaMalloc ((void **) &s->tables, t->bytes)) != cudaSuccess) ||
      (err = cudaMemset (s->non_finite, 0, sizeof *s->non_finite)) != cudaSuccess ||
      (t && (err = cudaMemcpy (s->tables, t->steps, t->bytes, cudaMemcpyHostToDevice))
              != cudaSuccess) ||
      (err = cc_gpu_copy_rows (g, (char *) s->samples, (char *) src->data,
                               (size_t) src->stride, row, src->height, true)) != cudaSuccess)
    {
      snprintf (message, size, "the source's way to the GPU: %s", cudaGetErrorString (err));
      cc_gpu_source_free (s);
      return cc_gpu_status_of (err);
    }
  if (t)
    s->transfer = cc_dev_transfer (s->tables, t, colour);
  *out = s;
  return CC_OK;
}

extern "C" CcStatus
cc_gpu_source_read (CcGpuSource *s, int k0, int K, float *f, float *u, bool flat,
                    char *message, size_t size)
{
  const dim3 grid = column_grid (s->width, s->height);
  const bool tables = s->tables != NULL;
  CcStatus status = cc_gpu_status (s->gpu, message, size);

  if (status != CC_OK)
    return status;
  by_sample_type (s->type, [&] (auto sample) {
    using T = decltype (sample);
    source_read<T><<<grid, THREADS>>> ((const T *) s->samples, s->channels, s->width,
                                       s->height, s->transfer, tables, k0, K, f, u, flat,
                                       s->non_finite);
  });
  return launched (message, size);
}

extern "C" CcStatus
cc_gpu_source_write (CcGpuSource *s, const float *u, int k0, int K, const unsigned char *mode,
                     bool clamp, char *message, size_t size)
{
  const dim3 grid = column_grid (s->width, s->height);
  const bool tables = s->tables != NULL;
  const uchar4 m = make_uchar4 (mode[0], mode[1], mode[2], mode[3]);
  CcStatus status = cc_gpu_status (s->gpu, message, size);

  if (status != CC_OK)
    return status;
  by_sample_type (s->type, [&] (auto sample) {
    using T = decltype (sample);
    source_write<T><<<grid, THREADS>>> (u, k0, K, (T *) s->samples, s->channels, s->width,
                                        s->height, s->transfer, tables, m, clamp);
  });
  return launched (message, size);
}

extern "C" CcStatus
cc_gpu_source_down (CcGpuSource *s, const CcImage *dst, int64_t *non_finite, char *message,
                    size_t size)
{
  const size_t row = (size_t) s->width * s->channels * cc_type_size (s->type);
  unsigned long long odd = 0;
  cudaError_t err;

  if ((err = cc_gpu_copy_rows (s->gpu, (char *) s->samples, (char *) dst->data,
                               (size_t) dst->stride, row, s->height, false)) != cudaSuccess ||
      (err = cudaMemcpy (&odd, s->non_finite, sizeof odd, cudaMemcpyDeviceToHost))
        != cudaSuccess)
    {
      snprintf (message, size, "the result's way from the GPU: %s", cudaGetErrorString (err));
      return cc_gpu_status_of (err);
    }
  *non_finite = (int64_t) odd;
  return CC_OK;
}

extern "C" void
cc_gpu_source_free (CcGpuSource *s)
{
  if (!s)
    return;
  cudaFree (s->samples);
  cudaFree (s->non_finite);
  cudaFree (s->tables);
  free (s);
}

extern const void *const cc_module_deconvolve = (const void *) rl_divide;
