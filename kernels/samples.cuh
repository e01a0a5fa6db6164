/* A sample of each type the engine takes, to float and back on the device
 * with the host's rounding (pixel.h), and a colour code to linear light and
 * back through a transfer's tables (DevTransfer): what the conversions
 * (convert-kernels.cu) and deconvolution's reading and writing of its
 * source (deconvolve.cu) share, so that both agree with the host bit for
 * bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SAMPLES_CUH
#define CC_SAMPLES_CUH

#include "launchers.cuh"

struct Half { uint16_t bits; };

__device__ __forceinline__ float to_f (uint8_t v)  { return v * (1.0f / 255.0f); }
__device__ __forceinline__ float to_f (uint16_t v) { return v * (1.0f / 65535.0f); }
__device__ __forceinline__ float to_f (uint32_t v) { return (float) (v / 4294967295.0); }
__device__ __forceinline__ float to_f (Half v)     { return cc_half_to_float (v.bits); }
__device__ __forceinline__ float to_f (float v)    { return v; }
__device__ __forceinline__ float to_f (double v)   { return (float) v; }

__device__ __forceinline__ void from_f (float v, uint8_t *o)  { *o = cc_float_to_u8 (v); }
__device__ __forceinline__ void from_f (float v, uint16_t *o) { *o = cc_float_to_u16 (v); }
__device__ __forceinline__ void from_f (float v, uint32_t *o) { *o = cc_double_to_u32 (v); }
__device__ __forceinline__ void from_f (float v, Half *o)     { o->bits = cc_float_to_half (v); }
__device__ __forceinline__ void from_f (float v, float *o)    { *o = v; }
__device__ __forceinline__ void from_f (float v, double *o)   { *o = v; }

/* The sample types a transfer's tables take. */
template <typename T>
constexpr bool has_codes = std::is_same<T, uint8_t>::value || std::is_same<T, uint16_t>::value;

/* The curve colour channel c takes. */
__device__ __forceinline__ int
transfer_curve (const DevTransfer &t, int c)
{
  return t.curves == 1 ? 0 : c;
}

/* Code v of curve k in linear light, and linear light v as a code of curve
 * k, rounded in the encoding (u8 and u16 only). */
template <typename T>
__device__ __forceinline__ float
code_to_linear (const DevTransfer &t, int k, T v)
{
  return t.to_linear[k * t.codes + v];
}

template <typename T>
__device__ __forceinline__ T
linear_to_code (const DevTransfer &t, int k, float v)
{
  if (t.single)
    return (T) cc_transfer_code_single (v, t.steps + k * (t.buckets + 2), t.buckets);
  return (T) cc_transfer_code (v, t.midpoints + k * t.codes, t.steps + k * (t.buckets + 2),
                               t.buckets);
}

/* Calls f with a value of the sample type 'type' names, for launchers that
 * take every type: f uses only its type. */
template <typename F>
static void
by_sample_type (CcType type, F f)
{
  switch (type)
    {
    case CC_TYPE_U8:    f (uint8_t ()); break;
    case CC_TYPE_U16:   f (uint16_t ()); break;
    case CC_TYPE_U32:   f (uint32_t ()); break;
    case CC_TYPE_HALF:  f (Half ()); break;
    case CC_TYPE_FLOAT: f (float ()); break;
    default:            f (double ()); break;
    }
}

#endif /* CC_SAMPLES_CUH */
