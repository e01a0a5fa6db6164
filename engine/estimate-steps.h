/* The blur estimate's fit, one copy for the CPU (estimate.c) and the GPU
 * (kernels/estimate.cu): the Whittle likelihood of a candidate's model
 * m = A u + noise for the periodogram P, fitted by iteratively reweighted
 * least squares (weights 1 / m^2, the first m the data).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_ESTIMATE_STEPS_H
#define CC_ESTIMATE_STEPS_H

#include "pixel.h"

/* Iterations of the weighted fit of the scale A and the noise. */
#define CC_ESTIMATE_FIT_STEPS 6

/* The sums of a step at one frequency: u (the mask's smoothed |H|^2 times
 * rho^-alpha) and P, with the model of the last step (A, noise; step 0:
 * P itself), added into s[5]: w u u, w u, w, w u P, w P. */
CC_HD void
cc_estimate_sums (double u, double p, int step, double A, double noise, double s[5])
{
  const double m = step ? A * u + noise : p;
  const double w = 1.0 / (m * m);

  s[0] += w * u * u;
  s[1] += w * u;
  s[2] += w;
  s[3] += w * u * p;
  s[4] += w * p;
}

/* The step's new A and noise from its sums; false where the sums are
 * empty (the fit keeps the last).  Where u does not vary (no blur, and a
 * flat spectrum: white noise) A and the noise are one: all of it noise. */
CC_HD bool
cc_estimate_solve (const double s[5], double *A, double *noise)
{
  const double det = s[0] * s[2] - s[1] * s[1];
  double a, n;

  if (!(s[2] > 0))
    return false;
  if (det <= 1e-9 * s[0] * s[2])
    {
      *A = 0.0;
      *noise = s[4] / s[2];
      return true;
    }
  a = (s[3] * s[2] - s[1] * s[4]) / det;
  n = (s[0] * s[4] - s[1] * s[3]) / det;
  if (a <= 0)
    a = s[3] / s[0], n = 0;
  if (n < 0)
    n = 0, a = s[3] / s[0];
  *A = a;
  *noise = fmax (n, 1e-9 * s[4] / s[2]);
  return true;
}

/* A frequency's term of the negative log-likelihood under the model. */
CC_HD double
cc_estimate_term (double u, double p, double A, double noise)
{
  const double m = A * u + noise;

  return log (m) + p / m;
}

/* The Hann window's smoothing of a spectrum (its squared transform, along
 * each axis): the neighbours' weight, the centre's being 1 - 2 of it. */
#define CC_ESTIMATE_SMOOTH (1.0 / 6.0)
/* The least |H|^2 a model takes, so that its logarithm stays finite. */
#define CC_ESTIMATE_H_FLOOR 1e-12

#endif /* CC_ESTIMATE_STEPS_H */
