/* Method "register": each thread computes several horizontally adjacent
 * outputs from a shared-memory tile, every input pixel it loads feeding all
 * of them, with the mask's taps read from __constant__ memory at indices the
 * compiler knows, so they sit in the FMAs as operands.  The mask's width is a
 * compile-time class (the mask is centred in it, padded with zero taps);
 * its height is a run-time loop, so few instantiations cover every mask.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include <cuda_fp16.h>

#include "register-tile.cuh"

/* Unweighted RGBA with masks 7 to 15 wide: issue-bound, so each thread
 * takes more outputs (36 sums, fewer loads and less overhead an output)
 * and 80 registers, where 64 had let two blocks of 512 share an SM (launch
 * bounds 256 x 3 for these), in narrow blocks (block_shape).  Not wider
 * masks: separable's wide row passes lost more than 31x31 gained
 * (docs/performance.md has the figures, as for every choice below). */
__host__ __device__ constexpr bool
reg_wide (int channels, int kw, bool weighted)
{
  return channels == 4 && !weighted && kw >= 7 && kw <= 15;
}

/* Outputs a thread computes along x: about 28 samples' sums in registers
 * whatever the channel count, fewer for the widest masks (their unrolled
 * rows grow as NX x width), more for reg_wide.  Odd, so that with 1, 3 or
 * 4 channels a warp's reads of its threads' windows hit distinct
 * shared-memory banks. */
__host__ __device__ constexpr int
reg_nx (int channels, int kw, bool weighted)
{
  return reg_wide (channels, kw, weighted) ? 9
         : channels == 4 || kw > 31 ? 7 : channels == 3 ? 9 : channels == 2 ? 13 : 21;
}

/* Mask widths are rounded up to a class (cc_mask_width_class); the widest
 * bounds the __constant__ mask.  Width 1 is the column kernel's
 * (conv_column, below). */
#define REG_MAX_WIDTH 127

/* Floats a mask row takes: an even count past width 1, so that the taps
 * load in pairs (one uniform 8-byte load for two taps). */
__host__ __device__ constexpr int
reg_mask_stride (int kw)
{
  return kw == 1 ? 1 : kw + 1;
}

/* [height][stride]; 127 x 128 floats is 63.5 KB, within the 64 KB bank. */
__constant__ __align__ (8) float
  c_reg_mask[reg_mask_stride (REG_MAX_WIDTH) * CC_DIRECT_MASK_MAX];

/* Two blocks of 512 an SM cap a thread at 64 registers, which the plain
 * kernels fit without spilling; reg_wide's take 80, three blocks of 256;
 * the weighted ones hold three sums an output and take up to 128.  (With
 * no minimum given, ptxas picked 40 for some of them, and spilled.) */
template <int C, int KW, bool WEIGHTED>
__global__ void __launch_bounds__ (reg_wide (C, KW, WEIGHTED) ? 256 : 512,
                                   WEIGHTED ? 1 : reg_wide (C, KW, WEIGHTED) ? 3 : 2)
conv_register (const __grid_constant__ ConvArgs a, const __grid_constant__ Walk w)
{
  constexpr int REG_NX = reg_nx (C, KW, WEIGHTED);
  extern __shared__ __align__ (128) float4 shared4[];   /* the tensor copy's alignment */
  const int mh = a.mask_height;
  const int span = blockDim.x * REG_NX;   /* output pixels a tile row covers */
  const Tile t = tile_for<C> (span + KW - 1, blockDim.y + mh - 1, a.out_x - (KW - 1) / 2);
  TileBuffers buffers;
  /* Starts loading tile i into buffer b. */
  const auto load = [&] (int b, int i)
  {
    const TilePos p = tile_at (w, i);

    load_tile_async<C> (a, t, a.out_x + p.col * span - (KW - 1) / 2,
                        a.out_y + p.row * blockDim.y - (mh - 1) / 2, buffers, b,
                        w.mapped ? &w.map : nullptr);
  };
  int cur = 0, tile_i = blockIdx.x, next_i = blockIdx.x + gridDim.x;

  /* As the tensor kernel's fallback, only where it found a sample it
   * cannot take (conv_tensor9). */
  if (w.redo && !*reinterpret_cast<volatile const unsigned *> (w.redo))
    return;
  buffers.init (reinterpret_cast<float *> (shared4), w.floats, w.buffers);
  if (w.buffers == 2 && tile_i < w.total)
    {
      load (0, tile_i);
      __pipeline_commit ();
    }
  for (; tile_i < w.total; cur ^= w.buffers - 1)
    {
      const TilePos pos = tile_at (w, tile_i);
      const int claim = first_thread () ? claim_tile (w) : 0;
      const int bx0 = pos.col * span, by = pos.row * blockDim.y;
      const int ox0 = bx0 + threadIdx.x * REG_NX, oy = by + threadIdx.y;
      const bool active = oy < a.dst.height && ox0 < a.dst.width;
      float *tile = buffers.buffer (cur);
      float plain[REG_NX][C], kca[WEIGHTED ? REG_NX : 1][C], wabs[REG_NX];

      if (w.buffers == 1)
        load (cur, tile_i);
      else if (next_i < w.total)
        load (cur ^ 1, next_i);
      __pipeline_commit ();
      buffers.wait (cur, w.buffers - 1);

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
          const float *row = tile + (threadIdx.y + j) * t.stride + t.lead +
                             threadIdx.x * REG_NX * C;
          const float2 *taps = reinterpret_cast<const float2 *> (c_reg_mask +
                                                                  j * reg_mask_stride (KW));

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
                  const float k = i % 2 ? taps[i / 2].y : taps[i / 2].x;
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

      /* The class's zero taps past the mask make a NaN of an infinity or
       * a NaN they reach (the scheduler passes nan_seen only then: reach_past). */
      if (a.nan_seen)
        {
          bool nan = false;

#pragma unroll
          for (int n = 0; n < REG_NX; n++)
            {
              nan = nan || isnan (wabs[n]);
#pragma unroll
              for (int c = 0; c < C; c++)
                nan = nan || isnan (plain[n][c]);
            }
          if (nan)
            *a.nan_seen = 1;
        }

      /* Finish in registers (copied channels from the tile's centre
       * pixels), then stage the tile's outputs in its own buffer, so the
       * stores to global memory are whole rows, coalesced. */
      const float *centre = tile + (threadIdx.y + (mh - 1) / 2) * t.stride + t.lead +
                            (threadIdx.x * REG_NX + (KW - 1) / 2) * C;
      const float *prev = a.dst.data + oy * a.dst.pitch + (long long) ox0 * C;
      const auto finish_plain = [&] (int clamp)
      {
#pragma unroll
        for (int n = 0; n < REG_NX; n++)
#pragma unroll
          for (int c = 0; c < C; c++)
            plain[n][c] = cc_finish (plain[n][c], a.inv_divisor, a.offset, clamp);
      };
      /* The clamp chosen once a tile, not per sample: clamped, the plain
       * finish is one saturating FMA a sample.  Unclamped it passes
       * a.clamp, not 0: with 0, ptxas scheduled the 5x5 kernel 9% slower. */
      if (plain_only<C, WEIGHTED> (a) && a.clamp)
        finish_plain (1);
      else if (plain_only<C, WEIGHTED> (a))
        finish_plain (a.clamp);
      else
        {
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
                  plain[n][c] = cc_finish_weighted (plain[n][c], kca[WEIGHTED ? n : 0][c],
                                                    wabs[n], a.sum_abs, a.inv_divisor, a.offset,
                                                    a.clamp);
                else
                  plain[n][c] = cc_finish (plain[n][c] + (a.accumulate && here
                                                          ? prev[n * C + c] : 0.0f),
                                           a.inv_divisor, a.offset, a.clamp);
              }
        }
      buffers.post_claim (claim);
      __syncthreads ();
      float *staged = tile + (threadIdx.y * span + threadIdx.x * REG_NX) * C;
#pragma unroll
      for (int n = 0; n < REG_NX; n++)
        store_shared<C> (staged + n * C, plain[n]);
      if (BULK_COPY && w.out_mapped && bx0 + span <= a.dst.width &&
          by + (int) blockDim.y <= a.dst.height)
        buffers.store_tile (&w.out_map, tile, bx0 * C / 2, by);
      else
        {
          /* Each thread row stores the row it staged: where rows fill
           * whole warps (block widths are powers of two), a warp reads
           * back only what it wrote, so a warp barrier is enough (the gain
           * is given at TileBuffers::wait). */
          if (blockDim.x <= 32 && blockDim.x * blockDim.y % 32 == 0)
            __syncwarp ();
          else
            __syncthreads ();
          store_rows (a, tile, span * C, blockDim.y, bx0, by, min (span, a.dst.width - bx0) * C,
                      C);
          __syncthreads ();   /* this buffer is refilled next but one */
        }
      tile_i = next_i;
      next_i = buffers.take_claim ();
    }
  buffers.finish_stores ();
  walk_done (w);
}

/* ---- 9x9 masks on RGBA by tensor cores ----
 *
 * Unweighted RGBA under a 9x9 mask takes 81 FMAs a sample, which the FP32
 * kernel above issues at some 85% of the FMA rate, its loads and stores
 * taking the rest of the issue slots.  The tensor cores' half-precision MMA
 * (mma.sync m16n8k16, FP32 sums) does the products beside the FP32 pipe.
 * Each sample x is split into two halves, hi = half (x) and lo = half
 * (x - hi), each tap likewise (the taps first scaled by a power of two that
 * brings the largest to [1, 2)), and a product is hi Hi + hi Lo + lo Hi:
 * 22 bits of each operand, an error near 2^-22 of sum |k| x max |x|, where
 * the methods are held to 1e-5.
 *
 * A warp owns 32 output pixels of its block's band, all 4 channels.  MMA's
 * A is 16 x 16: row m = 4 x segment + channel holds the 16 input samples
 * that one channel's 8 adjacent outputs (a segment) need; B, 16 x 8, is a
 * mask row's Toeplitz matrix, B[k][n] = tap k - n.  So one MMA adds a mask
 * row's taps into 128 sums.  A block streams down its band as separable's
 * one pass does: each input row's A is loaded and split once, next to the
 * MMAs of the row before, and meets all 9 mask rows; the sums of the 9
 * output rows it reaches stay in registers (the step is unrolled over 9
 * rows, so each output row's sums keep their registers), and the output
 * row it completes is turned from MMA's layout into pixels through shared
 * memory and stored.  A step's 9 rows come by one asynchronous copy a row,
 * issued a step ahead; one block barrier a step.
 *
 * Half precision ends at 65520: a sample beyond it, an infinity or a NaN
 * makes a sum non-finite, which the kernel reports in ConvArgs.claims
 * [CLAIMS_REDO].
 * The FP32 kernel, launched after it on the same stream, then does the
 * job again; otherwise its blocks return at once. */
constexpr int T9_K = 9;
constexpr int T9_WARPS = 8;
constexpr int T9_BAND = 32 * T9_WARPS;          /* output pixels a block's rows */
constexpr int T9_IN_W = T9_BAND + T9_K - 1;     /* staged pixels a row */
constexpr int T9_MIN_SEG = 64;

/* [mask row][Hi, Lo][lane][register]: each lane's share of the mask rows'
 * B, two halves a register, read once by each thread (in global memory:
 * c_reg_mask leaves no room in the constant bank).  The scale's inverse is
 * 0 where no power of two brings the taps into half precision's range:
 * every job then goes to the FP32 kernel. */
__device__ unsigned g_tensor9_taps[T9_K][2][32][2];
__constant__ float c_tensor9_unscale;

/* Two staging buffers of a step's rows, the warps' outputs being turned
 * into pixels, and the buffers' mbarriers. */
static constexpr size_t
tensor9_shared_bytes ()
{
  return sizeof (float4) * (2 * T9_K * T9_IN_W + 32 * T9_WARPS) +
         2 * sizeof (unsigned long long);
}

template <int FINISH>
__global__ void __launch_bounds__ (32 * T9_WARPS, 2)
conv_tensor9 (const __grid_constant__ ConvArgs a, int seg)
{
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__ (128) float4 t9_shared[];   /* the bulk copy's alignment */
  float4 *const stage = t9_shared;
  float4 *const turn = stage + 2 * T9_K * T9_IN_W;
  [[maybe_unused]] unsigned long long *const staged =
    reinterpret_cast<unsigned long long *> (turn + 32 * T9_WARPS);
  /* MMA's fragments: lane = 4 g + q holds A's rows g and g + 8, B's
   * column g, the sums' rows g and g + 8; row g is channel g % 4. */
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, q = lane % 4, c = g % 4;
  const int bx0 = blockIdx.x * T9_BAND, y_first = blockIdx.y * seg;
  const int rows = min (seg, a.dst.height - y_first);
  const int steps = (rows + 2 * (T9_K - 1)) / T9_K;
  const int x_lo = a.out_x + bx0 - T9_K / 2;
  [[maybe_unused]] const bool bulk_cols = x_lo >= 0 && x_lo + T9_IN_W <= a.src.width;
  const float unscale = c_tensor9_unscale, inv = a.inv_divisor * unscale;
  /* The pixel of A's first column in row g, and where its sums turn. */
  const int tx0 = warp * 32 + 8 * (g / 4) + 2 * q;
  float *const turned = reinterpret_cast<float *> (turn) + tx0 * 4 + c;
  const int x = bx0 + warp * 32 + lane;   /* the pixel this lane stores */
  const bool here = x < a.dst.width;
  /* The output row the first input row completes (it has none). */
  float *out = a.dst.data + (long long) (y_first - (T9_K - 1)) * a.dst.pitch + (long long) x * 4;
  [[maybe_unused]] unsigned parity = 0;
  unsigned bh[T9_K][2], bl[T9_K][2], ah[4], al[4];
  float acc[T9_K][4], v[8];
  /* Non-finite where a sum was: NaN from the start where the taps or the
   * divisor with them leave half or single precision's range. */
  float bad = unscale != 0.0f && fabsf (inv) >= FLT_MIN && fabsf (inv) <= FLT_MAX ? 0.0f : NAN;

  /* Step s's input rows into buffer b: by bulk copies, a row each, where
   * they lie inside the source, else sample by sample, ghosts of a zero
   * border written as zeros. */
  const auto stage_rows = [&] (int s, int b)
  {
    float4 *const to = stage + b * T9_K * T9_IN_W;
    const int y0 = a.out_y + y_first - T9_K / 2 + s * T9_K;

#if BULK_COPY
    if (bulk_cols && y0 >= 0 && y0 + T9_K <= a.src.height)
      {
        if (threadIdx.x == 0)
          {
            const unsigned bar = shared_address (staged + b);

            /* Orders the block's reads of the buffer before the engine's writes. */
            async_proxy_fence ();
            mbarrier_expect_bytes (bar, (int) sizeof (float4) * T9_K * T9_IN_W);
            for (int r = 0; r < T9_K; r++)
              bulk_copy (shared_address (to + r * T9_IN_W),
                         a.src.data + (y0 + r) * a.src.pitch + (long long) x_lo * 4,
                         (int) sizeof (float4) * T9_IN_W, bar);
          }
        return;
      }
    if (threadIdx.x == 0)
      mbarrier_arrive (shared_address (staged + b));
#endif
    for (int r = warp; r < T9_K; r += T9_WARPS)
      {
        const int sy = cc_border_index32 (y0 + r, a.src.height, a.border_y);
        const float4 *row = reinterpret_cast<const float4 *> (a.src.data + sy * a.src.pitch);

        for (int p = lane; p < T9_IN_W; p += 32)
          {
            const int sx = cc_border_index32 (x_lo + p, a.src.width, a.border_x);

            if ((sx | sy) >= 0)
              __pipeline_memcpy_async (to + r * T9_IN_W + p, row + sx, sizeof (float4));
            else
              to[r * T9_IN_W + p] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
          }
      }
  };
  /* Until buffer b's copies have landed, for the whole block. */
  const auto wait_rows = [&] (int b, int groups)
  {
    __pipeline_wait_prior (groups);
#if BULK_COPY
    mbarrier_wait (staged + b, parity >> b & 1);
    parity ^= 1u << b;
#endif
    __syncthreads ();
  };
  /* Row u of buffer b: this lane's samples of A, columns 2q, 2q + 1 and
   * 8 on, rows g and g + 8 (16 pixels on). */
  const auto fetch = [&] (int b, int u)
  {
    const float *row = reinterpret_cast<const float *> (stage + (b * T9_K + u) * T9_IN_W) +
                       tx0 * 4 + c;

    v[0] = row[0];  v[1] = row[4];  v[2] = row[64]; v[3] = row[68];
    v[4] = row[32]; v[5] = row[36]; v[6] = row[96]; v[7] = row[100];
  };
  const auto split = [&] ()
  {
#pragma unroll
    for (int i = 0; i < 4; i++)
      split_halves (v[2 * i], v[2 * i + 1], ah[i], al[i]);
  };

#pragma unroll
  for (int r = 0; r < T9_K; r++)
    {
#pragma unroll
      for (int i = 0; i < 2; i++)
        {
          bh[r][i] = g_tensor9_taps[r][0][lane][i];
          bl[r][i] = g_tensor9_taps[r][1][lane][i];
        }
#pragma unroll
      for (int i = 0; i < 4; i++)
        acc[r][i] = 0.0f;
    }
#if BULK_COPY
  if (threadIdx.x == 0)
    mbarrier_init_pair (staged);
  __syncthreads ();
#endif
  stage_rows (0, 0);
  __pipeline_commit ();
  if (steps > 1)
    stage_rows (1, 1);
  __pipeline_commit ();
  wait_rows (0, 1);
  fetch (0, 0);
  split ();
  for (int s = 0; s < steps; s++)
    {
      const int b = s & 1;

#pragma unroll
      for (int u = 0; u < T9_K; u++)
        {
          /* The next row's samples load while this row's MMAs run. */
          if (u + 1 < T9_K)
            fetch (b, u + 1);
          else if (s + 1 < steps)
            {
              wait_rows (b ^ 1, 0);
              if (s + 2 < steps)
                stage_rows (s + 2, b);
              __pipeline_commit ();
              fetch (b ^ 1, 0);
            }
          /* Input row 9 s + u meets mask row r in output row 9 s + u - r;
           * the small products first. */
#pragma unroll
          for (int r = 0; r < T9_K; r++)
            mma_f16 (acc[(u - r + T9_K) % T9_K], al, bh[r][0], bh[r][1]);
#pragma unroll
          for (int r = 0; r < T9_K; r++)
            mma_f16 (acc[(u - r + T9_K) % T9_K], ah, bl[r][0], bl[r][1]);
#pragma unroll
          for (int r = 0; r < T9_K; r++)
            mma_f16 (acc[(u - r + T9_K) % T9_K], ah, bh[r][0], bh[r][1]);

          /* Output row 9 s + u - 8 has all its taps.  A non-finite sample
           * makes all 8 sums of its row of A non-finite, so 2 of a lane's 4
           * sums (columns 2q of rows g and g + 8) see every row. */
          float (&d)[4] = acc[(u + 1) % T9_K];
          const int j = s * T9_K + u - (T9_K - 1);

          bad += d[0] + d[2];
          turned[0] = d[0];
          turned[4] = d[1];
          turned[64] = d[2];
          turned[68] = d[3];
          __syncwarp ();
          if ((unsigned) j < (unsigned) rows && here)
            tensor_store<FINISH> (a, turn[warp * 32 + lane], inv, unscale, x, y_first + j, out);
          out += a.dst.pitch;
          __syncwarp ();
          d[0] = d[1] = d[2] = d[3] = 0.0f;
          if (u + 1 < T9_K || s + 1 < steps)
            split ();
        }
    }
  if (!isfinite (bad))
    a.claims[CLAIMS_REDO] = 1;
#endif
}

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

/* Outputs a column-kernel thread computes down a column. */
constexpr int COL_NY = 8;   /* not a macro: #pragma unroll expands none */

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
  int cur = 0, tile_i = blockIdx.x, next_i = blockIdx.x + gridDim.x;

  buffers.init (reinterpret_cast<float *> (shared4), w.floats, w.buffers);
  if (w.buffers == 2 && tile_i < w.total)
    {
      load (0, tile_i);
      __pipeline_commit ();
    }
  for (; tile_i < w.total; cur ^= w.buffers - 1)
    {
      const TilePos pos = tile_at (w, tile_i);
      const int claim = first_thread () ? claim_tile (w) : 0;
      const int bx0 = pos.col * blockDim.x, by = pos.row * span;
      const int ox = bx0 + threadIdx.x, oy0 = by + threadIdx.y * COL_NY;
      float *tile = buffers.buffer (cur);
      float plain[COL_NY][C], kca[WEIGHTED ? COL_NY : 1][C], wabs[COL_NY], win[COL_NY][C];

      if (w.buffers == 1)
        load (cur, tile_i);
      else if (next_i < w.total)
        load (cur ^ 1, next_i);
      __pipeline_commit ();
      buffers.wait (cur, w.buffers - 1);

      if (ox < a.dst.width && oy0 < a.dst.height)
        {
          const float *col = tile + threadIdx.y * COL_NY * t.stride + t.lead + threadIdx.x * C;
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
                load_shared<C> (col + n * t.stride, win[n + 1]);
            }
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
      tile_i = next_i;
      next_i = buffers.take_claim ();
    }
  walk_done (w);
}

static size_t
tile_bytes (int bx, int by, int kw, int mask_height, int channels, bool weighted)
{
  return sizeof (float) * buffer_floats (tile_stride (bx * reg_nx (channels, kw, weighted) +
                                                     kw - 1, channels), by + mask_height - 1);
}

static size_t
column_tile_bytes (int by, int mask_height, int channels)
{
  return sizeof (float) * buffer_floats (tile_stride (32, channels),
                                         by * COL_NY + mask_height - 1);
}

/* Block shapes, as measured fastest (RGBA, 4096x4096; the figures are in
 * docs/performance.md): the first row that holds the mask gives the widest
 * block row (threads) and the rows.  2D masks get narrow blocks, so that
 * several share an SM and one block's wait at a barrier (for its slowest
 * warp, for its loads) is another's time to compute; 3 to 5 rows tall, 24
 * rows amortise the halo rows that dominate their loads. */
struct BlockShape
{
  int  min_height, max_height;   /* the mask's (both 3 or more: a 2D mask) */
  int  min_width;                /* the width class's */
  bool rgba;                     /* unweighted RGBA only */
  bool wide;                     /* reg_wide's kernels only */
  int  bx, by;
};

static const BlockShape block_shapes[] = {
  /* ahead of 12 and 20 rows, and of 8 of 16 */
  { 3, CC_DIRECT_MASK_MAX, 3, true, true, 8, 16 },
  { 3, 5, 3, false, false, 16, 24 },
  { 7, 7, 3, true, false, 16, 16 },
  { 7, 7, 3, false, false, 16, 8 },
  { 3, 24, 3, false, false, 16, 16 },
  { 25, CC_DIRECT_MASK_MAX, 25, false, false, 8, 32 },
  { 25, CC_DIRECT_MASK_MAX, 3, false, false, 16, 32 },
};

/* Masks under 3 rows or columns (row passes, 1D signals): 8 rows of a warp. */
static const BlockShape line_shape = { 0, 0, 0, false, false, 32, 8 };

/* Fewer rows: how a shape shrinks for short images and small shared memory. */
static int
fewer_rows (int by)
{
  return by > 16 ? 16 : by / 2;
}

/* The shape from the table, capped by the kernel's threads (the weighted
 * kernels' registers, three sums an output, allow 256 a block where two
 * blocks share an SM; reg_wide's launch bounds, 256).  Short images get
 * fewer, wider rows (256 threads), so no thread idles on a single-row
 * signal.  The shape shrinks until the tile fits shared memory; the last
 * resort, for tall masks on few channels (whose threads are widest), is
 * one row of 8 threads. */
static bool
block_shape (int kw, int mask_height, int channels, bool weighted, int dst_height,
             size_t shared_limit, dim3 *block)
{
  const bool wide = reg_wide (channels, kw, weighted);
  const bool rgba = channels == 4 && !weighted;
  const int max_threads = weighted || wide ? 256 : 512;
  const BlockShape *shape = &line_shape;

  if (kw >= 3 && mask_height >= 3)
    for (size_t i = 0; i < sizeof block_shapes / sizeof block_shapes[0]; i++)
      {
        const BlockShape *s = &block_shapes[i];

        if (mask_height >= s->min_height && mask_height <= s->max_height &&
            kw >= s->min_width && (!s->rgba || rgba) && s->wide == wide)
          {
            shape = s;
            break;
          }
      }
  int by = shape->by;
  const int bx_max = shape->bx;

  while (bx_max * by > max_threads)
    by = fewer_rows (by);
  while (by > 1 && fewer_rows (by) >= dst_height)
    by = fewer_rows (by);
  for (; by >= 1; by = fewer_rows (by))
    for (int bx = by >= 8 ? bx_max : 256 / by; bx >= 8; bx /= 2)
      if (block_bytes (tile_bytes (bx, by, kw, mask_height, channels, weighted), 1) <=
          shared_limit)
        {
          *block = dim3 (bx, by);
          return true;
        }
  return false;
}

size_t
cc_register_shared_bytes (int mask_width, int mask_height, int channels, bool weighted)
{
  const int kw = cc_mask_width_class (mask_width);

  if (kw == 1)
    return block_bytes (column_tile_bytes (1, mask_height, channels), 1);
  return kw ? block_bytes (tile_bytes (8, 1, kw, mask_height, channels, weighted), 1)
            : (size_t) -1;
}

/* The tensor kernel's B for each mask row (the 9 rows of 'stride' floats
 * at 'taps'), each tap as two halves, Hi and Lo, after scaling. */
static cudaError_t
tensor9_set_mask (const float *taps, int stride, cudaStream_t stream)
{
  unsigned b[T9_K][2][32][2];
  float largest = 0.0f;
  cudaError_t err;

  for (int j = 0; j < T9_K; j++)
    for (int i = 0; i < T9_K; i++)
      largest = fmaxf (largest, fabsf (taps[j * stride + i]));
  const float scale = tensor_scale (largest), unscale = scale != 0.0f ? 1.0f / scale : 0.0f;

  for (int j = 0; j < T9_K; j++)
    for (int lane = 0; lane < 32; lane++)
      for (int r = 0; r < 2; r++)
        {
          float t[2];

          for (int o = 0; o < 2; o++)
            {
              /* B's rows 2q + o (+ 8 in the second register), column g. */
              const int tap = 2 * (lane % 4) + o + 8 * r - lane / 4;

              t[o] = tap >= 0 && tap < T9_K ? taps[j * stride + tap] * scale : 0.0f;
            }
          tensor_halves (t[0], t[1], &b[j][0][lane][r], &b[j][1][lane][r]);
        }
  if ((err = cudaMemcpyToSymbolAsync (g_tensor9_taps, b, sizeof b, 0, cudaMemcpyHostToDevice,
                                      stream)) != cudaSuccess)
    return err;
  return cudaMemcpyToSymbolAsync (c_tensor9_unscale, &unscale, sizeof unscale, 0,
                                  cudaMemcpyHostToDevice, stream);
}

cudaError_t
cc_register_set_mask (const float *mask, int width, int height, cudaStream_t stream)
{
  const int kw = cc_mask_width_class (width);
  const int pad = (kw - width) / 2, stride = reg_mask_stride (kw);
  float padded[reg_mask_stride (REG_MAX_WIDTH) * CC_DIRECT_MASK_MAX];

  cudaError_t err;

  /* Centred in its class, zero taps either side and in the row's padding. */
  for (int j = 0; j < height; j++)
    for (int i = 0; i < stride; i++)
      padded[j * stride + i] = i >= pad && i < pad + width ? mask[j * width + i - pad] : 0.0f;
  if ((err = cudaMemcpyToSymbolAsync (c_reg_mask, padded, sizeof (float) * stride * height, 0,
                                      cudaMemcpyHostToDevice, stream)) != cudaSuccess ||
      kw != T9_K || height != T9_K)
    return err;
  return tensor9_set_mask (padded, stride, stream);
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

template <int C, int KW, bool WEIGHTED>
static cudaError_t
launch_class (const ConvArgs &a, const DeviceFacts &d, cudaStream_t stream,
              unsigned *redo = nullptr)
{
  dim3 block;

  if (!block_shape (KW, a.mask_height, C, WEIGHTED, a.dst.height, d.shared_optin, &block))
    return cudaErrorInvalidConfiguration;

  const int span = block.x * reg_nx (C, KW, WEIGHTED);
  return launch_walk (conv_register<C, KW, WEIGHTED>, a, block,
                      tile_for<C> (span + KW - 1, block.y + a.mask_height - 1,
                                   a.out_x - (KW - 1) / 2), span, d,
                      (a.dst.width + span - 1) / span,
                      (a.dst.height + block.y - 1) / block.y, stream, redo);
}

/* Whether the tensor kernel takes the job: a 9x9 mask (9 rows of the
 * 9-wide class) on unweighted RGBA (the caller's), source rows 16-byte
 * aligned, nothing to add to, on a GPU with half-precision MMA (compute
 * capability 8.0 and up). */
static bool
tensor9_takes (const ConvArgs &a, const DeviceFacts &d)
{
  return a.mask_height == T9_K && !a.accumulate && a.vec4 && d.major >= 8 &&
         tensor9_shared_bytes () <= d.shared_optin;
}

/* The tensor kernel, then the FP32 kernel for the jobs it hands back. */
static cudaError_t
launch_tensor9 (const ConvArgs &a, const DeviceFacts &d, cudaStream_t stream)
{
  const size_t shared = tensor9_shared_bytes ();
  const int bands = (a.dst.width + T9_BAND - 1) / T9_BAND;
  cudaError_t err;

  /* Rows a block: as many as fill one wave of two blocks an SM, since each
   * block sums 8 rows with no output of their own and waits for its first
   * loads (half as many rows ran 7% slower). */
  const int segs = max (2 * d.sms / bands, 1);
  const int seg = max ((a.dst.height + segs - 1) / segs, T9_MIN_SEG);

  /* The finish chosen once, not per pixel. */
  void (*const kernels[]) (ConvArgs, int) =
    { conv_tensor9<FINISH_PLAIN>, conv_tensor9<FINISH_PLAIN_CLAMPED>, conv_tensor9<FINISH_BY_MODE> };
  void (*const kernel) (ConvArgs, int) = kernels[tensor_finish (a)];

  if ((err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  kernel<<<dim3 (bands, (a.dst.height + seg - 1) / seg), 32 * T9_WARPS, shared, stream>>> (a, seg);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return err;
  return launch_class<4, T9_K, false> (a, d, stream, a.claims + CLAIMS_REDO);
}

template <int C, bool WEIGHTED>
static cudaError_t
launch_channels (const ConvArgs &a, const DeviceFacts &d, cudaStream_t stream)
{
  cc_kernel_ran ("register");
  switch (cc_mask_width_class (a.mask_width))
    {
    case 1:
      cc_kernel_ran ("register column");
      return launch_column<C, WEIGHTED> (a, d, stream);
    case 3:
      if (C == 4 && !WEIGHTED && a.mask_height == 3 && a.vec4)
        {
          cc_kernel_ran ("register 3x3");
          return launch_3x3 (a, stream);
        }
      return launch_class<C, 3, WEIGHTED> (a, d, stream);
    case 5:  return launch_class<C, 5, WEIGHTED> (a, d, stream);
    case 7:  return launch_class<C, 7, WEIGHTED> (a, d, stream);
    case 9:
      if (C == 4 && !WEIGHTED && tensor9_takes (a, d))
        {
          cc_kernel_ran ("register tensor 9x9");
          return launch_tensor9 (a, d, stream);
        }
      return launch_class<C, 9, WEIGHTED> (a, d, stream);
    case 15: return launch_class<C, 15, WEIGHTED> (a, d, stream);
    case 25: return launch_class<C, 25, WEIGHTED> (a, d, stream);
    case 31: return launch_class<C, 31, WEIGHTED> (a, d, stream);
    case 63: return launch_class<C, 63, WEIGHTED> (a, d, stream);
    case 127: return launch_class<C, 127, WEIGHTED> (a, d, stream);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t
cc_register_launch (const ConvArgs &args, const DeviceFacts &d, cudaStream_t stream)
{
  /* The mask's taps are centred in the class's width. */
  ConvArgs a = args;

  a.mask_width = cc_mask_width_class (args.mask_width);
  if (a.weighted)
    switch (a.channels)
      {
      case 2:  return launch_channels<2, true> (a, d, stream);
      case 4:  return launch_channels<4, true> (a, d, stream);
      default: return cudaErrorInvalidValue;
      }
  switch (a.channels)
    {
    case 1:  return launch_channels<1, false> (a, d, stream);
    case 2:  return launch_channels<2, false> (a, d, stream);
    case 3:  return launch_channels<3, false> (a, d, stream);
    case 4:  return launch_channels<4, false> (a, d, stream);
    default: return cudaErrorInvalidValue;
    }
}

static CcStatus
check (const CcJob *job, size_t *shared, char *message, size_t size)
{
  if (!cc_mask_width_class (job->mask_width))
    {
      snprintf (message, size, "register takes masks up to %d wide; this one is %d",
                CC_DIRECT_MASK_MAX, job->mask_width);
      return CC_ERROR_UNSUPPORTED;
    }
  if (job->weighted && job->channels != 2 && job->channels != 4)
    {
      snprintf (message, size, "register weights by alpha on gray+alpha and RGBA "
                "images only, not on %d channels", job->channels);
      return CC_ERROR_UNSUPPORTED;
    }
  *shared = cc_register_shared_bytes (job->mask_width, job->mask_height, job->channels,
                                      job->weighted);
  return CC_OK;
}

static cudaError_t
set_mask (struct _CcGpu *g, const CcJob *job)
{
  return cc_register_set_mask (job->mask, job->mask_width, job->mask_height, g->stream);
}

static cudaError_t
launch (struct _CcGpu *g, Lane *lane, const CcJob *job, const ConvArgs &a, float *pass,
        float *planes)
{
  return cc_register_launch (a, g->facts, lane->stream);
}

/* A mask narrower than its class is padded with zero taps. */
static bool
reach_past (const struct _CcGpu *g, const CcJob *job)
{
  return cc_mask_width_class (job->mask_width) != job->mask_width;
}

extern "C" const CcKernels cc_kernels_register =
  { .check = check, .set_mask = set_mask, .launch = launch, .constant = true,
    .reach_past = reach_past };
