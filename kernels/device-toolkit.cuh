/* The device toolkit: what several kernel families use, written once:
 * shared-memory helpers, the bulk-copy engine's PTX and mbarriers (sm_90
 * and up), a pixel's finish by channel mode, half-precision tensor-core
 * MMAs summing in FP32, tensor maps, the source read with its borders and
 * conv_pixel, and a band of rows staged in shared memory.  Every asm of
 * kernels/ is here; it includes no host header (conv-args.cuh's types).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_TOOLKIT_CUH
#define CC_DEVICE_TOOLKIT_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cudaTypedefs.h>

#include "conv-args.cuh"
#include "pixel.h"

/* ---- Shared memory ---- */

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

/* ---- The bulk-copy engine ---- */

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

/* The same for two mbarriers (a double buffer's), under one fence: a
 * second fence changed ptxas's register allocation of several kernels. */
__device__ __forceinline__ void
mbarrier_init_pair (unsigned long long *bar)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar)));
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar + 1)));
  asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Orders this thread's earlier ordinary accesses to shared memory before
 * the bulk-copy engine's writes there. */
__device__ __forceinline__ void
async_proxy_fence ()
{
  asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
}

/* The arrival that opens a phase of 'bar' (a shared address) completed by
 * copies of 'bytes' in all. */
__device__ __forceinline__ void
mbarrier_expect_bytes (unsigned bar, int bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                :: "r" (bar), "r" (bytes) : "memory");
}

/* An arrival with no copy: completes a phase of 'bar' (a shared address). */
__device__ __forceinline__ void
mbarrier_arrive (unsigned bar)
{
  asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r" (bar) : "memory");
}

/* 'bytes' (a multiple of 16) from global 'src' to shared address 'dst' by
 * the bulk-copy engine, completing on 'bar' (a shared address). */
__device__ __forceinline__ void
bulk_copy (unsigned dst, const void *src, int bytes, unsigned bar)
{
  asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                " [%0], [%1], %2, [%3];"
                :: "r" (dst), "l" (src), "r" (bytes), "r" (bar) : "memory");
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

/* Until 'bar' completes the phase whose parity is bit 'bit' of 'phases',
 * then flips that bit for the barrier's next phase: double buffers keep
 * each barrier's parity in one word. */
__device__ __forceinline__ void
mbarrier_wait_flip (unsigned long long *bar, unsigned &phases, int bit)
{
  mbarrier_wait (bar, phases >> bit & 1);
  phases ^= 1u << bit;
}

/* By one thread: the box of 'map' at element (x, y) into 'dst' (128-byte
 * aligned), by the bulk-copy engine, completing a phase of 'bar' when its
 * 'bytes' have landed.  The fence orders the block's earlier accesses to
 * 'dst', ordinary ones, before the engine's writes. */
__device__ __forceinline__ void
tensor_load (void *dst, const CUtensorMap *map, int x, int y, unsigned long long *bar, int bytes)
{
  async_proxy_fence ();
  mbarrier_expect_bytes (shared_address (bar), bytes);
  asm volatile ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                :: "r" (shared_address (dst)), "l" (map), "r" (x), "r" (y),
                   "r" (shared_address (bar))
                : "memory");
}

/* By one thread: 'src' (128-byte aligned shared memory) to the box of
 * 'map' at element (x, y) by the bulk-copy engine, waiting until the
 * engine has read 'src' (not until the global writes land). */
__device__ __forceinline__ void
bulk_store_box (const CUtensorMap *map, int x, int y, const void *src)
{
  asm volatile ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                :: "l" (map), "r" (x), "r" (y), "r" (shared_address (src))
                : "memory");
  asm volatile ("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile ("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/* By the thread that issued them: until its tensor stores have landed. */
__device__ __forceinline__ void
bulk_stores_wait ()
{
  asm volatile ("cp.async.bulk.wait_group 0;" ::: "memory");
}
#endif

/* Until buffer b of a double buffer has landed for this thread: its own
 * cp.async groups but the last 'groups', and where the bulk-copy engine
 * is, the phase of mbarrier bars[b] whose parity is bit b of 'phases'.
 * Other threads' cp.async copies are seen only after a block barrier. */
__device__ __forceinline__ void
wait_buffer (unsigned long long *bars, unsigned &phases, int b, int groups)
{
  __pipeline_wait_prior (groups);
#if BULK_COPY
  mbarrier_wait_flip (bars + b, phases, b);
#endif
}

/* Four floats to global 'to' (16-byte aligned) where 'inside' is not 0,
 * by a predicated store: no branch around it for the compiler to schedule. */
__device__ __forceinline__ void
store4_if (int inside, float *to, float x, float y, float z, float w)
{
  asm ("{ .reg .pred p; setp.ne.b32 p, %0, 0;"
       " @p st.global.v4.f32 [%1], {%2, %3, %4, %5}; }"
       :: "r" (inside), "l" (to), "f" (x), "f" (y), "f" (z), "f" (w));
}

/* ---- Finishing an output pixel ---- */

/* How a kernel finishes its pixels, chosen once a launch, not per sample
 * (a choice per sample had taken more issue slots than all but the FMAs):
 * plain sums, unclamped or clamped (one FMA a sample, saturating where
 * clamped), or by each channel's mode (finish_store). */
enum Finish { FINISH_PLAIN, FINISH_PLAIN_CLAMPED, FINISH_BY_MODE };

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

/* The sums of N outputs, C channels each, at zero: the plain sums and,
 * where WEIGHTED, the alpha-weighted ones and the weights' sum |k a|. */
template <int N, int C, bool WEIGHTED>
__device__ __forceinline__ void
zero_sums (float (&plain)[N][C], float (&kca)[WEIGHTED ? N : 1][C], float (&wabs)[N])
{
#pragma unroll
  for (int n = 0; n < N; n++)
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

/* A pixel finished by the plain formula from its sums, still scaled:
 * 'inv' is the divisor's inverse with the scale undone (both powers of two
 * apart, so the same result as unscaling first); cc_finish, the clamp as
 * the FMA's saturation (a NaN to 0 as there). */
template <int FINISH>
__device__ __forceinline__ float4
tensor_finish_plain (float4 s, float inv, float offset)
{
  const auto finish = [&] (float v)
  {
    v = fmaf (v, inv, offset);
    return FINISH == FINISH_PLAIN_CLAMPED ? __saturatef (v) : v;
  };

  return make_float4 (finish (s.x), finish (s.y), finish (s.z), finish (s.w));
}

/* Output pixel x of output row y from its sums, still scaled ('inv' as
 * for tensor_finish_plain). */
template <int FINISH>
__device__ __forceinline__ void
tensor_store (const ConvArgs &a, float4 s, float inv, float unscale, int x, int y, float *out)
{
  if (FINISH == FINISH_BY_MODE)
    {
      const float sums[4] = { s.x * unscale, s.y * unscale, s.z * unscale, s.w * unscale };

      finish_store<4, false> (a, false, sums, sums, 0.0f,
                              a.src.data + (a.out_y + y) * a.src.pitch +
                                (long long) (a.out_x + x) * 4, out);
    }
  else
    *reinterpret_cast<float4 *> (out) = tensor_finish_plain<FINISH> (s, inv, a.offset);
}

/* How a tensor kernel finishes job 'a''s pixels (plain_only, and output
 * rows a float4 store takes). */
static inline int
tensor_finish (const ConvArgs &a)
{
  bool plain = !a.accumulate && (uintptr_t) a.dst.data % 16 == 0 && a.dst.pitch % 4 == 0;

  for (int c = 0; c < 4; c++)
    plain = plain && a.mode[c] == CC_MODE_PLAIN;
  return !plain ? FINISH_BY_MODE : a.clamp ? FINISH_PLAIN_CLAMPED : FINISH_PLAIN;
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

/* ---- Tensor maps ---- */

/* The driver's tensor-map encoder, through the runtime: no link to the
 * driver library. */
static inline PFN_cuTensorMapEncodeTiled_v12000
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
static inline bool
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

/* ---- Reading the source image and summing a pixel ---- */

template <int C>
__device__ __forceinline__ void
load_pixel (const float *p, float v[C], bool vec4)
{
  if (C == 4 && vec4)
    {
      const float4 q = __ldg (reinterpret_cast<const float4 *> (p));
      v[0] = q.x; v[1] = q.y; v[2] = q.z; v[C - 1] = q.w;
    }
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = __ldg (p + c);
}

/* One source row in global memory, its border resolved once; only taps
 * outside the row pay for the border rule across. */
template <int C>
struct GlobalRow
{
  const ConvArgs &a;
  const float    *p;   /* NULL: a ghost row of zeros */

  __device__ bool present () const { return p != NULL; }
  __device__ void operator() (int x, float v[C]) const
  {
    if ((unsigned) x >= (unsigned) a.src.width)
      {
        x = cc_border_index32 (x, a.src.width, a.border_x);
        if (x < 0)
          {
#pragma unroll
            for (int c = 0; c < C; c++)
              v[c] = 0.0f;
            return;
          }
      }
    load_pixel<C> (p + x * C, v, a.vec4);
  }
};

/* Where pixel x of a row is, border resolved; NULL for a zero ghost pixel. */
template <int C>
__device__ __forceinline__ const float *
pixel_address (const GlobalRow<C> &row, int x)
{
  if (!row.p)
    return NULL;
  if ((unsigned) x >= (unsigned) row.a.src.width)
    {
      x = cc_border_index32 (x, row.a.src.width, row.a.border_x);
      if (x < 0)
        return NULL;
    }
  return row.p + x * C;
}

template <int C>
__device__ __forceinline__ GlobalRow<C>
global_row (const ConvArgs &a, int y)
{
  if ((unsigned) y >= (unsigned) a.src.height)
    {
      y = cc_border_index32 (y, a.src.height, a.border_y);
      if (y < 0)
        return GlobalRow<C> { a, NULL };
    }
  return GlobalRow<C> { a, a.src.data + y * a.src.pitch };
}

/* Taps read from the mask in global memory, and a source read from global
 * memory row by row, border resolved: the basic method's, and what the
 * kernels that recompute a pixel exactly read. */
struct GlobalTaps
{
  const float *m;
  __device__ float operator() (int t) const { return __ldg (m + t); }
};

template <int C>
struct GlobalSource
{
  const ConvArgs &a;
  __device__ GlobalRow<C> row (int y) const { return global_row<C> (a, y); }
};

/* One output pixel, all channels, at source position (x, y): the loop every
 * textbook method shares; they differ in where taps and rows come from
 * ('source.row (y)' gives an accessor of that row's pixels).  Alpha, when
 * there is one, is the last channel. */
template <int C, class Taps, class Source>
__device__ __forceinline__ void
conv_pixel (const ConvArgs &a, const Taps &taps, const Source &source, int x, int y,
            float *out)
{
  const int w = a.mask_width, h = a.mask_height;
  const int x0 = x - (w - 1) / 2, y0 = y - (h - 1) / 2;
  float plain[C], kca[C], wabs = 0.0f, v[C];

#pragma unroll
  for (int c = 0; c < C; c++)
    plain[c] = kca[c] = 0.0f;
  for (int j = 0; j < h; j++)
    {
      const auto row = source.row (y0 + j);

      if (!row.present ())
        continue;   /* zero border: adds nothing */
      if (!a.weighted)
        for (int i = 0; i < w; i++)
          {
            const float k = taps (j * w + i);

            row (x0 + i, v);
#pragma unroll
            for (int c = 0; c < C; c++)
              plain[c] += k * v[c];
          }
      else
        for (int i = 0; i < w; i++)
          {
            const float k = taps (j * w + i);

            row (x0 + i, v);
            const float ka = k * v[C - 1];
#pragma unroll
            for (int c = 0; c < C; c++)
              {
                plain[c] += k * v[c];
                kca[c] += ka * v[c];
              }
            wabs += fabsf (ka);
          }
    }

  source.row (y) (x, v);   /* the centre, for copied channels */
#pragma unroll
  for (int c = 0; c < C; c++)
    {
      const int mode = a.mode[c];

      out[c] = mode == CC_MODE_COPY ? v[c]
             : mode == CC_MODE_WEIGHTED
               ? cc_finish_weighted (plain[c], kca[c], wabs, a.sum_abs, a.inv_divisor,
                                     a.offset, a.clamp)
               : cc_finish (plain[c], a.inv_divisor, a.offset, a.clamp);
    }
}

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

#endif /* CC_DEVICE_TOOLKIT_CUH */
