/* Method "separable": a mask of rank up to CC_SEPARABLE_MAX_TERMS (the
 * engine's SVD splits it into terms).  One RGBA term up to 31x31 runs in
 * one kernel, the row pass's output kept in shared memory; otherwise a row
 * pass and a column pass per term, each by the register method's kernels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "gpu.cuh"
/* The one pass, in FP32 and on tensor cores, each with its launcher. */
#include "separable-one-pass.cuh"
#include "separable-tensor.cuh"

static CcStatus
check (const CcJob *job, size_t *shared, char *message, size_t size)
{
  const int w = job->mask_width, h = job->mask_height, C = job->channels;

  if (job->weighted)
    {
      snprintf (message, size, "separable does not weight colour by alpha (the "
                "weighted formula's sum |k*a| does not separate); turn alpha "
                "weighting off or choose another method");
      return CC_ERROR_UNSUPPORTED;
    }
  if (job->terms < 1)
    {
      snprintf (message, size, "this %dx%d mask is not separable: more than %d "
                "rank-1 terms would be needed", w, h, CC_SEPARABLE_MAX_TERMS);
      return CC_ERROR_UNSUPPORTED;
    }
  /* Each pass's tile: the row pass w wide, the column pass h tall. */
  *shared = cc_register_shared_bytes (w, 1, C, false);
  if (cc_register_shared_bytes (1, h, C, false) > *shared)
    *shared = cc_register_shared_bytes (1, h, C, false);
  return CC_OK;
}

/* For each rank-1 term, a row pass over every input row into 'pass', then
 * a column pass adding into the output; only the last term's column pass
 * applies divisor, offset and clamping. */
static cudaError_t
launch (struct _CcGpu *g, Lane *lane, const CcJob *job, const ConvArgs &a, float *pass,
        float *planes)
{
  const cudaStream_t stream = lane->stream;
  const int w = job->mask_width, h = job->mask_height, C = job->channels;
  ConvArgs row = a, col = a;
  cudaError_t err = cudaSuccess;

  /* A 1D mask is its own single pass. */
  if (w == 1 || h == 1)
    {
      if ((err = cc_register_set_mask (job->mask, w, h, stream)) != cudaSuccess)
        return err;
      return cc_register_launch (a, g->facts, stream);
    }
  /* The scheduler gave no room for a row pass's output here. */
  if (fused_takes (g, job))
    {
      const int r = job->mask_width / 2;

      if (!a.vec4)
        return cudaErrorMisalignedAddress;
      return fused_tensor_takes (g, job, r) ? launch_fused_tensor (g, job, a, r, stream)
                                       : launch_fused (g, job, a, r, stream);
    }

  row.mask_width = w;
  row.mask_height = 1;
  row.out_y = 0;
  row.dst = DevImage { pass, a.dst.width * (long long) C, a.dst.width, a.src.height };
  row.inv_divisor = 1.0f;
  row.offset = 0.0f;
  row.clamp = 0;
  col.mask_width = 1;
  col.mask_height = h;
  col.out_x = 0;
  col.src = row.dst;
  col.vec4 = row.dst.pitch % 4 == 0;   /* the pass starts 256-byte aligned */
  for (int k = 0; k < job->terms && err == cudaSuccess; k++)
    {
      const bool last = k == job->terms - 1;

      col.accumulate = k > 0;
      col.inv_divisor = last ? a.inv_divisor : 1.0f;
      col.offset = last ? a.offset : 0.0f;
      col.clamp = last ? a.clamp : 0;
      if ((err = cc_register_set_mask (job->sep_v + k * w, w, 1, stream)) != cudaSuccess ||
          (err = cc_register_launch (row, g->facts, stream)) != cudaSuccess ||
          (err = cc_register_set_mask (job->sep_u + k * h, 1, h, stream)) != cudaSuccess)
        break;
      err = cc_register_launch (col, g->facts, stream);
    }
  cc_kernel_ran ("separable two passes");
  return err;
}

/* The two passes' row pass takes register's classes; the one pass and
 * the column pass take the mask's own taps. */
static bool
reach_past (const struct _CcGpu *g, const CcJob *job)
{
  return !fused_takes (g, job) && cc_mask_width_class (job->mask_width) != job->mask_width;
}

/* Each pass sets its own mask. */
extern "C" const CcKernels cc_kernels_separable =
  { .check = check, .launch = launch, .constant = true, .one_lane = true, .passes = true,
    .one_pass = fused_takes, .reach_past = reach_past,
    .modules = MODULE_BIT (MODULE_SEPARABLE) | MODULE_BIT (MODULE_REGISTER) };

extern const void *const cc_module_separable = (const void *) conv_fused<1>;
