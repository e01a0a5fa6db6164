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

guchar *
render_rect (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s,
             CcContext *ctx, CcProgressFunc progress, CcResult *result, GError **error)
{
  const Babl *format = render_format (drawable, s->linear);
  const gint bpp = babl_format_get_bytes_per_pixel (format);
  const GeglRectangle src_rect = source_rect (drawable, out, s);
  GeglBuffer *buffer;
  guchar *src_data, *dst_data;
  CcImage src, dst;
  CcMask mask = { s->width, s->height, s->matrix, s->divisor, s->offset };
  CcOptions options;
  CcType type;

  if (!engine_type (format, &type))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "unsupported pixel format %s",
                   babl_get_name (format));
      return NULL;
    }
  src_data = g_try_malloc ((gsize) src_rect.width * src_rect.height * bpp);
  dst_data = g_try_malloc ((gsize) out->width * out->height * bpp);
  if (!src_data || !dst_data)
    {
      g_free (src_data);
      g_free (dst_data);
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "out of memory for a %dx%d region", src_rect.width, src_rect.height);
      return NULL;
    }

  buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, &src_rect, 1.0, format, src_data, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  g_object_unref (buffer);

  src = (CcImage) { src_data, type, babl_format_get_n_components (format),
                    src_rect.width, src_rect.height, (gint64) src_rect.width * bpp, FALSE };
  dst = src;
  dst.data = dst_data;
  dst.width = out->width;
  dst.height = out->height;
  dst.stride = (gint64) out->width * bpp;

  cc_options_init (&options);
  options.method = s->method;
  options.border = s->border;
  options.clamp = s->clamp;
  options.has_alpha = babl_format_has_alpha (format);
  options.alpha_weighting = s->alpha_weighting;
  options.affect_alpha = s->affect_alpha;
  options.progress = progress;

  if (cc_convolve (ctx, &src, out->x - src_rect.x, out->y - src_rect.y, &dst, &mask,
                   &options, result) != CC_OK)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s", result->message);
      g_free (dst_data);
      dst_data = NULL;
    }
  g_free (src_data);
  return dst_data;
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
  guchar *pixels;

  memset (result, 0, sizeof *result);
  if (!gimp_drawable_mask_intersect (drawable, &out.x, &out.y, &out.width, &out.height))
    return TRUE;   /* the selection misses this drawable: nothing to do */

  gimp_progress_init ("CUDA convolution");
  pixels = render_rect (drawable, &out, s, ctx, report_progress, result, error);
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
