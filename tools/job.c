/* One file of the tool's (job.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate.h"
#include "job.h"
#include "outputs.h"

bool
job_fail (Job *job, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vsnprintf (job->error, sizeof job->error, format, args);
  va_end (args);
  job->failed = true;
  return false;
}

static void
image_from_raw (FileImage *im, const IoInfo *info)
{
  memset (im, 0, sizeof *im);
  im->image.type = info->type;
  im->image.channels = info->channels;
  im->image.width = info->width;
  im->image.height = info->height;
  im->image.stride = info->width * info->channels * (int64_t) cc_type_size (info->type);
  im->alpha = info->alpha;
  im->coded = info->type == CC_TYPE_U8 || info->type == CC_TYPE_U16;
  im->linear = info->format == IO_PFM;
  im->maxval = info->maxval;
}

bool
is_raw_file (const char *path)
{
  unsigned char head[2];
  FILE *f = fopen (path, "rb");
  size_t n = f ? fread (head, 1, 2, f) : 0;

  if (f)
    fclose (f);
  return io_format_sniff (head, n);
}

void
job_decode (Job *job)
{
  char error[1024];

  if (job->failed)
    return;
  if (!job->raw_in)
    {
      if (!files_load (job->in, &job->src, error, sizeof error))
        job_fail (job, "%s", error);
      return;
    }
  if (!io_reader_open (job->in, &job->reader, &job->info, error, sizeof error))
    {
      job_fail (job, "%s", error);
      return;
    }
  job->stream = job->raw_out && !job->whole;
  if (job->stream)
    return;
  image_from_raw (&job->src, &job->info);
  if ((uint64_t) job->src.image.height > SIZE_MAX / (uint64_t) job->src.image.stride ||
      !(job->src.image.data = malloc ((size_t) (job->src.image.stride *
                                                job->src.image.height))))
    job_fail (job, "%s: out of memory", job->in);
  else if (!io_reader_rows (job->reader, 0, job->info.height, job->src.image.data,
                            job->src.image.stride, error, sizeof error))
    job_fail (job, "%s", error);
  io_reader_close (job->reader);
  job->reader = NULL;
}

static void
options_for (const Settings *s, const FileImage *im, CcOptions *options)
{
  *options = s->options;
  options->has_alpha = im->alpha;
  options->affect_alpha = s->convolve[3];
  cc_options_keep_colour (options, im->image.channels - (im->alpha ? 1 : 0) == 1,
                          s->convolve[0], s->convolve[1], s->convolve[2]);
}

static void
add_times (CcResult *sum, const CcResult *r)
{
  sum->method_used = r->method_used;
  memcpy (sum->device, r->device, sizeof sum->device);
  memcpy (sum->kernel, r->kernel, sizeof sum->kernel);
  if (r->message[0])
    memcpy (sum->message, r->message, sizeof sum->message);
  sum->upload_ms += r->upload_ms;
  sum->kernel_ms += r->kernel_ms;
  sum->download_ms += r->download_ms;
  sum->total_ms += r->total_ms;
  sum->strips += r->strips;
}

typedef struct
{
  IoReader     *reader;
  const CcImage *src;
  char          error[1024];
} RowReads;

static bool
read_run (int64_t at, int64_t from, int64_t rows, void *data)
{
  RowReads *r = data;

  return io_reader_rows (r->reader, from, rows, (char *) r->src->data + at * r->src->stride,
                         r->src->stride, r->error, sizeof r->error);
}

/* The borders whose rows past the image's top and bottom the tool gathers
 * itself: those whose rows there are the image's own.  A ghost row (zero,
 * black, white) is the engine's to add: the strips' buffer is not cleared
 * between strips. */
#define ROWS_READ_BEYOND (CC_BORDER_BIT (CC_BORDER_EXTEND) | CC_BORDER_BIT (CC_BORDER_WRAP) | \
                          CC_BORDER_BIT (CC_BORDER_MIRROR))

/* Reads the rows output rows y0 .. y0 + n need into 'src', the strip and
 * its halo (cc_region_input), as the border maps them, so that the engine
 * sees each strip as it would see the whole image.  Sets where the strip's
 * first output row lies in 'src'. */
static bool
gather (Job *job, const Settings *s, int64_t y0, int64_t n, CcImage *src, int64_t *out_y)
{
  const CcRect strip = { 0, y0, job->info.width, n };
  const CcRect image = { 0, 0, job->info.width, job->info.height };
  const CcRegion region = cc_region_input (&strip, &image, s->mask.width, s->mask.height,
                                           s->options.border, ROWS_READ_BEYOND, 0);
  RowReads reads = { job->reader, src, "" };

  src->height = region.input.height;
  *out_y = region.out_y;
  if (!cc_border_runs (region.input.y, region.input.height, job->info.height,
                       s->options.border, read_run, &reads))
    return job_fail (job, "%s", reads.error);
  return true;
}

/* Raw files are sRGB: their codes are convolved in linear light through
 * the sRGB curve unless --perceptual; PFM holds linear light, which
 * --perceptual convolves sRGB-encoded, as the procedure does with linear
 * off on a linear float layer ('encode' before, then back). */
static CcTransfer *
raw_transfer (const FileImage *im, const Settings *s)
{
  return !s->perceptual && im->coded ? cc_transfer_new_srgb (im->image.type) : NULL;
}

static void
raw_encoding (CcImage *im, bool alpha, const Settings *s, bool encode)
{
  const int colour = im->channels - (alpha ? 1 : 0);

  if (!s->perceptual || im->type != CC_TYPE_FLOAT)
    return;
  for (int64_t y = 0; y < im->height; y++)
    {
      float *row = (float *) ((char *) im->data + y * im->stride);

      for (int64_t x = 0; x < im->width; x++)
        for (int c = 0; c < colour; c++)
          {
            float *v = row + x * im->channels + c;

            *v = (float) (encode ? cc_srgb_from_linear (*v) : cc_srgb_to_linear (*v));
          }
    }
}

/* Raw to raw: strip by strip, so that memory stays bounded. */
static void
convolve_stream (Job *job, const Settings *s, const CcOptions *options)
{
  const IoInfo *info = &job->info;
  const int64_t ry = s->mask.height / 2;
  const int64_t row = info->width * info->channels * (int64_t) cc_type_size (info->type);
  /* A raw file's strips, source and result together, within the host budget. */
  const uint64_t budget = cc_host_budget ();
  int64_t strip = ((budget > INT64_MAX ? INT64_MAX : (int64_t) budget) / row - 2 * ry) / 2;
  CcImage src = { NULL, info->type, info->channels, info->width, 0, row, false };
  CcImage dst = src;
  IoWriter *writer = NULL;
  char error[1024];
  int slot = output_claim (job->out);
  bool ok = false;

  if (strip < 1)
    strip = 1;
  if (strip > info->height)
    strip = info->height;
  if (slot < 0)
    {
      job_fail (job, "%s: no temporary name is free", job->out);
      return;
    }
  src.data = cc_host_alloc (s->ctx, (size_t) ((strip + 2 * ry) * row));
  dst.data = cc_host_alloc (s->ctx, (size_t) (strip * row));
  if (!src.data || !dst.data)
    job_fail (job, "%s: out of memory for strips of %lld rows", job->in, (long long) strip);
  else if (!io_writer_open (output_temp_path (slot), job->out_format, info, &writer, error,
                            sizeof error))
    job_fail (job, "%s", error);
  else
    {
      ok = true;
      for (int64_t y0 = 0; y0 < info->height && ok; y0 += strip)
        {
          int64_t n = info->height - y0 < strip ? info->height - y0 : strip, out_y;
          CcResult r;

          dst.height = n;
          ok = gather (job, s, y0, n, &src, &out_y);
          if (ok)
            raw_encoding (&src, info->alpha, s, true);
          if (ok && cc_convolve (s->ctx, &src, 0, out_y, &dst, &s->mask, options, &r) != CC_OK)
            ok = job_fail (job, "%s: %s", job->in, r.message);
          if (ok)
            {
              add_times (&job->result, &r);
              job->strips++;
              raw_encoding (&dst, info->alpha, s, false);
              if (!io_writer_rows (writer, y0, n, dst.data, dst.stride, error, sizeof error))
                ok = job_fail (job, "%s", error);
            }
        }
      if (!io_writer_close (writer, error, sizeof error) && ok)
        ok = job_fail (job, "%s", error);
    }
  if (!output_release (slot, job->out, ok, error, sizeof error) && ok)
    job_fail (job, "%s", error);
  cc_host_free (s->ctx, src.data);
  cc_host_free (s->ctx, dst.data);
  io_reader_close (job->reader);
  job->reader = NULL;
}

/* The samples as the engine takes them: a file read through a library as
 * the GEGL operation takes such a layer in GIMP. */
bool
job_work (Job *job, const Settings *s, FileImage *work, CcTransfer **transfer,
          CcOptions *options)
{
  char error[512];

  *transfer = NULL;
  if (job->failed)
    return false;
  if (job->src.format)
    {
      if (!files_work (&job->src, !s->perceptual, s->options.clamp, work, transfer, error,
                       sizeof error))
        return job_fail (job, "%s: %s", job->in, error);
    }
  else
    {
      *work = job->src;
      *transfer = raw_transfer (work, s);
      raw_encoding (&work->image, work->alpha, s, true);
    }
  options_for (s, work, options);
  options->transfer = *transfer;
  return true;
}

/* The whole image convolved (or deconvolved) by 'mask' into job->dst, in
 * the file's own format. */
static void
compute_whole (Job *job, const Settings *s, const FileImage *work, const CcOptions *options,
               const CcMask *mask)
{
  char error[512];
  CcResult r;

  job->dst = *work;
  job->dst.image.data = malloc ((size_t) (work->image.stride * work->image.height));
  if (!job->dst.image.data)
    job_fail (job, "%s: out of memory", job->in);
  else if ((s->deconvolve
              ? cc_deconvolve (s->ctx, &work->image, &job->dst.image, mask, options,
                               &s->deconvolution, &r)
              : cc_convolve (s->ctx, &work->image, 0, 0, &job->dst.image, mask, options,
                             &r)) != CC_OK)
    job_fail (job, "%s: %s", job->in, r.message);
  else
    {
      add_times (&job->result, &r);
      job->strips = 1;
      if (!job->src.format)
        raw_encoding (&job->dst.image, job->dst.alpha, s, false);
      else if (!files_unwork (&job->dst, &job->src, error, sizeof error))
        job_fail (job, "%s: %s", job->in, error);
    }
  if (job->failed)
    files_image_free (&job->dst);
}

void
job_compute (Job *job, const Settings *s)
{
  CcTransfer *transfer = NULL;
  CcOptions options;
  FileImage work;
  CcMask own;
  double *own_values = NULL;

  if (job->failed)
    return;
  memset (&job->result, 0, sizeof job->result);
  if (job->stream)
    {
      FileImage shape;

      image_from_raw (&shape, &job->info);
      options_for (s, &shape, &options);
      options.transfer = transfer = raw_transfer (&shape, s);
      convolve_stream (job, s, &options);
      cc_transfer_free (transfer);
      return;
    }
  if (!job_work (job, s, &work, &transfer, &options))
    {
      files_image_free (&job->src);
      return;
    }
  if (s->file_mask.kind == FILE_MASK_NONE)
    compute_whole (job, s, &work, &options, &s->mask);
  else if (file_mask_make (job, s, &work.image, &options, &own, &own_values))
    compute_whole (job, s, &work, &options, &own);
  free (own_values);
  cc_transfer_free (transfer);
  if (work.image.data != job->src.image.data)
    files_image_free (&work);
  files_image_free (&job->src);
}

void
job_encode (Job *job)
{
  char error[1024];
  int slot;
  bool ok;

  if (job->failed || job->stream)
    return;
  slot = output_claim (job->out);
  if (slot < 0)
    {
      job_fail (job, "%s: no temporary name is free", job->out);
      return;
    }
  if (job->raw_out && !files_to_raw (&job->dst, job->out_format == IO_PFM, error,
                                     sizeof error))
    ok = false;
  else if (job->raw_out)
    {
      IoInfo info = {
        job->out_format, job->dst.image.width, job->dst.image.height, job->dst.image.channels,
        job->dst.image.type, job->dst.maxval, job->dst.alpha
      };
      IoWriter *writer = NULL;

      ok = io_writer_open (output_temp_path (slot), job->out_format, &info, &writer, error,
                           sizeof error) &&
           io_writer_rows (writer, 0, info.height, job->dst.image.data, job->dst.image.stride,
                           error, sizeof error);
      if (writer && !io_writer_close (writer, error, sizeof error))
        ok = false;
    }
  else
    ok = files_save (output_temp_path (slot), job->out, &job->dst, error, sizeof error);
  if (!output_release (slot, job->out, ok, error, sizeof error))
    job_fail (job, "%s", error);
  files_image_free (&job->dst);
}

