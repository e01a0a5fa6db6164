/* What the two benchmark programs share: random data, medians, CUDA errors,
 * timing with CUDA events.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_BENCH_UTIL_H
#define CC_BENCH_UTIL_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Uniform in [0,1), from a fixed seed: every run times the same data. */
float  bench_rand01 (void);
/* Sorts v. */
double bench_median (double *v, int n);
/* Exits with a message unless err is cudaSuccess. */
void   bench_die    (cudaError_t err, const char *what);
/* Times fn(data) on stream 0 with CUDA events: the median ms of 'runs'
 * (at most 64) after 'warmup' calls. */
double bench_time_events (void (*fn) (void *), void *data, int warmup, int runs);
/* The same for one copy; the pointers say its direction. */
double bench_time_copy   (void *dst, const void *src, size_t bytes, int warmup, int runs);
/* Milliseconds on a monotonic clock. */
double bench_now_ms (void);
/* The GPU's FP32 rate in GFLOP/s (an FMA is two), measured (fma.cu). */
double bench_fma_gflops (int warmup, int runs);

#ifdef __cplusplus
}
#endif

#endif /* CC_BENCH_UTIL_H */
