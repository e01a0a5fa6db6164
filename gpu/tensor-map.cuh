/* Tensor maps, host code the launchers of kernels/ call: the driver's
 * encoder found through the runtime, and an image's map for bulk copies.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_TENSOR_MAP_CUH
#define CC_TENSOR_MAP_CUH

#include <stdint.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include "conv-args.cuh"

/* ---- Tensor maps ---- */

/* The driver's tensor-map encoder, through the runtime: no link to the
 * driver library. */
static inline PFN_cuTensorMapEncodeTiled_v12000
find_encode ()
{
  void *f = nullptr;
  cudaDriverEntryPointQueryResult q;

  if (cudaGetDriverEntryPointByVersion ("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                        &q) != cudaSuccess || q != cudaDriverEntryPointSuccess)
    return nullptr;
  return (PFN_cuTensorMapEncodeTiled_v12000) f;
}

/* A tensor map for bulk copies of boxes of w x h floats to or from an
 * image: 8-byte elements, so that a box row of up to 2 KB is one (256
 * elements at most).  False where the image's rows are not 16-byte aligned,
 * the box is larger or the driver has no tensor maps: the kernels then copy
 * a row at a time. */
static inline bool
image_map (const DevImage &im, int channels, int w, int h, CUtensorMap *map)
{
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = find_encode ();
  const cuuint64_t dims[2] = { (cuuint64_t) im.width * channels / 2, (cuuint64_t) im.height };
  const cuuint64_t pitch[1] = { (cuuint64_t) im.pitch * sizeof (float) };
  const cuuint32_t box[2] = { (cuuint32_t) w / 2, (cuuint32_t) h };
  const cuuint32_t step[2] = { 1, 1 };

  return encode && (uintptr_t) im.data % 16 == 0 && im.pitch % 4 == 0 && w % 4 == 0 &&
         w / 2 <= 256 && h <= 256 && dims[0] > 0 &&
         encode (map, CU_TENSOR_MAP_DATA_TYPE_INT64, 2, im.data, dims, pitch, box, step,
                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
         == CUDA_SUCCESS;
}

#endif /* CC_TENSOR_MAP_CUH */
