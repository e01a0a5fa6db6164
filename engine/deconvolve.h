/* Deconvolution's pieces between its front (deconvolve.c) and its
 * transforms (deconvolve-fft.c).  Internal to engine/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DECONVOLVE_H
#define CC_DECONVOLVE_H

#include "engine.h"

/* Wiener's filter over the image extended by its border (FFTW) on
 * cc_wiener_canvas's canvas; without FFTW, CC_ERROR_UNSUPPORTED. */
CcStatus cc_wiener (const CcWienerJob *job, CcResult *result);

/* The smallest side at or above n that FFTW transforms fast: 2^a 3^b 5^c 7^d. */
int64_t  cc_fft_fast_side (int64_t n);

#endif /* CC_DECONVOLVE_H */
