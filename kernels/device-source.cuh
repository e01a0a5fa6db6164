/* The device toolkit's reading of the source with its borders, and
 * conv_pixel, the definition's sum for one output.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_SOURCE_CUH
#define CC_DEVICE_SOURCE_CUH

#include "conv-args.cuh"
#include "device-finish.cuh"
#include "device-shared.cuh"

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

#endif /* CC_DEVICE_SOURCE_CUH */
