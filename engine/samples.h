/* Rows of samples of any type to float and back (host side).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SAMPLES_H
#define CC_SAMPLES_H

#include "convolve.h"

/* Converts 'count' samples starting at sample 'first' of 'row' to float. */
void   cc_samples_to_float   (const void *row, CcType type, int64_t first,
                              int64_t count, float *out);

/* Stores 'count' floats as samples of 'type' (integers clamped and rounded). */
void   cc_samples_from_float (const float *in, int64_t count, CcType type,
                              void *row);

/* The same through a transfer: of pixels of 'C' samples, the first
 * 'colour' of each are codes of its encoding ('first' starts a pixel);
 * the others convert as above. */
void   cc_samples_decode     (const void *row, const CcTransfer *transfer, int C,
                              int colour, int64_t first, int64_t count, float *out);
void   cc_samples_encode     (const float *in, int64_t count, int C, int colour,
                              const CcTransfer *transfer, void *row);

/* One sample, exactly where the types allow (for copied channels). */
double cc_sample_get         (const void *row, CcType type, int64_t i);
void   cc_sample_set         (void *row, CcType type, int64_t i, double v);

#endif /* CC_SAMPLES_H */
