/* cuda:deconvolve, the engine's deconvolution (cc_deconvolve) as a GEGL
 * operation: the whole input restored in one engine call, on the GPU or
 * the CPU, and a mask it cannot take as a blur passed through with a
 * warning (docs/design.md, "The GEGL operations").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

/* gegl-op.h marks the properties' names for translation; none is made. */
#define GETTEXT_PACKAGE PACKAGE
#include <glib/gi18n-lib.h>
#include <gegl.h>

#ifdef GEGL_PROPERTIES

/* The choices are the engine's own tables (op-properties.h). */
#include "op-properties.h"

#define OP_BORDER_DEFAULT CC_DECONVOLVE_BORDER
#define OP_CHANNEL_VERB   "Restore"

OP_ENUM (ALGORITHM, algorithm, CudaDeconvolveAlgorithm, cuda_deconvolve_algorithm,
         CC_SETTING_DEFAULT (ALGORITHM))

OP_INT (ITERATIONS, iterations)
  ui_range (1, 200)
  ui_meta ("visible", "algorithm {richardson-lucy}")

OP_ENUM (INIT, init, CudaDeconvolveInit, cuda_deconvolve_init, CC_SETTING_DEFAULT (INIT))
  ui_meta ("visible", "algorithm {richardson-lucy}")

OP_DOUBLE (TV_WEIGHT, tv_weight)
  ui_digits (4)
  ui_meta ("visible", "algorithm {richardson-lucy}")

OP_DOUBLE (NOISE, noise)
  ui_range (0.0, 1.0)
  ui_digits (4)
  ui_meta ("visible", "algorithm {wiener}")

/* The blur: the mask, as cuda:convolve takes it (scaled to sum 1 here). */
#include "op-mask-properties.h"

#include "op-channel-properties.h"

#else

#define GEGL_OP_FILTER
#define GEGL_OP_NAME     cuda_deconvolve
#define GEGL_OP_C_SOURCE cuda-deconvolve.c
/* cuda-convolve.c's module registers it (cuda_deconvolve_register). */
#define GEGL_OP_BUNDLE

#include "gegl-op.h"

#include "cuda-deconvolve.h"
#include "op-engine.h"
#include "op-layer.h"
#include "op-region.h"

static void
finalize (GObject *object)
{
  g_clear_pointer (&GEGL_PROPERTIES (object)->user_data, op_state_free);
  G_OBJECT_CLASS (gegl_op_parent_class)->finalize (object);
}

static void
prepare (GeglOperation *operation)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const Babl *format = op_region_format (operation, o->clamp, o->linear);
  gint w, h;

  /* CUDA starts now, on the engine's helper thread. */
  op_engine ();
  o->user_data = op_properties_state (operation, o->user_data);
  op_layer_prepare (operation, o->user_data, &w, &h);
  gegl_operation_set_format (operation, "input", format);
  gegl_operation_set_format (operation, "output", format);
}

/* Every output pixel depends on every input pixel: the whole input is
 * what any output needs, what a change anywhere changes, and what GEGL's
 * cache keeps, so that the regions GIMP asks for after the first are
 * served from it.  The output is as large as the input (the filter's
 * bounding box). */
static GeglRectangle
whole_input_for_pad (GeglOperation *operation, const gchar *pad, const GeglRectangle *roi)
{
  return op_region_input_box (operation);
}

static GeglRectangle
whole_input_for_roi (GeglOperation *operation, const GeglRectangle *roi)
{
  return op_region_input_box (operation);
}

/* The whole input restored in one call on this thread, where a filter
 * would split the region among GEGL's threads: each piece would need the
 * whole input again. */
static gboolean
operation_process (GeglOperation *operation, GeglOperationContext *context,
                   const gchar *output_pad, const GeglRectangle *result, gint level)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const OpRegionProperties properties = {
    .method = o->method, .border = o->border, .clamp = o->clamp, .linear = o->linear,
    .red = o->red, .green = o->green, .blue = o->blue };
  const CcDeconvolveParams params = {
    .algorithm = o->algorithm, .iterations = o->iterations, .start = o->init,
    .tv_weight = o->tv_weight, .noise = o->noise };

  op_layer_update_aux (operation, context, o->user_data);
  return op_region_deconvolve (operation, context, result, &o->user_data, &properties,
                               &params);
}

static void
gegl_op_class_init (GeglOpClass *klass)
{
  GeglOperationClass *operation_class = GEGL_OPERATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = finalize;
  operation_class->prepare = prepare;
  operation_class->process = operation_process;
  operation_class->get_required_for_output = operation_class->get_invalidated_by_change =
    whole_input_for_pad;
  operation_class->get_cached_region = whole_input_for_roi;
  op_properties_set_keys (operation_class, "cuda:deconvolve", "Deconvolve (CUDA)", "enhance",
                          "Restores an image blurred by a known mask (a shape, a matrix or "
                          "a preset): Richardson-Lucy or Wiener deconvolution of the whole "
                          "image, on an NVIDIA GPU or on all CPU cores",
                          "<Image>/Filters/Enhance", "Deconvolve on the GPU...");
}

void
cuda_deconvolve_register (GTypeModule *module)
{
  gegl_op_cuda_deconvolve_register_type (module);
  op_layer_register (module, gegl_op_cuda_deconvolve_get_type (), sizeof (GeglOpClass),
                     sizeof (GeglOp), "Deconvolve");
}

#endif
