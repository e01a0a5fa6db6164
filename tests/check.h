/* Test harness shared by test-cpu and test-gpu: random images, comparison
 * with the gold, and the sweep over shapes, borders, channels and types.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_CHECK_H
#define CC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "convolve.h"

/* Exit status automake reads as "skipped". */
#define CHECK_SKIP 77

typedef struct
{
  int      mask_width;
  int      mask_height;
  int64_t  src_width;
  int64_t  src_height;
  int64_t  out_x;          /* output rectangle inside the source */
  int64_t  out_y;
  int64_t  out_width;
  int64_t  out_height;
  int      channels;
  bool     alpha;
  bool     alpha_weighting;
  bool     affect_alpha;
  CcType   src_type;
  CcType   dst_type;
  CcBorder border;
  bool     clamp;
  bool     src_on_device;
  bool     dst_on_device;
  int      min_strips;     /* when > 0, the run must have used this many strips */
  int      row_pad;        /* bytes after each row of src and dst; 0: 1 to 5 samples */
  int      mask_rank;      /* 0: random; 1, 2: a sum of that many outer products */
  int      transfer;       /* u8 and u16 colour as codes: 0 no, 1 sRGB, 2 three
                              gamma curves (1.8, 2.2, 2.6; three colour channels) */
  unsigned keep_colour;    /* bit c: colour channel c keeps its source values */
  const char *kernel;      /* non-NULL: what a GPU method must say ran (CcResult.kernel) */
} CheckCase;

extern _Atomic int check_failures;

/* Reports a failed expectation (and counts it) unless 'ok'. */
#define CHECK(ok, ...) check_expect ((ok), __FILE__, __LINE__, __VA_ARGS__)
bool     check_expect      (bool ok, const char *file, int line, const char *format, ...)
  __attribute__ ((format (printf, 4, 5)));

/* Seeded from CHECK_SEED when set, else from the clock; prints the seed. */
void     check_seed        (void);
/* Each thread draws its own stream. */
void     check_reseed      (uint64_t stream);
uint64_t check_rand        (void);
double   check_uniform     (double lo, double hi);
/* Gaussian noise of standard deviation 'sigma' added to n samples: the
 * same every run for the same 'stream', whatever CHECK_SEED says, so that
 * a bound is checked on one noise a case rather than a new one each run. */
void     check_add_noise   (float *p, size_t n, double sigma, uint64_t stream);

/* A photograph-like sample of channel k at (x, y): smooth shading, edges
 * and fine texture, in 0.05..0.95 (the deconvolution tests' images). */
float    check_scene       (int64_t x, int64_t y, int k);

/* The progress and cancel hooks the tests hand the engine (CcOptions'
 * progress, cancel and user_data: check_cancel_hooks sets them): cancel
 * says yes once it has been asked more than 'limit' times; progress keeps
 * the last fraction told and fails a check where it goes back.
 * check_cancel_reset starts a new run. */
typedef struct
{
  int    limit;
  int    polls;
  double last;
} CheckCancel;

void     check_cancel_hooks (CcOptions *o, CheckCancel *c, int limit);
void     check_cancel_reset (CheckCancel *c, int limit);

/* Runs one case through each method and compares every sample with the
 * gold; returns the number of methods that failed. */
int      check_case        (CcContext *ctx, const CheckCase *c, const CcMethod *methods,
                            int n_methods);

/* The sweep: every mask shape x border x channel layout, with sample types,
 * clamping, source rectangles and (with 'device') device-resident images
 * rotating through the cases.  Returns the number of failed cases. */
int      check_sweep       (CcContext *ctx, const CcMethod *methods, int n_methods,
                            bool device);

/* The reduced matrix for slow runs (compute-sanitizer): each method x
 * border x 1 and 4 channels x two masks, on a small odd-sized image. */
int      check_reduced     (CcContext *ctx, const CcMethod *methods, int n_methods);

/* Small hand-computed results, with every given method. */
int      check_known       (CcContext *ctx, const CcMethod *methods, int n_methods);

/* Whether this build runs Wiener deconvolution on the CPU: it needs FFTW,
 * and a build without it refuses, saying so. */
bool     check_cpu_wiener  (void);

/* Outputs off the gold: NaN where the gold is not or not where it is, an
 * infinity unequal, a finite sample further than 'bound'; the first's
 * index goes to *first unless it is NULL. */
/* Whether a result came through a transform (the GPU's fft, the CPU's
 * FFTW tiles), whose bound is the looser one. */
bool     check_transformed (const CcResult *r);
int      check_off_gold    (const float *out, const double *gold, size_t n, double bound,
                            size_t *first);

/* An infinity, a NaN and a sample past half precision in an RGBA float
 * image, with masks on either side of the kernels' compiled widths (with
 * 'reduced', two of them): each method's every output against the gold,
 * NaNs exactly where the gold's are.  Returns the number of failed runs. */
int      check_odd_samples (CcContext *ctx, const CcMethod *methods, int n_methods,
                            bool reduced);

/* data/photo-NAME.ppm (8-bit P6) as interleaved RGB floats in [0, 1], or
 * NULL; and the PSNR of a against b (peak 1). */
float   *check_read_photo  (const char *name, int64_t *w, int64_t *h);
double   check_psnr        (const float *a, const float *b, size_t n);
/* 'sharp' (RGB floats) blurred by the shape on the CPU (mirror border)
 * into 'out', of its size and stride, with 1% noise of 'stream'
 * (check_add_noise); false where the mask or the blur failed. */
bool     check_blur_noisy  (CcContext *ctx, const CcImage *sharp, const CcShapeSpec *spec,
                            float *out, uint64_t stream);

/* Deconvolution on photographs (data/photo-*.ppm, which are not
 * periodic), each blurred with a mirrored border by a disc of radius 4 and
 * 10, a 15-pixel motion line and a lopsided 7x5 mask, with no noise and
 * with 1%, restored by
 * 'method' with the defaults (a GPU's where 'method' is not cpu, as the
 * result says): Wiener gains 2 dB of PSNR or more, and
 * Richardson-Lucy 1 dB or more; each figure printed.  Where 'gains' is
 * not NULL, the gains go there in order (3 photos x 4 blurs x 2 noises x
 * 2 algorithms).  Returns the number of failed checks. */
#define CHECK_RESTORATIONS 48
int      check_restoration (CcContext *ctx, CcMethod method, double *gains);

/* Richardson–Lucy on the GPU against the CPU's (tests/gpu-deconvolve.c);
 * 'reduced': two small cases.  Returns the number of failed checks. */
int      check_deconvolve_gpu (CcContext *ctx, bool reduced);

/* The blur's estimate on the GPU against the CPU's (tests/gpu-estimate.c);
 * 'reduced': the disc alone.  Returns the number of failed checks. */
int      check_estimate_gpu (CcContext *ctx, bool reduced);

/* The fallback rule's rows that need a GPU (tests/gpu-fallback.c), for
 * convolution, Richardson-Lucy and Wiener.  Returns the failed checks. */
int      check_fallback_gpu (CcContext *ctx);

/* Two threads convolving at once, on one context and on two. */
int      check_threads     (CcContext *ctx, CcMethod method);

#endif /* CC_CHECK_H */
