/* Image files through GEGL and the format libraries: PNG, JPEG and WebP
 * decoded as GIMP decodes them (tools/decode.c), TIFF and OpenEXR through
 * GEGL's loaders, each file's colour as GIMP takes it (tools/colour.c),
 * every output through GEGL's savers.  A file becomes the layer GIMP would
 * make of it (its samples, format, profile space, Exif turn), handed to
 * the engine as the operation hands a layer, so that the tool's result is
 * the procedure's; premultiplied alpha and CMYK become straight RGB once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gegl.h>
#include <gegl-plugin.h>   /* gegl_operation_get_format: a loader's own format */
#include <webp/mux.h>

#include "colour.h"
#include "decode.h"
#include "engine-format.h"
#include "files.h"

typedef struct
{
  const char *name;
  const char *loader;   /* NULL: decoded here (tools/decode.c) */
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

/* Some format libraries print their errors to standard error themselves
 * (OpenEXR 3.4's core does): while GEGL reads a file, descriptor 2 goes to
 * a temporary file, one reader at a time, and what it held becomes the
 * file's error if the read fails, or goes back to standard error if not. */
typedef struct
{
  int saved;
  FILE *held;
} StderrHold;

static GMutex stderr_lock;

static void
stderr_hold (StderrHold *h)
{
  g_mutex_lock (&stderr_lock);
  fflush (stderr);
  h->saved = -1;
  h->held = tmpfile ();
  if (h->held && (h->saved = dup (STDERR_FILENO)) >= 0 &&
      dup2 (fileno (h->held), STDERR_FILENO) < 0)
    {
      close (h->saved);
      h->saved = -1;
    }
}

/* What the libraries printed (g_free it), or NULL; descriptor 2 is back. */
static char *
stderr_release (StderrHold *h)
{
  char *text = NULL;

  fflush (stderr);
  if (h->saved >= 0)
    {
      dup2 (h->saved, STDERR_FILENO);
      close (h->saved);
      if (fseek (h->held, 0, SEEK_END) == 0)
        {
          long n = ftell (h->held);

          if (n > 0 && (text = g_malloc0 ((size_t) n + 1)))
            {
              rewind (h->held);
              if (fread (text, 1, (size_t) n, h->held) != (size_t) n || !g_strstrip (text)[0])
                g_clear_pointer (&text, g_free);
            }
        }
    }
  if (h->held)
    fclose (h->held);
  g_mutex_unlock (&stderr_lock);
  return text;
}

/* Once for the process: the mask image (--mask-image) may start it before
 * the files do, and GLib takes its log writer only once. */
bool
files_init (char *error, size_t size)
{
  static bool started = false;

  if (!started)
    {
      started = true;
      g_log_set_writer_func (log_writer, NULL, NULL);
      g_set_printerr_handler (printerr);
      gegl_init (NULL, NULL);
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

/* The name of a format's model, alpha and gray kept, linear or not. */
static const char *
model_name (const Babl *format, bool linear)
{
  const bool alpha = babl_format_has_alpha (format);
  const bool gray = babl_format_get_n_components (format) - (alpha ? 1 : 0) == 1;

  if (gray)
    return linear ? (alpha ? "YA" : "Y") : (alpha ? "Y'A" : "Y'");
  return linear ? (alpha ? "RGBA" : "RGB") : (alpha ? "R'G'B'A" : "R'G'B'");
}

static const Babl *
format_of (const char *model, const Babl *type_of, const Babl *space)
{
  char name[64];

  snprintf (name, sizeof name, "%s %s", model,
            babl_get_name (babl_format_get_type (type_of, 0)));
  return babl_format_with_space (name, space);
}

/* What a GEGL loader's format holds, in the engine's models: straight alpha,
 * and CMYK and other models as perceptual RGB in sRGB. */
static const Babl *
straight (const Babl *own)
{
  static const char *const known[] = {
    "Y", "Y'", "YA", "Y'A", "RGB", "R'G'B'", "RGBA", "R'G'B'A"
  };
  const char *model = babl_get_name (babl_format_get_model (own));
  const bool linear = !strchr (model, '\'') && !strchr (model, '~');
  CcType t;

  for (size_t i = 0; i < G_N_ELEMENTS (known); i++)
    if (strcmp (model, known[i]) == 0)
      return own;
  if (!cc_type_from_name (babl_get_name (babl_format_get_type (own, 0)), &t))
    own = babl_format ("R'G'B'A float");
  if (babl_space_is_cmyk (babl_format_get_space (own)) || strchr (model, 'C'))
    return format_of (babl_format_has_alpha (own) ? "R'G'B'A" : "R'G'B'", own, NULL);
  return format_of (model_name (own, linear), own, babl_format_get_space (own));
}

/* Reads the samples of a GEGL loader's output in 'format'. */
static bool
blit (GeglNode *load, const GeglRectangle *rect, FileImage *out, const char *path,
      char *memory, size_t size)
{
  if (!file_image_allocate (out, path, memory, size))
    return false;
  gegl_node_blit (load, 1.0, rect, out->format, out->image.data, (gint) out->image.stride,
                  GEGL_BLIT_DEFAULT);
  return true;
}

/* OpenEXR's layer: the stored values, linear, their alpha taken as straight
 * (GIMP takes it so, though OpenEXR's is premultiplied and GEGL's loader
 * says so), in the space of its chromaticities. */
static const Babl *
exr_layer_format (const char *path, const Babl *own, bool *tagged)
{
  double chrm[8];
  const Babl *space = decode_exr_chromaticities (path, chrm) ? colour_space_from_exr (chrm)
                                                              : NULL;

  *tagged = space != NULL;
  return format_of (model_name (own, true), own, space);
}

/* TIFF's layer: the loader's perceptual samples ('samples') in the space of
 * the file's own profile, as GIMP reads it (GEGL's loader gives its space
 * alone), linear where the profile's curves are (GIMP's rule); or in babl's
 * sRGB where GIMP leaves its built-in profile untagged: the same numbers. */
static const Babl *
tiff_layer_format (const char *path, const Babl *own, const Babl *samples, bool *tagged)
{
  const char *model = babl_get_name (babl_format_get_model (samples));
  const bool gray = babl_format_get_n_components (samples) -
                    babl_format_has_alpha (samples) == 1;
  const Babl *space = NULL;
  bool linear = false;
  void *icc = NULL;
  size_t n = 0;

  if (decode_tiff_icc (path, &icc, &n) && !strchr (model, 'C') &&
      !babl_space_is_cmyk (babl_format_get_space (own)))
    {
      linear = colour_icc_is_linear (icc, n);
      space = colour_space_from_icc (icc, n, gray, linear);
      *tagged = space != NULL;
    }
  g_free (icc);
  return format_of (model_name (samples, linear), samples,
                    babl_format_get_space (samples) == babl_format_get_space (own) ? space
                                                                                   : NULL);
}

/* The library's own words say more than GEGL's "failed to load": what it
 * printed, on one line, without the path it may start with. */
static const char *
library_words (char *printed, const char *path)
{
  const size_t n = strlen (path);
  const char *why = g_strdelimit (printed, "\n", ' ');

  if (strncmp (why, path, n) == 0 && strncmp (why + n, ": ", 2) == 0)
    why += n + 2;
  return why;
}

/* TIFF and OpenEXR through GEGL's loaders: the loader's samples, read in
 * its own format (TIFF's made straight RGB where it is not), described as
 * the layer GIMP makes of them. */
static bool
load_gegl (const char *path, int k, FileImage *out, char *error, size_t size)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *load = gegl_node_new_child (graph, "operation", kinds[k].loader, "path", path,
                                        NULL);
  GeglRectangle rect;
  const Babl *own = NULL;
  const char *why;
  char *printed;
  char memory[256] = "";
  bool ok = false;
  StderrHold hold;

  stderr_hold (&hold);
  capture_begin ();
  rect = gegl_node_get_bounding_box (load);
  if (rect.width > 0 && rect.height > 0)
    own = gegl_operation_get_format (gegl_node_get_gegl_operation (load), "output");
  if (own)
    {
      const Babl *samples = k == EXR ? own : straight (own);
      const Babl *layer = k == EXR ? exr_layer_format (path, own, &out->tagged)
                                   : tiff_layer_format (path, own, samples, &out->tagged);

      file_image_describe (out, samples, rect.width, rect.height);
      ok = blit (load, &rect, out, path, memory, sizeof memory);
      file_image_describe (out, layer, rect.width, rect.height);
    }
  why = capture_end ();
  g_object_unref (graph);
  printed = stderr_release (&hold);
  if (ok && !why)
    {
      if (printed)
        fprintf (stderr, "%s\n", printed);
      g_free (printed);
      return true;
    }
  files_image_free (out);
  if (printed)
    why = library_words (printed, path);
  if (memory[0])
    snprintf (error, size, "%s", memory);
  else
    snprintf (error, size, "%s: not a readable %s file%s%s", path, kinds[k].name,
              why ? ": " : "", why ? why : "");
  g_free (printed);
  return false;
}

/* Exif's orientation, as file-open applies it (GIMP's default policy for
 * files opened without asking): 2 and 4 mirror, 3 turns by 180 degrees, 6
 * and 8 by 90 clockwise and counter-clockwise, 5 and 7 mirror about the
 * diagonals.  Returns false where memory runs out. */
static bool
orient (FileImage *im, int orientation)
{
  const int64_t w = im->image.width, h = im->image.height;
  const bool turn = orientation >= 5;
  const int64_t ow = turn ? h : w, oh = turn ? w : h;
  const size_t bpp = (size_t) (im->image.stride / w);
  const int64_t stride = ow * (int64_t) bpp;
  char *to;

  if (orientation <= 1 || orientation > 8)
    return true;
  if (!(to = g_try_malloc ((gsize) (stride * oh))))
    return false;
  for (int64_t y = 0; y < oh; y++)
    for (int64_t x = 0; x < ow; x++)
      {
        int64_t sx, sy;

        switch (orientation)
          {
          case 2:  sx = w - 1 - x; sy = y;         break;
          case 3:  sx = w - 1 - x; sy = h - 1 - y; break;
          case 4:  sx = x;         sy = h - 1 - y; break;
          case 5:  sx = y;         sy = x;         break;
          case 6:  sx = y;         sy = h - 1 - x; break;
          case 7:  sx = w - 1 - y; sy = h - 1 - x; break;
          default: sx = w - 1 - y; sy = x;         break;
          }
        memcpy (to + y * stride + x * (int64_t) bpp,
                (const char *) im->image.data + sy * im->image.stride + sx * (int64_t) bpp,
                bpp);
      }
  g_free (im->image.data);
  im->image.data = to;
  im->image.width = ow;
  im->image.height = oh;
  im->image.stride = stride;
  return true;
}

bool
files_load (const char *path, FileImage *out, char *error, size_t size)
{
  unsigned char head[16];
  size_t n;
  FILE *f = fopen (path, "rb");
  int k, orientation;
  bool adobe_rgb, ok;

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
  ok = k == PNG ? decode_png (path, out, error, size)
     : k == JPEG ? decode_jpeg (path, out, error, size)
     : k == WEBP ? decode_webp (path, out, error, size)
     : load_gegl (path, k, out, error, size);
  if (!ok)
    return false;
  /* What GIMP does after its loader: an untagged RGB image whose metadata
   * names Adobe RGB is tagged so, and the image is turned upright. */
  if (!colour_metadata (path, &orientation, &adobe_rgb))
    {
      static gsize said;

      if (g_once_init_enter (&said))
        {
          fprintf (stderr, "cuda-convolve: gexiv2 (libgexiv2-0.16.so.4 or libgexiv2.so.2) "
                           "was not found: files are taken unturned, without their Exif "
                           "colour space\n");
          g_once_init_leave (&said, 1);
        }
    }
  if (adobe_rgb && !out->tagged && out->image.channels - out->alpha >= 3)
    {
      const Babl *adobe = colour_space_adobe_rgb ();

      if (adobe)
        {
          file_image_describe (out, format_of (babl_get_name (babl_format_get_model (out->format)),
                                               out->format, adobe),
                               out->image.width, out->image.height);
          out->tagged = true;
        }
    }
  if (!orient (out, orientation))
    {
      snprintf (error, size, "%s: out of memory turning a %lldx%lld image upright", path,
                (long long) out->image.width, (long long) out->image.height);
      files_image_free (out);
      return false;
    }
  return true;
}

/* ---- The engine's view of an image ----------------------------------------- */

static bool
convert (const FileImage *from, const Babl *to, FileImage *out, const char *what, char *error,
         size_t size)
{
  const Babl *own = from->format;
  const int64_t w = from->image.width, h = from->image.height;
  FileImage copy = *from;

  file_image_describe (&copy, to, w, h);
  if (!file_image_allocate (&copy, what, error, size))
    return false;
  for (int64_t y = 0; y < h; y++)
    babl_process (babl_fish (own, to), (const char *) from->image.data + y * from->image.stride,
                  (char *) copy.image.data + y * copy.image.stride, (long) w);
  *out = copy;
  return true;
}

bool
files_work (const FileImage *im, bool linear, bool clamp, FileImage *work,
            CcTransfer **transfer, char *error, size_t size)
{
  const Babl *own = im->format;
  const Babl *to = NULL;
  char why[256];

  *transfer = NULL;
  *work = *im;
  if (clamp && engine_format_coded (own))
    {
      /* Codes as they are, or through tables in linear light. */
      if (!linear)
        return true;
      if ((*transfer = engine_format_transfer_new (own, why, sizeof why)))
        return true;
    }
  to = engine_format_float (own, linear, false);
  return to == own || convert (im, to, work, "input", error, size);
}

bool
files_unwork (FileImage *result, const FileImage *own, char *error, size_t size)
{
  FileImage back;

  if (result->format == own->format)
    return true;
  if (!convert (result, own->format, &back, "output", error, size))
    return false;
  files_image_free (result);
  *result = back;
  result->tagged = own->tagged;
  return true;
}

/* Raw files hold linear float (PFM) or perceptual codes (PNM, PAM). */
bool
files_to_raw (FileImage *im, bool pfm, char *error, size_t size)
{
  const Babl *own = im->format;
  const char *type = !pfm && (im->image.type == CC_TYPE_U8 || im->image.type == CC_TYPE_U16)
                       ? cc_type_name (im->image.type) : "float";
  char name[64];
  FileImage raw;

  if (!own)
    return true;
  snprintf (name, sizeof name, "%s %s", model_name (own, pfm), type);
  if (babl_format_with_space (name, babl_format_get_space (own)) == own)
    return true;
  if (!convert (im, babl_format_with_space (name, babl_format_get_space (own)), &raw, "output",
                error, size))
    return false;
  files_image_free (im);
  *im = raw;
  return true;
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
files_mask_pixels (const FileImage *im, float **ya, char *error, size_t size)
{
  const Babl *own, *to;
  const int64_t w = im->image.width, h = im->image.height;
  float *out;

  babl_init ();
  own = im->format ? im->format : raw_format (im);
  to = babl_format_with_space ("YA float", babl_format_get_space (own));
  if (!(out = malloc (sizeof (float) * 2 * (size_t) (w * h))))
    {
      babl_exit ();
      snprintf (error, size, "out of memory for the mask image");
      return false;
    }
  for (int64_t y = 0; y < h; y++)
    babl_process (babl_fish (own, to), (const char *) im->image.data + y * im->image.stride,
                  out + 2 * y * w, (long) w);
  babl_exit ();
  *ya = out;
  return true;
}

/* The buffer a saver is given, so that the file holds the image's values in
 * its own encoding: OpenEXR's saver premultiplies, and GIMP reads the
 * stored values back as straight, so straight values are handed over as
 * premultiplied ones; TIFF's saver stores its space's perceptual values, so
 * linear light is handed over as the perceptual values of the same
 * primaries with linear curves: the same numbers, and a linear profile. */
static const Babl *
saved_format (int k, const FileImage *im, const Babl *format)
{
  const Babl *space = babl_format_get_space (format);
  const char *model = babl_get_name (babl_format_get_model (format));
  const Babl *twin;

  if (k == EXR && im->alpha && strchr (model, '\'') == NULL)
    return format_of (im->image.channels == 2 ? "YaA" : "RaGaBaA", format, space);
  if (k == TIFF && im->linear && (twin = colour_space_linear (space)))
    return format_of (model_name (format, false), format, twin);
  return format;
}

/* WebP's saver writes no profile: the file gets the space's own, as GIMP
 * writes it, where the space is not sRGB. */
static const char *
add_webp_profile (const char *path, const Babl *space)
{
  gchar *data = NULL;
  gsize length = 0;
  WebPData whole, icc, assembled = { NULL, 0 };
  WebPMux *mux;
  int icc_length = 0;
  const char *bytes;
  const char *why = NULL;

  if (!space || space == babl_space ("sRGB") || !(bytes = babl_space_get_icc (space, &icc_length)))
    return NULL;
  if (!g_file_get_contents (path, &data, &length, NULL))
    return "cannot read the written file back";
  whole = (WebPData) { (const uint8_t *) data, length };
  icc = (WebPData) { (const uint8_t *) bytes, (size_t) icc_length };
  mux = WebPMuxCreate (&whole, 0);
  if (!mux || WebPMuxSetChunk (mux, "ICCP", &icc, 0) != WEBP_MUX_OK ||
      WebPMuxAssemble (mux, &assembled) != WEBP_MUX_OK ||
      !g_file_set_contents (path, (const gchar *) assembled.bytes, (gssize) assembled.size, NULL))
    why = "cannot add its colour profile";
  WebPDataClear (&assembled);
  if (mux)
    WebPMuxDelete (mux);
  g_free (data);
  return why;
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
  buffer = gegl_buffer_linear_new_from_data (im->image.data, saved_format (k, im, format), &rect,
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
  if (!why && k == WEBP)
    why = add_webp_profile (path, babl_format_get_space (format));
  if (why)
    {
      snprintf (error, size, "%s: cannot write %s: %s", name, kinds[k].name, why);
      return false;
    }
  return true;
}

void
files_image_free (FileImage *im)
{
  g_free (im->image.data);
  im->image.data = NULL;
}
