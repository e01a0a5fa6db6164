/* Method "fft": the input region a strip needs (its output plus the mask's
 * halo, border resolved) is padded into planes whose sides have only the
 * factors 2, 3, 5 and 7, transformed, multiplied by the conjugate of the
 * mask's spectrum (correlation, as the definition is), and transformed
 * back: by cuFFT, but for tiles 256 to 2048 tall, whose column transforms
 * and product are one kernel of this file (fft_columns).  cuFFT is loaded
 * with dlopen on first use, so the plug-in and the tool run where it is
 * absent; then this method says so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cufft.h>   /* types only: the library is loaded at run time */

#include "gpu.cuh"

typedef cufftResult (*PlanManyFn) (cufftHandle *, int, int *, int *, int, int, int *, int,
                                   int, cufftType, int);
typedef cufftResult (*ExecR2CFn) (cufftHandle, cufftReal *, cufftComplex *);
typedef cufftResult (*ExecC2RFn) (cufftHandle, cufftComplex *, cufftReal *);
typedef cufftResult (*SetStreamFn) (cufftHandle, cudaStream_t);
typedef cufftResult (*DestroyFn) (cufftHandle);

static struct
{
  pthread_once_t once;
  char           why[256];   /* empty when loaded */
  PlanManyFn     plan_many;
  ExecR2CFn      exec_r2c;
  ExecC2RFn      exec_c2r;
  SetStreamFn    set_stream;
  DestroyFn      destroy;
} cufft = { PTHREAD_ONCE_INIT };

static void
load_cufft (void)
{
  CcEnv env;
  const char *names[] = { NULL, "libcufft.so.12", CUDA_LIB_DIR "/libcufft.so.12",
                          "/usr/local/cuda/lib64/libcufft.so.12", "libcufft.so" };
  void *lib = NULL;

  cc_env_read (&env);
  names[0] = env.cufft;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
    if (names[i] && *names[i])
      lib = dlopen (names[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    {
      snprintf (cufft.why, sizeof cufft.why,
                "cuFFT (libcufft.so.12) was not found; set CUDA_CONVOLVE_CUFFT to its path");
      return;
    }
  cufft.plan_many  = (PlanManyFn) dlsym (lib, "cufftPlanMany");
  cufft.exec_r2c   = (ExecR2CFn) dlsym (lib, "cufftExecR2C");
  cufft.exec_c2r   = (ExecC2RFn) dlsym (lib, "cufftExecC2R");
  cufft.set_stream = (SetStreamFn) dlsym (lib, "cufftSetStream");
  cufft.destroy    = (DestroyFn) dlsym (lib, "cufftDestroy");
  if (!cufft.plan_many || !cufft.exec_r2c || !cufft.exec_c2r || !cufft.set_stream ||
      !cufft.destroy)
    snprintf (cufft.why, sizeof cufft.why, "the cuFFT library found lacks cufftPlanMany");
}

bool
cc_fft_available (char *message, size_t size)
{
  pthread_once (&cufft.once, load_cufft);
  if (cufft.why[0])
    snprintf (message, size, "%s", cufft.why);
  return !cufft.why[0];
}

/* The smallest even n >= x whose only prime factors are 2, 3, 5 and 7. */
static int
smooth (int x)
{
  static const int primes[] = { 2, 3, 5, 7 };

  for (int n = x + (x & 1);; n += 2)
    {
      int m = n;
      for (int p : primes)
        while (m % p == 0)
          m /= p;
      if (m == 1)
        return n;
    }
}

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
 * root of the 2D figure, this method's passes over the planes included):
 * powers of two from 256 to 1024 cost within 4% of each other, 2048 6%
 * more, 4096 12%, and other sides, whose transforms take cuFFT 1.3 to 3
 * times as long a point, some 70% more (measured on an H200:
 * docs/performance.md). */
static double
side_cost (int t)
{
  if (t & (t - 1))
    return 1.34;
  return t == 256 ? 0.79 : t == 512 ? 0.81 : t == 1024 ? 0.78 : t == 2048 ? 0.83 : 0.87;
}

/* The side, power of two or one smooth transform of the whole length, whose
 * tiles cost least; for a 4096-pixel side that is 256 up to 25 taps, 512 to
 * 31 and 1024 beyond, where the halo would eat more of a smaller tile. */
static Axis
axis_for (int length, int mask)
{
  Axis best;

  best.t = smooth (length + mask - 1);
  best.s = length;
  best.tiles = 1;
  for (int t = 256; t <= 4096; t *= 2)
    {
      const int s = t - (mask - 1);
      const int tiles = s > 0 ? (length + s - 1) / s : 0;

      if (tiles > 0 && (double) tiles * t * side_cost (t) <
                       (double) best.tiles * best.t * side_cost (best.t))
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
  int    transforms;  /* tiles x channels */
};

static Shape
shape_for (int w, int h, int mw, int mh, int channels)
{
  Shape s;

  s.x = axis_for (w, mw);
  /* A one-row mask needs no transform down the columns: each row a tile. */
  s.y = mh == 1 ? Axis { 1, 1, h } : axis_for (h, mh);
  s.pitch = 2 * (s.x.t / 2 + 1);
  s.plane = (size_t) s.pitch * s.y.t;
  s.transforms = s.x.tiles * s.y.tiles * channels;
  return s;
}

size_t
cc_fft_bytes (int w, int h, int mw, int mh, int channels)
{
  const Shape s = shape_for (w, h, mw, mh, channels);

  return sizeof (float) * s.plane * s.transforms;
}

/* ---- kernels ---- */

/* Each tile's transform input: its output rectangle plus the halo, border
 * resolved; one thread a column of the tiles laid side by side. */
template <int C>
__global__ void
fft_pad (const __grid_constant__ ConvArgs a, float *planes, Shape s)
{
  const int gx = blockIdx.x * blockDim.x + threadIdx.x;
  const int tx = gx / s.pitch, u = gx % s.pitch;

  if (tx >= s.x.tiles)
    return;
  for (int gy = blockIdx.y; gy < s.y.tiles * s.y.t; gy += gridDim.y)
    {
      const int ty = gy / s.y.t, v = gy % s.y.t;
      const GlobalRow<C> row = global_row<C> (a, a.out_y - (a.mask_height - 1) / 2 +
                                                 ty * s.y.s + v);
      float *p = planes + (size_t) (ty * s.x.tiles + tx) * C * s.plane + (size_t) v * s.pitch + u;
      float val[C];

      if (row.present () && u < s.x.t)
        row (a.out_x - (a.mask_width - 1) / 2 + tx * s.x.s + u, val);
      else
#pragma unroll
        for (int c = 0; c < C; c++)
          val[c] = 0.0f;
#pragma unroll
      for (int c = 0; c < C; c++)
        p[c * s.plane] = val[c];
    }
}

/* x *= conj (mask) * scale, for every transform's spectrum: blocks across
 * a spectrum and down the transforms, so that many small transforms (a row
 * each, for a one-row mask) keep as many threads busy as a few large ones. */
__global__ void
fft_multiply (float2 *spectra, const float2 *mask, size_t n, int transforms, size_t stride,
              float scale)
{
  for (int b = blockIdx.y; b < transforms; b += gridDim.y)
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
         i += (size_t) gridDim.x * blockDim.x)
      {
        const float2 m = mask[i];
        float2 *x = spectra + b * stride + i;
        const float2 v = *x;

        *x = make_float2 ((v.x * m.x + v.y * m.y) * scale, (v.y * m.x - v.x * m.y) * scale);
      }
}

/* ---- The transforms down the columns, with the product, in one kernel ----
 *
 * Where a tile's side down is a power of two from 256 to 2048, cuFFT
 * transforms only the rows (a 1D transform each, forward and back), and one
 * kernel does the rest: a block takes COLS adjacent columns of a tile's
 * row spectra, transforms them down in shared memory, multiplies by the
 * conjugate of the mask's spectrum, transforms back and writes them where
 * it read them.  cuFFT's 2D transforms each read and wrote every spectrum
 * twice (rows, then columns) and the product once more; here the column
 * transforms and the product read and write it once.  The transforms are
 * Stockham's, radix 8 and 16, three passes at most, each from one buffer
 * in shared memory to the other in natural order; the inverse is the
 * forward transform of the conjugate, conjugated. */
constexpr int COLUMN_THREADS = 256;
constexpr int COLUMN_POINTS = 4096;   /* a block's: 16 a thread */
constexpr int COLUMN_MIN = 256, COLUMN_MAX = 2048;

/* Columns a block. */
__host__ __device__ constexpr int
column_count (int t)
{
  return COLUMN_POINTS / t;
}

static bool
columns_take (int t)
{
  return t >= COLUMN_MIN && t <= COLUMN_MAX && !(t & (t - 1));
}

__device__ __forceinline__ float2
cmul (float2 a, float2 b)
{
  return make_float2 (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* Forward DFTs of 4, 8 and 16 points, in place, in natural order. */
template <int R>
__device__ __forceinline__ void
dft (float2 *u);

template <>
__device__ __forceinline__ void
dft<4> (float2 *u)
{
  const float2 a0 = make_float2 (u[0].x + u[2].x, u[0].y + u[2].y);
  const float2 a1 = make_float2 (u[0].x - u[2].x, u[0].y - u[2].y);
  const float2 b0 = make_float2 (u[1].x + u[3].x, u[1].y + u[3].y);
  const float2 b1 = make_float2 (u[1].y - u[3].y, u[3].x - u[1].x);   /* -i (u1 - u3) */

  u[0] = make_float2 (a0.x + b0.x, a0.y + b0.y);
  u[1] = make_float2 (a1.x + b1.x, a1.y + b1.y);
  u[2] = make_float2 (a0.x - b0.x, a0.y - b0.y);
  u[3] = make_float2 (a1.x - b1.x, a1.y - b1.y);
}

template <>
__device__ __forceinline__ void
dft<8> (float2 *u)
{
  const float r = 0.70710678118654752f;
  float2 e[4] = { u[0], u[2], u[4], u[6] }, o[4] = { u[1], u[3], u[5], u[7] };

  dft<4> (e);
  dft<4> (o);
  /* o[k] times e^(-2 pi i k / 8) */
  o[1] = make_float2 ((o[1].x + o[1].y) * r, (o[1].y - o[1].x) * r);
  o[2] = make_float2 (o[2].y, -o[2].x);
  o[3] = make_float2 ((o[3].y - o[3].x) * r, -(o[3].x + o[3].y) * r);
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      u[k] = make_float2 (e[k].x + o[k].x, e[k].y + o[k].y);
      u[k + 4] = make_float2 (e[k].x - o[k].x, e[k].y - o[k].y);
    }
}

/* 16 points as 4 x 4: DFTs of 4 down, twiddles W16^(n2 k1), DFTs of 4
 * across; input 4 n1 + n2, output k1 + 4 k2. */
template <>
__device__ __forceinline__ void
dft<16> (float2 *u)
{
  /* cos and sin of 2 pi m / 16, m = 0 .. 9 */
  const float c16[10] = { 1.0f, 0.92387953f, 0.70710678f, 0.38268343f, 0.0f,
                          -0.38268343f, -0.70710678f, -0.92387953f, -1.0f, -0.92387953f };
  const float s16[10] = { 0.0f, 0.38268343f, 0.70710678f, 0.92387953f, 1.0f,
                          0.92387953f, 0.70710678f, 0.38268343f, 0.0f, -0.38268343f };
  float2 a[4][4];

#pragma unroll
  for (int n2 = 0; n2 < 4; n2++)
    {
#pragma unroll
      for (int n1 = 0; n1 < 4; n1++)
        a[n2][n1] = u[4 * n1 + n2];
      dft<4> (a[n2]);
#pragma unroll
      for (int k1 = 1; k1 < 4; k1++)
        if (n2 > 0)
          a[n2][k1] = cmul (a[n2][k1], make_float2 (c16[n2 * k1], -s16[n2 * k1]));
    }
#pragma unroll
  for (int k1 = 0; k1 < 4; k1++)
    {
      float2 b[4] = { a[0][k1], a[1][k1], a[2][k1], a[3][k1] };

      dft<4> (b);
#pragma unroll
      for (int k2 = 0; k2 < 4; k2++)
        u[k1 + 4 * k2] = b[k2];
    }
}

/* What a pass does with its results: keeps them; keeps
 * conj (x * conj (mask)) * scale (the product, conjugated for the
 * inverse); or writes their conjugates (the inverse done). */
enum { KEEP, MULTIPLY, WRITE_BACK };

/* The mask's spectrum at the block's first column, 'stride' complex a row,
 * and the scale cuFFT leaves out folded with the divisor. */
struct MaskAt
{
  const float2 *p;
  int           stride;
  float         scale;
};

/* Where a pass reads and writes: element (row y, column c) of the COLS
 * columns at p[y' * stride + c], y' = y, or with gaps y + y / 16: a gap
 * row every 16, so that a first pass's outputs, R rows apart from one
 * thread to the next, fall on different banks.  Columns from 'valid' on
 * lie past the spectrum's edge, read as zeros and not written. */
struct ColumnsAt
{
  float2 *p;
  int     stride;
  int     valid;
  bool    gaps;

  __device__ __forceinline__ float2 &
  at (int y, int c) const
  {
    return p[(gaps ? y + (y >> 4) : y) * stride + c];
  }
};

/* Whether shared memory has the gaps: they gained 3% on sides of 256 and
 * cost 3% on 1024 (docs/performance.md). */
__host__ __device__ constexpr bool
column_gaps (int t)
{
  return t <= 512;
}

/* Rows a buffer in shared memory takes. */
__host__ __device__ constexpr int
buffer_rows (int t)
{
  return column_gaps (t) ? t + t / 16 : t;
}

/* One Stockham pass of radix R over the COLS columns of T points, P the
 * length of the transforms done so far: input i + j T / R, twiddled by
 * W^(j k T / (P R)) (k = i mod P), goes through a DFT to output
 * (i - k) R + k + j P.  It writes elsewhere than it reads, so each
 * butterfly is written as soon as it is done, and one block barrier
 * follows. */
template <int T, int COLS, int R, int P, int OP>
__device__ __forceinline__ void
column_pass (ColumnsAt in, ColumnsAt out, const float2 *tw, MaskAt mask)
{
  constexpr int ITEMS = T * COLS / (R * COLUMN_THREADS);
  static_assert (ITEMS * R * COLUMN_THREADS == T * COLS, "whole butterflies a thread");

#pragma unroll
  for (int q = 0; q < ITEMS; q++)
    {
      const int w = threadIdx.x + q * COLUMN_THREADS, c = w % COLS, i = w / COLS;
      const int k = i & (P - 1), base = (i - k) * R + k;
      float2 v[R];

#pragma unroll
      for (int j = 0; j < R; j++)
        v[j] = c < in.valid ? in.at (i + j * (T / R), c) : make_float2 (0.0f, 0.0f);
      if (P > 1)
        {
          /* W^(j m), m = k T / (P R): the powers of two of it from the
           * table, the rest as their products (at most three roundings). */
          float2 w[R];

#pragma unroll
          for (int j = 1; j < R; j++)
            w[j] = (j & (j - 1)) == 0 ? __ldg (tw + j * k * (T / (P * R)))
                                      : cmul (w[j & (j - 1)], w[j & -j]);
#pragma unroll
          for (int j = 1; j < R; j++)
            v[j] = cmul (v[j], w[j]);
        }
      dft<R> (v);
#pragma unroll
      for (int j = 0; j < R; j++)
        {
          const int y = base + j * P;
          const float2 r = v[j];

          if (OP == MULTIPLY)
            {
              const float2 m = c < out.valid ? __ldg (mask.p + y * mask.stride + c)
                                             : make_float2 (0.0f, 0.0f);

              out.at (y, c) = make_float2 ((r.x * m.x + r.y * m.y) * mask.scale,
                                           (r.x * m.y - r.y * m.x) * mask.scale);
            }
          else if (OP == WRITE_BACK)
            {
              if (c < out.valid)
                out.at (y, c) = make_float2 (r.x, -r.y);
            }
          else
            out.at (y, c) = r;
        }
    }
  __syncthreads ();
}

/* A pass's radix, 'rem' the length still to be taken: 16 x 16, 8 x 8 x 8,
 * 16 x 8 x 8, 16 x 8 x 16, so that no side takes more than three passes. */
__host__ __device__ constexpr int
column_radix (int rem)
{
  return rem == 16 || rem == 256 || rem >= 1024 ? 16 : 8;
}

__host__ __device__ constexpr int
column_pass_count (int t)
{
  int n = 0;

  for (int p = 1; p < t; p *= column_radix (t / p))
    n++;
  return n;
}

/* The passes after the first, reading buf[from] and writing the other
 * buffer by turns, the last doing OP into 'last'. */
template <int T, int COLS, int P, int OP>
__device__ __forceinline__ void
column_passes (float2 *const buf[2], int from, ColumnsAt last, const float2 *tw, MaskAt mask)
{
  constexpr int R = column_radix (T / P);
  constexpr bool G = column_gaps (T);
  const ColumnsAt in = { buf[from], COLS, COLS, G }, out = { buf[from ^ 1], COLS, COLS, G };

  if constexpr (P * R == T)
    column_pass<T, COLS, R, P, OP> (in, last, tw, mask);
  else
    {
      column_pass<T, COLS, R, P, KEEP> (in, out, tw, mask);
      column_passes<T, COLS, P * R, OP> (buf, from ^ 1, last, tw, mask);
    }
}

/* A block's COLS columns of one transform's row spectra ('cols' complex a
 * row, 'stride' apart from one transform to the next): down, times the
 * mask's conjugate spectrum (laid out as one transform's), and back. */
template <int T>
__global__ void __launch_bounds__ (COLUMN_THREADS, 2)
fft_columns (float2 *spectra, const float2 *mask, const float2 *tw, int cols, int groups,
             size_t stride, float scale)
{
  constexpr int COLS = column_count (T);
  extern __shared__ float2 column_shared[];
  const int kx0 = (int) (blockIdx.x % groups) * COLS;
  constexpr int N = column_pass_count (T), R = column_radix (T);
  constexpr bool G = column_gaps (T);
  const ColumnsAt global = { spectra + blockIdx.x / groups * stride + kx0, cols,
                             min (COLS, cols - kx0), false };
  float2 *const buf[2] = { column_shared, column_shared + buffer_rows (T) * COLS };
  const MaskAt m = { mask + kx0, cols, scale };
  /* The product's columns past the edge are zeros, so those of the
   * inverse stay so. */
  const ColumnsAt product = { buf[(N - 1) % 2], COLS, global.valid, G };

  column_pass<T, COLS, R, 1, KEEP> (global, ColumnsAt { buf[0], COLS, COLS, G }, tw, m);
  column_passes<T, COLS, R, MULTIPLY> (buf, 0, product, tw, m);
  column_pass<T, COLS, R, 1, KEEP> (product, ColumnsAt { buf[N % 2], COLS, COLS, G }, tw, m);
  column_passes<T, COLS, R, WRITE_BACK> (buf, N % 2, global, tw, m);
}

/* W^m = e^(-2 pi i m / t) for m < t, from double precision. */
__global__ void
fft_twiddles (float2 *tw, int t)
{
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  double s, c;

  if (m >= t)
    return;
  sincospi (-2.0 * m / t, &s, &c);
  tw[m] = make_float2 ((float) c, (float) s);
}

template <int T>
static cudaError_t
launch_columns_t (float2 *spectra, const float2 *mask, const float2 *tw, int cols,
                  int transforms, size_t stride, float scale, cudaStream_t stream)
{
  constexpr int COLS = column_count (T);
  const int groups = (cols + COLS - 1) / COLS;
  const size_t shared = 2 * sizeof (float2) * buffer_rows (T) * COLS;
  cudaError_t err;

  if ((err = cudaFuncSetAttribute (fft_columns<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  fft_columns<T><<<(unsigned) groups * transforms, COLUMN_THREADS, shared, stream>>>
    (spectra, mask, tw, cols, groups, stride, scale);
  return cudaGetLastError ();
}

static cudaError_t
launch_columns (int t, float2 *spectra, const float2 *mask, const float2 *tw, int cols,
                int transforms, size_t stride, float scale, cudaStream_t stream)
{
  switch (t)
    {
    case 256:  return launch_columns_t<256> (spectra, mask, tw, cols, transforms, stride, scale, stream);
    case 512:  return launch_columns_t<512> (spectra, mask, tw, cols, transforms, stride, scale, stream);
    case 1024: return launch_columns_t<1024> (spectra, mask, tw, cols, transforms, stride, scale, stream);
    case 2048: return launch_columns_t<2048> (spectra, mask, tw, cols, transforms, stride, scale, stream);
    default:   return cudaErrorInvalidValue;
    }
}

template <int C>
__global__ void
fft_finish (const __grid_constant__ ConvArgs a, const float *planes, Shape s, int copies)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int tx = x / s.x.s, u = x % s.x.s;

  if (x >= a.dst.width)
    return;
  for (int y = blockIdx.y; y < a.dst.height; y += gridDim.y)
    {
      const int ty = y / s.y.s, v = y % s.y.s;
      const float *p = planes + (size_t) (ty * s.x.tiles + tx) * C * s.plane +
                       (size_t) v * s.pitch + u;
      float *out = a.dst.data + y * a.dst.pitch + (long long) x * C;
      float val[C], centre[C];

      if (copies)
        global_row<C> (a, a.out_y + y) (a.out_x + x, centre);
#pragma unroll
      for (int c = 0; c < C; c++)
        val[c] = copies && a.mode[c] == CC_MODE_COPY
                 ? centre[c] : cc_finish (p[c * s.plane], 1.0f, a.offset, a.clamp);
      if (C == 4 && a.dst.pitch % 4 == 0)
        *reinterpret_cast<float4 *> (out) = make_float4 (val[0], val[1], val[2], val[C - 1]);
      else
#pragma unroll
        for (int c = 0; c < C; c++)
          out[c] = val[c];
    }
}

/* ---- plans and the mask's spectrum, kept between calls ---- */

struct CcFftState
{
  cufftHandle fwd, inv, mask_plan;
  Shape       shape;
  bool        planned;
  float2     *mask_spectrum;
  float      *mask_key;       /* the mask (host copy) the spectrum is of */
  int         key_w, key_h;
  float2     *twiddles;       /* fft_columns's, for a side of twiddle_t */
  int         twiddle_t;
};

CcFftState *
cc_fft_state_new (void)
{
  return (CcFftState *) calloc (1, sizeof (CcFftState));
}

static void
drop_plans (CcFftState *st)
{
  if (st->planned)
    {
      cufft.destroy (st->fwd);
      cufft.destroy (st->inv);
      cufft.destroy (st->mask_plan);
    }
  st->planned = false;
  cudaFree (st->mask_spectrum);
  st->mask_spectrum = NULL;
  free (st->mask_key);
  st->mask_key = NULL;
}

void
cc_fft_state_free (CcFftState *st)
{
  if (!st)
    return;
  drop_plans (st);
  cudaFree (st->twiddles);
  free (st);
}

static cudaError_t
cufft_error (cufftResult r)
{
  return r == CUFFT_SUCCESS ? cudaSuccess
       : r == CUFFT_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

/* Rank 1, a row each, where the transforms are a row each (a one-row mask)
 * or fft_columns transforms the columns; rank 2 otherwise.  The mask's
 * spectrum is always a whole 2D one. */
static cudaError_t
make_plans (CcFftState *st, Shape s)
{
  const bool rows = s.y.t == 1 || columns_take (s.y.t);
  const int rank = rows ? 1 : 2, mask_rank = s.y.t == 1 ? 1 : 2;
  int n[2] = { s.y.t, s.x.t };
  int real_embed[2] = { s.y.t, s.pitch };
  int complex_embed[2] = { s.y.t, s.pitch / 2 };
  int *const dims = n + 2 - rank, *const re = real_embed + 2 - rank,
      *const ce = complex_embed + 2 - rank;
  const int real_dist = rows ? s.pitch : (int) s.plane;
  const int complex_dist = real_dist / 2;
  const int batch = rows ? s.transforms * s.y.t : s.transforms;
  cufftResult r;

  drop_plans (st);
  if ((r = cufft.plan_many (&st->fwd, rank, dims, re, 1, real_dist, ce, 1, complex_dist,
                            CUFFT_R2C, batch)) != CUFFT_SUCCESS)
    return cufft_error (r);
  if ((r = cufft.plan_many (&st->inv, rank, dims, ce, 1, complex_dist, re, 1, real_dist,
                            CUFFT_C2R, batch)) != CUFFT_SUCCESS)
    {
      cufft.destroy (st->fwd);
      return cufft_error (r);
    }
  if ((r = cufft.plan_many (&st->mask_plan, mask_rank, n + 2 - mask_rank,
                            real_embed + 2 - mask_rank, 1, (int) s.plane,
                            complex_embed + 2 - mask_rank, 1, (int) s.plane / 2, CUFFT_R2C,
                            1)) != CUFFT_SUCCESS)
    {
      cufft.destroy (st->fwd);
      cufft.destroy (st->inv);
      return cufft_error (r);
    }
  st->planned = true;
  st->shape = s;
  return cudaSuccess;
}

/* The mask's spectrum at this shape, computed once per mask. */
static cudaError_t
mask_spectrum (CcFftState *st, const float *mask, int mw, int mh, cudaStream_t stream)
{
  const Shape s = st->shape;
  const size_t bytes = sizeof (float) * s.plane;
  cudaError_t err;
  cufftResult r;

  if (st->mask_spectrum && st->key_w == mw && st->key_h == mh &&
      memcmp (st->mask_key, mask, sizeof (float) * mw * mh) == 0)
    return cudaSuccess;
  free (st->mask_key);
  st->mask_key = (float *) malloc (sizeof (float) * mw * mh);
  if (!st->mask_key)
    return cudaErrorMemoryAllocation;
  if (!st->mask_spectrum && (err = cudaMalloc (&st->mask_spectrum, bytes)) != cudaSuccess)
    return err;
  /* The mask at the origin of a zero plane. */
  if ((err = cudaMemsetAsync (st->mask_spectrum, 0, bytes, stream)) != cudaSuccess ||
      (err = cudaMemcpy2DAsync (st->mask_spectrum, sizeof (float) * s.pitch, mask,
                                sizeof (float) * mw, sizeof (float) * mw, mh,
                                cudaMemcpyHostToDevice, stream)) != cudaSuccess)
    return err;
  cufft.set_stream (st->mask_plan, stream);
  if ((r = cufft.exec_r2c (st->mask_plan, (cufftReal *) st->mask_spectrum,
                           (cufftComplex *) st->mask_spectrum)) != CUFFT_SUCCESS)
    return cufft_error (r);
  memcpy (st->mask_key, mask, sizeof (float) * mw * mh);
  st->key_w = mw;
  st->key_h = mh;
  return cudaSuccess;
}

/* fft_columns's twiddles for a side of t, made when the side changes. */
static cudaError_t
twiddles (CcFftState *st, int t, cudaStream_t stream)
{
  cudaError_t err;

  if (st->twiddle_t == t)
    return cudaSuccess;
  cudaFree (st->twiddles);
  st->twiddles = NULL;
  st->twiddle_t = 0;
  if ((err = cudaMalloc (&st->twiddles, sizeof (float2) * COLUMN_MAX)) != cudaSuccess)
    return err;
  fft_twiddles<<<(t + 255) / 256, 256, 0, stream>>> (st->twiddles, t);
  if ((err = cudaGetLastError ()) == cudaSuccess)
    st->twiddle_t = t;
  return err;
}

template <int C>
static void
launch_pad_finish (const ConvArgs &a, float *planes, Shape s, bool finish, int copies,
                   cudaStream_t stream)
{
  const int w = finish ? a.dst.width : s.x.tiles * s.pitch;
  const int h = finish ? a.dst.height : s.y.tiles * s.y.t;
  const dim3 block (256), grid ((w + 255) / 256, h < 65535 ? h : 65535);

  if (finish)
    fft_finish<C><<<grid, block, 0, stream>>> (a, planes, s, copies);
  else
    fft_pad<C><<<grid, block, 0, stream>>> (a, planes, s);
}

static void
pad_finish (const ConvArgs &a, float *planes, Shape s, bool finish, cudaStream_t stream)
{
  int copies = 0;

  for (int c = 0; c < a.channels; c++)
    copies |= a.mode[c] == CC_MODE_COPY;
  switch (a.channels)
    {
    case 1: launch_pad_finish<1> (a, planes, s, finish, copies, stream); break;
    case 2: launch_pad_finish<2> (a, planes, s, finish, copies, stream); break;
    case 3: launch_pad_finish<3> (a, planes, s, finish, copies, stream); break;
    default: launch_pad_finish<4> (a, planes, s, finish, copies, stream); break;
    }
}

cudaError_t
cc_fft_launch (CcFftState *st, const ConvArgs &a, const float *mask, float *planes,
               cudaStream_t stream)
{
  const Shape s = shape_for (a.dst.width, a.dst.height, a.mask_width, a.mask_height,
                             a.channels);
  const size_t n = s.plane / 2;
  cudaError_t err;
  cufftResult r;

  if (!st->planned || st->shape.x.t != s.x.t || st->shape.y.t != s.y.t ||
      st->shape.transforms != s.transforms)
    if ((err = make_plans (st, s)) != cudaSuccess)
      return err;
  st->shape = s;
  if ((err = mask_spectrum (st, mask, a.mask_width, a.mask_height, stream)) != cudaSuccess ||
      (columns_take (s.y.t) && (err = twiddles (st, s.y.t, stream)) != cudaSuccess))
    return err;

  pad_finish (a, planes, s, false, stream);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return err;
  cufft.set_stream (st->fwd, stream);
  cufft.set_stream (st->inv, stream);
  if ((r = cufft.exec_r2c (st->fwd, planes, (cufftComplex *) planes)) != CUFFT_SUCCESS)
    return cufft_error (r);
  /* cuFFT leaves the size out; fold it in with the divisor. */
  const float scale = a.inv_divisor / ((float) s.x.t * s.y.t);
  if (columns_take (s.y.t))
    err = launch_columns (s.y.t, (float2 *) planes, st->mask_spectrum, st->twiddles,
                          s.pitch / 2, s.transforms, s.plane / 2, scale, stream);
  else
    {
      const dim3 grid (n / 256 + 1 < 4096 ? (unsigned) (n / 256 + 1) : 4096,
                       s.transforms < 65535 ? s.transforms : 65535);

      fft_multiply<<<grid, 256, 0, stream>>> ((float2 *) planes, st->mask_spectrum, n,
                                              s.transforms, s.plane / 2, scale);
      err = cudaGetLastError ();
    }
  if (err != cudaSuccess)
    return err;
  if ((r = cufft.exec_c2r (st->inv, (cufftComplex *) planes, planes)) != CUFFT_SUCCESS)
    return cufft_error (r);
  pad_finish (a, planes, s, true, stream);
  return cudaGetLastError ();
}

static CcStatus
check (const CcJob *job, size_t *shared, char *message, size_t size)
{
  if (!cc_fft_available (message, size))
    return CC_ERROR_UNSUPPORTED;
  if (job->weighted)
    {
      snprintf (message, size, "fft does not weight colour by alpha; turn alpha "
                "weighting off or choose another method");
      return CC_ERROR_UNSUPPORTED;
    }
  *shared = 0;
  return CC_OK;
}

static cudaError_t
launch (struct _CcGpu *g, const CcJob *job, const ConvArgs &a, float *pass, float *planes,
        cudaStream_t stream)
{
  if (!g->fft && !(g->fft = cc_fft_state_new ()))
    return cudaErrorMemoryAllocation;
  return cc_fft_launch (g->fft, a, job->mask, planes, stream);
}

/* The mask's spectrum is made, and kept, at the launch. */
extern "C" const CcKernels cc_kernels_fft =
  { check, NULL, launch, /* constant */ false, /* one_lane */ true, /* passes */ false,
    /* planes */ true };
