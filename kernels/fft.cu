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
make_plans (CcFftState *st, Shape s)
{
  /* Rank 1 where the transforms are a row each (a one-row mask). */
  const int rank = s.y.t == 1 ? 1 : 2;
  int n[2] = { s.y.t, s.x.t };
  int real_embed[2] = { s.y.t, s.pitch };
  int complex_embed[2] = { s.y.t, s.pitch / 2 };
  int *const dims = n + 2 - rank, *const re = real_embed + 2 - rank,
      *const ce = complex_embed + 2 - rank;
  const int real_dist = (int) s.plane, complex_dist = (int) s.plane / 2;
  const int batch = s.transforms;
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
  if ((r = cufft.plan_many (&st->mask_plan, rank, dims, re, 1, real_dist, ce, 1,
                            complex_dist, CUFFT_R2C, 1)) != CUFFT_SUCCESS)
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
  if ((err = mask_spectrum (st, mask, a.mask_width, a.mask_height, stream)) != cudaSuccess)
    return err;

  pad_finish (a, planes, s, false, stream);
  if ((err = cudaGetLastError ()) != cudaSuccess)
    return err;
  cufft.set_stream (st->fwd, stream);
  cufft.set_stream (st->inv, stream);
  if ((r = cufft.exec_r2c (st->fwd, planes, (cufftComplex *) planes)) != CUFFT_SUCCESS)
    return cufft_error (r);
  /* cuFFT leaves the size out; fold it in with the divisor. */
  const dim3 grid (n / 256 + 1 < 4096 ? (unsigned) (n / 256 + 1) : 4096,
                   s.transforms < 65535 ? s.transforms : 65535);
  fft_multiply<<<grid, 256, 0, stream>>> ((float2 *) planes, st->mask_spectrum, n,
                                          s.transforms, s.plane / 2,
                                          a.inv_divisor / ((float) s.x.t * s.y.t));
  if ((err = cudaGetLastError ()) != cudaSuccess)
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
