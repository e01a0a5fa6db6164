/* The separable method's one pass on tensor cores, 27x27 to 31x31 on
 * RGBA, with its launcher (the FP32 one pass redoes what half precision
 * cannot take: separable-one-pass.cuh).
 * Part of separable.cu's translation unit; internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SEPARABLE_TENSOR_CUH
#define CC_SEPARABLE_TENSOR_CUH

#include <float.h>

#include "separable-one-pass.cuh"

/* ---- The one pass on tensor cores: one RGBA term 27x27 to 31x31 ----
 *
 * The FP32 one pass takes an issue slot a tap a sample, and every other
 * instruction takes another: issue, not memory, bounds it (its figure
 * against the copy floor is in docs/performance-log.md).  This
 * kernel runs both passes as half-precision MMAs, samples and taps split
 * into halves as conv_tensor9 does.  The column pass comes first: C1 = T X,
 * T the column taps' Toeplitz matrix (16 output rows by 48 input rows,
 * three constant A fragments), X 48 input rows of 8 pixels of a channel.
 * C1's fragment has A's layout, so the row pass takes it as its A:
 * C2 = C1 R, R the row taps' Toeplitz matrix (the 38 pixels 8 outputs
 * reach, as k = 16 + 16 + 8, constant B fragments).  Taps sit in a 31-tap
 * frame, zero past the mask, so one kernel serves every radius it takes.
 *
 * A block owns FT_BAND output columns and 'seg' rows, and walks down them
 * 16 output rows a step.  Its 8 warps each own 3 groups of 8 of the
 * FT_IN_W staged pixels (the band and 16 either side, the row pass's
 * reach); an input chunk of 16 rows arrives by one bulk copy a row, is
 * read from shared memory once, and adds into the column sums of the
 * three steps it reaches, kept in registers.  A step's finished C1, as
 * halves, goes to shared memory for the warps whose outputs reach it.
 * Two chunk buffers and two C1 buffers, so one barrier a step: chunk c's
 * column pass and step c - 3's row pass run between two barriers, and
 * chunk c + 2 is copied in meanwhile.  Each step's time is its busiest
 * warp's, so everything else a step does (the copies, the edges) is kept
 * off the warps with the most outputs.
 *
 * Half precision ends at 65520: a sample or a column sum past it, an
 * infinity or a NaN makes a sum non-finite.  A block that finds one does
 * its own outputs again in FP32 (fused_redo), the others keep theirs: no
 * second kernel waits behind every job for the rare one that needs it. */
constexpr int FT_WARPS = 8;
constexpr int FT_GROUPS = 3;                        /* column-pass groups of 8 pixels a warp */
constexpr int FT_IN_W = 8 * FT_GROUPS * FT_WARPS;   /* staged pixels a row */
constexpr int FT_BAND = FT_IN_W - 32;               /* output pixels a block's rows */
constexpr int FT_OUT_GROUPS = FT_BAND / 8;
static_assert (FT_OUT_GROUPS + 4 <= FT_IN_W / 8, "the C1 groups an output group reaches are staged");
static_assert (32 * FT_WARPS >= FT_IN_W, "a thread for each staged column");
/* The warp that issues the bulk copies: one of those with the fewest
 * output groups (warp w has those w, w + FT_WARPS, ...). */
constexpr int FT_COPY_WARP = FT_WARPS - 1;
constexpr int FT_TAPS = 31;
constexpr int FT_MIN_R = 13;                        /* to 25x25 the FP32 one pass is as fast */
constexpr int FT_MIN_SEG = 64;
/* Staged column FT_ZERO holds zeros, for a zero border's ghost columns. */
constexpr int FT_ZERO = FT_IN_W;
/* A staged row's floats, 16 bytes past a multiple of 64 (the four rows and
 * two pixels a quarter-warp reads then hit distinct banks): the pixels,
 * the zero column and three unused. */
constexpr int FT_ROW = (FT_IN_W + 4) * 4 + 4;
constexpr int FT_CHUNK = 16 * FT_ROW;
/* A C1 buffer's uint4s: [group][channel][lane], each lane's fragment. */
constexpr int FT_C1 = FT_IN_W / 8 * 4 * 32;
static_assert (FT_ROW % 16 == 4, "staged rows 16 bytes past a multiple of 64");

/* The row and column taps, each axis scaled on its own and centred in the
 * 31-tap frame; 'unscale' undoes both scales, 'inv' the divisor's inverse
 * with them; 'exact' the taps as the FP32 one pass takes them, 2r + 1 of
 * each, for fused_redo.  A kernel parameter, from which each block builds
 * its fragments: nothing to copy to the GPU ahead of the launch. */
struct FusedTensorTaps
{
  float row[FT_TAPS];
  float col[FT_TAPS];
  float unscale;
  float inv;
  FusedTaps exact;
  int r;
};

static constexpr size_t
fused_tensor_shared_bytes ()
{
  return sizeof (float) * 2 * FT_CHUNK + sizeof (uint4) * 2 * FT_C1 +
         2 * sizeof (unsigned long long) + sizeof (int) * FT_IN_W;
}

/* A warp's column sums: [group][channel][fragment]. */
typedef float FtSums[FT_GROUPS][4][4];

/* fused_redo's shared memory, in the chunk and C1 buffers: a ring of the
 * filtered rows a chunk of 16 output rows reaches and those of the chunk
 * before; the chunk's source rows, the band and the mask's reach either
 * side; then the job and its taps, copied there (a call reaches the
 * kernel's parameters only by generic loads). */
constexpr int FT_REDO_RING = 48;
constexpr int FT_REDO_SPAN = FT_BAND + 2 * (FT_TAPS / 2);
constexpr size_t FT_REDO_BYTES = sizeof (float4) * (FT_REDO_RING * FT_BAND + 16 * FT_REDO_SPAN);
static_assert (FT_REDO_RING >= 16 + 2 * (FT_TAPS / 2) + 2, "a chunk's rows and those it reaches");
static_assert (FT_REDO_BYTES + sizeof (ConvArgs) + sizeof (FusedTaps) <=
                 sizeof (float) * 2 * FT_CHUNK + sizeof (uint4) * 2 * FT_C1,
               "fused_redo's rows and the job fit in the chunk and C1 buffers");
static_assert (FT_REDO_BYTES % alignof (ConvArgs) == 0 && sizeof (ConvArgs) % alignof (FusedTaps) == 0,
               "the job and its taps aligned");

/* A tensor block's outputs, output columns bx0 on and rows y_first to
 * y_first + rows - 1, again in FP32, as the FP32 one pass computes them
 * (its taps in 't', over the mask alone, each row's then each column's in
 * order; a zero border's ghosts as zeros).  16 rows at a time: their
 * source rows staged in shared memory, filtered along x into a ring
 * there, then the outputs those rows complete; a barrier between each.
 * A function a radius, its taps in registers and its loops unrolled, so
 * that no step loads a tap from memory. */
template <int FINISH, int R>
__device__ __noinline__ void
fused_redo (const ConvArgs &a, const FusedTaps &t, int bx0, int y_first, int rows, float4 *ring)
{
  float4 *const stage = ring + FT_REDO_RING * FT_BAND;
  const int width = min (FT_BAND, a.dst.width - bx0), span = width + 2 * R;
  const int x_lo = a.out_x + bx0 - R;
  float row_taps[2 * R + 1], col_taps[2 * R + 1];

#pragma unroll
  for (int j = 0; j <= 2 * R; j++)
    {
      row_taps[j] = t.t[0][j];
      col_taps[j] = t.t[1][j];
    }

  /* Filtered row yi (the source row of output row yi) in slot
   * (yi + R) % FT_REDO_RING. */
  for (int y0 = -R; y0 < rows + R; y0 += 16)
    {
      for (int k = threadIdx.x; k < 16 * span; k += blockDim.x)
        {
          const int i = k / span, p = k % span;
          const int sy = cc_border_index32 (a.out_y + y_first + y0 + i, a.src.height, a.border_y);
          const int sx = cc_border_index32 (x_lo + p, a.src.width, a.border_x);

          stage[i * FT_REDO_SPAN + p] =
            (sx | sy) >= 0 ? *reinterpret_cast<const float4 *> (a.src.data + sy * a.src.pitch +
                                                                (long long) sx * 4)
                           : make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
        }
      __syncthreads ();
      for (int k = threadIdx.x; k < 16 * FT_BAND; k += blockDim.x)
        {
          const int i = k / FT_BAND, p = k % FT_BAND;
          const float4 *const in = stage + i * FT_REDO_SPAN + p;
          float4 h = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);

          if (p >= width)
            continue;
#pragma unroll
          for (int j = 0; j <= 2 * R; j++)
            fma4 (h, row_taps[j], in[j]);
          ring[(y0 + i + R) % FT_REDO_RING * FT_BAND + p] = h;
        }
      __syncthreads ();
      /* Output rows y0 - R on: their last filtered row is in this chunk. */
      for (int k = threadIdx.x; k < 16 * FT_BAND; k += blockDim.x)
        {
          const int y = y0 - R + k / FT_BAND, p = k % FT_BAND;
          float4 s = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);

          if (p >= width || y < 0 || y >= rows)
            continue;
#pragma unroll
          for (int j = 0; j <= 2 * R; j++)
            fma4 (s, col_taps[j], ring[(y + j) % FT_REDO_RING * FT_BAND + p]);

          float *const out = a.dst.data + (y_first + y) * a.dst.pitch + (long long) (bx0 + p) * 4;

          fused_store<FINISH> (a, s.x, out, y_first + y, bx0 + p, 0);
          fused_store<FINISH> (a, s.y, out + 1, y_first + y, bx0 + p, 1);
          fused_store<FINISH> (a, s.z, out + 2, y_first + y, bx0 + p, 2);
          fused_store<FINISH> (a, s.w, out + 3, y_first + y, bx0 + p, 3);
        }
      /* The next chunk's rows go where this one's outputs and rows read. */
      __syncthreads ();
    }
}

/* fused_redo for radius r, FT_MIN_R to the frame's. */
template <int FINISH, int R = FT_MIN_R>
__device__ __forceinline__ void
fused_redo_radius (int r, const ConvArgs &a, const FusedTaps &t, int bx0, int y_first, int rows,
                   float4 *ring)
{
  if (r == R)
    fused_redo<FINISH, R> (a, t, bx0, y_first, rows, ring);
  else if constexpr (R < FT_TAPS / 2)
    fused_redo_radius<FINISH, R + 1> (r, a, t, bx0, y_first, rows, ring);
}

/* The MMA helpers exist for compute capability 8.0 and up only. */
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* One block's walk down its band: its buffers in shared memory, its
 * lane's place in MMA's fragments, the taps' fragments, the band's edges
 * and the copies' state.  Each stage is a member, inlined, so that the
 * column sums stay in registers as the lambdas' did. */
template <int FINISH>
struct FusedTensorBlock
{
  const ConvArgs &a;
  const FusedTensorTaps &t;
  float *const staged;
  uint4 *const c1;
  unsigned long long *const landed;
  int *const read_from;
  const int lane, warp, g, q;
  const int bx0, y_first, rows, steps, chunks, x_lo;
  /* Staged columns inside_lo .. inside_hi - 1 are the source's. */
  const int inside_lo, inside_hi;
  const bool edge_warp;
  /* Whether rows past the source's top and bottom are ghosts (zero). */
  const bool ghost_rows;
  unsigned th[3][4], tl[3][4], rh[3][2], rl[3][2];
  /* Bit b: buffer b's chunk has samples staged one by one (then its
   * readers wait for them at a barrier); bit 2 + b: its bulk copies'
   * phase. */
  unsigned state;
  /* Non-finite where a sum was. */
  float bad;

  __device__ __forceinline__
  FusedTensorBlock (const ConvArgs &args, const FusedTensorTaps &taps, int seg, float *shared)
    : a (args), t (taps), staged (shared),
      c1 (reinterpret_cast<uint4 *> (staged + 2 * FT_CHUNK)),
      landed (reinterpret_cast<unsigned long long *> (c1 + 2 * FT_C1)),
      read_from (reinterpret_cast<int *> (landed + 2)),
      lane (threadIdx.x % 32), warp (threadIdx.x / 32), g (lane / 4), q (lane % 4),
      bx0 (blockIdx.x * FT_BAND), y_first (blockIdx.y * seg),
      rows (min (seg, a.dst.height - y_first)), steps ((rows + 15) / 16), chunks (steps + 2),
      x_lo (a.out_x + bx0 - 16), inside_lo (max (x_lo, 0) - x_lo),
      inside_hi (min (x_lo + FT_IN_W, a.src.width) - x_lo),
      edge_warp (8 * FT_GROUPS * warp < inside_lo || 8 * FT_GROUPS * (warp + 1) > inside_hi),
      ghost_rows (cc_border_index32 (-1, a.src.height, a.border_y) < 0), state (0), bad (0.0f)
  {
  }

  /* T[m][k]: input row 16 (j - 1) + k's tap for output row m. */
  __device__ __forceinline__ float
  col_tap (int j, int m, int k) const
  {
    const int i = 16 * (j - 1) + k - m + FT_TAPS / 2;

    return i >= 0 && i < FT_TAPS ? t.col[i] : 0.0f;
  }

  /* R[k][n]: C1 column 16 j + k's tap for output n (C1 starts 16 pixels
   * before the outputs' group). */
  __device__ __forceinline__ float
  row_tap (int j, int k, int n) const
  {
    const int i = 16 * j + k - n - 16 + FT_TAPS / 2;

    return i >= 0 && i < FT_TAPS ? t.row[i] : 0.0f;
  }

  /* This lane's share of T's A fragments and R's B fragments, as halves. */
  __device__ __forceinline__ void
  load_fragments ()
  {
#pragma unroll
    for (int j = 0; j < 3; j++)
      {
        /* A's registers: rows g, g + 8, g, g + 8; columns 2q on, then 2q + 8 on. */
#pragma unroll
        for (int i = 0; i < 4; i++)
          {
            const int m = g + 8 * (i % 2), k = 2 * q + 8 * (i / 2);

            split_halves (col_tap (j, m, k), col_tap (j, m, k + 1), th[j][i], tl[j][i]);
          }
#pragma unroll
        for (int i = 0; i < 2; i++)
          split_halves (row_tap (j, 2 * q + 8 * i, g), row_tap (j, 2 * q + 8 * i + 1, g),
                        rh[j][i], rl[j][i]);
      }
  }

  /* A column past an edge (a band at one) is not staged: a warp whose
   * columns reach past one reads read_from[p] for column p, the staged
   * column its border rule maps it to (extending or mirroring, within 16
   * columns of the edge, which the band stages), or FT_ZERO, as for
   * columns more than 16 past the edge, which reach only outputs past the
   * image.  A table in shared memory, not registers, which the other
   * warps' sums need. */
  __device__ __forceinline__ void
  map_edges ()
  {
    if (threadIdx.x < FT_IN_W)
      {
        const int p = threadIdx.x, sx = cc_border_index32 (x_lo + p, a.src.width, a.border_x);

        read_from[p] = p >= inside_hi + 16 || sx < 0 ? FT_ZERO : sx - x_lo;
      }
    if (threadIdx.x < 2 * 16)
      reinterpret_cast<float4 *> (staged)[threadIdx.x * (FT_ROW / 4) + FT_ZERO] =
        make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  }

  /* Chunk c, input rows 16 c - 16 on (output coordinates), into buffer
   * c % 2, each row by one bulk copy of its columns inside the source,
   * from the source row the border rule maps it to; a zero border's ghost
   * rows are written as zeros. */
  __device__ __forceinline__ void
  stage (int c)
  {
    const int b = c & 1, y0 = a.out_y + y_first - 16 + 16 * c;
    float4 *const to = reinterpret_cast<float4 *> (staged + b * FT_CHUNK);
    [[maybe_unused]] const bool rows_inside = y0 >= 0 && y0 + 16 <= a.src.height;

    state &= ~(1u << b);
    if (c >= chunks)
      return;
#if BULK_COPY
    if (warp == FT_COPY_WARP)
      bulk_copy_rows<16> (a, to, FT_ROW / 4, x_lo, inside_lo, inside_hi, y0, rows_inside,
                          landed + b);
    if (rows_inside || !ghost_rows)
      return;
    {
      /* Thread 16 r + j: columns j, j + 16, ... of row r, if a ghost. */
      const int r = threadIdx.x / 16, j = threadIdx.x % 16;

      static_assert (32 * FT_WARPS == 16 * 16, "16 threads a row");
      if (cc_border_index32 (y0 + r, a.src.height, a.border_y) < 0)
        for (int p = inside_lo + j; p < inside_hi; p += 16)
          to[r * (FT_ROW / 4) + p] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
    }
#else
    stage_rows_async<FT_IN_W> (a, to, FT_ROW / 4, y0, 16, warp, FT_WARPS, [&] (int i)
      {
        return cc_border_index32 (x_lo + lane + 32 * i, a.src.width, a.border_x);
      }, false);
#endif
    __pipeline_commit ();
    state |= 1u << b;
  }

  /* The barriers, read_from and the zero column ready; the first two
   * chunks on their way. */
  __device__ __forceinline__ void
  start ()
  {
    map_edges ();
#if BULK_COPY
    if (threadIdx.x == 0)
      mbarrier_init_pair (landed);
#endif
    __syncthreads ();
    stage (0);
    stage (1);
  }

  /* Until chunk c's rows have landed in buffer b. */
  __device__ __forceinline__ void
  wait_chunk (int b)
  {
#if BULK_COPY
    mbarrier_wait_flip (landed + b, state, 2 + b);
#endif
    if (state >> b & 1)
      {
        /* Chunk c + 1's samples, if any, may still be on their way. */
        if (state >> (b ^ 1) & 1)
          __pipeline_wait_prior (1);
        else
          __pipeline_wait_prior (0);
        __syncthreads ();
      }
  }

  /* Group u of this warp's staged columns in buffer b into the column
   * sums of the three steps it reaches: B's rows 2q, 2q + 1, 2q + 8,
   * 2q + 9, column g, four pixels, all channels. */
  __device__ __forceinline__ void
  column_group (int b, int u, FtSums &done, FtSums &next, FtSums &fresh)
  {
    int column = 8 * (warp * FT_GROUPS + u) + g;

    if (edge_warp)
      column = read_from[column];
    const float *const p = staged + b * FT_CHUNK + 2 * q * FT_ROW + 4 * column;
    const float4 v0 = *reinterpret_cast<const float4 *> (p);
    const float4 v1 = *reinterpret_cast<const float4 *> (p + FT_ROW);
    const float4 v8 = *reinterpret_cast<const float4 *> (p + 8 * FT_ROW);
    const float4 v9 = *reinterpret_cast<const float4 *> (p + 9 * FT_ROW);
    const float s0[4] = { v0.x, v0.y, v0.z, v0.w }, s1[4] = { v1.x, v1.y, v1.z, v1.w };
    const float s8[4] = { v8.x, v8.y, v8.z, v8.w }, s9[4] = { v9.x, v9.y, v9.z, v9.w };

#pragma unroll
    for (int ch = 0; ch < 4; ch++)
      {
        unsigned bh0, bl0, bh1, bl1;

        split_halves (s0[ch], s1[ch], bh0, bl0);
        split_halves (s8[ch], s9[ch], bh1, bl1);
#pragma unroll
        for (int e = 0; e < 4; e++)
          fresh[u][ch][e] = 0.0f;
        /* The small products first. */
        mma_f16 (done[u][ch], tl[2], bh0, bh1);
        mma_f16 (next[u][ch], tl[1], bh0, bh1);
        mma_f16 (fresh[u][ch], tl[0], bh0, bh1);
        mma_f16 (done[u][ch], th[2], bl0, bl1);
        mma_f16 (next[u][ch], th[1], bl0, bl1);
        mma_f16 (fresh[u][ch], th[0], bl0, bl1);
        mma_f16 (done[u][ch], th[2], bh0, bh1);
        mma_f16 (next[u][ch], th[1], bh0, bh1);
        mma_f16 (fresh[u][ch], th[0], bh0, bh1);
      }
  }

  /* A finished step's sums of group u, as halves, into C1 buffer b. */
  __device__ __forceinline__ void
  keep_c1 (int b, int u, const FtSums &done)
  {
    const int k = warp * FT_GROUPS + u;

#pragma unroll
    for (int ch = 0; ch < 4; ch++)
      {
        uint4 w;

        split_halves (done[u][ch][0], done[u][ch][1], w.x, w.z);
        split_halves (done[u][ch][2], done[u][ch][3], w.y, w.w);
        c1[b * FT_C1 + (k * 4 + ch) * 32 + lane] = w;
      }
  }

  /* Chunk c into the column sums: 'done' (step c - 2) gets its last taps
   * and goes to C1 buffer c % 2, 'next' (step c - 1) its second, 'fresh'
   * (step c) its first. */
  __device__ __forceinline__ void
  column_pass (int c, FtSums &done, FtSums &next, FtSums &fresh)
  {
    const int b = c & 1;

    wait_chunk (b);
#pragma unroll
    for (int u = 0; u < FT_GROUPS; u++)
      {
        column_group (b, u, done, next, fresh);
        if (c >= 2)
          keep_c1 (b, u, done);
      }
  }

  /* Output group O's sums of a step from its C1 fragments 'from' (C1
   * groups O to O + 4). */
  __device__ __forceinline__ void
  row_sums (const uint4 *from, int O, float (&acc)[4][4]) const
  {
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
      for (int ch = 0; ch < 4; ch++)
        {
          const uint4 l = from[((O + 2 * j) * 4 + ch) * 32];
          const uint4 r = from[((O + 2 * j + 1) * 4 + ch) * 32];
          const unsigned ah[4] = { l.x, l.y, r.x, r.y }, al[4] = { l.z, l.w, r.z, r.w };

          mma_f16 (acc[ch], al, rh[j][0], rh[j][1]);
          mma_f16 (acc[ch], ah, rl[j][0], rl[j][1]);
          mma_f16 (acc[ch], ah, rh[j][0], rh[j][1]);
        }
#pragma unroll
    for (int ch = 0; ch < 4; ch++)
      {
        const uint4 l = from[((O + 4) * 4 + ch) * 32];

        mma_f16_k8 (acc[ch], l.z, l.w, rh[2][0]);
        mma_f16_k8 (acc[ch], l.x, l.y, rl[2][0]);
        mma_f16_k8 (acc[ch], l.x, l.y, rh[2][0]);
      }
  }

  /* Output group O of step s finished and stored; 'step_out' is each
   * lane's first output of the step (row g, pixel 2q of output group 0).
   * A non-finite sample makes a whole row of C1 non-finite, and so every
   * sum of the rows it reaches: sums 0 and 2 of each lane see every row. */
  __device__ __forceinline__ void
  store_group (int s, int O, float *step_out, const float (&acc)[4][4])
  {
#pragma unroll
    for (int ch = 0; ch < 4; ch++)
      bad += acc[ch][0] + acc[ch][2];

    /* Sum i: row g + 8 (i / 2), pixel 2q + i % 2. */
    const int x = bx0 + 8 * O + 2 * q, y = 16 * s + g;
    float *const out = step_out + 32 * O;

#pragma unroll
    for (int i = 0; i < 4; i++)
      {
        const int inside = y + 8 * (i / 2) < rows && x + i % 2 < a.dst.width;
        const float4 v = make_float4 (acc[0][i], acc[1][i], acc[2][i], acc[3][i]);
        float *const to = out + i / 2 * 8 * a.dst.pitch + i % 2 * 4;

        if (FINISH == FINISH_BY_MODE)
          {
            if (inside)
              tensor_store<FINISH> (a, v, t.inv, t.unscale, x + i % 2, y_first + y + 8 * (i / 2),
                                    to);
          }
        else
          {
            const float4 f = tensor_finish_plain<FINISH> (v, t.inv, a.offset);

            store4_if (inside, to, f.x, f.y, f.z, f.w);
          }
      }
  }

  /* Step s's row pass from C1 buffer s % 2: output groups warp,
   * warp + FT_WARPS, ... */
  __device__ __forceinline__ void
  row_pass (int s)
  {
    const uint4 *const from = c1 + (s & 1) * FT_C1 + lane;
    float *const step_out = a.dst.data + (y_first + 16 * s + g) * a.dst.pitch +
                            (long long) (bx0 + 2 * q) * 4;

    /* Unrolled whole, to the most groups a warp has: the bound a constant,
     * since the pragma alone leaves a loop in a member function whose
     * trip count it cannot see. */
#pragma unroll
    for (int i = 0; i < (FT_OUT_GROUPS + FT_WARPS - 1) / FT_WARPS; i++)
      {
        const int O = warp + i * FT_WARPS;
        float acc[4][4] = {};

        if (O >= FT_OUT_GROUPS)
          break;
        row_sums (from, O, acc);
        store_group (s, O, step_out, acc);
      }
  }

  /* Chunk c's column pass and step c - 3's row pass; then chunk c + 2
   * comes into chunk c's buffer. */
  __device__ __forceinline__ void
  step (int c, FtSums &done, FtSums &next, FtSums &fresh)
  {
    if (c < chunks)
      column_pass (c, done, next, fresh);
    if (c >= 3)
      row_pass (c - 3);
    __syncthreads ();
    stage (c + 2);
  }

  /* Every chunk and step.  The three steps' sums a chunk reaches change
   * roles each chunk: the loop unrolled by three keeps them in registers. */
  __device__ __forceinline__ void
  walk ()
  {
    FtSums s0 = {}, s1 = {}, s2 = {};

    for (int c = 0; c <= chunks; c += 3)
      {
        step (c, s0, s1, s2);
        if (c + 1 <= chunks)
          step (c + 1, s1, s2, s0);
        if (c + 2 <= chunks)
          step (c + 2, s2, s0, s1);
      }
  }

  /* Where any sum was non-finite, the block's outputs again in FP32.
   * Every chunk has landed and been read: the buffers are free.  A call,
   * not inlined, leaves the walk's registers. */
  __device__ __forceinline__ void
  redo_if_bad ()
  {
    if (!__syncthreads_or (!isfinite (bad)))
      return;

    char *const spare = reinterpret_cast<char *> (staged);
    ConvArgs *const job = reinterpret_cast<ConvArgs *> (spare + FT_REDO_BYTES);
    FusedTaps *const taps = reinterpret_cast<FusedTaps *> (job + 1);

    if (threadIdx.x == 0)
      {
        *job = a;
        *taps = t.exact;
        atomicAdd (&a.claims->ran.redo, 1u);
      }
    __syncthreads ();
    fused_redo_radius<FINISH> (t.r, *job, *taps, bx0, y_first, rows,
                               reinterpret_cast<float4 *> (spare));
  }
};
#endif

template <int FINISH>
__global__ void __launch_bounds__ (32 * FT_WARPS, 1)
conv_fused_tensor (const __grid_constant__ ConvArgs a, const __grid_constant__ FusedTensorTaps t,
                   int seg)
{
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__ (128) float ft_shared[];   /* the bulk copy's alignment */
  FusedTensorBlock<FINISH> block (a, t, seg, ft_shared);

  block.load_fragments ();
  block.start ();
  block.walk ();
  block.redo_if_bad ();
#endif
}

/* Whether the one pass runs on tensor cores: masks 27x27 and up, on a GPU
 * with half-precision MMA (compute capability 8.0 and up) and the shared
 * memory.  Smaller masks the FP32 one pass does as fast or faster, and
 * exactly; a wrapping border too, where a band at an edge would stage the
 * far side's columns sample by sample. */
static bool
fused_tensor_takes (const struct _CcGpu *g, const CcJob *job, int r)
{
  return r >= FT_MIN_R && g->facts.major >= 8 &&
         fused_tensor_shared_bytes () <= g->facts.shared_optin && job->border != CC_BORDER_WRAP;
}

/* The tensor kernel's taps for 'job' and the divisor's inverse; false
 * where the taps or the divisor with them leave half or single
 * precision's reach. */
static bool
fused_tensor_taps (const CcJob *job, int r, float inv_divisor, FusedTensorTaps *t)
{
  const float *const row = job->sep_v, *const col = job->sep_u;
  float rmax = 0.0f, cmax = 0.0f;

  for (int i = 0; i < 2 * r + 1; i++)
    {
      rmax = fmaxf (rmax, fabsf (row[i]));
      cmax = fmaxf (cmax, fabsf (col[i]));
    }
  const float rs = tensor_scale (rmax), cs = tensor_scale (cmax);

  *t = FusedTensorTaps {};
  for (int i = 0; i < 2 * r + 1; i++)
    {
      t->row[i + FT_TAPS / 2 - r] = row[i] * rs;
      t->col[i + FT_TAPS / 2 - r] = col[i] * cs;
    }
  t->unscale = (1.0f / rs) * (1.0f / cs);
  t->inv = inv_divisor * t->unscale;
  fused_taps (job, r, &t->exact);
  t->r = r;
  return rs != 0.0f && cs != 0.0f && fabsf (t->inv) >= FLT_MIN && fabsf (t->inv) <= FLT_MAX;
}

/* The tensor kernel, or the FP32 one pass where the taps rule it out. */
static cudaError_t
launch_fused_tensor (const struct _CcGpu *g, const CcJob *job, const ConvArgs &a, int r,
                     cudaStream_t stream)
{
  const size_t shared = fused_tensor_shared_bytes ();
  const int bands = (a.dst.width + FT_BAND - 1) / FT_BAND;
  void (*const kernels[]) (ConvArgs, FusedTensorTaps, int) =
    { conv_fused_tensor<FINISH_PLAIN>, conv_fused_tensor<FINISH_PLAIN_CLAMPED>,
      conv_fused_tensor<FINISH_BY_MODE> };
  void (*const kernel) (ConvArgs, FusedTensorTaps, int) = kernels[tensor_finish (a)];
  FusedTensorTaps taps;
  cudaError_t err;

  /* Rows a block: one block an SM fits, so one wave of them. */
  const int segs = max (g->facts.sms / bands, 1);
  const int seg = max (((a.dst.height + segs - 1) / segs + 15) & ~15, FT_MIN_SEG);

  if (!fused_tensor_taps (job, r, a.inv_divisor, &taps))
    return launch_fused (g, job, a, r, stream);
  cc_kernel_ran ("separable one pass, tensor cores");
  cc_kernel_may_fall_back ();
  if ((err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  kernel<<<dim3 (bands, (a.dst.height + seg - 1) / seg), 32 * FT_WARPS, shared, stream>>> (a, taps,
                                                                                          seg);
  return cudaGetLastError ();
}

#endif /* CC_SEPARABLE_TENSOR_CUH */
