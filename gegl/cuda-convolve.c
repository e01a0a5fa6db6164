/* cuda:convolve, the engine as a GEGL area filter, which GIMP runs in its
 * own process (canvas preview, editable effects) and the gegl tool on
 * files: the properties and the class.  How it reads formats, when it
 * computes whole blocks and when regions, and why it never crashes GIMP:
 * docs/design.md, "The GEGL operations".  Beside it: the property lists it
 * shares with cuda:deconvolve (op-properties.c, op-*-properties.h), the
 * state (op-state.c), a region's engine call (op-region.c), the engines
 * (op-engine.c) and cuda:convolve-layer (op-layer.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <string.h>

/* gegl-op.h marks the properties' names for translation; none is made. */
#define GETTEXT_PACKAGE PACKAGE
#include <glib/gi18n-lib.h>
#include <gegl.h>

#ifdef GEGL_PROPERTIES

/* The choices are the engine's own tables (op-properties.h). */
#include "op-properties.h"

#define OP_BORDER_DEFAULT CC_SETTING_DEFAULT (BORDER)
#define OP_CHANNEL_VERB   "Convolve"

#include "op-mask-properties.h"

OP_BOOLEAN (ALPHA_WEIGHTING, alpha_weighting)

OP_BOOLEAN (AFFECT_ALPHA, affect_alpha)

#include "op-channel-properties.h"

#else

#define GEGL_OP_AREA_FILTER
#define GEGL_OP_NAME     cuda_convolve
#define GEGL_OP_C_SOURCE cuda-convolve.c
/* The module registers cuda:convolve-layer (op-layer.c), cuda:deconvolve
 * and cuda:deconvolve-layer (cuda-deconvolve.c) too. */
#define GEGL_OP_BUNDLE

#include "gegl-op.h"

#include "cuda-deconvolve.h"
#include "op-engine.h"
#include "op-layer.h"
#include "op-region.h"
#include "op-state.h"

static void
prepare (GeglOperation *operation)
{
  GeglOperationAreaFilter *area = GEGL_OPERATION_AREA_FILTER (operation);
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const Babl *format = op_region_format (operation, o->clamp, o->linear);
  OpState *state;
  gint w, h;

  /* CUDA starts now, on the engine's helper thread. */
  op_engine ();
  state = o->user_data = op_properties_state (operation, o->user_data);
  op_layer_prepare (operation, state, &w, &h);
  area->left = area->right = w ? (w - 1) / 2 : 0;
  area->top = area->bottom = h ? (h - 1) / 2 : 0;
  gegl_operation_set_format (operation, "input", format);
  gegl_operation_set_format (operation, "output", format);
}

/* Whether this operation's regions run on the GPU. */
static gboolean
takes_gpu (GeglProperties *o)
{
  return op_engine_takes_gpu (o->method, op_state_taps (o->user_data));
}

/* The GPU computes a whole block; the CPU computes the region asked for. */
static GeglRectangle
get_cached_region (GeglOperation *operation, const GeglRectangle *roi)
{
  const GeglRectangle *in = gegl_operation_source_get_bounding_box (operation, "input");

  if (!in || !takes_gpu (GEGL_PROPERTIES (operation)))
    return *roi;
  return op_region_gpu_block (in, roi);
}

/* The output covers the input, not the input grown by the halo. */
static GeglRectangle
get_bounding_box (GeglOperation *operation)
{
  return op_region_input_box (operation);
}

static gboolean
convolve_region (GeglOperation       *operation,
                 GeglBuffer          *input,
                 GeglBuffer          *output,
                 const GeglRectangle *roi,
                 gboolean             whole)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const OpRegionProperties properties = {
    .method = o->method, .border = o->border, .clamp = o->clamp,
    .alpha_weighting = o->alpha_weighting, .affect_alpha = o->affect_alpha,
    .linear = o->linear, .red = o->red, .green = o->green, .blue = o->blue };

  return op_region_convolve (operation, &o->user_data, &properties, input, output, roi,
                             whole);
}

static gboolean
process (GeglOperation       *operation,
         GeglBuffer          *input,
         GeglBuffer          *output,
         const GeglRectangle *roi,
         gint                 level)
{
  return convolve_region (operation, input, output, roi, FALSE);
}

/* GEGL's filters split a region among its threads; the GPU takes it in one
 * call instead (the engine serialises GPU calls, and each piece would pay
 * its halo and transforms again).  The CPU path keeps GEGL's threads. */
static gboolean (*filter_operation_process) (GeglOperation *, GeglOperationContext *,
                                             const gchar *, const GeglRectangle *, gint);

static gboolean
operation_process (GeglOperation        *operation,
                   GeglOperationContext *context,
                   const gchar          *output_pad,
                   const GeglRectangle  *result,
                   gint                  level)
{
  GeglBuffer *input, *output;
  gboolean ok;

  op_layer_update_aux (operation, context, GEGL_PROPERTIES (operation)->user_data);
  if (strcmp (output_pad, "output") != 0 || !takes_gpu (GEGL_PROPERTIES (operation)))
    return filter_operation_process (operation, context, output_pad, result, level);
  input = (GeglBuffer *) gegl_operation_context_dup_object (context, "input");
  output = gegl_operation_context_get_output_maybe_in_place (operation, context, input, result);
  ok = convolve_region (operation, input, output, result, TRUE);
  g_clear_object (&input);
  return ok;
}

static void
finalize (GObject *object)
{
  GeglProperties *o = GEGL_PROPERTIES (object);

  op_state_free (o->user_data);
  o->user_data = NULL;
  G_OBJECT_CLASS (gegl_op_parent_class)->finalize (object);
}

static void
gegl_op_class_init (GeglOpClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GeglOperationClass *operation_class = GEGL_OPERATION_CLASS (klass);
  GeglOperationFilterClass *filter_class = GEGL_OPERATION_FILTER_CLASS (klass);

  object_class->finalize = finalize;
  operation_class->prepare = prepare;
  operation_class->get_bounding_box = get_bounding_box;
  operation_class->get_cached_region = get_cached_region;
  filter_operation_process = operation_class->process;
  operation_class->process = operation_process;
  filter_class->process = process;
  op_properties_set_keys (operation_class, "cuda:convolve", "Convolve (CUDA)", "generic",
                          "Convolves with a user's mask of up to 1023x1023 (a matrix, a "
                          "shape, or an image on the aux input) on an NVIDIA GPU, or on "
                          "all CPU cores where there is none; the same pixels as GIMP's "
                          "Convolution Matrix",
                          "<Image>/Filters/Generic", "Convolve on the GPU (live)...");
}

G_MODULE_EXPORT const GeglModuleInfo *
gegl_module_query (GTypeModule *module)
{
  return &modinfo;
}

G_MODULE_EXPORT gboolean
gegl_module_register (GTypeModule *module)
{
  gegl_op_cuda_convolve_register_type (module);
  op_layer_register (module, gegl_op_cuda_convolve_get_type (), sizeof (GeglOpClass),
                     sizeof (GeglOp), "Convolve");
  cuda_deconvolve_register (module);
  return TRUE;
}

#endif
