/* The one way pixels flow: drawable -> buffer -> engine -> shadow buffer ->
 * merge.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "render.h"

const Babl *
render_format (GimpDrawable *drawable, gboolean linear)
{
  const Babl *own = gimp_drawable_get_format (drawable);
  const gchar *type = babl_get_name (babl_format_get_type (own, 0));
  gboolean alpha = babl_format_has_alpha (own);
  gboolean gray = babl_format_get_n_components (own) - (alpha ? 1 : 0) == 1;
  const gchar *model;
  gchar *name;
  const Babl *format;

  if (gray)
    model = linear ? (alpha ? "YA" : "Y") : (alpha ? "Y'A" : "Y'");
  else
    model = linear ? (alpha ? "RGBA" : "RGB") : (alpha ? "R'G'B'A" : "R'G'B'");
  name = g_strdup_printf ("%s %s", model, type);
  format = babl_format_with_space (name, babl_format_get_space (own));
  g_free (name);
  return format;
}

static gboolean
engine_type (const Babl *format, CcType *type)
{
  const gchar *name = babl_get_name (babl_format_get_type (format, 0));
  static const struct { const gchar *name; CcType type; } types[] = {
    { "u8", CC_TYPE_U8 }, { "u16", CC_TYPE_U16 }, { "u32", CC_TYPE_U32 },
    { "half", CC_TYPE_HALF }, { "float", CC_TYPE_FLOAT }, { "double", CC_TYPE_DOUBLE }
  };

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (name, types[i].name) == 0)
      {
        *type = types[i].type;
        return TRUE;
      }
  return FALSE;
}

/* The columns the output needs: the output and the mask's halo, clipped
 * to the drawable.  Wrap and mirror fold the far side in, so where the halo
 * was clipped they take the whole width, and the engine's border rule then
 * applies at the drawable's edge.  (Rows are gathered one by one instead,
 * render_read.) */
static void
source_columns (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s,
                gint *x, gint *width)
{
  const gint rx = (s->width - 1) / 2;
  const gint dw = gimp_drawable_get_width (drawable);
  gint x1 = out->x - rx, x2 = out->x + out->width + rx;

  if ((s->border == CC_BORDER_WRAP || s->border == CC_BORDER_MIRROR) && (x1 < 0 || x2 > dw))
    x1 = 0, x2 = dw;
  *x = MAX (x1, 0);
  *width = MIN (x2, dw) - *x;
}

struct _RenderSource
{
  CcImage       image;      /* the output's rows and its halo rows, border resolved */
  gint          out_x;      /* where the output starts in it */
  gint          out_y;
  GeglRectangle out;        /* the output rectangle, drawable coordinates */
  gint          bpp;
  gboolean      alpha;
};

/* Reads the rows the output needs: its own and ry above and below, each
 * mapped by the border rule at the drawable's top and bottom (a zero ghost
 * row is zeros), runs of consecutive rows in one read. */
RenderSource *
render_read (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s,
             GError **error)
{
  const Babl *format = render_format (drawable, s->linear);
  const gint ry = (s->height - 1) / 2;
  const gint dh = gimp_drawable_get_height (drawable);
  const gint rows = out->height + 2 * ry;
  RenderSource *src = g_new0 (RenderSource, 1);
  GeglBuffer *buffer;
  gint x, width;
  CcType type;

  source_columns (drawable, out, s, &x, &width);
  src->out = *out;
  src->out_x = out->x - x;
  src->out_y = ry;
  src->bpp = babl_format_get_bytes_per_pixel (format);
  src->alpha = babl_format_has_alpha (format);
  if (!engine_type (format, &type))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "unsupported pixel format %s",
                   babl_get_name (format));
      g_free (src);
      return NULL;
    }
  src->image = (CcImage) { NULL, type, babl_format_get_n_components (format), width, rows,
                           (gint64) width * src->bpp, FALSE };
  src->image.data = g_try_malloc0 ((gsize) src->image.stride * rows);
  if (!src->image.data)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "out of memory for a %dx%d region",
                   width, rows);
      g_free (src);
      return NULL;
    }

  buffer = gimp_drawable_get_buffer (drawable);
  for (gint r = 0; r < rows;)
    {
      const gint64 first = cc_border_map (out->y - ry + r, dh, s->border);
      gint n = 1;

      while (r + n < rows && first >= 0 &&
             cc_border_map (out->y - ry + r + n, dh, s->border) == first + n)
        n++;
      if (first >= 0)   /* zero ghost rows stay as allocated: zeros */
        gegl_buffer_get (buffer, GEGL_RECTANGLE (x, (gint) first, width, n), 1.0, format,
                         (guchar *) src->image.data + (gsize) r * src->image.stride,
                         src->image.stride, GEGL_ABYSS_NONE);
      r += n;
    }
  g_object_unref (buffer);
  return src;
}

void
render_source_free (RenderSource *src)
{
  if (src)
    g_free (src->image.data);
  g_free (src);
}

guchar *
render_compute (const RenderSource *src, const RenderSettings *s, CcContext *ctx,
                CcProgressFunc progress, CcCancelFunc cancel, gpointer user_data,
                CcResult *result, GError **error)
{
  CcImage dst = src->image;
  CcMask mask = { s->width, s->height, s->matrix, s->divisor, s->offset };
  CcOptions options;

  dst.width = src->out.width;
  dst.height = src->out.height;
  dst.stride = (gint64) src->out.width * src->bpp;
  dst.data = g_try_malloc ((gsize) dst.stride * dst.height);
  if (!dst.data)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "out of memory for a %dx%d region",
                   src->out.width, src->out.height);
      return NULL;
    }

  cc_options_init (&options);
  options.method = s->method;
  options.border = s->border;
  options.clamp = s->clamp;
  options.has_alpha = src->alpha;
  options.alpha_weighting = s->alpha_weighting;
  options.affect_alpha = s->affect_alpha;
  options.progress = progress;
  options.cancel = cancel;
  options.user_data = user_data;

  if (cc_convolve (ctx, &src->image, src->out_x, src->out_y, &dst, &mask, &options, result)
      != CC_OK)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s", result->message);
      g_free (dst.data);
      return NULL;
    }
  return dst.data;
}

/* Host memory a band may take (source and result), so that layers of any
 * size run in bounded memory; CUDA_CONVOLVE_HOST_BUDGET (bytes) sets it. */
static gsize
band_budget (void)
{
  const gchar *env = g_getenv ("CUDA_CONVOLVE_HOST_BUDGET");
  guint64 bytes = env ? g_ascii_strtoull (env, NULL, 10) : 0;

  return bytes > 0 ? bytes : 256 << 20;
}

typedef struct
{
  gdouble done;    /* fraction of the whole before this band */
  gdouble share;   /* this band's fraction of the whole */
} BandProgress;

static void
report_progress (gdouble fraction, gpointer data)
{
  const BandProgress *band = data;

  gimp_progress_update (band->done + fraction * band->share);
}

gboolean
render_drawable (GimpImage *image, GimpDrawable *drawable, const RenderSettings *s,
                 CcContext *ctx, CcResult *result, GError **error)
{
  const gint ry = (s->height - 1) / 2;
  GeglRectangle all, band;
  GeglBuffer *shadow;
  gint x, width, rows;
  gsize row_bytes;
  CcResult part;
  gboolean ok = TRUE;

  memset (result, 0, sizeof *result);
  if (!gimp_drawable_mask_intersect (drawable, &all.x, &all.y, &all.width, &all.height))
    return TRUE;   /* the selection misses this drawable: nothing to do */

  /* Bands of output rows, each read with its halo, so the plug-in's memory
   * stays bounded whatever the layer's size. */
  source_columns (drawable, &all, s, &x, &width);
  row_bytes = (gsize) (width + all.width) *
              babl_format_get_bytes_per_pixel (render_format (drawable, s->linear));
  rows = (gint) MAX ((gint64) (band_budget () / row_bytes) - 2 * ry, 1);

  gimp_progress_init ("CUDA convolution");
  shadow = gimp_drawable_get_shadow_buffer (drawable);
  band = all;
  for (gint y = all.y; y < all.y + all.height; y += rows)
    {
      BandProgress progress;
      RenderSource *source;
      guchar *pixels;

      band.y = y;
      band.height = MIN (rows, all.y + all.height - y);
      progress.done = (gdouble) (y - all.y) / all.height;
      progress.share = (gdouble) band.height / all.height;
      if (!(source = render_read (drawable, &band, s, error)))
        {
          ok = FALSE;
          break;
        }
      pixels = render_compute (source, s, ctx, report_progress, NULL, &progress, &part, error);
      render_source_free (source);
      if (!(ok = pixels != NULL))
        break;
      gegl_buffer_set (shadow, &band, 0, render_format (drawable, s->linear), pixels,
                       GEGL_AUTO_ROWSTRIDE);
      g_free (pixels);
      result->method_used = part.method_used;
      memcpy (result->device, part.device, sizeof result->device);
      result->total_ms += part.total_ms;
      result->strips += part.strips;
    }
  g_object_unref (shadow);   /* flushes it */
  if (!ok)
    return FALSE;   /* nothing merged: the drawable is as it was */

  /* One merge, through the selection mask, as one undo step. */
  gimp_image_undo_group_start (image);
  gimp_drawable_merge_shadow (drawable, TRUE);
  gimp_image_undo_group_end (image);
  gimp_drawable_update (drawable, all.x, all.y, all.width, all.height);
  gimp_progress_update (1.0);
  return TRUE;
}
