/* The register method's 3x3 kernel: unweighted RGBA with 16-byte aligned
 * rows, no shared memory, with its launcher.
 * Compiled in register-kernels.cu's translation unit, whose c_reg_mask it
 * reads; internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_REGISTER_3X3_CUH
#define CC_REGISTER_3X3_CUH

#include "device-toolkit.cuh"
#include "register-mask.cuh"

/* Rows of outputs a 3x3-kernel warp computes. */
constexpr int NY_3X3 = 4;

/* Pixel (x, y) of a source with 16-byte aligned rows, its indices
 * border-resolved beforehand (-1: a zero ghost).  The load is
 * unconditional, from pixel (0, 0) for a ghost, so that nothing stands
 * between a warp's loads. */
template <int C>
__device__ __forceinline__ void
resolved_pixel (const ConvArgs &a, int x, int y, float v[C])
{
  load_pixel<C> (a.src.data + max (y, 0) * a.src.pitch + max (x, 0) * C, v, true);
  if ((x | y) < 0)
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = 0.0f;
}

/* 3x3 masks on RGBA with 16-byte aligned rows, unweighted: memory-bound,
 * so no shared memory, no barriers and every load issued before any
 * arithmetic.  A warp computes NY_3X3 rows of 32 outputs.  Each lane loads
 * the one pixel under it in each of the NY_3X3 + 2 rows and takes its left
 * and right neighbours from the lanes beside it by shuffles; the pixels
 * beside the warp's two edges, for all rows, come in one more load (lane l:
 * row l / 2, left or right by l % 2).  So each pixel is loaded once,
 * which beat loading all three neighbours in each thread through L1; 4 rows
 * (64 registers, 32 warps an SM) tie 8 rows and beat 6.  Lanes past the
 * output's right edge load too: theirs are the neighbours there. */
template <int C>
__global__ void __launch_bounds__ (256, 4)
conv_3x3 (const __grid_constant__ ConvArgs a)
{
  constexpr int K = 3, S = reg_mask_stride (K), ROWS = NY_3X3 + K - 1;
  static_assert (2 * ROWS <= 32, "one load brings a warp's edge pixels");
  const int lane = threadIdx.x, x0 = blockIdx.x * 32, x = x0 + lane;
  const int sx = cc_border_index32 (a.out_x + x, a.src.width, a.border_x);
  const int edge_x = cc_border_index32 (a.out_x + x0 + (lane % 2 ? 32 : -1), a.src.width,
                                        a.border_x);
  const bool plain = plain_only<C, false> (a);

  for (int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * NY_3X3; y0 < a.dst.height;
       y0 += gridDim.y * blockDim.y * NY_3X3)
    {
      const int sy = a.out_y + y0 - 1;
      const int edge_y = cc_border_index32 (sy + lane / 2, a.src.height, a.border_y);
      int ry[ROWS];
      float v[ROWS][C], edge[C] = {}, acc[NY_3X3][C];

      /* Every row resolved first: the border rule's branches would part the loads. */
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        ry[r] = cc_border_index32 (sy + r, a.src.height, a.border_y);
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        resolved_pixel<C> (a, sx, ry[r], v[r]);
      if (lane < 2 * ROWS)
        resolved_pixel<C> (a, edge_x, edge_y, edge);
#pragma unroll
      for (int n = 0; n < NY_3X3; n++)
#pragma unroll
        for (int c = 0; c < C; c++)
          acc[n][c] = 0.0f;
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        {
          float p[K][C];

#pragma unroll
          for (int c = 0; c < C; c++)
            {
              /* Every lane shuffles (a lane skipping one is undefined),
               * then the edge lanes take the edge pixel. */
              const float side = __shfl_sync (~0u, edge[c], 2 * r + (lane == 31));
              const float left = __shfl_up_sync (~0u, v[r][c], 1);
              const float right = __shfl_down_sync (~0u, v[r][c], 1);

              p[0][c] = lane == 0 ? side : left;
              p[1][c] = v[r][c];
              p[2][c] = lane == 31 ? side : right;
            }
          /* Row r is mask row j of output row r - j. */
#pragma unroll
          for (int j = 0; j < K; j++)
            if (r - j >= 0 && r - j < NY_3X3)
#pragma unroll
              for (int i = 0; i < K; i++)
#pragma unroll
                for (int c = 0; c < C; c++)
                  acc[r - j][c] += c_reg_mask[j * S + i] * p[i][c];
        }
      if (x < a.dst.width)
#pragma unroll
        for (int n = 0; n < NY_3X3 && y0 + n < a.dst.height; n++)
          finish_store<C, false> (a, plain, acc[n], acc[n], 0.0f, v[n + 1],
                                  a.dst.data + (y0 + n) * a.dst.pitch + (long long) x * C);
    }
}

/* The 3x3 kernel in blocks of 8 rows of a warp, a block's rows stepping
 * down by the grid where the image is taller than 65535 blocks' worth. */
static cudaError_t
launch_3x3 (const ConvArgs &a, cudaStream_t stream)
{
  const dim3 block (32, 8);
  const int rows = (a.dst.height + block.y * NY_3X3 - 1) / (block.y * NY_3X3);

  conv_3x3<4><<<dim3 ((a.dst.width + 31) / 32, min (rows, 65535)), block, 0, stream>>> (a);
  return cudaGetLastError ();
}

#endif /* CC_REGISTER_3X3_CUH */
