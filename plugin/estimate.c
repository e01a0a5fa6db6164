/* plug-in-cuda-estimate-blur: the engine's estimate of a drawable's blur
 * (cc_estimate_blur, docs/estimate.md) from the selection's bounding box or
 * the whole drawable, returned, and the drawable restored with it: a layer,
 * where GIMP has cuda:deconvolve, by that effect appended (Richardson-Lucy
 * at its defaults, the estimated shape), which the user can open and
 * adjust; else by the plug-in's own deconvolution, merged.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "estimate.h"
#include "filter.h"
#include "render.h"
#include "setting-table.h"
#include "settings.h"

void
estimate_add_arguments (GimpProcedure *procedure)
{
  gimp_procedure_add_string_argument (procedure, "shape", "_Shape",
                                      "The blur to look for: auto (whichever of the three "
                                      "fits best), disc (out of focus), gaussian (a soft "
                                      "lens) or motion (a shake along a line)",
                                      "auto", G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "restore", "_Restore",
                                       "Restore the drawable with the estimate: on a layer, "
                                       "where GIMP has the operation cuda:deconvolve, it is "
                                       "added as an effect (Richardson-Lucy at its defaults) "
                                       "to open and adjust; else the pixels are restored, as "
                                       "plug-in-cuda-deconvolve restores them",
                                       TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_string_return_value (procedure, "shape", "Shape",
                                          "The blur found: disc, gaussian or motion", "",
                                          G_PARAM_READWRITE);
  gimp_procedure_add_double_return_value (procedure, "radius", "Radius",
                                          "Its radius in pixels, as the shape settings take "
                                          "it (gaussian: three standard deviations; motion: "
                                          "the line is 2 x radius + 1 long)",
                                          0.0, CC_SHAPE_RADIUS_MAX, 0.0, G_PARAM_READWRITE);
  gimp_procedure_add_double_return_value (procedure, "angle", "Angle",
                                          "motion: the line's angle in degrees "
                                          "counter-clockwise (0: across); else 0",
                                          -CC_SHAPE_ANGLE_MAX, CC_SHAPE_ANGLE_MAX, 0.0,
                                          G_PARAM_READWRITE);
  gimp_procedure_add_double_return_value (procedure, "confidence", "Confidence",
                                          "How sure the estimate is, from 0 to 1",
                                          0.0, 1.0, 0.0, G_PARAM_READWRITE);
}

/* The shape argument: auto (CC_SHAPE_MATRIX), disc, gaussian or motion. */
static gboolean
shape_from_name (const gchar *name, CcShape *shape)
{
  if (g_strcmp0 (name, "auto") == 0)
    {
      *shape = CC_SHAPE_MATRIX;
      return TRUE;
    }
  return cc_shape_from_name (name, shape) &&
         (*shape == CC_SHAPE_DISC || *shape == CC_SHAPE_GAUSSIAN || *shape == CC_SHAPE_MOTION);
}

/* plug-in-cuda-deconvolve's settings at their defaults (cuda:deconvolve's
 * too), the mask still to come from the estimate. */
static void
restoration_defaults (RenderSettings *s, const CcTransfer *transfer)
{
  memset (s, 0, sizeof *s);
  s->border = CC_DECONVOLVE_BORDER;
  s->method = CC_SETTING_DEFAULT (METHOD);
  s->clamp = TRUE;
  s->linear = CC_SETTING_DEFAULT (LINEAR);
  s->red = s->green = s->blue = TRUE;
  s->transfer = transfer;
  s->shape = (CcShapeSpec) CC_SHAPE_SPEC_DEFAULT;
  s->deconvolve = TRUE;
  cc_deconvolve_params_init (&s->deconvolution);
}

static void
estimate_progress (double fraction, void *data)
{
  gimp_progress_update (fraction);
}

/* The engine's estimate from the selection's bounding box within the
 * drawable (all of it where nothing is selected), read as a deconvolution
 * reads (no halo) in the settings' linear light; FALSE and why. */
static gboolean
estimate (GimpDrawable *drawable, const RenderSettings *s, CcShape shape, CcContext *ctx,
          CcBlurEstimate *found, GError **error)
{
  GeglRectangle box;
  RenderSource *source;
  const CcImage *pixels;
  CcOptions options;
  CcResult result;
  gboolean has_alpha, ok;

  if (!gimp_drawable_mask_intersect (drawable, &box.x, &box.y, &box.width, &box.height))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "the selection misses the drawable: there is nothing to estimate the "
                   "blur from");
      return FALSE;
    }
  if (!(source = render_read (drawable, &box, s, error)))
    return FALSE;
  pixels = render_source_image (source, &has_alpha);
  cc_options_init (&options);
  options.has_alpha = has_alpha;
  options.transfer = s->transfer;
  options.progress = estimate_progress;
  gimp_progress_init ("Estimating the blur");
  ok = cc_estimate_blur (ctx, pixels, NULL, shape, &options, found, &result) == CC_OK;
  if (!ok)
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s", result.message);
  render_source_free (source);
  return ok;
}

/* The estimate's shape into the settings' mask, resolved as every front
 * end resolves a shape; FALSE and why. */
static gboolean
mask_of_estimate (RenderSettings *s, const CcBlurEstimate *found, GError **error)
{
  CcMaskSource source = { 0 };

  s->shape.shape = found->shape;
  s->shape.radius = found->radius;
  s->shape.angle = found->angle;
  source.shape = s->shape;
  return settings_resolve_mask (&source, s, "the estimate's mask: ", error);
}

/* Restores the drawable as 's' says: cuda:deconvolve appended as an
 * effect ('*effect' TRUE) on a layer, where GIMP has the operation, which
 * it computes where it shows it (over the selection's bounding box, as
 * GIMP's own menu entry for it does); else (GIMP keeps effects on layers
 * alone) the plug-in's own deconvolution of the whole drawable written
 * where the selection is, merged as one undo step. */
static gboolean
restore (GimpImage *image, GimpDrawable *drawable, const RenderSettings *s, CcContext *ctx,
         gboolean *effect, GError **error)
{
  GimpDrawableFilter *filter = NULL;
  CcResult result;

  if (gimp_item_is_layer (GIMP_ITEM (drawable)))
    filter = filter_new (drawable, s, "");
  if ((*effect = filter != NULL))
    {
      gimp_drawable_append_filter (drawable, filter);
      return TRUE;
    }
  return render_drawable (image, drawable, s, ctx, &result, error);
}

/* The estimate in words, as the shape settings name it. */
static gchar *
estimate_words (const CcBlurEstimate *found)
{
  if (found->shape == CC_SHAPE_MOTION)
    return g_strdup_printf ("a motion blur of radius %.1f (a line %.1f pixels long) at "
                            "%.1f degrees (confidence %.2f)", found->radius,
                            2.0 * found->radius + 1.0, found->angle, found->confidence);
  return g_strdup_printf ("a %s of radius %.1f (confidence %.2f)",
                          found->shape == CC_SHAPE_DISC ? "disc" : "gaussian",
                          found->radius, found->confidence);
}

/* What a user running it from the menu is told. */
static void
say (GimpDrawable *drawable, const CcBlurEstimate *found, gboolean restored, gboolean effect)
{
  gchar *words = estimate_words (found);

  if (!restored)
    g_message ("Estimated %s.", words);
  else if (effect)
    g_message ("Estimated %s; the restoration is an effect on the layer that you can open "
               "and adjust.", words);
  else if (!gimp_item_is_layer (GIMP_ITEM (drawable)))
    g_message ("Estimated %s, and restored the pixels with it (GIMP keeps effects on "
               "layers alone).", words);
  else
    g_message ("Estimated %s, and restored the layer with it.  GIMP has no cuda:deconvolve "
               "operation here (its GEGL module is not installed where GEGL looks): the "
               "release tarball's install.sh adds it, which makes the restoration an effect "
               "you can open and adjust.", words);
  g_free (words);
}

GimpValueArray *
estimate_run (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
              GimpDrawable *drawable, GimpProcedureConfig *config)
{
  GimpPDBStatusType status = GIMP_PDB_EXECUTION_ERROR;
  RenderSettings s;
  CcTransfer *transfer = NULL;
  CcContext *ctx = NULL;
  CcBlurEstimate found = { 0 };
  GError *error = NULL;
  gchar *shape_name = NULL;
  gboolean restored, effect = FALSE;
  CcShape shape;
  GimpValueArray *values;

  g_object_get (config, "shape", &shape_name, "restore", &restored, NULL);
  if (!shape_from_name (shape_name, &shape))
    {
      status = GIMP_PDB_CALLING_ERROR;
      g_set_error (&error, GIMP_PLUG_IN_ERROR, 0,
                   "shape '%s' is not one of auto, disc, gaussian, motion",
                   shape_name ? shape_name : "");
    }
  else if ((transfer = render_transfer_new (drawable, &error)) || !error)
    {
      restoration_defaults (&s, transfer);
      ctx = cc_context_new ();
      if (estimate (drawable, &s, shape, ctx, &found, &error) &&
          (!restored || (mask_of_estimate (&s, &found, &error) &&
                         restore (image, drawable, &s, ctx, &effect, &error))))
        status = GIMP_PDB_SUCCESS;
      g_free (s.matrix);
    }

  values = gimp_procedure_new_return_values (procedure, status, error);
  if (status == GIMP_PDB_SUCCESS)
    {
      GIMP_VALUES_SET_STRING (values, 1, cc_shape_name (found.shape));
      GIMP_VALUES_SET_DOUBLE (values, 2, found.radius);
      GIMP_VALUES_SET_DOUBLE (values, 3, found.angle);
      GIMP_VALUES_SET_DOUBLE (values, 4, found.confidence);
      if (run_mode != GIMP_RUN_NONINTERACTIVE)
        {
          gimp_displays_flush ();
          say (drawable, &found, restored, effect);
        }
    }
  cc_transfer_free (transfer);
  cc_context_free (ctx);
  g_free (shape_name);
  return values;
}
