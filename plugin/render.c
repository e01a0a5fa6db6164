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

/* The pixels the output rectangle needs: the output and the mask's halo,
 * clipped to the drawable.  Wrap and mirror fold the far side of the
 * drawable in, so on an axis where the halo was clipped they take the whole
 * extent, and the engine's border rule then applies at the drawable's edge. */
static GeglRectangle
source_rect (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s)
{
  const gint rx = (s->width - 1) / 2, ry = (s->height - 1) / 2;
  const gint dw = gimp_drawable_get_width (drawable);
  const gint dh = gimp_drawable_get_height (drawable);
  const gboolean fold = s->border == CC_BORDER_WRAP || s->border == CC_BORDER_MIRROR;
  GeglRectangle r;
  gint x1 = out->x - rx, x2 = out->x + out->width + rx;
  gint y1 = out->y - ry, y2 = out->y + out->height + ry;

  if (fold && (x1 < 0 || x2 > dw))
    x1 = 0, x2 = dw;
  if (fold && (y1 < 0 || y2 > dh))
    y1 = 0, y2 = dh;
  r.x = MAX (x1, 0);
  r.y = MAX (y1, 0);
  r.width = MIN (x2, dw) - r.x;
  r.height = MIN (y2, dh) - r.y;
  return r;
}

struct _RenderSource
{
  CcImage       image;      /* the source rectangle's pixels */
  GeglRectangle rect;       /* where, in drawable coordinates */
  GeglRectangle out;        /* the output rectangle, inside it */
  gint          bpp;
  gboolean      alpha;
};

RenderSource *
render_read (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s,
             GError **error)
{
  const Babl *format = render_format (drawable, s->linear);
  RenderSource *src = g_new0 (RenderSource, 1);
  GeglBuffer *buffer;
  CcType type;

  src->rect = source_rect (drawable, out, s);
  src->out = *out;
  src->bpp = babl_format_get_bytes_per_pixel (format);
  src->alpha = babl_format_has_alpha (format);
  if (!engine_type (format, &type))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "unsupported pixel format %s",
                   babl_get_name (format));
      g_free (src);
      return NULL;
    }
  src->image = (CcImage) { NULL, type, babl_format_get_n_components (format),
                           src->rect.width, src->rect.height,
                           (gint64) src->rect.width * src->bpp, FALSE };
  src->image.data = g_try_malloc ((gsize) src->image.stride * src->rect.height);
  if (!src->image.data)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "out of memory for a %dx%d region",
                   src->rect.width, src->rect.height);
      g_free (src);
      return NULL;
    }
  buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, &src->rect, 1.0, format, src->image.data, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
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

  if (cc_convolve (ctx, &src->image, src->out.x - src->rect.x, src->out.y - src->rect.y,
                   &dst, &mask, &options, result) != CC_OK)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s", result->message);
      g_free (dst.data);
      return NULL;
    }
  return dst.data;
}

static void
report_progress (gdouble fraction, gpointer data)
{
  gimp_progress_update (fraction);
}

gboolean
render_drawable (GimpImage *image, GimpDrawable *drawable, const RenderSettings *s,
                 CcContext *ctx, CcResult *result, GError **error)
{
  GeglRectangle out;
  GeglBuffer *shadow;
  RenderSource *source;
  guchar *pixels;

  memset (result, 0, sizeof *result);
  if (!gimp_drawable_mask_intersect (drawable, &out.x, &out.y, &out.width, &out.height))
    return TRUE;   /* the selection misses this drawable: nothing to do */

  gimp_progress_init ("CUDA convolution");
  if (!(source = render_read (drawable, &out, s, error)))
    return FALSE;
  pixels = render_compute (source, s, ctx, report_progress, NULL, NULL, result, error);
  render_source_free (source);
  if (!pixels)
    return FALSE;

  shadow = gimp_drawable_get_shadow_buffer (drawable);
  gegl_buffer_set (shadow, &out, 0, render_format (drawable, s->linear), pixels,
                   GEGL_AUTO_ROWSTRIDE);
  g_object_unref (shadow);   /* flushes it */
  g_free (pixels);

  /* merge_shadow applies the result through the selection mask. */
  gimp_image_undo_group_start (image);
  gimp_drawable_merge_shadow (drawable, TRUE);
  gimp_image_undo_group_end (image);
  gimp_drawable_update (drawable, out.x, out.y, out.width, out.height);
  gimp_progress_update (1.0);
  return TRUE;
}
