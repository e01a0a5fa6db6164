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
 * columns in shared memory (coalesced), transforms each in registers
 * (seq_fft), multiplies it by the mask's conjugate spectrum, and transforms
 * it back the same way (the forward transform of the conjugate,
 * conjugated).  The spectra are read and written once, with two block
 * barriers: cuFFT's 2D transforms read and wrote them twice each, and the
 * product once more. */

/* A block's columns of one transform's row spectra (the first 'cols' of
 * 'row' complex a row, transforms 'stride' apart): down, times the
 * conjugate of the mask's spectrum (mask_columns: its columns, T complex
 * each; abs_columns, where given, |mask|'s, for each tile's last) and
 * 'scale', and back. */
template <int T>
__global__ void __launch_bounds__ (SEQ_THREADS, 2)
fft_columns (float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
             int per_tile, int row, int cols, int groups, size_t stride, float scale)
{
  constexpr int COLS = seq_count (T), L = T / 32, Q = 32 / L;
  constexpr int ROWS = SEQ_THREADS / COLS;   /* staged a step */
  extern __shared__ float2 column_shared[];
  float2 *const tw = column_shared + seq_base (T, COLS);
  const int kx0 = (int) (blockIdx.x % groups) * COLS, valid = min (COLS, cols - kx0);
  const int sc = threadIdx.x % COLS, sr = threadIdx.x / COLS;
  float2 *const g = spectra + blockIdx.x / groups * stride + kx0 + sr * row + sc;
  float2 *const staged = column_shared + seq_base (T, sc) + sr;
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
  seq_twiddles<T> (tw);
  __syncthreads ();
  if (threadIdx.x / 32 * Q < valid)
    {
      float2 *const column = column_shared + seq_base (T, col);
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
          seq_fft<T> (x, l, column, tw);
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
  constexpr int COLS = seq_count (T);
  const int groups = (cols + COLS - 1) / COLS;
  const size_t shared = seq_bytes (T);
  cudaError_t err;

  if ((err = cudaFuncSetAttribute (fft_columns<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  fft_columns<T><<<(unsigned) groups * transforms, SEQ_THREADS, shared, stream>>>
    (spectra, mask_columns, abs_columns, per_tile, row, cols, groups, stride, scale);
  return cudaGetLastError ();
}

/* Whether columns t tall go through fft_columns (whose columns are 256 or
 * more points). */
static bool
columns_in_registers (int t, size_t shared_optin)
{
  return t >= 256 && seq_fits (t, shared_optin);
}

/* The columns of tiles t tall, 64 to 4096, with the product. */
static cudaError_t
launch_columns (int t, float2 *spectra, const float2 *mask_columns, const float2 *abs_columns,
                int per_tile, int row, int cols, int transforms, size_t stride, float scale,
                size_t shared_optin, cudaStream_t stream)
{
  if (!columns_in_registers (t, shared_optin))
    return (t == 64 ? launch_staged_t<64, true> : t == 128 ? launch_staged_t<128, true>
            : t == 256 ? launch_staged_t<256, true> : t == 512 ? launch_staged_t<512, true>
            : t == 1024 ? launch_staged_t<1024, true> : t == 2048 ? launch_staged_t<2048, true>
            : launch_staged_t<4096, true>)
      (spectra, mask_columns, abs_columns, per_tile, row, cols, transforms, stride, scale, NULL,
       stream);
  const auto launch = t == 256 ? launch_columns_t<256>
                    : t == 512 ? launch_columns_t<512> : launch_columns_t<1024>;

  return launch (spectra, mask_columns, abs_columns, per_tile, row, cols, transforms, stride,
                 scale, stream);
}

#endif /* CC_FFT_COLUMNS_CUH */
