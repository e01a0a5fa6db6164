/* The procedure's arguments as render settings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "preset.h"
#include "settings.h"

gboolean
settings_resolve_mask (const CcMaskSource *source, RenderSettings *s, const gchar *what,
                       GError **error)
{
  CcMask m;
  double *resolved;
  char why[256];

  if (!cc_mask_resolve (source, &m, &resolved, why, sizeof why))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s%s", what, why);
      return FALSE;
    }
  s->matrix = g_memdup2 (resolved, sizeof (gdouble) * m.width * m.height);
  free (resolved);
  s->width = m.width;
  s->height = m.height;
  s->divisor = m.divisor;
  s->offset = m.offset;
  return TRUE;
}

/* A drawable as the mask: each pixel's luminance in linear light and its
 * alpha (babl's "YA float" in the drawable's own space), over its whole
 * extent. */
static gboolean
mask_of_drawable (GimpDrawable *drawable, RenderSettings *s, GError **error)
{
  const gint w = gimp_drawable_get_width (drawable), h = gimp_drawable_get_height (drawable);
  CcMaskSource source = { .image_width = w, .image_height = h };
  GeglBuffer *buffer;
  gfloat *ya;
  char why[256];
  gboolean ok;

  if (!cc_mask_image_size_check (w, h, why, sizeof why))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "mask-drawable: %s", why);
      return FALSE;
    }
  ya = g_new (gfloat, 2 * (gsize) w * h);
  buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, GEGL_RECTANGLE (0, 0, w, h), 1.0,
                   babl_format_with_space ("YA float", gimp_drawable_get_format (drawable)),
                   ya, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (buffer);
  source.image = ya;
  ok = settings_resolve_mask (&source, s, "mask-drawable: ", error);
  g_free (ya);
  s->shape.shape = CC_SHAPE_MATRIX;
  return ok;
}

/* The border, method and shape from their names; or FALSE and why. */
static gboolean
choices_from_names (const gchar *border, const gchar *method, const gchar *shape,
                    RenderSettings *s, GError **error)
{
  if (!cc_border_from_name (border, &s->border))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                 "border '%s' is not one of %s (or GEGL's none, clamp, loop)",
                 border ? border : "", cc_border_names ());
  else if (!cc_method_from_name (method, &s->method))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "method '%s' is not one of %s",
                 method ? method : "", cc_method_names ());
  else if (!cc_shape_from_name (shape, &s->shape.shape))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "shape '%s' is not one of %s",
                 shape ? shape : "", cc_shape_names ());
  else
    return TRUE;
  return FALSE;
}

/* Reads and checks the arguments both procedures have: the mask, border,
 * method, linear light and the channels; on failure 'error' says which and
 * why. */
static gboolean
shared_from_config (GimpProcedureConfig *config, RenderSettings *s, GError **error)
{
  gchar *preset_id = NULL, *border = NULL, *method = NULL, *shape = NULL;
  GimpArray *matrix = NULL;
  GimpDrawable *mask_drawable = NULL;
  gboolean normalize;
  gsize n = 0;
  const gdouble *values = NULL;
  gboolean ok = FALSE;

  memset (s, 0, sizeof *s);
  g_object_get (config,
                "preset",          &preset_id,
                "mask-width",      &s->width,
                "mask-height",     &s->height,
                "matrix",          &matrix,
                "divisor",         &s->divisor,
                "offset",          &s->offset,
                "normalize",       &normalize,
                "border",          &border,
                "method",          &method,
                "linear",          &s->linear,
                "red",             &s->red,
                "green",           &s->green,
                "blue",            &s->blue,
                "shape",           &shape,
                "radius",          &s->shape.radius,
                "angle",           &s->shape.angle,
                "blades",          &s->shape.blades,
                "inner",           &s->shape.inner,
                "mask-drawable",   &mask_drawable,
                NULL);
  if (matrix)
    values = gimp_double_array_get_values (matrix, &n);

  if (!choices_from_names (border, method, shape, s, error))
    goto out;
  if (mask_drawable)
    {
      if (!mask_of_drawable (mask_drawable, s, error))
        goto out;
    }
  else
    {
      const CcMaskSource source = {
        .values = values, .n_values = n, .width = s->width, .height = s->height,
        .divisor = s->divisor, .offset = s->offset, .normalize = normalize, .shape = s->shape,
        .preset = preset_id, .find_preset = cc_preset_find_mask };

      if (!settings_resolve_mask (&source, s, "", error))
        goto out;
    }
  ok = TRUE;

out:
  if (!ok)
    g_clear_pointer (&s->matrix, g_free);
  g_clear_pointer (&matrix, gimp_array_free);
  g_clear_object (&mask_drawable);
  g_free (preset_id);
  g_free (border);
  g_free (method);
  g_free (shape);
  return ok;
}


gboolean
settings_from_config (GimpProcedureConfig *config, RenderSettings *s, GError **error)
{
  if (!shared_from_config (config, s, error))
    return FALSE;
  g_object_get (config,
                "clamp",           &s->clamp,
                "alpha-weighting", &s->alpha_weighting,
                "affect-alpha",    &s->affect_alpha,
                NULL);
  return TRUE;
}

gboolean
settings_deconvolve_from_config (GimpProcedureConfig *config, RenderSettings *s,
                                 GError **error)
{
  CcDeconvolveParams *p = &s->deconvolution;
  gchar *algorithm = NULL, *init = NULL;
  CcMask mask;
  char why[512];
  gboolean ok = FALSE;

  if (!shared_from_config (config, s, error))
    return FALSE;
  /* Clamped, alpha kept: as the tool's --deconvolve and cuda:deconvolve
   * by default. */
  s->deconvolve = TRUE;
  s->clamp = TRUE;
  cc_deconvolve_params_init (p);
  g_object_get (config,
                "algorithm",  &algorithm,
                "iterations", &p->iterations,
                "init",       &init,
                "tv-weight",  &p->tv_weight,
                "noise",      &p->noise,
                NULL);
  mask = (CcMask) { s->width, s->height, s->matrix, s->divisor, s->offset };
  if (!cc_deconvolve_algorithm_from_name (algorithm, &p->algorithm))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                 "algorithm '%s' is not richardson-lucy or wiener", algorithm ? algorithm : "");
  else if (!cc_deconvolve_start_from_name (init, &p->start))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "init '%s' is not flat or image",
                 init ? init : "");
  /* The engine's own refusal, before any pixel moves: GIMP's
   * cuda:deconvolve would pass such a mask's input through, unchanged. */
  else if (!cc_deconvolve_check (&mask, p, why, sizeof why))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s", why);
  else
    ok = TRUE;
  if (!ok)
    g_clear_pointer (&s->matrix, g_free);
  g_free (algorithm);
  g_free (init);
  return ok;
}
