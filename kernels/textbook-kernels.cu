/* The four textbook methods, as the CUDA convolution tutorials teach them
 * (the "Parallel Patterns: Convolution" chapter of Kirk and Hwu's
 * Programming Massively Parallel Processors and its many write-ups): basic
 * (all reads from global memory), constant (mask in __constant__ memory),
 * tiled (input tile and halo in shared memory) and caching (the block's own
 * pixels in shared memory, the halo read through L2).  Each kernel takes a
 * 1D mask with a 1D block and a 2D mask with a 2D block, as they do; border
 * mode and clamping are run-time arguments, so each method is one kernel.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "device-toolkit.cuh"
#include "gpu.cuh"

__constant__ float c_mask[CC_DIRECT_MASK_MAX * CC_DIRECT_MASK_MAX];

struct ConstantTaps
{
  __device__ float operator() (int t) const { return c_mask[t]; }
};

/* The block's input tile, halo included, border resolved, in shared memory. */
template <int C>
struct TileRow
{
  const float *p;   /* this row of the tile */
  int          x0;  /* the source x of its first pixel */
  __device__ bool present () const { return true; }
  __device__ void operator() (int x, float v[C]) const
  {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = p[(x - x0) * C + c];
  }
};

template <int C>
struct TileSource
{
  const float *tile;
  int          tile_w;
  int          x0;
  int          y0;
  __device__ TileRow<C> row (int y) const
  {
    return TileRow<C> { tile + (y - y0) * tile_w * C, x0 };
  }
};

/* The block's own pixels in shared memory; the halo from global memory. */
template <int C>
struct CachingRow
{
  GlobalRow<C>  global;
  const float  *own;     /* this row of the block's pixels, or NULL */
  int           x0;
  __device__ bool present () const { return own || global.present (); }
  __device__ void operator() (int x, float v[C]) const
  {
    if (own && (unsigned) (x - x0) < blockDim.x)
      {
#pragma unroll
        for (int c = 0; c < C; c++)
          v[c] = own[(x - x0) * C + c];
      }
    else if (global.present ())
      global (x, v);
    else
      {
        /* The block's own row lies in the zero border: so does its halo. */
#pragma unroll
        for (int c = 0; c < C; c++)
          v[c] = 0.0f;
      }
  }
};

template <int C>
struct CachingSource
{
  const ConvArgs &a;
  const float    *tile;
  int             x0;
  int             y0;
  __device__ CachingRow<C> row (int y) const
  {
    const bool own = (unsigned) (y - y0) < blockDim.y;
    return CachingRow<C> { global_row<C> (a, y),
                           own ? tile + (y - y0) * blockDim.x * C : NULL, x0 };
  }
};

/* grid.y is at most 65535, so blocks step down tall images. */
#define FOR_BLOCK_ROWS(a, by) \
  for (int by = blockIdx.y * blockDim.y; by < (a).dst.height; by += gridDim.y * blockDim.y)

#define DST_PIXEL(a, x, y) ((a).dst.data + (y) * (a).dst.pitch + (long long) (x) * C)

/* basic and constant: one thread a pixel, every read from global memory. */
template <int C, class Taps>
__global__ void
conv_direct (const __grid_constant__ ConvArgs a, Taps taps)
{
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;

  FOR_BLOCK_ROWS (a, by)
    {
      const int oy = by + threadIdx.y;

      if (ox < a.dst.width && oy < a.dst.height)
        conv_pixel<C> (a, taps, GlobalSource<C> { a }, a.out_x + ox, a.out_y + oy,
                       DST_PIXEL (a, ox, oy));
    }
}

/* The exact fallback (cc_exact_launch): basic's sums, blocks stepping over
 * the output's 16 x 16 squares, so that the launch costs little where
 * nothing was seen. */
template <int C>
__global__ void
conv_exact (const __grid_constant__ ConvArgs a, NanWords *nan)
{
  const int across = (a.dst.width + 15) / 16, squares = across * ((a.dst.height + 15) / 16);

  if (!*reinterpret_cast<volatile const unsigned *> (&nan->seen))
    return;
  if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0)
    a.claims->ran.exact++;
  for (int q = blockIdx.x; q < squares; q += gridDim.x)
    {
      const int ox = q % across * 16 + threadIdx.x, oy = q / across * 16 + threadIdx.y;

      if (ox < a.dst.width && oy < a.dst.height)
        conv_pixel<C> (a, GlobalTaps { a.mask }, GlobalSource<C> { a }, a.out_x + ox,
                       a.out_y + oy, DST_PIXEL (a, ox, oy));
    }
  /* Every block has read 'seen': the last one clears it. */
  if (threadIdx.x == 0 && threadIdx.y == 0 && atomicAdd (&nan->blocks, 1u) == gridDim.x - 1)
    {
      nan->seen = 0;
      nan->blocks = 0;
    }
}

/* tiled: the block loads its input tile and halo into shared memory, then
 * every tap reads there. */
template <int C>
__global__ void
conv_tiled (const __grid_constant__ ConvArgs a)
{
  extern __shared__ float tile[];
  const int tile_w = blockDim.x + a.mask_width - 1;
  const int tile_n = tile_w * (blockDim.y + a.mask_height - 1);
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nthreads = blockDim.x * blockDim.y;
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;

  FOR_BLOCK_ROWS (a, by)
    {
      const int oy = by + threadIdx.y;
      const int x0 = a.out_x + blockIdx.x * blockDim.x - (a.mask_width - 1) / 2;
      const int y0 = a.out_y + by - (a.mask_height - 1) / 2;

      __syncthreads ();
      for (int t = tid; t < tile_n; t += nthreads)
        {
          const GlobalRow<C> r = global_row<C> (a, y0 + t / tile_w);
          float *v = tile + t * C;

          if (r.present ())
            r (x0 + t % tile_w, v);
          else
            for (int c = 0; c < C; c++)
              v[c] = 0.0f;
        }
      __syncthreads ();
      if (ox < a.dst.width && oy < a.dst.height)
        conv_pixel<C> (a, ConstantTaps (), TileSource<C> { tile, tile_w, x0, y0 },
                       a.out_x + ox, a.out_y + oy, DST_PIXEL (a, ox, oy));
    }
}

/* caching: each thread loads its own pixel; halo reads go to global memory,
 * where neighbouring blocks' loads left them in L2. */
template <int C>
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

      const GlobalRow<C> own = global_row<C> (a, y0 + threadIdx.y);

      __syncthreads ();
      if (own.present ())
        own (x0 + threadIdx.x, tile + tid * C);
      else
        for (int c = 0; c < C; c++)
          tile[tid * C + c] = 0.0f;
      __syncthreads ();
      if (ox < a.dst.width && oy < a.dst.height)
        conv_pixel<C> (a, ConstantTaps (), CachingSource<C> { a, tile, x0, y0 },
                       a.out_x + ox, a.out_y + oy, DST_PIXEL (a, ox, oy));
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

static size_t
shared_bytes (CcMethod method, int mask_width, int mask_height, int channels)
{
  dim3 b = block_for (mask_width, mask_height);

  if (method == CC_METHOD_TILED)
    return sizeof (float) * channels * (b.x + mask_width - 1) * (b.y + mask_height - 1);
  if (method == CC_METHOD_CACHING)
    return sizeof (float) * channels * b.x * b.y;
  return 0;
}

template <int C>
static cudaError_t
launch (CcMethod method, const ConvArgs &a, cudaStream_t stream)
{
  dim3 block = block_for (a.mask_width, a.mask_height);
  unsigned rows = (a.dst.height + block.y - 1) / block.y;
  dim3 grid ((a.dst.width + block.x - 1) / block.x, rows < 65535 ? rows : 65535);
  size_t shared = shared_bytes (method, a.mask_width, a.mask_height, C);
  cudaError_t err;

  switch (method)
    {
    case CC_METHOD_BASIC:
      conv_direct<C><<<grid, block, 0, stream>>> (a, GlobalTaps { a.mask });
      break;
    case CC_METHOD_CONSTANT:
      conv_direct<C><<<grid, block, 0, stream>>> (a, ConstantTaps ());
      break;
    case CC_METHOD_TILED:
      if (shared > 48 * 1024 &&
          (err = cudaFuncSetAttribute (conv_tiled<C>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int) shared)) != cudaSuccess)
        return err;
      conv_tiled<C><<<grid, block, shared, stream>>> (a);
      break;
    case CC_METHOD_CACHING:
      conv_caching<C><<<grid, block, shared, stream>>> (a);
      break;
    default:
      return cudaErrorInvalidValue;
    }
  return cudaGetLastError ();
}

static cudaError_t
launch_channels (CcMethod method, const ConvArgs &a, cudaStream_t stream)
{
  return by_channels (a.channels, [&] (auto c)
    {
      return launch<decltype (c)::value> (method, a, stream);
    });
}

cudaError_t
cc_exact_launch (const ConvArgs &a, const DeviceFacts &d, cudaStream_t stream)
{
  return by_channels (a.channels, [&] (auto c)
    {
      conv_exact<decltype (c)::value><<<4 * d.sms, dim3 (16, 16), 0, stream>>> (a, a.nan);
      return cudaGetLastError ();
    });
}

/* basic reads the mask from global memory, the others from __constant__. */
static cudaError_t
basic_set_mask (struct _CcGpu *g, const CcJob *job)
{
  return cudaMemcpyAsync (g->mask, job->mask,
                          sizeof (float) * job->mask_width * job->mask_height,
                          cudaMemcpyHostToDevice, g->stream);
}

static cudaError_t
constant_set_mask (struct _CcGpu *g, const CcJob *job)
{
  return cudaMemcpyToSymbolAsync (c_mask, job->mask,
                                  sizeof (float) * job->mask_width * job->mask_height, 0,
                                  cudaMemcpyHostToDevice, g->stream);
}

template <CcMethod M>
static CcStatus
check (const CcJob *job, size_t *shared, char *message, size_t size)
{
  *shared = shared_bytes (M, job->mask_width, job->mask_height, job->channels);
  return CC_OK;
}

template <CcMethod M>
static cudaError_t
launch_method (struct _CcGpu *g, Lane *lane, const CcJob *job, const ConvArgs &a, float *pass,
               float *planes)
{
  return launch_channels (M, a, lane->stream);
}

extern "C" {
const CcKernels cc_kernels_basic =
  { .check = check<CC_METHOD_BASIC>, .set_mask = basic_set_mask,
    .launch = launch_method<CC_METHOD_BASIC> };
const CcKernels cc_kernels_constant =
  { .check = check<CC_METHOD_CONSTANT>, .set_mask = constant_set_mask,
    .launch = launch_method<CC_METHOD_CONSTANT>, .constant = true };
const CcKernels cc_kernels_tiled =
  { .check = check<CC_METHOD_TILED>, .set_mask = constant_set_mask,
    .launch = launch_method<CC_METHOD_TILED>, .constant = true };
const CcKernels cc_kernels_caching =
  { .check = check<CC_METHOD_CACHING>, .set_mask = constant_set_mask,
    .launch = launch_method<CC_METHOD_CACHING>, .constant = true };
}

extern const void *const cc_module_textbook = (const void *) conv_exact<4>;
