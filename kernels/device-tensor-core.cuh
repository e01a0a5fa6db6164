/* The device toolkit's tensor cores: half-precision MMAs summing in FP32,
 * and their sums finished and stored.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_TENSOR_CORE_CUH
#define CC_DEVICE_TENSOR_CORE_CUH

#include <string.h>
#include <cuda_fp16.h>
#include "conv-args.cuh"
#include "device-finish.cuh"

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

#endif /* CC_DEVICE_TENSOR_CORE_CUH */
