/* The device toolkit's finish of an output pixel by channel mode, chosen
 * once a launch.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_FINISH_CUH
#define CC_DEVICE_FINISH_CUH

#include "conv-args.cuh"
#include "gpu-side.h"

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

#endif /* CC_DEVICE_FINISH_CUH */
