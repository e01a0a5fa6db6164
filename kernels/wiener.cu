/* Wiener deconvolution on the GPU (engine/deconvolve.c's wiener_gpu): the
 * CPU path's canvas (cc_wiener_canvas: the same sides, placement and
 * border, each canvas row and column mapped by cc_border_map on the host),
 * transformed by this file's kernels, nothing of the CUDA toolkit needed
 * at run time.
 *
 * Two colour channels ride on one complex canvas, the first the real parts
 * and the second the imaginary: the filter is Hermitian (the blur and the
 * Laplacian are real), so each channel's result is the real or imaginary
 * part of the filtered canvas.  Per pair: wiener_fill, the rows' forward
 * transforms, the columns' forward transforms with the product by the
 * filter and the columns' inverse in one kernel, the rows' inverse,
 * wiener_extract.  Every transform is forward (wiener_lines): an inverse
 * is the forward transform of the conjugate, conjugated, and the columns
 * leave the conjugate for the rows, whose result wiener_extract conjugates.
 *
 * A line (a row or a column of the canvas) is transformed in shared
 * memory by a mixed-radix Stockham FFT of 2^a 3^b 5^c 7^d points, passes
 * of 7, 5, 3, then 8 and one of 4 or 2, between two buffers; so the
 * longest side is the shared memory a block may have over 16 bytes (14528
 * on an H100 or H200).  A wrapped image whose side has a prime factor past
 * 7, or a longer side, is refused (CC_ERROR_UNSUPPORTED), and the front
 * takes the CPU.
 *
 * Memory per job: the image's colour as floats, the canvas and the filter
 * (8 bytes a canvas pixel each), the blur's rows' spectra (16 bytes a
 * canvas column a mask row) and the maps.  The filter is made once a job,
 * from the blur folded onto the canvas at its origin, by direct DFTs in
 * double (the mask's rows, then the canvas's columns of those): the
 * quotient magnifies its rounding where the blur erases a frequency.
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
 * i point_stride), 'count' a block, each transformed forward in place;
 * with a filter (laid out as the data), then multiplied by it, conjugated
 * and transformed forward again: the conjugate of the product's inverse
 * transform. */
__global__ void __launch_bounds__ (LINE_THREADS)
wiener_lines (float2 *data, const float2 *filter, const Plan p, int lines, int count,
              long long line_stride, long long point_stride, bool by_rows)
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
  if (filter)
    {
      for (int e = threadIdx.x; e < count * n; e += blockDim.x)
        {
          const int q = by_rows ? e / n : e % count, i = by_rows ? e - q * n : e / count;

          if (line0 + q < lines)
            {
              const float2 v = cmul (x[q * ls + i * ps],
                                     filter[(line0 + q) * line_stride + i * point_stride]);

              x[q * ls + i * ps] = make_float2 (v.x, -v.y);
            }
        }
      __syncthreads ();
      x = line_fft (x, x == sh ? sh + count * n : sh, p, count, ls, ps, by_rows);
    }
  for (int e = threadIdx.x; e < count * n; e += blockDim.x)
    {
      const int q = by_rows ? e / n : e % count, i = by_rows ? e - q * n : e / count;

      if (line0 + q < lines)
        data[(line0 + q) * line_stride + i * point_stride] = x[q * ls + i * ps];
    }
}

/* The canvas of channels k0 and k1 (-1: none, 0) of the image plane (K
 * floats a pixel, w wide): canvas row y shows source row rows[y], column
 * x source column columns[x], -1 the border's constant 'ghost'. */
__global__ void
wiener_fill (float2 *canvas, const float *plane, const int *rows, const int *columns,
             int tx, int ty, int w, int K, int k0, int k1, float ghost)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;

  if (x >= tx)
    return;
  for (int y = blockIdx.y; y < ty; y += gridDim.y)
    {
      const int sy = rows[y], sx = columns[x];
      float2 v = make_float2 (ghost, ghost);

      if (sy >= 0 && sx >= 0)
        {
          const float *s = plane + ((long long) sy * w + sx) * K;

          v = make_float2 (s[k0], k1 < 0 ? 0.0f : s[k1]);
        }
      else if (k1 < 0)
        v.y = 0.0f;
      canvas[(long long) y * tx + x] = v;
    }
}

/* Channels k0 and k1 of the image plane from the filtered canvas, whose
 * conjugate the last transform left: the image at (left, top). */
__global__ void
wiener_extract (float *plane, const float2 *canvas, int tx, int left, int top, int w, int h,
                int K, int k0, int k1)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;

  if (x >= w)
    return;
  for (int y = blockIdx.y; y < h; y += gridDim.y)
    {
      const float2 v = canvas[(long long) (y + top) * tx + x + left];
      float *d = plane + ((long long) y * w + x) * K;

      d[k0] = v.x;
      if (k1 >= 0)
        d[k1] = -v.y;
    }
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

/* The filter: the blur's spectrum h at (kx, ky), the sum over j of its
 * rows' spectra times W_ty^(ky (j - by)) (twiddles tw, stepped as the
 * rows'), to h / (|h|^2 + noise |L|^2) / (tx ty), in double as the CPU's
 * make_filter; 0 where nothing of a frequency can come back. */
__global__ void
wiener_filter (float2 *filter, const double2 *spectra, const double2 *tw, int bh, int by,
               int tx, int ty, double noise)
{
  const int kx = blockIdx.x * blockDim.x + threadIdx.x;
  const float scale = 1.0f / ((float) tx * (float) ty);

  if (kx >= tx)
    return;
  for (int ky = blockIdx.y; ky < ty; ky += gridDim.y)
    {
      const double laplacian = 4.0 - 2.0 * cospi (2.0 * kx / tx) - 2.0 * cospi (2.0 * ky / ty);
      double re = 0.0, im = 0.0, den;
      int m = (int) ((long long) ky * ((ty - by) % ty) % ty);

      for (int j = 0; j < bh; j++)
        {
          const double2 r = spectra[(long long) j * tx + kx], w = tw[m];

          re += r.x * w.x - r.y * w.y;
          im += r.x * w.y + r.y * w.x;
          m += ky;
          m -= m >= ty ? ty : 0;
        }
      den = re * re + im * im + noise * laplacian * laplacian;
      filter[(long long) ky * tx + kx] =
        den > 0 ? make_float2 ((float) (re / den) * scale, (float) (im / den) * scale)
                : make_float2 (0.0f, 0.0f);
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

static void
launch_lines (const Lines &l, float2 *data, const float2 *filter, int tx, bool by_rows)
{
  const unsigned blocks = (unsigned) ((l.lines + l.count - 1) / l.count);

  wiener_lines<<<blocks, LINE_THREADS, l.shared>>> (data, filter, l.plan, l.lines, l.count,
                                                    by_rows ? tx : 1, by_rows ? 1 : tx,
                                                    by_rows);
}

static dim3
grid_over (int w, int h)
{
  return dim3 ((unsigned) ((w + 255) / 256), (unsigned) (h < 65535 ? h : 65535));
}

/* The device's buffers of a job, freed together. */
struct Buffers
{
  float2 *canvas, *filter;
  int     *maps;      /* rows, then columns */
  double  *blur;      /* folded */
  double2 *spectra;   /* the blur's rows', bh x tx */
  double2 *twiddles;  /* tx, then ty */
};

static void
buffers_free (Buffers *b)
{
  cudaFree (b->canvas);
  cudaFree (b->filter);
  cudaFree (b->maps);
  cudaFree (b->blur);
  cudaFree (b->spectra);
  cudaFree (b->twiddles);
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
        const int64_t x = ((i - rx) % c->tx + c->tx) % c->tx, y = ((j - ry) % c->ty + c->ty) % c->ty;

        sum[((y + *by) % c->ty) * *bw + (x + *bx) % c->tx] += m->values[j * m->width + i];
      }
  return sum;
}

extern "C" CcStatus
cc_gpu_wiener (struct _CcGpu *g, const CcWienerJob *job, uint64_t budget, char *message,
               size_t size)
{
  const int K = job->channels, w = (int) job->width, h = (int) job->height;
  CcWienerCanvas c;
  Lines rows, columns;
  Buffers b = { NULL, NULL, NULL, NULL, NULL, NULL };
  size_t plane_bytes, canvas_bytes, spectra_bytes, needed;
  int64_t side_max;
  int *maps = NULL, bw, bh, bx, by;
  double *blur = NULL;
  CcStatus status = cc_gpu_status (g, message, size);
  cudaError_t err;

  if (status != CC_OK)
    return status;
  cc_wiener_canvas (job, &c);
  /* A line and its second buffer in one block's shared memory. */
  side_max = (int64_t) (g->facts.shared_optin / (2 * sizeof (float2)));
  if (c.tx > side_max || c.ty > side_max ||
      !lines_of ((int) c.tx, (int) c.ty, true, g->facts.shared_optin, &rows) ||
      !lines_of ((int) c.ty, (int) c.tx, false, g->facts.shared_optin, &columns))
    {
      snprintf (message, size, "the GPU's transforms take sides of primes 2, 3, 5 and 7 up "
                "to %lld, not the %lldx%lld canvas", (long long) side_max,
                (long long) c.tx, (long long) c.ty);
      return CC_ERROR_UNSUPPORTED;
    }
  plane_bytes = sizeof (float) * (size_t) job->width * job->height * K;
  canvas_bytes = sizeof (float2) * (size_t) c.tx * c.ty;
  /* The blur's rows' spectra, at most as many rows as the canvas's. */
  spectra_bytes = sizeof (double2) * (size_t) c.tx *
                  (size_t) (job->blur->height < c.ty ? job->blur->height : c.ty);
  needed = plane_bytes + 2 * canvas_bytes + spectra_bytes;
  if (budget && needed > budget)
    {
      snprintf (message, size, "Wiener's %lldx%lld canvas needs %.1f MB of the GPU, past "
                "the device budget of %.1f MB", (long long) c.tx, (long long) c.ty,
                needed / 1048576.0, budget / 1048576.0);
      return CC_ERROR_OUT_OF_MEMORY;
    }

  maps = (int *) malloc (sizeof (int) * (size_t) (c.tx + c.ty));
  if (!maps || !(blur = fold_blur (job->blur, &c, &bw, &bh, &bx, &by)))
    {
      free (maps);
      snprintf (message, size, "out of host memory for Wiener's maps");
      return CC_ERROR_OUT_OF_MEMORY;
    }
  for (int64_t y = 0; y < c.ty; y++)
    maps[y] = (int) cc_border_map (y - c.top, job->height, job->border);
  for (int64_t x = 0; x < c.tx; x++)
    maps[c.ty + x] = (int) cc_border_map (x - c.left, job->width, job->border);

  if ((err = cudaMalloc (&b.canvas, canvas_bytes)) != cudaSuccess ||
      (err = cudaMalloc (&b.filter, canvas_bytes)) != cudaSuccess ||
      (err = cudaMalloc (&b.maps, sizeof (int) * (size_t) (c.tx + c.ty))) != cudaSuccess ||
      (err = cudaMalloc (&b.blur, sizeof (double) * (size_t) bw * bh)) != cudaSuccess ||
      (err = cudaMalloc (&b.spectra, spectra_bytes)) != cudaSuccess ||
      (err = cudaMalloc (&b.twiddles, sizeof (double2) * (size_t) (c.tx + c.ty))) !=
        cudaSuccess)
    {
      cudaGetLastError ();
      status = cc_gpu_status_of (err);
      snprintf (message, size, "no room on the GPU for Wiener's %lldx%lld canvas and its "
                "filter (%zu MB with the image's planes)", (long long) c.tx, (long long) c.ty,
                needed >> 20);
      goto out;
    }
  if ((err = cudaMemcpy (b.maps, maps, sizeof (int) * (size_t) (c.tx + c.ty),
                         cudaMemcpyHostToDevice)) != cudaSuccess ||
      (err = cudaMemcpy (b.blur, blur, sizeof (double) * (size_t) bw * bh,
                         cudaMemcpyHostToDevice)) != cudaSuccess ||
      (err = cudaFuncSetAttribute (wiener_lines, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) (rows.shared > columns.shared
                                          ? rows.shared : columns.shared))) != cudaSuccess)
    {
      status = failed (err, "copying Wiener's job to the GPU failed", message, size);
      goto out;
    }

  /* The filter, once a job: the blur's spectrum by direct DFTs in double.
   * Made by the float transforms, its rounding, magnified where the blur
   * all but erases a frequency, put the restoring of a sharp image from a
   * 1023x1023 blur (values to 100) 7e-4 from the CPU's (test-gpu, H200);
   * FFTW's float result is itself 4e-4 from a double one there. */
  wiener_twiddles<<<(unsigned) ((c.tx + 255) / 256), 256>>> (b.twiddles, (int) c.tx);
  wiener_twiddles<<<(unsigned) ((c.ty + 255) / 256), 256>>> (b.twiddles + c.tx, (int) c.ty);
  wiener_blur_rows<<<grid_over ((int) c.tx, bh), 256>>> (b.spectra, b.blur, b.twiddles, bw, bh,
                                                        bx, (int) c.tx);
  wiener_filter<<<grid_over ((int) c.tx, (int) c.ty), 256>>> (b.filter, b.spectra,
                                                               b.twiddles + c.tx, bh, by,
                                                               (int) c.tx, (int) c.ty,
                                                               job->noise);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    {
      status = failed (err, "Wiener's filter", message, size);
      goto out;
    }
  if (job->tick && job->tick (0.0, job->data))
    {
      status = CC_ERROR_CANCELLED;
      snprintf (message, size, "cancelled");
      goto out;
    }
  for (int k = 0; k < K; k += 2)
    {
      const int k1 = k + 1 < K ? k + 1 : -1;

      wiener_fill<<<grid_over ((int) c.tx, (int) c.ty), 256>>> (b.canvas, job->observed, b.maps,
                                                                b.maps + c.ty, (int) c.tx,
                                                                (int) c.ty, w, K, k, k1,
                                                                job->border == CC_BORDER_WHITE
                                                                ? 1.0f : 0.0f);
      launch_lines (rows, b.canvas, NULL, (int) c.tx, true);
      launch_lines (columns, b.canvas, b.filter, (int) c.tx, false);
      launch_lines (rows, b.canvas, NULL, (int) c.tx, true);
      wiener_extract<<<grid_over (w, h), 256>>> (job->restored, b.canvas, (int) c.tx, (int) c.left,
                                                 (int) c.top, w, h, K, k, k1);
      /* Each pair finished before its progress is told and cancel asked. */
      if ((err = cudaGetLastError ()) != cudaSuccess ||
          (err = cudaStreamSynchronize (0)) != cudaSuccess)
        {
          status = failed (err, "Wiener's transforms", message, size);
          goto out;
        }
      if (job->tick && job->tick ((double) (k1 < 0 ? K : k + 2) / K, job->data))
        {
          status = CC_ERROR_CANCELLED;
          snprintf (message, size, "cancelled");
          goto out;
        }
    }

out:
  buffers_free (&b);
  free (maps);
  free (blur);
  return status;
}

extern const void *const cc_module_wiener = (const void *) wiener_lines;
