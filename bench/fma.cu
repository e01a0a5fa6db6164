/* The GPU's FP32 rate, measured: independent FMA chains in every lane of
 * one wave of blocks, so that the FP32 pipes, not latency, bound it.  make
 * bench prints each mask's arithmetic floor from this.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include <cuda_runtime.h>

#include "util.h"

#define CHAINS 16
#define ITERS 4096
#define THREADS 256

/* The loop unrolled 8-fold, so that its counter and branch take 3 issue
 * slots in 131, where rolled they took a sixth and the rate read well under
 * the GPU's; one operand in a register and one immediate, the faster of
 * the operand choices measured (docs/performance.md has the figures). */
__global__ void __launch_bounds__ (THREADS)
fma_chains (float *out, float a)
{
  float x[CHAINS];

#pragma unroll
  for (int k = 0; k < CHAINS; k++)
    x[k] = threadIdx.x + k;
#pragma unroll 8
  for (int i = 0; i < ITERS; i++)
#pragma unroll
    for (int k = 0; k < CHAINS; k++)
      x[k] = fmaf (x[k], a, 0.001f);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < CHAINS; k++)
    s += x[k];
  if (s == 1234.5f)   /* never, but the compiler cannot know: the chains stay */
    out[0] = s;
}

typedef struct
{
  float *out;
  int    blocks;
} FmaRun;

static void
run_fma (void *data)
{
  const FmaRun *r = (const FmaRun *) data;

  fma_chains<<<r->blocks, THREADS>>> (r->out, 0.999f);
}

extern "C" double
bench_fma_gflops (int warmup, int runs)
{
  int device = 0, sms = 1, per_sm = 1;
  FmaRun r;
  double ms;

  bench_die (cudaGetDevice (&device), "device");
  bench_die (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device), "SMs");
  bench_die (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, fma_chains, THREADS, 0),
             "occupancy");
  bench_die (cudaMalloc ((void **) &r.out, sizeof (float)), "alloc");
  /* One wave: every block resident from the start, no tail. */
  r.blocks = sms * per_sm;
  ms = bench_time_events (run_fma, &r, warmup, runs);
  bench_die (cudaGetLastError (), "FMA kernel");
  cudaFree (r.out);
  return 2.0 * r.blocks * THREADS * CHAINS * (double) ITERS / (ms * 1e6);
}
