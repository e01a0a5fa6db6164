/* fft's third room: the transforms down the columns with the mask's
 * product, and their launchers.  Included by fft.cu only (one module).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FFT_COLUMNS_CUH
#define CC_FFT_COLUMNS_CUH

#include "fft-dft.cuh"

/* The mask's spectrum a transform is multiplied by: |mask|'s (abs, where
 * given) for each tile's last, the weight's; the mask's for the others. */
__device__ __forceinline__ const float2 *
tile_spectrum (const float2 *mask, const float2 *abs, int transform, int per_tile)
{
  return abs && transform % per_tile == per_tile - 1 ? abs : mask;
}

/* conj (x conj (m)) scale: the product with the mask's conjugate spectrum,
 * conjugated for the inverse the column kernels take as a forward
 * transform. */
__device__ __forceinline__ float2
product_for_inverse (float2 x, float2 m, float scale)
{
  return make_float2 ((x.x * m.x + x.y * m.y) * scale, (x.x * m.y - x.y * m.x) * scale);
}

/* ---- The transforms down the columns, with the product, in one kernel ----
 *
 * Where a tile's side down is 256, 512 or 1024, after the rows' transforms
 * one kernel does the rest: a block stages a group of a tile's row-spectrum
 * columns in shared memory (coalesced), and each column's T points go to
 * L = T / 32 lanes of a warp, 32 points a lane, point n to lane n mod L.
 * A lane's 32 points are a DFT of 32 in registers; after the twiddles, one exchange through
 * the column's own slots (the warp's alone, so no block barrier) gives
 * each lane whole DFTs of L across the lanes; then the product with the
 * mask's conjugate spectrum, and the inverse the same way (the forward
 * transform of the conjugate, conjugated).  The spectra are read and
 * written once, with two block barriers: cuFFT's 2D transforms read and
 * wrote them twice each, and the product once more. */
constexpr int COLUMN_THREADS = 256;
constexpr int COLUMN_POINTS = 8192;   /* a block's: 32 a thread */

/* Columns a block, for tiles T tall. */
__host__ __device__ constexpr int
column_count (int t)
{
  return COLUMN_POINTS / t;
}

/* Shared memory holds a block's columns one after another, column c from
 * slot c S + (c / 2 where T = 256), S (column_stride) at least the
 * exchange's 32 (L + 1) slots; S and the skew put the staging's stores (a
 * half warp's 2 rows of 8 columns, or a row of 16) and the exchanges of
 * half warps holding two columns on distinct banks, 8-byte slots counted
 * mod 16. */
__host__ __device__ constexpr int
column_stride (int t)
{
  return t == 1024 ? 1058 : t == 512 ? 545 : 296;
}

__host__ __device__ constexpr int
column_base (int t, int c)
{
  return c * column_stride (t) + (t == 256 ? c / 2 : 0);
}

/* Slots the columns take, then the twiddles' T. */
__host__ __device__ constexpr int
column_slots (int t)
{
  return column_base (t, column_count (t)) + t;
}

/* A column's transform of T = 32 L points by its L lanes (l the lane's
 * place among them), x[n1] holding point l + L n1 before and, after,
 * frequency l + L n1 as well: a DFT of 32 down n1, the twiddles
 * W_T^(l k1) (tw[k1 L + l]), the exchange through the column's slots
 * (element (k1, n2) in slot (L + 1) k1 + n2: both sides' lanes on distinct
 * banks, at offsets known at compile time), then DFTs of L across, the
 * lane taking k1 = l + L q. */
template <int T>
__device__ __forceinline__ void
column_transform (float2 *x, int l, float2 *column, const float2 *tw)
{
  constexpr int L = T / 32, Q = 32 / L;

  dft<32> (x);
  __syncwarp ();   /* keeps the twiddles' loads from being hoisted, and spilled */
#pragma unroll
  for (int k1 = 1; k1 < 32; k1++)
    x[k1] = cmul (x[k1], tw[k1 * L + l]);
  __syncwarp ();
#pragma unroll
  for (int k1 = 0; k1 < 32; k1++)
    column[(L + 1) * k1 + l] = x[k1];
  __syncwarp ();
#pragma unroll
  for (int q = 0; q < Q; q++)
    {
      float2 y[L];

#pragma unroll
      for (int n2 = 0; n2 < L; n2++)
        y[n2] = column[(L + 1) * (l + L * q) + n2];
      dft<L> (y);
#pragma unroll
      for (int k2 = 0; k2 < L; k2++)
        x[q + Q * k2] = y[k2];
    }
}

/* A block's columns of one transform's row spectra (the first 'cols' of
 * 'row' complex a row, transforms 'stride' apart): down, times the
 * conjugate of the mask's spectrum (mask_columns: its columns, T complex
 * each; abs_columns, where given, |mask|'s, for each tile's last) and
 * 'scale', and back. */
template <int T>
__global__ void __launch_bounds__ (COLUMN_THREADS, 2)
fft_columns (float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
             int per_tile, int row, int cols, int groups, size_t stride, float scale)
{
  constexpr int COLS = column_count (T), L = T / 32, Q = 32 / L;
  constexpr int ROWS = COLUMN_THREADS / COLS;   /* staged a step */
  extern __shared__ float2 column_shared[];
  float2 *const tw = column_shared + column_base (T, COLS);
  const int kx0 = (int) (blockIdx.x % groups) * COLS, valid = min (COLS, cols - kx0);
  const int sc = threadIdx.x % COLS, sr = threadIdx.x / COLS;
  float2 *const g = spectra + blockIdx.x / groups * stride + kx0 + sr * row + sc;
  float2 *const staged = column_shared + column_base (T, sc) + sr;
  const int lane = threadIdx.x % 32, col = threadIdx.x / 32 * Q + lane / L, l = lane % L;

  {
    float2 v[T / ROWS];

#pragma unroll
    for (int s = 0; s < T / ROWS; s++)
      v[s] = sc < valid ? g[ROWS * s * row] : make_float2 (0.0f, 0.0f);
#pragma unroll
    for (int s = 0; s < T / ROWS; s++)
      staged[ROWS * s] = v[s];
  }
  for (int e = threadIdx.x; e < T; e += COLUMN_THREADS)
    {
      float sin, cos;

      sincospif (-2.0f * (e % L) * (e / L) / T, &sin, &cos);
      tw[e] = make_float2 (cos, sin);
    }
  __syncthreads ();
  if (threadIdx.x / 32 * Q < valid)
    {
      float2 *const column = column_shared + column_base (T, col);
      const int transform = (int) (blockIdx.x / groups);
      const float2 *const m = tile_spectrum (mask_columns, abs_columns, transform, per_tile) +
                              (size_t) (kx0 + col) * T + l;
      float2 x[32];

#pragma unroll
      for (int n = 0; n < 32; n++)
        x[n] = column[l + L * n];
      /* Forward, the product, then the inverse: one copy of the code, so
       * that both transforms get the same registers. */
#pragma unroll 1
      for (int inverse = 0; inverse < 2; inverse++)
        {
          column_transform<T> (x, l, column, tw);
          if (inverse)
            break;
#pragma unroll
          for (int n = 0; n < 32; n++)
            x[n] = product_for_inverse (x[n], col < valid ? __ldg (m + L * n)
                                                          : make_float2 (0.0f, 0.0f), scale);
        }
      __syncwarp ();
#pragma unroll
      for (int n = 0; n < 32; n++)
        column[l + L * n] = make_float2 (x[n].x, -x[n].y);
    }
  __syncthreads ();
  if (sc < valid)
#pragma unroll
    for (int s = 0; s < T / ROWS; s++)
      g[ROWS * s * row] = staged[ROWS * s];
}

/* ---- Taller columns, and the mask's spectrum: staged whole ----
 *
 * A block stages 4096 points of a transform's row spectra, whole columns of
 * T points (one of 4096, two of 2048, up to 64 of 64), transforms
 * them in shared memory (smem_fft), and either writes their spectra out by
 * columns, T complex each (the mask's, as both column kernels read it), or
 * multiplies them by the conjugate of the mask's spectrum and 'scale' and
 * transforms them back in place (the forward transform of the conjugate,
 * conjugated), as fft_columns does for shorter ones. */
constexpr int STAGED_POINTS = 4096;
constexpr int STAGED_THREADS = STAGED_POINTS / 8;

template <int T, bool PRODUCT>
__global__ void __launch_bounds__ (STAGED_THREADS)
fft_columns_staged (float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
                    int per_tile, int row, int cols, int groups, size_t stride, float scale,
                    float2 *out_columns)
{
  constexpr int COLS = STAGED_POINTS / T, S = padded_length (T);
  extern __shared__ float2 staged_shared[];
  const int transform = (int) (blockIdx.x / groups);
  const int kx0 = (int) (blockIdx.x % groups) * COLS, valid = min (COLS, cols - kx0);
  float2 *const g = spectra + transform * stride + kx0;

  for (int e = threadIdx.x; e < STAGED_POINTS; e += STAGED_THREADS)
    {
      const int c = e % COLS, r = e / COLS;

      staged_shared[c * S + padded (r)] = c < valid ? g[(size_t) r * row + c]
                                                    : make_float2 (0.0f, 0.0f);
    }
  __syncthreads ();
  smem_fft (staged_shared, T, S, STAGED_THREADS);
  if (!PRODUCT)
    {
      for (int e = threadIdx.x; e < STAGED_POINTS; e += STAGED_THREADS)
        {
          const int c = e / T, k = e % T;

          if (c < valid)
            out_columns[(size_t) (kx0 + c) * T + k] = staged_shared[c * S + padded (k)];
        }
      return;
    }
  const float2 *const m = tile_spectrum (mask_columns, abs_columns, transform, per_tile);
  for (int e = threadIdx.x; e < STAGED_POINTS; e += STAGED_THREADS)
    {
      const int c = e / T, k = e % T;
      float2 *const x = staged_shared + c * S + padded (k);

      *x = product_for_inverse (*x, c < valid ? __ldg (m + (size_t) (kx0 + c) * T + k)
                                              : make_float2 (0.0f, 0.0f), scale);
    }
  __syncthreads ();
  smem_fft (staged_shared, T, S, STAGED_THREADS);
  for (int e = threadIdx.x; e < STAGED_POINTS; e += STAGED_THREADS)
    {
      const int c = e % COLS, r = e / COLS;
      const float2 v = staged_shared[c * S + padded (r)];

      if (c < valid)
        g[(size_t) r * row + c] = make_float2 (v.x, -v.y);
    }
}

template <int T, bool PRODUCT>
static cudaError_t
launch_staged_t (float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
                 int per_tile, int row, int cols, int transforms, size_t stride, float scale,
                 float2 *out_columns, cudaStream_t stream)
{
  constexpr int COLS = STAGED_POINTS / T;
  const int groups = (cols + COLS - 1) / COLS;
  const size_t shared = sizeof (float2) * COLS * padded_length (T);
  cudaError_t err;

  if ((err = cudaFuncSetAttribute (fft_columns_staged<T, PRODUCT>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  fft_columns_staged<T, PRODUCT><<<(unsigned) groups * transforms, STAGED_THREADS, shared,
                                   stream>>>
    (spectra, mask_columns, abs_columns, per_tile, row, cols, groups, stride, scale,
     out_columns);
  return cudaGetLastError ();
}

/* The mask's spectrum by columns, T complex each, from its row spectra. */
static cudaError_t
mask_columns_of (int t, float2 *spectrum, int row, int cols, float2 *columns,
                 cudaStream_t stream)
{
  const auto launch = t == 64 ? launch_staged_t<64, false>
                    : t == 128 ? launch_staged_t<128, false>
                    : t == 256 ? launch_staged_t<256, false>
                    : t == 512 ? launch_staged_t<512, false>
                    : t == 1024 ? launch_staged_t<1024, false>
                    : t == 2048 ? launch_staged_t<2048, false> : launch_staged_t<4096, false>;

  return launch (spectrum, NULL, NULL, 1, row, cols, 1, 0, 1.0f, columns, stream);
}

template <int T>
static cudaError_t
launch_columns_t (float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
                  int per_tile, int row, int cols, int transforms, size_t stride, float scale,
                  cudaStream_t stream)
{
  constexpr int COLS = column_count (T);
  const int groups = (cols + COLS - 1) / COLS;
  const size_t shared = sizeof (float2) * column_slots (T);
  cudaError_t err;

  if ((err = cudaFuncSetAttribute (fft_columns<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  fft_columns<T><<<(unsigned) groups * transforms, COLUMN_THREADS, shared, stream>>>
    (spectra, mask_columns, abs_columns, per_tile, row, cols, groups, stride, scale);
  return cudaGetLastError ();
}

/* The columns of tiles t tall, 64 to 4096, with the product. */
static cudaError_t
launch_columns (int t, float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
                int per_tile, int row, int cols, int transforms, size_t stride, float scale,
                cudaStream_t stream)
{
  if (t < 256 || t > 1024)
    return (t == 64 ? launch_staged_t<64, true> : t == 128 ? launch_staged_t<128, true>
            : t == 2048 ? launch_staged_t<2048, true> : launch_staged_t<4096, true>)
      (spectra, mask_columns, abs_columns, per_tile, row, cols, transforms, stride, scale, NULL,
       stream);
  const auto launch = t == 256 ? launch_columns_t<256>
                    : t == 512 ? launch_columns_t<512> : launch_columns_t<1024>;

  return launch (spectra, mask_columns, abs_columns, per_tile, row, cols, transforms, stride,
                 scale, stream);
}

#endif /* CC_FFT_COLUMNS_CUH */
