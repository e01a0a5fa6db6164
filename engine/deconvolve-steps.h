/* Richardson–Lucy's point-wise steps, one copy for the CPU (deconvolve.c)
 * and the GPU (kernels/deconvolve.cu).  Planes hold 'K' interleaved floats
 * a pixel, w x h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DECONVOLVE_STEPS_H
#define CC_DECONVOLVE_STEPS_H

#include "pixel.h"

/* What Richardson–Lucy adds to the blurred estimate before dividing by it,
 * as scikit-image does: a pixel the estimate leaves dark divides by it, not
 * by 0. */
#define CC_RL_EPSILON 1e-12f
/* What total variation adds to a gradient's length (the 0..1 scale): a
 * flat region's unit gradients then shrink smoothly to 0 instead of
 * flipping with the rounding of the last bit, which the GPU's and the
 * CPU's convolutions do not share.  1e-4 flipped them: the two paths ended
 * 8e-3 apart after 10 iterations; this restores as well (within 0.1 dB on
 * astronaut, disc and motion, 30 and 100 iterations). */
#define CC_TV_EPSILON 1e-2f

/* observed / (blurred + epsilon); 0 where the estimate blurs to nothing
 * (or, by rounding, below it). */
CC_HD float
cc_rl_quotient (float observed, float blurred)
{
  const float c = blurred + CC_RL_EPSILON, q = observed / c;

  return c > 0.0f && isfinite (q) ? q : 0.0f;
}

/* The normalised gradient of channel k at (x, y), by forward differences,
 * 0 past the last row and column. */
CC_HD void
cc_tv_unit_gradient (const float *u, int64_t w, int64_t h, int K, int64_t x, int64_t y, int k,
                     float *px, float *py)
{
  const float *p = u + (y * w + x) * K + k;
  const float dx = x + 1 < w ? p[K] - p[0] : 0.0f;
  const float dy = y + 1 < h ? p[w * K] - p[0] : 0.0f;
  const float length = sqrtf (dx * dx + dy * dy + CC_TV_EPSILON * CC_TV_EPSILON);

  *px = dx / length;
  *py = dy / length;
}

/* 1 - weight div (grad u / |grad u|), the divergence by backward
 * differences (Dey et al. 2006); at or above 1 - 4 weight. */
CC_HD float
cc_tv_denominator (const float *u, int64_t w, int64_t h, int K, int64_t x, int64_t y, int k,
                   float weight)
{
  float px, py, lx = 0.0f, ly = 0.0f, unused;

  cc_tv_unit_gradient (u, w, h, K, x, y, k, &px, &py);
  if (x > 0)
    cc_tv_unit_gradient (u, w, h, K, x - 1, y, k, &lx, &unused);
  if (y > 0)
    cc_tv_unit_gradient (u, w, h, K, x, y - 1, k, &unused, &ly);
  return 1.0f - weight * (px - lx + py - ly);
}

#endif /* CC_DECONVOLVE_STEPS_H */
