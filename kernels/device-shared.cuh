/* The device toolkit's shared memory: a pixel's channels in and out, the
 * block's first thread, an address for PTX.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_SHARED_CUH
#define CC_DEVICE_SHARED_CUH


/* ---- Shared memory ---- */

/* One pixel's C channels from shared memory (16-byte reads for RGBA). */
template <int C>
__device__ __forceinline__ void
load_shared (const float *p, float v[C])
{
  if (C == 4)
    {
      const float4 q = *reinterpret_cast<const float4 *> (p);
      v[0] = q.x; v[1] = q.y; v[2] = q.z; v[C - 1] = q.w;
    }
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = p[c];
}

template <int C>
__device__ __forceinline__ void
store_shared (float *p, const float v[C])
{
  if (C == 4)
    *reinterpret_cast<float4 *> (p) = make_float4 (v[0], v[1], v[2], v[C - 1]);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = v[c];
}

__device__ __forceinline__ bool
first_thread ()
{
  return threadIdx.x == 0 && threadIdx.y == 0;
}

/* Shared-memory addresses for the PTX below. */
__device__ __forceinline__ unsigned
shared_address (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}

#endif /* CC_DEVICE_SHARED_CUH */
