/* The register method's column kernel: masks one pixel wide (vertical 1D
 * masks, separable's column passes), with its launcher.
 * Compiled in register-kernels.cu's translation unit, whose c_reg_mask it
 * reads; internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_REGISTER_COLUMN_CUH
#define CC_REGISTER_COLUMN_CUH

#include "register-mask.cuh"
#include "register-tile.cuh"

/* Outputs a column-kernel thread computes down a column. */
constexpr int COL_NY = 8;   /* not a macro: #pragma unroll expands none */

/* Tap k into each of the window's COL_NY outputs. */
template <int C, bool WEIGHTED>
__device__ __forceinline__ void
column_taps (float k, const float (&win)[COL_NY][C], float (&plain)[COL_NY][C],
             float (&kca)[WEIGHTED ? COL_NY : 1][C], float (&wabs)[COL_NY])
{
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

/* Masks one pixel wide (vertical 1D masks, separable column passes): each
 * thread computes COL_NY outputs down a column from a sliding window of
 * pixels in registers, so each pixel is read from shared memory once. */
template <int C, bool WEIGHTED>
__global__ void __launch_bounds__ (256)
conv_column (const __grid_constant__ ConvArgs a, const __grid_constant__ Walk w)
{
  extern __shared__ __align__ (128) float4 shared4[];
  const int mh = a.mask_height;
  const int span = blockDim.y * COL_NY;   /* output rows a tile covers */
  const Tile t = tile_for<C> (blockDim.x, span + mh - 1, a.out_x);
  TileBuffers buffers;
  const auto load = [&] (int b, int i)
  {
    const TilePos p = tile_at (w, i);

    load_tile_async<C> (a, t, a.out_x + p.col * blockDim.x,
                        a.out_y + p.row * span - (mh - 1) / 2, buffers, b,
                        w.mapped ? &w.map : nullptr);
  };

  buffers.init (reinterpret_cast<float *> (shared4), w.floats, w.buffers);
  walk_tiles (w, buffers, load, [&] (TilePos pos, int claim, int cur, const auto &fetch)
    {
      const int bx0 = pos.col * blockDim.x, by = pos.row * span;
      const int ox = bx0 + threadIdx.x, oy0 = by + threadIdx.y * COL_NY;
      float *tile = buffers.buffer (cur);
      float plain[COL_NY][C], kca[WEIGHTED ? COL_NY : 1][C], wabs[COL_NY], win[COL_NY][C];

      fetch ();

      if (ox < a.dst.width && oy0 < a.dst.height)
        {
          const float *col = tile + threadIdx.y * COL_NY * t.stride + t.lead + threadIdx.x * C;
          zero_sums<COL_NY, C, WEIGHTED> (plain, kca, wabs);
#pragma unroll
          for (int n = 0; n + 1 < COL_NY; n++)
            load_shared<C> (col + n * t.stride, win[n + 1]);
          /* Row j of the mask meets output n at window row n + j.  Unrolled
           * COL_NY-fold, the window's shifts become register renaming. */
#pragma unroll COL_NY
          for (int j = 0; j < mh; j++)
            {
              const float k = c_reg_mask[j];

#pragma unroll
              for (int n = 0; n + 1 < COL_NY; n++)
#pragma unroll
                for (int c = 0; c < C; c++)
                  win[n][c] = win[n + 1][c];
              load_shared<C> (col + (j + COL_NY - 1) * t.stride, win[COL_NY - 1]);
              column_taps<C, WEIGHTED> (k, win, plain, kca, wabs);
            }

#pragma unroll
          for (int n = 0; n < COL_NY; n++)
            {
              const int oy = oy0 + n;
              if (oy >= a.dst.height)
                break;
              finish_store<C, WEIGHTED> (a, plain_only<C, WEIGHTED> (a), plain[n],
                                         kca[WEIGHTED ? n : 0], wabs[n],
                                         col + (n + (mh - 1) / 2) * t.stride,
                                         a.dst.data + oy * a.dst.pitch + (long long) ox * C);
            }
        }
      buffers.post_claim (claim);
      __syncthreads ();   /* this buffer is refilled next but one */
    });
  walk_done (w);
}

static size_t
column_tile_bytes (int by, int mask_height, int channels)
{
  return sizeof (float) * buffer_floats (tile_stride (32, channels),
                                         by * COL_NY + mask_height - 1);
}

/* The column kernel: 8 rows of 32 threads, fewer rows if the tile must. */
template <int C, bool WEIGHTED>
static cudaError_t
launch_column (const ConvArgs &a, const DeviceFacts &d, cudaStream_t stream)
{
  int by = 8;

  while (by > 1 && block_bytes (column_tile_bytes (by, a.mask_height, C), 1) > d.shared_optin)
    by /= 2;
  const size_t tile = column_tile_bytes (by, a.mask_height, C);
  if (block_bytes (tile, 1) > d.shared_optin)
    return cudaErrorInvalidConfiguration;

  return launch_walk (conv_column<C, WEIGHTED>, a, dim3 (32, by),
                      tile_for<C> (32, by * COL_NY + a.mask_height - 1, a.out_x), 0,
                      d, (a.dst.width + 31) / 32,
                      (a.dst.height + by * COL_NY - 1) / (by * COL_NY), stream);
}

#endif /* CC_REGISTER_COLUMN_CUH */
