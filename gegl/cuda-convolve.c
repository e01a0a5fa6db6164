/* cuda:convolve, the engine as a GEGL operation: GIMP runs it inside its
 * own process, so it previews on the canvas, stays on a layer as an
 * editable effect and moves no pixel across a process boundary; the `gegl`
 * tool runs it on any file GEGL reads.  An area filter: GEGL asks for an
 * output rectangle, possibly from several threads at once, and hands over
 * the input with the mask's halo.
 *
 * On 8- and 16-bit perceptual input with results clamped it reads and
 * writes the input's own codes, and the engine works in linear light
 * through transfer tables, as the procedure's own pixel path does: GEGL
 * converts nothing.  Otherwise it works in "RGBA float" (linear light) or
 * "R'G'B'A float" (perceptual, linear FALSE) in the input's colour space,
 * as GIMP's Convolution Matrix does.  Results equal the procedure's.
 *
 * On the GPU it computes whole blocks of the input (the whole layer up to
 * 64 megapixels, bands of a larger one) in one engine call each, and GEGL's
 * cache serves the regions GIMP asks for from them: GIMP applies a filter in
 * chunks, the first one tile, and a large mask's halo and transforms would
 * otherwise be paid again for every chunk.  On the CPU each region is one
 * engine call, per GEGL thread: measured faster than a whole block there,
 * and a preview computes no more than its view.  CUDA starts on a helper
 * thread when the operation is first prepared; until it is ready, masks the
 * CPU takes quickly run there, so the first preview is not held up.
 *
 * Nothing here may crash or hang GIMP: a property the procedure would
 * refuse passes the input through with a warning, and a GPU that fails
 * leaves the call to the CPU path.
 *
 * This file holds the properties and the class; beside it, the state
 * prepare resolves from the properties (op-state.c), a region's engine
 * call (op-region.c), the engines (op-engine.c) and cuda:convolve-layer,
 * with its aux input (op-layer.c).
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

/* The border and method choices are the engine's own tables (names.c,
 * methods.c), so that the three front ends cannot drift apart: GEGL's
 * enum types are made from them once, instead of gegl-op.h's enum lists.
 * This block is read once of the several times gegl-op.h includes this
 * file. */
#ifndef CUDA_CONVOLVE_ENUMS
#define CUDA_CONVOLVE_ENUMS
#include "convolve.h"

#include "preset.h"

typedef gint     CudaConvolvePreset;
typedef CcBorder CudaConvolveBorder;
typedef CcMethod CudaConvolveMethod;
typedef CcShape  CudaConvolveShape;

/* The presets as a choice, found by the one rule (the shipped ones, then
 * the user's) when GEGL first lists the operation: GIMP's dialog shows
 * them as a list, nothing is typed.  0 is "none", the matrix. */
static GType
cuda_convolve_preset_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      gchar *shipped, *user;
      GList *presets;
      GEnumValue *values;
      gint n = 1;

      cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
      presets = cc_presets_list (shipped, user, NULL);
      values = g_new0 (GEnumValue, g_list_length (presets) + 2);
      values[0] = (GEnumValue) { 0, "None: the matrix", "none" };
      for (GList *l = presets; l; l = l->next, n++)
        {
          const CcPreset *p = l->data;

          values[n] = (GEnumValue) { n, g_strdup (p->name), g_strdup (p->id) };
        }
      cc_presets_free (presets);
      g_free (shipped);
      g_free (user);
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolvePreset", values));
    }
  return type;
}

static GType
cuda_convolve_shape_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      GEnumValue *values = g_new0 (GEnumValue, CC_SHAPE_COUNT + 1);

      for (gint s = 0; s < CC_SHAPE_COUNT; s++)
        values[s] = (GEnumValue) { s, cc_shape_name ((CcShape) s),
                                   cc_shape_name ((CcShape) s) };
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolveShape", values));
    }
  return type;
}

static GType
cuda_convolve_border_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      GEnumValue *values = g_new0 (GEnumValue, CC_BORDER_COUNT + 1);

      for (gint b = 0; b < CC_BORDER_COUNT; b++)
        values[b] = (GEnumValue) { b, cc_border_name ((CcBorder) b),
                                   cc_border_name ((CcBorder) b) };
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolveBorder", values));
    }
  return type;
}

static GType
cuda_convolve_method_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      GEnumValue *values = g_new0 (GEnumValue, CC_METHOD_COUNT + 1);

      for (gint m = 0; m < CC_METHOD_COUNT; m++)
        values[m] = (GEnumValue) { m, cc_methods[m].name, cc_methods[m].name };
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolveMethod", values));
    }
  return type;
}
#endif

property_enum (shape, "Shape", CudaConvolveShape, cuda_convolve_shape, CC_SHAPE_MATRIX)
  description ("matrix: the matrix or preset below; else a mask made from a shape, "
               "scaled to sum 1, each cell weighing the area of the shape over it")

property_double (radius, "Radius", 5.0)
  description ("The shape's radius (a box is 2 x radius + 1 wide, a motion line as "
               "long)")
  value_range (CC_SHAPE_RADIUS_MIN, CC_SHAPE_RADIUS_MAX)
  ui_range (0.5, 100.0)
  ui_meta ("unit", "pixel-distance")
  ui_meta ("visible", "! shape {matrix}")

property_double (angle, "Angle", 0.0)
  description ("Turned counter-clockwise: 0 puts a polygon's corner at the top, a "
               "motion line across")
  value_range (-360.0, 360.0)
  ui_meta ("unit", "degree")
  ui_meta ("visible", "shape {polygon, motion}")

property_int (blades, "Blades", 6)
  description ("The polygon's sides")
  value_range (CC_SHAPE_BLADES_MIN, CC_SHAPE_BLADES_MAX)
  ui_meta ("visible", "shape {polygon}")

property_double (inner, "Inner", 0.5)
  description ("The ring's hole, over its radius")
  value_range (0.0, CC_SHAPE_INNER_MAX)
  ui_meta ("visible", "shape {ring}")

property_enum (preset, "Preset", CudaConvolvePreset, cuda_convolve_preset, 0)
  description ("A preset, the shipped ones and yours (as GIMP started); it supplies "
               "the matrix, divisor and offset, and normalize is ignored; none: the "
               "matrix below")
  ui_meta ("visible", "shape {matrix}")

property_string (matrix, "Matrix", "0,0,0;0,1,0;0,0,0")
  description ("The mask: rows separated by ';', values by ',', odd sizes up to "
               "1023x1023, e.g. \"0,1,0;1,-4,1;0,1,0\"")
  ui_meta ("visible", "shape {matrix}")

property_double (divisor, "Divisor", 1.0)
  description ("The weighted sum is divided by this")
  value_range (-G_MAXDOUBLE, G_MAXDOUBLE)
  ui_range (-1000.0, 1000.0)
  ui_meta ("sensitive", "! normalize")
  ui_meta ("visible", "shape {matrix}")

property_double (offset, "Offset", 0.0)
  description ("Then this is added, in the 0..1 scale")
  value_range (-G_MAXDOUBLE, G_MAXDOUBLE)
  ui_range (-1.0, 1.0)
  ui_meta ("sensitive", "! normalize")
  ui_meta ("visible", "shape {matrix}")

property_boolean (normalize, "Normalize", FALSE)
  description ("Divisor and offset from the mask's sum (GIMP's rule)")
  ui_meta ("visible", "shape {matrix}")

property_enum (border, "Border", CudaConvolveBorder, cuda_convolve_border,
               CC_BORDER_EXTEND)
  description ("What lies beyond the image's edges")

property_enum (method, "Method", CudaConvolveMethod, cuda_convolve_method,
               CC_METHOD_AUTO)
  description ("How to compute it: auto takes the fastest, the CPU where no GPU "
               "is usable")

property_boolean (clamp, "Clamp", TRUE)
  description ("Clamp results to [0,1]; off keeps HDR values")

property_boolean (alpha_weighting, "Alpha weighting", TRUE)
  description ("Weight colour by alpha, so that transparent pixels' colour does not "
               "bleed")

property_boolean (affect_alpha, "Affect alpha", TRUE)
  description ("Convolve the alpha channel too; off copies it")

property_boolean (linear, "Linear light", TRUE)
  description ("Work on linear RGB, as GIMP's Convolution Matrix does; off works on "
               "the perceptual values (GIMP 2's convmatrix)")

property_boolean (red, "Red", TRUE)
  description ("Convolve the red channel; off keeps it")

property_boolean (green, "Green", TRUE)
  description ("Convolve the green channel; off keeps it")

property_boolean (blue, "Blue", TRUE)
  description ("Convolve the blue channel; off keeps it")

property_string (report, "Report", "")
  description ("A file the operation writes what ran to (methods, devices, engine time), "
               "for plug-in-cuda-convolve; empty: none")
  ui_meta ("visible", "0")

#else

#define GEGL_OP_AREA_FILTER
#define GEGL_OP_NAME     cuda_convolve
#define GEGL_OP_C_SOURCE cuda-convolve.c
/* The module registers cuda:convolve-layer too (op-layer.c). */
#define GEGL_OP_BUNDLE

#include "gegl-op.h"

#include "op-engine.h"
#include "op-layer.h"
#include "op-region.h"
#include "op-state.h"

/* The state for the current properties: the last one where they have not
 * changed, else a new one. */
static OpState *
state_for (GeglProperties *o)
{
  GEnumClass *presets = g_type_class_ref (cuda_convolve_preset_get_type ());
  const GEnumValue *chosen = o->preset ? g_enum_get_value (presets, o->preset) : NULL;
  const OpStateKey key = {
    .shape = { o->shape, o->radius, o->angle, o->blades, o->inner },
    .preset = chosen ? chosen->value_nick : "",
    .matrix = o->matrix,
    .divisor = o->divisor,
    .offset = o->offset,
    .normalize = o->normalize,
    .report = o->report };

  g_type_class_unref (presets);
  o->user_data = op_state_for (o->user_data, &key);
  return o->user_data;
}

static void
prepare (GeglOperation *operation)
{
  GeglOperationAreaFilter *area = GEGL_OPERATION_AREA_FILTER (operation);
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const Babl *format = op_region_format (operation, o->clamp, o->linear);
  OpState *state;
  gint w = 0, h = 0;

  /* CUDA starts now, on the engine's helper thread. */
  op_engine ();
  state = state_for (o);
  state->aux_on = op_layer_prepare_aux (operation, &w, &h);
  if (state->aux_on)
    state->aux_taps = w * h;
  else if (state->mask->valid)
    {
      w = state->mask->width;
      h = state->mask->height;
    }
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
  const GeglRectangle *in = gegl_operation_source_get_bounding_box (operation, "input");

  return in ? *in : (GeglRectangle) { 0, 0, 0, 0 };
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

  gegl_operation_class_set_keys (operation_class,
    "name",            "cuda:convolve",
    "title",           "Convolve (CUDA)",
    "categories",      "generic",
    "description",     "Convolves with a user's mask of up to 1023x1023 (a matrix, a "
                       "shape, or an image on the aux input) on an NVIDIA GPU, or on "
                       "all CPU cores where there is none; the same pixels as GIMP's "
                       "Convolution Matrix",
    "gimp:menu-path",  "<Image>/Filters/Generic",
    "gimp:menu-label", "Convolve on the GPU (live)...",
    NULL);
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
                     sizeof (GeglOp));
  return TRUE;
}

#endif
