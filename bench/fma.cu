/* The GPU's FP32 rate, measured: independent FMA chains in every lane of
 * many blocks, so that the FP32 pipes, not latency, bound it.  make bench
 * prints each mask's arithmetic floor from this.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include <cuda_runtime.h>

#include "util.h"

#define CHAINS 8
#define ITERS 4096

__global__ void
fma_chains (float *out, float a, float b)
{
  float x[CHAINS];

#pragma unroll
  for (int k = 0; k < CHAINS; k++)
    x[k] = threadIdx.x + k;
  for (int i = 0; i < ITERS; i++)
#pragma unroll
    for (int k = 0; k < CHAINS; k++)
      x[k] = fmaf (x[k], a, b);
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

  fma_chains<<<r->blocks, 256>>> (r->out, 0.999f, 0.001f);
}

extern "C" double
bench_fma_gflops (int warmup, int runs)
{
  cudaDeviceProp p;
  FmaRun r;
  double ms;

  bench_die (cudaGetDeviceProperties (&p, 0), "properties");
  bench_die (cudaMalloc ((void **) &r.out, sizeof (float)), "alloc");
  r.blocks = p.multiProcessorCount * 16;
  ms = bench_time_events (run_fma, &r, warmup, runs);
  bench_die (cudaGetLastError (), "FMA kernel");
  cudaFree (r.out);
  return 2.0 * r.blocks * 256.0 * CHAINS * ITERS / (ms * 1e6);
}
