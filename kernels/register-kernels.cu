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

#include "cuda-kernels.cuh"

/* Outputs a thread computes along x: odd, so a warp's 16-byte reads of
 * consecutive pixels hit distinct shared-memory banks. */
#define REG_NX 7

/* Mask width classes; the widest bounds the __constant__ mask. */
static const int width_classes[] = { 1, 3, 5, 9, 15, 31, 63, 127 };
#define REG_MAX_WIDTH 127

/* [height][class width]; 127 x 127 floats is 63 KB, within the 64 KB bank. */
__constant__ float c_reg_mask[REG_MAX_WIDTH * CC_MASK_MAX];

int
cc_register_class (int mask_width)
{
  for (int k : width_classes)
    if (mask_width <= k)
      return k;
  return 0;
}

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

/* Copies the block's input tile, halo included and border resolved, into
 * shared memory: rows and columns by thread, no divisions. */
template <int C>
__device__ __forceinline__ void
load_tile (const ConvArgs &a, float *tile, int tile_w, int tile_h, int x0, int y0)
{
  for (int r = threadIdx.y; r < tile_h; r += blockDim.y)
    {
      const GlobalRow<C> row = global_row<C> (a, y0 + r);
      float *dst = tile + r * tile_w * C;

      for (int x = threadIdx.x; x < tile_w; x += blockDim.x)
        {
          float v[C];

          if (row.present ())
            row (x0 + x, v);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              v[c] = 0.0f;
          if (C == 4)
            *reinterpret_cast<float4 *> (dst + x * 4) = make_float4 (v[0], v[1], v[2], v[C - 1]);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              dst[x * C + c] = v[c];
        }
    }
}

template <int C, int KW, bool WEIGHTED>
__global__ void __launch_bounds__ (512)
conv_register (const __grid_constant__ ConvArgs a)
{
  extern __shared__ float4 shared4[];   /* float4: 16-byte aligned */
  float *tile = reinterpret_cast<float *> (shared4);
  const int mh = a.mask_height;
  const int tile_w = blockDim.x * REG_NX + KW - 1;
  const int tile_h = blockDim.y + mh - 1;
  const int ox0 = (blockIdx.x * blockDim.x + threadIdx.x) * REG_NX;

  for (int by = blockIdx.y * blockDim.y; by < a.dst.height; by += gridDim.y * blockDim.y)
    {
      const int oy = by + threadIdx.y;
      const int x0 = a.out_x + blockIdx.x * blockDim.x * REG_NX - (KW - 1) / 2;
      const int y0 = a.out_y + by - (mh - 1) / 2;
      float plain[REG_NX][C], kca[WEIGHTED ? REG_NX : 1][C], wabs[REG_NX];

      __syncthreads ();
      load_tile<C> (a, tile, tile_w, tile_h, x0, y0);
      __syncthreads ();
      if (oy >= a.dst.height || ox0 >= a.dst.width)
        continue;

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

      for (int j = 0; j < mh; j++)
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

      /* The centre pixel, for copied channels, is in the tile too. */
      const float *centre = tile + (((threadIdx.y + (mh - 1) / 2) * tile_w) +
                                    threadIdx.x * REG_NX + (KW - 1) / 2) * C;
      float *out = a.dst.data + oy * a.dst.pitch + (long long) ox0 * C;
#pragma unroll
      for (int n = 0; n < REG_NX; n++)
        {
          if (ox0 + n >= a.dst.width)
            break;
#pragma unroll
          for (int c = 0; c < C; c++)
            {
              const int mode = a.mode[c];
              float *o = out + n * C + c;

              if (mode == CC_MODE_COPY)
                *o = centre[n * C + c];
              else if (WEIGHTED && mode == CC_MODE_WEIGHTED)
                *o = cc_finish_weighted (plain[n][c], kca[WEIGHTED ? n : 0][c], wabs[n],
                                         a.sum_abs, a.inv_divisor, a.offset, a.clamp);
              else
                *o = cc_finish (plain[n][c] + (a.accumulate ? *o : 0.0f), a.inv_divisor,
                                a.offset, a.clamp);
            }
        }
    }
}

/* Rows of threads a block has: as many as fit in shared memory, up to 16,
 * and fewer for short images, so no thread idles on a single-row signal. */
static int
rows_per_block (int tile_w, int mask_height, int channels, int dst_height,
                size_t shared_limit, size_t *shared)
{
  int by = 16;

  while (by > 1 && by / 2 >= dst_height)
    by /= 2;
  for (; by >= 1; by /= 2)
    {
      *shared = sizeof (float) * channels * (size_t) tile_w * (by + mask_height - 1);
      if (*shared <= shared_limit)
        return by;
    }
  return 0;
}

size_t
cc_register_shared_bytes (int mask_width, int mask_height, int channels)
{
  const int kw = cc_register_class (mask_width);

  /* The least it runs with: one row of threads. */
  return kw ? sizeof (float) * channels * (size_t) (32 * REG_NX + kw - 1) * mask_height
            : (size_t) -1;
}

cudaError_t
cc_register_set_mask (const float *mask, int width, int height, cudaStream_t stream)
{
  const int kw = cc_register_class (width);
  const int pad = (kw - width) / 2;
  float padded[REG_MAX_WIDTH * CC_MASK_MAX];

  /* Centred in its class, zero taps either side. */
  for (int j = 0; j < height; j++)
    for (int i = 0; i < kw; i++)
      padded[j * kw + i] = i >= pad && i < pad + width ? mask[j * width + i - pad] : 0.0f;
  return cudaMemcpyToSymbolAsync (c_reg_mask, padded, sizeof (float) * kw * height, 0,
                                  cudaMemcpyHostToDevice, stream);
}

template <int C, int KW, bool WEIGHTED>
static cudaError_t
launch_class (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  const int tile_w = 32 * REG_NX + KW - 1;
  size_t shared;
  const int by = rows_per_block (tile_w, a.mask_height, C, a.dst.height, shared_limit,
                                 &shared);
  cudaError_t err;

  if (!by)
    return cudaErrorInvalidConfiguration;
  if (shared > 48 * 1024 &&
      (err = cudaFuncSetAttribute (conv_register<C, KW, WEIGHTED>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;

  const unsigned rows = (a.dst.height + by - 1) / by;
  const dim3 block (32, by);
  const dim3 grid ((a.dst.width + 32 * REG_NX - 1) / (32 * REG_NX),
                   rows < 65535 ? rows : 65535);
  conv_register<C, KW, WEIGHTED><<<grid, block, shared, stream>>> (a);
  return cudaGetLastError ();
}

template <int C, bool WEIGHTED>
static cudaError_t
launch_channels (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  switch (cc_register_class (a.mask_width))
    {
    case 1:  return launch_class<C, 1, WEIGHTED> (a, shared_limit, stream);
    case 3:  return launch_class<C, 3, WEIGHTED> (a, shared_limit, stream);
    case 5:  return launch_class<C, 5, WEIGHTED> (a, shared_limit, stream);
    case 9:  return launch_class<C, 9, WEIGHTED> (a, shared_limit, stream);
    case 15: return launch_class<C, 15, WEIGHTED> (a, shared_limit, stream);
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

  a.mask_width = cc_register_class (args.mask_width);
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
