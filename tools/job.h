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

/* What every file of a run shares. */
typedef struct
{
  CcMask     mask;
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
  bool        whole;       /* the whole image at once (deconvolution) */
  bool        stream;      /* raw in and raw out, not whole: strip by strip */
  bool        raw_out;
  IoFormat    out_format;
  IoReader   *reader;      /* raw input */
  IoInfo      info;
  FileImage   src;         /* whole images, where not streamed */
  FileImage   dst;
  CcResult    result;
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
/* Convolves it (or deconvolves it, whole): a raw file to a raw file strip
 * by strip (written as it goes), anything else whole. */
void job_compute (Job *job, const Settings *s);
/* Writes what job_compute made whole. */
void job_encode  (Job *job);

#endif /* CC_TOOL_JOB_H */
