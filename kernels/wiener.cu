/* Wiener deconvolution on the GPU (engine/deconvolve.c's wiener_gpu): the
 * CPU path's canvas, first guess and conjugate-gradient steps, channel by
 * channel, transformed by this file's own mixed-radix line kernels; the
 * blur's spectrum by direct DFTs in double.  Why, and what it refuses:
 * docs/design.md, "The GPU's own transforms".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fft-dft.cuh"
#include "gpu.cuh"

#define LINE_THREADS 512
#define MAX_PASSES   16
/* Columns a block takes at most: 16 of 8 bytes, a row's read of 128. */
#define MAX_COLUMNS  16

/* A line's radices, in the order of its passes. */
struct Plan
{
  int n;
  int passes;
  int radix[MAX_PASSES];
};

/* One Stockham pass of radix R over 'count' lines of n points, from src
 * to dst: point i of line q at q ls + i ps.  By rows, a warp's butterflies
 * run along a line; by columns, across the lines, whose points lie side
 * by side. */
template <int R>
__device__ __forceinline__ void
line_pass (const float2 *src, float2 *dst, int n, int ns, int count, int ls, int ps,
           bool by_rows)
{
  const int per = n / R, L = ns * R;

  for (int item = threadIdx.x; item < count * per; item += blockDim.x)
    {
      const int q = by_rows ? item / per : item % count;
      const int j = by_rows ? item - q * per : item / count;
      const int k = j % ns, out = (j - k) * R + k;
      float2 v[R];

#pragma unroll
      for (int r = 0; r < R; r++)
        v[r] = src[q * ls + (j + r * per) * ps];
      if (k > 0)
#pragma unroll
        for (int r = 1; r < R; r++)
          {
            /* W_L^(r k), its turn taken in [-1/2, 1/2] so that its rounding
             * is at most half a float step of pi */
            const int m = r * k;

            v[r] = cmul (v[r], turn ((float) (2 * m > L ? m - L : m) / (float) L));
          }
      dft<R> (v);
#pragma unroll
      for (int r = 0; r < R; r++)
        dst[q * ls + (out + r * ns) * ps] = v[r];
    }
}

/* The block's lines transformed, from a (the points made visible by the
 * caller's barrier) with b as the other buffer; returns where the result
 * is. */
__device__ float2 *
line_fft (float2 *a, float2 *b, const Plan &p, int count, int ls, int ps, bool by_rows)
{
  int ns = 1;

  for (int s = 0; s < p.passes; s++)
    {
      switch (p.radix[s])
        {
        case 2: line_pass<2> (a, b, p.n, ns, count, ls, ps, by_rows); break;
        case 3: line_pass<3> (a, b, p.n, ns, count, ls, ps, by_rows); break;
        case 4: line_pass<4> (a, b, p.n, ns, count, ls, ps, by_rows); break;
        case 5: line_pass<5> (a, b, p.n, ns, count, ls, ps, by_rows); break;
        case 7: line_pass<7> (a, b, p.n, ns, count, ls, ps, by_rows); break;
        default: line_pass<8> (a, b, p.n, ns, count, ls, ps, by_rows); break;
        }
      __syncthreads ();
      ns *= p.radix[s];
      float2 *const t = a;
      a = b;
      b = t;
    }
  return a;
}

/* 'lines' lines of p.n points (point i of line l at data + l line_stride +
 * i point_stride), 'count' a block, each transformed forward in place. */
__global__ void __launch_bounds__ (LINE_THREADS)
wiener_lines (float2 *data, const Plan p, int lines, int count, long long line_stride,
              long long point_stride, bool by_rows)
{
  extern __shared__ float2 sh[];
  const int n = p.n, ls = by_rows ? n : 1, ps = by_rows ? 1 : count;
  const long long line0 = (long long) blockIdx.x * count;
  float2 *x;

  for (int e = threadIdx.x; e < count * n; e += blockDim.x)
    {
      const int q = by_rows ? e / n : e % count, i = by_rows ? e - q * n : e / count;

      sh[q * ls + i * ps] = line0 + q < lines
        ? data[(line0 + q) * line_stride + i * point_stride] : make_float2 (0.0f, 0.0f);
    }
  __syncthreads ();
  x = line_fft (sh, sh + count * n, p, count, ls, ps, by_rows);
  for (int e = threadIdx.x; e < count * n; e += blockDim.x)
    {
      const int q = by_rows ? e / n : e % count, i = by_rows ? e - q * n : e / count;

      if (line0 + q < lines)
        data[(line0 + q) * line_stride + i * point_stride] = x[q * ls + i * ps];
    }
}

/* A canvas row's or column's taps (CcWienerTap in device widths). */
struct Tap
{
  int   a, b;
  float t;
};

/* The canvas, real parts, of channel k of the image plane (K floats a
 * pixel, w x h): the first guess, each sample the taps' blend of up to four
 * (-1: the border's constant 'ghost'); with 'inside', the image at (left,
 * top) alone, 0 around it. */
__global__ void
wiener_fill (float2 *canvas, const float *plane, const Tap *rows, const Tap *columns, int tx,
             int ty, int left, int top, int w, int h, int K, int k, float ghost, bool inside)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;

  if (x >= tx)
    return;
  for (int y = blockIdx.y; y < ty; y += gridDim.y)
    {
      const Tap ry = rows[y], rx = columns[x];
      const int ys[2] = { ry.a, ry.b }, xs[2] = { rx.a, rx.b };
      const float wy[2] = { 1.0f - ry.t, ry.t }, wx[2] = { 1.0f - rx.t, rx.t };
      float v = 0.0f;

      if (inside)
        v = y >= top && y < top + h && x >= left && x < left + w
            ? plane[((long long) ys[0] * w + xs[0]) * K + k] : 0.0f;
      else
        for (int j = 0; j < 2; j++)
          for (int i = 0; i < 2; i++)
            if (wy[j] != 0.0f && wx[i] != 0.0f)
              v += wy[j] * wx[i] * (ys[j] < 0 || xs[i] < 0
                                    ? ghost : plane[((long long) ys[j] * w + xs[i]) * K + k]);
      canvas[(long long) y * tx + x] = make_float2 (v, 0.0f);
    }
}

/* Channel k of the image plane from the canvas's forward transform of the
 * restoration's conjugate spectrum: the real parts, over tx ty. */
__global__ void
wiener_extract (float *plane, const float2 *canvas, int tx, int left, int top, int w, int h,
                int K, int k, float scale)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;

  if (x >= w)
    return;
  for (int y = blockIdx.y; y < h; y += gridDim.y)
    plane[((long long) y * w + x) * K + k] =
      canvas[(long long) (y + top) * tx + x + left].x * scale;
}

/* The point-wise steps over a spectrum of n points, m the mask's (a
 * correlation: conj (m) blurs), den the preconditioner's |m|^2 + noise
 * |L|^2 (0: the frequency left out). */
__device__ __forceinline__ float
over_den (const float *den, long long i)
{
  return den[i] > 0.0f ? 1.0f / den[i] : 0.0f;
}

__device__ __forceinline__ float2
conj_times (float2 m, float2 v)
{
  return make_float2 (m.x * v.x + m.y * v.y, m.x * v.y - m.y * v.x);
}

/* Adds v, a thread's share, to *sum: a block's sum, then one atomic. */
__device__ void
block_sum (double v, double *sum)
{
  __shared__ double warp_sums[32];

  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync (~0u, v, d);
  if ((threadIdx.x & 31) == 0)
    warp_sums[threadIdx.x / 32] = v;
  __syncthreads ();
  if (threadIdx.x < 32)
    {
      v = threadIdx.x < (blockDim.x + 31) / 32 ? warp_sums[threadIdx.x] : 0.0;
      for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync (~0u, v, d);
      if (threadIdx.x == 0)
        atomicAdd (sum, v);
    }
}

#define EACH_POINT(i, n) \
  for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += (long long) gridDim.x * blockDim.x)

/* x = m f / den: the first guess from its canvas's spectrum f; or,
 * without 'divide', m f, the normal equations' right side, and its
 * <x, x / den> into *sum. */
__global__ void
wiener_guess (float2 *x, const float2 *f, const float2 *m, const float *den, bool divide,
              long long n, double *sum)
{
  double part = 0.0;

  EACH_POINT (i, n)
    {
      const float2 v = cmul (m[i], f[i]);
      const float q = over_den (den, i);

      x[i] = divide ? make_float2 (v.x * q, v.y * q) : v;
      part += ((double) v.x * v.x + (double) v.y * v.y) * q;
    }
  block_sum (part, sum);
}

/* w = conj (conj (m) v), whose forward transform is tx ty times the
 * conjugate of the blur of v's inverse. */
__global__ void
wiener_blur (float2 *w, const float2 *v, const float2 *m, long long n)
{
  EACH_POINT (i, n)
    {
      const float2 b = conj_times (m[i], v[i]);

      w[i] = make_float2 (b.x, -b.y);
    }
}

/* w, from wiener_blur's forward transform: the blurred canvas over the
 * image at (left, top), w x h, 0 around it. */
__global__ void
wiener_inside (float2 *w, int tx, int ty, int left, int top, int iw, int ih, float scale)
{
  EACH_POINT (i, (long long) tx * ty)
    {
      const int y = (int) (i / tx), x = (int) (i - (long long) y * tx);
      const float2 v = w[i];

      w[i] = y >= top && y < top + ih && x >= left && x < left + iw
             ? make_float2 (v.x * scale, -v.y * scale) : make_float2 (0.0f, 0.0f);
    }
}

/* w = m w + noise |L|^2 v: the normal equations' operator on v,
 * from wiener_inside's forward transform; and <v, w> into *sum. */
__global__ void
wiener_normal (float2 *w, const float2 *v, const float2 *m, const float *lx, const float *ly,
               float noise, int tx, long long n, double *sum)
{
  double part = 0.0;

  EACH_POINT (i, n)
    {
      const int y = (int) (i / tx), x = (int) (i - (long long) y * tx);
      const float l = lx[x] + ly[y], lap = noise * l * l;
      const float2 b = cmul (m[i], w[i]), u = v[i];
      const float2 r = make_float2 (b.x + lap * u.x, b.y + lap * u.y);

      w[i] = r;
      part += (double) u.x * r.x + (double) u.y * r.y;
    }
  block_sum (part, sum);
}

/* The steps' start: r -= w, p = r / den, and <r, r / den> into *sum. */
__global__ void
wiener_residual (float2 *r, float2 *p, const float2 *w, const float *den, long long n,
                 double *sum)
{
  double part = 0.0;

  EACH_POINT (i, n)
    {
      const float2 v = make_float2 (r[i].x - w[i].x, r[i].y - w[i].y);
      const float q = over_den (den, i);

      r[i] = v;
      p[i] = make_float2 (v.x * q, v.y * q);
      part += ((double) v.x * v.x + (double) v.y * v.y) * q;
    }
  block_sum (part, sum);
}

/* A step: x += alpha p, r -= alpha w, and <r, r / den> into *sum. */
__global__ void
wiener_step (float2 *x, float2 *r, const float2 *p, const float2 *w, const float *den,
             float alpha, long long n, double *sum)
{
  double part = 0.0;

  EACH_POINT (i, n)
    {
      const float2 v = make_float2 (r[i].x - alpha * w[i].x, r[i].y - alpha * w[i].y);

      x[i] = make_float2 (x[i].x + alpha * p[i].x, x[i].y + alpha * p[i].y);
      r[i] = v;
      part += ((double) v.x * v.x + (double) v.y * v.y) * over_den (den, i);
    }
  block_sum (part, sum);
}

/* The next direction: p = r / den + beta p. */
__global__ void
wiener_direction (float2 *p, const float2 *r, const float *den, float beta, long long n)
{
  EACH_POINT (i, n)
    {
      const float q = over_den (den, i);

      p[i] = make_float2 (r[i].x * q + beta * p[i].x, r[i].y * q + beta * p[i].y);
    }
}

/* w = conj (x), whose forward transform is tx ty times x's inverse,
 * conjugated. */
__global__ void
wiener_conj (float2 *w, const float2 *x, long long n)
{
  EACH_POINT (i, n)
    w[i] = make_float2 (x[i].x, -x[i].y);
}

/* e^(-2 pi i m / n) for m in [0, n), in double: the filter's twiddles. */
__global__ void
wiener_twiddles (double2 *t, int n)
{
  for (int m = blockIdx.x * blockDim.x + threadIdx.x; m < n; m += gridDim.x * blockDim.x)
    {
      double s, c;

      sincospi (-2.0 * m / n, &s, &c);
      t[m] = make_double2 (c, s);
    }
}

/* The folded blur's rows' spectra, a direct DFT in double: row j's
 * frequency kx is the sum over i of blur (i, j) W_tx^(kx (i - bx)), the
 * exponent modulo tx (twiddles tw), stepped by kx from i to i + 1. */
__global__ void
wiener_blur_rows (double2 *spectra, const double *blur, const double2 *tw, int bw, int bh,
                  int bx, int tx)
{
  const int kx = blockIdx.x * blockDim.x + threadIdx.x;

  if (kx >= tx)
    return;
  for (int j = blockIdx.y; j < bh; j += gridDim.y)
    {
      double2 sum = make_double2 (0.0, 0.0);
      int m = (int) ((long long) kx * ((tx - bx) % tx) % tx);

      for (int i = 0; i < bw; i++)
        {
          const double v = blur[j * bw + i];
          const double2 w = tw[m];

          sum = make_double2 (sum.x + v * w.x, sum.y + v * w.y);
          m += kx;
          m -= m >= tx ? tx : 0;
        }
      spectra[(long long) j * tx + kx] = sum;
    }
}

/* The blur's spectrum m at (kx, ky), the sum over j of its rows' spectra
 * times W_ty^(ky (j - by)) (twiddles tw, stepped as the rows'), and the
 * preconditioner's den = |m|^2 + noise |L|^2, in double as the CPU's
 * make_blur. */
__global__ void
wiener_spectrum (float2 *m, float *den, const double2 *spectra, const double2 *tw,
                 const float *lx, const float *ly, int bh, int by, int tx, int ty,
                 double noise)
{
  const int kx = blockIdx.x * blockDim.x + threadIdx.x;

  if (kx >= tx)
    return;
  for (int ky = blockIdx.y; ky < ty; ky += gridDim.y)
    {
      const double laplacian = (double) lx[kx] + ly[ky];
      double re = 0.0, im = 0.0;
      int t = (int) ((long long) ky * ((ty - by) % ty) % ty);

      for (int j = 0; j < bh; j++)
        {
          const double2 r = spectra[(long long) j * tx + kx], w = tw[t];

          re += r.x * w.x - r.y * w.y;
          im += r.x * w.y + r.y * w.x;
          t += ky;
          t -= t >= ty ? ty : 0;
        }
      m[(long long) ky * tx + kx] = make_float2 ((float) re, (float) im);
      den[(long long) ky * tx + kx] = (float) (re * re + im * im +
                                               noise * laplacian * laplacian);
    }
}

/* n's passes, or false where n has a prime factor past 7. */
static bool
plan_of (int n, Plan *p)
{
  static const int odd[] = { 7, 5, 3 };

  p->n = n;
  p->passes = 0;
  for (int f : odd)
    while (n % f == 0 && p->passes < MAX_PASSES)
      {
        p->radix[p->passes++] = f;
        n /= f;
      }
  while (n % 8 == 0 && p->passes < MAX_PASSES)
    {
      p->radix[p->passes++] = 8;
      n /= 8;
    }
  if (n == 4 || n == 2)
    {
      p->radix[p->passes++] = n;
      n = 1;
    }
  return n == 1;
}

/* A transform direction: its plan, lines a block and shared memory. */
struct Lines
{
  Plan   plan;
  int    lines, count;
  size_t shared;
};

/* Rows: enough a block for 4096 points; columns: as many side by side as
 * fit, at most MAX_COLUMNS, so that a row's read is wide.  False where
 * one line does not fit. */
static bool
lines_of (int n, int lines, bool by_rows, size_t shared_max, Lines *l)
{
  const size_t line = 2 * sizeof (float2) * (size_t) n;
  int count = by_rows ? (n < 4096 ? 4096 / n : 1) : MAX_COLUMNS;

  while (count > 1 && (size_t) count * line > shared_max)
    count /= 2;
  l->lines = lines;
  l->count = count;
  l->shared = count * line;
  return plan_of (n, &l->plan) && l->shared <= shared_max;
}

/* Both directions' forward transforms of a canvas, in place. */
static void
transform (const Lines &rows, const Lines &columns, float2 *data, int tx)
{
  const Lines *const both[2] = { &rows, &columns };

  for (int d = 0; d < 2; d++)
    {
      const Lines &l = *both[d];
      const bool by_rows = d == 0;

      wiener_lines<<<(unsigned) ((l.lines + l.count - 1) / l.count), LINE_THREADS, l.shared>>> (
        data, l.plan, l.lines, l.count, by_rows ? tx : 1, by_rows ? 1 : tx, by_rows);
    }
}

static dim3
grid_over (int w, int h)
{
  return dim3 ((unsigned) ((w + 255) / 256), (unsigned) (h < 65535 ? h : 65535));
}

/* The point-wise kernels' grid: enough blocks to fill the GPU a few times. */
static unsigned
points_grid (long long n)
{
  const long long blocks = (n + 255) / 256;

  return (unsigned) (blocks < 8192 ? blocks : 8192);
}

/* The device's buffers of a job, freed together.  The canvas w, which
 * the transforms pass over many times, is always on the device; the
 * steps' spectra go there too where they fit, the most read first, and
 * else to host memory that the point-wise kernels read over the bus
 * (placed_of says which, in that order). */
struct Buffers
{
  float2  *w, *p, *m, *r, *x;  /* the canvas and the steps' spectra */
  float   *den, *lap;      /* the preconditioner's; the Laplacian's, tx then ty */
  Tap     *taps;           /* rows, then columns */
  double  *blur;           /* folded */
  double2 *spectra;        /* the blur's rows', bh x tx */
  double2 *twiddles;       /* tx, then ty */
  double  *sum;
  unsigned on_host;        /* bit i: placed_of's buffer i in host memory */
  float   *planes[2];      /* the job's planes as the kernels see them */
  float   *registered[2];  /* the host planes mapped for them, or NULL */
};

#define PLACED 6

/* The buffers placed where they fit, most read first (the blur's rows'
 * spectra, small, read once a frequency of a column; then by a step's
 * reads: p 5, r 3, m, x and den 2), and their bytes; r and p only where
 * the job takes steps. */
static int
placed_of (Buffers *b, const CcWienerCanvas &c, size_t spectra_bytes, void **at[PLACED],
           size_t bytes[PLACED])
{
  const size_t canvas = sizeof (float2) * (size_t) c.tx * c.ty;
  void **const all[PLACED] = { (void **) &b->spectra, (void **) &b->p, (void **) &b->r,
                               (void **) &b->m, (void **) &b->x, (void **) &b->den };
  const size_t sizes[PLACED] = { spectra_bytes, canvas, canvas, canvas, canvas, canvas / 2 };
  int n = 0;

  for (int i = 0; i < PLACED; i++)
    if (c.steps > 0 || (all[i] != (void **) &b->p && all[i] != (void **) &b->r))
      {
        at[n] = all[i];
        bytes[n++] = sizes[i];
      }
  return n;
}

static void
buffers_free (Buffers *b, const CcWienerCanvas &c, size_t spectra_bytes)
{
  void **at[PLACED];
  size_t bytes[PLACED];
  const int n = placed_of (b, c, spectra_bytes, at, bytes);

  for (int i = 0; i < n; i++)
    if (b->on_host & (1u << i))
      cudaFreeHost (*at[i]);
    else
      cudaFree (*at[i]);
  for (int i = 0; i < 2; i++)
    if (b->registered[i])
      cudaHostUnregister (b->registered[i]);
  cudaFree (b->w);
  cudaFree (b->lap);
  cudaFree (b->taps);
  cudaFree (b->blur);
  cudaFree (b->twiddles);
  cudaFree (b->sum);
  cudaGetLastError ();
}

static CcStatus
failed (cudaError_t err, const char *what, char *message, size_t size)
{
  snprintf (message, size, "%s: %s", what, cudaGetErrorString (err));
  cudaGetLastError ();
  return cc_gpu_status_of (err);
}

/* The blur folded onto the canvas's period: bw x bh values, value (i, j)
 * at canvas (i - bx, j - by) modulo the sides.  A mask no larger than the
 * canvas keeps its size and centre; a larger one (a wrapped image) folds
 * onto every column or row. */
static double *
fold_blur (const CcMask *m, const CcWienerCanvas *c, int *bw, int *bh, int *bx, int *by)
{
  const int rx = (m->width - 1) / 2, ry = (m->height - 1) / 2;
  double *sum;

  *bw = m->width <= c->tx ? m->width : (int) c->tx;
  *bh = m->height <= c->ty ? m->height : (int) c->ty;
  *bx = m->width <= c->tx ? rx : 0;
  *by = m->height <= c->ty ? ry : 0;
  if (!(sum = (double *) calloc ((size_t) *bw * *bh, sizeof (double))))
    return NULL;
  for (int j = 0; j < m->height; j++)
    for (int i = 0; i < m->width; i++)
      {
        const int64_t x = ((i - rx) % c->tx + c->tx) % c->tx;
        const int64_t y = ((j - ry) % c->ty + c->ty) % c->ty;

        sum[((y + *by) % c->ty) * *bw + (x + *bx) % c->tx] += m->values[j * m->width + i];
      }
  return sum;
}

/* *sum, after the kernels queued before: false, and 'message' says why,
 * where the GPU failed. */
static CcStatus
read_sum (const double *sum, double *value, char *message, size_t size)
{
  const cudaError_t err = cudaMemcpy (value, sum, sizeof (double), cudaMemcpyDeviceToHost);

  return err == cudaSuccess ? CC_OK : failed (err, "Wiener's steps", message, size);
}

/* w = the normal equations' operator on v (engine/deconvolve-fft.c's
 * apply_normal), and <v, w> in *sum, zeroed first. */
static void
apply_normal (const Buffers &b, const Lines &rows, const Lines &columns,
              const CcWienerCanvas &c, const CcWienerJob *job, const float2 *v)
{
  const long long n = (long long) c.tx * c.ty;

  wiener_blur<<<points_grid (n), 256>>> (b.w, v, b.m, n);
  transform (rows, columns, b.w, (int) c.tx);
  wiener_inside<<<points_grid (n), 256>>> (b.w, (int) c.tx, (int) c.ty, (int) c.left,
                                            (int) c.top, (int) job->width, (int) job->height,
                                            1.0f / ((float) c.tx * (float) c.ty));
  transform (rows, columns, b.w, (int) c.tx);
  cudaMemsetAsync (b.sum, 0, sizeof (double));
  wiener_normal<<<points_grid (n), 256>>> (b.w, v, b.m, b.lap, b.lap + c.tx,
                                            (float) job->noise, (int) c.tx, n, b.sum);
}

/* Channel k restored into the job's plane: the first guess, then the
 * steps. */
static CcStatus
restore_channel (const Buffers &b, const Lines &rows, const Lines &columns,
                 const CcWienerCanvas &c, const CcWienerJob *job, int k, char *message,
                 size_t size)
{
  const int K = job->channels, w = (int) job->width, h = (int) job->height;
  const long long n = (long long) c.tx * c.ty;
  const float ghost = job->border == CC_BORDER_WHITE ? 1.0f : 0.0f;
  double rz = 0.0, start = 0.0, pw, next;
  CcStatus status;

  for (int inside = 0; inside < (c.steps > 0 ? 2 : 1); inside++)
    {
      wiener_fill<<<grid_over ((int) c.tx, (int) c.ty), 256>>> (
        b.w, b.planes[0], b.taps, b.taps + c.ty, (int) c.tx, (int) c.ty, (int) c.left,
        (int) c.top, w, h, K, k, ghost, inside);
      transform (rows, columns, b.w, (int) c.tx);
      cudaMemsetAsync (b.sum, 0, sizeof (double));
      wiener_guess<<<points_grid (n), 256>>> (inside ? b.r : b.x, b.w, b.m, b.den, !inside,
                                               n, b.sum);
    }
  if (c.steps > 0)
    {
      if ((status = read_sum (b.sum, &start, message, size)) != CC_OK)
        return status;
      apply_normal (b, rows, columns, c, job, b.x);
      cudaMemsetAsync (b.sum, 0, sizeof (double));
      wiener_residual<<<points_grid (n), 256>>> (b.r, b.p, b.w, b.den, n, b.sum);
      if ((status = read_sum (b.sum, &rz, message, size)) != CC_OK)
        return status;
    }
  for (int s = 0; s < c.steps && rz > CC_WIENER_SOLVED * start; s++)
    {
      apply_normal (b, rows, columns, c, job, b.p);
      if ((status = read_sum (b.sum, &pw, message, size)) != CC_OK)
        return status;
      if (pw <= 0)
        break;
      cudaMemsetAsync (b.sum, 0, sizeof (double));
      wiener_step<<<points_grid (n), 256>>> (b.x, b.r, b.p, b.w, b.den, (float) (rz / pw), n,
                                              b.sum);
      if ((status = read_sum (b.sum, &next, message, size)) != CC_OK)
        return status;
      wiener_direction<<<points_grid (n), 256>>> (b.p, b.r, b.den, (float) (next / rz), n);
      rz = next;
    }
  wiener_conj<<<points_grid (n), 256>>> (b.w, b.x, n);
  transform (rows, columns, b.w, (int) c.tx);
  wiener_extract<<<grid_over (w, h), 256>>> (b.planes[1], b.w, (int) c.tx, (int) c.left,
                                             (int) c.top, w, h, K, k,
                                             1.0f / ((float) c.tx * (float) c.ty));
  return CC_OK;
}

/* The taps and the Laplacian's spectra, on the host, in the device's
 * widths. */
static bool
host_tables (const CcWienerJob *job, const CcWienerCanvas &c, Tap *taps, float *lap)
{
  CcWienerTap *t = (CcWienerTap *) malloc (sizeof (CcWienerTap) * (size_t) (c.tx + c.ty));

  if (!t)
    return false;
  cc_wiener_taps (job, &c, true, t);
  cc_wiener_taps (job, &c, false, t + c.ty);
  for (int64_t i = 0; i < c.tx + c.ty; i++)
    taps[i] = Tap { (int) t[i].a, (int) t[i].b, t[i].t };
  for (int64_t x = 0; x < c.tx; x++)
    lap[x] = cc_wiener_laplacian (x, c.tx);
  for (int64_t y = 0; y < c.ty; y++)
    lap[c.tx + y] = cc_wiener_laplacian (y, c.ty);
  free (t);
  return true;
}

/* The host's side of a job's tables: the taps and the Laplacian's spectra
 * (host_tables), and the blur folded onto the canvas (fold_blur). */
struct HostTables
{
  Tap    *taps;
  float  *lap;
  double *blur;
  int     bw, bh, bx, by;
};

static void
host_tables_free (HostTables *t)
{
  free (t->taps);
  free (t->lap);
  free (t->blur);
}

/* The canvas, its transforms' lines, and the bytes the job needs on the
 * device whatever else goes to host memory (the canvas, the tables, and
 * the image's planes unless 'planes_on_host'); or why the GPU cannot take
 * it (CC_ERROR_UNSUPPORTED, CC_ERROR_OUT_OF_MEMORY). */
static CcStatus
plan_job (struct _CcGpu *g, const CcWienerJob *job, uint64_t budget, bool planes_on_host,
          CcWienerCanvas *c, Lines *rows, Lines *columns, size_t *spectra_bytes,
          size_t *needed, char *message, size_t size)
{
  /* A line and its second buffer in one block's shared memory. */
  const int64_t side_max = (int64_t) (g->facts.shared_optin / (2 * sizeof (float2)));

  cc_wiener_canvas (job, c);
  if (c->tx > side_max || c->ty > side_max ||
      !lines_of ((int) c->tx, (int) c->ty, true, g->facts.shared_optin, rows) ||
      !lines_of ((int) c->ty, (int) c->tx, false, g->facts.shared_optin, columns))
    {
      snprintf (message, size, "the GPU's transforms take sides of primes 2, 3, 5 and 7 up "
                "to %lld, not the %lldx%lld canvas", (long long) side_max,
                (long long) c->tx, (long long) c->ty);
      return CC_ERROR_UNSUPPORTED;
    }
  *spectra_bytes = sizeof (double2) * (size_t) c->tx *
                   (size_t) (job->blur->height < c->ty ? job->blur->height : c->ty);
  *needed = (planes_on_host ? 0 : sizeof (float) * (size_t) job->width * job->height *
                                  job->channels) +
            sizeof (float2) * (size_t) c->tx * c->ty +
            (sizeof (float) + sizeof (Tap) + sizeof (double2)) * (size_t) (c->tx + c->ty) +
            sizeof (double) * ((size_t) job->blur->width * job->blur->height + 1);
  if (budget && *needed > budget)
    {
      snprintf (message, size, "Wiener's %lldx%lld canvas needs %.1f MB of the GPU%s, past "
                "the device budget of %.1f MB", (long long) c->tx, (long long) c->ty,
                *needed / 1048576.0, planes_on_host ? "" : " with the image's planes",
                budget / 1048576.0);
      return CC_ERROR_OUT_OF_MEMORY;
    }
  return CC_OK;
}

/* The steps' spectra, each on the device while 'room' lasts (the most
 * read first), else in mapped host memory. */
static CcStatus
place_spectra (Buffers *b, const CcWienerCanvas &c, size_t spectra_bytes, uint64_t room,
               char *message, size_t size)
{
  void **at[PLACED];
  size_t bytes[PLACED];
  const int n = placed_of (b, c, spectra_bytes, at, bytes);

  for (int i = 0; i < n; i++)
    {
      if (bytes[i] <= room && cudaMalloc (at[i], bytes[i]) == cudaSuccess)
        {
          room -= bytes[i];
          continue;
        }
      cudaGetLastError ();
      if (cudaHostAlloc (at[i], bytes[i], cudaHostAllocMapped) != cudaSuccess)
        {
          cudaGetLastError ();
          snprintf (message, size, "out of pinned host memory for Wiener's spectra past "
                    "the GPU's room (%zu MB)", bytes[i] >> 20);
          return CC_ERROR_OUT_OF_MEMORY;
        }
      b->on_host |= 1u << i;
    }
  return CC_OK;
}

/* The job's planes as the kernels see them: its own pointers, or host
 * planes registered and mapped. */
static CcStatus
planes_up (Buffers *b, const CcWienerJob *job, bool planes_on_host, char *message,
           size_t size)
{
  const size_t bytes = sizeof (float) * (size_t) job->width * job->height * job->channels;
  float *const host[2] = { (float *) job->observed, job->restored };
  cudaError_t err;

  for (int i = 0; i < 2; i++)
    {
      b->planes[i] = host[i];
      if (!planes_on_host)
        continue;
      if (i == 1 && host[1] == host[0])
        {
          b->planes[1] = b->planes[0];
          break;
        }
      if ((err = cudaHostRegister (host[i], bytes, cudaHostRegisterMapped)) != cudaSuccess)
        return failed (err, "registering the image's planes in host memory", message, size);
      b->registered[i] = host[i];
      if ((err = cudaHostGetDevicePointer ((void **) &b->planes[i], host[i], 0)) != cudaSuccess)
        return failed (err, "mapping the image's planes in host memory", message, size);
    }
  return CC_OK;
}

/* The device's buffers (the spectra where they fit, within 'budget' or
 * seven eighths of the GPU's free memory), the tables copied up and the
 * line kernel's shared memory set. */
static CcStatus
buffers_up (Buffers *b, const CcWienerCanvas &c, const HostTables &t, size_t spectra_bytes,
            size_t needed, uint64_t budget, const Lines &rows, const Lines &columns,
            char *message, size_t size)
{
  const size_t sides = (size_t) (c.tx + c.ty);
  size_t free_bytes = 0, total = 0;
  cudaError_t err;

  if ((err = cudaMalloc (&b->w, sizeof (float2) * (size_t) c.tx * c.ty)) != cudaSuccess ||
      (err = cudaMalloc (&b->lap, sizeof (float) * sides)) != cudaSuccess ||
      (err = cudaMalloc (&b->taps, sizeof (Tap) * sides)) != cudaSuccess ||
      (err = cudaMalloc (&b->blur, sizeof (double) * (size_t) t.bw * t.bh)) != cudaSuccess ||
      (err = cudaMalloc (&b->twiddles, sizeof (double2) * sides)) != cudaSuccess ||
      (err = cudaMalloc (&b->sum, sizeof (double))) != cudaSuccess ||
      (err = cudaMemGetInfo (&free_bytes, &total)) != cudaSuccess)
    {
      cudaGetLastError ();
      snprintf (message, size, "no room on the GPU for Wiener's %lldx%lld canvas (%zu MB)",
                (long long) c.tx, (long long) c.ty,
                (sizeof (float2) * (size_t) c.tx * c.ty) >> 20);
      return cc_gpu_status_of (err);
    }
  if (place_spectra (b, c, spectra_bytes, budget ? budget - needed : free_bytes / 8 * 7,
                     message, size) != CC_OK)
    return CC_ERROR_OUT_OF_MEMORY;
  if ((err = cudaMemcpy (b->taps, t.taps, sizeof (Tap) * sides, cudaMemcpyHostToDevice)) !=
        cudaSuccess ||
      (err = cudaMemcpy (b->lap, t.lap, sizeof (float) * sides, cudaMemcpyHostToDevice)) !=
        cudaSuccess ||
      (err = cudaMemcpy (b->blur, t.blur, sizeof (double) * (size_t) t.bw * t.bh,
                         cudaMemcpyHostToDevice)) != cudaSuccess ||
      (err = cudaFuncSetAttribute (wiener_lines, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) (rows.shared > columns.shared
                                          ? rows.shared : columns.shared))) != cudaSuccess)
    return failed (err, "copying Wiener's job to the GPU failed", message, size);
  return CC_OK;
}

/* The blur's spectrum m and the preconditioner den, from the folded blur. */
static CcStatus
blur_spectrum (const Buffers &b, const CcWienerCanvas &c, const HostTables &t,
               const CcWienerJob *job, char *message, size_t size)
{
  cudaError_t err;

  wiener_twiddles<<<(unsigned) ((c.tx + 255) / 256), 256>>> (b.twiddles, (int) c.tx);
  wiener_twiddles<<<(unsigned) ((c.ty + 255) / 256), 256>>> (b.twiddles + c.tx, (int) c.ty);
  wiener_blur_rows<<<grid_over ((int) c.tx, t.bh), 256>>> (b.spectra, b.blur, b.twiddles, t.bw,
                                                          t.bh, t.bx, (int) c.tx);
  wiener_spectrum<<<grid_over ((int) c.tx, (int) c.ty), 256>>> (
    b.m, b.den, b.spectra, b.twiddles + c.tx, b.lap, b.lap + c.tx, t.bh, t.by, (int) c.tx,
    (int) c.ty, job->noise);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return failed (err, "Wiener's blur spectrum", message, size);
  return CC_OK;
}

static CcStatus
cancelled (char *message, size_t size)
{
  snprintf (message, size, "cancelled");
  return CC_ERROR_CANCELLED;
}

/* Each channel restored in turn, its progress told and cancel asked once
 * it has finished. */
static CcStatus
restore_channels (const Buffers &b, const Lines &rows, const Lines &columns,
                  const CcWienerCanvas &c, const CcWienerJob *job, char *message, size_t size)
{
  const int K = job->channels;
  CcStatus status;
  cudaError_t err;

  if (job->tick && job->tick (0.0, job->data))
    return cancelled (message, size);
  for (int k = 0; k < K; k++)
    {
      if ((status = restore_channel (b, rows, columns, c, job, k, message, size)) != CC_OK)
        return status;
      if ((err = cudaGetLastError ()) != cudaSuccess ||
          (err = cudaStreamSynchronize (0)) != cudaSuccess)
        return failed (err, "Wiener's transforms", message, size);
      if (job->tick && job->tick ((double) (k + 1) / K, job->data))
        return cancelled (message, size);
    }
  return CC_OK;
}

extern "C" CcStatus
cc_gpu_wiener (struct _CcGpu *g, const CcWienerJob *job, uint64_t budget, bool planes_on_host,
               int *spectra_on_host, char *message, size_t size)
{
  CcWienerCanvas c;
  Lines rows, columns;
  Buffers b = {};
  HostTables t = {};
  size_t spectra_bytes = 0, needed;
  CcStatus status = cc_gpu_status (g, message, size);

  *spectra_on_host = 0;
  if (status != CC_OK)
    return status;
  /* The fault tests' launch failure (CUDA_CONVOLVE_FAULT=launch), as the
   * scheduler's. */
  if (cc_fault ("launch"))
    return failed (cudaErrorLaunchFailure, "Wiener's transforms", message, size);
  if ((status = plan_job (g, job, budget, planes_on_host, &c, &rows, &columns, &spectra_bytes,
                          &needed, message, size)) != CC_OK)
    return status;
  t.taps = (Tap *) malloc (sizeof (Tap) * (size_t) (c.tx + c.ty));
  t.lap = (float *) malloc (sizeof (float) * (size_t) (c.tx + c.ty));
  if (!t.taps || !t.lap || !host_tables (job, c, t.taps, t.lap) ||
      !(t.blur = fold_blur (job->blur, &c, &t.bw, &t.bh, &t.bx, &t.by)))
    {
      host_tables_free (&t);
      snprintf (message, size, "out of host memory for Wiener's maps");
      return CC_ERROR_OUT_OF_MEMORY;
    }
  if ((status = buffers_up (&b, c, t, spectra_bytes, needed, budget, rows, columns, message,
                            size)) == CC_OK &&
      (status = planes_up (&b, job, planes_on_host, message, size)) == CC_OK &&
      (status = blur_spectrum (b, c, t, job, message, size)) == CC_OK)
    status = restore_channels (b, rows, columns, c, job, message, size);
  *spectra_on_host = __builtin_popcount (b.on_host);
  buffers_free (&b, c, spectra_bytes);
  host_tables_free (&t);
  return status;
}

extern const void *const cc_module_wiener = (const void *) wiener_lines;
