/* cuda-convolve: convolve image files with a mask, on the GPU when one is
 * usable.  One file (IN OUT) or many (IN... -o DIR): the next file is read
 * while the current one is convolved and the previous one written.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convolve.h"
#include "files.h"
#include "imageio.h"
#ifdef HAVE_GLIB
#include "preset.h"
#endif

static const char usage[] =
  "Usage: cuda-convolve [OPTION]... IN OUT\n"
  "  or:  cuda-convolve [OPTION]... IN... -o DIR\n"
  "Convolve image IN with a mask and write OUT, in the format OUT's name asks for;\n"
  "or each IN into DIR, under its own name and in its own format.\n"
  "\n"
  "  -o, --output-dir DIR  write each output into DIR (made if missing)\n"
  "  --preset ID           the mask, divisor and offset of a preset (see\n"
  "                        --list-presets); not with --matrix, --divisor, --offset\n"
  "                        or --normalize\n"
  "  --list-presets        print each preset's id, size and name\n"
  "  --matrix TEXT         the mask, rows separated by ';' (or new lines), values\n"
  "                        by ',' (default \"0,0,0;0,1,0;0,0,0\", the identity);\n"
  "                        @FILE reads that text from FILE, - from standard input\n"
  "  --divisor X           divide the weighted sum by X (default 1)\n"
  "  --offset X            then add X, in the 0..1 scale (default 0)\n"
  "  --normalize           divisor and offset from the mask's sum (GIMP's rule)\n"
  "  --border MODE         zero, extend, wrap, mirror, black or white (default\n"
  "                        extend); GEGL's none, clamp and loop name zero, extend\n"
  "                        and wrap\n"
  "  --method NAME         one of the methods below (default auto)\n"
  "  --perceptual          convolve perceptual values, as the procedure's linear\n"
  "                        FALSE (GIMP 2's convmatrix); by default each file is\n"
  "                        convolved in linear light of its own colour space,\n"
  "                        as GIMP 3 does\n"
  "  --channels LIST       the channels to convolve, a subset of rgba (default\n"
  "                        rgba); the others keep their values; on gray images\n"
  "                        any of r, g, b means gray\n"
  "  --no-clamp            keep results outside [0,1] (float output only)\n"
  "  --no-alpha-weighting  convolve colour without weighting it by alpha\n"
  "  --keep-alpha          copy the alpha channel instead of convolving it (as\n"
  "                        leaving a out of --channels)\n"
  "  --verbose             print the method, the device and the times\n"
  "  --help                print this help\n"
  "  --version             print the version\n";

/* ---- Settings shared by every file ------------------------------------------ */

typedef struct
{
  CcMask     mask;
  CcOptions  options;      /* border, method, clamp, weighting */
  bool       convolve[4];  /* r, g, b, a */
  bool       perceptual;
  bool       verbose;
  bool       batch;
  CcContext *ctx;
} Settings;

/* ---- Output files: written under a temporary name, renamed when complete;
 * a signal removes what is half written. ----------------------------------- */

#define TEMP_SLOTS 8
static char                  temp_paths[TEMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];
static pthread_mutex_t       temp_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned              temp_serial;

static void
on_signal (int sig)
{
  for (int i = 0; i < TEMP_SLOTS; i++)
    if (temp_used[i])
      unlink (temp_paths[i]);
  signal (sig, SIG_DFL);
  raise (sig);
}

/* A name beside 'out' for it to be written under; -1 when none is free. */
static int
temp_claim (const char *out)
{
  const char *slash = strrchr (out, '/');
  int dir_len = slash ? (int) (slash - out + 1) : 0;
  int slot = -1;

  pthread_mutex_lock (&temp_lock);
  for (int i = 0; i < TEMP_SLOTS && slot < 0; i++)
    if (!temp_used[i])
      {
        int n = snprintf (temp_paths[i], PATH_MAX, "%.*s.%s.partial-%ld-%u", dir_len, out,
                          out + dir_len, (long) getpid (), ++temp_serial);

        if (n > 0 && n < PATH_MAX)
          {
            temp_used[i] = 1;
            slot = i;
          }
      }
  pthread_mutex_unlock (&temp_lock);
  return slot;
}

/* Renames the finished file into place (ok) or removes it. */
static bool
temp_release (int slot, const char *out, bool ok, char *error, size_t size)
{
  if (ok && rename (temp_paths[slot], out) != 0)
    {
      snprintf (error, size, "%s: %s", out, strerror (errno));
      ok = false;
    }
  if (!ok)
    unlink (temp_paths[slot]);
  pthread_mutex_lock (&temp_lock);
  temp_used[slot] = 0;
  pthread_mutex_unlock (&temp_lock);
  return ok;
}

/* ---- One file ------------------------------------------------------------ */

typedef struct
{
  const char *in;
  bool        raw_in;      /* PFM, PNM or PAM, by its first bytes */
  char       *out;
  bool        stream;      /* raw in and raw out: strip by strip */
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

static bool
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

static bool
is_raw_file (const char *path)
{
  unsigned char head[2];
  FILE *f = fopen (path, "rb");
  size_t n = f ? fread (head, 1, 2, f) : 0;

  if (f)
    fclose (f);
  return io_format_sniff (head, n);
}

/* Reads the input: the header of a raw file that will stream, else the
 * whole image. */
static void
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
  job->stream = job->raw_out;
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

/* Reads source rows y0 - ry .. y1 + ry into 'src' as the border maps them,
 * so that the engine sees each strip as it would see the whole image; for
 * constant borders only the rows inside, the engine supplying the rest.
 * Sets where the strip's first output row lies in 'src'. */
static bool
gather (Job *job, const Settings *s, int64_t y0, int64_t n, CcImage *src, int64_t *out_y)
{
  const int64_t H = job->info.height, ry = s->mask.height / 2;
  char error[1024];

  if (cc_border_map (-1, H, s->options.border) < 0)
    {
      int64_t first = y0 - ry < 0 ? 0 : y0 - ry;
      int64_t last = y0 + n + ry > H ? H : y0 + n + ry;

      src->height = last - first;
      *out_y = y0 - first;
      if (!io_reader_rows (job->reader, first, last - first, src->data, src->stride, error,
                           sizeof error))
        return job_fail (job, "%s", error);
      return true;
    }
  src->height = n + 2 * ry;
  *out_y = ry;
  {
    RowReads reads = { job->reader, src, "" };

    if (!cc_border_runs (y0 - ry, src->height, H, s->options.border, read_run, &reads))
      return job_fail (job, "%s", reads.error);
  }
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
  int slot = temp_claim (job->out);
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
  else if (!io_writer_open (temp_paths[slot], job->out_format, info, &writer, error,
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
  if (!temp_release (slot, job->out, ok, error, sizeof error) && ok)
    job_fail (job, "%s", error);
  cc_host_free (s->ctx, src.data);
  cc_host_free (s->ctx, dst.data);
  io_reader_close (job->reader);
  job->reader = NULL;
}

static void
job_compute (Job *job, const Settings *s)
{
  CcTransfer *transfer = NULL;
  CcOptions options;
  FileImage work;
  char error[512];
  CcResult r;

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
  /* The samples as the engine takes them: a file read through a library as
   * the GEGL operation takes such a layer in GIMP. */
  if (job->src.format)
    {
      if (!files_work (&job->src, !s->perceptual, s->options.clamp, &work, &transfer, error,
                       sizeof error))
        {
          job_fail (job, "%s: %s", job->in, error);
          files_image_free (&job->src);
          return;
        }
    }
  else
    {
      work = job->src;
      transfer = raw_transfer (&work, s);
      raw_encoding (&work.image, work.alpha, s, true);
    }
  options_for (s, &work, &options);
  options.transfer = transfer;
  job->dst = work;
  job->dst.image.data = malloc ((size_t) (work.image.stride * work.image.height));
  if (!job->dst.image.data)
    job_fail (job, "%s: out of memory", job->in);
  else if (cc_convolve (s->ctx, &work.image, 0, 0, &job->dst.image, &s->mask, &options,
                        &r) != CC_OK)
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
  cc_transfer_free (transfer);
  if (work.image.data != job->src.image.data)
    files_image_free (&work);
  files_image_free (&job->src);
}

static void
job_encode (Job *job)
{
  char error[1024];
  int slot;
  bool ok;

  if (job->failed || job->stream)
    return;
  slot = temp_claim (job->out);
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

      ok = io_writer_open (temp_paths[slot], job->out_format, &info, &writer, error,
                           sizeof error) &&
           io_writer_rows (writer, 0, info.height, job->dst.image.data, job->dst.image.stride,
                           error, sizeof error);
      if (writer && !io_writer_close (writer, error, sizeof error))
        ok = false;
    }
  else
    ok = files_save (temp_paths[slot], job->out, &job->dst, error, sizeof error);
  if (!temp_release (slot, job->out, ok, error, sizeof error))
    job_fail (job, "%s", error);
  files_image_free (&job->dst);
}

/* ---- The pipeline: read, convolve, write, one thread each ------------------ */

typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t  changed;
  Job            *item;
  bool            full;
} Slot;

static void
slot_put (Slot *q, Job *job)
{
  pthread_mutex_lock (&q->lock);
  while (q->full)
    pthread_cond_wait (&q->changed, &q->lock);
  q->item = job;
  q->full = true;
  pthread_cond_broadcast (&q->changed);
  pthread_mutex_unlock (&q->lock);
}

static Job *
slot_take (Slot *q)
{
  Job *job;

  pthread_mutex_lock (&q->lock);
  while (!q->full)
    pthread_cond_wait (&q->changed, &q->lock);
  job = q->item;
  q->full = false;
  pthread_cond_broadcast (&q->changed);
  pthread_mutex_unlock (&q->lock);
  return job;
}

typedef struct
{
  Job            *jobs;
  int             n_jobs;
  const Settings *settings;
  Slot            decoded;
  Slot            computed;
  /* The progress line, on a terminal. */
  pthread_mutex_t print_lock;
  bool            tty;
  int             done;
  int             failed;
  const char     *current;
} Run;

static void
progress_draw (Run *run)
{
  if (run->tty && run->n_jobs > 1)
    fprintf (stderr, "\r\033[K[%d/%d] %s", run->done, run->n_jobs,
             run->current ? run->current : "");
}

static void *
decoder (void *data)
{
  Run *run = data;

  for (int i = 0; i < run->n_jobs; i++)
    {
      job_decode (&run->jobs[i]);
      slot_put (&run->decoded, &run->jobs[i]);
    }
  slot_put (&run->decoded, NULL);
  return NULL;
}

static void
report (Run *run, Job *job)
{
  const CcResult *r = &job->result;
  struct rusage usage;

  pthread_mutex_lock (&run->print_lock);
  run->done++;
  if (run->tty && run->n_jobs > 1)
    fputs ("\r\033[K", stderr);
  if (job->failed)
    {
      run->failed++;
      fprintf (stderr, "cuda-convolve: %s\n", job->error);
    }
  else if (run->settings->verbose && !run->settings->batch)
    {
      printf ("method: %s\ndevice: %s\n", cc_method_name (r->method_used), r->device);
      if (r->kernel[0])
        printf ("kernels: %s\n", r->kernel);
      printf ("time: %.3f ms (upload %.3f, kernel %.3f, download %.3f) in %d strip%s\n",
              r->total_ms, r->upload_ms, r->kernel_ms, r->download_ms, r->strips,
              r->strips == 1 ? "" : "s");
      if (r->message[0])
        printf ("note: %s\n", r->message);
      if (getrusage (RUSAGE_SELF, &usage) == 0)
        printf ("peak host memory: %.1f MB\n", usage.ru_maxrss / 1024.0);
    }
  else if (run->settings->verbose)
    printf ("%s: %s on %s, %.3f ms\n", job->out, cc_method_name (r->method_used), r->device,
            r->total_ms);
  progress_draw (run);
  pthread_mutex_unlock (&run->print_lock);
}

static void *
encoder (void *data)
{
  Run *run = data;
  Job *job;

  while ((job = slot_take (&run->computed)))
    {
      job_encode (job);
      report (run, job);
      free (job->out);
      job->out = NULL;
    }
  return NULL;
}

static int
run_jobs (Job *jobs, int n_jobs, const Settings *settings)
{
  Run run = { .jobs = jobs, .n_jobs = n_jobs, .settings = settings,
              .tty = isatty (STDERR_FILENO) };
  pthread_t read_thread, write_thread;
  Job *job;

  pthread_mutex_init (&run.decoded.lock, NULL);
  pthread_cond_init (&run.decoded.changed, NULL);
  pthread_mutex_init (&run.computed.lock, NULL);
  pthread_cond_init (&run.computed.changed, NULL);
  pthread_mutex_init (&run.print_lock, NULL);
  pthread_create (&read_thread, NULL, decoder, &run);
  pthread_create (&write_thread, NULL, encoder, &run);
  while ((job = slot_take (&run.decoded)))
    {
      pthread_mutex_lock (&run.print_lock);
      run.current = job->in;
      progress_draw (&run);
      pthread_mutex_unlock (&run.print_lock);
      job_compute (job, settings);
      slot_put (&run.computed, job);
    }
  slot_put (&run.computed, NULL);
  pthread_join (read_thread, NULL);
  pthread_join (write_thread, NULL);
  if (run.tty && n_jobs > 1)
    fprintf (stderr, "\r\033[K%d file%s, %d failed\n", n_jobs, n_jobs == 1 ? "" : "s",
             run.failed);
  return run.failed ? 1 : 0;
}

/* ---- Options ----------------------------------------------------------------- */

static int
die (int code, const char *format, ...)
{
  va_list args;

  fputs ("cuda-convolve: ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  return code;
}

/* --channels: which of r, g, b, a are convolved; false where LIST is not
 * a subset of rgba. */
static bool
parse_channels (const char *list, bool convolve[4])
{
  static const char names[] = "rgba";

  if (!*list)
    return false;
  memset (convolve, 0, 4 * sizeof (bool));
  for (const char *p = list; *p; p++)
    {
      const char *at = strchr (names, *p);

      if (!at || convolve[at - names])
        return false;
      convolve[at - names] = true;
    }
  return true;
}

/* --matrix @FILE or --matrix -: the text form from a file or standard
 * input (a large mask's text is longer than an argument may be).  Returns
 * malloc'd text, or NULL and why. */
static char *
read_matrix_text (const char *arg, char *error, size_t size)
{
  const bool from_stdin = strcmp (arg, "-") == 0;
  FILE *f = from_stdin ? stdin : fopen (arg + 1, "rb");
  size_t n = 0, cap = 1 << 16;
  char *text = malloc (cap);

  if (!f || !text)
    {
      snprintf (error, size, "%s: %s", from_stdin ? "standard input" : arg + 1,
                f ? "out of memory" : strerror (errno));
      free (text);
      if (f && !from_stdin)
        fclose (f);
      return NULL;
    }
  for (size_t got; (got = fread (text + n, 1, cap - n - 1, f)) > 0;)
    {
      n += got;
      if (n + 1 == cap)
        {
          char *more = cap < ((size_t) 64 << 20) ? realloc (text, cap * 2) : NULL;

          if (!more)
            {
              snprintf (error, size, "%s: longer than 64 MB", from_stdin ? "standard input"
                                                                         : arg + 1);
              free (text);
              text = NULL;
              break;
            }
          text = more;
          cap *= 2;
        }
    }
  if (text && ferror (f))
    {
      snprintf (error, size, "%s: %s", from_stdin ? "standard input" : arg + 1,
                strerror (errno));
      free (text);
      text = NULL;
    }
  if (!from_stdin)
    fclose (f);
  if (text)
    text[n] = '\0';
  return text;
}

static bool
parse_number (const char *text, double *value)
{
  char *end;

  errno = 0;
  *value = strtod (text, &end);
  return end != text && *end == '\0' && errno == 0 && isfinite (*value);
}

#ifdef HAVE_GLIB
static void
preset_dirs (gchar **shipped, gchar **user)
{
  cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, shipped, user);
}

static int
list_presets (void)
{
  GString *warnings = g_string_new (NULL);
  gchar *shipped, *user;
  GList *presets;

  preset_dirs (&shipped, &user);
  presets = cc_presets_list (shipped, user, warnings);
  for (GList *l = presets; l; l = l->next)
    {
      const CcPreset *p = l->data;
      gchar *size = g_strdup_printf ("%dx%d", p->width, p->height);

      printf ("%-20s %-8s %s%s\n", p->id, size, p->name, p->shipped ? "" : " (yours)");
      g_free (size);
    }
  if (warnings->len)
    fprintf (stderr, "%s", warnings->str);
  cc_presets_free (presets);
  g_string_free (warnings, TRUE);
  g_free (shipped);
  g_free (user);
  return 0;
}

static bool
load_preset (const char *id, CcMask *mask, double **values, char *error, size_t size)
{
  GError *gerror = NULL;
  gdouble *kept;

  if (!cc_preset_mask (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, id, mask, &kept, &gerror))
    {
      snprintf (error, size, "%s (see --list-presets)", gerror->message);
      g_error_free (gerror);
      return false;
    }
  *values = malloc (sizeof (double) * mask->width * mask->height);
  if (*values)
    memcpy (*values, kept, sizeof (double) * mask->width * mask->height);
  else
    snprintf (error, size, "out of memory");
  mask->values = *values;
  g_free (kept);
  return *values != NULL;
}
#else
static int
list_presets (void)
{
  return die (2, "--list-presets: this build has no presets (it was built without GLib)");
}

static bool
load_preset (const char *id, CcMask *mask, double **values, char *error, size_t size)
{
  (void) id;
  (void) mask;
  (void) values;
  snprintf (error, size, "this build has no presets (it was built without GLib)");
  return false;
}
#endif

static bool
is_directory (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

static bool
same_file (const char *a, const char *b)
{
  struct stat sa, sb;

  return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* The output names this build writes, for messages. */
static const char *
writable_names (void)
{
  return files_formats ()[0] ? ".png, .jpg, .tif, .exr, .webp, .pfm, .pgm, .ppm, .pnm or .pam"
                             : ".pfm, .pgm, .ppm, .pnm or .pam";
}

/* Where each output goes, and whether its format is one this build
 * writes; a job that cannot be is failed now, and the others go on. */
static void
plan_output (Job *job, Job *jobs, int index, const char *dir, const char *out)
{
  if (dir)
    {
      const char *base = strrchr (job->in, '/');

      base = base ? base + 1 : job->in;
      job->out = malloc (strlen (dir) + strlen (base) + 2);
      if (!job->out)
        {
          job_fail (job, "%s: out of memory", job->in);
          return;
        }
      sprintf (job->out, "%s/%s", dir, base);
    }
  else if (!(job->out = strdup (out)))
    {
      job_fail (job, "%s: out of memory", job->in);
      return;
    }
  job->raw_out = io_format_for_name (job->out, &job->out_format);
  if (!job->raw_out && !files_writes (job->out))
    {
      job_fail (job, "%s: unknown output format: name it %s", job->out, writable_names ());
      return;
    }
  if (same_file (job->in, job->out))
    {
      job_fail (job, "%s: the output would replace its input", job->in);
      return;
    }
  for (int i = 0; i < index; i++)
    if (jobs[i].out && strcmp (jobs[i].out, job->out) == 0)
      {
        job_fail (job, "%s: %s is already the output of %s", job->in, job->out, jobs[i].in);
        return;
      }
}

int
main (int argc, char **argv)
{
  enum { OPT_MATRIX = 256, OPT_DIVISOR, OPT_OFFSET, OPT_NORMALIZE, OPT_BORDER,
         OPT_METHOD, OPT_PERCEPTUAL, OPT_CHANNELS, OPT_NO_CLAMP, OPT_NO_WEIGHT,
         OPT_KEEP_ALPHA, OPT_VERBOSE, OPT_HELP, OPT_VERSION, OPT_PRESET, OPT_LIST_PRESETS };
  static const struct option longopts[] = {
    { "output-dir",         required_argument, NULL, 'o' },
    { "preset",             required_argument, NULL, OPT_PRESET },
    { "list-presets",       no_argument,       NULL, OPT_LIST_PRESETS },
    { "matrix",             required_argument, NULL, OPT_MATRIX },
    { "divisor",            required_argument, NULL, OPT_DIVISOR },
    { "offset",             required_argument, NULL, OPT_OFFSET },
    { "normalize",          no_argument,       NULL, OPT_NORMALIZE },
    { "border",             required_argument, NULL, OPT_BORDER },
    { "method",             required_argument, NULL, OPT_METHOD },
    { "perceptual",         no_argument,       NULL, OPT_PERCEPTUAL },
    { "channels",           required_argument, NULL, OPT_CHANNELS },
    { "no-clamp",           no_argument,       NULL, OPT_NO_CLAMP },
    { "no-alpha-weighting", no_argument,       NULL, OPT_NO_WEIGHT },
    { "keep-alpha",         no_argument,       NULL, OPT_KEEP_ALPHA },
    { "verbose",            no_argument,       NULL, OPT_VERBOSE },
    { "help",               no_argument,       NULL, OPT_HELP },
    { "version",            no_argument,       NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 }
  };
  Settings s = { .convolve = { true, true, true, true } };
  const char *matrix = NULL, *preset = NULL, *dir = NULL;
  double divisor = 1.0, offset = 0.0;
  bool normalize = false, divisor_given = false, offset_given = false, need_files = false;
  double *values = NULL;
  char error[1024];
  struct sigaction action;
  Job *jobs;
  int opt, n_jobs, status;

  cc_options_init (&s.options);
  opterr = 0;
  while ((opt = getopt_long (argc, argv, "o:", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'o':            dir = optarg; break;
      case OPT_PRESET:     preset = optarg; break;
      case OPT_LIST_PRESETS:
        return list_presets ();
      case OPT_MATRIX:     matrix = optarg; break;
      case OPT_NORMALIZE:  normalize = true; break;
      case OPT_NO_CLAMP:   s.options.clamp = false; break;
      case OPT_NO_WEIGHT:  s.options.alpha_weighting = false; break;
      case OPT_KEEP_ALPHA: s.convolve[3] = false; break;
      case OPT_PERCEPTUAL: s.perceptual = true; break;
      case OPT_CHANNELS:
        if (!parse_channels (optarg, s.convolve))
          return die (2, "--channels: '%s' is not a subset of rgba (each letter once)",
                      optarg);
        break;
      case OPT_VERBOSE:    s.verbose = true; break;
      case OPT_DIVISOR:
        if (!parse_number (optarg, &divisor) || divisor == 0.0)
          return die (2, "--divisor: '%s' is not a non-zero number", optarg);
        divisor_given = true;
        break;
      case OPT_OFFSET:
        if (!parse_number (optarg, &offset))
          return die (2, "--offset: '%s' is not a number", optarg);
        offset_given = true;
        break;
      case OPT_BORDER:
        if (!cc_border_from_name (optarg, &s.options.border))
          return die (2, "--border: '%s' is not one of %s (or none, clamp, loop)", optarg,
                      cc_border_names ());
        break;
      case OPT_METHOD:
        if (!cc_method_from_name (optarg, &s.options.method))
          return die (2, "--method: '%s' is not one of %s", optarg, cc_method_names ());
        break;
      case OPT_HELP:
        fputs (usage, stdout);
        {
          const char *formats = files_init (error, sizeof error) ? files_formats () : "";

          printf ("\nFormats: %s%sPFM, PGM/PPM/PNM and PAM.\n", formats, formats[0] ? ", " : "");
        }
        fputs ("\nMethods:\n", stdout);
        for (int m = 0; m < CC_METHOD_COUNT; m++)
          printf ("  %-10s %s\n", cc_methods[m].name, cc_methods[m].summary);
        files_exit ();
        return 0;
      case OPT_VERSION:
        puts (PACKAGE_STRING);
        return 0;
      case '?':
      default:
        return die (2, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
      }
  n_jobs = argc - optind;
  if (dir ? n_jobs < 1 : n_jobs != 2)
    return die (2, dir ? "expected at least one input file (see --help)"
                       : "expected IN and OUT file names, or IN... -o DIR (see --help)");
  if (dir && !is_directory (dir) && mkdir (dir, 0777) != 0)
    return die (2, "-o %s: %s", dir, strerror (errno));
  if (preset && (matrix || divisor_given || offset_given || normalize))
    return die (2, "--preset supplies the mask, divisor and offset: leave out --matrix, "
                "--divisor, --offset and --normalize");
  if (preset)
    {
      if (!load_preset (preset, &s.mask, &values, error, sizeof error))
        return die (2, "--preset: %s", error);
    }
  else
    {
      char *text = matrix && (matrix[0] == '@' || strcmp (matrix, "-") == 0)
                   ? read_matrix_text (matrix, error, sizeof error) : NULL;
      bool parsed;

      if (matrix && !text && (matrix[0] == '@' || strcmp (matrix, "-") == 0))
        return die (2, "--matrix %s: %s", matrix, error);
      const CcMaskSource source = { text ? text : matrix ? matrix : "0,0,0;0,1,0;0,0,0",
                                    NULL, 0, 0, 0, divisor, offset, normalize };

      parsed = cc_mask_resolve (&source, &s.mask, &values, error, sizeof error);
      free (text);
      if (!parsed)
        return die (2, "%s: %s", matrix ? "--matrix" : "the mask", error);
    }

  if (!dir)
    n_jobs = 1;
  jobs = calloc ((size_t) n_jobs, sizeof *jobs);
  if (!jobs)
    {
      free (values);
      return die (1, "out of memory");
    }
  /* GEGL starts only where a file needs it. */
  for (int i = 0; i < n_jobs; i++)
    {
      jobs[i].in = argv[optind + i];
      jobs[i].raw_in = is_raw_file (jobs[i].in);
      need_files = need_files || !jobs[i].raw_in;
    }
  if (!dir)
    {
      IoFormat f;

      need_files = need_files || !io_format_for_name (argv[optind + 1], &f);
    }
  if (need_files && !files_init (error, sizeof error))
    {
      free (jobs);
      free (values);
      return die (1, "%s", error);
    }
  if (!dir)
    {
      IoFormat f;

      if (!io_format_for_name (argv[optind + 1], &f) && !files_writes (argv[optind + 1]))
        {
          free (jobs);
          free (values);
          return die (2, "%s: unknown output format: name it %s", argv[optind + 1],
                      writable_names ());
        }
    }

  memset (&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset (&action.sa_mask);
  sigaction (SIGINT, &action, NULL);
  sigaction (SIGTERM, &action, NULL);
  sigaction (SIGHUP, &action, NULL);

  s.batch = dir != NULL;
  s.ctx = cc_context_new ();
  if (!s.ctx)
    {
      free (jobs);
      free (values);
      cc_context_free (s.ctx);
      return die (1, "out of memory");
    }
  for (int i = 0; i < n_jobs; i++)
    plan_output (&jobs[i], jobs, i, dir, dir ? NULL : argv[optind + 1]);
  status = run_jobs (jobs, n_jobs, &s);
  for (int i = 0; i < n_jobs; i++)
    free (jobs[i].out);
  free (jobs);
  cc_context_free (s.ctx);
  if (need_files)
    files_exit ();
  free (values);
  return status;
}
