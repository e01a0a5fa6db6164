/* Samples of any type to float and back on the device, with the same
 * rounding as the host (pixel.h), so both paths agree bit for bit; and
 * 8- and 16-bit codes of a perceptual encoding to linear light and back,
 * through the same tables as the host (samples.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "samples.cuh"

template <typename T>
__global__ void
to_float (const T *in, long long in_pitch, float *out, long long out_pitch,
          long long count, int rows)
{
  const long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;

  if (i >= count)
    return;
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    out[r * out_pitch + i] = to_f (in[r * in_pitch + i]);
}

template <typename T>
__global__ void
from_float (const float *in, long long in_pitch, T *out, long long out_pitch,
            long long count, int rows, const T *copy, long long copy_pitch,
            int channels, uchar4 mode)
{
  const long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
  const unsigned char m[4] = { mode.x, mode.y, mode.z, mode.w };
  bool copied;

  if (i >= count)
    return;
  copied = copy && m[i % channels] == CC_MODE_COPY;
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    if (copied)
      out[r * out_pitch + i] = copy[r * copy_pitch + i];
    else
      from_f (in[r * in_pitch + i], out + r * out_pitch + i);
}

static void
grid_for (long long count, int rows, dim3 *grid, dim3 *block)
{
  *block = dim3 (256);
  *grid = dim3 ((unsigned) ((count + 255) / 256), rows < 65535 ? rows : 65535);
}

template <typename T>
static cudaError_t
launch_to (const void *in, long long in_pitch, float *out, long long out_pitch,
           long long count, int rows, cudaStream_t stream)
{
  dim3 grid, block;

  grid_for (count, rows, &grid, &block);
  to_float<T><<<grid, block, 0, stream>>> ((const T *) in, in_pitch, out, out_pitch,
                                           count, rows);
  return cudaGetLastError ();
}

template <typename T>
static cudaError_t
launch_from (const float *in, long long in_pitch, void *out, long long out_pitch,
             long long count, int rows, const void *copy, long long copy_pitch,
             int channels, const unsigned char *mode, cudaStream_t stream)
{
  dim3 grid, block;

  grid_for (count, rows, &grid, &block);
  from_float<T><<<grid, block, 0, stream>>> (in, in_pitch, (T *) out, out_pitch, count,
                                             rows, (const T *) copy, copy_pitch, channels,
                                             make_uchar4 (mode[0], mode[1], mode[2], mode[3]));
  return cudaGetLastError ();
}

cudaError_t
cc_convert_to_float (CcType type, const void *in, long long in_pitch, float *out,
                     long long out_pitch, long long count, int rows, cudaStream_t stream)
{
  switch (type)
    {
    case CC_TYPE_U8:    return launch_to<uint8_t>  (in, in_pitch, out, out_pitch, count, rows, stream);
    case CC_TYPE_U16:   return launch_to<uint16_t> (in, in_pitch, out, out_pitch, count, rows, stream);
    case CC_TYPE_U32:   return launch_to<uint32_t> (in, in_pitch, out, out_pitch, count, rows, stream);
    case CC_TYPE_HALF:  return launch_to<Half>     (in, in_pitch, out, out_pitch, count, rows, stream);
    case CC_TYPE_FLOAT: return launch_to<float>    (in, in_pitch, out, out_pitch, count, rows, stream);
    case CC_TYPE_DOUBLE: return launch_to<double>  (in, in_pitch, out, out_pitch, count, rows, stream);
    default:            return cudaErrorInvalidValue;
    }
}

cudaError_t
cc_convert_from_float (CcType type, const float *in, long long in_pitch, void *out,
                       long long out_pitch, long long count, int rows,
                       const void *copy, long long copy_pitch, int channels,
                       const unsigned char *mode, cudaStream_t stream)
{
#define FROM(T) launch_from<T> (in, in_pitch, out, out_pitch, count, rows, copy, \
                                copy_pitch, channels, mode, stream)
  switch (type)
    {
    case CC_TYPE_U8:     return FROM (uint8_t);
    case CC_TYPE_U16:    return FROM (uint16_t);
    case CC_TYPE_U32:    return FROM (uint32_t);
    case CC_TYPE_HALF:   return FROM (Half);
    case CC_TYPE_FLOAT:  return FROM (float);
    case CC_TYPE_DOUBLE: return FROM (double);
    default:             return cudaErrorInvalidValue;
    }
#undef FROM
}

/* The curve a sample takes, or -1 for one that is not colour (alpha). */
__device__ __forceinline__ int
curve_of (const DevTransfer &t, long long i, int channels)
{
  const int c = (int) (i % channels);

  return c >= t.colour ? -1 : transfer_curve (t, c);
}

template <typename T>
__global__ void
to_linear (const T *in, long long in_pitch, float *out, long long out_pitch,
           long long count, int rows, int channels, DevTransfer t)
{
  const long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
  int k;

  if (i >= count)
    return;
  k = curve_of (t, i, channels);
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    {
      const T v = in[r * in_pitch + i];

      out[r * out_pitch + i] = k < 0 ? to_f (v) : code_to_linear (t, k, v);
    }
}

template <typename T>
__global__ void
from_linear (const float *in, long long in_pitch, T *out, long long out_pitch,
             long long count, int rows, const T *copy, long long copy_pitch,
             int channels, uchar4 mode, DevTransfer t)
{
  const long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
  const unsigned char m[4] = { mode.x, mode.y, mode.z, mode.w };
  bool copied;
  int k;

  if (i >= count)
    return;
  copied = copy && m[i % channels] == CC_MODE_COPY;
  k = curve_of (t, i, channels);
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    if (copied)
      out[r * out_pitch + i] = copy[r * copy_pitch + i];
    else if (k < 0)
      from_f (in[r * in_pitch + i], out + r * out_pitch + i);
    else
      out[r * out_pitch + i] = linear_to_code<T> (t, k, in[r * in_pitch + i]);
}

cudaError_t
cc_convert_to_linear (CcType type, const void *in, long long in_pitch, float *out,
                      long long out_pitch, long long count, int rows, int channels,
                      const DevTransfer &t, cudaStream_t stream)
{
  dim3 grid, block;

  grid_for (count, rows, &grid, &block);
  if (type == CC_TYPE_U8)
    to_linear<uint8_t><<<grid, block, 0, stream>>> ((const uint8_t *) in, in_pitch, out,
                                                    out_pitch, count, rows, channels, t);
  else if (type == CC_TYPE_U16)
    to_linear<uint16_t><<<grid, block, 0, stream>>> ((const uint16_t *) in, in_pitch, out,
                                                     out_pitch, count, rows, channels, t);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError ();
}

cudaError_t
cc_convert_from_linear (CcType type, const float *in, long long in_pitch, void *out,
                        long long out_pitch, long long count, int rows,
                        const void *copy, long long copy_pitch, int channels,
                        const unsigned char *mode, const DevTransfer &t,
                        cudaStream_t stream)
{
  const uchar4 m = make_uchar4 (mode[0], mode[1], mode[2], mode[3]);
  dim3 grid, block;

  grid_for (count, rows, &grid, &block);
  if (type == CC_TYPE_U8)
    from_linear<uint8_t><<<grid, block, 0, stream>>> (in, in_pitch, (uint8_t *) out,
                                                      out_pitch, count, rows,
                                                      (const uint8_t *) copy, copy_pitch,
                                                      channels, m, t);
  else if (type == CC_TYPE_U16)
    from_linear<uint16_t><<<grid, block, 0, stream>>> (in, in_pitch, (uint16_t *) out,
                                                       out_pitch, count, rows,
                                                       (const uint16_t *) copy, copy_pitch,
                                                       channels, m, t);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError ();
}

/* Loads this module where the driver compiles it (device.cu). */
extern const void *const cc_module_convert = (const void *) to_float<float>;
