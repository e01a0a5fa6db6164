/* gimp-cuda-convolve: the convolution engine's public interface.  The
 * engine knows nothing of GIMP: a caller describes a source image (the
 * pixels it has, possibly a halo around what it wants changed), an output
 * rectangle inside it, a mask and options; the engine writes the output
 * (the definition: cc_convolve).
 *
 * Copyright (C) 2026 gimp-cuda-convolve authors
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CUDA_CONVOLVE_H
#define CUDA_CONVOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CC_MASK_MAX 1023        /* largest mask width or height (fft, cpu) */
#define CC_DIRECT_MASK_MAX 127  /* largest the GPU's direct methods take */

typedef enum
{
  CC_OK = 0,
  CC_ERROR_INVALID,         /* bad argument: sizes, NaN, divisor 0, ... */
  CC_ERROR_NO_DRIVER,       /* no NVIDIA driver installed */
  CC_ERROR_DRIVER_TOO_OLD,  /* driver older than this build's CUDA needs */
  CC_ERROR_NO_GPU,          /* driver present, no usable GPU */
  CC_ERROR_OUT_OF_MEMORY,   /* host or device memory */
  CC_ERROR_UNSUPPORTED,     /* this method cannot take this mask or machine */
  CC_ERROR_CANCELLED,       /* the cancel callback asked to stop */
  CC_ERROR_GPU              /* any other CUDA failure */
} CcStatus;

typedef enum
{
  CC_TYPE_U8 = 0,
  CC_TYPE_U16,
  CC_TYPE_U32,
  CC_TYPE_HALF,
  CC_TYPE_FLOAT,
  CC_TYPE_DOUBLE,
  CC_TYPE_COUNT
} CcType;

typedef enum
{
  CC_BORDER_ZERO = 0,   /* ghost cells are 0 */
  CC_BORDER_EXTEND,     /* replicate the edge pixel */
  CC_BORDER_WRAP,       /* period n */
  CC_BORDER_MIRROR,     /* ... c b | a b c d | c b a ..., period 2(n-1) */
  CC_BORDER_BLACK,      /* opaque black: colour 0, alpha 1 */
  CC_BORDER_WHITE,      /* opaque white: colour 1, alpha 1 */
  CC_BORDER_COUNT
} CcBorder;

typedef enum
{
  CC_METHOD_AUTO = 0,
  CC_METHOD_CPU,
  CC_METHOD_BASIC,
  CC_METHOD_CONSTANT,
  CC_METHOD_TILED,
  CC_METHOD_CACHING,
  CC_METHOD_REGISTER,    /* several outputs a thread, taps as FMA operands */
  CC_METHOD_SEPARABLE,   /* a rank-1 (or low-rank) mask as row and column passes */
  CC_METHOD_FFT,         /* overlap-save tiles by the project's own transforms */
  CC_METHOD_COUNT
} CcMethod;

/* An image: interleaved samples, rows 'stride' bytes apart.  'data' points at
 * the first sample of pixel (0,0), in host memory or, with on_device, in the
 * current CUDA device's memory (see cc_device_alloc). */
typedef struct
{
  void    *data;
  CcType   type;
  int      channels;   /* 1..4 */
  int64_t  width;
  int64_t  height;
  int64_t  stride;     /* bytes between rows */
  bool     on_device;
} CcImage;

typedef struct
{
  int            width;    /* odd, 1..CC_MASK_MAX */
  int            height;   /* odd, 1..CC_MASK_MAX */
  const double  *values;   /* row-major, width * height */
  double         divisor;  /* non-zero */
  double         offset;
} CcMask;

/* A perceptual encoding of 8- or 16-bit samples and the linear light it
 * stands for, as tables (see cc_transfer_new). */
typedef struct _CcTransfer CcTransfer;

typedef void (*CcProgressFunc) (double fraction, void *user_data);
typedef bool (*CcCancelFunc)   (void *user_data);
typedef void (*CcStageFunc)    (const char *stage, void *user_data);

typedef struct
{
  CcMethod       method;
  CcBorder       border;
  bool           clamp;            /* clamp results to [0,1] */
  bool           has_alpha;        /* the last channel is alpha */
  bool           alpha_weighting;  /* weight colour by alpha (needs has_alpha) */
  bool           affect_alpha;     /* convolve alpha too; else it is copied */
  bool           keep_colour[3];   /* colour channel c (red, green, blue; gray is 0)
                                      keeps its source values */
  const CcTransfer *transfer;      /* colour samples are codes of this encoding:
                                      convolved in linear light, rounded in the
                                      encoding; NULL: taken as they are */
  CcProgressFunc progress;         /* called from the caller's thread, may be NULL */
  CcCancelFunc   cancel;           /* polled from the caller's thread, may be NULL */
  CcStageFunc    stage;            /* called from the caller's thread, about ten times a
                                      second, while a stage holds the job up for more than
                                      a quarter of a second, with what it is (the kernels'
                                      compile on a GPU newer than the build); with NULL
                                      when it is over.  May be NULL. */
  void          *user_data;
} CcOptions;

typedef struct
{
  CcStatus  status;
  char      message[512];    /* why it failed, or a note on a fallback */
  CcMethod  method_used;
  char      device[256];     /* "CPU (N threads)" or the GPU's name */
  double    upload_ms;
  double    kernel_ms;       /* convolution, conversions included */
  double    download_ms;
  double    total_ms;        /* wall time of the whole call */
  int       strips;          /* pieces the image was processed in */
  char      kernel[128];     /* on the GPU, the kernels that ran (the last strip's),
                                then each fallback that computed something:
                                e.g. "register tensor 9x9, FP32 redo", "fft,
                                rows in registers, columns staged, exact
                                pixels"; on the CPU "cpu direct" or "cpu fft" */
} CcResult;

typedef struct _CcContext CcContext;

/* Defaults: method auto, border extend, clamp on, alpha weighting on,
 * affect alpha on, every colour channel convolved, no alpha channel, no
 * transfer. */
void         cc_options_init         (CcOptions *options);
/* keep_colour from the red, green and blue toggles (the procedure's, the
 * tool's --channels, the operation's): each keeps its channel, except on a
 * gray source, whose gray is convolved unless all three are off. */
void         cc_options_keep_colour  (CcOptions *options, bool gray, bool red, bool green,
                                      bool blue);

/* A context holds the device, its stream and scratch buffers; make one and
 * reuse it.  GPU start-up begins at once on a helper thread, so the caller can
 * do other work meanwhile.  Two threads may use one context at once (calls are
 * serialised) or one context each. */
CcContext   *cc_context_new          (void);
/* A context for the CPU path alone, with 'threads' workers (0: as
 * cc_context_new has): it never starts a GPU, so callers that run the CPU
 * path from several threads at once can each have one cheaply. */
CcContext   *cc_context_new_cpu      (int threads);
void         cc_context_free         (CcContext *ctx);

/* Whether a GPU can be used; when not, why (status and message).  Waits for
 * start-up to finish. */
CcStatus     cc_context_gpu_status   (CcContext *ctx, char *message, size_t size);
/* Whether GPU start-up has finished (well or not), without waiting for it:
 * a caller that must not wait runs the CPU path meanwhile. */
bool         cc_context_gpu_started  (CcContext *ctx);
/* Whether the driver is compiling the kernels for the GPU: on a GPU newer
 * than the build's cubins, from its PTX, once per GPU model (the driver
 * caches them).  Jobs on the GPU wait meanwhile (CcOptions.stage says so);
 * a caller that must not wait runs the CPU path. */
bool         cc_context_gpu_compiling (CcContext *ctx);
const char  *cc_context_device_name  (CcContext *ctx);
/* "CPU (N threads)": where the cpu method runs. */
const char  *cc_context_cpu_name     (CcContext *ctx);

/* Upper bound on the device memory one call may use, in bytes; 0 means the
 * free memory.  The environment variable CUDA_CONVOLVE_DEVICE_BUDGET (bytes,
 * or with a K/M/G suffix) sets the initial value.  Images that do not fit are
 * processed in strips. */
void         cc_context_set_device_budget (CcContext *ctx, uint64_t bytes);

/* The definition (correlation form), mask of odd width w and height h,
 * rx = (w-1)/2, ry = (h-1)/2, values in the 0..1 scale:
 *
 *   out(x,y,c) = S( sum_j sum_i M[j*w+i] * in(x+i-rx, y+j-ry, c) / divisor + offset )
 *
 * S clamps to [0,1] when clamping is on.  Coordinates outside the source
 * image follow the border mode.  With alpha weighting, colour channels use
 *   S( (sum k*c*a) * (sum |k|) / (sum |k*a|) / divisor + offset )
 * and the plain formula where sum |k*a| is 0.
 *
 * Convolve the source image 'src' into 'dst'.  Pixel (x,y) of 'dst' is the
 * result at (out_x + x, out_y + y) of 'src'; that rectangle must lie inside
 * 'src'.  Border modes apply only beyond 'src'.  'src' and 'dst' must not
 * overlap; they have the same channel count, and may differ in type and in
 * where they live.  Device images are read after work the caller queued on
 * the legacy default stream, and the call returns when 'dst' is complete.
 * On failure 'dst' may be partly written. */
CcStatus     cc_convolve             (CcContext       *ctx,
                                      const CcImage   *src,
                                      int64_t          out_x,
                                      int64_t          out_y,
                                      const CcImage   *dst,
                                      const CcMask    *mask,
                                      const CcOptions *options,
                                      CcResult        *result);

/* Where coordinate i (0..n-1 inside) lands under a border mode: an index
 * inside, or -1 for a ghost cell (zero, black or white: the border's
 * constant).  Callers that gather halos themselves use it to match the
 * engine. */
int64_t      cc_border_map           (int64_t i, int64_t n, CcBorder border);

/* Rows first .. first + count - 1 of an image n rows tall under a border,
 * as runs of consecutive source rows: run (at, from, rows, data) for each,
 * in order, 'at' counted from 'first' and 'from' -1 for a run of ghost
 * rows (the border's constant).  The one gathering of border-mapped rows
 * for front ends that read their sources in pieces; false where 'run'
 * returns false. */
typedef bool (*CcRowRun) (int64_t at, int64_t from, int64_t rows, void *data);
bool         cc_border_runs          (int64_t first, int64_t count, int64_t n,
                                      CcBorder border, CcRowRun run, void *data);

/* A rectangle: its top-left corner and its size. */
typedef struct
{
  int64_t x;
  int64_t y;
  int64_t width;
  int64_t height;
} CcRect;

/* A border's bit in the sets cc_region_input takes. */
#define CC_BORDER_BIT(border) (1u << (border))

/* What a front end reads to convolve an output rectangle, and how it
 * calls the engine on it. */
typedef struct
{
  CcRect   input;    /* what to read, in the source's coordinates */
  int64_t  out_x;    /* the output's place in it: cc_convolve's out_x and out_y */
  int64_t  out_y;
  CcBorder border;   /* CcOptions.border for the call */
} CcRegion;

/* The one halo rule of the front ends that convolve their source in pieces
 * (the plug-in's bands, the operation's regions, the tool's strips): the
 * region for the output 'out' of a source whose pixels lie in 'source'
 * (both in the front end's coordinates), under 'border', with a mask of
 * mask_width x mask_height, (w - 1) / 2 taps before a pixel and w / 2
 * after it (the definition's, which an even size, refused by the engine,
 * still covers).  The input is the output and its halo.  Past the source's
 * top and bottom for the borders in 'rows_beyond', and past its left and
 * right for those in 'columns_beyond' (CC_BORDER_BIT), the front end reads
 * the halo itself as the border maps it (cc_border_runs; GEGL's loop abyss
 * for wrap); elsewhere the halo is clipped to the source, and the engine
 * applies the border at the input's edges, which are then the source's:
 * wrap, which needs the far side, takes the source's whole extent where
 * its halo was clipped.  With the border in both sets the whole halo is
 * read and the region's border is zero, never reached.  An output whose
 * clipped input is empty (outside the source) is its own input. */
CcRegion     cc_region_input         (const CcRect *out, const CcRect *source,
                                      int mask_width, int mask_height, CcBorder border,
                                      unsigned rows_beyond, unsigned columns_beyond);

/* Whether a mask is one the engine takes (odd sizes to CC_MASK_MAX, finite
 * values and offset, a non-zero finite divisor), and if not why. */
bool         cc_mask_check           (const CcMask *mask, char *message, size_t size);

/* GIMP's normalize rule: sum > 0: divisor = sum, offset unchanged;
 * sum < 0: divisor = -sum, offset = 1; sum = 0: divisor = 1, offset = 0.5. */
void         cc_mask_normalize       (CcMask *mask);

/* Whether a method can run this mask on images of this many channels (with
 * alpha weighting or not) on this context, and if not, why (CC_ERROR_* and a
 * message). */
CcStatus     cc_method_check         (CcContext       *ctx,
                                      CcMethod         method,
                                      const CcMask    *mask,
                                      int              channels,
                                      bool             weighted,
                                      char            *message,
                                      size_t           size);

/* The method a call with these options would take on this context: 'auto'
 * resolved to a GPU method, or to cpu where no GPU is usable.  For callers
 * that hand the work to another process's engine (the GEGL operation in
 * GIMP's) and report what ran. */
CcMethod     cc_method_resolve       (CcContext       *ctx,
                                      CcMethod         method,
                                      const CcMask    *mask,
                                      int              channels,
                                      bool             weighted);

/* The text form of a mask: rows separated by ';' (or new lines), values by
 * ',', e.g. "0,1,0;1,-4,1;0,1,0".  Parsing checks sizes and finiteness and
 * returns malloc'd row-major values; formatting returns a malloc'd string
 * that parses back to the same values. */
bool         cc_mask_parse           (const char *text, int *width, int *height,
                                      double **values, char *message, size_t size);
char        *cc_mask_format          (int width, int height, const double *values);

/* Host memory a front end's pieces in flight (sources and results) may
 * take, so that images of any size run in bounded memory: 256 MB, or
 * CUDA_CONVOLVE_HOST_BUDGET (bytes, or 512M, 2G). */
uint64_t     cc_host_budget          (void);

/* Masks made from shapes (engine/mask-shape.c), each scaled to sum 1:
 * gaussian (three standard deviations at the radius), disc, polygon (an
 * aperture of 'blades' straight sides, turned by 'angle'), ring (its hole
 * 'inner' x radius), box (a square 2 x radius + 1 wide), motion (a line
 * 2 x radius + 1 long at 'angle').  Each cell weighs the area of the shape
 * over it, so a slider moved a little moves the mask a little.  Angles are
 * degrees, counter-clockwise as seen; angle 0 puts a polygon's corner at
 * the top and a motion line across. */
typedef enum
{
  CC_SHAPE_MATRIX,     /* no shape: the matrix (or a preset) */
  CC_SHAPE_GAUSSIAN,
  CC_SHAPE_DISC,
  CC_SHAPE_POLYGON,
  CC_SHAPE_RING,
  CC_SHAPE_BOX,
  CC_SHAPE_MOTION,
  CC_SHAPE_COUNT
} CcShape;

#define CC_SHAPE_RADIUS_MIN 0.5
#define CC_SHAPE_RADIUS_MAX 511.0
#define CC_SHAPE_BLADES_MIN 3
#define CC_SHAPE_BLADES_MAX 12
#define CC_SHAPE_INNER_MAX  0.95
#define CC_SHAPE_ANGLE_MAX  360.0

typedef struct
{
  CcShape shape;
  double  radius;   /* pixels */
  double  angle;    /* degrees (polygon, motion) */
  int     blades;   /* polygon */
  double  inner;    /* ring: the hole's radius over the radius */
} CcShapeSpec;

const char  *cc_shape_name           (CcShape shape);
bool         cc_shape_from_name      (const char *name, CcShape *shape);
const char  *cc_shape_names          (void);
/* The shape's mask, its values malloc'd into *values (free them), divisor
 * 1 and offset 0; or false and why (a value out of range, a mask larger
 * than CC_MASK_MAX). */
bool         cc_mask_shape           (const CcShapeSpec *spec, CcMask *mask, double **values,
                                      char *message, size_t size);

/* What follows where the GPU cannot take a job (engine/fallback.c;
 * docs/design.md): an error, or the CPU with a note saying why. */
typedef enum
{
  CC_FALLBACK_ERROR,
  CC_FALLBACK_NO_GPU,      /* "no GPU used: WHY" */
  CC_FALLBACK_FELL_BACK    /* "fell back to the CPU: WHY" */
} CcFallback;

/* The note a front end shows where the CPU ran a job for 'rule'. */
void         cc_fallback_note        (CcFallback rule, const char *why, char *note,
                                      size_t size);

/* A mask as a front end is given it: an image, or a shape, or a preset, or
 * its text form, or width x height values (none: the identity of that
 * size), in that order, with the divisor, the offset and GIMP's normalize
 * rule (which an image and a shape, scaled to sum 1, and a preset, which
 * has its own divisor and offset, do without). */
typedef struct
{
  const char   *text;        /* the text form; NULL: the values */
  const double *values;
  size_t        n_values;    /* 0: the identity */
  int           width;       /* of the values */
  int           height;
  double        divisor;
  double        offset;
  bool          normalize;
  CcShapeSpec   shape;       /* CC_SHAPE_MATRIX (0): the preset, text or values */
  /* A preset's id (NULL or "": none), which 'find_preset' (presets/'s
   * cc_preset_find_mask, the shipped presets then the user's; NULL in a
   * front end without presets) makes the mask, divisor and offset, its
   * values malloc'd. */
  const char   *preset;
  bool        (*find_preset) (const char *id, CcMask *mask, double **values,
                              char *message, size_t size);
  /* A layer or a file as the mask, the rest then ignored: each pixel's
   * luminance in linear light and its alpha, interleaved, as the front end
   * reads the image (babl's "YA float" in its own space); NULL: none.
   * The weights are luminance times alpha (babl's premultiplied "YaA"
   * would leave a transparent pixel a trace), an even side gains a zero
   * column or row at the right or bottom, and they are scaled to sum 1. */
  const float  *image;
  int64_t       image_width;
  int64_t       image_height;
} CcMaskSource;

/* Whether an image of this size can be a mask, before its pixels are read
 * (cc_mask_resolve checks it again); if not, why. */
bool         cc_mask_image_size_check (int64_t width, int64_t height, char *message,
                                       size_t size);
/* The one resolution of a mask for every front end: the mask, normalize
 * applied and checked as the engine checks it (cc_mask_check), its values
 * malloc'd into *values (free them); or false and why. */
bool         cc_mask_resolve         (const CcMaskSource *source, CcMask *mask,
                                      double **values, char *message, size_t size);

/* The methods, one row each (engine/methods.c), indexed by CcMethod: the
 * front ends list and describe them from it. */
typedef struct _CcKernels CcKernels;   /* a GPU method's kernels (kernels/) */
typedef struct
{
  const char      *name;             /* as the tool and the procedure spell it */
  const char      *summary;          /* a line for lists and help */
  bool             gpu;
  int              mask_max;         /* largest mask width or height it takes */
  /* What 'auto' weighs: the order it tries GPU methods in (0: never), the
   * taps (register's work: width class x height) where it takes this one
   * ahead of the next (0: no bound; the lower bound where the method runs
   * the job in one pass, if that differs), whether only for rank-1 masks,
   * and whether only where no other method can run the mask. */
  int              auto_order;
  int              auto_min_taps;
  int              auto_min_taps_one_pass;
  int              auto_max_taps;
  bool             auto_rank1;
  bool             auto_last_resort;
  const CcKernels *kernels;          /* NULL: not a GPU method, or a build without CUDA */
} CcMethodInfo;

extern const CcMethodInfo cc_methods[CC_METHOD_COUNT];

/* Whether 'method' takes a mask of this size (its mask_max); if not, why. */
bool         cc_method_takes_size    (CcMethod method, int width, int height,
                                      char *message, size_t size);

/* Names, as the tool and the GIMP procedure spell them. */
const char  *cc_method_name          (CcMethod method);
bool         cc_method_from_name     (const char *name, CcMethod *method);
bool         cc_method_is_gpu        (CcMethod method);
const char  *cc_border_name          (CcBorder border);
bool         cc_border_from_name     (const char *name, CcBorder *border);
/* Every method's and border's name, comma-separated, for messages that
 * list the choices. */
const char  *cc_method_names         (void);
const char  *cc_border_names         (void);
const char  *cc_type_name            (CcType type);
bool         cc_type_from_name       (const char *name, CcType *type);
size_t       cc_type_size            (CcType type);
const char  *cc_status_name          (CcStatus status);
/* A size as the CUDA_CONVOLVE_*_BUDGET variables give it: bytes, or with a
 * K, M or G suffix ("512M", "1.5G"); false for anything else, or for 0. */
bool         cc_bytes_parse          (const char *text, uint64_t *bytes);

/* Transfer tables, for one integer sample type ('type' CC_TYPE_U8 or
 * CC_TYPE_U16: 'codes' is 256 or 65536) and 'curves' curves (1: every colour
 * channel; 3: red, green and blue).  'to_linear' holds curves x codes values,
 * each curve's linear light for every code, ascending; 'midpoints' curves x
 * (codes - 1) values, the linear light halfway between codes k and k + 1 in
 * the encoding, each between the two codes' values.  A caller with a colour
 * library makes them for the image's own space (babl); the engine copies
 * them.  Samples go in by one table look-up and come out as the code whose
 * midpoints enclose the result: rounding to nearest in the encoding.  NULL
 * and a message when the tables are not so. */
CcTransfer  *cc_transfer_new         (CcType type, int curves, const float *to_linear,
                                      const float *midpoints, char *message, size_t size);
/* The sRGB curve (IEC 61966-2-1), computed in double precision, for callers
 * with no colour library. */
CcTransfer  *cc_transfer_new_srgb    (CcType type);
/* The sRGB curve itself, for float samples: an encoded value's linear light
 * and back (the linear segment below the threshold, negatives included). */
double       cc_srgb_to_linear       (double encoded);
double       cc_srgb_from_linear     (double linear);
void         cc_transfer_free        (CcTransfer *transfer);
CcType       cc_transfer_type        (const CcTransfer *transfer);
/* Code -> linear light, and linear light -> the nearest code in the
 * encoding, for colour channel 'c' (reference use: tests, the gold). */
double       cc_transfer_decode      (const CcTransfer *transfer, int c, unsigned code);
unsigned     cc_transfer_encode      (const CcTransfer *transfer, int c, double linear);

/* Deconvolution (engine/deconvolve.c): the image as it was before a blur by
 * 'mask', the blur being this engine's convolution with the mask scaled to
 * sum 1 (its divisor ignored, its offset 0).  The colour channels are
 * restored, each on its own, in linear light where the options have a
 * transfer; alpha and the channels keep_colour names keep their source
 * samples.  Borders as cc_convolve's (mirror rings least); clamp as
 * there.  Non-finite source samples are taken as 0, and no NaN or
 * infinity reaches the output.
 *
 * Richardson–Lucy (Lucy 1974), from 'start', each iteration
 *   u <- u * (M' (x) (f / (M (x) u + 1e-12)))  /  (1 - tv_weight div (grad u / |grad u|))
 * where M (x) is the engine's convolution and M' the mask turned half a
 * turn; the denominator (Dey et al. 2006, total variation, 0: off) holds
 * noise down.  It takes no negative weights, and a source's negative light
 * as 0.  Wiener: scikit-image's restoration.wiener, the filter
 * conj(H) / (|H|^2 + noise |L|^2) with L the 4-neighbour Laplacian, over
 * the image extended by its border mode (wrap: the image's own period). */
typedef enum
{
  CC_DECONVOLVE_RICHARDSON_LUCY = 0,
  CC_DECONVOLVE_WIENER,
  CC_DECONVOLVE_COUNT
} CcDeconvolveAlgorithm;

typedef enum
{
  CC_DECONVOLVE_START_IMAGE = 0,   /* the blurred image itself */
  CC_DECONVOLVE_START_FLAT,        /* 0.5 everywhere, as scikit-image */
  CC_DECONVOLVE_START_COUNT
} CcDeconvolveStart;

#define CC_DECONVOLVE_ITERATIONS_MAX 1000
#define CC_DECONVOLVE_TV_MAX         0.1   /* past it the denominator loses its sense */

typedef struct
{
  CcDeconvolveAlgorithm algorithm;
  int                   iterations;   /* Richardson–Lucy: 1..CC_DECONVOLVE_ITERATIONS_MAX */
  CcDeconvolveStart     start;        /* Richardson–Lucy */
  double                tv_weight;    /* Richardson–Lucy: 0 (off) .. CC_DECONVOLVE_TV_MAX */
  double                noise;        /* Wiener: the balance, finite and >= 0 */
} CcDeconvolveParams;

/* The defaults (setting-table.h): Richardson–Lucy from a flat estimate, no
 * total variation. */
void         cc_deconvolve_params_init (CcDeconvolveParams *params);
/* Restores 'src' into 'dst', both in host memory and of one size (the
 * whole image: every output pixel depends on every input pixel).  The
 * method is the convolutions': Richardson–Lucy runs on the GPU for 'auto'
 * where one is usable, and for a GPU method asked for: the source goes up
 * once in its own samples, every iteration runs there on planes of floats
 * (four of the colour channels, or, where those do not fit, four of one
 * channel, the channels in turn), and the result comes down once; the
 * border must not be white, and 'dst' must be of the source's sample type.
 * It runs on the CPU for cpu, and for 'auto' otherwise, saying why in the
 * message.  Wiener runs on the GPU for 'auto' where one is usable and for
 * any GPU method asked for (its transforms are its own, so the method only
 * says "on the GPU"; the result's method_used is fft and its kernel "gpu
 * wiener"), on the CPU through FFTW for cpu; where the GPU cannot take the
 * canvas (a wrapped side with a prime factor past 7, a side longer than its
 * transforms take, the image, canvas and filter past its memory or the
 * device budget) every method falls back to the CPU with a note in the
 * message.  The result's upload_ms is the source's reading (on the GPU, for
 * Richardson-Lucy, its way there), kernel_ms the restoring, download_ms the
 * writing of 'dst' (for Richardson-Lucy on the GPU, its way back). */
CcStatus     cc_deconvolve           (CcContext                *ctx,
                                      const CcImage            *src,
                                      const CcImage            *dst,
                                      const CcMask             *mask,
                                      const CcOptions          *options,
                                      const CcDeconvolveParams *params,
                                      CcResult                 *result);
/* Whether cc_deconvolve takes this mask as a blur with these parameters
 * (cc_mask_check's rules, no offset, weights adding up to more than 0,
 * none negative for Richardson–Lucy, the parameters in range), and if not
 * why, in its words: for front ends that hand the work to another
 * process's engine (GIMP's cuda:deconvolve) and must refuse first. */
bool         cc_deconvolve_check     (const CcMask             *mask,
                                      const CcDeconvolveParams *params,
                                      char                     *message,
                                      size_t                    size);
const char  *cc_deconvolve_algorithm_name      (CcDeconvolveAlgorithm algorithm);
bool         cc_deconvolve_algorithm_from_name (const char *name,
                                                CcDeconvolveAlgorithm *algorithm);
const char  *cc_deconvolve_start_name          (CcDeconvolveStart start);
bool         cc_deconvolve_start_from_name     (const char *name, CcDeconvolveStart *start);

/* Device memory for on_device images (tests, the bench).  They return
 * CC_ERROR_* when no GPU is usable. */
CcStatus     cc_device_alloc         (CcContext *ctx, size_t bytes, void **ptr);
void         cc_device_free          (CcContext *ctx, void *ptr);
CcStatus     cc_device_copy          (CcContext *ctx, void *dst, const void *src,
                                      size_t bytes, bool to_device);

/* Host memory for images: page-locked where a GPU is usable, so that
 * transfers run at full speed and overlap with the kernels; ordinary memory
 * otherwise (NULL when out of memory).  Allocating waits for the GPU's
 * start-up.  Free it with cc_host_free. */
void        *cc_host_alloc           (CcContext *ctx, size_t bytes);
void         cc_host_free            (CcContext *ctx, void *ptr);

/* The CPU reference ("gold"): double precision, one thread, no shortcuts.
 * Writes 'dst' as double samples (dst->type must be CC_TYPE_DOUBLE, in host
 * memory), before any rounding to an integer type; with a transfer, colour
 * in linear light, before encoding.  Black and white borders are its own
 * ghost cells, not a padded copy. */
CcStatus     cc_convolve_gold        (const CcImage   *src,
                                      int64_t          out_x,
                                      int64_t          out_y,
                                      const CcImage   *dst,
                                      const CcMask    *mask,
                                      const CcOptions *options);

/* The blur's estimate (engine/estimate.c): a disc's or a Gaussian's radius,
 * or a motion line's (half its length) and angle, in the terms the shape
 * settings take, and how sure it is, from 0 to 1. */
typedef struct
{
  CcShape shape;
  double  radius;
  double  angle;
  double  confidence;
} CcBlurEstimate;

/* Estimates the blur of 'src' (of 'region', or all of it where NULL) as
 * 'shape' (disc, gaussian or motion), or as whichever of them fits best
 * (CC_SHAPE_MATRIX: auto), from its luminance.  Of 'options' it takes the
 * method (auto: the GPU where one is usable, else the CPU; cpu; any GPU
 * method: the GPU), the transfer (codes to linear light), has_alpha
 * (alpha left out), progress and cancel.  CC_ERROR_INVALID, and why,
 * where the image gives nothing to go on: too small, flat, saturated or
 * not finite.  The result's kernel_ms is the search's time, the rest of
 * total_ms the region's reading and its spectrum. */
CcStatus     cc_estimate_blur        (CcContext          *ctx,
                                      const CcImage      *src,
                                      const CcRect       *region,
                                      CcShape             shape,
                                      const CcOptions    *options,
                                      CcBlurEstimate     *estimate,
                                      CcResult           *result);

/* A blur's mask from a point source (engine/star.c): the region of
 * 'radius' about (x, y) less its background, centred on its centroid, cut
 * to its support and scaled to sum 1, its values malloc'd into *values;
 * or false and why (the region outside the image, no source there, a
 * saturated one). */
bool         cc_mask_from_star       (const CcImage      *src,
                                      const CcTransfer   *transfer,
                                      bool                has_alpha,
                                      double              x,
                                      double              y,
                                      int                 radius,
                                      CcMask             *mask,
                                      double            **values,
                                      char               *why,
                                      size_t              size);

#ifdef __cplusplus
}
#endif

#endif /* CUDA_CONVOLVE_H */
