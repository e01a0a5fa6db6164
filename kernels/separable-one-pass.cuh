/* The separable method's one pass: one RGBA term up to 31x31 in one
 * kernel, the row pass's output kept in shared memory, with its launcher.
 * Part of separable.cu's translation unit; internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SEPARABLE_ONE_PASS_CUH
#define CC_SEPARABLE_ONE_PASS_CUH

#include <type_traits>

#include "device-toolkit.cuh"
#include "gpu.cuh"
#include "tensor-map.cuh"

/* ---- One pass for one term: the row pass's output kept in shared memory ----
 *
 * A block owns FUSED_BW output columns and 'seg' rows and walks down
 * them a step of fused_step rows at a time: the step's input rows (and
 * their horizontal halo) come into a staging tile by asynchronous copies,
 * issued during the previous step's column pass so that they arrive while
 * it runs; the row pass filters them along x into a buffer of filtered
 * rows, and the column pass streams down that buffer.  Each of its threads
 * owns one sample column (a pixel's channel) and keeps in registers the
 * sums of the KP output rows the latest filtered row reaches (KP: the
 * mask's 2R + 1 taps rounded up to a multiple of 8): each row is read from
 * shared memory once and feeds 2R + 1 FMAs, and the output row it
 * completes is stored.  So the image is read once (its halo columns from
 * L2) and written once, and the filtered rows above a step are never kept
 * or moved; only the KP - 1 rows a block starts with are filtered without
 * an output of their own.  The row pass's threads take 8 adjacent outputs
 * each and load each input once from shared memory at an offset the
 * compiler knows; the taps are immediate operands, one kernel a radius.
 * No zero tap is multiplied: times an infinity or a NaN it would make a
 * NaN past the mask's reach.  Input rows wholly inside the source come by
 * one tensor copy a step, issued by one thread, where the per-pixel copies
 * cost every warp 35 instructions a row.  RGBA, one term, square masks up
 * to 31x31; the rest take the two passes below. */
constexpr int FUSED_THREADS = 256;
constexpr int FUSED_BW = 64;
constexpr int FUSED_MIN_SEG = 256;
constexpr int FUSED_MAX_R = 15;
constexpr int FUSED_OUT = 8;   /* row-pass outputs a thread; KP is a multiple of it */
constexpr int FUSED_TAPS = 32; /* 2 * FUSED_MAX_R + 1, rounded up to a multiple of FUSED_OUT */
/* Staged columns a thread copies: a warp covers 32 of the tile's. */
constexpr int FUSED_STAGE_COLS = (FUSED_BW + FUSED_TAPS - 1 + 31) / 32;
/* The column pass's threads: one a sample column of the block's. */
static_assert (FUSED_THREADS == 4 * FUSED_BW, "a column-pass thread a sample column");

/* [0]: the row taps, [1]: the column taps, zeros past the mask.  A kernel
 * parameter (constant memory all the same): no copy to the GPU ahead of
 * the launch, which from pageable memory waits for the work before it. */
struct FusedTaps
{
  float t[2][FUSED_TAPS];
};

/* KP: the mask's taps rounded up to a multiple of FUSED_OUT. */
static __host__ __device__ constexpr int fused_padded (int r) { return (2 * r + FUSED_OUT) & ~(FUSED_OUT - 1); }
/* Rows a step: a multiple of the padded taps, so that each output row's
 * sum is in the same register at every step (the column pass is unrolled
 * over a step), and at most the row pass's 32 thread rows. */
static __host__ __device__ constexpr int fused_step (int kp) { return kp == 24 ? 24 : 32; }
/* Staged columns: the outputs' and the padded taps' reach. */
static __host__ __device__ int fused_in_width (int r) { return FUSED_BW + fused_padded (r) - 1; }
/* Staging rows and filtered rows an odd number of float4s apart, so that
 * the eight lanes of a quarter-warp, on eight rows, hit distinct banks. */
static __host__ __device__ int fused_stage_stride (int r) { return fused_in_width (r) | 1; }
constexpr int FUSED_FILTERED_STRIDE = FUSED_BW + 1;

/* The staging tile, the filtered rows, and the staging copy's mbarrier. */
static size_t
fused_shared_bytes (int r)
{
  return sizeof (float4) * (size_t) fused_step (fused_padded (r)) *
         (fused_stage_stride (r) + FUSED_FILTERED_STRIDE) + sizeof (unsigned long long);
}

__device__ __forceinline__ void
fma4 (float4 &acc, float k, const float4 &v)
{
  acc.x += k * v.x;
  acc.y += k * v.y;
  acc.z += k * v.z;
  acc.w += k * v.w;
}

/* 8 adjacent outputs from the NT taps 'taps' over the inputs from 'in':
 * each input loaded once and taken by every output it reaches, NT + 7
 * shared-memory loads for 8 NT taps, the taps immediate operands from
 * constant memory.  Each output sums its taps in order. */
template <int NT>
__device__ __forceinline__ void
filter8 (const float4 *in, const float *taps, float4 acc[FUSED_OUT])
{
#pragma unroll
  for (int u = 0; u < NT + FUSED_OUT - 1; u++)
    {
      const float4 v = in[u];

#pragma unroll
      for (int o = 0; o < FUSED_OUT; o++)
        if (u - o >= 0 && u - o < NT)
          fma4 (acc[o], taps[u - o], v);
    }
}

/* Sample 'out' of output row y, column x, channel c from its sum. */
template <int FINISH>
__device__ __forceinline__ void
fused_store (const ConvArgs &a, float sum, float *out, int y, int x, int c)
{
  if (FINISH == FINISH_PLAIN)
    *out = cc_finish (sum, a.inv_divisor, a.offset, 0);
  else if (FINISH == FINISH_PLAIN_CLAMPED)
    *out = cc_finish (sum, a.inv_divisor, a.offset, 1);
  else if (a.mode[c] == CC_MODE_COPY)
    *out = a.src.data[(a.out_y + y) * a.src.pitch + (long long) (a.out_x + x) * 4 + c];
  else
    *out = cc_finish (sum + (a.accumulate ? *out : 0.0f), a.inv_divisor, a.offset, a.clamp);
}

/* One block's walk down its segment of the image: the staging of input
 * rows, the row pass and the column pass, as conv_fused runs them.  The
 * host's fused_* sizes; the sums' rotation runs over the taps padded to
 * KP, the FMAs over the mask's NT alone, so that an infinity or a NaN
 * reaches no output past the mask. */
template <int R>
struct FusedWalk
{
  static constexpr int KP = fused_padded (R), NT = 2 * R + 1;
  static constexpr int IN_W = FUSED_BW + KP - 1, SW = IN_W | 1, CH = fused_step (KP);
  static constexpr int F = FUSED_FILTERED_STRIDE;
  static_assert (CH % KP == 0 && CH <= 32, "a step: whole rounds of the column sums");
  static_assert (SW == IN_W, "a tensor copy writes the staging rows densely");

  const ConvArgs &a;
  const FusedTaps &taps;
  const CUtensorMap &map;
  float4 *stage, *filtered;
  unsigned long long *staged;   /* the staging copy's mbarrier */
  int t, bx0, y_first, rows, x_lo;
  /* A thread's staging columns, the same at every step, their border
   * mapping done once; 'inside': no zero ghost among them. */
  int sx[FUSED_STAGE_COLS];
  bool inside;
  bool bulk_cols;               /* the staging tile's columns lie inside the source */
  bool bulk;                    /* the last staging came by tensor copy */
  unsigned parity;              /* of the mbarrier 'staged' */

  __device__ __forceinline__
  FusedWalk (const ConvArgs &a_, const FusedTaps &taps_, const CUtensorMap &map_, int mapped,
             int seg, float4 *shared)
    : a (a_), taps (taps_), map (map_), stage (shared), filtered (shared + CH * SW),
      staged (reinterpret_cast<unsigned long long *> (shared + CH * SW + CH * F)),
      t (threadIdx.x), bx0 (blockIdx.x * FUSED_BW), y_first (blockIdx.y * seg),
      rows (min (seg, a_.dst.height - y_first)), x_lo (a_.out_x + bx0 - R), inside (true),
      bulk (false), parity (0)
  {
    bulk_cols = BULK_COPY && mapped && x_lo >= 0 && x_lo + IN_W <= a.src.width;
#pragma unroll
    for (int q = 0; q < FUSED_STAGE_COLS; q++)
      {
        sx[q] = cc_border_index32 (x_lo + t % 32 + 32 * q, a.src.width, a.border_x);
        inside = inside && (t % 32 + 32 * q >= IN_W || sx[q] >= 0);
      }
  }

  /* Input rows r0 .. r0 + CH - 1 (output coordinates) into the staging
   * tile, asynchronously, a warp a row of 32 pixels at a time; ghosts of a
   * zero border are written as zeros. */
  __device__ __forceinline__ void
  stage_rows (int r0)
  {
    bulk = bulk_cols && a.out_y + r0 >= 0 && a.out_y + r0 + CH <= a.src.height;
#if BULK_COPY
    if (bulk)
      {
        if (t == 0)
          tensor_load (stage, &map, 2 * x_lo, a.out_y + r0, staged,
                       (int) sizeof (float4) * IN_W * CH);
        return;
      }
#endif
    stage_rows_async<IN_W> (a, stage, SW, a.out_y + r0, CH, t / 32, FUSED_THREADS / 32,
                            [&] (int q) { return sx[q]; }, inside);
    __pipeline_commit ();
  }

  /* The staged rows filtered along x: a warp takes the step's rows of one
   * group of 8 columns.  The first barrier also ends the previous column
   * pass's reads of the filtered rows. */
  __device__ __forceinline__ void
  row_pass ()
  {
    const int r = t % 32, x0 = (t / 32) * FUSED_OUT;

#if BULK_COPY
    if (bulk)
      {
        mbarrier_wait (staged, parity);
        parity ^= 1;
      }
#endif
    __pipeline_wait_prior (0);
    __syncthreads ();
    if (r < CH)
      {
        float4 acc[FUSED_OUT] = {};

        filter8<NT> (stage + r * SW + x0, taps.t[0], acc);
#pragma unroll
        for (int o = 0; o < FUSED_OUT; o++)
          filtered[r * F + x0 + o] = acc[o];
      }
    __syncthreads ();
  }

  /* The whole walk, for one way of finishing: filtered row i of the
   * segment is output row i - R's centre row; after it, output row
   * i - (KP - 1) has all its taps.  sum[j % KP] holds output row j's. */
  template <int FINISH>
  __device__ __forceinline__ void
  walk ()
  {
    const int x = bx0 + t / 4, c = t % 4;
    const int steps = (rows + KP - 1 + CH - 1) / CH;
    const float *const column = reinterpret_cast<const float *> (filtered) + t;
    float *const out = a.dst.data + (long long) y_first * a.dst.pitch + (long long) x * 4 + c;
    float sum[KP];

    /* Step s's column pass: filtered row u completes output row j0 + u,
     * stored where 'valid' has bit u set (every row but the first and last
     * few steps' and past the image's right edge).  One unrolled copy for
     * every step: a second without the tests would only add instruction
     * fetches. */
#pragma unroll
    for (int k = 0; k < KP; k++)
      sum[k] = 0.0f;
    stage_rows (y_first - R);
    for (int s = 0; s < steps; s++)
      {
        const int j0 = s * CH - (KP - 1), lo = max (-j0, 0), hi = min (rows - j0, CH);
        const unsigned valid = x < a.dst.width && hi > lo
                               ? (hi == 32 ? ~0u : (1u << hi) - 1) & ~((1u << lo) - 1) : 0;
        float *o = out + j0 * a.dst.pitch;

        row_pass ();
        if (s + 1 < steps)
          stage_rows (y_first - R + (s + 1) * CH);   /* arrives during this column pass */
#pragma unroll
        for (int u = 0; u < CH; u++)
          {
            const float v = column[u * 4 * F];

            /* Each output row's taps in order, as the row pass sums them. */
#pragma unroll
            for (int k = 0; k < NT; k++)
              sum[(u - k + KP) % KP] += taps.t[1][k] * v;
            if (valid & 1u << u)
              fused_store<FINISH> (a, sum[(u + 1) % KP], o, y_first + j0 + u, x, c);
            sum[(u + 1) % KP] = 0.0f;
            o += a.dst.pitch;
          }
      }
  }
};

/* 'map' (where 'mapped') describes the source in boxes of the staging
 * tile's width and a step's rows. */
template <int R>
__global__ void __launch_bounds__ (FUSED_THREADS, 2)
conv_fused (const __grid_constant__ ConvArgs a, const __grid_constant__ FusedTaps taps,
            const __grid_constant__ CUtensorMap map, int mapped, int seg)
{
  extern __shared__ __align__ (128) float4 fused_shared[];   /* the tensor copy's alignment */
  FusedWalk<R> w (a, taps, map, mapped, seg, fused_shared);
  const bool plain = plain_only<4, false> (a);

#if BULK_COPY
  if (w.t == 0)
    mbarrier_init (w.staged);
  __syncthreads ();
#endif
  /* Plain sums: the finish chosen once, not per sample (it had taken more
   * issue slots than all but the FMAs). */
  if (plain && a.clamp)
    w.template walk<FINISH_PLAIN_CLAMPED> ();
  else if (plain)
    w.template walk<FINISH_PLAIN> ();
  else
    w.template walk<FINISH_BY_MODE> ();
}

/* Whether the one pass takes the job: one RGBA term of a square mask up
 * to 31x31 whose shared memory the GPU has, read 16 bytes at a time (a
 * strip's rows always are; a device source's where it is so aligned), as
 * the scheduler's vec4 says.  'auto''s probe job has no source yet. */
static bool
fused_takes (const struct _CcGpu *g, const CcJob *job)
{
  const CcImage *src = job->src;
  const int r = job->mask_width / 2;
  const bool in_place = src && src->on_device && src->type == CC_TYPE_FLOAT;

  return job->channels == 4 && job->terms == 1 && !job->weighted &&
         job->mask_width == job->mask_height && r >= 1 && r <= FUSED_MAX_R &&
         fused_shared_bytes (r) <= g->facts.shared_optin &&
         (!in_place || ((uintptr_t) src->data % 16 == 0 && src->stride % 16 == 0));
}

/* The one pass's taps: the row pass's sep_v, the column pass's sep_u. */
static void
fused_taps (const CcJob *job, int r, FusedTaps *taps)
{
  *taps = FusedTaps {};
  for (int i = 0; i < 2 * r + 1; i++)
    {
      taps->t[0][i] = job->sep_v[i];
      taps->t[1][i] = job->sep_u[i];
    }
}

static cudaError_t
launch_fused (const struct _CcGpu *g, const CcJob *job, const ConvArgs &a, int r,
              cudaStream_t stream)
{
  const size_t shared = fused_shared_bytes (r);
  const int bands = (a.dst.width + FUSED_BW - 1) / FUSED_BW;
  CUtensorMap map = {};
  const int mapped = image_map (a.src, 4, 4 * fused_in_width (r), fused_step (fused_padded (r)),
                                &map);
  const int sms = g->facts.sms;
  int seg, segs;

  /* Rows a block: as many as leave about two waves of two blocks an SM,
   * since each block filters KP - 1 rows with no output of their own and
   * waits for its first loads; at least FUSED_MIN_SEG. */
  segs = 4 * sms / bands > 1 ? 4 * sms / bands : 1;
  seg = (a.dst.height + segs - 1) / segs;
  seg = seg < FUSED_MIN_SEG ? FUSED_MIN_SEG : (seg + 31) / 32 * 32;
  const dim3 grid (bands, (a.dst.height + seg - 1) / seg);
  FusedTaps taps;
  /* A kernel a radius, so that its taps are unrolled. */
  void (*const kernels[]) (ConvArgs, FusedTaps, CUtensorMap, int, int) =
    { conv_fused<1>, conv_fused<2>, conv_fused<3>, conv_fused<4>, conv_fused<5>,
      conv_fused<6>, conv_fused<7>, conv_fused<8>, conv_fused<9>, conv_fused<10>,
      conv_fused<11>, conv_fused<12>, conv_fused<13>, conv_fused<14>, conv_fused<15> };
  static_assert (sizeof kernels / sizeof kernels[0] == FUSED_MAX_R, "a kernel a radius");
  void (*const kernel) (ConvArgs, FusedTaps, CUtensorMap, int, int) = kernels[r - 1];
  cudaError_t err;

  fused_taps (job, r, &taps);
  cc_kernel_ran ("separable one pass");
  if ((err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  kernel<<<grid, FUSED_THREADS, shared, stream>>> (a, taps, map, mapped, seg);
  return cudaGetLastError ();
}

#endif /* CC_SEPARABLE_ONE_PASS_CUH */
