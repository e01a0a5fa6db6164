/* What a convolution kernel takes, on the host and on the device alike:
 * the images, the job's arguments, the words a stream's kernels share and
 * the device's facts its launcher reads.  Internal to kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_CONV_ARGS_CUH
#define CC_CONV_ARGS_CUH

/* A float image on the device, 'pitch' floats between rows. */
struct DevImage
{
  float     *data;
  long long  pitch;
  int        width;
  int        height;
};

/* Where a kernel says it saw a sum the mask does not make (an infinity
 * or a NaN reached by arithmetic past the mask: a zero tap padding it, a
 * transform spreading it over its whole plane), for the exact kernel
 * (cc_exact_launch) launched after it, which does the job again. */
struct NanWords
{
  unsigned seen;     /* set by the kernel; cleared by the exact kernel */
  unsigned blocks;   /* the exact kernel's finished blocks */
};

/* How often a lane's fallbacks computed something, each count raised by
 * its fallback; the scheduler copies them to the host after a strip whose
 * kernels may fall back, and names those whose count moved in the job. */
struct Fallbacks
{
  unsigned redo;        /* the FP32 kernels after a tensor kernel's hand-back */
  unsigned exact;       /* the exact kernel after a NaN past the mask */
  unsigned fft_exact;   /* fft_exact: pixels whose weighted quotient was unsure */
};

/* The words a stream's kernels share, a block of them a lane (kernels on
 * a stream run one at a time), 64 bytes so that no two lanes' atomics
 * share a cache sector.  Words only, 4-byte aligned, as the kernels'
 * code was compiled for: a wider alignment lets the compiler merge their
 * stores, which changes every tile kernel. */
struct Claims
{
  unsigned tile;     /* tiles the register kernels' blocks have claimed ... */
  unsigned done;     /* ... and blocks finished: the last block zeroes both */
  unsigned redo;     /* set by a kernel that hands its job back (register's
                      * tensor 9x9 kernel), read and cleared by the FP32
                      * kernel launched after it */
  NanWords nan;      /* ConvArgs.nan */
  Fallbacks ran;
  unsigned spare[8];
};
static_assert (sizeof (Claims) == 64, "a lane's words fill 64 bytes");

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
  Claims        *claims;     /* the stream's */
  NanWords      *nan;        /* non-NULL: set its 'seen' where a sum may have
                              * a NaN the mask does not make (claims->nan) */
  int            follow;     /* CcFollowStep: fft's finish, on the strip's ... */
  const float   *with;       /* ... rows of CcFollow.with, laid out as dst */
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

#endif /* CC_CONV_ARGS_CUH */
