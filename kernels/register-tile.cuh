/* The register methods' tile pipeline: a block's input tiles in shared
 * memory, loaded by the bulk-copy engine (tensor copies, compute
 * capability 9.0 and up) or cp.async, double-buffered, handed out to
 * blocks from a counter until none are left, and their outputs stored
 * back.  Included by register-kernels.cu, whose kernels walk it; internal
 * to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_REGISTER_TILE_CUH
#define CC_REGISTER_TILE_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cudaTypedefs.h>

#include "gpu.cuh"

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

#if BULK_COPY
/* By one thread, before any use: an mbarrier that one arrival (with the
 * bytes of a copy) completes a phase of. */
__device__ __forceinline__ void
mbarrier_init (unsigned long long *bar)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar)));
  asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Until the mbarrier's phase of parity 'parity' has completed; the copies
 * completing on it are then seen by this thread. */
__device__ __forceinline__ void
mbarrier_wait (unsigned long long *bar, unsigned parity)
{
  unsigned done;

  do
    asm volatile ("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                  " selp.u32 %0, 1, 0, p; }"
                  : "=r" (done) : "r" (shared_address (bar)), "r" (parity) : "memory");
  while (!done);
}

/* By one thread: the box of 'map' at element (x, y) into 'dst' (128-byte
 * aligned), by the bulk-copy engine, completing a phase of 'bar' when its
 * 'bytes' have landed.  The fence orders the block's earlier accesses to
 * 'dst', ordinary ones, before the engine's writes. */
__device__ __forceinline__ void
tensor_load (void *dst, const CUtensorMap *map, int x, int y, unsigned long long *bar, int bytes)
{
  asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                :: "r" (shared_address (bar)), "r" (bytes) : "memory");
  asm volatile ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                :: "r" (shared_address (dst)), "l" (map), "r" (x), "r" (y),
                   "r" (shared_address (bar))
                : "memory");
}
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
    /* Both barriers under one fence, not mbarrier_init twice: its second
     * fence changed ptxas's register allocation of several tile kernels. */
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
    mbarrier_wait (bar + b, parity >> b & 1);
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
            tensor_load (tile, map, (int) (first / 2), y0, buffers.bar + b,
                         (int) sizeof (float) * t.stride * t.h);
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
  unsigned *redo;     /* non-NULL: run only where it is set (a fallback), and clear it */
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
      if (w.redo)
        *w.redo = 0;
    }
}

/* One output pixel of a kernel that writes straight to global memory (the
 * 3x3 and column kernels), finished by each channel's mode and stored 16
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

/* ---- Tensor cores: half-precision MMAs summing in FP32 ----
 *
 * Samples and taps are split into two halves, hi = half (x) and
 * lo = half (x - hi), 22 bits in all, and a product is Hi hi + Hi lo +
 * Lo hi.  A fragment's lane = 4 g + q holds A's rows g and g + 8, B's
 * column g and the sums' rows g and g + 8, columns 2q and 2q + 1. */

/* How a tensor kernel finishes a pixel: plain sums to 16-byte aligned
 * output rows, unclamped or clamped (one FMA a sample, saturating where
 * clamped), or by each channel's mode through finish_store. */
enum TensorFinish { TENSOR_PLAIN, TENSOR_PLAIN_CLAMPED, TENSOR_BY_MODE };

#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* d += a b: A 16 x 16 and B 16 x 8 halves. */
__device__ __forceinline__ void
mma_f16 (float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
  asm ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
       " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
       : "+f" (d[0]), "+f" (d[1]), "+f" (d[2]), "+f" (d[3])
       : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1));
}

/* d += a b: A 16 x 8 and B 8 x 8 halves. */
__device__ __forceinline__ void
mma_f16_k8 (float (&d)[4], unsigned a0, unsigned a1, unsigned b)
{
  asm ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"
       " {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
       : "+f" (d[0]), "+f" (d[1]), "+f" (d[2]), "+f" (d[3])
       : "r" (a0), "r" (a1), "r" (b));
}

/* Two samples as pairs of halves: hi and lo. */
__device__ __forceinline__ void
split_halves (float x0, float x1, unsigned &hi, unsigned &lo)
{
  const __half2 h = __floats2half2_rn (x0, x1);
  const float2 f = __half22float2 (h);
  const __half2 l = __floats2half2_rn (x0 - f.x, x1 - f.y);

  hi = *reinterpret_cast<const unsigned *> (&h);
  lo = *reinterpret_cast<const unsigned *> (&l);
}
#endif

/* Output pixel x of output row y from its sums, still scaled: 'inv' is the
 * divisor's inverse with the scale undone (both powers of two apart, so
 * the same result as unscaling first). */
template <int FINISH>
__device__ __forceinline__ void
tensor_store (const ConvArgs &a, float4 s, float inv, float unscale, int x, int y, float *out)
{
  if (FINISH == TENSOR_BY_MODE)
    {
      const float sums[4] = { s.x * unscale, s.y * unscale, s.z * unscale, s.w * unscale };

      finish_store<4, false> (a, false, sums, sums, 0.0f,
                              a.src.data + (a.out_y + y) * a.src.pitch +
                                (long long) (a.out_x + x) * 4, out);
    }
  else
    {
      /* cc_finish, the clamp as the FMA's saturation (a NaN to 0 as there). */
      const auto finish = [&] (float v)
      {
        v = fmaf (v, inv, a.offset);
        return FINISH == TENSOR_PLAIN_CLAMPED ? __saturatef (v) : v;
      };

      *reinterpret_cast<float4 *> (out) =
        make_float4 (finish (s.x), finish (s.y), finish (s.z), finish (s.w));
    }
}

/* How a tensor kernel finishes job 'a''s pixels (plain_only, and output
 * rows a float4 store takes). */
static inline int
tensor_finish (const ConvArgs &a)
{
  bool plain = !a.accumulate && (uintptr_t) a.dst.data % 16 == 0 && a.dst.pitch % 4 == 0;

  for (int c = 0; c < 4; c++)
    plain = plain && a.mode[c] == CC_MODE_PLAIN;
  return !plain ? TENSOR_BY_MODE : a.clamp ? TENSOR_PLAIN_CLAMPED : TENSOR_PLAIN;
}

/* The scale of taps whose largest magnitude is 'largest': the power of
 * two that brings it to [1, 2), where its halves keep 22 bits; 0 where
 * none does in single precision. */
static inline float
tensor_scale (float largest)
{
  int e = 0;

  frexpf (largest, &e);
  return largest == 0.0f || (e > -100 && e < 100) ? ldexpf (1.0f, 1 - e) : 0.0f;
}

/* The halves of two taps, Hi and Lo, as two fragment registers. */
static inline void
tensor_halves (float t0, float t1, unsigned *hi, unsigned *lo)
{
  const __half h0 = __float2half_rn (t0), h1 = __float2half_rn (t1);
  const __half l0 = __float2half_rn (t0 - __half2float (h0));
  const __half l1 = __float2half_rn (t1 - __half2float (h1));
  uint16_t b[4];

  memcpy (&b[0], &h0, 2);
  memcpy (&b[1], &h1, 2);
  memcpy (&b[2], &l0, 2);
  memcpy (&b[3], &l1, 2);
  *hi = b[0] | (unsigned) b[1] << 16;
  *lo = b[2] | (unsigned) b[3] << 16;
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
 * once, each claiming tiles until none are left ('redo': only where a
 * kernel before it on the stream set that word).  A block prefetches its
 * next tile into a second buffer where four blocks with two each still fit
 * an SM, or where the second costs no block an SM; where it would, other
 * blocks' loads hide the wait better than a block's own.  Tiles and their
 * outputs go by tensor copies where the images allow (out_span: outputs a
 * tile row covers, 0 where the kernel stores them itself). */
template <typename Kernel>
static cudaError_t
launch_walk (Kernel kernel, const ConvArgs &a, dim3 block, const Tile &t, int out_span,
             const DeviceFacts &d, int across, int down, cudaStream_t stream,
             unsigned *redo = nullptr)
{
  Walk w = { 1, t.stride * t.h, across, across * down, a.claims, 0, 0, {}, {}, redo };
  int per_sm = 1;
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
  const bool two = block_bytes (tile, 2) <= d.shared_optin;

  /* The limit, not this launch's size: another thread may launch the same
   * kernel with a larger tile between this call and the launch. */
  if (block_bytes (tile, two ? 2 : 1) > 48 * 1024 &&
      (err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) d.shared_optin)) != cudaSuccess)
    return err;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, block.x * block.y,
                                                 block_bytes (tile, 1));
  if (two)
    {
      int per_sm2 = 0;

      cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm2, kernel, block.x * block.y,
                                                     block_bytes (tile, 2));
      if (per_sm2 >= per_sm || 4 * block_bytes (tile, 2) <= d.shared_per_sm)
        {
          w.buffers = 2;
          per_sm = per_sm2;
        }
    }
  const size_t shared = block_bytes (tile, w.buffers);
  const int blocks = min (per_sm > 0 ? per_sm * d.sms : d.sms, across * down);

  kernel<<<blocks, block, shared, stream>>> (a, w);
  return cudaGetLastError ();
}

#endif /* CC_REGISTER_TILE_CUH */
