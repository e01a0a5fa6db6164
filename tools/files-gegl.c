/* Image files through GEGL (and libpng, libjpeg and libwebp for reading
 * PNG, JPEG and WebP: GEGL's PNG loader prints libpng's errors, its JPEG
 * loader ends the process on a damaged file, and its WebP loader takes a
 * truncated file without a word).
 *
 * Each file is read in its own pixel format, so that nothing is converted
 * on the way in or out: 8- and 16-bit perceptual codes reach the engine as
 * they are, with transfer tables for linear light; float and half samples
 * are taken as they are.  Formats the engine has no model for (premultiplied
 * alpha, CMYK) are converted to straight-alpha RGB once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <gegl.h>
#include <gegl-plugin.h>   /* gegl_operation_get_format: a loader's own format */
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>
#include <jerror.h>

#include "engine-format.h"
#include "files.h"

typedef struct
{
  const char *name;
  const char *loader;   /* NULL: read here with libpng or libjpeg */
  const char *saver;
  const char *extensions[3];
} Kind;

static const Kind kinds[] = {
  { "PNG",     NULL,             "gegl:png-save",  { ".png" } },
  { "JPEG",    NULL,             "gegl:jpg-save",  { ".jpg", ".jpeg" } },
  { "TIFF",    "gegl:tiff-load", "gegl:tiff-save", { ".tif", ".tiff" } },
  { "OpenEXR", "gegl:exr-load",  "gegl:exr-save",  { ".exr" } },
  { "WebP",    NULL,             "gegl:webp-save", { ".webp" } },
};
enum { PNG, JPEG, TIFF, EXR, WEBP, N_KINDS };

static bool have[N_KINDS];
static char names[64];

/* GEGL's loaders and savers report trouble with g_warning: on the thread
 * that reads or writes a file, the first such message is kept as that
 * file's error instead of printed. */
static GPrivate captured = G_PRIVATE_INIT (g_free);
static GPrivate capturing;

static GLogWriterOutput
log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  if (g_private_get (&capturing) && (level & (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL)))
    {
      /* An assertion inside GEGL means the loader met data it did not expect. */
      if (!g_private_get (&captured) && (level & G_LOG_LEVEL_CRITICAL))
        g_private_set (&captured, g_strdup ("the file is damaged or ends early"));
      if (!g_private_get (&captured))
        for (gsize i = 0; i < n_fields; i++)
          if (strcmp (fields[i].key, "MESSAGE") == 0)
            {
              gchar *text = fields[i].length < 0 ? g_strdup (fields[i].value)
                                                 : g_strndup (fields[i].value, fields[i].length);

              g_strstrip (g_strdelimit (text, "\n", ' '));
              g_private_set (&captured, text);
            }
      return G_LOG_WRITER_HANDLED;
    }
  return g_log_writer_default (level, fields, n_fields, data);
}

/* And some write straight to standard error with g_printerr. */
static void
printerr (const gchar *text)
{
  if (g_private_get (&capturing))
    {
      if (!g_private_get (&captured))
        g_private_set (&captured, g_strstrip (g_strdelimit (g_strdup (text), "\n", ' ')));
      return;
    }
  fputs (text, stderr);
}

static void
capture_begin (void)
{
  g_private_replace (&captured, NULL);
  g_private_set (&capturing, GINT_TO_POINTER (1));
}

/* The message kept since capture_begin, or NULL. */
static const char *
capture_end (void)
{
  g_private_set (&capturing, NULL);
  return g_private_get (&captured);
}

bool
files_init (char *error, size_t size)
{
  g_log_set_writer_func (log_writer, NULL, NULL);
  g_set_printerr_handler (printerr);
  gegl_init (NULL, NULL);
  names[0] = '\0';
  for (int k = 0; k < N_KINDS; k++)
    {
      have[k] = (!kinds[k].loader || gegl_has_operation (kinds[k].loader)) &&
                gegl_has_operation (kinds[k].saver);
      if (have[k])
        {
          if (names[0])
            g_strlcat (names, ", ", sizeof names);
          g_strlcat (names, kinds[k].name, sizeof names);
        }
    }
  if (!names[0])
    {
      snprintf (error, size, "GEGL has none of its PNG, JPEG, TIFF, OpenEXR or WebP operations");
      return false;
    }
  return true;
}

void
files_exit (void)
{
  gegl_exit ();
}

const char *
files_formats (void)
{
  return names;
}

static int
kind_for_name (const char *path)
{
  const char *dot = strrchr (path, '.');

  if (!dot || strchr (dot, '/'))
    return -1;
  for (int k = 0; k < N_KINDS; k++)
    for (int e = 0; e < 3 && kinds[k].extensions[e]; e++)
      if (strcasecmp (dot, kinds[k].extensions[e]) == 0)
        return k;
  return -1;
}

bool
files_writes (const char *path)
{
  int k = kind_for_name (path);

  return k >= 0 && have[k];
}

static int
kind_for_content (const unsigned char *h, size_t n)
{
  if (n >= 8 && memcmp (h, "\x89PNG\r\n\x1a\n", 8) == 0)
    return PNG;
  if (n >= 3 && memcmp (h, "\xff\xd8\xff", 3) == 0)
    return JPEG;
  if (n >= 4 && (memcmp (h, "II*\0", 4) == 0 || memcmp (h, "MM\0*", 4) == 0))
    return TIFF;
  if (n >= 4 && memcmp (h, "\x76\x2f\x31\x01", 4) == 0)
    return EXR;
  if (n >= 12 && memcmp (h, "RIFF", 4) == 0 && memcmp (h + 8, "WEBP", 4) == 0)
    return WEBP;
  return -1;
}

/* The format the engine works in for pixels of 'own'. */
static const Babl *
working_format (const Babl *own)
{
  static const char *const plain[] = {
    "Y", "Y'", "Y~", "YA", "Y'A", "Y~A", "RGB", "R'G'B'", "R~G~B~", "RGBA", "R'G'B'A", "R~G~B~A"
  };
  static const char *const premultiplied[][2] = {
    { "YaA", "YA" }, { "Y'aA", "Y'A" }, { "Y~aA", "Y~A" },
    { "RaGaBaA", "RGBA" }, { "R'aG'aB'aA", "R'G'B'A" }, { "R~aG~aB~aA", "R~G~B~A" }
  };
  const char *model = babl_get_name (babl_format_get_model (own));
  const char *type = babl_get_name (babl_format_get_type (own, 0));
  const Babl *space = babl_format_get_space (own);
  const char *use = NULL;
  CcType t;
  char name[64];

  for (size_t i = 0; i < G_N_ELEMENTS (plain) && !use; i++)
    if (strcmp (model, plain[i]) == 0)
      use = plain[i];
  for (size_t i = 0; i < G_N_ELEMENTS (premultiplied) && !use; i++)
    if (strcmp (model, premultiplied[i][0]) == 0)
      use = premultiplied[i][1];
  if (!use)   /* CMYK and the like: RGB in sRGB */
    {
      use = babl_format_has_alpha (own) ? "R'G'B'A" : "R'G'B'";
      space = NULL;
    }
  if (!cc_type_from_name (type, &t))
    type = "float";
  snprintf (name, sizeof name, "%s %s", use, type);
  return babl_format_with_space (name, space);
}

static void
describe (FileImage *im, const Babl *format, int64_t width, int64_t height)
{
  const char *model = babl_get_name (babl_format_get_model (format));
  CcType type = CC_TYPE_FLOAT;

  cc_type_from_name (babl_get_name (babl_format_get_type (format, 0)), &type);
  im->format = format;
  im->alpha = babl_format_has_alpha (format);
  im->coded = engine_format_coded (format);
  im->linear = !strchr (model, '\'') && !strchr (model, '~');
  im->maxval = type == CC_TYPE_U8 ? 255 : type == CC_TYPE_U16 ? 65535 : 0;
  im->image.type = type;
  im->image.channels = babl_format_get_n_components (format);
  im->image.width = width;
  im->image.height = height;
  im->image.stride = width * babl_format_get_bytes_per_pixel (format);
  im->image.on_device = false;
}

static bool
allocate (FileImage *im, const char *path, char *error, size_t size)
{
  im->image.data = g_try_malloc ((gsize) (im->image.stride * im->image.height));
  if (!im->image.data)
    snprintf (error, size, "%s: out of memory for a %lldx%lld image", path,
              (long long) im->image.width, (long long) im->image.height);
  return im->image.data != NULL;
}

static bool
load_gegl (const char *path, const Kind *kind, FileImage *out, char *error,
           size_t size)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *load = gegl_node_new_child (graph, "operation", kind->loader, "path", path, NULL);
  GeglRectangle rect;
  const Babl *own = NULL;
  const char *why;
  char memory[256] = "";

  capture_begin ();
  rect = gegl_node_get_bounding_box (load);
  if (rect.width > 0 && rect.height > 0)
    own = gegl_operation_get_format (gegl_node_get_gegl_operation (load), "output");
  if (own)
    {
      describe (out, working_format (own), rect.width, rect.height);
      out->half = strcmp (babl_get_name (babl_format_get_type (own, 0)), "half") == 0;
      if (allocate (out, path, memory, sizeof memory))
        gegl_node_blit (load, 1.0, &rect, out->format, out->image.data,
                        (gint) out->image.stride, GEGL_BLIT_DEFAULT);
    }
  why = capture_end ();
  g_object_unref (graph);
  if (out->image.data && !why)
    return true;
  files_image_free (out);
  if (memory[0])
    snprintf (error, size, "%s", memory);
  else
    snprintf (error, size, "%s: not a readable %s file%s%s", path, kind->name,
              why ? ": " : "", why ? why : "");
  return false;
}

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

static bool
load_jpeg (const char *path, FileImage *out, char *error, size_t size)
{
  struct jpeg_decompress_struct cinfo;
  JpegError jerr;
  FILE *f = fopen (path, "rb");
  JOCTET *icc = NULL;
  unsigned int icc_length = 0;
  const Babl *space = NULL;

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
      jpeg_destroy_decompress (&cinfo);
      free (icc);
      files_image_free (out);
      fclose (f);
      return false;
    }
  jpeg_stdio_src (&cinfo, f);
  jpeg_save_markers (&cinfo, JPEG_APP0 + 2, 0xffff);
  jpeg_read_header (&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK)
    {
      snprintf (jerr.message, sizeof jerr.message, "CMYK JPEG files are not supported");
      longjmp (jerr.back, 1);
    }
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  if (jpeg_read_icc_profile (&cinfo, &icc, &icc_length))
    {
      const char *why = NULL;

      space = babl_space_from_icc ((const char *) icc, (int) icc_length,
                                   BABL_ICC_INTENT_DEFAULT, &why);
      if (why)
        space = NULL;
    }
  jpeg_start_decompress (&cinfo);
  describe (out, babl_format_with_space (cinfo.output_components == 1 ? "Y' u8" : "R'G'B' u8",
                                         space),
            cinfo.output_width, cinfo.output_height);
  if (!allocate (out, path, error, size))
    {
      jpeg_destroy_decompress (&cinfo);
      free (icc);
      fclose (f);
      return false;
    }
  while (cinfo.output_scanline < cinfo.output_height)
    {
      JSAMPROW row = (JSAMPROW) out->image.data + cinfo.output_scanline * out->image.stride;

      jpeg_read_scanlines (&cinfo, &row, 1);
    }
  jpeg_finish_decompress (&cinfo);
  jpeg_destroy_decompress (&cinfo);
  free (icc);
  fclose (f);
  return true;
}

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

static bool
load_png (const char *path, FileImage *out, char *error, size_t size)
{
  PngError perr = { .message = "" };
  png_structp png = NULL;
  png_infop info = NULL;
  png_bytep *volatile rows = NULL;
  FILE *f = fopen (path, "rb");
  const Babl *space = NULL;
  png_bytep icc;
  png_charp icc_name;
  png_uint_32 icc_length;
  int compression, bits, colour;
  bool gray, alpha;
  char name[32];

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
  png_init_io (png, f);
  png_read_info (png, info);
  bits = png_get_bit_depth (png, info);
  colour = png_get_color_type (png, info);
  /* Palettes, low bit depths and tRNS become plain 8-bit samples. */
  png_set_expand (png);
  if (bits == 16)
    png_set_swap (png);
  png_read_update_info (png, info);
  bits = png_get_bit_depth (png, info);
  colour = png_get_color_type (png, info);
  gray = !(colour & PNG_COLOR_MASK_COLOR);
  alpha = (colour & PNG_COLOR_MASK_ALPHA) != 0;
  if (png_get_iCCP (png, info, &icc_name, &compression, &icc, &icc_length))
    {
      const char *why = NULL;

      space = babl_space_from_icc ((const char *) icc, (int) icc_length,
                                   BABL_ICC_INTENT_DEFAULT, &why);
      if (why)
        space = NULL;
    }
  snprintf (name, sizeof name, "%s %s", gray ? (alpha ? "Y'A" : "Y'") : (alpha ? "R'G'B'A" : "R'G'B'"),
            bits == 16 ? "u16" : "u8");
  describe (out, babl_format_with_space (name, space), png_get_image_width (png, info),
            png_get_image_height (png, info));
  if (!allocate (out, path, error, size))
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

static bool
load_webp (const char *path, FileImage *out, char *error, size_t size)
{
  gchar *data = NULL;
  gsize length = 0;
  GError *gerror = NULL;
  WebPBitstreamFeatures features;
  int width, height;
  uint8_t *pixels;

  if (!g_file_get_contents (path, &data, &length, &gerror))
    {
      snprintf (error, size, "%s: %s", path, gerror->message);
      g_error_free (gerror);
      return false;
    }
  if (WebPGetFeatures ((const uint8_t *) data, length, &features) != VP8_STATUS_OK)
    {
      g_free (data);
      snprintf (error, size, "%s: not a readable WebP file", path);
      return false;
    }
  pixels = features.has_alpha
    ? WebPDecodeRGBA ((const uint8_t *) data, length, &width, &height)
    : WebPDecodeRGB ((const uint8_t *) data, length, &width, &height);
  g_free (data);
  if (!pixels)
    {
      snprintf (error, size, "%s: not a readable WebP file: the data is damaged or ends early",
                path);
      return false;
    }
  describe (out, babl_format (features.has_alpha ? "R'G'B'A u8" : "R'G'B' u8"), width, height);
  if (allocate (out, path, error, size))
    memcpy (out->image.data, pixels, (size_t) (out->image.stride * height));
  WebPFree (pixels);
  return out->image.data != NULL;
}

/* Raw files hold linear float (PFM) or perceptual codes (PNM, PAM). */
bool
files_to_raw (FileImage *im, bool pfm, char *error, size_t size)
{
  const Babl *own = im->format;
  const bool gray = im->image.channels - (im->alpha ? 1 : 0) == 1;
  const char *model;
  const Babl *want;
  char name[64];
  void *data;

  if (!own)
    return true;
  if (pfm)
    model = gray ? (im->alpha ? "YA" : "Y") : (im->alpha ? "RGBA" : "RGB");
  else
    model = gray ? (im->alpha ? "Y'A" : "Y'") : (im->alpha ? "R'G'B'A" : "R'G'B'");
  snprintf (name, sizeof name, "%s %s", model,
            !pfm && (im->image.type == CC_TYPE_U8 || im->image.type == CC_TYPE_U16)
              ? cc_type_name (im->image.type) : "float");
  want = babl_format_with_space (name, babl_format_get_space (own));
  if (want == own)
    return true;
  data = im->image.data;
  describe (im, want, im->image.width, im->image.height);
  if (!allocate (im, "output", error, size))
    {
      g_free (data);
      return false;
    }
  babl_process (babl_fish (own, want), data, im->image.data,
                (long) (im->image.width * im->image.height));
  g_free (data);
  return true;
}

bool
files_load (const char *path, FileImage *out, char *error, size_t size)
{
  unsigned char head[16];
  size_t n;
  FILE *f = fopen (path, "rb");
  int k;

  memset (out, 0, sizeof *out);
  if (!f)
    {
      snprintf (error, size, "%s: %s", path, g_strerror (errno));
      return false;
    }
  n = fread (head, 1, sizeof head, f);
  fclose (f);
  k = kind_for_content (head, n);
  if (k < 0 || !have[k])
    {
      snprintf (error, size, "%s: not a file this build reads (%s, PFM, PGM/PPM or PAM)",
                path, names);
      return false;
    }
  if (k == PNG)
    return load_png (path, out, error, size);
  if (k == JPEG)
    return load_jpeg (path, out, error, size);
  if (k == WEBP)
    return load_webp (path, out, error, size);
  return load_gegl (path, &kinds[k], out, error, size);
}

/* The format of an image read from a raw file: sRGB; 8- and 16-bit samples
 * perceptual, PFM's float linear. */
static const Babl *
raw_format (const FileImage *im)
{
  const bool gray = im->image.channels - (im->alpha ? 1 : 0) == 1;
  const char *model = gray ? (im->linear ? (im->alpha ? "YA" : "Y") : (im->alpha ? "Y'A" : "Y'"))
                           : (im->linear ? (im->alpha ? "RGBA" : "RGB")
                                         : (im->alpha ? "R'G'B'A" : "R'G'B'"));
  char name[64];

  snprintf (name, sizeof name, "%s %s", model, cc_type_name (im->image.type));
  return babl_format (name);
}

bool
files_save (const char *path, const char *name, const FileImage *im, char *error, size_t size)
{
  const int k = kind_for_name (name);
  const Babl *format = im->format ? im->format : raw_format (im);
  const GeglRectangle rect = { 0, 0, (gint) im->image.width, (gint) im->image.height };
  GeglBuffer *buffer;
  GeglNode *graph, *source, *save;
  const char *why;
  struct stat st;

  if (k < 0 || !have[k])
    {
      snprintf (error, size, "%s: this build writes %s, PFM, PGM/PPM and PAM", name, names);
      return false;
    }
  if (k == EXR && im->half && im->image.type == CC_TYPE_FLOAT)
    {
      /* exr-save writes half for a buffer of 16-bit samples. */
      char half[64];

      snprintf (half, sizeof half, "%s half", babl_get_name (babl_format_get_model (format)));
      buffer = gegl_buffer_new (&rect, babl_format_with_space (half,
                                                               babl_format_get_space (format)));
      gegl_buffer_set (buffer, &rect, 0, format, im->image.data, (gint) im->image.stride);
    }
  else
    buffer = gegl_buffer_linear_new_from_data (im->image.data, format, &rect,
                                               (gint) im->image.stride, NULL, NULL);
  graph = gegl_node_new ();
  source = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", buffer,
                                NULL);
  save = gegl_node_new_child (graph, "operation", kinds[k].saver, "path", path, NULL);
  if (k == PNG)   /* GEGL writes 16 bits unless told */
    gegl_node_set (save, "bitdepth", im->image.type == CC_TYPE_U8 ? 8 : 16, NULL);
  else if (k == JPEG)
    gegl_node_set (save, "grayscale", im->image.channels - (im->alpha ? 1 : 0) == 1, NULL);
  gegl_node_link (source, save);
  capture_begin ();
  gegl_node_process (save);
  why = capture_end ();
  g_object_unref (graph);
  g_object_unref (buffer);
  if (!why && (stat (path, &st) != 0 || st.st_size == 0))
    why = "nothing was written";
  if (why)
    {
      snprintf (error, size, "%s: cannot write %s: %s", name, kinds[k].name, why);
      return false;
    }
  return true;
}

CcTransfer *
files_transfer_new (const FileImage *im, char *error, size_t size)
{
  if (size)
    error[0] = '\0';
  if (!im->coded)
    return NULL;
  if (!im->format)
    return cc_transfer_new_srgb (im->image.type);
  return engine_format_transfer_new (im->format, error, size);
}

void
files_image_free (FileImage *im)
{
  g_free (im->image.data);
  im->image.data = NULL;
}
