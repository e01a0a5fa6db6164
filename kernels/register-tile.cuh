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

#include "device-toolkit.cuh"
#include "tensor-map.cuh"

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
      mbarrier_init_pair (bar);
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
    wait_buffer (bar, parity, b, groups);
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
    async_proxy_fence ();
    __syncthreads ();
    if (first_thread ())
      bulk_store_box (map, x, y, staged);
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
      bulk_stores_wait ();
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

/* load_tile_async's tile wholly inside the source, its rows 16-byte
 * aligned: by the bulk-copy engine, or a 16-byte cp.async a piece. */
__device__ __forceinline__ void
load_tile_inside (const ConvArgs &a, const Tile &t, int y0, TileBuffers &buffers, int b,
                  const CUtensorMap *map, long long first, int pieces)
{
  float *const tile = buffers.buffer (b);

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
      async_proxy_fence ();
      for (int r = threadIdx.y; r < t.h; r += blockDim.y)
        bulk_copy (shared_address (tile + r * t.stride),
                   a.src.data + (y0 + r) * a.src.pitch + first, 16 * pieces, bar);
    }
  if (first_thread ())
    mbarrier_expect_bytes (bar, 16 * pieces * t.h);
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
}

/* load_tile_async's tile across the source's edges: pieces inside a row
 * as one 16-byte copy, the others sample by sample. */
template <int C>
__device__ __forceinline__ void
load_tile_edges (const ConvArgs &a, const Tile &t, int x0, int y0, TileBuffers &buffers, int b,
                 long long first, int pieces)
{
  float *const tile = buffers.buffer (b);
  const int samples = t.w * C;
  const long long row_samples = (long long) a.src.width * C;

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
    mbarrier_arrive (shared_address (buffers.bar + b));
#endif
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
  const int samples = t.w * C;
  const int pieces = (t.lead + samples + 3) / 4;
  const long long row_samples = (long long) a.src.width * C;
  const long long first = (long long) x0 * C - t.lead;

  /* Most tiles lie wholly inside the source: no border to resolve.  Their
   * rows start 16-byte aligned on both sides (vec4, the lead). */
  if (a.vec4 && first >= 0 && first + 4 * pieces <= row_samples && y0 >= 0 &&
      y0 + t.h <= a.src.height)
    load_tile_inside (a, t, y0, buffers, b, map, first, pieces);
  else
    load_tile_edges<C> (a, t, x0, y0, buffers, b, first, pieces);
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

/* Tiles go to blocks as they ask: a block takes its first two tiles by its
 * index, then claims each next one from a counter in device memory, so
 * that blocks running at different speeds finish together.  A claim is
 * made two tiles ahead of its use, so its round trip hides behind a
 * tile's work even when the block prefetches its next tile into a second
 * buffer (where two tiles fit shared memory; otherwise it loads as it
 * goes).  The last block to finish zeroes the counters for the next
 * launch on its stream. */
struct Walk
{
  int buffers;
  int floats;         /* a buffer's */
  int across;         /* tiles a row of them */
  int total;          /* tiles */
  Claims *claims;     /* its tile and done words: zero at the start */
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
  return 2 * gridDim.x + atomicAdd (&w.claims->tile, 1u);
}

__device__ __forceinline__ void
walk_done (const Walk &w)
{
  if (first_thread () && atomicAdd (&w.claims->done, 1u) == gridDim.x - 1)
    {
      w.claims->tile = 0;
      w.claims->done = 0;
      if (w.redo)
        *w.redo = 0;
    }
}

/* A block's walk over the tiles (Walk): for each tile it claims the next
 * but one, then calls 'body (pos, claim, cur, fetch)' with the tile's
 * place, that claim and its buffer; 'fetch ()' starts the next tile's copy
 * (with two buffers) or this one's and waits for this one, so the body
 * sets up before it as the loops did.  The body posts the claim
 * (TileBuffers::post_claim) once every thread has read the last one and
 * leaves the buffer free for its refill next but one. */
template <typename Load, typename Body>
__device__ __forceinline__ void
walk_tiles (const Walk &w, TileBuffers &buffers, Load load, Body body)
{
  int cur = 0, tile_i = blockIdx.x, next_i = blockIdx.x + gridDim.x;

  if (w.buffers == 2 && tile_i < w.total)
    {
      load (0, tile_i);
      __pipeline_commit ();
    }
  for (; tile_i < w.total; cur ^= w.buffers - 1)
    {
      const TilePos pos = tile_at (w, tile_i);
      const int claim = first_thread () ? claim_tile (w) : 0;
      const auto fetch = [&] ()
      {
        if (w.buffers == 1)
          load (cur, tile_i);
        else if (next_i < w.total)
          load (cur ^ 1, next_i);
        __pipeline_commit ();
        buffers.wait (cur, w.buffers - 1);
      };

      body (pos, claim, cur, fetch);
      tile_i = next_i;
      next_i = buffers.take_claim ();
    }
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
  /* Tensor copies want each buffer 128-byte aligned; the others stay
   * packed, which is faster. */
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
