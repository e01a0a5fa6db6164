/* Method "register": each thread computes several horizontally adjacent
 * outputs from a shared-memory tile, every input pixel it loads feeding all
 * of them, with the mask's taps read from __constant__ memory at indices the
 * compiler knows, so they sit in the FMAs as operands.  The mask's width is a
 * compile-time class (the mask is centred in it, padded with zero taps);
 * its height is a run-time loop, so few instantiations cover every mask.
 * The method's other kernels (column, 3x3, tensor 9x9) are in the headers
 * it includes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "gpu.cuh"
#include "register-mask.cuh"
#include "register-tile.cuh"
/* The method's other kernels, each with its launcher: they read
 * c_reg_mask too, so they compile in this file. */
#include "register-column.cuh"
#include "register-3x3.cuh"
#include "register-tensor9.cuh"

/* Unweighted RGBA with masks 7 to 15 wide is issue-bound: each thread
 * takes more outputs (36 sums: fewer loads and less overhead an output),
 * 80 registers (launch bounds 256 x 3) and narrow blocks (block_shape).
 * Wider masks keep the plain shape, for separable's wide row passes
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

/* One block's walk over its tiles: the tile's shape and buffers, and a
 * tile's place and sums as each is computed.  Each stage is a member,
 * inlined, so that the sums stay in registers as the lambda's did. */
template <int C, int KW, bool WEIGHTED>
struct RegisterBlock
{
  static constexpr int REG_NX = reg_nx (C, KW, WEIGHTED);
  const ConvArgs &a;
  const Walk &w;
  const int mh;
  const int span;   /* output pixels a tile row covers */
  const Tile t;
  TileBuffers buffers;
  /* The tile's first output column and row, this thread's first output
   * and row, whether it has any, and the tile's buffer. */
  int bx0, by, ox0, oy;
  bool active;
  float *tile;
  float plain[REG_NX][C], kca[WEIGHTED ? REG_NX : 1][C], wabs[REG_NX];

  __device__ __forceinline__
  RegisterBlock (const ConvArgs &args, const Walk &walk, float *shared)
    : a (args), w (walk), mh (a.mask_height), span (blockDim.x * REG_NX),
      t (tile_for<C> (span + KW - 1, blockDim.y + mh - 1, a.out_x - (KW - 1) / 2))
  {
    buffers.init (shared, w.floats, w.buffers);
  }

  /* Starts loading tile i into buffer b. */
  __device__ __forceinline__ void
  load (int b, int i)
  {
    const TilePos p = tile_at (w, i);

    load_tile_async<C> (a, t, a.out_x + p.col * span - (KW - 1) / 2,
                        a.out_y + p.row * blockDim.y - (mh - 1) / 2, buffers, b,
                        w.mapped ? &w.map : nullptr);
  }

  /* The sums over the mask's rows: pixel p of the thread's window feeds
   * output n through tap p - n. */
  __device__ __forceinline__ void
  sum ()
  {
    for (int j = 0; active && j < mh; j++)
      {
        const float *row = tile + (threadIdx.y + j) * t.stride + t.lead +
                           threadIdx.x * REG_NX * C;
        const float2 *taps = reinterpret_cast<const float2 *> (c_reg_mask +
                                                                j * reg_mask_stride (KW));

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
  }

  /* The class's zero taps past the mask make a NaN of an infinity or a
   * NaN they reach (the scheduler passes ConvArgs.nan only then:
   * reach_past). */
  __device__ __forceinline__ void
  report_nan () const
  {
    if (!a.nan)
      return;

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
      a.nan->seen = 1;
  }

  __device__ __forceinline__ void
  finish_plain (int clamp)
  {
#pragma unroll
    for (int n = 0; n < REG_NX; n++)
#pragma unroll
      for (int c = 0; c < C; c++)
        plain[n][c] = cc_finish (plain[n][c], a.inv_divisor, a.offset, clamp);
  }

  /* Finish in registers, copied channels from the tile's centre pixels.
   * The clamp chosen once a tile, not per sample: clamped, the plain
   * finish is one saturating FMA a sample.  Unclamped it passes a.clamp
   * rather than a constant 0, which ptxas schedules worse. */
  __device__ __forceinline__ void
  finish ()
  {
    const float *centre = tile + (threadIdx.y + (mh - 1) / 2) * t.stride + t.lead +
                          (threadIdx.x * REG_NX + (KW - 1) / 2) * C;
    const float *prev = a.dst.data + oy * a.dst.pitch + (long long) ox0 * C;

    if (plain_only<C, WEIGHTED> (a) && a.clamp)
      return finish_plain (1);
    if (plain_only<C, WEIGHTED> (a))
      return finish_plain (a.clamp);
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
            plain[n][c] = cc_finish (plain[n][c] + (a.accumulate && here ? prev[n * C + c] : 0.0f),
                                     a.inv_divisor, a.offset, a.clamp);
        }
  }

  /* The tile's outputs staged in its own buffer, so that the stores to
   * global memory are whole rows, coalesced. */
  __device__ __forceinline__ void
  store (int claim)
  {
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
        /* Each thread row stores the row it staged: where rows fill whole
         * warps (block widths are powers of two), a warp reads back only
         * what it wrote, so a warp barrier is enough (the gain is given at
         * TileBuffers::wait). */
        if (blockDim.x <= 32 && blockDim.x * blockDim.y % 32 == 0)
          __syncwarp ();
        else
          __syncthreads ();
        store_rows (a, tile, span * C, blockDim.y, bx0, by, min (span, a.dst.width - bx0) * C,
                    C);
        __syncthreads ();   /* this buffer is refilled next but one */
      }
  }

  /* Tile 'pos' from buffer 'cur', once 'fetch' has it there. */
  template <typename Fetch>
  __device__ __forceinline__ void
  compute (TilePos pos, int claim, int cur, const Fetch &fetch)
  {
    bx0 = pos.col * span;
    by = pos.row * blockDim.y;
    ox0 = bx0 + threadIdx.x * REG_NX;
    oy = by + threadIdx.y;
    active = oy < a.dst.height && ox0 < a.dst.width;
    tile = buffers.buffer (cur);
    fetch ();
    zero_sums<REG_NX, C, WEIGHTED> (plain, kca, wabs);
    sum ();
    report_nan ();
    finish ();
    store (claim);
  }
};

/* Two blocks of 512 an SM cap a thread at 64 registers, which the plain
 * kernels fit without spilling; reg_wide's take 80, three blocks of 256;
 * the weighted ones hold three sums an output and take up to 128.  (With
 * no minimum given, ptxas picked 40 for some of them, and spilled.) */
template <int C, int KW, bool WEIGHTED>
__global__ void __launch_bounds__ (reg_wide (C, KW, WEIGHTED) ? 256 : 512,
                                   WEIGHTED ? 1 : reg_wide (C, KW, WEIGHTED) ? 3 : 2)
conv_register (const __grid_constant__ ConvArgs a, const __grid_constant__ Walk w)
{
  extern __shared__ __align__ (128) float4 shared4[];   /* the tensor copy's alignment */

  /* As the tensor kernel's fallback, only where it found a sample it
   * cannot take (conv_tensor9). */
  if (w.redo && !*reinterpret_cast<volatile const unsigned *> (w.redo))
    return;
  RegisterBlock<C, KW, WEIGHTED> block (a, w, reinterpret_cast<float *> (shared4));

  walk_tiles (w, block.buffers, [&] (int b, int i) { block.load (b, i); },
              [&] (TilePos pos, int claim, int cur, const auto &fetch)
                { block.compute (pos, claim, cur, fetch); });
  block.buffers.finish_stores ();
  walk_done (w);
}

static size_t
tile_bytes (int bx, int by, int kw, int mask_height, int channels, bool weighted)
{
  return sizeof (float) * buffer_floats (tile_stride (bx * reg_nx (channels, kw, weighted) +
                                                     kw - 1, channels), by + mask_height - 1);
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
          cudaError_t err;

          cc_kernel_ran ("register tensor 9x9");
          cc_kernel_may_fall_back ();
          /* The FP32 kernel after it redoes the jobs it hands back. */
          if ((err = launch_tensor9 (a, d, stream)) != cudaSuccess)
            return err;
          return launch_class<C, 9, WEIGHTED> (a, d, stream, &a.claims->redo);
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
  return by_channels (a.channels, [&] (auto c)
    {
      return launch_channels<decltype (c)::value, false> (a, d, stream);
    });
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
    .reach_past = reach_past, .modules = MODULE_BIT (MODULE_REGISTER) };

extern const void *const cc_module_register = (const void *) conv_column<1, false>;
