/* The procedures' settings as cuda:convolve's or cuda:deconvolve's
 * properties: the mask already resolved (a preset's, normalize applied),
 * so the operation gets the same numbers the procedure checked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>

#include "filter.h"

/* GIMP shows a GEGL enum property as a choice of its nicks, or as the enum. */
static void
set_enum (GObject *config, const gchar *property, const gchar *nick, gint value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (config), property);

  if (pspec && G_IS_PARAM_SPEC_ENUM (pspec))
    g_object_set (config, property, value, NULL);
  else if (pspec)
    g_object_set (config, property, nick, NULL);
}

void
filter_configure (GimpDrawableFilter *filter, const RenderSettings *s)
{
  GObject *config = G_OBJECT (gimp_drawable_filter_get_config (filter));
  const gboolean shaped = s->shape.shape != CC_SHAPE_MATRIX;
  /* A shape goes as itself, which the operation makes the same mask of,
   * rather than as a long text.  A layer's weights go as text: the
   * operation with an aux input cannot stay on a layer as an effect, and
   * the canvas preview and a kept effect do. */
  char *matrix = shaped ? NULL : cc_mask_format (s->width, s->height, s->matrix);

  if (shaped)
    g_object_set (config,
                  "radius", s->shape.radius,
                  "angle",  s->shape.angle,
                  "blades", s->shape.blades,
                  "inner",  s->shape.inner,
                  NULL);
  else
    g_object_set (config, "matrix", matrix, NULL);
  set_enum (config, "shape", cc_shape_name (s->shape.shape), s->shape.shape);
  set_enum (config, "preset", "none", 0);
  g_object_set (config,
                "divisor",         s->divisor,
                "offset",          s->offset,
                "normalize",       FALSE,
                "clamp",           s->clamp,
                "linear",          s->linear,
                "red",             s->red,
                "green",           s->green,
                "blue",            s->blue,
                NULL);
  if (s->deconvolve)
    {
      const CcDeconvolveParams *p = &s->deconvolution;

      set_enum (config, "algorithm", cc_deconvolve_algorithm_name (p->algorithm), p->algorithm);
      set_enum (config, "init", cc_deconvolve_start_name (p->start), p->start);
      g_object_set (config,
                    "iterations", p->iterations,
                    "tv-weight",  p->tv_weight,
                    "noise",      p->noise,
                    NULL);
    }
  else
    g_object_set (config,
                  "alpha-weighting", s->alpha_weighting,
                  "affect-alpha",    s->affect_alpha,
                  NULL);
  set_enum (config, "border", cc_border_name (s->border), s->border);
  set_enum (config, "method", cc_method_name (s->method), s->method);
  free (matrix);
  gimp_drawable_filter_update (filter);
}

const gchar *
filter_operation (const RenderSettings *s)
{
  return s->deconvolve ? "cuda:deconvolve" : "cuda:convolve";
}

GimpDrawableFilter *
filter_new (GimpDrawable *drawable, const RenderSettings *s, const gchar *report)
{
  GimpDrawableFilter *filter;

  /* GIMP answers an unknown operation with an error of its own, which
   * the caller's fallback replaces: keep it off the user's console. */
  gimp_plug_in_set_pdb_error_handler (gimp_get_plug_in (), GIMP_PDB_ERROR_HANDLER_PLUGIN);
  filter = gimp_drawable_filter_new (drawable, filter_operation (s), NULL);
  gimp_plug_in_set_pdb_error_handler (gimp_get_plug_in (), GIMP_PDB_ERROR_HANDLER_INTERNAL);
  if (filter)
    {
      g_object_set (gimp_drawable_filter_get_config (filter), "report", report, NULL);
      filter_configure (filter, s);
    }
  return filter;
}
