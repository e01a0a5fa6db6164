/* The blur's estimate on the GPU against the CPU's, part of test-gpu: on a
 * photograph blurred by a disc, a Gaussian and a motion line (mirror
 * border, 1% noise), the GPU's search (CcResult.kernel says "gpu
 * estimate") finds the shape the CPU's does, its radius within a quarter
 * pixel and its angle within a degree, both within issue 63's bounds
 * ('reduced', for the sanitizers: the disc alone, searched as a disc).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int
check_estimate_gpu (CcContext *ctx, bool reduced)
{
  static const CcShapeSpec blurs[] = {
    { CC_SHAPE_DISC, 6.0, 0, 6, 0 },
    { CC_SHAPE_GAUSSIAN, 4.0, 0, 6, 0 },
    { CC_SHAPE_MOTION, 10.0, 50, 6, 0 },
  };
  const int before = check_failures;
  int64_t w = 0, h = 0;
  float *sharp = check_read_photo ("astronaut", &w, &h);
  float *blurred = sharp ? malloc (sizeof (float) * w * h * 3) : NULL;
  const CcImage in = { sharp, CC_TYPE_FLOAT, 3, w, h, w * 12, false };
  const CcImage b = { blurred, CC_TYPE_FLOAT, 3, w, h, w * 12, false };

  CHECK (sharp && blurred, "data/photo-astronaut.ppm read");
  for (size_t k = 0; sharp && blurred && k < (reduced ? 1 : sizeof blurs / sizeof blurs[0]); k++)
    {
      const CcShapeSpec *t = &blurs[k];
      CcBlurEstimate g, c;
      CcOptions o;
      CcResult rg, rc;
      CcStatus sg, sc;
      double da;

      CHECK (check_blur_noisy (ctx, &in, t, blurred, 300 + k), "blur");
      cc_options_init (&o);
      sg = cc_estimate_blur (ctx, &b, NULL, reduced ? t->shape : CC_SHAPE_MATRIX, &o, &g, &rg);
      o.method = CC_METHOD_CPU;
      sc = cc_estimate_blur (ctx, &b, NULL, reduced ? t->shape : CC_SHAPE_MATRIX, &o, &c, &rc);
      da = fmod (fabs (g.angle - c.angle), 180.0);
      CHECK (sg == CC_OK && sc == CC_OK && strcmp (rg.kernel, "gpu estimate") == 0 &&
             g.shape == t->shape && c.shape == t->shape && fabs (g.radius - c.radius) <= 0.25 &&
             fmin (da, 180.0 - da) <= 1.0 && fabs (g.radius - t->radius) <= 0.2 * t->radius,
             "estimate of a %s of radius %g at %g degrees: GPU %s %g at %g (%s, '%s'), CPU %s "
             "%g at %g (%s)", cc_shape_name (t->shape), t->radius, t->angle,
             cc_shape_name (g.shape), g.radius, g.angle, rg.kernel, rg.message,
             cc_shape_name (c.shape), c.radius, c.angle, rc.message);
      printf ("estimate: %-8s r %5.2f a %5.1f: GPU %-8s r %5.2f a %5.1f (%.2f) %6.1f ms, "
              "CPU %-8s r %5.2f a %5.1f (%.2f) %7.1f ms\n", cc_shape_name (t->shape), t->radius,
              t->angle, cc_shape_name (g.shape), g.radius, g.angle, g.confidence, rg.total_ms,
              cc_shape_name (c.shape), c.radius, c.angle, c.confidence, rc.total_ms);
    }
  free (sharp);
  free (blurred);
  return check_failures - before;
}
