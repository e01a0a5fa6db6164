/* fft's fourth room: the row transforms, real to complex and back, in
 * shared memory, and their launcher.  Included by fft.cu only (one module).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FFT_ROWS_CUH
#define CC_FFT_ROWS_CUH

#include "fft-dft.cuh"

/* ---- The rows: real to complex and back ----
 *
 * A row of t reals is taken as a complex sequence of M = t / 2 points, its
 * even samples the real parts and its odd the imaginary, transformed in
 * shared memory (smem_fft); the row's t / 2 + 1 complex values follow from
 * each frequency and its mirror, with the twiddles of t points.  The
 * inverse undoes that, unnormalised as cuFFT's C2R is (t times the row),
 * through the forward transform of the conjugate.  In place, each row's
 * spectrum 'pitch' floats from the next; a block of 256 threads takes
 * 2048 / M rows. */
constexpr int ROW_POINTS = 2048;
constexpr int ROW_THREADS = ROW_POINTS / 8;

/* The block's rows into shared memory, 'points' complex values each (M
 * to transform, M + 1 of a spectrum), zero past the last row. */
template <int M>
__device__ __forceinline__ void
stage_rows (float2 *sh, const float *planes, int pitch, long long rows, long long row0,
            int points)
{
  constexpr int RB = ROW_POINTS / M, S = padded_length (M);

  for (int e = threadIdx.x; e < RB * points; e += ROW_THREADS)
    {
      const int q = e / points, k = e % points;

      sh[q * S + padded (k)] = row0 + q < rows
        ? reinterpret_cast<const float2 *> (planes + (row0 + q) * pitch)[k]
        : make_float2 (0.0f, 0.0f);
    }
  __syncthreads ();
}

/* Forward: the spectra of the staged rows (the block's, row0 on), written
 * over them in the planes. */
template <int M>
__device__ __forceinline__ void
rows_to_spectra (float2 *sh, float *planes, int pitch, long long rows, long long row0)
{
  constexpr int RB = ROW_POINTS / M, S = padded_length (M), H = M / 2 + 1;

  smem_fft (sh, M, S, ROW_THREADS);
  /* Frequencies k and M - k from Z[k] and Z[M - k]: the even samples'
   * spectrum E = (Z[k] + conj Z[M-k]) / 2, the odd's O = (Z[k] - conj
   * Z[M-k]) / 2i; X[k] = E + W^k O, X[M - k] = conj (E - W^k O). */
  for (int e = threadIdx.x; e < RB * H; e += ROW_THREADS)
    {
      const int q = e / H, k = e % H;

      if (row0 + q >= rows)
        continue;
      const float2 a = sh[q * S + padded (k)], b = sh[q * S + padded ((M - k) & (M - 1))];
      const float2 even = make_float2 (0.5f * (a.x + b.x), 0.5f * (a.y - b.y));
      const float2 odd = make_float2 (0.5f * (a.y + b.y), -0.5f * (a.x - b.x));
      const float2 wo = cmul (turn ((float) k / (float) (2 * M)), odd);
      float2 *const out = reinterpret_cast<float2 *> (planes + (row0 + q) * pitch);

      out[k] = make_float2 (even.x + wo.x, even.y + wo.y);
      out[M - k] = make_float2 (even.x - wo.x, wo.y - even.y);
    }
}

/* Inverse: the rows of the staged spectra, written over them in the
 * planes. */
template <int M>
__device__ __forceinline__ void
spectra_to_rows (float2 *sh, float *planes, int pitch, long long rows, long long row0)
{
  constexpr int RB = ROW_POINTS / M, S = padded_length (M), H = M / 2 + 1;

  /* Z'[k] = (X[k] + conj X[M-k]) + i W^-k (X[k] - conj X[M-k]), twice the
   * complex sequence's spectrum, stored conjugated; a thread takes k and
   * M - k together, so that no other reads what it overwrites. */
  for (int e = threadIdx.x; e < RB * H; e += ROW_THREADS)
    {
      const int q = e / H, k = e % H;
      float2 *const x = sh + q * S;
      const float2 a = x[padded (k)], b = x[padded (M - k)];
      const float2 w = turn ((float) k / (float) (2 * M));   /* W^k; W^-k is its conjugate */
      const float2 sum = make_float2 (a.x + b.x, a.y - b.y);
      const float2 diff = make_float2 (a.x - b.x, a.y + b.y);
      /* i conj (w) diff = (-u, v); Z'[M-k] = conj (sum) + i w conj (diff),
       * i w conj (diff) = (u, v). */
      const float u = w.x * diff.y - w.y * diff.x, v = w.x * diff.x + w.y * diff.y;

      x[padded (k)] = make_float2 (sum.x - u, -(sum.y + v));
      if (k > 0)
        x[padded (M - k)] = make_float2 (sum.x + u, sum.y - v);
    }
  __syncthreads ();
  smem_fft (sh, M, S, ROW_THREADS);
  for (int e = threadIdx.x; e < RB * M; e += ROW_THREADS)
    {
      const int q = e / M, n = e % M;
      const float2 z = sh[q * S + padded (n)];

      if (row0 + q < rows)
        reinterpret_cast<float2 *> (planes + (row0 + q) * pitch)[n] = make_float2 (z.x, -z.y);
    }
}

/* A block's rows transformed, forward or inverse: one kernel, so that
 * their staging is written once. */
template <int M, bool INVERSE>
__global__ void __launch_bounds__ (ROW_THREADS)
fft_rows (float *planes, int pitch, long long rows)
{
  constexpr int RB = ROW_POINTS / M, S = padded_length (M);
  __shared__ float2 sh[RB * S];
  const long long row0 = (long long) blockIdx.x * RB;

  stage_rows<M> (sh, planes, pitch, rows, row0, INVERSE ? M + 1 : M);
  if (INVERSE)
    spectra_to_rows<M> (sh, planes, pitch, rows, row0);
  else
    rows_to_spectra<M> (sh, planes, pitch, rows, row0);
}

/* 'rows' rows of t reals ('pitch' floats apart), forward or back. */
static cudaError_t
launch_rows (int t, bool inverse, float *planes, int pitch, long long rows, cudaStream_t stream)
{
  const int m = t / 2, per_block = ROW_POINTS / m;
  const dim3 grid ((unsigned) ((rows + per_block - 1) / per_block));

#define ROWS_CASE(M)                                                                   \
  case M:                                                                              \
    if (inverse)                                                                       \
      fft_rows<M, true><<<grid, ROW_THREADS, 0, stream>>> (planes, pitch, rows);       \
    else                                                                               \
      fft_rows<M, false><<<grid, ROW_THREADS, 0, stream>>> (planes, pitch, rows);      \
    break;
  switch (m)
    {
      ROWS_CASE (32)
      ROWS_CASE (64)
      ROWS_CASE (128)
      ROWS_CASE (256)
      ROWS_CASE (512)
      ROWS_CASE (1024)
      ROWS_CASE (2048)
    default:
      return cudaErrorInvalidValue;
    }
#undef ROWS_CASE
  return cudaGetLastError ();
}

#endif /* CC_FFT_ROWS_CUH */
