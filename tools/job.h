/* One file of the tool's: read, convolved and written, with the settings
 * every file shares.  A file that fails says why in its error and the
 * others go on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_TOOL_JOB_H
#define CC_TOOL_JOB_H

#include <stdbool.h>

#include "convolve.h"
#include "files.h"
#include "imageio.h"

/* Where each file's mask comes from where it is its own, made from the
 * file: the blur estimated in it (--shape auto, --estimate-blur), or a
 * star in it (--star). */
typedef enum { FILE_MASK_NONE, FILE_MASK_ESTIMATE, FILE_MASK_STAR } FileMaskKind;

typedef struct
{
  FileMaskKind kind;
  CcShape      shape;        /* the estimate's: disc, gaussian, motion; CC_SHAPE_MATRIX: auto */
  bool         has_region;
  CcRect       region;       /* the estimate's, where has_region; else the whole image */
  double       x, y;         /* the star's centre */
  int          radius;       /* and the radius of the square about it */
} FileMask;

/* What every file of a run shares. */
typedef struct
{
  CcMask     mask;         /* unless file_mask makes each file's own */
  FileMask   file_mask;
  CcOptions  options;      /* border, method, clamp, weighting */
  bool       convolve[4];  /* r, g, b, a */
  bool       deconvolve;   /* undo the mask's blur instead */
  CcDeconvolveParams deconvolution;
  bool       perceptual;
  bool       verbose;
  bool       batch;
  CcContext *ctx;
} Settings;

/* One file: its names, what was read, what was made, and how it went. */
typedef struct
{
  const char *in;
  bool        raw_in;      /* PFM, PNM or PAM, by its first bytes */
  char       *out;
  bool        whole;       /* the whole image at once (deconvolution, a file's own mask) */
  bool        stream;      /* raw in and raw out, not whole: strip by strip */
  bool        raw_out;
  IoFormat    out_format;
  IoReader   *reader;      /* raw input */
  IoInfo      info;
  FileImage   src;         /* whole images, where not streamed */
  FileImage   dst;
  CcResult    result;
  bool        estimated;   /* the blur was estimated (FILE_MASK_ESTIMATE): */
  CcBlurEstimate estimate;
  double      estimate_ms;
  int         strips;
  bool        failed;
  char        error[1024];
} Job;

/* Records why the job failed; returns false, for callers' returns. */
bool job_fail    (Job *job, const char *format, ...) __attribute__ ((format (printf, 2, 3)));
/* Whether a file is PFM, PNM or PAM, by its first bytes. */
bool is_raw_file (const char *path);
/* Reads the input: the header of a raw file that will stream, else the
 * whole image. */
void job_decode  (Job *job);
/* The samples read as the engine takes them, as the GEGL operation takes
 * such a layer in GIMP: 'work' (job->src's own memory or a converted
 * copy), the transfer through which it reads codes in linear light (NULL:
 * none) and the options for it (the settings', with the transfer and
 * alpha); false where the job failed or fails here. */
bool job_work    (Job *job, const Settings *s, FileImage *work, CcTransfer **transfer,
                  CcOptions *options);
/* Convolves it (or deconvolves it, whole): a raw file to a raw file strip
 * by strip (written as it goes), anything else whole. */
void job_compute (Job *job, const Settings *s);
/* Writes what job_compute made whole. */
void job_encode  (Job *job);

#endif /* CC_TOOL_JOB_H */
