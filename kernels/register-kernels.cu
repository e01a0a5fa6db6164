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

#include <cuda.h>
#include <cuda_pipeline.h>
#include <cudaTypedefs.h>

#include "cuda-kernels.cuh"

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
__constant__ __align__ (8) float c_reg_mask[reg_mask_stride (REG_MAX_WIDTH) * CC_MASK_MAX];

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

template <int C>
__device__ __forceinline__ void
store_shared (float *p, const float v[C])
{
  if (C == 4)
    *reinterpret_cast<float4 *> (p) = make_float4 (v[0], v[1], v[2], v[C - 1]);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = v[c];
}

/* A tile in shared memory: w x h pixels, 'stride' floats a row.  Sample k
 * of a row sits at 'lead' + k, so that samples 16-byte aligned in global
 * memory are 16-byte aligned here too and any channel count copies in
 * 16-byte pieces; the lead is the same for every tile of a launch, since
 * tiles start a multiple of 4 samples apart. */
struct Tile
{
  int w, h, stride, lead;
};

__host__ __device__ __forceinline__ int
tile_stride (int w, int channels)
{
  return channels == 4 ? w * 4 : (w * channels + 3 + 3) & ~3;
}

/* Floats a tile's buffer takes: its rows, rounded up to 128 bytes, the
 * alignment of tensor copies to and from shared memory. */
static inline int
buffer_floats (int stride, int h)
{
  return (stride * h + 31) & ~31;
}

template <int C>
__host__ __device__ __forceinline__ Tile
tile_for (int w, int h, int x_first)
{
  return Tile { w, h, tile_stride (w, C), C == 4 ? 0 : (x_first * C) & 3 };
}

__device__ __forceinline__ bool
first_thread ()
{
  return threadIdx.x == 0 && threadIdx.y == 0;
}

/* Shared-memory addresses for the PTX below. */
__device__ __forceinline__ unsigned
shared_address (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}

/* The bulk-copy engine and the mbarriers it completes on: compute
 * capability 9.0 and up.  Older GPUs copy every tile by cp.async. */
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define BULK_COPY 1
#else
#define BULK_COPY 0
#endif

/* A block's tile buffers in shared memory, and after them its sync
 * words: a barrier a buffer, then two slots for the tiles the block claims
 * (Walk).  The buffers are filled two ways: tiles at the image's border by
 * cp.async, sample or piece by piece, each thread waiting for its own
 * groups; the others (most) by the bulk-copy engine, the whole tile in one
 * tensor copy where the launch made a tensor map (Walk), otherwise a row a
 * copy; that costs a handful of instructions where the piecewise copy
 * costs some 15 a 16-byte piece, and completes on the buffer's barrier (an
 * mbarrier).  Each load completes a phase of its buffer's barrier, the
 * border tiles' at once; 'parity' holds each barrier's phase, 'piecewise'
 * which buffers' last load was by cp.async, 'turn' the claim slot in use,
 * 'storing' whether a tensor store has read a buffer since this thread's
 * last block barrier. */
struct TileBuffers
{
  float *base;
  int floats;                 /* a buffer's */
  unsigned long long *bar;
  unsigned parity;
  unsigned piecewise;
  int turn;
  bool storing;

  __device__ __forceinline__ float *
  buffer (int b) const
  {
    return base + b * floats;
  }

  /* The two claim slots, after the barriers. */
  __device__ __forceinline__ int *
  claims () const
  {
    return reinterpret_cast<int *> (bar + 2);
  }

  /* The next tile's index, passed from the block's first thread to all:
   * posted before a block barrier, taken after it.  The slots alternate
   * because no barrier separates one tile's taking from the next tile's
   * posting where the next load is a bulk copy (wait). */
  __device__ __forceinline__ void
  post_claim (int claim) const
  {
    if (first_thread ())
      claims ()[turn] = claim;
  }

  __device__ __forceinline__ int
  take_claim ()
  {
    const int claim = claims ()[turn];

    turn ^= 1;
    return claim;
  }

  /* By every thread, before the first load; ends with a block barrier. */
  __device__ __forceinline__ void
  init (float *shared, int buffer_floats, int buffers)
  {
    base = shared;
    floats = buffer_floats;
    bar = reinterpret_cast<unsigned long long *> (shared + buffers * buffer_floats);
    parity = 0;
    piecewise = 0;
    turn = 0;
    storing = false;
#if BULK_COPY
    if (first_thread ())
      {
        asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar)));
        asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar + 1)));
        asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
      }
#endif
    __syncthreads ();
  }

  /* Waits until buffer b's load has landed, for every thread of the block:
   * 'groups' is how many cp.async groups may stay pending.  A bulk copy is
   * seen by each thread that waits on its barrier; pieces copied by other
   * threads' cp.async only after a block barrier, which bulk-copied tiles
   * therefore skip. */
  __device__ __forceinline__ void
  wait (int b, int groups)
  {
    __pipeline_wait_prior (groups);
#if BULK_COPY
    unsigned done;

    do
      asm volatile ("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                    " selp.u32 %0, 1, 0, p; }"
                    : "=r" (done) : "r" (shared_address (bar + b)), "r" (parity >> b & 1)
                    : "memory");
    while (!done);
    parity ^= 1u << b;
#endif
    if (piecewise >> b & 1)
      __syncthreads ();
  }

  /* Stores the outputs staged at 'staged' (the map's box) to the output at
   * element (x, y), one tensor copy from the first thread, which then waits
   * until the engine has read them: it issues the next tensor load into
   * that memory itself.  Other threads writing a buffer first wait for the
   * first thread (before_writes).  It beat a store loop by every warp
   * (store_rows). */
  __device__ __forceinline__ void
  store_tile (const CUtensorMap *map, const float *staged, int x, int y)
  {
#if BULK_COPY
    asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads ();
    if (first_thread ())
      {
        asm volatile ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                      :: "l" (map), "r" (x), "r" (y), "r" (shared_address (staged))
                      : "memory");
        asm volatile ("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile ("cp.async.bulk.wait_group.read 0;" ::: "memory");
      }
    storing = true;
#endif
  }

  /* Before this thread writes a buffer itself (cp.async or plain stores):
   * after a tensor store, a block barrier, which the first thread reaches
   * once the engine has read the store's source. */
  __device__ __forceinline__ void
  before_writes ()
  {
    if (storing)
      __syncthreads ();
    storing = false;
  }

  /* The block's last store completes before its shared memory goes. */
  __device__ __forceinline__ void
  finish_stores ()
  {
#if BULK_COPY
    if (storing && first_thread ())
      asm volatile ("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
  }
};

/* Shared memory a tile kernel's block takes: its buffers and TileBuffers'
 * sync words after them. */
static constexpr size_t
block_bytes (size_t tile, int buffers)
{
  return buffers * tile + 3 * sizeof (unsigned long long);
}

/* Starts copying the tile whose top left is source pixel (x0, y0), border
 * resolved, into buffer b without waiting: the caller commits the cp.async
 * group and waits (TileBuffers::wait) later, computing on the previous tile
 * meanwhile.  A tile wholly inside the source goes to the bulk-copy engine,
 * in one copy where 'map' (Walk) describes the source.  Otherwise pieces
 * wholly inside the source row go as one 16-byte copy; the others sample by
 * sample, zero ghost samples stored directly. */
template <int C>
__device__ __forceinline__ void
load_tile_async (const ConvArgs &a, const Tile &t, int x0, int y0, TileBuffers &buffers, int b,
                 const CUtensorMap *map)
{
  float *const tile = buffers.buffer (b);
  const int samples = t.w * C;
  const int pieces = (t.lead + samples + 3) / 4;
  const long long row_samples = (long long) a.src.width * C;
  const long long first = (long long) x0 * C - t.lead;

  /* Most tiles lie wholly inside the source: no border to resolve.  Their
   * rows start 16-byte aligned on both sides (vec4, the lead). */
  if (a.vec4 && first >= 0 && first + 4 * pieces <= row_samples && y0 >= 0 &&
      y0 + t.h <= a.src.height)
    {
#if BULK_COPY
      const unsigned bar = shared_address (buffers.bar + b);

      buffers.piecewise &= ~(1u << b);
      if (map)
        {
          /* The whole buffer, rows and their padding, in one copy: a
           * thread's few instructions, where a copy a row cost each warp a
           * loop to make its operands uniform. */
          if (first_thread ())
            {
              asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
              asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                            :: "r" (bar), "r" ((int) sizeof (float) * t.stride * t.h)
                            : "memory");
              asm volatile ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                            ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                            :: "r" (shared_address (tile)), "l" (map), "r" ((int) (first / 2)),
                               "r" (y0), "r" (bar)
                            : "memory");
            }
          return;
        }
      if (threadIdx.x == 0)
        {
          /* Orders the block's earlier reads of this buffer, ordinary
           * accesses, before the engine's writes. */
          asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
          for (int r = threadIdx.y; r < t.h; r += blockDim.y)
            asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                          " [%0], [%1], %2, [%3];"
                          :: "r" (shared_address (tile + r * t.stride)),
                             "l" (a.src.data + (y0 + r) * a.src.pitch + first),
                             "r" (16 * pieces), "r" (bar)
                          : "memory");
        }
      if (first_thread ())
        asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                      :: "r" (bar), "r" (16 * pieces * t.h) : "memory");
#else
      for (int r = threadIdx.y; r < t.h; r += blockDim.y)
        {
          const float *src = a.src.data + (y0 + r) * a.src.pitch + first;
          float *dst = tile + r * t.stride;

          for (int q = threadIdx.x; q < pieces; q += blockDim.x)
            __pipeline_memcpy_async (dst + 4 * q, src + 4 * q, 16);
        }
      buffers.piecewise |= 1u << b;
#endif
      return;
    }
  buffers.piecewise |= 1u << b;
  buffers.before_writes ();
  for (int r = threadIdx.y; r < t.h; r += blockDim.y)
    {
      const GlobalRow<C> row = global_row<C> (a, y0 + r);
      float *dst = tile + r * t.stride;

      for (int q = threadIdx.x; q < pieces; q += blockDim.x)
        {
          const long long g = first + 4 * q;

          if (row.present () && a.vec4 && g >= 0 && g + 4 <= row_samples)
            {
              __pipeline_memcpy_async (dst + 4 * q, row.p + g, 16);
              continue;
            }
#pragma unroll
          for (int e = 0; e < 4; e++)
            {
              const int k = 4 * q + e - t.lead;
              const float *src;

              if (k < 0 || k >= samples)
                continue;
              if ((src = pixel_address<C> (row, x0 + k / C)))
                __pipeline_memcpy_async (dst + 4 * q + e, src + k % C, 4);
              else
                dst[4 * q + e] = 0.0f;
            }
        }
    }
#if BULK_COPY
  if (first_thread ())
    asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];"
                  :: "r" (shared_address (buffers.bar + b)) : "memory");
#endif
}

/* Copies rows of outputs staged in shared memory ('count' samples each,
 * 'pitch' floats apart there) to the output at (x, y), a row per thread
 * row, coalesced, 16 bytes at a time where the output's rows allow; x * C
 * is a multiple of 4. */
__device__ __forceinline__ void
store_rows (const ConvArgs &a, const float *staged, int pitch, int rows, int x, int y,
            int count, int C)
{
  const bool vec = (uintptr_t) a.dst.data % 16 == 0 && a.dst.pitch % 4 == 0;
  const int head = vec ? count / 4 * 4 : 0;

  rows = min (rows, a.dst.height - y);
  for (int r = threadIdx.y; r < rows; r += blockDim.y)
    {
      const float *src = staged + r * pitch;
      float *out = a.dst.data + (y + r) * a.dst.pitch + (long long) x * C;
      const float4 *from = reinterpret_cast<const float4 *> (src) + threadIdx.x;
      const float4 *const end = reinterpret_cast<const float4 *> (src) + head / 4;
      float4 *to = reinterpret_cast<float4 *> (out) + threadIdx.x;

      /* Pointers stepped, not indices scaled: fewer instructions a store. */
      for (; from < end; from += blockDim.x, to += blockDim.x)
        *to = *from;
      for (int i = head + threadIdx.x; i < count; i += blockDim.x)
        out[i] = src[i];
    }
}

/* Every channel by the plain formula, nothing to add to: the usual case,
 * whose finish needs no choice per sample. */
template <int C, bool WEIGHTED>
__device__ __forceinline__ bool
plain_only (const ConvArgs &a)
{
  bool plain = !WEIGHTED && !a.accumulate;

#pragma unroll
  for (int c = 0; c < C; c++)
    plain = plain && a.mode[c] == CC_MODE_PLAIN;
  return plain;
}

/* Tiles go to blocks as they ask: a block takes its first two tiles by its
 * index, then claims each next one from a counter in device memory.  A
 * fixed round-robin left SMs idle at the end, some blocks running faster
 * than others.  A claim is made
 * two tiles ahead of its use, so its round trip hides behind a tile's work
 * even when the block prefetches its next tile into a second buffer (where
 * two tiles fit shared memory; otherwise it loads as it goes).  The last
 * block to finish zeroes the counters for the next launch on its stream. */
struct Walk
{
  int buffers;
  int floats;         /* a buffer's */
  int across;         /* tiles a row of them */
  int total;          /* tiles */
  unsigned *claims;   /* tiles claimed, blocks finished; zero at the start */
  int mapped;         /* map: the source, a box a tile (load_tile_async) */
  int out_mapped;     /* out_map: the output, a box a tile's outputs */
  CUtensorMap map, out_map;
};

struct TilePos
{
  int col, row;
};

__device__ __forceinline__ TilePos
tile_at (const Walk &w, int i)
{
  return TilePos { i % w.across, i / w.across };
}

/* By the block's first thread: the index of a tile for the block. */
__device__ __forceinline__ int
claim_tile (const Walk &w)
{
  return 2 * gridDim.x + atomicAdd (w.claims, 1u);
}

__device__ __forceinline__ void
walk_done (const Walk &w)
{
  if (first_thread () && atomicAdd (w.claims + 1, 1u) == gridDim.x - 1)
    {
      w.claims[0] = 0;
      w.claims[1] = 0;
    }
}

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

/* One output pixel of a kernel that writes straight to global memory (the
 * band and column kernels), finished by each channel's mode and stored 16
 * bytes at once where the output allows; 'centre' is the source pixel
 * under the mask's centre, for copied channels. */
template <int C, bool WEIGHTED>
__device__ __forceinline__ void
finish_store (const ConvArgs &a, bool plain, const float sums[C], const float kca[C],
              float wabs, const float *centre, float *out)
{
  float v[C];

  if (plain)
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = cc_finish (sums[c], a.inv_divisor, a.offset, a.clamp);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      {
        const int mode = a.mode[c];

        if (mode == CC_MODE_COPY)
          v[c] = centre[c];
        else if (WEIGHTED && mode == CC_MODE_WEIGHTED)
          v[c] = cc_finish_weighted (sums[c], kca[c], wabs, a.sum_abs, a.inv_divisor,
                                     a.offset, a.clamp);
        else
          v[c] = cc_finish (sums[c] + (a.accumulate ? out[c] : 0.0f), a.inv_divisor,
                            a.offset, a.clamp);
      }
  if (C == 4 && (uintptr_t) a.dst.data % 16 == 0 && a.dst.pitch % 4 == 0)
    *reinterpret_cast<float4 *> (out) = make_float4 (v[0], v[1], v[2], v[C - 1]);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      out[c] = v[c];
}

/* Rows of outputs a band-kernel warp computes. */
constexpr int BAND_NY = 4;

/* Pixel (x, y) of a source with 16-byte aligned rows, its indices
 * border-resolved beforehand (-1: a zero ghost).  The load is
 * unconditional, from pixel (0, 0) for a ghost, so that nothing stands
 * between a band's loads. */
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
 * arithmetic.  A warp computes BAND_NY rows of 32 outputs.  Each lane loads
 * the one pixel under it in each of the BAND_NY + 2 rows and takes its left
 * and right neighbours from the lanes beside it by shuffles; the pixels
 * beside the warp's two edges, for all rows, come in one more load (lane l:
 * row l / 2, left or right by l % 2).  So each pixel is loaded once,
 * which beat loading all three neighbours in each thread through L1; 4 rows
 * (64 registers, 32 warps an SM) tie 8 rows and beat 6.  Lanes past the
 * output's right edge load too: theirs are the neighbours there. */
template <int C>
__global__ void __launch_bounds__ (256, 4)
conv_band (const __grid_constant__ ConvArgs a)
{
  constexpr int K = 3, S = reg_mask_stride (K), ROWS = BAND_NY + K - 1;
  static_assert (2 * ROWS <= 32, "one load brings a warp's edge pixels");
  const int lane = threadIdx.x, x0 = blockIdx.x * 32, x = x0 + lane;
  const int sx = cc_border_index32 (a.out_x + x, a.src.width, a.border_x);
  const int edge_x = cc_border_index32 (a.out_x + x0 + (lane % 2 ? 32 : -1), a.src.width,
                                        a.border_x);
  const bool plain = plain_only<C, false> (a);

  for (int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * BAND_NY; y0 < a.dst.height;
       y0 += gridDim.y * blockDim.y * BAND_NY)
    {
      const int sy = a.out_y + y0 - 1;
      const int edge_y = cc_border_index32 (sy + lane / 2, a.src.height, a.border_y);
      int ry[ROWS];
      float v[ROWS][C], edge[C] = {}, acc[BAND_NY][C];

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
      for (int n = 0; n < BAND_NY; n++)
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
            if (r - j >= 0 && r - j < BAND_NY)
#pragma unroll
              for (int i = 0; i < K; i++)
#pragma unroll
                for (int c = 0; c < C; c++)
                  acc[r - j][c] += c_reg_mask[j * S + i] * p[i][c];
        }
      if (x < a.dst.width)
#pragma unroll
        for (int n = 0; n < BAND_NY && y0 + n < a.dst.height; n++)
          finish_store<C, false> (a, plain, acc[n], acc[n], 0.0f, v[n + 1],
                                  a.dst.data + (y0 + n) * a.dst.pitch + (long long) x * C);
    }
}

/* The band kernel in blocks of 8 rows of a warp, a block's bands stepping
 * down by the grid where the image is taller than 65535 blocks' worth. */
static cudaError_t
launch_band (const ConvArgs &a, cudaStream_t stream)
{
  const dim3 block (32, 8);
  const int rows = (a.dst.height + block.y * BAND_NY - 1) / (block.y * BAND_NY);

  conv_band<4><<<dim3 ((a.dst.width + 31) / 32, min (rows, 65535)), block, 0, stream>>> (a);
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

/* A block's shape, as measured fastest (RGBA, 4096x4096; the figures are in
 * docs/performance.md):
 * - masks under 3 rows or columns (row passes, 1D signals): 8 rows of a
 *   warp;
 * - 2D masks get narrow blocks, so that several share an SM and one block's
 *   wait at a barrier (for its slowest warp, for its loads) is another's
 *   time to compute: 3 and 5 rows tall, 24 rows of 16 threads, which
 *   amortises the halo rows that dominate their loads; 7 tall, 8 rows of
 *   16, or 16 rows for unweighted RGBA; up to 23, 16 of 16; taller, 32
 *   rows, of 8 threads where the mask is 25 wide or more;
 * - reg_wide's (unweighted RGBA, 7 to 15 wide) 16 rows of 8 threads,
 *   ahead of 12 and 20 rows and of 8 rows of 16.
 * Short images get fewer, wider rows (256 threads), so no thread idles on
 * a single-row signal.  The shape shrinks until the tile fits shared
 * memory; the last resort, for tall masks on few channels (whose threads
 * are widest), is one row of 8 threads. */
static int
fewer_rows (int by)
{
  return by > 16 ? 16 : by / 2;
}

/* The weighted kernels' registers (three sums an output) allow 256 threads
 * a block where two blocks share an SM; reg_wide's launch bounds, 256. */
static bool
block_shape (int kw, int mask_height, int channels, bool weighted, int dst_height,
             size_t shared_limit, dim3 *block)
{
  const bool wide = reg_wide (channels, kw, weighted);
  const int max_threads = weighted || wide ? 256 : 512;
  const bool rgba7 = mask_height == 7 && channels == 4 && !weighted;
  int by = 8, bx_max = 32;

  if (kw >= 3 && mask_height >= 3 && wide)
    {
      bx_max = 8;
      by = 16;
    }
  else if (kw >= 3 && mask_height >= 3)
    {
      bx_max = mask_height >= 25 && kw >= 25 ? 8 : 16;
      by = mask_height <= 5 ? 24 : mask_height == 7 ? (rgba7 ? 16 : 8)
           : mask_height < 25 ? 16 : 32;
    }
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

cudaError_t
cc_register_set_mask (const float *mask, int width, int height, cudaStream_t stream)
{
  const int kw = cc_mask_width_class (width);
  const int pad = (kw - width) / 2, stride = reg_mask_stride (kw);
  float padded[reg_mask_stride (REG_MAX_WIDTH) * CC_MASK_MAX];

  /* Centred in its class, zero taps either side and in the row's padding. */
  for (int j = 0; j < height; j++)
    for (int i = 0; i < stride; i++)
      padded[j * stride + i] = i >= pad && i < pad + width ? mask[j * width + i - pad] : 0.0f;
  return cudaMemcpyToSymbolAsync (c_reg_mask, padded, sizeof (float) * stride * height, 0,
                                  cudaMemcpyHostToDevice, stream);
}

/* The driver's tensor-map encoder, through the runtime: no link to the
 * driver library. */
static PFN_cuTensorMapEncodeTiled_v12000
find_encode ()
{
  void *f = nullptr;
  cudaDriverEntryPointQueryResult q;

  if (cudaGetDriverEntryPointByVersion ("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                        &q) != cudaSuccess || q != cudaDriverEntryPointSuccess)
    return nullptr;
  return (PFN_cuTensorMapEncodeTiled_v12000) f;
}

/* A tensor map for bulk copies of boxes of w x h floats to or from an
 * image: 8-byte elements, so that a box row of up to 2 KB is one (256
 * elements at most).  False where the image's rows are not 16-byte aligned,
 * the box is larger or the driver has no tensor maps: the kernels then copy
 * a row at a time. */
static bool
image_map (const DevImage &im, int channels, int w, int h, CUtensorMap *map)
{
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = find_encode ();
  const cuuint64_t dims[2] = { (cuuint64_t) im.width * channels / 2, (cuuint64_t) im.height };
  const cuuint64_t pitch[1] = { (cuuint64_t) im.pitch * sizeof (float) };
  const cuuint32_t box[2] = { (cuuint32_t) w / 2, (cuuint32_t) h };
  const cuuint32_t step[2] = { 1, 1 };

  return encode && (uintptr_t) im.data % 16 == 0 && im.pitch % 4 == 0 && w % 4 == 0 &&
         w / 2 <= 256 && h <= 256 && dims[0] > 0 &&
         encode (map, CU_TENSOR_MAP_DATA_TYPE_INT64, 2, im.data, dims, pitch, box, step,
                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
         == CUDA_SUCCESS;
}

/* Launches a tile-walking kernel with as many blocks as the GPU holds at
 * once, each claiming tiles until none are left.  A block prefetches its
 * next tile into a second buffer where four blocks with two each still fit
 * an SM, or where the second costs no block an SM; where it would, other
 * blocks' loads hide the wait better than a block's own.  Tiles and their
 * outputs go by tensor copies where the images allow (out_span: outputs a
 * tile row covers, 0 where the kernel stores them itself). */
template <typename Kernel>
static cudaError_t
launch_walk (Kernel kernel, const ConvArgs &a, dim3 block, const Tile &t, int out_span,
             size_t shared_limit, int across, int down, cudaStream_t stream)
{
  Walk w = { 1, t.stride * t.h, across, across * down, a.claims, 0, 0, {}, {} };
  int device = 0, sms = 1, per_sm = 1, sm_shared = 0;
  cudaError_t err;

  if (!a.claims)
    return cudaErrorInvalidValue;
  /* Tensor stores only with tensor loads: the thread that waits for a
   * store's read issues the next load into that memory (store_tile). */
  w.mapped = image_map (a.src, a.channels, t.stride, t.h, &w.map);
  w.out_mapped = w.mapped && out_span &&
                 image_map (a.dst, a.channels, out_span * a.channels, block.y, &w.out_map);
  /* Tensor copies want each buffer 128-byte aligned.  Not the others: a
   * 1D signal's second buffer moved so ran 8% slower. */
  if (w.mapped)
    w.floats = buffer_floats (t.stride, t.h);
  const size_t tile = sizeof (float) * w.floats;
  cudaGetDevice (&device);
  cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute (&sm_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  const bool two = block_bytes (tile, 2) <= shared_limit;

  /* The limit, not this launch's size: another thread may launch the same
   * kernel with a larger tile between this call and the launch. */
  if (block_bytes (tile, two ? 2 : 1) > 48 * 1024 &&
      (err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared_limit)) != cudaSuccess)
    return err;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, block.x * block.y,
                                                 block_bytes (tile, 1));
  if (two)
    {
      int per_sm2 = 0;

      cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm2, kernel, block.x * block.y,
                                                     block_bytes (tile, 2));
      if (per_sm2 >= per_sm || 4 * block_bytes (tile, 2) <= (size_t) sm_shared)
        {
          w.buffers = 2;
          per_sm = per_sm2;
        }
    }
  const size_t shared = block_bytes (tile, w.buffers);
  const int blocks = min (per_sm > 0 ? per_sm * sms : sms, across * down);

  kernel<<<blocks, block, shared, stream>>> (a, w);
  return cudaGetLastError ();
}

/* The column kernel: 8 rows of 32 threads, fewer rows if the tile must. */
template <int C, bool WEIGHTED>
static cudaError_t
launch_column (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  int by = 8;

  while (by > 1 && block_bytes (column_tile_bytes (by, a.mask_height, C), 1) > shared_limit)
    by /= 2;
  const size_t tile = column_tile_bytes (by, a.mask_height, C);
  if (block_bytes (tile, 1) > shared_limit)
    return cudaErrorInvalidConfiguration;

  return launch_walk (conv_column<C, WEIGHTED>, a, dim3 (32, by),
                      tile_for<C> (32, by * COL_NY + a.mask_height - 1, a.out_x), 0,
                      shared_limit, (a.dst.width + 31) / 32,
                      (a.dst.height + by * COL_NY - 1) / (by * COL_NY), stream);
}

template <int C, int KW, bool WEIGHTED>
static cudaError_t
launch_class (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  dim3 block;

  if (!block_shape (KW, a.mask_height, C, WEIGHTED, a.dst.height, shared_limit, &block))
    return cudaErrorInvalidConfiguration;

  const int span = block.x * reg_nx (C, KW, WEIGHTED);
  return launch_walk (conv_register<C, KW, WEIGHTED>, a, block,
                      tile_for<C> (span + KW - 1, block.y + a.mask_height - 1,
                                   a.out_x - (KW - 1) / 2), span, shared_limit,
                      (a.dst.width + span - 1) / span,
                      (a.dst.height + block.y - 1) / block.y, stream);
}

template <int C, bool WEIGHTED>
static cudaError_t
launch_channels (const ConvArgs &a, size_t shared_limit, cudaStream_t stream)
{
  switch (cc_mask_width_class (a.mask_width))
    {
    case 1:  return launch_column<C, WEIGHTED> (a, shared_limit, stream);
    case 3:
      if (C == 4 && !WEIGHTED && a.mask_height == 3 && a.vec4)
        return launch_band (a, stream);
      return launch_class<C, 3, WEIGHTED> (a, shared_limit, stream);
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
