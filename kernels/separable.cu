/* Method "separable": a mask of rank up to CC_SEPARABLE_MAX_TERMS (the
 * engine's SVD splits it into terms).  One RGBA term up to 31x31 runs in
 * one kernel, the row pass's output kept in shared memory; otherwise a row
 * pass and a column pass per term, each by the register method's kernels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "register-tile.cuh"

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

/* ---- One pass for one term: the row pass's output kept in shared memory ----
 *
 * A block owns FUSED_BW output columns and FUSED_SEG rows and walks down
 * them FUSED_CH rows a step: the next FUSED_CH input rows (and their
 * horizontal halo) come into a staging tile by asynchronous copies issued
 * before the column pass, so that they arrive while it runs; the row pass
 * filters them along x into a ring of FUSED_CH + 2R filtered rows, and the
 * column pass filters the ring along y into FUSED_CH output rows.  So the
 * image is read once (its halo columns from L2) and written once, where two
 * passes wrote and read the whole image between them; only the 2R ring
 * rows a block starts with are filtered twice.  Each thread takes 8
 * outputs of a pass, adjacent along x or along y, from a sliding window in
 * registers, as register's column kernel does: one shared-memory load and
 * one tap a step feed 32 FMAs.  The taps are a run-time loop, so one kernel
 * serves every radius (a loop unrolled per radius grew the kernel past the
 * instruction cache and ran slower than two passes).  RGBA, one term,
 * square masks up to 31x31 (a narrower axis padded with zero taps would
 * carry a NaN beyond the mask's reach); the rest take the two passes
 * below. */
constexpr int FUSED_BW = 64;
constexpr int FUSED_CH = 32;
constexpr int FUSED_SEG = 256;
constexpr int FUSED_MAX_R = 15;
constexpr int FUSED_OUT = 8;   /* outputs a thread a pass */

/* [0]: the row taps, [1]: the column taps. */
__constant__ float c_fused_taps[2][2 * FUSED_MAX_R + 1];

/* Staging rows and ring rows an odd number of float4s apart, so that the
 * eight lanes of a quarter-warp, on eight rows, hit distinct banks. */
static __host__ __device__ int fused_stage_stride (int r) { return (FUSED_BW + 2 * r) | 1; }
constexpr int FUSED_RING_STRIDE = FUSED_BW + 1;

static size_t
fused_shared_bytes (int r)
{
  return sizeof (float4) * ((size_t) FUSED_CH * fused_stage_stride (r) +
                            (size_t) (FUSED_CH + 2 * r) * FUSED_RING_STRIDE);
}

__device__ __forceinline__ void
fma4 (float4 &acc, float k, const float4 &v)
{
  acc.x += k * v.x;
  acc.y += k * v.y;
  acc.z += k * v.z;
  acc.w += k * v.w;
}

__global__ void __launch_bounds__ (256, 2)
conv_fused (const __grid_constant__ ConvArgs a, int R)
{
  const int K = 2 * R + 1, SW = fused_stage_stride (R), RW = FUSED_RING_STRIDE;
  const int RH = FUSED_CH + 2 * R, IN_W = FUSED_BW + 2 * R;
  extern __shared__ float4 fused_shared[];
  float4 *const stage = fused_shared, *const ring = fused_shared + FUSED_CH * SW;
  const int t = threadIdx.x, bx0 = blockIdx.x * FUSED_BW;
  const int y_first = blockIdx.y * FUSED_SEG, y_end = min (y_first + FUSED_SEG, a.dst.height);
  const int base = y_first - R;   /* the filtered row in ring slot 0 */
  const bool plain = plain_only<4, false> (a);

  /* Input rows for filtered rows r0 .. r0 + n - 1 (output coordinates)
   * into the staging tile, asynchronously; ghosts of a zero border are
   * written as zeros. */
  const auto stage_rows = [&] (int r0, int n)
  {
    for (int i = t; i < n * IN_W; i += blockDim.x)
      {
        const int r = i / IN_W, c = i - r * IN_W;
        const int sy = cc_border_index32 (a.out_y + r0 + r, a.src.height, a.border_y);
        const int sx = cc_border_index32 (a.out_x + bx0 - R + c, a.src.width, a.border_x);

        if ((sx | sy) >= 0)
          __pipeline_memcpy_async (stage + r * SW + c,
                                   reinterpret_cast<const float4 *> (a.src.data +
                                                                     sy * a.src.pitch) + sx,
                                   sizeof (float4));
        else
          stage[r * SW + c] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
      }
    __pipeline_commit ();
  };
  /* The staged rows filtered along x into the ring: a warp takes 32 rows
   * of one group of 8 columns. */
  const auto row_pass = [&] (int r0, int n)
  {
    const int r = t % 32, x0 = (t / 32) * FUSED_OUT;

    __pipeline_wait_prior (0);
    __syncthreads ();
    if (r < n)
      {
        const float4 *in = stage + r * SW + x0;
        float4 *out = ring + ((r0 + r - base) % RH) * RW + x0;
        float4 win[FUSED_OUT], acc[FUSED_OUT] = {};

#pragma unroll
        for (int o = 0; o + 1 < FUSED_OUT; o++)
          win[o + 1] = in[o];
#pragma unroll FUSED_OUT
        for (int j = 0; j < K; j++)
          {
            const float k = c_fused_taps[0][j];

#pragma unroll
            for (int o = 0; o + 1 < FUSED_OUT; o++)
              win[o] = win[o + 1];
            win[FUSED_OUT - 1] = in[j + FUSED_OUT - 1];
#pragma unroll
            for (int o = 0; o < FUSED_OUT; o++)
              fma4 (acc[o], k, win[o]);
          }
#pragma unroll
        for (int o = 0; o < FUSED_OUT; o++)
          out[o] = acc[o];
      }
    __syncthreads ();
  };

  stage_rows (base, FUSED_CH);
  row_pass (base, FUSED_CH);
  stage_rows (base + FUSED_CH, 2 * R);
  row_pass (base + FUSED_CH, 2 * R);
  for (int y0 = y_first; y0 < y_end; y0 += FUSED_CH)
    {
      /* Two warps a group of 8 rows, a thread a column. */
      const int x = t % FUSED_BW, oy = y0 + (t / FUSED_BW) * FUSED_OUT;
      const bool more = y0 + FUSED_CH < y_end;
      int slot = (oy - R - base) % RH;
      float4 win[FUSED_OUT], acc[FUSED_OUT] = {};

      if (more)
        stage_rows (y0 + FUSED_CH + R, FUSED_CH);   /* arrives during this column pass */
#pragma unroll
      for (int o = 0; o + 1 < FUSED_OUT; o++)
        {
          win[o + 1] = ring[slot * RW + x];
          slot = slot + 1 == RH ? 0 : slot + 1;
        }
#pragma unroll FUSED_OUT
      for (int j = 0; j < K; j++)
        {
          const float k = c_fused_taps[1][j];

#pragma unroll
          for (int o = 0; o + 1 < FUSED_OUT; o++)
            win[o] = win[o + 1];
          win[FUSED_OUT - 1] = ring[slot * RW + x];
          slot = slot + 1 == RH ? 0 : slot + 1;
#pragma unroll
          for (int o = 0; o < FUSED_OUT; o++)
            fma4 (acc[o], k, win[o]);
        }
      if (bx0 + x < a.dst.width)
#pragma unroll
        for (int o = 0; o < FUSED_OUT; o++)
          if (oy + o < y_end)
            {
              const float sums[4] = { acc[o].x, acc[o].y, acc[o].z, acc[o].w };
              const float *centre = a.src.data + (a.out_y + oy + o) * a.src.pitch +
                                    (long long) (a.out_x + bx0 + x) * 4;

              finish_store<4, false> (a, plain, sums, sums, 0.0f, centre,
                                      a.dst.data + (oy + o) * a.dst.pitch +
                                      (long long) (bx0 + x) * 4);
            }
      __syncthreads ();   /* the ring's oldest rows are refilled next */
      if (more)
        row_pass (y0 + FUSED_CH + R, FUSED_CH);
    }
}

/* The radius the one pass takes the job at, or 0 where it cannot. */
static int
fused_radius (const struct _CcGpu *g, const CcJob *job, const ConvArgs &a)
{
  const int r = job->mask_width / 2;

  if (job->channels != 4 || job->terms != 1 || job->weighted || a.accumulate || !a.vec4 ||
      job->mask_width != job->mask_height || r < 1 || r > FUSED_MAX_R ||
      fused_shared_bytes (r) > g->shared_optin)
    return 0;
  return r;
}

static cudaError_t
launch_fused (const CcJob *job, const ConvArgs &a, int r, cudaStream_t stream)
{
  const size_t shared = fused_shared_bytes (r);
  const dim3 grid ((a.dst.width + FUSED_BW - 1) / FUSED_BW,
                   (a.dst.height + FUSED_SEG - 1) / FUSED_SEG);
  float taps[2][2 * FUSED_MAX_R + 1];
  cudaError_t err;

  for (int i = 0; i < 2 * r + 1; i++)
    {
      taps[0][i] = job->sep_v[i];
      taps[1][i] = job->sep_u[i];
    }
  if ((err = cudaMemcpyToSymbolAsync (c_fused_taps, taps, sizeof taps, 0,
                                      cudaMemcpyHostToDevice, stream)) != cudaSuccess ||
      (err = cudaFuncSetAttribute (conv_fused, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  conv_fused<<<grid, 256, shared, stream>>> (a, r);
  return cudaGetLastError ();
}

/* For each rank-1 term, a row pass over every input row into 'pass', then
 * a column pass adding into the output; only the last term's column pass
 * applies divisor, offset and clamping. */
static cudaError_t
launch (struct _CcGpu *g, const CcJob *job, const ConvArgs &a, float *pass, float *planes,
        cudaStream_t stream)
{
  const int w = job->mask_width, h = job->mask_height, C = job->channels;
  ConvArgs row = a, col = a;
  cudaError_t err = cudaSuccess;

  /* A 1D mask is its own single pass. */
  if (w == 1 || h == 1)
    {
      if ((err = cc_register_set_mask (job->mask, w, h, stream)) != cudaSuccess)
        return err;
      return cc_register_launch (a, g->shared_optin, stream);
    }
  if (const int r = fused_radius (g, job, a))
    return launch_fused (job, a, r, stream);

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
          (err = cc_register_launch (row, g->shared_optin, stream)) != cudaSuccess ||
          (err = cc_register_set_mask (job->sep_u + k * h, 1, h, stream)) != cudaSuccess)
        break;
      err = cc_register_launch (col, g->shared_optin, stream);
    }
  return err;
}

/* Each pass sets its own mask. */
extern "C" const CcKernels cc_kernels_separable =
  { check, NULL, launch, /* constant */ true, /* one_lane */ true, /* passes */ true,
    /* planes */ false };
