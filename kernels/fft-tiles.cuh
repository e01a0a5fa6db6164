/* fft's second room: the tiles, their sides picked by a cost model, and
 * the device memory a strip's planes take.  Included by fft.cu only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FFT_TILES_CUH
#define CC_FFT_TILES_CUH

#include <stdint.h>

#include "gpu.cuh"

/* Overlap-save: the output is cut into tiles of S x S' pixels; each is
 * computed from a T x T' transform of its input (S + mask - 1 = T), so no
 * circular wrap reaches a kept output.  Several tiles and channels go in one
 * batched transform. */
struct Axis
{
  int t;       /* transform side */
  int s;       /* outputs a tile keeps: t - (mask - 1) */
  int tiles;
};

/* A transform's time a point along one of its sides, relative (the square
 * root of the 2D figure, this method's passes over the planes included),
 * fitted to make bench's fft column on an H200 (docs/performance.md); 64
 * is priced as 128, and 4096 keeps its old ratio to 2048, neither timed
 * again. */
static double
side_cost (int t)
{
  return t <= 128 ? 0.94 : t == 256 ? 0.79 : t == 512 ? 0.76 : t == 1024 ? 0.74
       : t == 2048 ? 0.85 : 0.89;
}

/* The power of two from 64 to 4096 whose tiles cost least; for a
 * 4096-pixel side that is 256 up to 16 taps, 512 to 57, 1024 to 342 and
 * 2048 beyond, where the halo would eat more of a smaller tile.  A mask is
 * at most 1023 long, so 4096 always keeps outputs. */
static Axis
axis_for (int length, int mask)
{
  Axis best = { 0, 0, 0 };

  for (int t = 4096; t >= 64; t /= 2)
    {
      const int s = t - (mask - 1);
      const int tiles = s > 0 ? (length + s - 1) / s : 0;

      if (tiles > 0 && (!best.t || (double) tiles * t * side_cost (t) <
                                   (double) best.tiles * best.t * side_cost (best.t)))
        {
          best.t = t;
          best.s = s;
          best.tiles = tiles;
        }
    }
  return best;
}

struct Shape
{
  Axis   x, y;
  int    pitch;       /* floats a transform row: 2 (t / 2 + 1), for in place */
  size_t plane;       /* floats a transform */
  int    per_tile;    /* planes a tile: the channels, or with alpha weighting
                         twice as many */
  bool   weighted;
  int    transforms;  /* tiles x per_tile */
};

/* The weight over the mask's sum |k| above which colour is the weighted
 * quotient (its rounding stays within fft's bound), and at or below which
 * it is the plain sum (a weight of nought, within the transform's
 * rounding); pixels between get the exact sum. */
constexpr float WEIGHT_QUOTIENT = 1e-2f;
constexpr float WEIGHT_NOUGHT = 1e-6f;

/* The tiles of a strip of w x h outputs.  Every strip of a job is cut as
 * its full strips are (h: their rows), the last one's spare tiles reading
 * border-resolved rows that no output takes, so that a lane's plans fit
 * all its strips. */
static Shape
shape_for (int w, int h, int mw, int mh, int channels, bool weighted)
{
  Shape s;

  s.x = axis_for (w, mw);
  /* A one-row mask needs no transform down the columns: each row a tile. */
  s.y = mh == 1 ? Axis { 1, 1, h } : axis_for (h, mh);
  s.pitch = 2 * (s.x.t / 2 + 1);
  s.plane = (size_t) s.pitch * s.y.t;
  s.weighted = weighted;
  s.per_tile = weighted ? 2 * channels : channels;
  s.transforms = s.x.tiles * s.y.tiles * s.per_tile;
  return s;
}

/* The planes, then (with alpha weighting) the list of pixels fft_exact
 * computes: a count and as many indices as the output has pixels. */
size_t
cc_fft_bytes (const CcJob *job, int w, int h)
{
  const Shape s = shape_for (w, h, job->mask_width, job->mask_height, job->channels,
                             job->weighted);

  return sizeof (float) * s.plane * s.transforms +
         (s.weighted ? sizeof (unsigned) * (1 + (size_t) w * h) : 0);
}

/* Rows near 'rows' that are whole tiles of the transform the job's height
 * would be cut into, so that strips add no transformed rows to the
 * whole's; 'rows' where the whole is one tile or a one-row mask's rows. */
int64_t
cc_fft_strip_rows (const CcJob *job, int64_t rows)
{
  const int64_t height = job->dst->height;
  Axis y;

  if (job->mask_height == 1 || height > INT32_MAX)
    return rows;
  y = axis_for ((int) height, job->mask_height);
  if (y.tiles == 1)
    return rows;
  const int64_t tiles = (rows + y.s / 2) / y.s;
  return (tiles < 1 ? 1 : tiles) * y.s;
}

#endif /* CC_FFT_TILES_CUH */
