/* The engine's ground floor (ground.c): what every engine file and the
 * GPU's host side call, above nothing but the public header.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_GROUND_H
#define CC_GROUND_H

#include "convolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Formats 'result->message' and sets its status; returns the status. */
CcStatus cc_fail (CcResult *result, CcStatus status, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));

/* Milliseconds on a monotonic clock. */
double   cc_now_ms (void);

/* Black and white are ghost cells as zero is; the front pads the source
 * with their pixel (convolve.c's pad_constant_border), so no back end sees
 * them. */
bool     cc_border_is_constant (CcBorder border);

/* The register method's width class for a mask width (1, 3, 5, 7, 9, 15, 25,
 * 31, 63 or 127), or 0 beyond: it sizes that method's work. */
int      cc_mask_width_class (int width);

#ifdef __cplusplus
}
#endif

#endif /* CC_GROUND_H */
