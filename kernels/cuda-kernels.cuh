/* What the CUDA back end's files share: the arguments every convolution
 * kernel takes and the launchers of each kernel family.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_CUDA_KERNELS_CUH
#define CC_CUDA_KERNELS_CUH

#include <cuda_runtime.h>

#include "engine.h"
#include "pixel.h"

/* A float image on the device, 'pitch' floats between rows. */
struct DevImage
{
  float     *data;
  long long  pitch;
  int        width;
  int        height;
};

struct ConvArgs
{
  DevImage       src;        /* the input; border modes apply beyond it */
  DevImage       dst;
  int            out_x;      /* dst (0,0) sits at src (out_x, out_y) */
  int            out_y;
  int            channels;
  int            alpha;      /* alpha channel or -1 */
  int            weighted;   /* some channel is CC_MODE_WEIGHTED */
  unsigned char  mode[4];
  int            mask_width;
  int            mask_height;
  int            border_x;
  int            border_y;
  float          inv_divisor;
  float          offset;
  float          sum_abs;
  int            clamp;
  int            accumulate; /* add to what dst holds (separable terms) */
  int            vec4;       /* source rows 16-byte aligned: 16-byte reads */
  const float   *mask;       /* the mask in global memory */
  unsigned      *claims;     /* the words below (CLAIMS_*), a block of them
                              * a stream (kernels on it run one at a time) */
  unsigned      *nan_seen;   /* non-NULL: set it where a sum may have a NaN
                              * the mask does not make (CLAIMS_NAN) */
};

/* What launchers need to know of the device, read once when a context
 * starts (cudaGetDeviceProperties), not asked of the runtime each launch. */
struct DeviceFacts
{
  int    sms;             /* multiprocessors */
  int    major;           /* compute capability */
  size_t shared_optin;    /* shared memory a block may ask for */
  size_t shared_per_sm;   /* shared memory a multiprocessor has */
};

/* ConvArgs.claims[CLAIMS_TILE]: tiles the register kernels' blocks have
 * claimed; [CLAIMS_DONE]: blocks finished.  The last block zeroes both for
 * the next launch. */
constexpr int CLAIMS_TILE = 0;
constexpr int CLAIMS_DONE = 1;

/* ConvArgs.claims[CLAIMS_REDO]: set by a kernel that hands its job back
 * (register's tensor 9x9 kernel), read and cleared by the FP32 kernel
 * launched after it. */
constexpr int CLAIMS_REDO = 2;

/* ConvArgs.claims[CLAIMS_NAN], through ConvArgs.nan_seen: set by a kernel
 * whose arithmetic reaches past the mask, where an infinity or a NaN
 * there has made a sum NaN (a zero tap padding the mask times the sample;
 * a transform spreading it over its whole plane).  Then the exact kernel
 * (cc_exact_launch), launched after it, does the job again and clears
 * the word; claims[CLAIMS_NAN + 1] counts its finished blocks. */
constexpr int CLAIMS_NAN = 3;

template <int C>
__device__ __forceinline__ void
load_pixel (const float *p, float v[C], bool vec4)
{
  if (C == 4 && vec4)
    {
      const float4 q = __ldg (reinterpret_cast<const float4 *> (p));
      v[0] = q.x; v[1] = q.y; v[2] = q.z; v[C - 1] = q.w;
    }
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = __ldg (p + c);
}

/* One source row in global memory, its border resolved once; only taps
 * outside the row pay for the border rule across. */
template <int C>
struct GlobalRow
{
  const ConvArgs &a;
  const float    *p;   /* NULL: a ghost row of zeros */

  __device__ bool present () const { return p != NULL; }
  __device__ void operator() (int x, float v[C]) const
  {
    if ((unsigned) x >= (unsigned) a.src.width)
      {
        x = cc_border_index32 (x, a.src.width, a.border_x);
        if (x < 0)
          {
#pragma unroll
            for (int c = 0; c < C; c++)
              v[c] = 0.0f;
            return;
          }
      }
    load_pixel<C> (p + x * C, v, a.vec4);
  }
};

/* Where pixel x of a row is, border resolved; NULL for a zero ghost pixel. */
template <int C>
__device__ __forceinline__ const float *
pixel_address (const GlobalRow<C> &row, int x)
{
  if (!row.p)
    return NULL;
  if ((unsigned) x >= (unsigned) row.a.src.width)
    {
      x = cc_border_index32 (x, row.a.src.width, row.a.border_x);
      if (x < 0)
        return NULL;
    }
  return row.p + x * C;
}

template <int C>
__device__ __forceinline__ GlobalRow<C>
global_row (const ConvArgs &a, int y)
{
  if ((unsigned) y >= (unsigned) a.src.height)
    {
      y = cc_border_index32 (y, a.src.height, a.border_y);
      if (y < 0)
        return GlobalRow<C> { a, NULL };
    }
  return GlobalRow<C> { a, a.src.data + y * a.src.pitch };
}

/* Taps read from the mask in global memory, and a source read from global
 * memory row by row, border resolved: the basic method's, and what the
 * kernels that recompute a pixel exactly read. */
struct GlobalTaps
{
  const float *m;
  __device__ float operator() (int t) const { return __ldg (m + t); }
};

template <int C>
struct GlobalSource
{
  const ConvArgs &a;
  __device__ GlobalRow<C> row (int y) const { return global_row<C> (a, y); }
};

/* One output pixel, all channels, at source position (x, y): the loop every
 * textbook method shares; they differ in where taps and rows come from
 * ('source.row (y)' gives an accessor of that row's pixels).  Alpha, when
 * there is one, is the last channel. */
template <int C, class Taps, class Source>
__device__ __forceinline__ void
conv_pixel (const ConvArgs &a, const Taps &taps, const Source &source, int x, int y,
            float *out)
{
  const int w = a.mask_width, h = a.mask_height;
  const int x0 = x - (w - 1) / 2, y0 = y - (h - 1) / 2;
  float plain[C], kca[C], wabs = 0.0f, v[C];

#pragma unroll
  for (int c = 0; c < C; c++)
    plain[c] = kca[c] = 0.0f;
  for (int j = 0; j < h; j++)
    {
      const auto row = source.row (y0 + j);

      if (!row.present ())
        continue;   /* zero border: adds nothing */
      if (!a.weighted)
        for (int i = 0; i < w; i++)
          {
            const float k = taps (j * w + i);

            row (x0 + i, v);
#pragma unroll
            for (int c = 0; c < C; c++)
              plain[c] += k * v[c];
          }
      else
        for (int i = 0; i < w; i++)
          {
            const float k = taps (j * w + i);

            row (x0 + i, v);
            const float ka = k * v[C - 1];
#pragma unroll
            for (int c = 0; c < C; c++)
              {
                plain[c] += k * v[c];
                kca[c] += ka * v[c];
              }
            wabs += fabsf (ka);
          }
    }

  source.row (y) (x, v);   /* the centre, for copied channels */
#pragma unroll
  for (int c = 0; c < C; c++)
    {
      const int mode = a.mode[c];

      out[c] = mode == CC_MODE_COPY ? v[c]
             : mode == CC_MODE_WEIGHTED
               ? cc_finish_weighted (plain[c], kca[c], wabs, a.sum_abs, a.inv_divisor,
                                     a.offset, a.clamp)
               : cc_finish (plain[c], a.inv_divisor, a.offset, a.clamp);
    }
}

/* Launchers name the kernels they queue, where a method has several
 * (register's 3x3, tensor 9x9 and column kernels, separable's one pass and
 * two), for CcResult.kernel: a static string, kept for the calling thread's
 * current job (scheduler.cu). */
void cc_kernel_ran (const char *kernels);

/* Methods whose kernels read the mask from __constant__ memory (one copy
 * per device: the textbook methods but basic, and register) hold this lock
 * from setting the mask until their last launch has finished. */
extern pthread_mutex_t cc_constant_mask_lock;

/* textbook-kernels.cu: the exact kernel, after a kernel given 'nan_seen'
 * (args.nan_seen, args.claims + CLAIMS_NAN): only where that kernel set
 * the word, the job again from the source, the mask in global memory
 * (args.mask), every tap from the definition; else its few blocks return
 * at once. */
cudaError_t cc_exact_launch          (const ConvArgs &args, const DeviceFacts &facts,
                                      cudaStream_t stream);

/* register-kernels.cu: the register method's kernels, for masks up to
 * 127 wide (widths rounded up to cc_mask_width_class).  The mask goes to
 * __constant__ memory: hold cc_constant_mask_lock as for the textbook
 * methods. */
size_t      cc_register_shared_bytes (int mask_width, int mask_height, int channels,
                                      bool weighted);
cudaError_t cc_register_set_mask     (const float *mask, int width, int height,
                                      cudaStream_t stream);
cudaError_t cc_register_launch       (const ConvArgs &args, const DeviceFacts &facts,
                                      cudaStream_t stream);

/* fft.cu: the fft method.  cc_fft_bytes is what a job's strips of w x h
 * need on the device (their planes, and with alpha weighting the list of
 * pixels computed exactly).  cc_fft_strip_rows rounds a strip's rows to
 * whole tiles. */
struct CcFftState;
size_t      cc_fft_bytes       (const CcJob *job, int w, int h);
int64_t     cc_fft_strip_rows  (const CcJob *job, int64_t rows);
CcFftState *cc_fft_state_new   (void);
void        cc_fft_state_free  (CcFftState *state);

/* convert-kernels.cu: samples of any type to float and back.  'count' samples
 * a row; pitches in samples.  With 'copy' set, channels whose mode is
 * CC_MODE_COPY are copied bit for bit from it (same type as 'out'). */
cudaError_t cc_convert_to_float   (CcType type, const void *in, long long in_pitch,
                                   float *out, long long out_pitch,
                                   long long count, int rows, cudaStream_t stream);
cudaError_t cc_convert_from_float (CcType type, const float *in, long long in_pitch,
                                   void *out, long long out_pitch,
                                   long long count, int rows,
                                   const void *copy, long long copy_pitch,
                                   int channels, const unsigned char *mode,
                                   cudaStream_t stream);

/* The same through transfer tables (a CcTransfer's block on the device):
 * the first 'colour' samples of each pixel of 'channels' are codes of the
 * encoding, looked up on the way in and rounded in the encoding on the way
 * out; u8 and u16 only. */
struct DevTransfer
{
  const CcTransferStep *steps; /* curves x (buckets + 2) */
  const float    *to_linear;   /* curves x codes */
  const float    *midpoints;   /* curves x codes */
  int             buckets;
  bool            single;      /* cc_transfer_code_single will do */
  int             codes;
  int             curves;
  int             colour;
};
cudaError_t cc_convert_to_linear   (CcType type, const void *in, long long in_pitch,
                                    float *out, long long out_pitch,
                                    long long count, int rows, int channels,
                                    const DevTransfer &t, cudaStream_t stream);
cudaError_t cc_convert_from_linear (CcType type, const float *in, long long in_pitch,
                                    void *out, long long out_pitch,
                                    long long count, int rows,
                                    const void *copy, long long copy_pitch,
                                    int channels, const unsigned char *mode,
                                    const DevTransfer &t, cudaStream_t stream);

#endif /* CC_CUDA_KERNELS_CUH */
