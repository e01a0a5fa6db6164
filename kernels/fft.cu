/* Method "fft": the input region a strip needs (its output plus the mask's
 * halo, border resolved) is padded into planes whose sides have only the
 * factors 2, 3, 5 and 7, transformed with cuFFT, multiplied by the
 * conjugate of the mask's spectrum (correlation, as the definition is),
 * and transformed back.  cuFFT is loaded with dlopen on first use, so the
 * plug-in and the tool run where it is absent; then this method says so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cufft.h>   /* types only: the library is loaded at run time */

#include "cuda-kernels.cuh"

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
  const char *env = getenv ("CUDA_CONVOLVE_CUFFT");
  const char *names[] = { env, "libcufft.so.12", CUDA_LIB_DIR "/libcufft.so.12",
                          "/usr/local/cuda/lib64/libcufft.so.12", "libcufft.so" };
  void *lib = NULL;

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

/* The transform's shape for an output of w x h and a mask of mw x mh. */
struct Shape
{
  int pw, ph;      /* padded sides */
  int pitch;       /* floats a row: 2 (pw / 2 + 1), for in-place transforms */
};

static Shape
shape_for (int w, int h, int mw, int mh)
{
  Shape s;

  s.pw = smooth (w + mw - 1);
  s.ph = smooth (h + mh - 1);
  s.pitch = 2 * (s.pw / 2 + 1);
  return s;
}

size_t
cc_fft_bytes (int w, int h, int mw, int mh, int channels)
{
  const Shape s = shape_for (w, h, mw, mh);

  return sizeof (float) * (size_t) s.pitch * s.ph * channels;
}

/* ---- kernels ---- */

template <int C>
__global__ void
fft_pad (const __grid_constant__ ConvArgs a, float *planes, Shape s, size_t plane_size)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int in_w = a.dst.width + a.mask_width - 1, in_h = a.dst.height + a.mask_height - 1;

  if (x >= s.pitch)
    return;
  for (int y = blockIdx.y; y < s.ph; y += gridDim.y)
    {
      float v[C];
      bool inside = x < in_w && y < in_h;

      if (inside)
        {
          const GlobalRow<C> row = global_row<C> (a, a.out_y - (a.mask_height - 1) / 2 + y);
          inside = row.present ();
          if (inside)
            row (a.out_x - (a.mask_width - 1) / 2 + x, v);
        }
#pragma unroll
      for (int c = 0; c < C; c++)
        planes[c * plane_size + (size_t) y * s.pitch + x] = inside ? v[c] : 0.0f;
    }
}

/* x *= conj (mask) * scale, over every plane's spectrum. */
__global__ void
fft_multiply (float2 *spectra, const float2 *mask, size_t n, int planes, size_t plane_size,
              float scale)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      const float2 m = mask[i];
      for (int c = 0; c < planes; c++)
        {
          float2 *x = spectra + c * plane_size + i;
          const float2 v = *x;
          *x = make_float2 ((v.x * m.x + v.y * m.y) * scale, (v.y * m.x - v.x * m.y) * scale);
        }
    }
}

template <int C>
__global__ void
fft_finish (const __grid_constant__ ConvArgs a, const float *planes, Shape s, size_t plane_size)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;

  if (x >= a.dst.width)
    return;
  for (int y = blockIdx.y; y < a.dst.height; y += gridDim.y)
    {
      float *out = a.dst.data + y * a.dst.pitch + (long long) x * C;
      float centre[C];

      global_row<C> (a, a.out_y + y) (a.out_x + x, centre);
#pragma unroll
      for (int c = 0; c < C; c++)
        out[c] = a.mode[c] == CC_MODE_COPY
                 ? centre[c]
                 : cc_finish (planes[c * plane_size + (size_t) y * s.pitch + x], 1.0f,
                              a.offset, a.clamp);
    }
}

/* ---- plans and the mask's spectrum, kept between calls ---- */

struct CcFftState
{
  cufftHandle fwd, inv, mask_plan;
  Shape       shape;
  int         batch;
  bool        planned;
  float2     *mask_spectrum;
  float      *mask_key;       /* the mask (host copy) the spectrum is of */
  int         key_w, key_h;
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
  free (st);
}

static cudaError_t
cufft_error (cufftResult r)
{
  return r == CUFFT_SUCCESS ? cudaSuccess
       : r == CUFFT_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

static cudaError_t
make_plans (CcFftState *st, Shape s, int batch)
{
  int n[2] = { s.ph, s.pw };
  int real_embed[2] = { s.ph, s.pitch };
  int complex_embed[2] = { s.ph, s.pitch / 2 };
  const int real_dist = s.ph * s.pitch, complex_dist = s.ph * (s.pitch / 2);
  cufftResult r;

  drop_plans (st);
  if ((r = cufft.plan_many (&st->fwd, 2, n, real_embed, 1, real_dist, complex_embed, 1,
                            complex_dist, CUFFT_R2C, batch)) != CUFFT_SUCCESS)
    return cufft_error (r);
  if ((r = cufft.plan_many (&st->inv, 2, n, complex_embed, 1, complex_dist, real_embed, 1,
                            real_dist, CUFFT_C2R, batch)) != CUFFT_SUCCESS)
    {
      cufft.destroy (st->fwd);
      return cufft_error (r);
    }
  if ((r = cufft.plan_many (&st->mask_plan, 2, n, real_embed, 1, real_dist, complex_embed,
                            1, complex_dist, CUFFT_R2C, 1)) != CUFFT_SUCCESS)
    {
      cufft.destroy (st->fwd);
      cufft.destroy (st->inv);
      return cufft_error (r);
    }
  st->planned = true;
  st->shape = s;
  st->batch = batch;
  return cudaSuccess;
}

/* The mask's spectrum at this shape, computed once per mask. */
static cudaError_t
mask_spectrum (CcFftState *st, const float *mask, int mw, int mh, cudaStream_t stream)
{
  const Shape s = st->shape;
  const size_t bytes = sizeof (float) * (size_t) s.pitch * s.ph;
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

template <int C>
static void
launch_pad_finish (const ConvArgs &a, float *planes, Shape s, size_t plane_size,
                   bool finish, cudaStream_t stream)
{
  const int w = finish ? a.dst.width : s.pitch, h = finish ? a.dst.height : s.ph;
  const dim3 block (256), grid ((w + 255) / 256, h < 65535 ? h : 65535);

  if (finish)
    fft_finish<C><<<grid, block, 0, stream>>> (a, planes, s, plane_size);
  else
    fft_pad<C><<<grid, block, 0, stream>>> (a, planes, s, plane_size);
}

static void
pad_finish (const ConvArgs &a, float *planes, Shape s, size_t plane_size, bool finish,
            cudaStream_t stream)
{
  switch (a.channels)
    {
    case 1: launch_pad_finish<1> (a, planes, s, plane_size, finish, stream); break;
    case 2: launch_pad_finish<2> (a, planes, s, plane_size, finish, stream); break;
    case 3: launch_pad_finish<3> (a, planes, s, plane_size, finish, stream); break;
    default: launch_pad_finish<4> (a, planes, s, plane_size, finish, stream); break;
    }
}

cudaError_t
cc_fft_launch (CcFftState *st, const ConvArgs &a, const float *mask, float *planes,
               cudaStream_t stream)
{
  const Shape s = shape_for (a.dst.width, a.dst.height, a.mask_width, a.mask_height);
  const size_t plane_size = (size_t) s.pitch * s.ph;
  const size_t n = (size_t) (s.pitch / 2) * s.ph;
  cudaError_t err;
  cufftResult r;

  if (!st->planned || st->shape.pw != s.pw || st->shape.ph != s.ph ||
      st->batch != a.channels)
    if ((err = make_plans (st, s, a.channels)) != cudaSuccess)
      return err;
  if ((err = mask_spectrum (st, mask, a.mask_width, a.mask_height, stream)) != cudaSuccess)
    return err;

  pad_finish (a, planes, s, plane_size, false, stream);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return err;
  cufft.set_stream (st->fwd, stream);
  cufft.set_stream (st->inv, stream);
  if ((r = cufft.exec_r2c (st->fwd, planes, (cufftComplex *) planes)) != CUFFT_SUCCESS)
    return cufft_error (r);
  /* cuFFT leaves the size out; fold it in with the divisor. */
  fft_multiply<<<1024, 256, 0, stream>>> ((float2 *) planes, st->mask_spectrum, n,
                                          a.channels, plane_size / 2,
                                          a.inv_divisor / ((float) s.pw * s.ph));
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return err;
  if ((r = cufft.exec_c2r (st->inv, (cufftComplex *) planes, planes)) != CUFFT_SUCCESS)
    return cufft_error (r);
  pad_finish (a, planes, s, plane_size, true, stream);
  return cudaGetLastError ();
}
