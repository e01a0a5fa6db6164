/* The device toolkit's copies: the bulk-copy engine's PTX and mbarriers
 * (compute capability 9.0 and up), waiting on a double buffer, a
 * predicated store.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DEVICE_BULK_COPY_CUH
#define CC_DEVICE_BULK_COPY_CUH

#include <cuda.h>
#include <cuda_pipeline.h>
#include "device-shared.cuh"

/* ---- The bulk-copy engine ---- */

/* The bulk-copy engine and the mbarriers it completes on: compute
 * capability 9.0 and up.  Older GPUs copy every tile by cp.async. */
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define BULK_COPY 1
#else
#define BULK_COPY 0
#endif

#if BULK_COPY
/* By one thread, before any use: an mbarrier that one arrival (with the
 * bytes of a copy) completes a phase of. */
__device__ __forceinline__ void
mbarrier_init (unsigned long long *bar)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar)));
  asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* The same for two mbarriers (a double buffer's), under one fence: a
 * second fence changed ptxas's register allocation of several kernels. */
__device__ __forceinline__ void
mbarrier_init_pair (unsigned long long *bar)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar)));
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r" (shared_address (bar + 1)));
  asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Orders this thread's earlier ordinary accesses to shared memory before
 * the bulk-copy engine's writes there. */
__device__ __forceinline__ void
async_proxy_fence ()
{
  asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
}

/* The arrival that opens a phase of 'bar' (a shared address) completed by
 * copies of 'bytes' in all. */
__device__ __forceinline__ void
mbarrier_expect_bytes (unsigned bar, int bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                :: "r" (bar), "r" (bytes) : "memory");
}

/* An arrival with no copy: completes a phase of 'bar' (a shared address). */
__device__ __forceinline__ void
mbarrier_arrive (unsigned bar)
{
  asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r" (bar) : "memory");
}

/* 'bytes' (a multiple of 16) from global 'src' to shared address 'dst' by
 * the bulk-copy engine, completing on 'bar' (a shared address). */
__device__ __forceinline__ void
bulk_copy (unsigned dst, const void *src, int bytes, unsigned bar)
{
  asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                " [%0], [%1], %2, [%3];"
                :: "r" (dst), "l" (src), "r" (bytes), "r" (bar) : "memory");
}

/* Until the mbarrier's phase of parity 'parity' has completed; the copies
 * completing on it are then seen by this thread. */
__device__ __forceinline__ void
mbarrier_wait (unsigned long long *bar, unsigned parity)
{
  unsigned done;

  do
    asm volatile ("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                  " selp.u32 %0, 1, 0, p; }"
                  : "=r" (done) : "r" (shared_address (bar)), "r" (parity) : "memory");
  while (!done);
}

/* Until 'bar' completes the phase whose parity is bit 'bit' of 'phases',
 * then flips that bit for the barrier's next phase: double buffers keep
 * each barrier's parity in one word. */
__device__ __forceinline__ void
mbarrier_wait_flip (unsigned long long *bar, unsigned &phases, int bit)
{
  mbarrier_wait (bar, phases >> bit & 1);
  phases ^= 1u << bit;
}

/* By one thread: the box of 'map' at element (x, y) into 'dst' (128-byte
 * aligned), by the bulk-copy engine, completing a phase of 'bar' when its
 * 'bytes' have landed.  The fence orders the block's earlier accesses to
 * 'dst', ordinary ones, before the engine's writes. */
__device__ __forceinline__ void
tensor_load (void *dst, const CUtensorMap *map, int x, int y, unsigned long long *bar, int bytes)
{
  async_proxy_fence ();
  mbarrier_expect_bytes (shared_address (bar), bytes);
  asm volatile ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                :: "r" (shared_address (dst)), "l" (map), "r" (x), "r" (y),
                   "r" (shared_address (bar))
                : "memory");
}

/* By one thread: 'src' (128-byte aligned shared memory) to the box of
 * 'map' at element (x, y) by the bulk-copy engine, waiting until the
 * engine has read 'src' (not until the global writes land). */
__device__ __forceinline__ void
bulk_store_box (const CUtensorMap *map, int x, int y, const void *src)
{
  asm volatile ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                :: "l" (map), "r" (x), "r" (y), "r" (shared_address (src))
                : "memory");
  asm volatile ("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile ("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/* By the thread that issued them: until its tensor stores have landed. */
__device__ __forceinline__ void
bulk_stores_wait ()
{
  asm volatile ("cp.async.bulk.wait_group 0;" ::: "memory");
}
#endif

/* Until buffer b of a double buffer has landed for this thread: its own
 * cp.async groups but the last 'groups', and where the bulk-copy engine
 * is, the phase of mbarrier bars[b] whose parity is bit b of 'phases'.
 * Other threads' cp.async copies are seen only after a block barrier. */
__device__ __forceinline__ void
wait_buffer (unsigned long long *bars, unsigned &phases, int b, int groups)
{
  __pipeline_wait_prior (groups);
#if BULK_COPY
  mbarrier_wait_flip (bars + b, phases, b);
#endif
}

/* Four floats to global 'to' (16-byte aligned) where 'inside' is not 0,
 * by a predicated store: no branch around it for the compiler to schedule. */
__device__ __forceinline__ void
store4_if (int inside, float *to, float x, float y, float z, float w)
{
  asm ("{ .reg .pred p; setp.ne.b32 p, %0, 0;"
       " @p st.global.v4.f32 [%1], {%2, %3, %4, %5}; }"
       :: "r" (inside), "l" (to), "f" (x), "f" (y), "f" (z), "f" (w));
}

#endif /* CC_DEVICE_BULK_COPY_CUH */
