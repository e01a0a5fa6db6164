/* cuFFT's own time on the tiles the fft method could cut an image into:
 * in-place R2C and C2R, batched as the method batches them (tiles x four
 * channels), for each power-of-two side from 256 to 4096 and some smooth
 * ones: what the project's own row transforms are compared with
 * (kernels/fft-tiles.cuh's side costs are fitted to make bench's fft
 * column, docs/performance.md).
 *
 * usage: fft-sides [--size N] [--mask K]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cufft.h>

#include "util.h"

typedef struct
{
  cufftHandle plan;
  float      *data;
  bool        forward;
} Exec;

static void
run (void *data)
{
  Exec *e = data;

  if (e->forward)
    cufftExecR2C (e->plan, e->data, (cufftComplex *) e->data);
  else
    cufftExecC2R (e->plan, (cufftComplex *) e->data, e->data);
}

int
main (int argc, char **argv)
{
  static const int sides[] = { 256, 512, 1024, 2048, 4096, 480, 560, 640, 720, 960, 1000,
                               1200, 1536 };
  int size = 4096, mask = 31;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--size") == 0 && i + 1 < argc && (size = atoi (argv[++i])) > 0)
      ;
    else if (strcmp (argv[i], "--mask") == 0 && i + 1 < argc && (mask = atoi (argv[++i])) > 0)
      ;
    else
      {
        fprintf (stderr, "usage: fft-sides [--size N] [--mask K]\n");
        return 2;
      }
  printf ("cuFFT R2C and C2R in place on the tiles of a %dx%d RGBA image for a %dx%d mask, "
          "ms (median of 11 after 3)\n", size, size, mask, mask);
  printf (" side   tiles  transforms      R2C      C2R     both  points  both / %d^2 x 4\n",
          size);
  for (size_t k = 0; k < sizeof sides / sizeof sides[0]; k++)
    {
      const int t = sides[k], s = t - (mask - 1);
      const int tiles = s > 0 ? (size + s - 1) / s : 0;
      const int batch = tiles * tiles * 4, pitch = 2 * (t / 2 + 1);
      const size_t bytes = sizeof (float) * pitch * t * (size_t) batch;
      int n[2] = { t, t }, real[2] = { t, pitch }, complex[2] = { t, pitch / 2 };
      Exec fwd = { 0 }, inv = { 0 };
      double r2c, c2r, points;

      if (tiles == 0 || bytes > ((size_t) 8 << 30))
        continue;
      bench_die (cudaMalloc ((void **) &fwd.data, bytes), "alloc");
      bench_die (cudaMemset (fwd.data, 0, bytes), "clear");
      if (cufftPlanMany (&fwd.plan, 2, n, real, 1, pitch * t, complex, 1, pitch / 2 * t,
                         CUFFT_R2C, batch) != CUFFT_SUCCESS ||
          cufftPlanMany (&inv.plan, 2, n, complex, 1, pitch / 2 * t, real, 1, pitch * t,
                         CUFFT_C2R, batch) != CUFFT_SUCCESS)
        {
          fprintf (stderr, "fft-sides: no cuFFT plan for %d x %d\n", batch, t);
          return 1;
        }
      fwd.forward = true;
      inv.data = fwd.data;
      r2c = bench_time_events (run, &fwd, 3, 11);
      c2r = bench_time_events (run, &inv, 3, 11);
      points = (double) t * t * batch / ((double) size * size * 4);
      printf ("%5d %3dx%-3d %11d %8.3f %8.3f %8.3f %7.2f %16.3f\n", t, tiles, tiles, batch, r2c,
              c2r, r2c + c2r, points, (r2c + c2r) / points);
      cufftDestroy (fwd.plan);
      cufftDestroy (inv.plan);
      cudaFree (fwd.data);
    }
  return 0;
}
