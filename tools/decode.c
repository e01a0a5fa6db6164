/* PNG, JPEG and WebP decoded as GIMP 3's loaders decode them, and an
 * OpenEXR header's chromaticities.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/mux.h>

#include "colour.h"
#include "decode.h"

void
file_image_describe (FileImage *im, const Babl *format, int64_t width, int64_t height)
{
  const char *model = babl_get_name (babl_format_get_model (format));
  CcType type = CC_TYPE_FLOAT;

  cc_type_from_name (babl_get_name (babl_format_get_type (format, 0)), &type);
  im->format = format;
  im->alpha = babl_format_has_alpha (format);
  im->linear = !strchr (model, '\'') && !strchr (model, '~');
  im->coded = !im->linear && (type == CC_TYPE_U8 || type == CC_TYPE_U16);
  im->maxval = type == CC_TYPE_U8 ? 255 : type == CC_TYPE_U16 ? 65535 : 0;
  im->image.type = type;
  im->image.channels = babl_format_get_n_components (format);
  im->image.width = width;
  im->image.height = height;
  im->image.stride = width * babl_format_get_bytes_per_pixel (format);
  im->image.on_device = false;
}

bool
file_image_allocate (FileImage *im, const char *path, char *error, size_t size)
{
  im->image.data = g_try_malloc ((gsize) (im->image.stride * im->image.height));
  if (!im->image.data)
    snprintf (error, size, "%s: out of memory for a %lldx%lld image", path,
              (long long) im->image.width, (long long) im->image.height);
  return im->image.data != NULL;
}

/* A perceptual format of GIMP's layers, in 'space'. */
static const Babl *
perceptual (bool gray, bool alpha, const char *type, const Babl *space)
{
  char name[32];

  snprintf (name, sizeof name, "%s %s",
            gray ? (alpha ? "Y'A" : "Y'") : (alpha ? "R'G'B'A" : "R'G'B'"), type);
  return babl_format_with_space (name, space);
}

/* ---- JPEG ------------------------------------------------------------------ */

/* libjpeg's errors end in a jump back here, not in exit (). */
typedef struct
{
  struct jpeg_error_mgr  mgr;
  jmp_buf                back;
  char                   message[JMSG_LENGTH_MAX + 256];
} JpegError;

static void
jpeg_fail (j_common_ptr cinfo)
{
  JpegError *e = (JpegError *) cinfo->err;

  e->mgr.format_message (cinfo, e->message);
  longjmp (e->back, 1);
}

/* A file that ends early or is damaged decodes to grey: refused. */
static void
jpeg_warn (j_common_ptr cinfo, int level)
{
  JpegError *e = (JpegError *) cinfo->err;

  if (level < 0 && (e->mgr.msg_code == JWRN_JPEG_EOF || e->mgr.msg_code == JWRN_HIT_MARKER))
    jpeg_fail (cinfo);
}

/* What a decode holds, let go of on every way out of it. */
static void
jpeg_release (struct jpeg_decompress_struct *cinfo, JOCTET *icc, JSAMPLE *cmyk, FILE *f)
{
  jpeg_destroy_decompress (cinfo);
  free (icc);
  g_free (cmyk);
  fclose (f);
}

/* Describes out as the layer GIMP makes of the file: gray or RGB in its
 * profile's space, or untagged sRGB from CMYK, whose samples' format it
 * returns (else NULL).  Other colour spaces end in the jump back. */
static const Babl *
jpeg_layer_format (struct jpeg_decompress_struct *cinfo, JpegError *jerr, const JOCTET *icc,
                   unsigned int icc_length, FileImage *out)
{
  const Babl *from = NULL;

  if (cinfo->out_color_space == JCS_CMYK)
    {
      /* CMYK (Adobe's inverted ink values, as libjpeg gives them) through the
       * file's CMYK profile, or babl's naive CMYK, into untagged sRGB. */
      const Babl *space = icc ? babl_space_from_icc ((const char *) icc, (int) icc_length,
                                                     BABL_ICC_INTENT_RELATIVE_COLORIMETRIC,
                                                     NULL) : NULL;

      from = babl_format_with_space ("cmyk u8", space && babl_space_is_cmyk (space) ? space
                                                                                   : NULL);
      file_image_describe (out, perceptual (false, false, "u8", NULL), cinfo->output_width,
                           cinfo->output_height);
      out->tagged = false;
    }
  else if (cinfo->output_components == 1 || cinfo->output_components == 3)
    {
      const bool gray = cinfo->output_components == 1;
      const Babl *space = colour_space_from_icc (icc, icc_length, gray, false);

      file_image_describe (out, perceptual (gray, false, "u8", space), cinfo->output_width,
                           cinfo->output_height);
      out->tagged = space != NULL;
    }
  else
    {
      snprintf (jerr->message, sizeof jerr->message, "%d colour channels (colour space %d)",
                cinfo->output_components, cinfo->jpeg_color_space);
      longjmp (jerr->back, 1);
    }
  return from;
}

/* The scanlines into out's samples; CMYK ones ('from', not NULL) through
 * 'cmyk', a row's room, converted to out's format. */
static void
jpeg_read_rows (struct jpeg_decompress_struct *cinfo, const Babl *from, JSAMPLE *cmyk,
                FileImage *out)
{
  while (cinfo->output_scanline < cinfo->output_height)
    {
      JSAMPROW row = (JSAMPROW) out->image.data + cinfo->output_scanline * out->image.stride;

      if (from)
        {
          JSAMPROW ink = cmyk;

          jpeg_read_scanlines (cinfo, &ink, 1);
          babl_process (babl_fish (from, out->format), cmyk, row, cinfo->output_width);
        }
      else
        jpeg_read_scanlines (cinfo, &row, 1);
    }
}

bool
decode_jpeg (const char *path, FileImage *out, char *error, size_t size)
{
  struct jpeg_decompress_struct cinfo;
  JpegError jerr;
  FILE *f = fopen (path, "rb");
  JOCTET *icc = NULL;
  unsigned int icc_length = 0;
  JSAMPLE *volatile cmyk = NULL;
  const Babl *from;

  if (!f)
    {
      snprintf (error, size, "%s: %s", path, g_strerror (errno));
      return false;
    }
  cinfo.err = jpeg_std_error (&jerr.mgr);
  jerr.mgr.error_exit = jpeg_fail;
  jerr.mgr.emit_message = jpeg_warn;
  jpeg_create_decompress (&cinfo);
  if (setjmp (jerr.back))
    {
      snprintf (error, size, "%s: not a readable JPEG file: %s", path, jerr.message);
      files_image_free (out);
      jpeg_release (&cinfo, icc, cmyk, f);
      return false;
    }
  jpeg_stdio_src (&cinfo, f);
  jpeg_save_markers (&cinfo, JPEG_APP0 + 2, 0xffff);
  jpeg_read_header (&cinfo, TRUE);
  /* GIMP's settings: the floating-point DCT, libjpeg's defaults otherwise
   * (fancy upsampling; YCbCr to RGB, YCCK to CMYK). */
  cinfo.dct_method = JDCT_FLOAT;
  jpeg_read_icc_profile (&cinfo, &icc, &icc_length);
  jpeg_start_decompress (&cinfo);
  from = jpeg_layer_format (&cinfo, &jerr, icc, icc_length, out);
  if (!file_image_allocate (out, path, error, size))
    {
      jpeg_release (&cinfo, icc, cmyk, f);
      return false;
    }
  if (from)
    cmyk = g_malloc ((gsize) cinfo.output_width * 4);
  jpeg_read_rows (&cinfo, from, cmyk, out);
  jpeg_finish_decompress (&cinfo);
  jpeg_release (&cinfo, icc, cmyk, f);
  return true;
}

/* ---- PNG ------------------------------------------------------------------- */

/* libpng's errors, too, end in a jump back. */
typedef struct
{
  jmp_buf back;
  char    message[256];
} PngError;

static void
png_fail (png_structp png, png_const_charp message)
{
  PngError *e = png_get_error_ptr (png);

  snprintf (e->message, sizeof e->message, "%s", message);
  png_longjmp (png, 1);
}

static void
png_warn (png_structp png, png_const_charp message)
{
}

/* The space GIMP gives a PNG: its iCCP profile, else one made from gAMA and
 * cHRM where there is no sRGB chunk, else none. */
static const Babl *
png_space (png_structp png, png_infop info, bool gray, bool *tagged)
{
  png_bytep icc;
  png_charp name;
  png_uint_32 length;
  int compression;
  double gamma = 0, chrm[8];
  bool has_gamma, has_chrm;

  *tagged = false;
  if (png_get_iCCP (png, info, &name, &compression, &icc, &length))
    {
      const Babl *space = colour_space_from_icc (icc, length, gray, false);

      *tagged = space != NULL;
      return space;
    }
  if (png_get_valid (png, info, PNG_INFO_sRGB))
    return NULL;
  has_gamma = png_get_gAMA (png, info, &gamma) == PNG_INFO_gAMA;
  has_chrm = png_get_cHRM (png, info, &chrm[0], &chrm[1], &chrm[2], &chrm[3], &chrm[4],
                           &chrm[5], &chrm[6], &chrm[7]) == PNG_INFO_cHRM;
  if (!has_gamma && !has_chrm)
    return NULL;
  *tagged = true;
  return colour_space_from_png (gray, has_gamma ? gamma : 0, has_chrm ? chrm : NULL);
}

bool
decode_png (const char *path, FileImage *out, char *error, size_t size)
{
  PngError perr = { .message = "" };
  png_structp png = NULL;
  png_infop info = NULL;
  png_bytep *volatile rows = NULL;
  FILE *f = fopen (path, "rb");
  const Babl *space;
  int bits, colour;
  bool gray, alpha, tagged;

  if (!f)
    {
      snprintf (error, size, "%s: %s", path, g_strerror (errno));
      return false;
    }
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &perr, png_fail, png_warn);
  info = png ? png_create_info_struct (png) : NULL;
  if (!info || setjmp (png_jmpbuf (png)))
    {
      snprintf (error, size, "%s: not a readable PNG file: %s", path,
                perr.message[0] ? perr.message : "out of memory");
      png_destroy_read_struct (&png, &info, NULL);
      g_free (rows);
      files_image_free (out);
      fclose (f);
      return false;
    }
  png_set_option (png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
  png_init_io (png, f);
  png_read_info (png, info);
  /* Low bit depths, tRNS and palettes become plain 8-bit samples (GIMP makes
   * a palette an indexed image, which the procedure takes only as RGB). */
  png_set_expand (png);
  if (png_get_bit_depth (png, info) == 16)
    png_set_swap (png);
  png_read_update_info (png, info);
  bits = png_get_bit_depth (png, info);
  colour = png_get_color_type (png, info);
  gray = !(colour & PNG_COLOR_MASK_COLOR);
  alpha = (colour & PNG_COLOR_MASK_ALPHA) != 0;
  space = png_space (png, info, gray, &tagged);
  file_image_describe (out, perceptual (gray, alpha, bits == 16 ? "u16" : "u8", space),
                       png_get_image_width (png, info), png_get_image_height (png, info));
  out->tagged = tagged;
  if (!file_image_allocate (out, path, error, size))
    {
      png_destroy_read_struct (&png, &info, NULL);
      fclose (f);
      return false;
    }
  rows = g_new (png_bytep, out->image.height);
  for (int64_t y = 0; y < out->image.height; y++)
    rows[y] = (png_bytep) out->image.data + y * out->image.stride;
  png_read_image (png, rows);
  png_read_end (png, NULL);
  png_destroy_read_struct (&png, &info, NULL);
  g_free (rows);
  fclose (f);
  return true;
}

/* ---- WebP ------------------------------------------------------------------ */

bool
decode_webp (const char *path, FileImage *out, char *error, size_t size)
{
  gchar *data = NULL;
  gsize length = 0;
  GError *gerror = NULL;
  WebPData whole;
  WebPMux *mux;
  WebPData icc = { NULL, 0 };
  uint32_t flags = 0;
  const Babl *space = NULL;
  int width, height;
  uint8_t *pixels;

  if (!g_file_get_contents (path, &data, &length, &gerror))
    {
      snprintf (error, size, "%s: %s", path, gerror->message);
      g_error_free (gerror);
      return false;
    }
  whole = (WebPData) { (const uint8_t *) data, length };
  mux = WebPGetInfo (whole.bytes, whole.size, &width, &height) ? WebPMuxCreate (&whole, 0)
                                                                : NULL;
  if (!mux || WebPMuxGetFeatures (mux, &flags) != WEBP_MUX_OK || (flags & ANIMATION_FLAG))
    {
      snprintf (error, size, "%s: not a readable WebP file%s", path,
                mux ? " (animated WebP files are not supported)" : "");
      if (mux)
        WebPMuxDelete (mux);
      g_free (data);
      return false;
    }
  if ((flags & ICCP_FLAG) && WebPMuxGetChunk (mux, "ICCP", &icc) == WEBP_MUX_OK)
    space = colour_space_from_icc (icc.bytes, icc.size, false, false);
  WebPMuxDelete (mux);
  /* GIMP's layer is RGBA whether the file has alpha or not. */
  pixels = WebPDecodeRGBA (whole.bytes, whole.size, &width, &height);
  g_free (data);
  if (!pixels)
    {
      snprintf (error, size, "%s: not a readable WebP file: the data is damaged or ends early",
                path);
      return false;
    }
  file_image_describe (out, perceptual (false, true, "u8", space), width, height);
  out->tagged = space != NULL;
  if (file_image_allocate (out, path, error, size))
    memcpy (out->image.data, pixels, (size_t) (out->image.stride * height));
  WebPFree (pixels);
  return out->image.data != NULL;
}

/* ---- OpenEXR's header ---------------------------------------------------- */

/* The header is a list of attributes, each a name and a type (strings ending
 * in NUL), a little-endian 32-bit size and the value, ended by an empty
 * name.  A chromaticities value is eight floats, red, green, blue and white
 * x and y. */
bool
decode_exr_chromaticities (const char *path, double chrm[8])
{
  /* Headers are small; a preview image or long metadata may follow. */
  enum { MOST = 1 << 20 };
  FILE *f = fopen (path, "rb");
  gchar *data = g_malloc (MOST);
  gsize length = f ? fread (data, 1, MOST, f) : 0, at = 8;
  bool have_chrm = false, have_white = false;

  if (f)
    fclose (f);
  while (at < length && data[at])
    {
      const gchar *name = data + at, *type, *name_end, *type_end;
      guint32 n;

      if (!(name_end = memchr (name, 0, length - at)) ||
          (gsize) (name_end + 1 - data) >= length)
        break;
      type = name_end + 1;
      if (!(type_end = memchr (type, 0, length - (gsize) (type - data))) ||
          (gsize) (type_end - data) + 5 > length)
        break;
      memcpy (&n, type_end + 1, 4);
      n = GUINT32_FROM_LE (n);
      at = (gsize) (type_end - data) + 5;
      if (n > length - at)
        break;
      if (strcmp (name, "chromaticities") == 0 && strcmp (type, "chromaticities") == 0 &&
          n == 32)
        {
          static const int order[8] = { 6, 7, 0, 1, 2, 3, 4, 5 };   /* white first */

          for (int i = 0; i < 8; i++)
            {
              guint32 bits;
              float v;

              memcpy (&bits, data + at + 4 * order[i], 4);
              bits = GUINT32_FROM_LE (bits);
              memcpy (&v, &bits, 4);
              chrm[i] = v;
            }
          have_chrm = true;
        }
      else if (strcmp (name, "whiteLuminance") == 0 && strcmp (type, "float") == 0 && n == 4)
        have_white = true;
      at += n;
    }
  g_free (data);
  return have_chrm && have_white;
}

/* ---- A TIFF file's profile ----------------------------------------------- */

static guint64
tiff_uint (const guchar *p, int bytes, bool big)
{
  guint64 v = 0;

  for (int i = 0; i < bytes; i++)
    v |= (guint64) p[big ? bytes - 1 - i : i] << (8 * i);
  return v;
}

/* The first directory's entries (tag, type, count, value or offset), 12
 * bytes each in classic TIFF, 20 in BigTIFF; tag 34675 holds the profile. */
bool
decode_tiff_icc (const char *path, void **icc, size_t *length)
{
  FILE *f = fopen (path, "rb");
  guchar head[16], entry[20];
  bool big, wide, found = false;
  guint64 at, n, count;
  int entry_size, word, count_size;

  *icc = NULL;
  *length = 0;
  if (!f)
    return false;
  if (fread (head, 1, 16, f) != 16 || !(head[0] == head[1] && (head[0] == 'I' || head[0] == 'M')))
    goto done;
  big = head[0] == 'M';
  wide = tiff_uint (head + 2, 2, big) == 43;
  entry_size = wide ? 20 : 12;
  word = wide ? 8 : 4;
  count_size = wide ? 8 : 2;
  at = wide ? tiff_uint (head + 8, 8, big) : tiff_uint (head + 4, 4, big);
  if (fseeko (f, (off_t) at, SEEK_SET) != 0 ||
      fread (head, 1, (size_t) count_size, f) != (size_t) count_size)
    goto done;
  n = tiff_uint (head, count_size, big);
  for (guint64 i = 0; i < n && !found; i++)
    {
      if (fseeko (f, (off_t) (at + count_size + i * (guint64) entry_size), SEEK_SET) != 0 ||
          fread (entry, 1, (size_t) entry_size, f) != (size_t) entry_size)
        break;
      if (tiff_uint (entry, 2, big) != 34675)
        continue;
      count = tiff_uint (entry + 4, word, big);
      if (count == 0 || count > (64u << 20))
        break;
      *icc = g_malloc (count);
      if (count <= (guint64) word)
        memcpy (*icc, entry + 4 + word, count);
      else if (fseeko (f, (off_t) tiff_uint (entry + 4 + word, word, big), SEEK_SET) != 0 ||
               fread (*icc, 1, count, f) != count)
        {
          g_free (*icc);
          *icc = NULL;
          break;
        }
      *length = count;
      found = true;
    }
done:
  fclose (f);
  return found;
}
