/* Method "register": each thread computes REG_NX horizontally adjacent
 * outputs from a shared-memory tile, every input pixel it loads feeding all
 * of them, with the mask's taps read from __constant__ memory at indices the
 * compiler knows, so they sit in the FMAs as operands.  The mask's width is a
 * compile-time class (the mask is centred in it, padded with zero taps);
 * its height is a run-time loop, so few instantiations cover every mask.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <cuda_pipeline.h>

#include "cuda-kernels.cuh"

/* Outputs a thread computes along x: odd, so a warp's 16-byte reads of
 * consecutive pixels hit distinct shared-memory banks. */
#define REG_NX 7

/* Mask widths are rounded up to a class (cc_mask_width_class); the widest
 * bounds the __constant__ mask.  Width 1 is the column kernel's
 * (conv_column, below). */
#define REG_MAX_WIDTH 127

/* [height][class width]; 127 x 127 floats is 63 KB, within the 64 KB bank. */
__constant__ float c_reg_mask[REG_MAX_WIDTH * CC_MASK_MAX];

/* One pixel's C channels from shared memory (16-byte reads for RGBA). */
template <int C>
__device__ __forceinline__ void
load_shared (const float *p, float v[C])
{
  if (C == 4)
    {
      const float4 q = *reinterpret_cast<const float4 *> (p);
      v[0] = q.x; v[1] = q.y; v[2] = q.z; v[C - 1] = q.w;
    }
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = p[c];
}

/* Starts copying the block's input tile, halo included and border resolved,
 * into shared memory without waiting (cp.async): the caller commits the
 * group and waits for it later, computing on the previous tile meanwhile.
 * Zero ghost pixels are stored directly. */
template <int C>
__device__ __forceinline__ void
load_tile_async (const ConvArgs &a, float *tile, int tile_w, int tile_h, int x0, int y0)
{
  for (int r = threadIdx.y; r < tile_h; r += blockDim.y)
    {
      const GlobalRow<C> row = global_row<C> (a, y0 + r);
      float *dst = tile + r * tile_w * C;

      for (int x = threadIdx.x; x < tile_w; x += blockDim.x)
        {
          const float *src = pixel_address<C> (row, x0 + x);

          if (!src)
#pragma unroll
            for (int c = 0; c < C; c++)
              dst[x * C + c] = 0.0f;
          else if (C == 4 && a.vec4)
            __pipeline_memcpy_async (dst + x * 4, src, 16);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              __pipeline_memcpy_async (dst + x * C + c, src + c, 4);
        }
    }
}

/* Tiles go to blocks round-robin; each block prefetches its next tile while
 * it computes the current one (two buffers), or loads as it goes (one
 * buffer) where two tiles do not fit in shared memory. */
struct TileWalk
{
  int tiles_x;
  int total;
};

__device__ __forceinline__ TileWalk
tile_walk (const ConvArgs &a, int span_x, int span_y)
{
  TileWalk w;

  w.tiles_x = (a.dst.width + span_x - 1) / span_x;
  w.total = w.tiles_x * ((a.dst.height + span_y - 1) / span_y);
  return w;
}

template <int C, int KW, bool WEIGHTED>
__global__ void __launch_bounds__ (512)
conv_register (const __grid_constant__ ConvArgs a, int buffers)
{
  extern __shared__ float4 shared4[];   /* float4: 16-byte aligned */
  const int mh = a.mask_height;
  const int span = blockDim.x * REG_NX;   /* output pixels a tile row covers */
  const int tile_w = span + KW - 1;
  const int tile_h = blockDim.y + mh - 1;
  const TileWalk walk = tile_walk (a, span, blockDim.y);
  float *const base = reinterpret_cast<float *> (shared4);
  const int tile_floats = tile_w * tile_h * C;
  int id = blockIdx.x, cur = 0;

  if (buffers == 2 && id < walk.total)
    {
      load_tile_async<C> (a, base, tile_w, tile_h,
                          a.out_x + (id % walk.tiles_x) * span - (KW - 1) / 2,
                          a.out_y + (id / walk.tiles_x) * blockDim.y - (mh - 1) / 2);
      __pipeline_commit ();
    }
  for (; id < walk.total; id += gridDim.x, cur ^= buffers - 1)
    {
      const int bx0 = (id % walk.tiles_x) * span, by = (id / walk.tiles_x) * blockDim.y;
      const int next = id + gridDim.x;
      const int ox0 = bx0 + threadIdx.x * REG_NX, oy = by + threadIdx.y;
      const bool active = oy < a.dst.height && ox0 < a.dst.width;
      float *tile = base + cur * tile_floats;
      float plain[REG_NX][C], kca[WEIGHTED ? REG_NX : 1][C], wabs[REG_NX];

      if (buffers == 1)
        load_tile_async<C> (a, tile, tile_w, tile_h, a.out_x + bx0 - (KW - 1) / 2,
                            a.out_y + by - (mh - 1) / 2);
      else if (next < walk.total)
        load_tile_async<C> (a, base + (cur ^ 1) * tile_floats, tile_w, tile_h,
                            a.out_x + (next % walk.tiles_x) * span - (KW - 1) / 2,
                            a.out_y + (next / walk.tiles_x) * blockDim.y - (mh - 1) / 2);
      __pipeline_commit ();
      __pipeline_wait_prior (buffers - 1);
      __syncthreads ();

#pragma unroll
      for (int n = 0; n < REG_NX; n++)
        {
          wabs[n] = 0.0f;
#pragma unroll
          for (int c = 0; c < C; c++)
            {
              plain[n][c] = 0.0f;
              if (WEIGHTED)
                kca[n][c] = 0.0f;
            }
        }

      for (int j = 0; active && j < mh; j++)
        {
          const float *row = tile + ((threadIdx.y + j) * tile_w + threadIdx.x * REG_NX) * C;
          const float *taps = c_reg_mask + j * KW;

          /* Pixel p of the thread's window feeds output n through tap p - n. */
#pragma unroll
          for (int p = 0; p < REG_NX + KW - 1; p++)
            {
              float v[C];

              load_shared<C> (row + p * C, v);
#pragma unroll
              for (int n = 0; n < REG_NX; n++)
                {
                  const int i = p - n;

                  if (i < 0 || i >= KW)
                    continue;
                  const float k = taps[i];
                  if (WEIGHTED)
                    {
                      const float ka = k * v[C - 1];
#pragma unroll
                      for (int c = 0; c < C; c++)
                        {
                          plain[n][c] += k * v[c];
                          kca[n][c] += ka * v[c];
                        }
                      wabs[n] += fabsf (ka);
                    }
                  else
#pragma unroll
                    for (int c = 0; c < C; c++)
                      plain[n][c] += k * v[c];
                }
            }
        }

      /* Finish in registers (copied channels from the tile's centre
       * pixels), then stage the tile's outputs in its own buffer, so the
       * stores to global memory are whole rows, coalesced. */
      const float *centre = tile + (((threadIdx.y + (mh - 1) / 2) * tile_w) +
                                    threadIdx.x * REG_NX + (KW - 1) / 2) * C;
      const float *prev = a.dst.data + oy * a.dst.pitch + (long long) ox0 * C;
#pragma unroll
      for (int n = 0; n < REG_NX; n++)
#pragma unroll
        for (int c = 0; c < C; c++)
          {
            const int mode = a.mode[c];
            const bool here = active && ox0 + n < a.dst.width;

            if (mode == CC_MODE_COPY)
              plain[n][c] = centre[n * C + c];
            else if (WEIGHTED && mode == CC_MODE_WEIGHTED)
              plain[n][c] = cc_finish_weighted (plain[n][c], kca[WEIGHTED ? n : 0][c], wabs[n],
                                                a.sum_abs, a.inv_divisor, a.offset, a.clamp);
            else
              plain[n][c] = cc_finish (plain[n][c] + (a.accumulate && here ? prev[n * C + c]
                                                                           : 0.0f),
                                       a.inv_divisor, a.offset, a.clamp);
          }
      __syncthreads ();
      float *staged = tile + (threadIdx.y * span + threadIdx.x * REG_NX) * C;
#pragma unroll
      for (int n = 0; n < REG_NX; n++)
#pragma unroll
        for (int c = 0; c < C; c++)
          staged[n * C + c] = plain[n][c];
      __syncthreads ();
      if (oy < a.dst.height)
        {
          const float *src = tile + threadIdx.y * span * C;
          float *out = a.dst.data + oy * a.dst.pitch + (long long) bx0 * C;
          const int w = min (span, a.dst.width - bx0);

          if (C == 4 && a.dst.pitch % 4 == 0)
            for (int x = threadIdx.x; x < w; x += blockDim.x)
              reinterpret_cast<float4 *> (out)[x] = reinterpret_cast<const float4 *> (src)[x];
          else
            for (int i = threadIdx.x; i < w * C; i += blockDim.x)
              out[i] = src[i];
        }
      __syncthreads ();   /* this buffer is refilled next but one */
    }
}

/* Outputs a column-kernel thread computes down a column. */
#define COL_NY 8

/* Masks one pixel wide (vertical 1D masks, separable column passes): each
 * thread computes COL_NY outputs down a column from a sliding window of
 * pixels in registers, so each pixel is read from shared memory once. */
template <int C, bool WEIGHTED>
__global__ void __launch_bounds__ (256)
conv_column (const __grid_constant__ ConvArgs a, int buffers)
{
  extern __shared__ float4 shared4[];
  const int mh = a.mask_height;
  const int span = blockDim.y * COL_NY;   /* output rows a tile covers */
  const int tile_w = blockDim.x, tile_h = span + mh - 1;
  const TileWalk walk = tile_walk (a, blockDim.x, span);
  float *const base = reinterpret_cast<float *> (shared4);
  const int tile_floats = tile_w * tile_h * C;
  int id = blockIdx.x, cur = 0;

  if (buffers == 2 && id < walk.total)
    {
      load_tile_async<C> (a, base, tile_w, tile_h,
                          a.out_x + (id % walk.tiles_x) * blockDim.x,
                          a.out_y + (id / walk.tiles_x) * span - (mh - 1) / 2);
      __pipeline_commit ();
    }
  for (; id < walk.total; id += gridDim.x, cur ^= buffers - 1)
    {
      const int bx0 = (id % walk.tiles_x) * blockDim.x, by = (id / walk.tiles_x) * span;
      const int next = id + gridDim.x;
      const int ox = bx0 + threadIdx.x, oy0 = by + threadIdx.y * COL_NY;
      float *tile = base + cur * tile_floats;
      float plain[COL_NY][C], kca[WEIGHTED ? COL_NY : 1][C], wabs[COL_NY], win[COL_NY][C];

      if (buffers == 1)
        load_tile_async<C> (a, tile, tile_w, tile_h, a.out_x + bx0,
                            a.out_y + by - (mh - 1) / 2);
      else if (next < walk.total)
        load_tile_async<C> (a, base + (cur ^ 1) * tile_floats, tile_w, tile_h,
                            a.out_x + (next % walk.tiles_x) * blockDim.x,
                            a.out_y + (next / walk.tiles_x) * span - (mh - 1) / 2);
      __pipeline_commit ();
      __pipeline_wait_prior (buffers - 1);
      __syncthreads ();

      if (ox < a.dst.width && oy0 < a.dst.height)
        {
          const float *col = tile + (threadIdx.y * COL_NY * tile_w + threadIdx.x) * C;
#pragma unroll
          for (int n = 0; n < COL_NY; n++)
            {
              wabs[n] = 0.0f;
#pragma unroll
              for (int c = 0; c < C; c++)
                {
                  plain[n][c] = 0.0f;
                  if (WEIGHTED)
                    kca[n][c] = 0.0f;
                }
              if (n + 1 < COL_NY)
                load_shared<C> (col + n * tile_w * C, win[n + 1]);
            }
          /* Row j of the mask meets output n at window row n + j. */
          for (int j = 0; j < mh; j++)
            {
              const float k = c_reg_mask[j];

#pragma unroll
              for (int n = 0; n + 1 < COL_NY; n++)
#pragma unroll
                for (int c = 0; c < C; c++)
                  win[n][c] = win[n + 1][c];
              load_shared<C> (col + (j + COL_NY - 1) * tile_w * C, win[COL_NY - 1]);
#pragma unroll
              for (int n = 0; n < COL_NY; n++)
                {
                  if (WEIGHTED)
                    {
                      const float ka = k * win[n][C - 1];
#pragma unroll
                      for (int c = 0; c < C; c++)
                        {
                          plain[n][c] += k * win[n][c];
                          kca[n][c] += ka * win[n][c];
                        }
                      wabs[n] += fabsf (ka);
                    }
                  else
#pragma unroll
                    for (int c = 0; c < C; c++)
                      plain[n][c] += k * win[n][c];
                }
            }

#pragma unroll
          for (int n = 0; n < COL_NY; n++)
            {
              const int oy = oy0 + n;
              const float *centre = col + (n + (mh - 1) / 2) * tile_w * C;
              float *out = a.dst.data + oy * a.dst.pitch + (long long) ox * C;
              float v[C];

              if (oy >= a.dst.height)
                break;
#pragma unroll
              for (int c = 0; c < C; c++)
                {
                  const int mode = a.mode[c];

                  if (mode == CC_MODE_COPY)
                    v[c] = centre[c];
                  else if (WEIGHTED && mode == CC_MODE_WEIGHTED)
                    v[c] = cc_finish_weighted (plain[n][c], kca[WEIGHTED ? n : 0][c], wabs[n],
                                               a.sum_abs, a.inv_divisor, a.offset, a.clamp);
                  else
                    v[c] = cc_finish (plain[n][c] + (a.accumulate ? out[c] : 0.0f),
                                      a.inv_divisor, a.offset, a.clamp);
                }
              if (C == 4 && a.dst.pitch % 4 == 0)
                *reinterpret_cast<float4 *> (out) = make_float4 (v[0], v[1], v[2], v[C - 1]);
              else
#pragma unroll
                for (int c = 0; c < C; c++)
                  out[c] = v[c];
            }
        }
      __syncthreads ();   /* this buffer is refilled next but one */
    }
}

static size_t
tile_bytes (int bx, int by, int kw, int mask_height, int channels)
{
  return sizeof (float) * channels * (size_t) (bx * REG_NX + kw - 1) * (by + mask_height - 1);
}

/* A block's shape: 16 rows of one warp each, which amortises a tall mask's
 * halo; short images get fewer, wider rows (256 threads), so no thread idles
 * on a single-row signal.  It shrinks until the tile fits shared memory;
 * the last resort is one warp, one row. */
static bool
block_shape (int kw, int mask_height, int channels, int dst_height, size_t shared_limit,
             dim3 *block, size_t *shared)
{
  /* 8 rows for short masks: smaller blocks, more of them an SM, so one
   * block's loads overlap another's arithmetic. */
  int by = mask_height <= 7 ? 8 : 16;

  while (by > 1 && by / 2 >= dst_height)
    by /= 2;
  for (; by >= 1; by /= 2)
    for (int bx = by >= 8 ? 32 : 256 / by; bx >= 32; bx /= 2)
      if ((*shared = tile_bytes (bx, by, kw, mask_height, channels)) <= shared_limit)
        {
          *block = dim3 (bx, by);
          return true;
        }
  return false;
}

size_t
cc_register_shared_bytes (int mask_width, int mask_height, int channels)
{
  const int kw = cc_mask_width_class (mask_width);

  if (kw == 1)
    return sizeof (float) * channels * 32 * (COL_NY + mask_height - 1);
  return kw ? tile_bytes (32, 1, kw, mask_height, channels) : (size_t) -1;
}

cudaError_t
cc_register_set_mask (const float *mask, int width, int height, cudaStream_t stream)
{
  const int kw = cc_mask_width_class (width);
  const int pad = (kw - width) / 2;
  float padded[REG_MAX_WIDTH * CC_MASK_MAX];

  /* Centred in its class, zero taps either side. */
  for (int j = 0; j < height; j++)
    for (int i = 0; i < kw; i++)
      padded[j * kw + i] = i >= pad && i < pad + width ? mask[j * width + i - pad] : 0.0f;
  return cudaMemcpyToSymbolAsync (c_reg_mask, padded, sizeof (float) * kw * height, 0,
                                  cudaMemcpyHostToDevice, stream);
}

/* Launches a tile-walking kernel: two buffers where they fit, and as many
 * blocks as the GPU holds at once, each walking its share of the tiles. */
template <typename Kernel>
static cudaError_t
launch_walk (Kernel kernel, const ConvArgs &a, dim3 block, size_t tile, size_t shared_limit,
             int tiles, cudaStream_t stream)
{
  const int buffers = 2 * tile <= shared_limit ? 2 : 1;
  const size_t shared = buffers * tile;
  int device = 0, sms = 1, per_sm = 1;
  cudaError_t err;

  if (shared > 48 * 1024 &&
      (err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  cudaGetDevice (&device);
  cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, block.x * block.y, shared);
  const int blocks = per_sm > 0 ? per_sm * sms : sms;
  kernel<<<tiles < blocks ? tiles : blocks, block, shared, stream>>> (a, buffers);
  return cudaGetLastError ();
}

/* The column kernel: 8 rows of 32 threads, fewer rows if the tile must. */
template <int C, bool WEIGHTED>
static cudaError_t
launch_column (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  int by = 8;
  size_t tile;

  while ((tile = sizeof (float) * C * 32 * (by * COL_NY + a.mask_height - 1)) >
         shared_limit && by > 1)
    by /= 2;
  if (tile > shared_limit)
    return cudaErrorInvalidConfiguration;

  const int tiles = ((a.dst.width + 31) / 32) *
                    ((a.dst.height + by * COL_NY - 1) / (by * COL_NY));
  return launch_walk (conv_column<C, WEIGHTED>, a, dim3 (32, by), tile, shared_limit, tiles,
                      stream);
}

template <int C, int KW, bool WEIGHTED>
static cudaError_t
launch_class (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  dim3 block;
  size_t tile;

  if (!block_shape (KW, a.mask_height, C, a.dst.height, shared_limit, &block, &tile))
    return cudaErrorInvalidConfiguration;

  const int span = block.x * REG_NX;
  const int tiles = ((a.dst.width + span - 1) / span) *
                    ((a.dst.height + block.y - 1) / block.y);
  return launch_walk (conv_register<C, KW, WEIGHTED>, a, block, tile, shared_limit, tiles,
                      stream);
}

template <int C, bool WEIGHTED>
static cudaError_t
launch_channels (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  switch (cc_mask_width_class (a.mask_width))
    {
    case 1:  return launch_column<C, WEIGHTED> (a, shared_limit, stream);
    case 3:  return launch_class<C, 3, WEIGHTED> (a, shared_limit, stream);
    case 5:  return launch_class<C, 5, WEIGHTED> (a, shared_limit, stream);
    case 7:  return launch_class<C, 7, WEIGHTED> (a, shared_limit, stream);
    case 9:  return launch_class<C, 9, WEIGHTED> (a, shared_limit, stream);
    case 15: return launch_class<C, 15, WEIGHTED> (a, shared_limit, stream);
    case 25: return launch_class<C, 25, WEIGHTED> (a, shared_limit, stream);
    case 31: return launch_class<C, 31, WEIGHTED> (a, shared_limit, stream);
    case 63: return launch_class<C, 63, WEIGHTED> (a, shared_limit, stream);
    case 127: return launch_class<C, 127, WEIGHTED> (a, shared_limit, stream);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t
cc_register_launch (const ConvArgs &args, size_t shared_limit, cudaStream_t stream)
{
  /* The mask's taps are centred in the class's width. */
  ConvArgs a = args;

  a.mask_width = cc_mask_width_class (args.mask_width);
  if (a.weighted)
    switch (a.channels)
      {
      case 2:  return launch_channels<2, true> (a, shared_limit, stream);
      case 4:  return launch_channels<4, true> (a, shared_limit, stream);
      default: return cudaErrorInvalidValue;
      }
  switch (a.channels)
    {
    case 1:  return launch_channels<1, false> (a, shared_limit, stream);
    case 2:  return launch_channels<2, false> (a, shared_limit, stream);
    case 3:  return launch_channels<3, false> (a, shared_limit, stream);
    case 4:  return launch_channels<4, false> (a, shared_limit, stream);
    default: return cudaErrorInvalidValue;
    }
}
