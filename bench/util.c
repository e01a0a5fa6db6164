/* What the two benchmark programs share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util.h"

static uint64_t rng = 0x1234567887654321ull;

float
bench_rand01 (void)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (float) ((rng * 0x2545f4914f6cdd1dull) >> 40) / (float) (1 << 24);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
bench_median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void
bench_die (cudaError_t err, const char *what)
{
  if (err != cudaSuccess)
    {
      fprintf (stderr, "bench: %s: %s\n", what, cudaGetErrorString (err));
      exit (1);
    }
}

double
bench_time_events (void (*fn) (void *), void *data, int warmup, int runs)
{
  cudaEvent_t a, b;
  double t[64];

  runs = runs > 64 ? 64 : runs;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (int i = 0; i < warmup; i++)
    fn (data);
  for (int i = 0; i < runs; i++)
    {
      float ms;

      cudaEventRecord (a, 0);
      fn (data);
      cudaEventRecord (b, 0);
      bench_die (cudaEventSynchronize (b), "timing");
      cudaEventElapsedTime (&ms, a, b);
      t[i] = ms;
    }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return bench_median (t, runs);
}

typedef struct
{
  void       *dst;
  const void *src;
  size_t      bytes;
} Copy;

static void
run_copy (void *data)
{
  Copy *c = data;

  bench_die (cudaMemcpyAsync (c->dst, c->src, c->bytes, cudaMemcpyDefault, 0), "copy");
}

double
bench_time_copy (void *dst, const void *src, size_t bytes, int warmup, int runs)
{
  Copy copy = { dst, src, bytes };

  return bench_time_events (run_copy, &copy, warmup, runs);
}

double
bench_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
