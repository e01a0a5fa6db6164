/* The register method's mask in __constant__ memory, which its kernels
 * (register-kernels.cu and the headers it includes) read and
 * cc_register_set_mask writes.  A module's __constant__ memory is its own
 * (no relocatable device code), so this defines it: only
 * register-kernels.cu's translation unit includes it.  Internal to
 * kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_REGISTER_MASK_CUH
#define CC_REGISTER_MASK_CUH

#include "gpu-side.h"

/* Mask widths are rounded up to a class (cc_mask_width_class); the widest
 * bounds the __constant__ mask.  Width 1 is the column kernel's
 * (conv_column, register-column.cuh). */
#define REG_MAX_WIDTH 127

/* Floats a mask row takes: an even count past width 1, so that the taps
 * load in pairs (one uniform 8-byte load for two taps). */
__host__ __device__ constexpr int
reg_mask_stride (int kw)
{
  return kw == 1 ? 1 : kw + 1;
}

/* [height][stride]; 127 x 128 floats is 63.5 KB, within the 64 KB bank. */
__constant__ __align__ (8) float
  c_reg_mask[reg_mask_stride (REG_MAX_WIDTH) * CC_DIRECT_MASK_MAX];

#endif /* CC_REGISTER_MASK_CUH */
