/* The blur estimate's candidates on the GPU (engine/estimate.c's search):
 * each candidate mask's |H|^2 on T x T frequencies from its taps, smoothed
 * as the Hann window smooths the periodogram, and its likelihood's fit for
 * each exponent of the image's spectrum, a block a candidate and exponent,
 * by the steps the CPU takes (engine/estimate-steps.h).  Queued on the
 * legacy default stream.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu.cuh"

/* Candidates a launch takes: their planes of T x T floats (64 MB at T =
 * 256) bound the device memory a call holds. */
#define BATCH 256
#define FIT_THREADS 256

/* |H(k)|^2 of candidate blockIdx.y at every frequency of T x T (a power of
 * two): a tap's phase is an exact integer index into T twiddles. */
__global__ void
estimate_power (int T, const int *first, const float *taps, float *power)
{
  extern __shared__ float2 twiddle[];
  const int c = blockIdx.y, n = T * T;

  for (int j = threadIdx.x; j < T; j += blockDim.x)
    {
      float s, co;

      sincospif (2.0f * j / T, &s, &co);
      twiddle[j] = make_float2 (co, -s);
    }
  __syncthreads ();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    {
      const int kx = i % T, ky = i / T;
      float re = 0.0f, im = 0.0f;

      for (int t = first[c]; t < first[c + 1]; t++)
        {
          const int x = (int) taps[3 * t], y = (int) taps[3 * t + 1];
          const float2 w = twiddle[(kx * x + ky * y) & (T - 1)];

          re += taps[3 * t + 2] * w.x;
          im += taps[3 * t + 2] * w.y;
        }
      power[(size_t) c * n + i] = re * re + im * im;
    }
}

/* Each candidate's smoothed |H|^2 at the spectrum's K frequencies. */
__global__ void
estimate_smooth (int T, int K, const int *index, const float *power, float *hs)
{
  const int c = blockIdx.y;
  const float *p = power + (size_t) c * T * T;

  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < K; k += gridDim.x * blockDim.x)
    {
      const int i = index[k], x = i % T, y = i / T;
      double v = 0.0;

      for (int dy = -1; dy <= 1; dy++)
        {
          const int row = ((y + dy) & (T - 1)) * T;
          const double wy = dy ? CC_ESTIMATE_SMOOTH : 1 - 2 * CC_ESTIMATE_SMOOTH;

          for (int dx = -1; dx <= 1; dx++)
            v += wy * (dx ? CC_ESTIMATE_SMOOTH : 1 - 2 * CC_ESTIMATE_SMOOTH) *
                 p[row + ((x + dx) & (T - 1))];
        }
      hs[(size_t) c * K + k] = (float) fmax (v, CC_ESTIMATE_H_FLOOR);
    }
}

/* The block's sums of v[0 .. N-1], in thread 0's v. */
template <int N>
__device__ void
block_sums (double (&v)[N], double (*shared)[FIT_THREADS / 32])
{
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int j = 0; j < N; j++)
    {
      for (int o = 16; o > 0; o /= 2)
        v[j] += __shfl_down_sync (0xffffffffu, v[j], o);
      if (lane == 0)
        shared[j][warp] = v[j];
    }
  __syncthreads ();
  if (threadIdx.x == 0)
    for (int j = 0; j < N; j++)
      {
        v[j] = 0.0;
        for (int w = 0; w < FIT_THREADS / 32; w++)
          v[j] += shared[j][w];
      }
  __syncthreads ();
}

/* The fit of candidate blockIdx.x for exponent blockIdx.y, as fit_alpha
 * takes it on the CPU: its negative log-likelihood to nll. */
__global__ void __launch_bounds__ (FIT_THREADS)
estimate_fit (int K, int stride, const float *power, const float *rho_alpha, const float *hs,
              float *nll)
{
  __shared__ double shared[5][FIT_THREADS / 32];
  __shared__ double model[2];   /* A and the noise, as thread 0 solved them */
  __shared__ bool stop;
  const float *h = hs + (size_t) blockIdx.x * K, *ra = rho_alpha + (size_t) blockIdx.y * stride;
  double A = 0.0, noise = 0.0;

  for (int step = 0; step < CC_ESTIMATE_FIT_STEPS; step++)
    {
      double s[5] = { 0, 0, 0, 0, 0 };

      for (int k = threadIdx.x; k < K; k += FIT_THREADS)
        cc_estimate_sums ((double) h[k] * ra[k], power[k], step, A, noise, s);
      block_sums<5> (s, shared);
      if (threadIdx.x == 0)
        {
          stop = !cc_estimate_solve (s, &model[0], &model[1]);
        }
      __syncthreads ();
      if (stop)
        break;
      A = model[0];
      noise = model[1];
    }
  {
    double t[1] = { 0.0 };

    for (int k = threadIdx.x; k < K; k += FIT_THREADS)
      t[0] += cc_estimate_term ((double) h[k] * ra[k], power[k], A, noise);
    block_sums<1> (t, shared);
    if (threadIdx.x == 0)
      nll[blockIdx.x * gridDim.y + blockIdx.y] = (float) t[0];
  }
}

/* The device's copies of a call's spectrum and a batch's planes. */
typedef struct
{
  int   *index, *first;
  float *power, *rho_alpha, *taps, *planes, *hs, *nll;
} Buffers;

static void
buffers_free (Buffers *b)
{
  cudaFree (b->index); cudaFree (b->first); cudaFree (b->power); cudaFree (b->rho_alpha);
  cudaFree (b->taps); cudaFree (b->planes); cudaFree (b->hs); cudaFree (b->nll);
}

static CcStatus
failed (cudaError_t err, char *message, size_t size)
{
  snprintf (message, size, "the estimate on the GPU: %s", cudaGetErrorString (err));
  return cc_gpu_status_of (err) == CC_ERROR_OUT_OF_MEMORY ? CC_ERROR_OUT_OF_MEMORY : CC_ERROR_GPU;
}

/* One batch of 'n' candidates, their taps 'first' (rebased to 0) on. */
static cudaError_t
score_batch (const CcEstimateSpectrum *s, const Buffers &b, int n, const int *first,
             const float *taps, float *nll)
{
  const int T = s->T;
  const size_t tap_bytes = sizeof (float) * 3 * (size_t) first[n];
  cudaError_t err;

  if ((err = cudaMemcpy (b.first, first, sizeof (int) * (n + 1), cudaMemcpyHostToDevice)) !=
        cudaSuccess ||
      (tap_bytes && (err = cudaMemcpy (b.taps, taps, tap_bytes, cudaMemcpyHostToDevice)) !=
                      cudaSuccess))
    return err;
  estimate_power<<<dim3 ((T * T + 255) / 256, n), 256, sizeof (float2) * T>>> (T, b.first, b.taps,
                                                                              b.planes);
  estimate_smooth<<<dim3 ((s->K + 255) / 256, n), 256>>> (T, s->K, b.index, b.planes, b.hs);
  estimate_fit<<<dim3 (n, s->alphas), FIT_THREADS>>> (s->K, T * T / 2, b.power, b.rho_alpha,
                                                     b.hs, b.nll);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return err;
  return cudaMemcpy (nll, b.nll, sizeof (float) * n * s->alphas, cudaMemcpyDeviceToHost);
}

extern "C" CcStatus
cc_gpu_estimate_scores (struct _CcGpu *g, const CcEstimateSpectrum *s, int n, const int *first,
                        const float *taps, float *nll, char *message, size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  const int T = s->T;
  int most = 0, batch[BATCH + 1];
  float *fits = (float *) malloc (sizeof (float) * BATCH * s->alphas);
  Buffers b = {};
  cudaError_t err;

  if (status != CC_OK)
    {
      free (fits);
      return status;
    }
  if (!fits)
    {
      snprintf (message, size, "out of host memory for the estimate");
      return CC_ERROR_OUT_OF_MEMORY;
    }
  for (int i = 0; i < n; i += BATCH)
    {
      const int end = i + BATCH < n ? i + BATCH : n;

      most = first[end] - first[i] > most ? first[end] - first[i] : most;
    }
  if (cc_fault ("launch"))
    err = cudaErrorLaunchFailure;
  else if ((err = cudaMalloc (&b.index, sizeof (int) * s->K)) == cudaSuccess &&
           (err = cudaMalloc (&b.first, sizeof (int) * (BATCH + 1))) == cudaSuccess &&
           (err = cudaMalloc (&b.power, sizeof (float) * s->K)) == cudaSuccess &&
           (err = cudaMalloc (&b.rho_alpha, sizeof (float) * s->alphas * T * T / 2)) ==
             cudaSuccess &&
           (err = cudaMalloc (&b.taps, sizeof (float) * 3 * (most ? most : 1))) == cudaSuccess &&
           (err = cudaMalloc (&b.planes, sizeof (float) * BATCH * T * T)) == cudaSuccess &&
           (err = cudaMalloc (&b.hs, sizeof (float) * BATCH * s->K)) == cudaSuccess &&
           (err = cudaMalloc (&b.nll, sizeof (float) * BATCH * s->alphas)) == cudaSuccess &&
           (err = cudaMemcpy (b.index, s->index, sizeof (int) * s->K,
                              cudaMemcpyHostToDevice)) == cudaSuccess &&
           (err = cudaMemcpy (b.power, s->power, sizeof (float) * s->K,
                              cudaMemcpyHostToDevice)) == cudaSuccess)
    err = cudaMemcpy (b.rho_alpha, s->rho_alpha, sizeof (float) * s->alphas * T * T / 2,
                      cudaMemcpyHostToDevice);
  for (int i = 0; err == cudaSuccess && i < n; i += BATCH)
    {
      const int m = i + BATCH < n ? BATCH : n - i;

      for (int j = 0; j <= m; j++)
        batch[j] = first[i + j] - first[i];
      if ((err = score_batch (s, b, m, batch, taps + 3 * (size_t) first[i], fits)) !=
          cudaSuccess)
        break;
      for (int j = 0; j < m; j++)
        {
          nll[i + j] = fits[j * s->alphas];
          for (int a = 1; a < s->alphas; a++)
            nll[i + j] = fminf (nll[i + j], fits[j * s->alphas + a]);
        }
    }
  buffers_free (&b);
  free (fits);
  return err == cudaSuccess ? CC_OK : failed (err, message, size);
}

/* Loads this module where the driver compiles it (device.cu). */
extern const void *const cc_module_estimate = (const void *) estimate_fit;
