/* The blur's estimate and a star's mask in the tool (estimate.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "estimate.h"
#include "setting-table.h"

/* Whole numbers, exactly n of them, separated by commas. */
static bool
parse_wholes (const char *text, long long *v, int n)
{
  for (int i = 0; i < n; i++)
    {
      char *end;

      errno = 0;
      v[i] = strtoll (text, &end, 10);
      if (end == text || errno != 0 || *end != (i + 1 < n ? ',' : '\0'))
        return false;
      text = end + 1;
    }
  return true;
}

bool
estimate_parse_region (const char *text, CcRect *region)
{
  long long v[4];

  if (!parse_wholes (text, v, 4) || v[2] <= 0 || v[3] <= 0)
    return false;
  *region = (CcRect) { v[0], v[1], v[2], v[3] };
  return true;
}

bool
estimate_parse_star (const char *text, FileMask *how)
{
  const char *p = text;
  double xy[2];
  long long r;

  for (int i = 0; i < 2; i++)
    {
      char *end;

      errno = 0;
      xy[i] = strtod (p, &end);
      if (end == p || errno != 0 || *end != ',' || !isfinite (xy[i]))
        return false;
      p = end + 1;
    }
  if (!parse_wholes (p, &r, 1) || r < 1 || r > CC_MASK_MAX / 2)
    return false;
  how->x = xy[0];
  how->y = xy[1];
  how->radius = (int) r;
  return true;
}

/* A number with up to two decimals, its trailing zeros left out. */
static void
format_number (double v, char *text, size_t size)
{
  char *end;

  snprintf (text, size, "%.2f", fabs (v) < 0.005 ? 0.0 : v);
  end = text + strlen (text);
  while (end[-1] == '0')
    *--end = '\0';
  if (end[-1] == '.')
    *--end = '\0';
}

/* The estimate's names and values: "shape disc radius ..." or, for JSON,
 * its members without the braces. */
static void
format_members (const CcBlurEstimate *e, bool json, char *text, size_t size)
{
  const char *shape = cc_setting_choice_name (CC_SETTING_ID_SHAPE, (int) e->shape);
  char radius[32], angle[32], confidence[32];

  format_number (e->radius, radius, sizeof radius);
  format_number (e->angle, angle, sizeof angle);
  format_number (e->confidence, confidence, sizeof confidence);
  snprintf (text, size, json ? "\"shape\": \"%s\", \"radius\": %s, \"angle\": %s, "
                               "\"confidence\": %s"
                             : "shape %s radius %s angle %s confidence %s",
            shape, radius, angle, confidence);
}

void
estimate_format (const CcBlurEstimate *e, bool json, char *text, size_t size)
{
  char members[256];

  format_members (e, json, members, sizeof members);
  snprintf (text, size, json ? "{%s}" : "%s", members);
}

/* The estimate's share done, on a terminal's line (a search on the CPU
 * takes seconds). */
static void
estimate_progress (double fraction, void *data)
{
  fprintf (stderr, "\r\033[Kestimating the blur of %s: %.0f%%", (const char *) data,
           100.0 * fraction);
}

/* The blur estimated in the file, into job->estimate. */
static bool
estimate_blur (Job *job, const Settings *s, const CcImage *work, const CcOptions *options,
               CcResult *r)
{
  const FileMask *how = &s->file_mask;
  /* Several files have the pipeline's line there instead. */
  const bool tty = !s->batch && isatty (STDERR_FILENO);
  CcOptions o = *options;
  CcStatus status;

  if (tty)
    {
      o.progress = estimate_progress;
      o.user_data = (void *) job->in;
    }
  status = cc_estimate_blur (s->ctx, work, how->has_region ? &how->region : NULL, how->shape,
                             &o, &job->estimate, r);
  if (tty)
    fputs ("\r\033[K", stderr);
  if (status != CC_OK)
    return job_fail (job, "%s: %s", job->in, r->message);
  job->estimated = true;
  job->estimate_ms = r->total_ms;
  return true;
}

bool
file_mask_make (Job *job, const Settings *s, const CcImage *work, const CcOptions *options,
                CcMask *mask, double **values)
{
  const FileMask *how = &s->file_mask;
  CcShapeSpec spec = CC_SHAPE_SPEC_DEFAULT;
  char why[512];
  CcResult r;

  if (how->kind == FILE_MASK_STAR)
    return cc_mask_from_star (work, options->transfer, options->has_alpha, how->x, how->y,
                              how->radius, mask, values, why, sizeof why) ||
           job_fail (job, "%s: --star: %s", job->in, why);
  if (!estimate_blur (job, s, work, options, &r))
    return false;
  spec.shape = job->estimate.shape;
  spec.radius = job->estimate.radius;
  spec.angle = job->estimate.angle;
  return cc_mask_shape (&spec, mask, values, why, sizeof why) ||
         job_fail (job, "%s: the estimated blur's mask: %s", job->in, why);
}

/* A JSON string's characters: quotes and backslashes escaped, control
 * characters left out. */
static void
json_string (FILE *f, const char *text)
{
  for (; *text; text++)
    if (*text == '"' || *text == '\\')
      fprintf (f, "\\%c", *text);
    else if ((unsigned char) *text >= 0x20)
      fputc (*text, f);
}

/* The estimate on standard output, with what ran under --verbose. */
static bool
print_estimate (const CcBlurEstimate *e, const CcResult *r, bool json, bool verbose)
{
  char members[256];

  format_members (e, json, members, sizeof members);
  if (json)
    {
      printf ("{%s", members);
      if (verbose)
        {
          printf (", \"method\": \"%s\", \"device\": \"", cc_method_name (r->method_used));
          json_string (stdout, r->device);
          printf ("\", \"time_ms\": %.3f", r->total_ms);
          if (r->message[0])
            {
              fputs (", \"note\": \"", stdout);
              json_string (stdout, r->message);
              putchar ('"');
            }
        }
      puts ("}");
    }
  else
    {
      puts (members);
      if (verbose)
        printf ("method: %s\ndevice: %s\ntime: %.3f ms\n", cc_method_name (r->method_used),
                r->device, r->total_ms);
      if (verbose && r->message[0])
        printf ("note: %s\n", r->message);
    }
  return fflush (stdout) == 0 && !ferror (stdout);
}

int
estimate_file (const char *path, const Settings *s, bool json)
{
  Job job = { .in = path, .raw_in = is_raw_file (path), .whole = true };
  const bool library = !job.raw_in;
  CcTransfer *transfer = NULL;
  FileImage work = { 0 };
  CcOptions options;
  char error[1024];
  bool printed = false;
  CcResult r;

  if (library && !files_init (error, sizeof error))
    job_fail (&job, "%s", error);
  job_decode (&job);
  if (job_work (&job, s, &work, &transfer, &options) &&
      estimate_blur (&job, s, &work.image, &options, &r))
    printed = print_estimate (&job.estimate, &r, json, s->verbose);
  cc_transfer_free (transfer);
  if (work.image.data && work.image.data != job.src.image.data)
    files_image_free (&work);
  files_image_free (&job.src);
  if (library)
    files_exit ();
  if (job.failed)
    fprintf (stderr, "cuda-convolve: %s\n", job.error);
  else if (!printed)
    fprintf (stderr, "cuda-convolve: standard output: %s\n", strerror (errno));
  return printed ? 0 : 1;
}
