/* Method "fft": a strip's input cut into power-of-two tiles, each
 * transformed, multiplied by the conjugate of the mask's spectrum and
 * transformed back by the kernels of this file and its rooms (fft-*.cuh:
 * the rows, the columns, the pixels in and out, alpha weighting's exact
 * sums); here the product, the plans and the mask's spectra.  The design:
 * docs/design.md, "The GPU's own transforms".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cufft.h>   /* types only: the library is loaded at run time */

#include "device-toolkit.cuh"
#include "fft-dft.cuh"
#include "gpu.cuh"

#include "fft-columns.cuh"
#include "fft-cufft.cuh"
#include "fft-pixels.cuh"
#include "fft-rows.cuh"
#include "fft-tiles.cuh"

/* x *= conj (mask) * scale, for every transform's spectrum (a tile's last
 * with |mask|'s, where abs_mask is given): blocks across a spectrum and
 * down the transforms, so that many small transforms (a row each, for a
 * one-row mask) keep as many threads busy as a few large ones. */
__global__ void
fft_multiply (float2 *spectra, const float2 *mask, const float2 *abs_mask, int per_tile,
              size_t n, int transforms, size_t stride, float scale)
{
  for (int b = blockIdx.y; b < transforms; b += gridDim.y)
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
         i += (size_t) gridDim.x * blockDim.x)
      {
        const float2 m = tile_spectrum (mask, abs_mask, b, per_tile)[i];
        float2 *x = spectra + b * stride + i;
        const float2 v = *x;

        *x = make_float2 ((v.x * m.x + v.y * m.y) * scale, (v.y * m.x - v.x * m.y) * scale);
      }
}

/* ---- plans and the mask's spectrum, kept between calls ---- */

/* A spectrum at the planes' shape, and the same by columns for
 * fft_columns. */
struct Spectrum
{
  float2 *plane;
  float2 *columns;
};

/* A mask's spectra at a lane's shape. */
struct MaskSpectra
{
  Spectrum    mask;           /* the mask's */
  Spectrum    abs;            /* |mask|'s, where the weight needs it */
  bool        have_mask, have_abs;
  uint64_t    serial;         /* the mask they are of (FftMask.serial) */
};

/* A lane's: the shape of its strips, the spectra of the context's two
 * masks at that shape, and cuFFT's plans for its rows where the context
 * takes cuFFT's. */
struct CcFftState
{
  Shape       shape;
  bool        shaped;
  cufftHandle fwd, inv;
  bool        planned;
  MaskSpectra spectra[2];
  int         last;           /* the slot the last strip used */
  size_t      shared_optin;   /* shared memory a block may have on the device */
};

CcFftState *
cc_fft_state_new (void)
{
  return (CcFftState *) calloc (1, sizeof (CcFftState));
}

static void
drop_shape (CcFftState *st)
{
  if (st->planned)
    {
      cufft.destroy (st->fwd);
      cufft.destroy (st->inv);
    }
  st->planned = st->shaped = false;
  for (MaskSpectra &ms : st->spectra)
    {
      for (Spectrum *sp : { &ms.mask, &ms.abs })
        {
          cudaFree (sp->plane);
          cudaFree (sp->columns);
          *sp = Spectrum { NULL, NULL };
        }
      ms.have_mask = ms.have_abs = false;
    }
}

void
cc_fft_state_free (CcFftState *st)
{
  if (!st)
    return;
  drop_shape (st);
  free (st);
}

static cudaError_t
cufft_error (cufftResult r)
{
  return r == CUFFT_SUCCESS ? cudaSuccess
       : r == CUFFT_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

/* A strip's shape, kept while the strips keep it; with 'cufft', cuFFT's
 * plans for its rows, a 1D transform each. */
static cudaError_t
set_shape (CcFftState *st, Shape s, bool cufft_plans)
{
  if (st->shaped && st->shape.x.t == s.x.t && st->shape.y.t == s.y.t &&
      st->shape.transforms == s.transforms && st->planned == cufft_plans)
    {
      st->shape = s;
      return cudaSuccess;
    }
  drop_shape (st);
  if (cufft_plans)
    {
      int n = s.x.t, real = s.pitch, complex = s.pitch / 2;
      const int batch = s.transforms * s.y.t;
      cufftResult r;

      if ((r = cufft.plan_many (&st->fwd, 1, &n, &real, 1, s.pitch, &complex, 1, s.pitch / 2,
                                CUFFT_R2C, batch)) != CUFFT_SUCCESS)
        return cufft_error (r);
      if ((r = cufft.plan_many (&st->inv, 1, &n, &complex, 1, s.pitch / 2, &real, 1, s.pitch,
                                CUFFT_C2R, batch)) != CUFFT_SUCCESS)
        {
          cufft.destroy (st->fwd);
          return cufft_error (r);
        }
      st->planned = true;
    }
  st->shape = s;
  st->shaped = true;
  return cudaSuccess;
}

/* A strip's rows, forward or back: this file's kernels, or cuFFT's plans. */
static cudaError_t
transform_rows (CcFftState *st, bool inverse, float *planes, cudaStream_t stream)
{
  const Shape s = st->shape;
  cufftResult r;

  if (!st->planned)
    return launch_rows (s.x.t, inverse, planes, s.pitch, (long long) s.transforms * s.y.t,
                        st->shared_optin, stream);
  cufft.set_stream (inverse ? st->inv : st->fwd, stream);
  r = inverse ? cufft.exec_c2r (st->inv, (cufftComplex *) planes, planes)
              : cufft.exec_r2c (st->fwd, planes, (cufftComplex *) planes);
  return cufft_error (r);
}

/* The spectrum of 'values' (the mask or its magnitudes) at this shape: its
 * rows' in 'plane' (what fft_multiply reads for a one-row mask), and where
 * the tiles are taller, the whole spectrum by columns. */
static cudaError_t
spectrum_of (CcFftState *st, const float *values, int mw, int mh, Spectrum *sp,
             cudaStream_t stream)
{
  const Shape s = st->shape;
  const size_t bytes = sizeof (float) * s.plane;
  const int cols = s.x.t / 2 + 1;
  cudaError_t err;

  if (!sp->plane && (err = cudaMalloc (&sp->plane, bytes)) != cudaSuccess)
    return err;
  /* The values at the origin of a zero plane. */
  if ((err = cudaMemsetAsync (sp->plane, 0, bytes, stream)) != cudaSuccess ||
      (err = cudaMemcpy2DAsync (sp->plane, sizeof (float) * s.pitch, values,
                                sizeof (float) * mw, sizeof (float) * mw, mh,
                                cudaMemcpyHostToDevice, stream)) != cudaSuccess ||
      (err = launch_rows (s.x.t, false, (float *) sp->plane, s.pitch, s.y.t, st->shared_optin,
                          stream)) !=
        cudaSuccess)
    return err;
  if (s.y.t == 1)
    return cudaSuccess;
  if (!sp->columns &&
      (err = cudaMalloc (&sp->columns, sizeof (float2) * cols * s.y.t)) != cudaSuccess)
    return err;
  return mask_columns_of (s.y.t, sp->plane, s.pitch / 2, cols, sp->columns, stream);
}

/* The mask's spectrum at this shape, and |mask|'s where alpha weighting
 * needs it, each computed once per mask ('serial' says which) in the slot
 * that holds it, or else in the one the last strip did not use. */
static cudaError_t
mask_spectra (CcFftState *st, const float *mask, int mw, int mh, uint64_t serial,
              cudaStream_t stream, const MaskSpectra **out)
{
  const int n = mw * mh;
  const int slot = st->spectra[st->last].serial == serial ? st->last : 1 - st->last;
  MaskSpectra *ms = &st->spectra[slot];
  cudaError_t err;

  st->last = slot;
  if (ms->serial != serial)
    {
      ms->have_mask = ms->have_abs = false;
      ms->serial = serial;
    }
  if (!ms->have_mask)
    {
      if ((err = spectrum_of (st, mask, mw, mh, &ms->mask, stream)) != cudaSuccess)
        return err;
      ms->have_mask = true;
    }
  if (st->shape.weighted && !ms->have_abs)
    {
      float *magnitudes = (float *) malloc (sizeof (float) * n);

      if (!magnitudes)
        return cudaErrorMemoryAllocation;
      for (int i = 0; i < n; i++)
        magnitudes[i] = fabsf (mask[i]);
      err = spectrum_of (st, magnitudes, mw, mh, &ms->abs, stream);
      free (magnitudes);
      if (err != cudaSuccess)
        return err;
      ms->have_abs = true;
    }
  *out = ms;
  return cudaSuccess;
}


/* The paths fft_launch takes, for CcResult.kernel, by its rows (in
 * registers, staged, or cuFFT's where the bench asks) and its columns (in
 * registers, staged, or none: a one-row mask's tiles). */
static const char *const fft_paths[3][3] = {
  { "fft, rows in registers, columns in registers", "fft, rows in registers, columns staged",
    "fft, rows in registers only" },
  { "fft, rows staged, columns in registers", "fft, rows staged, columns staged",
    "fft, rows staged only" },
  { "fft, cuFFT rows, columns in registers", "fft, cuFFT rows, columns staged",
    "fft, cuFFT rows only" }
};

/* One strip of a job whose strips have 'strip_rows' rows (this one as
 * many or fewer), with the mask numbered 'serial'. */
static cudaError_t
fft_launch (CcFftState *st, const ConvArgs &a, const float *mask, uint64_t serial,
            int strip_rows, bool rows_by_cufft, float *planes, cudaStream_t stream)
{
  const Shape s = shape_for (a.dst.width, strip_rows, a.mask_width, a.mask_height,
                             a.channels, a.weighted);
  const size_t n = s.plane / 2;
  /* With alpha weighting, the list of pixels fft_exact computes follows the
   * planes (cc_fft_bytes). */
  unsigned *const exact = s.weighted ? (unsigned *) (planes + s.plane * s.transforms) : NULL;
  const MaskSpectra *ms;
  cudaError_t err;

  if ((err = set_shape (st, s, rows_by_cufft)) != cudaSuccess)
    return err;
  if ((err = mask_spectra (st, mask, a.mask_width, a.mask_height, serial, stream, &ms)) !=
      cudaSuccess)
    return err;
  if (exact && (err = cudaMemsetAsync (exact, 0, sizeof (unsigned), stream)) != cudaSuccess)
    return err;

  pad_finish (a, planes, s, false, exact, stream);
  if ((err = cudaGetLastError ()) != cudaSuccess ||
      (err = transform_rows (st, false, planes, stream)) != cudaSuccess)
    return err;
  /* The transforms leave the size out; fold it in, with the divisor where
   * no weight divides by the sums later. */
  const float scale = (s.weighted ? 1.0f : a.inv_divisor) / ((float) s.x.t * s.y.t);
  cc_kernel_ran (fft_paths[rows_by_cufft ? 2 : !rows_in_registers (s.x.t, st->shared_optin)]
                          [s.y.t == 1 ? 2 : !columns_in_registers (s.y.t, st->shared_optin)]);
  if (exact)
    cc_kernel_may_fall_back ();
  if (s.y.t > 1)
    err = launch_columns (s.y.t, (float2 *) planes, ms->mask.columns,
                          s.weighted ? ms->abs.columns : NULL, s.per_tile, s.pitch / 2,
                          s.x.t / 2 + 1, s.transforms, s.plane / 2, scale, st->shared_optin,
                          stream);
  else
    {
      const dim3 grid (n / 256 + 1 < 4096 ? (unsigned) (n / 256 + 1) : 4096,
                       s.transforms < 65535 ? s.transforms : 65535);

      fft_multiply<<<grid, 256, 0, stream>>> ((float2 *) planes, ms->mask.plane,
                                              s.weighted ? ms->abs.plane : NULL,
                                              s.per_tile, n, s.transforms, s.plane / 2,
                                              scale);
      err = cudaGetLastError ();
    }
  if (err != cudaSuccess || (err = transform_rows (st, true, planes, stream)) != cudaSuccess)
    return err;
  pad_finish (a, planes, s, true, exact, stream);
  return cudaGetLastError ();
}

static CcStatus
check (const CcJob *job, size_t *shared, char *message, size_t size)
{
  *shared = 0;
  return CC_OK;
}

/* The job's mask is one of the last two, or takes the place of the one the
 * last job did not use, with a new number, so that each lane makes its
 * spectra again; the comparison is once a job, not a strip.  fft_exact
 * reads the mask where the basic method does. */
static cudaError_t
set_mask (struct _CcGpu *g, const CcJob *job)
{
  const size_t n = (size_t) job->mask_width * job->mask_height;
  int slot = -1;

  for (int i = 0; i < 2 && slot < 0; i++)
    {
      const FftMask &m = g->fft_masks[(g->fft_mask_now + i) % 2];

      if (m.values && m.width == job->mask_width && m.height == job->mask_height &&
          memcmp (m.values, job->mask, sizeof (float) * n) == 0)
        slot = (g->fft_mask_now + i) % 2;
    }
  if (slot < 0)
    {
      FftMask &m = g->fft_masks[slot = 1 - g->fft_mask_now];
      float *copy = (float *) realloc (m.values, sizeof (float) * n);

      if (!copy)
        return cudaErrorMemoryAllocation;
      memcpy (copy, job->mask, sizeof (float) * n);
      m = FftMask { copy, job->mask_width, job->mask_height, ++g->fft_mask_numbers };
    }
  g->fft_mask_now = slot;
  return job->weighted ? cc_kernels_basic.set_mask (g, job) : cudaSuccess;
}

static cudaError_t
launch (struct _CcGpu *g, Lane *lane, const CcJob *job, const ConvArgs &a, float *pass,
        float *planes)
{
  const bool rows_by_cufft = cufft_rows (g);

  if (rows_by_cufft && cufft.why[0])
    return cudaErrorSharedObjectInitFailed;
  if (!lane->fft && !(lane->fft = cc_fft_state_new ()))
    return cudaErrorMemoryAllocation;
  lane->fft->shared_optin = g->facts.shared_optin;
  return fft_launch (lane->fft, a, job->mask, g->fft_masks[g->fft_mask_now].serial,
                     (int) lane->strip_rows, rows_by_cufft, planes, lane->stream);
}

/* Every output's sum takes the whole plane's samples. */
static bool
reach_past (const struct _CcGpu *g, const CcJob *job)
{
  return true;
}

/* Each lane makes the mask's spectra at its first strip, and keeps them. */
extern "C" const CcKernels cc_kernels_fft =
  { .check = check, .set_mask = set_mask, .launch = launch, .planes = true,
    .reach_past = reach_past, .modules = MODULE_BIT (MODULE_FFT), .follows = true };

extern const void *const cc_module_fft = (const void *) fft_multiply;
