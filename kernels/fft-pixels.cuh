/* fft's fifth room: a strip's pixels into the tiles' planes (fft_pad) and
 * out of them (fft_finish, and fft_exact for the pixels alpha weighting
 * leaves), with their launcher.  Included by fft.cu only (one module).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FFT_PIXELS_CUH
#define CC_FFT_PIXELS_CUH

#include "device-toolkit.cuh"
#include "fft-tiles.cuh"

/* Each tile's transform input: its output rectangle plus the halo, border
 * resolved; one thread a column of the tiles laid side by side. */
template <int C>
__global__ void
fft_pad (const __grid_constant__ ConvArgs a, float *planes, Shape s)
{
  const int gx = blockIdx.x * blockDim.x + threadIdx.x;
  const int tx = gx / s.pitch, u = gx % s.pitch;

  if (tx >= s.x.tiles)
    return;
  for (int gy = blockIdx.y; gy < s.y.tiles * s.y.t; gy += gridDim.y)
    {
      const int ty = gy / s.y.t, v = gy % s.y.t;
      const GlobalRow<C> row = global_row<C> (a, a.out_y - (a.mask_height - 1) / 2 +
                                                 ty * s.y.s + v);
      float *p = planes + (size_t) (ty * s.x.tiles + tx) * s.per_tile * s.plane +
                 (size_t) v * s.pitch + u;
      float val[C];
      bool odd = false;

      if (row.present () && u < s.x.t)
        row (a.out_x - (a.mask_width - 1) / 2 + tx * s.x.s + u, val);
      else
#pragma unroll
        for (int c = 0; c < C; c++)
          val[c] = 0.0f;
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          if (!s.weighted || c == C - 1)
            p[c * s.plane] = val[c];
          else
            {
              p[c * s.plane] = val[c] * val[C - 1];
              p[(C + c) * s.plane] = val[c];
            }
          odd = odd || (!isfinite (val[c]) && a.mode[c] != CC_MODE_COPY);
        }
      if (s.weighted)
        p[(2 * C - 1) * s.plane] = fabsf (val[C - 1]);
      /* The transform spreads an infinity or a NaN over its whole plane. */
      if (odd && a.nan)
        a.nan->seen = 1;
    }
}

/* Each output from its tile's planes.  With alpha weighting, colour by the
 * weight (WEIGHT_QUOTIENT, WEIGHT_NOUGHT); a pixel between the two is
 * listed in 'exact' (a count, then indices) for fft_exact. */
template <int C>
__global__ void
fft_finish (const __grid_constant__ ConvArgs a, const float *planes, Shape s, int copies,
            unsigned *exact)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int tx = x / s.x.s, u = x % s.x.s;

  if (x >= a.dst.width)
    return;
  for (int y = blockIdx.y; y < a.dst.height; y += gridDim.y)
    {
      const int ty = y / s.y.s, v = y % s.y.s;
      const float *p = planes + (size_t) (ty * s.x.tiles + tx) * s.per_tile * s.plane +
                       (size_t) v * s.pitch + u;
      float *out = a.dst.data + y * a.dst.pitch + (long long) x * C;
      float val[C], centre[C];
      bool redo = false;

      if (copies)
        global_row<C> (a, a.out_y + y) (a.out_x + x, centre);
      if (!s.weighted)
#pragma unroll
        for (int c = 0; c < C; c++)
          val[c] = copies && a.mode[c] == CC_MODE_COPY
                   ? centre[c] : cc_finish (p[c * s.plane], 1.0f, a.offset, a.clamp);
      else
        {
          const float weight = p[(2 * C - 1) * s.plane];
          const float share = a.sum_abs > 0.0f ? weight / a.sum_abs : 0.0f;

#pragma unroll
          for (int c = 0; c < C; c++)
            {
              const int mode = a.mode[c];
              float sum = p[c * s.plane];

              if (mode == CC_MODE_COPY)
                {
                  val[c] = centre[c];
                  continue;
                }
              if (c < C - 1 && (mode != CC_MODE_WEIGHTED || share <= WEIGHT_NOUGHT))
                sum = p[(C + c) * s.plane];
              else if (c < C - 1 && share > WEIGHT_QUOTIENT)
                sum *= a.sum_abs / weight;
              else if (c < C - 1)
                redo = true;
              val[c] = cc_finish (sum, a.inv_divisor, a.offset, a.clamp);
            }
        }
      if (a.follow != CC_FOLLOW_NONE)
        {
          const float *with = a.with + y * a.dst.pitch + (long long) x * C;

#pragma unroll
          for (int c = 0; c < C; c++)
            val[c] = a.follow == CC_FOLLOW_QUOTIENT ? cc_rl_quotient (with[c], val[c])
                                                    : with[c] * val[c];
        }
      if (redo)
        exact[1 + atomicAdd (exact, 1u)] = (unsigned) y * a.dst.width + x;
      if (C == 4 && a.dst.pitch % 4 == 0)
        *reinterpret_cast<float4 *> (out) = make_float4 (val[0], val[1], val[2], val[C - 1]);
      else
#pragma unroll
        for (int c = 0; c < C; c++)
          out[c] = val[c];
    }
}

/* The pixels fft_finish listed, each the definition's sum over the mask in
 * global memory, as the basic method computes it. */
template <int C>
__global__ void
fft_exact (const __grid_constant__ ConvArgs a, const unsigned *exact)
{
  const unsigned n = exact[0];

  if (n && blockIdx.x == 0 && threadIdx.x == 0)
    a.claims->ran.fft_exact++;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    {
      const unsigned at = exact[1 + i];
      const int x = (int) (at % (unsigned) a.dst.width), y = (int) (at / (unsigned) a.dst.width);

      conv_pixel<C> (a, GlobalTaps { a.mask }, GlobalSource<C> { a }, a.out_x + x,
                     a.out_y + y, a.dst.data + y * a.dst.pitch + (long long) x * C);
    }
}

template <int C>
static void
launch_pad_finish (const ConvArgs &a, float *planes, Shape s, bool finish, int copies,
                   unsigned *exact, cudaStream_t stream)
{
  const int w = finish ? a.dst.width : s.x.tiles * s.pitch;
  const int h = finish ? a.dst.height : s.y.tiles * s.y.t;
  const dim3 block (256), grid ((w + 255) / 256, h < 65535 ? h : 65535);

  if (!finish)
    fft_pad<C><<<grid, block, 0, stream>>> (a, planes, s);
  else
    {
      fft_finish<C><<<grid, block, 0, stream>>> (a, planes, s, copies, exact);
      /* Few pixels if any: a fixed grid reads the count. */
      if (exact)
        fft_exact<C><<<256, 128, 0, stream>>> (a, exact);
    }
}

static void
pad_finish (const ConvArgs &a, float *planes, Shape s, bool finish, unsigned *exact,
            cudaStream_t stream)
{
  int copies = 0;

  for (int c = 0; c < a.channels; c++)
    copies |= a.mode[c] == CC_MODE_COPY;
  switch (a.channels)
    {
    case 1: launch_pad_finish<1> (a, planes, s, finish, copies, exact, stream); break;
    case 2: launch_pad_finish<2> (a, planes, s, finish, copies, exact, stream); break;
    case 3: launch_pad_finish<3> (a, planes, s, finish, copies, exact, stream); break;
    default: launch_pad_finish<4> (a, planes, s, finish, copies, exact, stream); break;
    }
}

#endif /* CC_FFT_PIXELS_CUH */
