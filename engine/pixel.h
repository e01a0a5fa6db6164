/* Helpers shared by the CPU path, the gold and the CUDA kernels: border
 * mapping, the per-sample finishing formula and sample conversions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_PIXEL_H
#define CC_PIXEL_H

#include <math.h>
#include <stdint.h>

#include "convolve.h"

#ifdef __CUDACC__
#define CC_HD __host__ __device__ __forceinline__
#else
#define CC_HD static inline
#endif

/* Clamps to [0,1], NaN to 0, as fminf (fmaxf (v, 0), 1) does.  On the host
 * as comparisons, which stay inline and vectorise: without -ffast-math
 * fminf and fmaxf are library calls there. */
CC_HD float
cc_clamp01f (float v)
{
#ifdef __CUDA_ARCH__
  return fminf (fmaxf (v, 0.0f), 1.0f);
#else
  v = v > 0.0f ? v : 0.0f;
  return v < 1.0f ? v : 1.0f;
#endif
}

CC_HD double
cc_clamp01 (double v)
{
  v = v > 0.0 ? v : 0.0;
  return v < 1.0 ? v : 1.0;
}

/* How one channel is computed. */
enum
{
  CC_MODE_PLAIN = 0,   /* the plain formula */
  CC_MODE_WEIGHTED,    /* alpha-weighted colour */
  CC_MODE_COPY         /* copied from the source */
};

/* Maps coordinate i onto 0..n-1 by the border mode; -1 means "zero".
 * Written once for two widths: int64_t for the host's coordinates, and int
 * for the GPU's (cc_border_index32), where 64-bit remainders are subroutine
 * calls that cost every kernel reaching them registers.  The mirror, which
 * does not repeat the edge, has period 2(n - 1) and is symmetric about 0:
 * it folds i onto |i|, unsigned, as the period may pass the signed
 * maximum. */
#define CC_BORDER_INDEX(name, T, U)                             \
  CC_HD T                                                       \
  name (T i, T n, int border)                                   \
  {                                                             \
    if (i >= 0 && i < n)                                        \
      return i;                                                 \
    switch (border)                                             \
      {                                                         \
      case CC_BORDER_ZERO:                                      \
        return -1;                                              \
      case CC_BORDER_EXTEND:                                    \
        return i < 0 ? 0 : n - 1;                               \
      case CC_BORDER_WRAP:                                      \
        i %= n;                                                 \
        return i < 0 ? i + n : i;                               \
      default:                                                  \
        {                                                       \
          const U p = 2 * (U) (n - 1);                          \
          U m = i < 0 ? (U) 0 - (U) i : (U) i;                  \
                                                                \
          if (p == 0)                                           \
            return 0;                                           \
          m %= p;                                               \
          return (T) (m < (U) n ? m : p - m);                   \
        }                                                       \
      }                                                         \
  }

CC_BORDER_INDEX (cc_border_index, int64_t, uint64_t)
CC_BORDER_INDEX (cc_border_index32, int, unsigned)

/* The divisor, offset and clamping step; 'weighted' carries the alpha-weighted
 * sums, falling back to the plain sum where sum |k*a| is 0. */
CC_HD float
cc_finish (float plain, float inv_divisor, float offset, int clamp)
{
  float v = plain * inv_divisor + offset;
  return clamp ? cc_clamp01f (v) : v;
}

/* Written as selects, not a branch, so that the CPU path's loop over a row
 * vectorises. */
CC_HD float
cc_finish_weighted (float plain, float kca, float wabs, float sum_abs,
                    float inv_divisor, float offset, int clamp)
{
  const float weighted = kca * (sum_abs / (wabs != 0.0f ? wabs : 1.0f));

  return cc_finish (wabs != 0.0f ? weighted : plain, inv_divisor, offset, clamp);
}

/* IEEE half <-> float, round to nearest even (host side; CUDA has its own). */
CC_HD float
cc_half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h & 0x8000) << 16;
  uint32_t exp  = (h >> 10) & 0x1f;
  uint32_t man  = h & 0x3ff;
  uint32_t bits;
  union { uint32_t u; float f; } v;

  if (exp == 0x1f)
    bits = sign | 0x7f800000 | (man << 13);
  else if (exp != 0)
    bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0)
    bits = sign;
  else
    {
      /* Subnormal half: normalise. */
      exp = 113;
      while (!(man & 0x400))
        {
          man <<= 1;
          exp--;
        }
      bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
  v.u = bits;
  return v.f;
}

CC_HD uint16_t
cc_float_to_half (float f)
{
  union { float f; uint32_t u; } v;
  uint32_t sign, exp, man;

  v.f = f;
  sign = (v.u >> 16) & 0x8000;
  exp  = (v.u >> 23) & 0xff;
  man  = v.u & 0x7fffff;

  if (exp == 0xff)
    return (uint16_t) (sign | 0x7c00 | (man ? 0x200 : 0));
  if (exp > 142)                       /* >= 65520 after rounding: inf */
    return (uint16_t) (sign | 0x7c00);
  if (exp >= 113)                      /* normal half */
    {
      uint32_t h = ((exp - 112) << 10) | (man >> 13);
      uint32_t rest = man & 0x1fff;
      if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;                           /* may carry into the exponent: right */
      return (uint16_t) (sign | h);
    }
  if (exp >= 102)                      /* subnormal half */
    {
      uint32_t m = man | 0x800000;
      uint32_t shift = 126 - exp;
      uint32_t h = m >> shift;
      uint32_t rest = m & ((1u << shift) - 1);
      uint32_t half = 1u << (shift - 1);
      if (rest > half || (rest == half && (h & 1)))
        h++;
      return (uint16_t) (sign | h);
    }
  return (uint16_t) sign;
}

/* Integer samples map 0..max onto 0..1; going back they are clamped to the
 * type's range and rounded to nearest, as babl does. */
CC_HD uint8_t
cc_float_to_u8 (float v)
{
  return (uint8_t) (int32_t) (cc_clamp01f (v) * 255.0f + 0.5f);
}

CC_HD uint16_t
cc_float_to_u16 (float v)
{
  return (uint16_t) (int32_t) (cc_clamp01f (v) * 65535.0f + 0.5f);
}

CC_HD uint32_t
cc_double_to_u32 (double v)
{
  return (uint32_t) (cc_clamp01 (v) * 4294967295.0 + 0.5);
}

/* Linear light -> the nearest code of a perceptual encoding: the code
 * whose midpoints enclose v.  [0,1] is cut into 'buckets' equal buckets;
 * step b holds the count of midpoints at or below b / buckets (b to
 * buckets + 1), which is the code at the bucket's start, and the midpoint
 * above that code (+inf past the last), in one 8-byte load. */
typedef struct
{
  float   threshold;
  int32_t code;
} CcTransferStep;

/* Where no bucket holds more than one midpoint (8-bit sRGB and most
 * 8-bit curves), one comparison decides, without a branch. */
CC_HD int
cc_transfer_code_single (float v, const CcTransferStep *steps, int buckets)
{
  const float x = cc_clamp01f (v);
  const CcTransferStep s = steps[(int) (x * (float) buckets)];

  return s.code + (x >= s.threshold);
}

/* Any curve: the answer lies between v's bucket's code and the next one's;
 * a binary search takes the steep ends, where buckets hold several
 * midpoints.  NaN goes to 0, as when clamping. */
CC_HD int
cc_transfer_code (float v, const float *midpoints, const CcTransferStep *steps, int buckets)
{
  int b, lo, hi;

  v = cc_clamp01f (v);
  b = (int) (v * (float) buckets);
  lo = steps[b].code;
  hi = steps[b + 1].code;
  if (hi - lo <= 1)
    return lo + (v >= steps[b].threshold);
  while (lo < hi)
    {
      const int mid = (lo + hi) >> 1;

      if (v >= midpoints[mid])
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

#endif /* CC_PIXEL_H */
