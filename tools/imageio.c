/* Reading and writing PFM, PGM/PPM and PAM images for cuda-convolve.
 *
 * Every size in a header is checked before anything is allocated: against
 * overflow, and against the bytes the file really has.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "imageio.h"

#define MAX_SIDE INT32_MAX

typedef struct
{
  FILE       *f;
  const char *name;
  long long   avail;   /* bytes in the input, or -1 when unknown (a pipe) */
  char       *error;
  size_t      size;
} Reader;

static bool
fail (Reader *r, const char *format, ...)
{
  va_list args;
  int n = snprintf (r->error, r->size, "%s: ", r->name);

  va_start (args, format);
  if (n >= 0 && (size_t) n < r->size)
    vsnprintf (r->error + n, r->size - n, format, args);
  va_end (args);
  return false;
}

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
read_uint (Reader *r, long long *value, const char *what)
{
  int c = skip_space (r->f), digits = 0;
  long long v = 0;

  while (c != EOF && isdigit (c))
    {
      if (++digits > 10)
        return fail (r, "%s is too large", what);
      v = v * 10 + (c - '0');
      c = getc (r->f);
    }
  if (digits == 0)
    return fail (r, "bad or missing %s in the header", what);
  if (c != EOF)
    ungetc (c, r->f);
  *value = v;
  return true;
}

/* Allocates the image once its size is known to be sane and present. */
static bool
alloc_image (Reader *r, IoImage *im, long long w, long long h, int channels,
             CcType type, long long file_bytes_per_sample)
{
  long long samples, need;

  if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE)
    return fail (r, "image size %lldx%lld is out of range (1 to %d a side)", w, h, MAX_SIDE);
  if (w > INT64_MAX / h / channels / 8)
    return fail (r, "image size %lldx%lld is too large", w, h);
  samples = w * h * channels;
  need = samples * file_bytes_per_sample;
  if (r->avail >= 0 && need > r->avail - ftell (r->f))
    return fail (r, "truncated: %lldx%lld needs %lld bytes of pixels, the file has %lld",
                 w, h, need, r->avail - ftell (r->f));
  if ((unsigned long long) samples * cc_type_size (type) > SIZE_MAX)
    return fail (r, "image size %lldx%lld is too large for this machine", w, h);

  memset (im, 0, sizeof *im);
  im->image.type = type;
  im->image.channels = channels;
  im->image.width = w;
  im->image.height = h;
  im->image.stride = w * channels * cc_type_size (type);
  im->image.data = malloc ((size_t) (samples * cc_type_size (type)));
  if (!im->image.data)
    return fail (r, "out of memory for a %lldx%lld image", w, h);
  return true;
}

static bool
read_exact (Reader *r, void *buf, size_t n, IoImage *im)
{
  if (fread (buf, 1, n, r->f) != n)
    {
      io_free (im);
      return fail (r, "truncated: the pixel data ends early");
    }
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

static bool
read_pfm (Reader *r, IoImage *im, int channels)
{
  long long w, h;
  char scale_text[64];
  double scale;
  size_t row;
  int c;

  if (!read_uint (r, &w, "width") || !read_uint (r, &h, "height"))
    return false;
  if (fscanf (r->f, "%63s", scale_text) != 1)
    return fail (r, "missing scale in the PFM header");
  errno = 0;
  scale = strtod (scale_text, NULL);
  if (errno || !isfinite (scale) || scale == 0.0)
    return fail (r, "bad PFM scale '%s'", scale_text);
  c = getc (r->f);
  if (c == EOF || !isspace (c))
    return fail (r, "no white space after the PFM scale");
  if (!alloc_image (r, im, w, h, channels, CC_TYPE_FLOAT, 4))
    return false;
  im->format = IO_PFM;

  /* Rows are stored bottom to top. */
  row = im->image.stride;
  for (long long y = h - 1; y >= 0; y--)
    if (!read_exact (r, (char *) im->image.data + y * row, row, im))
      return false;
  if ((scale < 0) != host_is_little_endian ())
    swap32 (im->image.data, (size_t) (w * h * channels));
  for (long long i = 0; i < w * h * channels; i++)
    if (!isfinite (((float *) im->image.data)[i]))
      {
        io_free (im);
        return fail (r, "pixel data holds a NaN or infinite value");
      }
  return true;
}

/* Binary samples of 1 or 2 bytes (big-endian) to the stored type. */
static bool
read_samples (Reader *r, IoImage *im, long long w, long long h, int channels, int maxval,
              bool ascii)
{
  const int bytes = maxval < 256 ? 1 : 2;
  CcType type = maxval == 255 ? CC_TYPE_U8 : maxval == 65535 ? CC_TYPE_U16 : CC_TYPE_FLOAT;
  size_t n_row;
  unsigned char *raw;

  if (!alloc_image (r, im, w, h, channels, type, ascii ? 1 : bytes))
    return false;
  n_row = (size_t) (w * channels);
  im->maxval = maxval;
  raw = malloc (n_row * bytes);
  if (!raw)
    {
      io_free (im);
      return fail (r, "out of memory");
    }
  for (long long y = 0; y < h; y++)
    {
      char *out = (char *) im->image.data + y * im->image.stride;

      for (size_t i = 0; i < n_row; i++)
        {
          long long v;

          if (ascii)
            {
              if (!read_uint (r, &v, "sample"))
                goto bad;
            }
          else
            {
              if (i == 0 && fread (raw, bytes, n_row, r->f) != n_row)
                {
                  fail (r, "truncated: the pixel data ends early");
                  goto bad;
                }
              v = bytes == 1 ? raw[i] : (raw[2 * i] << 8 | raw[2 * i + 1]);
            }
          if (v > maxval)
            {
              fail (r, "sample value %lld is above maxval %d", v, maxval);
              goto bad;
            }
          if (type == CC_TYPE_U8)
            ((uint8_t *) out)[i] = (uint8_t) v;
          else if (type == CC_TYPE_U16)
            ((uint16_t *) out)[i] = (uint16_t) v;
          else
            ((float *) out)[i] = (float) v / maxval;
        }
    }
  free (raw);
  return true;

bad:
  free (raw);
  io_free (im);
  return false;
}

static bool
read_pnm (Reader *r, IoImage *im, int channels, bool ascii)
{
  long long w, h, maxval;
  int c;

  if (!read_uint (r, &w, "width") || !read_uint (r, &h, "height") ||
      !read_uint (r, &maxval, "maxval"))
    return false;
  if (maxval < 1 || maxval > 65535)
    return fail (r, "maxval %lld is out of range (1 to 65535)", maxval);
  c = getc (r->f);
  if (c == EOF || !isspace (c))
    return fail (r, "no white space after maxval");
  if (!read_samples (r, im, w, h, channels, (int) maxval, ascii))
    return false;
  im->format = IO_PNM;
  return true;
}

static bool
read_pam (Reader *r, IoImage *im)
{
  long long w = -1, h = -1, depth = -1, maxval = -1;
  char line[256], tupltype[64] = "";

  for (;;)
    {
      char key[32], *end;
      long long v;
      int n;

      if (!fgets (line, sizeof line, r->f))
        return fail (r, "PAM header ends before ENDHDR");
      if (!strchr (line, '\n'))
        return fail (r, "PAM header line too long");
      if (line[0] == '#' || line[strspn (line, " \t\r\n")] == '\0')
        continue;
      if (sscanf (line, "%31s%n", key, &n) != 1)
        return fail (r, "bad PAM header line");
      if (strcmp (key, "ENDHDR") == 0)
        break;
      if (strcmp (key, "TUPLTYPE") == 0)
        {
          if (sscanf (line + n, "%63s", tupltype) != 1)
            return fail (r, "empty TUPLTYPE");
          continue;
        }
      errno = 0;
      v = strtoll (line + n, &end, 10);
      if (end == line + n || errno || v < 0 || v > MAX_SIDE ||
          end[strspn (end, " \t\r\n")] != '\0')
        return fail (r, "PAM header: %s needs a number from 0 to %d", key, MAX_SIDE);
      if (strcmp (key, "WIDTH") == 0)
        w = v;
      else if (strcmp (key, "HEIGHT") == 0)
        h = v;
      else if (strcmp (key, "DEPTH") == 0)
        depth = v;
      else if (strcmp (key, "MAXVAL") == 0)
        maxval = v;
      else
        return fail (r, "unknown PAM header field '%s'", key);
    }
  if (w < 0 || h < 0 || depth < 0 || maxval < 0)
    return fail (r, "PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL");
  if (depth < 1 || depth > 4)
    return fail (r, "PAM depth %lld: 1 to 4 channels are supported", depth);
  if (maxval < 1 || maxval > 65535)
    return fail (r, "maxval %lld is out of range (1 to 65535)", maxval);
  if (!read_samples (r, im, w, h, (int) depth, (int) maxval, false))
    return false;
  im->format = IO_PAM;
  im->alpha = strstr (tupltype, "_ALPHA") != NULL ||
              (tupltype[0] == '\0' && (depth == 2 || depth == 4));
  return true;
}

static bool
read_any (Reader *r, IoImage *out)
{
  char magic[2];

  if (fread (magic, 1, 2, r->f) != 2)
    return fail (r, "empty or unreadable file");
  if (magic[0] == 'P')
    switch (magic[1])
      {
      case 'f': return read_pfm (r, out, 1);
      case 'F': return read_pfm (r, out, 3);
      case '2': return read_pnm (r, out, 1, true);
      case '3': return read_pnm (r, out, 3, true);
      case '5': return read_pnm (r, out, 1, false);
      case '6': return read_pnm (r, out, 3, false);
      case '7': return read_pam (r, out);
      default:  break;
      }
  return fail (r, "not a PFM, PGM, PPM or PAM file");
}

bool
io_read (const char *path, IoImage *out, char *error, size_t size)
{
  Reader r = { NULL, path, -1, error, size };
  struct stat st;
  bool ok;

  memset (out, 0, sizeof *out);
  if (!(r.f = fopen (path, "rb")))
    return fail (&r, "%s", strerror (errno));
  if (fstat (fileno (r.f), &st) == 0 && S_ISREG (st.st_mode))
    r.avail = st.st_size;
  ok = read_any (&r, out);
  fclose (r.f);
  return ok;
}

bool
io_read_memory (const void *data, size_t length, IoImage *out, char *error, size_t size)
{
  Reader r = { NULL, "input", (long long) length, error, size };
  bool ok;

  memset (out, 0, sizeof *out);
  if (length == 0)
    return fail (&r, "empty or unreadable file");
  if (!(r.f = fmemopen ((void *) data, length, "rb")))
    return fail (&r, "%s", strerror (errno));
  ok = read_any (&r, out);
  fclose (r.f);
  return ok;
}

void
io_free (IoImage *im)
{
  free (im->image.data);
  im->image.data = NULL;
}

bool
io_format_for_name (const char *path, IoFormat *format)
{
  const char *dot = strrchr (path, '.');

  if (!dot)
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

/* Sample i of a row as a value in the 0..1 scale. */
static double
sample_at (const IoImage *im, const char *row, size_t i)
{
  switch (im->image.type)
    {
    case CC_TYPE_U8:  return ((const uint8_t *) row)[i] / 255.0;
    case CC_TYPE_U16: return ((const uint16_t *) row)[i] / 65535.0;
    default:          return ((const float *) row)[i];
    }
}

bool
io_write (const char *path, const IoImage *im, char *error, size_t size)
{
  Reader w = { NULL, path, -1, error, size };
  const CcImage *ci = &im->image;
  const int C = ci->channels;
  const size_t n_row = (size_t) (ci->width * C);
  IoFormat format;
  int maxval = im->maxval ? im->maxval : 65535;
  int bytes = maxval < 256 ? 1 : 2;
  unsigned char *buf;
  bool ok = true;

  if (!io_format_for_name (path, &format))
    return fail (&w, "unknown output format: name it .pfm, .pgm, .ppm, .pnm or .pam");
  if (format != IO_PAM && (im->alpha || (C != 1 && C != 3)))
    return fail (&w, "%s holds gray or RGB without alpha; write .pam for this %d-channel image",
                 format == IO_PFM ? "PFM" : "PGM/PPM", C);
  buf = malloc (n_row * 4);
  if (!buf)
    return fail (&w, "out of memory");
  if (!(w.f = fopen (path, "wb")))
    {
      free (buf);
      return fail (&w, "%s", strerror (errno));
    }

  if (format == IO_PFM)
    fprintf (w.f, "P%c\n%lld %lld\n%s\n", C == 1 ? 'f' : 'F', (long long) ci->width,
             (long long) ci->height, host_is_little_endian () ? "-1.0" : "1.0");
  else if (format == IO_PNM)
    fprintf (w.f, "P%c\n%lld %lld\n%d\n", C == 1 ? '5' : '6', (long long) ci->width,
             (long long) ci->height, maxval);
  else
    fprintf (w.f, "P7\nWIDTH %lld\nHEIGHT %lld\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n",
             (long long) ci->width, (long long) ci->height, C, maxval,
             C >= 3 ? (im->alpha ? "RGB_ALPHA" : "RGB")
                    : (im->alpha ? "GRAYSCALE_ALPHA" : "GRAYSCALE"));

  for (long long r = 0; r < ci->height && ok; r++)
    {
      long long y = format == IO_PFM ? ci->height - 1 - r : r;
      const char *row = (const char *) ci->data + y * ci->stride;
      size_t len;

      for (size_t i = 0; i < n_row; i++)
        {
          double v = sample_at (im, row, i);

          if (format == IO_PFM)
            ((float *) buf)[i] = (float) v;
          else
            {
              long q = lround (fmin (fmax (v, 0.0), 1.0) * maxval);
              if (bytes == 1)
                buf[i] = (unsigned char) q;
              else
                {
                  buf[2 * i] = (unsigned char) (q >> 8);
                  buf[2 * i + 1] = (unsigned char) q;
                }
            }
        }
      len = n_row * (format == IO_PFM ? 4 : bytes);
      ok = fwrite (buf, 1, len, w.f) == len;
    }
  free (buf);
  if (fclose (w.f) != 0 || !ok)
    return fail (&w, "write failed: %s", strerror (errno));
  return true;
}
