/* Reading and writing PFM, PGM/PPM and PAM images for cuda-convolve.
 *
 * Every size in a header is checked before anything is allocated: against
 * overflow, and against the bytes the file really has.  Binary rows are
 * then read where they lie, so a caller holds only the rows it asks for.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imageio.h"

#define MAX_SIDE INT32_MAX

struct _IoReader
{
  FILE          *f;
  char          *name;
  IoInfo         info;
  long long      avail;     /* bytes in the input, or -1 when unknown (a pipe) */
  int64_t        data_at;   /* where the first stored row starts */
  int            bytes;     /* a sample's bytes in the file */
  bool           ascii;
  bool           swap;      /* PFM floats in the other byte order */
  unsigned char *raw;       /* one stored row */
  void          *whole;     /* the decoded image, where rows cannot be sought */
};

struct _IoWriter
{
  FILE          *f;
  char          *name;
  IoInfo         info;      /* the rows' shape and type */
  IoFormat       format;
  int            maxval;
  int            bytes;     /* a sample's bytes in the file */
  int64_t        data_at;
  int64_t        written;   /* rows */
  unsigned char *buf;       /* one stored row */
  bool           failed;
};

static bool
fail (const char *name, char *error, size_t size, const char *format, ...)
{
  va_list args;
  int n = snprintf (error, size, "%s: ", name);

  va_start (args, format);
  if (n >= 0 && (size_t) n < size)
    vsnprintf (error + n, size - n, format, args);
  va_end (args);
  return false;
}

#define FAIL(r, ...) fail ((r)->name, error, size, __VA_ARGS__)

/* Skips white space and '#' comments (PNM rules). */
static int
skip_space (FILE *f)
{
  int c;

  while ((c = getc (f)) != EOF)
    {
      if (c == '#')
        while ((c = getc (f)) != EOF && c != '\n')
          ;
      else if (!isspace (c))
        break;
    }
  return c;
}

/* A decimal number of at most 10 digits. */
static bool
read_uint (IoReader *r, long long *value, const char *what, char *error, size_t size)
{
  int c = skip_space (r->f), digits = 0;
  long long v = 0;

  while (c != EOF && isdigit (c))
    {
      if (++digits > 10)
        return FAIL (r, "%s is too large", what);
      v = v * 10 + (c - '0');
      c = getc (r->f);
    }
  if (digits == 0)
    return FAIL (r, "bad or missing %s in the header", what);
  if (c != EOF)
    ungetc (c, r->f);
  *value = v;
  return true;
}

static bool
host_is_little_endian (void)
{
  const uint16_t one = 1;
  return *(const uint8_t *) &one == 1;
}

static void
swap32 (void *data, size_t count)
{
  uint32_t *p = data;

  for (size_t i = 0; i < count; i++)
    p[i] = (p[i] >> 24) | ((p[i] >> 8) & 0xff00) | ((p[i] << 8) & 0xff0000) | (p[i] << 24);
}

/* Big-endian 16-bit samples to the host's order, in place. */
static void
from_big16 (void *data, size_t count)
{
  uint8_t *b = data;
  uint16_t *p = data;

  for (size_t i = 0; i < count; i++)
    p[i] = (uint16_t) (b[2 * i] << 8 | b[2 * i + 1]);
}

static size_t
row_samples (const IoInfo *info)
{
  return (size_t) (info->width * info->channels);
}

/* Checks the size is sane and present, and sets the row buffer up. */
static bool
check_size (IoReader *r, long long w, long long h, int channels, CcType type, int bytes,
            char *error, size_t size)
{
  long long need;

  if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE)
    return FAIL (r, "image size %lldx%lld is out of range (1 to %d a side)", w, h, MAX_SIDE);
  if (w > INT64_MAX / h / channels / 8)
    return FAIL (r, "image size %lldx%lld is too large", w, h);
  need = w * h * channels * bytes;
  r->data_at = ftello (r->f);
  if (r->avail >= 0 && need > r->avail - r->data_at)   /* text: a byte a sample at least */
    return FAIL (r, "truncated: %lldx%lld needs %lld bytes of pixels, the file has %lld",
                 w, h, need, r->avail - r->data_at);
  if ((unsigned long long) w * channels * 4 > SIZE_MAX / 2)
    return FAIL (r, "image size %lldx%lld is too large for this machine", w, h);
  r->info.width = w;
  r->info.height = h;
  r->info.channels = channels;
  r->info.type = type;
  r->bytes = bytes;
  r->raw = malloc ((size_t) w * channels * 4);
  if (!r->raw)
    return FAIL (r, "out of memory for a row of %lld pixels", w);
  return true;
}

/* One stored row from the current position into 'out', converted. */
static bool
convert_row (IoReader *r, void *out, char *error, size_t size)
{
  const size_t n = row_samples (&r->info);
  const int maxval = r->info.maxval;

  if (r->ascii)
    {
      for (size_t i = 0; i < n; i++)
        {
          long long v;

          if (!read_uint (r, &v, "sample", error, size))
            return false;
          if (v > maxval)
            return FAIL (r, "sample value %lld is above maxval %d", v, maxval);
          if (r->info.type == CC_TYPE_U8)
            ((uint8_t *) out)[i] = (uint8_t) v;
          else if (r->info.type == CC_TYPE_U16)
            ((uint16_t *) out)[i] = (uint16_t) v;
          else
            ((float *) out)[i] = (float) v / maxval;
        }
      return true;
    }

  /* u8, u16 and PFM rows are read straight into place. */
  if (fread (r->info.type == CC_TYPE_FLOAT && r->info.format != IO_PFM ? r->raw : out,
             r->bytes, n, r->f) != n)
    return FAIL (r, "truncated: the pixel data ends early");
  if (r->info.format == IO_PFM)
    {
      if (r->swap)
        swap32 (out, n);
      for (size_t i = 0; i < n; i++)
        if (!isfinite (((float *) out)[i]))
          return FAIL (r, "pixel data holds a NaN or infinite value");
    }
  else if (r->info.type == CC_TYPE_U16)
    from_big16 (out, n);
  else if (r->info.type == CC_TYPE_FLOAT)
    for (size_t i = 0; i < n; i++)
      {
        int v = r->bytes == 1 ? r->raw[i] : (r->raw[2 * i] << 8 | r->raw[2 * i + 1]);

        if (v > maxval)
          return FAIL (r, "sample value %d is above maxval %d", v, maxval);
        ((float *) out)[i] = (float) v / maxval;
      }
  return true;
}

static bool
read_pfm (IoReader *r, int channels, char *error, size_t size)
{
  long long w, h;
  char scale_text[64];
  double scale;
  int c;

  if (!read_uint (r, &w, "width", error, size) || !read_uint (r, &h, "height", error, size))
    return false;
  if (fscanf (r->f, "%63s", scale_text) != 1)
    return FAIL (r, "missing scale in the PFM header");
  errno = 0;
  scale = strtod (scale_text, NULL);
  if (errno || !isfinite (scale) || scale == 0.0)
    return FAIL (r, "bad PFM scale '%s'", scale_text);
  c = getc (r->f);
  if (c == EOF || !isspace (c))
    return FAIL (r, "no white space after the PFM scale");
  r->info.format = IO_PFM;
  r->swap = (scale < 0) != host_is_little_endian ();
  return check_size (r, w, h, channels, CC_TYPE_FLOAT, 4, error, size);
}

static bool
set_maxval (IoReader *r, long long w, long long h, int channels, long long maxval,
            char *error, size_t size)
{
  if (maxval < 1 || maxval > 65535)
    return FAIL (r, "maxval %lld is out of range (1 to 65535)", maxval);
  r->info.maxval = (int) maxval;
  return check_size (r, w, h, channels,
                     maxval == 255 ? CC_TYPE_U8 : maxval == 65535 ? CC_TYPE_U16 : CC_TYPE_FLOAT,
                     r->ascii ? 1 : maxval < 256 ? 1 : 2, error, size);
}

static bool
read_pnm (IoReader *r, int channels, char *error, size_t size)
{
  long long w, h, maxval;
  int c;

  if (!read_uint (r, &w, "width", error, size) || !read_uint (r, &h, "height", error, size) ||
      !read_uint (r, &maxval, "maxval", error, size))
    return false;
  if (maxval < 1 || maxval > 65535)
    return FAIL (r, "maxval %lld is out of range (1 to 65535)", maxval);
  c = getc (r->f);
  if (c == EOF || !isspace (c))
    return FAIL (r, "no white space after maxval");
  r->info.format = IO_PNM;
  return set_maxval (r, w, h, channels, maxval, error, size);
}

static bool
read_pam (IoReader *r, char *error, size_t size)
{
  long long w = -1, h = -1, depth = -1, maxval = -1;
  char line[256], tupltype[64] = "";

  for (;;)
    {
      char key[32], *end;
      long long v;
      int n;

      if (!fgets (line, sizeof line, r->f))
        return FAIL (r, "PAM header ends before ENDHDR");
      if (!strchr (line, '\n'))
        return FAIL (r, "PAM header line too long");
      if (line[0] == '#' || line[strspn (line, " \t\r\n")] == '\0')
        continue;
      if (sscanf (line, "%31s%n", key, &n) != 1)
        return FAIL (r, "bad PAM header line");
      if (strcmp (key, "ENDHDR") == 0)
        break;
      if (strcmp (key, "TUPLTYPE") == 0)
        {
          if (sscanf (line + n, "%63s", tupltype) != 1)
            return FAIL (r, "empty TUPLTYPE");
          continue;
        }
      errno = 0;
      v = strtoll (line + n, &end, 10);
      if (end == line + n || errno || v < 0 || v > MAX_SIDE ||
          end[strspn (end, " \t\r\n")] != '\0')
        return FAIL (r, "PAM header: %s needs a number from 0 to %d", key, MAX_SIDE);
      if (strcmp (key, "WIDTH") == 0)
        w = v;
      else if (strcmp (key, "HEIGHT") == 0)
        h = v;
      else if (strcmp (key, "DEPTH") == 0)
        depth = v;
      else if (strcmp (key, "MAXVAL") == 0)
        maxval = v;
      else
        return FAIL (r, "unknown PAM header field '%s'", key);
    }
  if (w < 0 || h < 0 || depth < 0 || maxval < 0)
    return FAIL (r, "PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL");
  if (depth < 1 || depth > 4)
    return FAIL (r, "PAM depth %lld: 1 to 4 channels are supported", depth);
  r->info.format = IO_PAM;
  r->info.alpha = strstr (tupltype, "_ALPHA") != NULL ||
                  (tupltype[0] == '\0' && (depth == 2 || depth == 4));
  return set_maxval (r, w, h, (int) depth, maxval, error, size);
}

static size_t
row_bytes (const IoInfo *info)
{
  return row_samples (info) * cc_type_size (info->type);
}

/* Text, or a stream that cannot seek: every row now, in order. */
static bool
decode_whole (IoReader *r, char *error, size_t size)
{
  const size_t row = row_bytes (&r->info);

  if ((unsigned long long) r->info.height > SIZE_MAX / row ||
      !(r->whole = malloc (row * (size_t) r->info.height)))
    return FAIL (r, "out of memory for a %lldx%lld image", (long long) r->info.width,
                 (long long) r->info.height);
  for (int64_t k = 0; k < r->info.height; k++)
    {
      int64_t y = r->info.format == IO_PFM ? r->info.height - 1 - k : k;

      if (!convert_row (r, (char *) r->whole + y * row, error, size))
        return false;
    }
  return true;
}

static bool
parse (IoReader *r, char *error, size_t size)
{
  char magic[2];
  bool ok = false;

  if (fread (magic, 1, 2, r->f) != 2)
    return FAIL (r, "empty or unreadable file");
  r->ascii = magic[0] == 'P' && (magic[1] == '2' || magic[1] == '3');
  if (magic[0] == 'P')
    switch (magic[1])
      {
      case 'f': ok = read_pfm (r, 1, error, size); break;
      case 'F': ok = read_pfm (r, 3, error, size); break;
      case '2': case '5': ok = read_pnm (r, 1, error, size); break;
      case '3': case '6': ok = read_pnm (r, 3, error, size); break;
      case '7': ok = read_pam (r, error, size); break;
      default:  return FAIL (r, "not a PFM, PGM, PPM or PAM file");
      }
  else
    return FAIL (r, "not a PFM, PGM, PPM or PAM file");
  if (ok && (r->ascii || r->avail < 0))
    ok = decode_whole (r, error, size);
  return ok;
}

static bool
open_stream (FILE *f, const char *name, long long avail, IoReader **reader, IoInfo *info,
             char *error, size_t size)
{
  IoReader *r = calloc (1, sizeof *r);

  *reader = NULL;
  if (!r || !(r->name = strdup (name)))
    {
      free (r);
      fclose (f);
      return fail (name, error, size, "out of memory");
    }
  r->f = f;
  r->avail = avail;
  if (!parse (r, error, size))
    {
      io_reader_close (r);
      return false;
    }
  *info = r->info;
  *reader = r;
  return true;
}

bool
io_reader_open (const char *path, IoReader **reader, IoInfo *info, char *error, size_t size)
{
  struct stat st;
  FILE *f = fopen (path, "rb");

  *reader = NULL;
  if (!f)
    return fail (path, error, size, "%s", strerror (errno));
  return open_stream (f, path,
                      fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode) ? st.st_size : -1,
                      reader, info, error, size);
}

bool
io_reader_open_memory (const void *data, size_t length, IoReader **reader, IoInfo *info,
                       char *error, size_t size)
{
  FILE *f;

  *reader = NULL;
  if (length == 0)
    return fail ("input", error, size, "empty or unreadable file");
  if (!(f = fmemopen ((void *) data, length, "rb")))
    return fail ("input", error, size, "%s", strerror (errno));
  return open_stream (f, "input", (long long) length, reader, info, error, size);
}

bool
io_reader_rows (IoReader *r, int64_t y, int64_t n, void *dst, int64_t stride, char *error,
                size_t size)
{
  const size_t row = row_bytes (&r->info);
  const int64_t stored = (int64_t) row_samples (&r->info) * r->bytes;

  if (y < 0 || n < 0 || y + n > r->info.height)
    return FAIL (r, "rows %lld to %lld lie outside the image", (long long) y,
                 (long long) (y + n - 1));
  for (int64_t k = 0; k < n; k++)
    {
      int64_t at = y + k;
      char *out = (char *) dst + k * stride;

      if (r->whole)
        {
          memcpy (out, (const char *) r->whole + at * row, row);
          continue;
        }
      if (r->info.format == IO_PFM)   /* rows are stored bottom to top */
        at = r->info.height - 1 - at;
      if (fseeko (r->f, r->data_at + at * stored, SEEK_SET) != 0)
        return FAIL (r, "cannot seek: %s", strerror (errno));
      if (!convert_row (r, out, error, size))
        return false;
    }
  return true;
}

void
io_reader_close (IoReader *r)
{
  if (!r)
    return;
  if (r->f)
    fclose (r->f);
  free (r->whole);
  free (r->raw);
  free (r->name);
  free (r);
}

bool
io_format_for_name (const char *path, IoFormat *format)
{
  const char *dot = strrchr (path, '.');

  if (!dot || strchr (dot, '/'))
    return false;
  if (strcasecmp (dot, ".pfm") == 0)
    *format = IO_PFM;
  else if (strcasecmp (dot, ".pgm") == 0 || strcasecmp (dot, ".ppm") == 0 ||
           strcasecmp (dot, ".pnm") == 0)
    *format = IO_PNM;
  else if (strcasecmp (dot, ".pam") == 0)
    *format = IO_PAM;
  else
    return false;
  return true;
}

bool
io_format_sniff (const unsigned char *head, size_t length)
{
  return length >= 2 && head[0] == 'P' && head[1] && strchr ("fF23567", head[1]);
}

bool
io_format_holds (IoFormat format, const IoInfo *info, char *error, size_t size)
{
  const int C = info->channels;

  if (format != IO_PAM && (info->alpha || (C != 1 && C != 3)))
    {
      snprintf (error, size, "%s holds gray or RGB without alpha; write .pam for this "
                "%d-channel image", format == IO_PFM ? "PFM" : "PGM/PPM", C);
      return false;
    }
  return true;
}

bool
io_writer_open (const char *path, IoFormat format, const IoInfo *info, IoWriter **writer,
                char *error, size_t size)
{
  const int C = info->channels;
  IoWriter *w;
  int fd;

  *writer = NULL;
  if (!io_format_holds (format, info, error, size))
    return false;
  w = calloc (1, sizeof *w);
  if (!w || !(w->name = strdup (path)) ||
      !(w->buf = malloc (row_samples (info) * 4)))
    {
      if (w)
        free (w->name);
      free (w);
      return fail (path, error, size, "out of memory");
    }
  w->info = *info;
  w->format = format;
  w->maxval = format == IO_PFM ? 0 : info->maxval ? info->maxval : 65535;
  w->bytes = format == IO_PFM ? 4 : w->maxval < 256 ? 1 : 2;
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0 || !(w->f = fdopen (fd, "wb")))
    {
      fail (path, error, size, "%s", strerror (errno));
      if (fd >= 0)
        close (fd);
      free (w->buf);
      free (w->name);
      free (w);
      return false;
    }
  if (format == IO_PFM)
    fprintf (w->f, "P%c\n%lld %lld\n%s\n", C == 1 ? 'f' : 'F', (long long) info->width,
             (long long) info->height, host_is_little_endian () ? "-1.0" : "1.0");
  else if (format == IO_PNM)
    fprintf (w->f, "P%c\n%lld %lld\n%d\n", C == 1 ? '5' : '6', (long long) info->width,
             (long long) info->height, w->maxval);
  else
    fprintf (w->f, "P7\nWIDTH %lld\nHEIGHT %lld\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n",
             (long long) info->width, (long long) info->height, C, w->maxval,
             C >= 3 ? (info->alpha ? "RGB_ALPHA" : "RGB")
                    : (info->alpha ? "GRAYSCALE_ALPHA" : "GRAYSCALE"));
  w->data_at = ftello (w->f);
  *writer = w;
  return true;
}

/* Sample i of a row as a value in the 0..1 scale. */
static double
sample_at (CcType type, const void *row, size_t i)
{
  switch (type)
    {
    case CC_TYPE_U8:  return ((const uint8_t *) row)[i] / 255.0;
    case CC_TYPE_U16: return ((const uint16_t *) row)[i] / 65535.0;
    default:          return ((const float *) row)[i];
    }
}

bool
io_writer_rows (IoWriter *w, int64_t y, int64_t n, const void *src, int64_t stride,
                char *error, size_t size)
{
  const size_t count = row_samples (&w->info);
  const size_t len = count * w->bytes;

  if (y < 0 || n < 0 || y + n > w->info.height)
    return FAIL (w, "rows %lld to %lld lie outside the image", (long long) y,
                 (long long) (y + n - 1));
  for (int64_t k = 0; k < n && !w->failed; k++)
    {
      const char *row = (const char *) src + k * stride;
      int64_t at = w->format == IO_PFM ? w->info.height - 1 - (y + k) : y + k;

      for (size_t i = 0; i < count; i++)
        {
          double v = sample_at (w->info.type, row, i);

          if (w->format == IO_PFM)
            ((float *) w->buf)[i] = (float) v;
          else
            {
              long q = w->info.type == CC_TYPE_U8 && w->maxval == 255 ? ((const uint8_t *) row)[i]
                     : w->info.type == CC_TYPE_U16 && w->maxval == 65535
                       ? ((const uint16_t *) row)[i]
                       : lround (fmin (fmax (v, 0.0), 1.0) * w->maxval);

              if (w->bytes == 1)
                w->buf[i] = (unsigned char) q;
              else
                {
                  w->buf[2 * i] = (unsigned char) (q >> 8);
                  w->buf[2 * i + 1] = (unsigned char) q;
                }
            }
        }
      if (ftello (w->f) != w->data_at + at * (int64_t) len &&
          fseeko (w->f, w->data_at + at * (int64_t) len, SEEK_SET) != 0)
        w->failed = true;
      else if (fwrite (w->buf, 1, len, w->f) != len)
        w->failed = true;
      else
        w->written++;
    }
  if (w->failed)
    return FAIL (w, "write failed: %s", strerror (errno));
  return true;
}

bool
io_writer_close (IoWriter *w, char *error, size_t size)
{
  bool ok = !w->failed;

  if (ok && w->written != w->info.height)
    ok = FAIL (w, "only %lld of %lld rows were written", (long long) w->written,
               (long long) w->info.height);
  if (fclose (w->f) != 0 && ok)
    ok = FAIL (w, "write failed: %s", strerror (errno));
  free (w->buf);
  free (w->name);
  free (w);
  return ok;
}

bool
io_read_memory (const void *data, size_t length, IoImage *out, char *error, size_t size)
{
  IoReader *r;
  bool ok;

  memset (out, 0, sizeof *out);
  if (!io_reader_open_memory (data, length, &r, &out->info, error, size))
    return false;
  out->image.type = out->info.type;
  out->image.channels = out->info.channels;
  out->image.width = out->info.width;
  out->image.height = out->info.height;
  out->image.stride = (int64_t) row_bytes (&out->info);
  ok = (unsigned long long) out->info.height <= SIZE_MAX / (size_t) out->image.stride &&
       (out->image.data = malloc ((size_t) (out->image.stride * out->info.height)));
  if (!ok)
    fail ("input", error, size, "out of memory");
  else if (!io_reader_rows (r, 0, out->info.height, out->image.data, out->image.stride,
                            error, size))
    {
      io_free (out);
      ok = false;
    }
  io_reader_close (r);
  return ok;
}

void
io_free (IoImage *im)
{
  free (im->image.data);
  im->image.data = NULL;
}
