/* What the CUDA back end's host files share: the launchers of each kernel
 * family (the arguments their kernels take are conv-args.cuh's).
 * Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_LAUNCHERS_CUH
#define CC_LAUNCHERS_CUH

#include <pthread.h>

#include <type_traits>

#include <cuda_runtime.h>

#include "conv-args.cuh"
#include "gpu-side.h"

/* launch (std::integral_constant<int, C> ()) for C = 'channels', 1 to 4:
 * a launcher's choice among its kernels' instantiations for each channel
 * count. */
template <typename Launch>
static inline cudaError_t
by_channels (int channels, Launch launch)
{
  switch (channels)
    {
    case 1:  return launch (std::integral_constant<int, 1> ());
    case 2:  return launch (std::integral_constant<int, 2> ());
    case 3:  return launch (std::integral_constant<int, 3> ());
    case 4:  return launch (std::integral_constant<int, 4> ());
    default: return cudaErrorInvalidValue;
    }
}

/* Launchers name the kernels they queue, where a method has several
 * (register's 3x3, tensor 9x9 and column kernels, separable's one pass and
 * two), for CcResult.kernel: a static string, kept for the calling thread's
 * current job (scheduler.cu). */
void cc_kernel_ran (const char *kernels);
/* Launchers of a kernel that may fall back (a tensor kernel's FP32 redo,
 * fft's exact pixels) say so: the job then reads its fallbacks' counts
 * back (Fallbacks), which costs a copy a strip. */
void cc_kernel_may_fall_back (void);

/* Methods whose kernels read the mask from __constant__ memory (one copy
 * per device: the textbook methods but basic, and register) hold this lock
 * from setting the mask until their last launch has finished. */
extern pthread_mutex_t cc_constant_mask_lock;

/* textbook-kernels.cu: the exact kernel, after a kernel given args.nan:
 * only where that kernel set its 'seen', the job again from the source, the mask in global memory
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
/* A transfer's tables as the conversions take them, from a device copy of
 * its block (t->steps, t->bytes long: each table sits at the same offset
 * from its start as on the host). */
DevTransfer cc_dev_transfer        (const char *block, const CcTransfer *t, int colour);
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

#endif /* CC_LAUNCHERS_CUH */
