/* cuda:deconvolve and cuda:deconvolve-layer, registered with cuda:convolve
 * in its module (GEGL_OP_BUNDLE).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_CUDA_DECONVOLVE_H
#define CC_CUDA_DECONVOLVE_H

#include <glib-object.h>

/* Registers both operations in 'module'. */
void cuda_deconvolve_register (GTypeModule *module);

#endif /* CC_CUDA_DECONVOLVE_H */
