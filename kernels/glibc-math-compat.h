/* Force-included in nvcc's CUDA passes, only where configure finds it
 * needed: glibc 2.42 declares C23's rsqrt and rsqrtf noexcept, CUDA 13.0's
 * math headers declare them without, and nvcc stops on the mismatch.  This
 * takes <math.h> first without glibc's C23 and GNU additions, which CUDA's
 * own headers declare for device and host alike; the rest of the unit sees
 * the feature macros as they were.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifdef __CUDACC__
#include <features.h>
#pragma push_macro("__USE_GNU")
#pragma push_macro("__GLIBC_USE_ISOC23")
#undef __USE_GNU
#undef __GLIBC_USE_ISOC23
#define __GLIBC_USE_ISOC23 0
#include <math.h>
#pragma pop_macro("__GLIBC_USE_ISOC23")
#pragma pop_macro("__USE_GNU")
#endif
