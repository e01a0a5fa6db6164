/* Deconvolution's pieces between its front (deconvolve.c) and its
 * transforms (deconvolve-fft.c).  Internal to engine/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DECONVOLVE_H
#define CC_DECONVOLVE_H

#include "engine.h"

/* Planes of 'channels' interleaved floats a pixel, width x height. */
typedef struct
{
  int64_t      width, height;
  int          channels;
  const float *observed;     /* the blurred image */
  float       *restored;     /* what the call writes */
  const CcMask *blur;        /* scaled to sum 1, divisor 1, offset 0 */
  CcBorder     border;
  double       noise;        /* Wiener's balance */
  /* Called before the first channel and after each, with the share
   * done; true: stop. */
  bool       (*tick) (double fraction, void *data);
  void        *data;
} CcWienerJob;

/* Wiener's filter over the image extended by its border (FFTW); without
 * FFTW, CC_ERROR_UNSUPPORTED. */
CcStatus cc_wiener (const CcWienerJob *job, CcResult *result);

/* The smallest side at or above n that FFTW transforms fast: 2^a 3^b 5^c 7^d. */
int64_t  cc_fft_fast_side (int64_t n);

#endif /* CC_DECONVOLVE_H */
