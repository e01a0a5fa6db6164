/* What the two benchmark programs share: random data, medians, CUDA errors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_BENCH_UTIL_H
#define CC_BENCH_UTIL_H

#include <cuda_runtime_api.h>

/* Uniform in [0,1), from a fixed seed: every run times the same data. */
float  bench_rand01 (void);
/* Sorts v. */
double bench_median (double *v, int n);
/* Exits with a message unless err is cudaSuccess. */
void   bench_die    (cudaError_t err, const char *what);
/* Milliseconds on a monotonic clock. */
double bench_now_ms (void);

#endif /* CC_BENCH_UTIL_H */
