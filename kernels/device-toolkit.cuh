/* The device toolkit: what several kernel families use, written once, a
 * header a concern: shared memory, the bulk-copy engine's copies, a
 * pixel's finish, tensor cores, the source read with its borders and a
 * band of rows in shared memory (tensor maps, host code, are
 * gpu/tensor-map.cuh).  Every asm of kernels/ is in them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_TOOLKIT_CUH
#define CC_DEVICE_TOOLKIT_CUH

#include "device-shared.cuh"
#include "device-bulk-copy.cuh"
#include "device-finish.cuh"
#include "device-tensor-core.cuh"
#include "device-source.cuh"
#include "device-band.cuh"

#endif /* CC_DEVICE_TOOLKIT_CUH */
