/* The device toolkit's band of RGBA rows staged in shared memory, for the
 * kernels that stream down the image.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_BAND_CUH
#define CC_DEVICE_BAND_CUH

#include <cuda_pipeline.h>
#include "conv-args.cuh"
#include "device-bulk-copy.cuh"

/* ---- Staging a band of RGBA rows in shared memory ----
 *
 * The kernels that stream down a band of the image (separable's one pass,
 * on FP32 and tensor cores, and register's tensor 9x9) stage its rows in
 * shared memory ahead of their use: rows whose pixels lie inside the
 * source by the bulk-copy engine, a copy a row (or by the one pass, a
 * tensor copy of the whole box), the others pixel by pixel by cp.async,
 * their border resolved and a zero border's ghosts written as zeros. */

#if BULK_COPY
/* By one warp: ROWS (at most 32) rows of a band, source rows y0 on mapped
 * by the border rule (none to apply where 'rows_inside'), each by one bulk
 * copy of its pixels lo to hi - 1, inside the source, to 'to' ('stride'
 * float4s a row, pixel 0 at source column x_lo), completing on the
 * mbarrier 'bar'.  A zero border's ghost rows are left to the caller. */
template <int ROWS>
__device__ __forceinline__ void
bulk_copy_rows (const ConvArgs &a, float4 *to, int stride, int x_lo, int lo, int hi, int y0,
                bool rows_inside, unsigned long long *bar)
{
  const int lane = threadIdx.x % 32, y = y0 + lane;
  const int sy = rows_inside ? y : cc_border_index32 (y, a.src.height, a.border_y);
  const bool copies = lane < ROWS && sy >= 0;
  const int bytes = (int) sizeof (float4) * (hi - lo);
  const int rows = rows_inside ? ROWS : __popc (__ballot_sync (~0u, copies));

  static_assert (ROWS <= 32, "a lane a row");
  if (lane == 0)
    {
      /* Orders the block's reads of the buffer before the engine's writes. */
      async_proxy_fence ();
      mbarrier_expect_bytes (shared_address (bar), rows * bytes);
    }
  __syncwarp ();
  if (copies)
    bulk_copy (shared_address (to + lane * stride + lo),
               a.src.data + sy * a.src.pitch + (long long) (x_lo + lo) * 4, bytes,
               shared_address (bar));
}
#endif

/* By the block's warps: 'rows' rows of a band, source rows y0 on, each of
 * WIDTH pixels from source column x_lo on, to 'to' ('stride' float4s a
 * row) by cp.async, a pixel a copy; the caller commits the group.  Warp
 * 'warp' of 'warps' takes rows warp, warp + warps, ..., its lanes every
 * 32nd pixel: 'column (q)' is the source column of lane's pixel lane +
 * 32 q, border resolved (negative: a zero ghost), which a kernel staging
 * the same columns each step works out once.  'no_ghost_column': no
 * column is a ghost, so rows inside the source skip the test a pixel. */
template <int WIDTH, typename Column>
__device__ __forceinline__ void
stage_rows_async (const ConvArgs &a, float4 *to, int stride, int y0, int rows, int warp,
                  int warps, Column column, bool no_ghost_column)
{
  const int lane = (int) threadIdx.x % 32;

  for (int r = warp; r < rows; r += warps)
    {
      const int sy = cc_border_index32 (y0 + r, a.src.height, a.border_y);
      const float4 *row = reinterpret_cast<const float4 *> (a.src.data + sy * a.src.pitch);
      float4 *const dst = to + r * stride + lane;

      if (no_ghost_column && sy >= 0)
#pragma unroll
        for (int q = 0; q < (WIDTH + 31) / 32; q++)
          {
            if (lane + 32 * q < WIDTH)
              __pipeline_memcpy_async (dst + 32 * q, row + column (q), sizeof (float4));
          }
      else
#pragma unroll
        for (int q = 0; q < (WIDTH + 31) / 32; q++)
          if (lane + 32 * q < WIDTH)
            {
              const int sx = column (q);

              if ((sx | sy) >= 0)
                __pipeline_memcpy_async (dst + 32 * q, row + sx, sizeof (float4));
              else
                dst[32 * q] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
            }
    }
}

#endif /* CC_DEVICE_BAND_CUH */
