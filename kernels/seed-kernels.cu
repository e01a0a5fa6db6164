/* The four methods of the seed articles: basic (all reads from global
 * memory), constant (mask in __constant__ memory), tiled (input tile and halo
 * in shared memory) and caching (the block's own pixels in shared memory, the
 * halo read through L2).  Each kernel takes a 1D mask with a 1D block, as in
 * seed 000, and a 2D mask with a 2D block, as in seeds 001 and 004; border
 * mode and clamping are run-time arguments, so each method is one kernel.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "cuda-kernels.cuh"

__constant__ float c_mask[CC_MASK_MAX * CC_MASK_MAX];

pthread_mutex_t cc_seed_constant_lock = PTHREAD_MUTEX_INITIALIZER;

struct GlobalTaps
{
  const float *m;
  __device__ float operator() (int t) const { return __ldg (m + t); }
};

struct ConstantTaps
{
  __device__ float operator() (int t) const { return c_mask[t]; }
};

struct GlobalFetch
{
  const ConvArgs &a;
  __device__ float operator() (int x, int y, int c) const
  {
    return fetch_global (a, x, y, c);
  }
};

/* A tile of one channel (and alpha) in shared memory, border resolved. */
struct TileFetch
{
  const float *plane;
  const float *alpha_plane;
  int          tile_w;
  int          x0;
  int          y0;
  int          channel;   /* the channel 'plane' holds */
  __device__ float operator() (int x, int y, int c) const
  {
    return (c == channel ? plane : alpha_plane)[(y - y0) * tile_w + (x - x0)];
  }
};

/* The block's own pixels in shared memory; the halo from global memory. */
struct CachingFetch
{
  const ConvArgs &a;
  const float    *tile;
  int             x0;
  int             y0;
  __device__ float operator() (int x, int y, int c) const
  {
    unsigned tx = x - x0, ty = y - y0;

    if (tx < blockDim.x && ty < blockDim.y)
      return tile[(ty * blockDim.x + tx) * a.channels + c];
    return fetch_global (a, x, y, c);
  }
};

/* grid.y is at most 65535, so blocks step down tall images. */
#define FOR_BLOCK_ROWS(a, by) \
  for (int by = blockIdx.y * blockDim.y; by < (a).dst.height; by += gridDim.y * blockDim.y)

/* basic and constant: one thread a pixel, every read from global memory. */
template <class Taps>
__global__ void
conv_direct (const __grid_constant__ ConvArgs a, Taps taps)
{
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;
  GlobalFetch fetch = { a };

  FOR_BLOCK_ROWS (a, by)
    {
      const int oy = by + threadIdx.y;
      float *out;

      if (ox >= a.dst.width || oy >= a.dst.height)
        continue;
      out = a.dst.data + oy * a.dst.pitch + (long long) ox * a.channels;
      for (int c = 0; c < a.channels; c++)
        out[c] = conv_sample (a, taps, fetch, a.out_x + ox, a.out_y + oy, c);
    }
}

/* tiled: the block loads its input tile, halo included, one channel at a time
 * (alpha stays loaded while weighting), so a 127x127 mask still fits. */
__global__ void
conv_tiled (const __grid_constant__ ConvArgs a)
{
  extern __shared__ float shared[];
  const int tile_w = blockDim.x + a.mask_width - 1;
  const int tile_n = tile_w * (blockDim.y + a.mask_height - 1);
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nthreads = blockDim.x * blockDim.y;
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;
  float *plane = shared, *alpha_plane = shared + tile_n;

  FOR_BLOCK_ROWS (a, by)
    {
      const int oy = by + threadIdx.y;
      const int x0 = a.out_x + blockIdx.x * blockDim.x - (a.mask_width - 1) / 2;
      const int y0 = a.out_y + by - (a.mask_height - 1) / 2;
      const bool inside = ox < a.dst.width && oy < a.dst.height;
      float *out = a.dst.data + oy * a.dst.pitch + (long long) ox * a.channels;

      __syncthreads ();
      if (a.weighted)
        for (int t = tid; t < tile_n; t += nthreads)
          alpha_plane[t] = fetch_global (a, x0 + t % tile_w, y0 + t / tile_w, a.alpha);

      for (int c = 0; c < a.channels; c++)
        {
          if (a.mode[c] == CC_MODE_COPY)
            {
              if (inside)
                out[c] = fetch_global (a, a.out_x + ox, a.out_y + oy, c);
              continue;
            }
          __syncthreads ();
          for (int t = tid; t < tile_n; t += nthreads)
            plane[t] = fetch_global (a, x0 + t % tile_w, y0 + t / tile_w, c);
          __syncthreads ();
          if (inside)
            out[c] = conv_sample (a, ConstantTaps (),
                                  TileFetch { plane, alpha_plane, tile_w, x0, y0, c },
                                  a.out_x + ox, a.out_y + oy, c);
        }
    }
}

/* caching: each thread loads its own pixel; halo reads go to global memory,
 * where neighbouring blocks' loads left them in L2. */
__global__ void
conv_caching (const __grid_constant__ ConvArgs a)
{
  extern __shared__ float tile[];
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;

  FOR_BLOCK_ROWS (a, by)
    {
      const int oy = by + threadIdx.y;
      const int x0 = a.out_x + blockIdx.x * blockDim.x, y0 = a.out_y + by;
      CachingFetch fetch = { a, tile, x0, y0 };

      __syncthreads ();
      for (int c = 0; c < a.channels; c++)
        tile[tid * a.channels + c] = fetch_global (a, x0 + threadIdx.x, y0 + threadIdx.y, c);
      __syncthreads ();
      if (ox >= a.dst.width || oy >= a.dst.height)
        continue;
      float *out = a.dst.data + oy * a.dst.pitch + (long long) ox * a.channels;
      for (int c = 0; c < a.channels; c++)
        out[c] = conv_sample (a, ConstantTaps (), fetch, a.out_x + ox, a.out_y + oy, c);
    }
}

/* 1D masks get 1D blocks along their axis; 2D masks square blocks. */
static dim3
block_for (int mask_width, int mask_height)
{
  if (mask_height == 1)
    return dim3 (256, 1);
  if (mask_width == 1)
    return dim3 (32, 8);   /* a warp across for coalescing, the tile runs down */
  return dim3 (16, 16);
}

bool
cc_seed_uses_constant (CcMethod method)
{
  return method != CC_METHOD_BASIC;
}

cudaError_t
cc_seed_set_mask (const float *mask, int count, cudaStream_t stream)
{
  return cudaMemcpyToSymbolAsync (c_mask, mask, sizeof (float) * count, 0,
                                  cudaMemcpyHostToDevice, stream);
}

size_t
cc_seed_shared_bytes (CcMethod method, int mask_width, int mask_height, bool weighted)
{
  dim3 b = block_for (mask_width, mask_height);

  if (method == CC_METHOD_TILED)
    return sizeof (float) * (b.x + mask_width - 1) * (b.y + mask_height - 1) *
           (weighted ? 2 : 1);
  if (method == CC_METHOD_CACHING)
    return sizeof (float) * b.x * b.y * 4;
  return 0;
}

cudaError_t
cc_seed_launch (CcMethod method, const ConvArgs &a, cudaStream_t stream)
{
  dim3 block = block_for (a.mask_width, a.mask_height);
  unsigned rows = (a.dst.height + block.y - 1) / block.y;
  dim3 grid ((a.dst.width + block.x - 1) / block.x, rows < 65535 ? rows : 65535);
  size_t shared = cc_seed_shared_bytes (method, a.mask_width, a.mask_height, a.weighted);
  cudaError_t err;

  switch (method)
    {
    case CC_METHOD_BASIC:
      conv_direct<<<grid, block, 0, stream>>> (a, GlobalTaps { a.mask });
      break;
    case CC_METHOD_CONSTANT:
      conv_direct<<<grid, block, 0, stream>>> (a, ConstantTaps ());
      break;
    case CC_METHOD_TILED:
      if (shared > 48 * 1024 &&
          (err = cudaFuncSetAttribute (conv_tiled, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int) shared)) != cudaSuccess)
        return err;
      conv_tiled<<<grid, block, shared, stream>>> (a);
      break;
    case CC_METHOD_CACHING:
      conv_caching<<<grid, block, shared, stream>>> (a);
      break;
    default:
      return cudaErrorInvalidValue;
    }
  return cudaGetLastError ();
}
