/* The register method's tensor-core kernel for 9x9 masks on unweighted
 * RGBA, its taps' upload and its launcher (the FP32 kernel launched after
 * it, by register-kernels.cu, redoes the jobs it hands back).
 * Compiled in register-kernels.cu's translation unit, which defines its
 * __constant__ words once; internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_REGISTER_TENSOR9_CUH
#define CC_REGISTER_TENSOR9_CUH

#include <float.h>

#include "device-toolkit.cuh"

/* ---- 9x9 masks on RGBA by tensor cores ----
 *
 * Unweighted RGBA under a 9x9 mask takes 81 FMAs a sample, which leaves
 * the FP32 register kernel issue-bound, its loads and stores taking issue
 * slots from the FMAs.  The tensor cores' half-precision MMA
 * (mma.sync m16n8k16, FP32 sums) does the products beside the FP32 pipe.
 * Each sample x is split into two halves, hi = half (x) and lo = half
 * (x - hi), each tap likewise (the taps first scaled by a power of two that
 * brings the largest to [1, 2)), and a product is hi Hi + hi Lo + lo Hi:
 * 22 bits of each operand, an error near 2^-22 of sum |k| x max |x|, where
 * the methods are held to 1e-5.
 *
 * A warp owns 32 output pixels of its block's band, all 4 channels.  MMA's
 * A is 16 x 16: row m = 4 x segment + channel holds the 16 input samples
 * that one channel's 8 adjacent outputs (a segment) need; B, 16 x 8, is a
 * mask row's Toeplitz matrix, B[k][n] = tap k - n.  So one MMA adds a mask
 * row's taps into 128 sums.  A block streams down its band as separable's
 * one pass does: each input row's A is loaded and split once, next to the
 * MMAs of the row before, and meets all 9 mask rows; the sums of the 9
 * output rows it reaches stay in registers (the step is unrolled over 9
 * rows, so each output row's sums keep their registers), and the output
 * row it completes is turned from MMA's layout into pixels through shared
 * memory and stored.  A step's 9 rows come by one asynchronous copy a row,
 * issued a step ahead; one block barrier a step.
 *
 * Half precision ends at 65520: a sample beyond it, an infinity or a NaN
 * makes a sum non-finite, which the kernel reports in its stream's
 * Claims.redo.
 * The FP32 kernel, launched after it on the same stream, then does the
 * job again; otherwise its blocks return at once. */
constexpr int T9_K = 9;
constexpr int T9_WARPS = 8;
constexpr int T9_BAND = 32 * T9_WARPS;          /* output pixels a block's rows */
constexpr int T9_IN_W = T9_BAND + T9_K - 1;     /* staged pixels a row */
constexpr int T9_MIN_SEG = 64;

/* [mask row][Hi, Lo][lane][register]: each lane's share of the mask rows'
 * B, two halves a register, read once by each thread (in global memory:
 * c_reg_mask leaves no room in the constant bank).  The scale's inverse is
 * 0 where no power of two brings the taps into half precision's range:
 * every job then goes to the FP32 kernel. */
__device__ unsigned g_tensor9_taps[T9_K][2][32][2];
__constant__ float c_tensor9_unscale;

/* Two staging buffers of a step's rows, the warps' outputs being turned
 * into pixels, and the buffers' mbarriers. */
static constexpr size_t
tensor9_shared_bytes ()
{
  return sizeof (float4) * (2 * T9_K * T9_IN_W + 32 * T9_WARPS) +
         2 * sizeof (unsigned long long);
}

/* The MMA helpers exist for compute capability 8.0 and up only. */
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* One block's walk down its band: its staging buffers, its lane's place
 * in MMA's fragments, the mask rows' B and the sums of the 9 output rows
 * an input row reaches.  Each stage is a member, inlined, so that the
 * sums stay in registers as the lambdas' did. */
template <int FINISH>
struct Tensor9Block
{
  const ConvArgs &a;
  float4 *const stage;
  float4 *const turn;
  unsigned long long *const staged;
  /* MMA's fragments: lane = 4 g + q holds A's rows g and g + 8, B's
   * column g, the sums' rows g and g + 8; row g is channel g % 4. */
  const int lane, warp, g, q, c;
  const int bx0, y_first, rows, steps, x_lo;
  const bool bulk_cols;
  const float unscale, inv;
  /* The pixel of A's first column in row g, and where its sums turn. */
  const int tx0;
  float *const turned;
  const int x;   /* the pixel this lane stores */
  const bool here;
  /* The output row the next finished sums go to (the first input row
   * completes none). */
  float *out;
  unsigned parity;
  unsigned bh[T9_K][2], bl[T9_K][2], ah[4], al[4];
  float acc[T9_K][4], v[8];
  /* Non-finite where a sum was: NaN from the start where the taps or the
   * divisor with them leave half or single precision's range. */
  float bad;

  __device__ __forceinline__
  Tensor9Block (const ConvArgs &args, int seg, float4 *shared)
    : a (args), stage (shared), turn (shared + 2 * T9_K * T9_IN_W),
      staged (reinterpret_cast<unsigned long long *> (turn + 32 * T9_WARPS)),
      lane (threadIdx.x % 32), warp (threadIdx.x / 32), g (lane / 4), q (lane % 4), c (g % 4),
      bx0 (blockIdx.x * T9_BAND), y_first (blockIdx.y * seg),
      rows (min (seg, a.dst.height - y_first)), steps ((rows + 2 * (T9_K - 1)) / T9_K),
      x_lo (a.out_x + bx0 - T9_K / 2), bulk_cols (x_lo >= 0 && x_lo + T9_IN_W <= a.src.width),
      unscale (c_tensor9_unscale), inv (a.inv_divisor * unscale),
      tx0 (warp * 32 + 8 * (g / 4) + 2 * q),
      turned (reinterpret_cast<float *> (turn) + tx0 * 4 + c),
      x (bx0 + warp * 32 + lane), here (x < a.dst.width),
      out (a.dst.data + (long long) (y_first - (T9_K - 1)) * a.dst.pitch + (long long) x * 4),
      parity (0),
      bad (unscale != 0.0f && fabsf (inv) >= FLT_MIN && fabsf (inv) <= FLT_MAX ? 0.0f : NAN)
  {
  }

  /* Each lane's B of every mask row, and the sums from zero. */
  __device__ __forceinline__ void
  load_taps ()
  {
#pragma unroll
    for (int r = 0; r < T9_K; r++)
      {
#pragma unroll
        for (int i = 0; i < 2; i++)
          {
            bh[r][i] = g_tensor9_taps[r][0][lane][i];
            bl[r][i] = g_tensor9_taps[r][1][lane][i];
          }
#pragma unroll
        for (int i = 0; i < 4; i++)
          acc[r][i] = 0.0f;
      }
  }

  /* Step s's input rows into buffer b: by bulk copies, a row each, where
   * they lie inside the source, else sample by sample, ghosts of a zero
   * border written as zeros. */
  __device__ __forceinline__ void
  stage_rows (int s, int b)
  {
    float4 *const to = stage + b * T9_K * T9_IN_W;
    const int y0 = a.out_y + y_first - T9_K / 2 + s * T9_K;

#if BULK_COPY
    if (bulk_cols && y0 >= 0 && y0 + T9_K <= a.src.height)
      {
        if (warp == 0)
          bulk_copy_rows<T9_K> (a, to, T9_IN_W, x_lo, 0, T9_IN_W, y0, true, staged + b);
        return;
      }
    if (threadIdx.x == 0)
      mbarrier_arrive (shared_address (staged + b));
#endif
    stage_rows_async<T9_IN_W> (a, to, T9_IN_W, y0, T9_K, warp, T9_WARPS, [&] (int i)
      {
        return cc_border_index32 (x_lo + lane + 32 * i, a.src.width, a.border_x);
      }, false);
  }

  /* Until buffer b's copies have landed, for the whole block. */
  __device__ __forceinline__ void
  wait_rows (int b, int groups)
  {
    wait_buffer (staged, parity, b, groups);
    __syncthreads ();
  }

  /* Row u of buffer b: this lane's samples of A, columns 2q, 2q + 1 and
   * 8 on, rows g and g + 8 (16 pixels on). */
  __device__ __forceinline__ void
  fetch (int b, int u)
  {
    const float *row = reinterpret_cast<const float *> (stage + (b * T9_K + u) * T9_IN_W) +
                       tx0 * 4 + c;

    v[0] = row[0];  v[1] = row[4];  v[2] = row[64]; v[3] = row[68];
    v[4] = row[32]; v[5] = row[36]; v[6] = row[96]; v[7] = row[100];
  }

  __device__ __forceinline__ void
  split ()
  {
#pragma unroll
    for (int i = 0; i < 4; i++)
      split_halves (v[2 * i], v[2 * i + 1], ah[i], al[i]);
  }

  /* The first two steps' rows on their way, the first row in A. */
  __device__ __forceinline__ void
  start ()
  {
    load_taps ();
#if BULK_COPY
    if (threadIdx.x == 0)
      mbarrier_init_pair (staged);
    __syncthreads ();
#endif
    stage_rows (0, 0);
    __pipeline_commit ();
    if (steps > 1)
      stage_rows (1, 1);
    __pipeline_commit ();
    wait_rows (0, 1);
    fetch (0, 0);
    split ();
  }

  /* Input row u of a step meets mask row r in the output row u - r of
   * it; the small products first. */
  __device__ __forceinline__ void
  multiply (int u)
  {
#pragma unroll
    for (int r = 0; r < T9_K; r++)
      mma_f16 (acc[(u - r + T9_K) % T9_K], al, bh[r][0], bh[r][1]);
#pragma unroll
    for (int r = 0; r < T9_K; r++)
      mma_f16 (acc[(u - r + T9_K) % T9_K], ah, bl[r][0], bl[r][1]);
#pragma unroll
    for (int r = 0; r < T9_K; r++)
      mma_f16 (acc[(u - r + T9_K) % T9_K], ah, bh[r][0], bh[r][1]);
  }

  /* Output row 9 s + u - 8, which has all its taps, turned from MMA's
   * layout into pixels through shared memory and stored; its sums then
   * start again from zero for the row 9 further down.  A non-finite
   * sample makes all 8 sums of its row of A non-finite, so 2 of a lane's
   * 4 sums (columns 2q of rows g and g + 8) see every row. */
  __device__ __forceinline__ void
  store_row (int s, int u)
  {
    float (&d)[4] = acc[(u + 1) % T9_K];
    const int j = s * T9_K + u - (T9_K - 1);

    bad += d[0] + d[2];
    turned[0] = d[0];
    turned[4] = d[1];
    turned[64] = d[2];
    turned[68] = d[3];
    __syncwarp ();
    if ((unsigned) j < (unsigned) rows && here)
      tensor_store<FINISH> (a, turn[warp * 32 + lane], inv, unscale, x, y_first + j, out);
    out += a.dst.pitch;
    __syncwarp ();
    d[0] = d[1] = d[2] = d[3] = 0.0f;
  }

  /* Step s's 9 input rows, unrolled so that each output row's sums keep
   * their registers; the next row's samples load while this row's MMAs
   * run, and the step after next's rows are copied into this step's
   * buffer once it is read. */
  __device__ __forceinline__ void
  step (int s)
  {
    const int b = s & 1;

#pragma unroll
    for (int u = 0; u < T9_K; u++)
      {
        if (u + 1 < T9_K)
          fetch (b, u + 1);
        else if (s + 1 < steps)
          {
            wait_rows (b ^ 1, 0);
            if (s + 2 < steps)
              stage_rows (s + 2, b);
            __pipeline_commit ();
            fetch (b ^ 1, 0);
          }
        multiply (u);
        store_row (s, u);
        if (u + 1 < T9_K || s + 1 < steps)
          split ();
      }
  }

  /* A non-finite sum hands the job to the FP32 kernel after this one. */
  __device__ __forceinline__ void
  report ()
  {
    if (!isfinite (bad))
      {
        a.claims->redo = 1;
        atomicAdd (&a.claims->ran.redo, 1u);
      }
  }
};
#endif

template <int FINISH>
__global__ void __launch_bounds__ (32 * T9_WARPS, 2)
conv_tensor9 (const __grid_constant__ ConvArgs a, int seg)
{
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__ (128) float4 t9_shared[];   /* the bulk copy's alignment */
  Tensor9Block<FINISH> block (a, seg, t9_shared);

  block.start ();
  for (int s = 0; s < block.steps; s++)
    block.step (s);
  block.report ();
#endif
}

/* The tensor kernel's B for each mask row (the 9 rows of 'stride' floats
 * at 'taps'), each tap as two halves, Hi and Lo, after scaling. */
static cudaError_t
tensor9_set_mask (const float *taps, int stride, cudaStream_t stream)
{
  unsigned b[T9_K][2][32][2];
  float largest = 0.0f;
  cudaError_t err;

  for (int j = 0; j < T9_K; j++)
    for (int i = 0; i < T9_K; i++)
      largest = fmaxf (largest, fabsf (taps[j * stride + i]));
  const float scale = tensor_scale (largest), unscale = scale != 0.0f ? 1.0f / scale : 0.0f;

  for (int j = 0; j < T9_K; j++)
    for (int lane = 0; lane < 32; lane++)
      for (int r = 0; r < 2; r++)
        {
          float t[2];

          for (int o = 0; o < 2; o++)
            {
              /* B's rows 2q + o (+ 8 in the second register), column g. */
              const int tap = 2 * (lane % 4) + o + 8 * r - lane / 4;

              t[o] = tap >= 0 && tap < T9_K ? taps[j * stride + tap] * scale : 0.0f;
            }
          tensor_halves (t[0], t[1], &b[j][0][lane][r], &b[j][1][lane][r]);
        }
  if ((err = cudaMemcpyToSymbolAsync (g_tensor9_taps, b, sizeof b, 0, cudaMemcpyHostToDevice,
                                      stream)) != cudaSuccess)
    return err;
  return cudaMemcpyToSymbolAsync (c_tensor9_unscale, &unscale, sizeof unscale, 0,
                                  cudaMemcpyHostToDevice, stream);
}

/* Whether the tensor kernel takes the job: a 9x9 mask (9 rows of the
 * 9-wide class) on unweighted RGBA (the caller's), source rows 16-byte
 * aligned, nothing to add to, on a GPU with half-precision MMA (compute
 * capability 8.0 and up). */
static bool
tensor9_takes (const ConvArgs &a, const DeviceFacts &d)
{
  return a.mask_height == T9_K && !a.accumulate && a.vec4 && d.major >= 8 &&
         tensor9_shared_bytes () <= d.shared_optin;
}

/* The tensor kernel; the FP32 kernel for the jobs it hands back is the
 * caller's to launch after it, on the same stream. */
static cudaError_t
launch_tensor9 (const ConvArgs &a, const DeviceFacts &d, cudaStream_t stream)
{
  const size_t shared = tensor9_shared_bytes ();
  const int bands = (a.dst.width + T9_BAND - 1) / T9_BAND;
  cudaError_t err;

  /* Rows a block: as many as fill one wave of two blocks an SM, since each
   * block sums 8 rows with no output of their own and waits for its first
   * loads. */
  const int segs = max (2 * d.sms / bands, 1);
  const int seg = max ((a.dst.height + segs - 1) / segs, T9_MIN_SEG);

  /* The finish chosen once, not per pixel. */
  void (*const kernels[]) (ConvArgs, int) =
    { conv_tensor9<FINISH_PLAIN>, conv_tensor9<FINISH_PLAIN_CLAMPED>, conv_tensor9<FINISH_BY_MODE> };
  void (*const kernel) (ConvArgs, int) = kernels[tensor_finish (a)];

  if ((err = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) shared)) != cudaSuccess)
    return err;
  kernel<<<dim3 (bands, (a.dst.height + seg - 1) / seg), 32 * T9_WARPS, shared, stream>>> (a, seg);
  return cudaGetLastError ();
}

#endif /* CC_REGISTER_TENSOR9_CUH */
