/* The DFT building blocks the fft method's kernels share (kernels/fft.cu):
 * complex products, the twiddles of 64 points, DFTs of 2 to 32 points in
 * registers (and of 3, 5 and 7, Wiener's mixed radices: kernels/wiener.cu),
 * a Stockham FFT of power-of-two sequences in shared memory, and sequences
 * of 128 to 1024 points in registers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FFT_DFT_CUH
#define CC_FFT_DFT_CUH

__device__ __forceinline__ float2
cmul (float2 a, float2 b)
{
  return make_float2 (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* v e^(-2 pi i m / 32), m known at compile time: quarter turns and eighths
 * are exact or one multiply a part. */
__device__ __forceinline__ float2
rotate32 (float2 v, int m)
{
  const float cos32[32] = {
    1.000000000f, 0.980785280f, 0.923879533f, 0.831469612f, 0.707106781f, 0.555570233f,
    0.382683432f, 0.195090322f, 0.0f, -0.195090322f, -0.382683432f, -0.555570233f,
    -0.707106781f, -0.831469612f, -0.923879533f, -0.980785280f, -1.0f, -0.980785280f,
    -0.923879533f, -0.831469612f, -0.707106781f, -0.555570233f, -0.382683432f,
    -0.195090322f, 0.0f, 0.195090322f, 0.382683432f, 0.555570233f, 0.707106781f,
    0.831469612f, 0.923879533f, 0.980785280f };
  const float r = 0.70710678118654752f;

  switch (m & 31)
    {
    case 0:  return v;
    case 4:  return make_float2 ((v.x + v.y) * r, (v.y - v.x) * r);
    case 8:  return make_float2 (v.y, -v.x);
    case 12: return make_float2 ((v.y - v.x) * r, -(v.x + v.y) * r);
    case 16: return make_float2 (-v.x, -v.y);
    case 20: return make_float2 (-(v.x + v.y) * r, (v.x - v.y) * r);
    case 24: return make_float2 (-v.y, v.x);
    case 28: return make_float2 ((v.x - v.y) * r, (v.x + v.y) * r);
    default: return cmul (v, make_float2 (cos32[m & 31], -cos32[(m + 24) & 31]));
    }
}

/* e^(-2 pi i s / 64), s from 0 to 31 known at compile time (the twiddles
 * fft_rows_in_registers pairs frequencies with). */
__device__ __forceinline__ float2
turn64 (int s)
{
  const float c[17] = { 1.000000000f, 0.995184727f, 0.980785280f, 0.956940336f, 0.923879533f,
                        0.881921264f, 0.831469612f, 0.773010453f, 0.707106781f, 0.634393284f,
                        0.555570233f, 0.471396737f, 0.382683432f, 0.290284677f, 0.195090322f,
                        0.098017140f, 0.0f };

  return s <= 16 ? make_float2 (c[s], -c[16 - s]) : make_float2 (-c[32 - s], -c[s - 16]);
}

/* Forward DFTs of 2 to 32 points, in place, in natural order. */
template <int R>
__device__ __forceinline__ void
dft (float2 *u);

template <>
__device__ __forceinline__ void
dft<2> (float2 *u)
{
  const float2 a = u[0], b = u[1];

  u[0] = make_float2 (a.x + b.x, a.y + b.y);
  u[1] = make_float2 (a.x - b.x, a.y - b.y);
}

template <>
__device__ __forceinline__ void
dft<4> (float2 *u)
{
  const float2 a0 = make_float2 (u[0].x + u[2].x, u[0].y + u[2].y);
  const float2 a1 = make_float2 (u[0].x - u[2].x, u[0].y - u[2].y);
  const float2 b0 = make_float2 (u[1].x + u[3].x, u[1].y + u[3].y);
  const float2 b1 = make_float2 (u[1].y - u[3].y, u[3].x - u[1].x);   /* -i (u1 - u3) */

  u[0] = make_float2 (a0.x + b0.x, a0.y + b0.y);
  u[1] = make_float2 (a1.x + b1.x, a1.y + b1.y);
  u[2] = make_float2 (a0.x - b0.x, a0.y - b0.y);
  u[3] = make_float2 (a1.x - b1.x, a1.y - b1.y);
}

template <>
__device__ __forceinline__ void
dft<8> (float2 *u)
{
  float2 e[4] = { u[0], u[2], u[4], u[6] }, o[4] = { u[1], u[3], u[5], u[7] };

  dft<4> (e);
  dft<4> (o);
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const float2 t = rotate32 (o[k], 4 * k);

      u[k] = make_float2 (e[k].x + t.x, e[k].y + t.y);
      u[k + 4] = make_float2 (e[k].x - t.x, e[k].y - t.y);
    }
}

/* 16 and 32 points as 4 x (R / 4): DFTs of 4 down, twiddles W_R^(n2 k1),
 * DFTs of R / 4 across; input (R / 4) n1 + n2, output k1 + 4 k2. */
template <int R>
__device__ __forceinline__ void
dft (float2 *u)
{
  constexpr int B = R / 4;
  float2 a[B][4];

#pragma unroll
  for (int n2 = 0; n2 < B; n2++)
    {
#pragma unroll
      for (int n1 = 0; n1 < 4; n1++)
        a[n2][n1] = u[B * n1 + n2];
      dft<4> (a[n2]);
#pragma unroll
      for (int k1 = 1; k1 < 4; k1++)
        a[n2][k1] = rotate32 (a[n2][k1], n2 * k1 * (32 / R));
    }
#pragma unroll
  for (int k1 = 0; k1 < 4; k1++)
    {
      float2 b[B];

#pragma unroll
      for (int n2 = 0; n2 < B; n2++)
        b[n2] = a[n2][k1];
      dft<B> (b);
#pragma unroll
      for (int k2 = 0; k2 < B; k2++)
        u[k1 + 4 * k2] = b[k2];
    }
}

/* Odd R points (Wiener's mixed radices, kernels/wiener.cu), by the
 * symmetric pairs u_n + u_(R-n) and u_n - u_(R-n): each output pair k, R - k
 * shares their cosine and sine sums.  c and s hold cos and sin (2 pi m / R),
 * known at compile time once unrolled. */
template <int R>
__device__ __forceinline__ void
dft_odd (float2 *u, const float *c, const float *s)
{
  constexpr int H = (R - 1) / 2;
  float2 a[H], b[H], y0 = u[0];

#pragma unroll
  for (int n = 1; n <= H; n++)
    {
      a[n - 1] = make_float2 (u[n].x + u[R - n].x, u[n].y + u[R - n].y);
      b[n - 1] = make_float2 (u[n].x - u[R - n].x, u[n].y - u[R - n].y);
      y0 = make_float2 (y0.x + a[n - 1].x, y0.y + a[n - 1].y);
    }
#pragma unroll
  for (int k = 1; k <= H; k++)
    {
      float2 re = u[0], im = make_float2 (0.0f, 0.0f);

#pragma unroll
      for (int n = 1; n <= H; n++)
        {
          const int m = n * k % R;

          re = make_float2 (re.x + a[n - 1].x * c[m], re.y + a[n - 1].y * c[m]);
          im = make_float2 (im.x + b[n - 1].x * s[m], im.y + b[n - 1].y * s[m]);
        }
      /* X_k = re - i im, X_(R-k) = re + i im */
      u[k] = make_float2 (re.x + im.y, re.y - im.x);
      u[R - k] = make_float2 (re.x - im.y, re.y + im.x);
    }
  u[0] = y0;
}

template <>
__device__ __forceinline__ void
dft<3> (float2 *u)
{
  const float c[3] = { 1.0f, -0.5f, -0.5f };
  const float s[3] = { 0.0f, 0.866025404f, -0.866025404f };

  dft_odd<3> (u, c, s);
}

template <>
__device__ __forceinline__ void
dft<5> (float2 *u)
{
  const float c[5] = { 1.0f, 0.309016994f, -0.809016994f, -0.809016994f, 0.309016994f };
  const float s[5] = { 0.0f, 0.951056516f, 0.587785252f, -0.587785252f, -0.951056516f };

  dft_odd<5> (u, c, s);
}

template <>
__device__ __forceinline__ void
dft<7> (float2 *u)
{
  const float c[7] = { 1.0f, 0.623489802f, -0.222520934f, -0.900968868f, -0.900968868f,
                       -0.222520934f, 0.623489802f };
  const float s[7] = { 0.0f, 0.781831482f, 0.974927912f, 0.433883739f, -0.433883739f,
                       -0.974927912f, -0.781831482f };

  dft_odd<7> (u, c, s);
}

/* ---- A Stockham FFT in shared memory ----
 *
 * 'count' sequences of M points (a power of two, 16 to 4096), sequence q
 * from slot q S, point i of it in slot padded (i): forward, unnormalised,
 * in place, in natural order.  The block's threads take 8 points each a
 * pass (threads x 8 = count x M): passes of radix 8, then one of 4 or 2
 * where log2 M is not a multiple of 3.  Each pass reads all its points into
 * registers before any is written back, so one buffer serves. */

/* A slot of padding every 32 points: a pass's stores, strided by its
 * radix, fall on distinct banks. */
__device__ __forceinline__ int
padded (int i)
{
  return i + (i >> 5);
}

/* Slots a sequence of M points takes, with one spare after it. */
__host__ __device__ constexpr int
padded_length (int m)
{
  return m + m / 32 + 1;
}

/* e^(-2 pi i a) for a in turns, to float accuracy. */
__device__ __forceinline__ float2
turn (float a)
{
  float s, c;

  sincospif (-2.0f * a, &s, &c);
  return make_float2 (c, s);
}

template <int R>
__device__ __forceinline__ void
stockham_pass (float2 *sh, int M, int S, int Ns, int threads)
{
  constexpr int G = 8 / R;   /* butterflies a thread */
  const int per = M / R;
  float2 v[8];

#pragma unroll
  for (int g = 0; g < G; g++)
    {
      const int item = g * threads + (int) threadIdx.x, q = item / per, j = item - q * per;

#pragma unroll
      for (int r = 0; r < R; r++)
        v[g * R + r] = sh[q * S + padded (j + r * per)];
    }
  __syncthreads ();
#pragma unroll
  for (int g = 0; g < G; g++)
    {
      const int item = g * threads + (int) threadIdx.x, q = item / per, j = item - q * per;
      const int k = j & (Ns - 1);
      float2 *u = v + g * R;

      if (Ns > 1)
        {
          const float2 w = turn ((float) k / (float) (Ns * R));
          float2 wr = w;

#pragma unroll
          for (int r = 1; r < R; r++)
            {
              u[r] = cmul (u[r], wr);
              if (r + 1 < R)
                wr = cmul (wr, w);
            }
        }
      dft<R> (u);
      const int out = (j - k) * R + k;
#pragma unroll
      for (int r = 0; r < R; r++)
        sh[q * S + padded (out + r * Ns)] = u[r];
    }
  __syncthreads ();
}

/* The whole transform of every sequence; the caller's barrier has made
 * the points visible. */
__device__ __forceinline__ void
smem_fft (float2 *sh, int M, int S, int threads)
{
  int Ns = 1;

  for (; Ns * 8 <= M; Ns *= 8)
    stockham_pass<8> (sh, M, S, Ns, threads);
  if (Ns * 4 == M)
    stockham_pass<4> (sh, M, S, Ns, threads);
  else if (Ns * 2 == M)
    stockham_pass<2> (sh, M, S, Ns, threads);
}

/* ---- Sequences of 128 to 1024 points in registers ----
 *
 * fft_columns' columns (256 to 1024) and fft_rows_in_registers' rows: a
 * sequence of T points goes to L = T / 32 lanes of a warp, 32 points a
 * lane, point n to lane n mod L (so that a warp's load of a row is L
 * consecutive points).  A lane's 32 points are a DFT of 32 in registers;
 * after the twiddles, one exchange through the sequence's own slots in
 * shared memory (the warp's alone, so no block barrier) gives each lane
 * whole DFTs of L across the lanes.  A block of 256 threads holds 8192
 * points. */
constexpr int SEQ_THREADS = 256;
constexpr int SEQ_POINTS = 8192;   /* a block's: 32 a thread */

/* Sequences a block, of T points each. */
__host__ __device__ constexpr int
seq_count (int t)
{
  return SEQ_POINTS / t;
}

/* Shared memory holds a block's sequences one after another, sequence c
 * from slot c S + (c / 2 where T = 256), S (seq_stride) at least the
 * exchange's 32 (L + 1) slots and the T + 1 points of a row's spectrum;
 * S and the skew put fft_columns' staging stores (a half warp's 2 rows of
 * 8 columns, or a row of 16), the exchanges of half warps holding two or
 * (T = 128, S = 4 mod 16) four sequences, and a half warp's L consecutive
 * points of each of its sequences on distinct banks, 8-byte slots counted
 * mod 16. */
__host__ __device__ constexpr int
seq_stride (int t)
{
  return t == 1024 ? 1058 : t == 512 ? 545 : t == 256 ? 296 : 164;
}

__host__ __device__ constexpr int
seq_base (int t, int c)
{
  return c * seq_stride (t) + (t == 256 ? c / 2 : 0);
}

/* Slots the sequences take, then the twiddles' T. */
__host__ __device__ constexpr int
seq_slots (int t)
{
  return seq_base (t, seq_count (t)) + t;
}

/* A block's shared memory: more than a block may have on some GPUs (64 KB
 * on sm_75), where the callers take their staged kernels instead. */
__host__ __device__ constexpr size_t
seq_bytes (int t)
{
  return sizeof (float2) * seq_slots (t);
}

/* Whether sequences of t points go through registers on a device whose
 * blocks may have 'shared_optin' bytes of shared memory. */
static inline bool
seq_fits (int t, size_t shared_optin)
{
  return t >= 128 && t <= 1024 && seq_bytes (t) <= shared_optin;
}

/* A sequence's transform of T = 32 L points by its L lanes (l the lane's
 * place among them), x[n1] holding point l + L n1 before and, after,
 * frequency l + L n1 as well: a DFT of 32 down n1, the twiddles
 * W_T^(l k1) (tw[k1 L + l]), the exchange through the sequence's slots
 * (element (k1, n2) in slot (L + 1) k1 + n2: both sides' lanes on distinct
 * banks, at offsets known at compile time), then DFTs of L across, the
 * lane taking k1 = l + L q. */
template <int T>
__device__ __forceinline__ void
seq_fft (float2 *x, int l, float2 *slots, const float2 *tw)
{
  constexpr int L = T / 32, Q = 32 / L;

  static_assert (T >= 128 && T <= 1024, "seq_stride has slots for 128 to 1024 points");
  dft<32> (x);
  __syncwarp ();   /* keeps the twiddles' loads from being hoisted, and spilled */
#pragma unroll
  for (int k1 = 1; k1 < 32; k1++)
    x[k1] = cmul (x[k1], tw[k1 * L + l]);
  __syncwarp ();
#pragma unroll
  for (int k1 = 0; k1 < 32; k1++)
    slots[(L + 1) * k1 + l] = x[k1];
  __syncwarp ();
#pragma unroll
  for (int q = 0; q < Q; q++)
    {
      float2 y[L];

#pragma unroll
      for (int n2 = 0; n2 < L; n2++)
        y[n2] = slots[(L + 1) * (l + L * q) + n2];
      dft<L> (y);
#pragma unroll
      for (int k2 = 0; k2 < L; k2++)
        x[q + Q * k2] = y[k2];
    }
}

/* The twiddles seq_fft reads, W_T^(l k1) at tw[k1 L + l], computed by the
 * block; the caller's barrier makes them visible. */
template <int T>
__device__ __forceinline__ void
seq_twiddles (float2 *tw)
{
  constexpr int L = T / 32;

  for (int e = threadIdx.x; e < T; e += SEQ_THREADS)
    {
      float sin, cos;

      sincospif (-2.0f * (e % L) * (e / L) / T, &sin, &cos);
      tw[e] = make_float2 (cos, sin);
    }
}

#endif
