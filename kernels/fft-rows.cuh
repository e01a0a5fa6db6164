/* fft's fourth room: the row transforms, real to complex and back, in
 * registers or shared memory, and their launcher.  Included by fft.cu
 * only (one module).
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
 * registers (seq_fft, M from 128 to 1024 where a block may have its shared
 * memory) or in shared memory (smem_fft, the others; a block of 256 threads
 * takes 2048 / M rows); the row's t / 2 + 1 complex values follow from each
 * frequency and its mirror, with the twiddles of t points.  The inverse
 * undoes that, unnormalised as cuFFT's C2R is (t times the row), through
 * the forward transform of the conjugate.  In place, each row's spectrum
 * 'pitch' floats from the next. */
constexpr int ROW_POINTS = 2048;
constexpr int ROW_THREADS = ROW_POINTS / 8;

/* A row of 2M reals is transformed as a complex sequence of M points, its
 * even samples the real parts and its odd the imaginary.  From that
 * sequence's Z[k] and Z[M - k] (a, b) and W_2M^k (w): the row's X[k],
 * and X[M - k] in *mirror.  The even samples' spectrum is E = (Z[k] +
 * conj Z[M-k]) / 2, the odd's O = (Z[k] - conj Z[M-k]) / 2i; X[k] = E +
 * W^k O, X[M - k] = conj (E - W^k O). */
__device__ __forceinline__ float2
real_spectrum (float2 a, float2 b, float2 w, float2 *mirror)
{
  const float2 even = make_float2 (0.5f * (a.x + b.x), 0.5f * (a.y - b.y));
  const float2 odd = make_float2 (0.5f * (a.y + b.y), -0.5f * (a.x - b.x));
  const float2 wo = cmul (w, odd);

  *mirror = make_float2 (even.x - wo.x, wo.y - even.y);
  return make_float2 (even.x + wo.x, even.y + wo.y);
}

/* The inverse's: from the row's X[k] and X[M - k] (a, b) and W_2M^k (w),
 * Z'[k] = (X[k] + conj X[M-k]) + i W^-k (X[k] - conj X[M-k]), twice the
 * complex sequence's spectrum, conjugated so that a forward transform
 * inverts it; Z'[M - k] in *mirror. */
__device__ __forceinline__ float2
sequence_spectrum (float2 a, float2 b, float2 w, float2 *mirror)
{
  const float2 sum = make_float2 (a.x + b.x, a.y - b.y);
  const float2 diff = make_float2 (a.x - b.x, a.y + b.y);
  /* i conj (w) diff = (-u, v); Z'[M-k] = conj (sum) + i w conj (diff),
   * i w conj (diff) = (u, v). */
  const float u = w.x * diff.y - w.y * diff.x, v = w.x * diff.x + w.y * diff.y;

  *mirror = make_float2 (sum.x + u, sum.y - v);
  return make_float2 (sum.x - u, -(sum.y + v));
}

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
  for (int e = threadIdx.x; e < RB * H; e += ROW_THREADS)
    {
      const int q = e / H, k = e % H;

      if (row0 + q >= rows)
        continue;
      float2 *const out = reinterpret_cast<float2 *> (planes + (row0 + q) * pitch);

      out[k] = real_spectrum (sh[q * S + padded (k)], sh[q * S + padded ((M - k) & (M - 1))],
                              turn ((float) k / (float) (2 * M)), &out[M - k]);
    }
}

/* Inverse: the rows of the staged spectra, written over them in the
 * planes. */
template <int M>
__device__ __forceinline__ void
spectra_to_rows (float2 *sh, float *planes, int pitch, long long rows, long long row0)
{
  constexpr int RB = ROW_POINTS / M, S = padded_length (M), H = M / 2 + 1;

  /* A thread takes k and M - k together, so that no other reads what it
   * overwrites. */
  for (int e = threadIdx.x; e < RB * H; e += ROW_THREADS)
    {
      const int q = e / H, k = e % H;
      float2 *const x = sh + q * S;
      float2 mirror;

      x[padded (k)] = sequence_spectrum (x[padded (k)], x[padded (M - k)],
                                         turn ((float) k / (float) (2 * M)), &mirror);
      if (k > 0)
        x[padded (M - k)] = mirror;
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

/* ---- Rows of 128 to 1024 complex points, in registers ---- */

/* A block's rows each to L = M / 32 lanes of a warp (seq_fft), read from
 * the planes and written back once, L consecutive points of each row a
 * warp's access; the frequencies k and M - k meet in the row's slots.
 * Rows past the last are neither read nor written, but their threads
 * reach every barrier. */
template <int M, bool INVERSE>
__global__ void __launch_bounds__ (SEQ_THREADS, 2)
fft_rows_in_registers (float *planes, int pitch, long long rows)
{
  constexpr int L = M / 32;
  extern __shared__ float2 rows_shared[];
  float2 *const tw = rows_shared + seq_base (M, seq_count (M));
  const int lane = threadIdx.x % 32, l = lane % L;
  const int q = threadIdx.x / 32 * (32 / L) + lane / L;
  const long long row = (long long) blockIdx.x * seq_count (M) + q;
  const bool live = row < rows;
  float2 *const g = reinterpret_cast<float2 *> (planes + (live ? row : 0) * pitch) + l;
  float2 *const slots = rows_shared + seq_base (M, q);
  /* W_2M^k for k = l + L s is W_2M^l W_64^s, 2M being 64 L. */
  const float2 wl = turn ((float) l / (float) (2 * M));
  float2 x[32];

#pragma unroll
  for (int s = 0; s < 32; s++)
    x[s] = live ? g[L * s] : make_float2 (0.0f, 0.0f);
  seq_twiddles<M> (tw);
  if (INVERSE)
    {
      /* X[M - k] from the row's slots, X[M] from the planes. */
#pragma unroll
      for (int s = 0; s < 32; s++)
        slots[l + L * s] = x[s];
      if (l == 0)
        slots[M] = live ? g[M] : make_float2 (0.0f, 0.0f);
      __syncwarp ();
#pragma unroll
      for (int s = 0; s < 32; s++)
        {
          float2 mirror;

          x[s] = sequence_spectrum (x[s], slots[M - l - L * s], cmul (wl, turn64 (s)), &mirror);
        }
    }
  __syncthreads ();
  seq_fft<M> (x, l, slots, tw);
  if (INVERSE)
    {
      if (live)
#pragma unroll
        for (int s = 0; s < 32; s++)
          g[L * s] = make_float2 (x[s].x, -x[s].y);
      return;
    }
  /* Z[M - k] from the row's slots. */
  __syncwarp ();
#pragma unroll
  for (int s = 0; s < 32; s++)
    slots[l + L * s] = x[s];
  __syncwarp ();
  if (!live)
    return;
#pragma unroll
  for (int s = 0; s < 32; s++)
    {
      float2 mirror;

      g[L * s] = real_spectrum (x[s], slots[(M - l - L * s) & (M - 1)], cmul (wl, turn64 (s)),
                                &mirror);
      if (s == 0 && l == 0)
        g[M] = mirror;
    }
}

/* fft_rows_in_registers over 'rows' rows, forward or back. */
template <int M>
static cudaError_t
launch_rows_in_registers (bool inverse, float *planes, int pitch, long long rows,
                          cudaStream_t stream)
{
  const auto kernel = inverse ? fft_rows_in_registers<M, true> : fft_rows_in_registers<M, false>;
  const dim3 grid ((unsigned) ((rows + seq_count (M) - 1) / seq_count (M)));
  cudaError_t err;

  if ((err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) seq_bytes (M))) != cudaSuccess)
    return err;
  kernel<<<grid, SEQ_THREADS, seq_bytes (M), stream>>> (planes, pitch, rows);
  return cudaGetLastError ();
}

/* Whether rows of t reals (M = t / 2 complex points) go through
 * fft_rows_in_registers: M from 128 to 1024, where a block may have their
 * shared memory ('shared_optin' bytes); the others are staged (rows of 64
 * points, two lanes each, would load 16 bytes a row; of 2048, 64 lanes). */
static bool
rows_in_registers (int t, size_t shared_optin)
{
  return seq_fits (t / 2, shared_optin);
}

/* 'rows' rows of t reals ('pitch' floats apart), forward or back. */
static cudaError_t
launch_rows (int t, bool inverse, float *planes, int pitch, long long rows, size_t shared_optin,
             cudaStream_t stream)
{
  const int m = t / 2, per_block = ROW_POINTS / m;
  const dim3 grid ((unsigned) ((rows + per_block - 1) / per_block));

  if (rows_in_registers (t, shared_optin))
    return (m == 128 ? launch_rows_in_registers<128> : m == 256 ? launch_rows_in_registers<256>
            : m == 512 ? launch_rows_in_registers<512> : launch_rows_in_registers<1024>)
      (inverse, planes, pitch, rows, stream);
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
