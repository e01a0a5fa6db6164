/* plug-in-cuda-convolve: GIMP 3 procedures that convolve a drawable with a
 * mask on an NVIDIA GPU through CUDA, or on the CPU where there is none.
 *
 *   plug-in-cuda-convolve          the filter (Filters > Generic)
 *   plug-in-cuda-convolve-presets  the preset ids it knows
 *
 * Copyright (C) 2026 gimp-cuda-convolve authors
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "convolve.h"
#include "op-report.h"
#include "preset.h"
#include "render.h"
#include "filter.h"
#include "settings.h"
#include "dialog.h"

#define PLUG_IN_PROC         "plug-in-cuda-convolve"
#define PLUG_IN_PRESETS_PROC "plug-in-cuda-convolve-presets"


typedef struct _Convolve      Convolve;
typedef struct _ConvolveClass ConvolveClass;

struct _Convolve
{
  GimpPlugIn parent_instance;
};

struct _ConvolveClass
{
  GimpPlugInClass parent_class;
};

#define CONVOLVE_TYPE (convolve_get_type ())

GType                   convolve_get_type         (void) G_GNUC_CONST;

static GList          * convolve_query_procedures (GimpPlugIn           *plug_in);
static GimpProcedure  * convolve_create_procedure (GimpPlugIn           *plug_in,
                                                   const gchar          *name);
static gboolean         convolve_set_i18n         (GimpPlugIn           *plug_in,
                                                   const gchar          *procedure_name,
                                                   gchar               **gettext_domain,
                                                   gchar               **catalog_dir);
static GimpValueArray * convolve_run              (GimpProcedure        *procedure,
                                                   GimpRunMode           run_mode,
                                                   GimpImage            *image,
                                                   GimpDrawable        **drawables,
                                                   GimpProcedureConfig  *config,
                                                   gpointer              run_data);
static GimpValueArray * presets_run               (GimpProcedure        *procedure,
                                                   GimpProcedureConfig  *config,
                                                   gpointer              run_data);


G_DEFINE_TYPE (Convolve, convolve, GIMP_TYPE_PLUG_IN)

/* babl's fish cache, which GIMP's own runs fill, costs some 0.2 s at every
 * start of a plug-in (babl rebuilds lookup tables for the cached
 * conversions); this plug-in converts little itself, so it starts without
 * it.  Nothing here calls babl_exit, the one place babl writes the cache, so
 * GIMP's copy stays as it is. */
int
main (int argc, char *argv[])
{
  g_setenv ("BABL_INHIBIT_CACHE", "1", TRUE);
  return gimp_main (CONVOLVE_TYPE, argc, argv);
}


static void
convolve_class_init (ConvolveClass *klass)
{
  GimpPlugInClass *plug_in_class = GIMP_PLUG_IN_CLASS (klass);

  plug_in_class->query_procedures = convolve_query_procedures;
  plug_in_class->create_procedure = convolve_create_procedure;
  plug_in_class->set_i18n         = convolve_set_i18n;
}

static void
convolve_init (Convolve *convolve)
{
}

static GList *
convolve_query_procedures (GimpPlugIn *plug_in)
{
  return g_list_append (g_list_append (NULL, g_strdup (PLUG_IN_PROC)),
                        g_strdup (PLUG_IN_PRESETS_PROC));
}

static gboolean
convolve_set_i18n (GimpPlugIn   *plug_in,
                   const gchar  *procedure_name,
                   gchar       **gettext_domain,
                   gchar       **catalog_dir)
{
  /* Untranslated for now: no catalogue to look for. */
  return FALSE;
}

static void
add_arguments (GimpProcedure *procedure)
{
  gchar *blurb;

  gimp_procedure_add_string_argument (procedure, "preset", "_Preset",
                                      "A preset id (see plug-in-cuda-convolve-presets); "
                                      "when set it supplies mask-width, mask-height, matrix, "
                                      "divisor and offset, and normalize is ignored",
                                      "", G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "mask-width", "Mask _width",
                                   "Mask width, odd, 1 to " G_STRINGIFY (CC_MASK_MAX)
                                   " (1: a vertical 1D mask)",
                                   1, CC_MASK_MAX, 3, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "mask-height", "Mask _height",
                                   "Mask height, odd, 1 to " G_STRINGIFY (CC_MASK_MAX)
                                   " (1: a horizontal 1D mask)",
                                   1, CC_MASK_MAX, 3, G_PARAM_READWRITE);
  gimp_procedure_add_double_array_argument (procedure, "matrix", "_Matrix",
                                            "The mask, row-major, mask-width x mask-height "
                                            "values; empty: the identity (centre 1)",
                                            G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "divisor", "_Divisor",
                                      "The weighted sum is divided by this (not 0)",
                                      -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "offset", "O_ffset",
                                      "Then this is added, in the 0..1 scale",
                                      -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "normalize", "_Normalize",
                                       "Divisor and offset from the mask's sum: sum > 0: "
                                       "divisor = sum; sum < 0: divisor = -sum, offset = 1; "
                                       "sum = 0: divisor = 1, offset = 0.5",
                                       FALSE, G_PARAM_READWRITE);
  /* Strings rather than GimpChoice: GIMP 3.0 turns an unknown choice into
   * the default before the plug-in sees it, and a script's typo must be
   * refused, not run. */
  gimp_procedure_add_string_argument (procedure, "border", "_Border",
                                      "What lies beyond the drawable's edges: \"zero\" "
                                      "(0, transparent where there is alpha), \"extend\" "
                                      "(the edge pixel repeats), \"wrap\" (the drawable "
                                      "repeats), \"mirror\" (it reflects, the edge pixel "
                                      "not repeated), \"black\" or \"white\" (opaque); "
                                      "GEGL's \"none\", \"clamp\" and \"loop\" name "
                                      "zero, extend and wrap",
                                      "extend", G_PARAM_READWRITE);
  blurb = g_strdup_printf ("How to compute it: %s (\"auto\": the fastest; the CPU where "
                           "no GPU is usable)", cc_method_names ());
  gimp_procedure_add_string_argument (procedure, "method", "M_ethod", blurb, "auto",
                                      G_PARAM_READWRITE);
  g_free (blurb);
  gimp_procedure_add_boolean_argument (procedure, "clamp", "_Clamp",
                                       "Clamp results to [0,1]; off keeps HDR values of "
                                       "float layers", TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "alpha-weighting", "_Alpha weighting",
                                       "Weight colour by alpha, so that transparent pixels' "
                                       "colour does not bleed", TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "affect-alpha", "Affect al_pha",
                                       "Convolve the alpha channel too; off copies it",
                                       TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "linear", "_Linear light",
                                       "Work on linear RGB, as GIMP's own Convolution "
                                       "Matrix does, rather than on perceptual R'G'B' "
                                       "values (GIMP 2's convmatrix), in the image's own "
                                       "colour space", TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "red", "_Red",
                                       "Convolve the red channel; off keeps it (on gray "
                                       "drawables gray is convolved unless red, green and "
                                       "blue are all off)", TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "green", "_Green",
                                       "Convolve the green channel; off keeps it",
                                       TRUE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "blue", "_Blue",
                                       "Convolve the blue channel; off keeps it",
                                       TRUE, G_PARAM_READWRITE);
  /* The shape's arguments come last, so that calls written before them
   * keep their places. */
  blurb = g_strdup_printf ("The mask made from a shape, scaled to sum 1, each cell the "
                           "area of the shape over it: %s; \"matrix\" (the default): "
                           "the preset, or mask-width, mask-height, matrix, divisor, "
                           "offset and normalize, which a shape ignores",
                           cc_shape_names ());
  gimp_procedure_add_string_argument (procedure, "shape", "S_hape", blurb, "matrix",
                                      G_PARAM_READWRITE);
  g_free (blurb);
  gimp_procedure_add_double_argument (procedure, "radius", "Ra_dius",
                                      "The shape's radius in pixels (gaussian: three "
                                      "standard deviations; box: 2 x radius + 1 wide; "
                                      "motion: a line 2 x radius + 1 long)",
                                      CC_SHAPE_RADIUS_MIN, CC_SHAPE_RADIUS_MAX,
                                      5.0, G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "angle", "An_gle",
                                      "polygon and motion: degrees counter-clockwise (0: "
                                      "a corner at the top, a line across)",
                                      -360.0, 360.0, 0.0, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "blades", "Bla_des", "polygon: its sides",
                                   CC_SHAPE_BLADES_MIN, CC_SHAPE_BLADES_MAX, 6,
                                   G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "inner", "_Inner",
                                      "ring: the hole's radius over the radius",
                                      0.0, CC_SHAPE_INNER_MAX, 0.5, G_PARAM_READWRITE);
  gimp_procedure_add_drawable_argument (procedure, "mask-drawable", "Mask _layer",
                                        "A layer (or channel) as the mask: each pixel's "
                                        "luminance in linear light times its alpha, scaled "
                                        "to sum 1, its whole extent, up to "
                                        G_STRINGIFY (CC_MASK_MAX) "x" G_STRINGIFY (CC_MASK_MAX)
                                        " (an even side gains a zero column or row); shape, "
                                        "preset and matrix are then ignored",
                                        TRUE, G_PARAM_READWRITE);

  gimp_procedure_add_string_return_value (procedure, "method-used", "Method used",
                                          "The method that ran (\"\" when the selection "
                                          "misses the drawable)", "", G_PARAM_READWRITE);
  gimp_procedure_add_string_return_value (procedure, "device", "Device",
                                          "The GPU's name, or the CPU threads", "",
                                          G_PARAM_READWRITE);
  gimp_procedure_add_double_return_value (procedure, "elapsed-ms", "Elapsed ms",
                                          "Milliseconds the application took, reading and "
                                          "writing the pixels included (0 for an editable "
                                          "effect: GIMP computes it when it shows it)",
                                          0.0, G_MAXDOUBLE, 0.0, G_PARAM_READWRITE);
}

static GimpProcedure *
convolve_create_procedure (GimpPlugIn  *plug_in,
                           const gchar *name)
{
  GimpProcedure *procedure = NULL;

  if (strcmp (name, PLUG_IN_PROC) == 0)
    {
      procedure = gimp_image_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                            convolve_run, NULL, NULL);
      gimp_procedure_set_image_types (procedure, "RGB*, GRAY*");
      gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE);
      gimp_procedure_set_menu_label (procedure, "CUDA Convolution Matrix...");
      gimp_procedure_add_menu_path (procedure, "<Image>/Filters/Generic");
      gimp_procedure_set_documentation
        (procedure,
         "Convolve with any mask on the GPU",
         "Convolves the selected part of one drawable with a mask of odd width and "
         "height from 1 to " G_STRINGIFY (CC_MASK_MAX) ", on an NVIDIA GPU through CUDA, "
         "or on all CPU cores where no GPU is usable.  out = clamp (sum (mask * in) / "
         "divisor + offset), in correlation form with values in the 0..1 scale; border "
         "sets what lies beyond the drawable's edges.  A preset supplies the mask, "
         "divisor and offset.",
         name);
      gimp_procedure_set_attribution (procedure, "gimp-cuda-convolve authors",
                                      "GPL-3.0-or-later", "2026");
      add_arguments (procedure);
    }
  else if (strcmp (name, PLUG_IN_PRESETS_PROC) == 0)
    {
      procedure = gimp_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                      presets_run, NULL, NULL);
      gimp_procedure_set_documentation
        (procedure,
         "The preset ids plug-in-cuda-convolve knows",
         "Lists every preset id, shipped ones first, then the user's own "
         "(kept under the plug-in's folder in the GIMP profile).",
         name);
      gimp_procedure_set_attribution (procedure, "gimp-cuda-convolve authors",
                                      "GPL-3.0-or-later", "2026");
      gimp_procedure_add_string_array_return_value (procedure, "presets", "Presets",
                                                    "Every preset id", G_PARAM_READWRITE);
    }
  return procedure;
}

static GimpValueArray *
presets_run (GimpProcedure       *procedure,
             GimpProcedureConfig *config,
             gpointer             run_data)
{
  GString *warnings = g_string_new (NULL);
  gchar *shipped, *user, **ids;
  GList *presets;
  GimpValueArray *values;
  gint n = 0;

  cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
  presets = cc_presets_list (shipped, user, warnings);
  ids = g_new0 (gchar *, g_list_length (presets) + 1);

  for (GList *l = presets; l; l = l->next)
    ids[n++] = g_strdup (((CcPreset *) l->data)->id);
  if (warnings->len)
    g_printerr ("%s", warnings->str);

  values = gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
  GIMP_VALUES_TAKE_STRV (values, 1, ids);
  cc_presets_free (presets);
  g_string_free (warnings, TRUE);
  g_free (shipped);
  g_free (user);
  return values;
}

/* What the return values say. */
typedef struct
{
  gchar   *method;    /* the methods that ran, "+"-joined; "" where none did */
  gchar   *device;
  gdouble  ms;
} Applied;

/* Applies the settings through GIMP's cuda:convolve filter, merged: one
 * undo step, the selection respected by GIMP, and the pixels computed in
 * GIMP's process, where the operation writes what ran to a report file
 * (gegl/op-report.h) that becomes the return values.  FALSE where GIMP has no cuda:convolve: the caller then
 * moves the pixels itself, and says so once. */
static gboolean
apply_filter (GimpDrawable *drawable, const RenderSettings *s, Applied *applied)
{
  gchar *report = NULL;
  gint fd = g_file_open_tmp ("cuda-convolve-XXXXXX.report", &report, NULL);
  GimpDrawableFilter *filter;
  gdouble engine_ms;
  gint64 pixels;

  if (fd >= 0)
    close (fd);
  filter = filter_new (drawable, s, report ? report : "");
  if (!filter)
    {
      g_message ("GIMP has no %s operation (its GEGL module is not installed where GEGL "
                 "looks); the plug-in computes the result itself, which is slower",
                 FILTER_OPERATION);
      if (report)
        g_unlink (report);
      g_free (report);
      return FALSE;
    }
  gimp_drawable_merge_filter (drawable, filter);
  if (!report)
    {
      /* No file to learn it from: said as plainly. */
      applied->method = g_strdup (cc_method_name (s->method));
      applied->device = g_strdup ("cuda:convolve in GIMP's process");
    }
  else
    {
      /* An empty report: the selection missed the drawable, nothing ran. */
      op_report_read (report, &applied->method, &applied->device, &engine_ms, &pixels);
      g_unlink (report);
      g_free (report);
    }
  return TRUE;
}

/* Whether a selection leaves part of the drawable out.  GIMP 3.0 hands a
 * filter only the selection's bounding box, so that an area filter's halo
 * at its edges is the border rule rather than the pixels around it; the
 * procedure's own pixel path reads those pixels, as its documentation says
 * it does, and takes such calls. */
static gboolean
selection_is_partial (GimpDrawable *drawable)
{
  gint x, y, w, h;

  return gimp_drawable_mask_intersect (drawable, &x, &y, &w, &h) &&
         (x != 0 || y != 0 || w != gimp_drawable_get_width (drawable) ||
          h != gimp_drawable_get_height (drawable));
}

static GimpValueArray *
convolve_run (GimpProcedure        *procedure,
              GimpRunMode           run_mode,
              GimpImage            *image,
              GimpDrawable        **drawables,
              GimpProcedureConfig  *config,
              gpointer              run_data)
{
  GimpPDBStatusType status = GIMP_PDB_SUCCESS;
  GimpValueArray *values;
  GimpDrawable *drawable;
  RenderSettings settings = { 0 };
  CcContext *ctx = NULL;
  CcTransfer *transfer = NULL;
  CcResult result = { 0 };
  Applied applied = { NULL, NULL, 0.0 };
  GError *error = NULL;
  gboolean keep_effect = FALSE;
  gint64 start;
  gsize n = drawables ? gimp_core_object_array_get_length ((GObject **) drawables) : 0;

  if (n != 1)
    {
      g_set_error (&error, GIMP_PLUG_IN_ERROR, 0,
                   "%s works on exactly one drawable; %" G_GSIZE_FORMAT " given",
                   PLUG_IN_PROC, n);
      return gimp_procedure_new_return_values (procedure, GIMP_PDB_CALLING_ERROR, error);
    }
  drawable = drawables[0];
  if (gimp_item_is_group (GIMP_ITEM (drawable)))
    {
      g_set_error (&error, GIMP_PLUG_IN_ERROR, 0,
                   "cannot convolve a layer group; pick one of its layers");
      return gimp_procedure_new_return_values (procedure, GIMP_PDB_EXECUTION_ERROR, error);
    }
  if (gimp_drawable_is_indexed (drawable))
    {
      g_set_error (&error, GIMP_PLUG_IN_ERROR, 0,
                   "cannot convolve an indexed image; convert it to RGB or grayscale "
                   "(Image > Mode) first");
      return gimp_procedure_new_return_values (procedure, GIMP_PDB_EXECUTION_ERROR, error);
    }

  if (run_mode == GIMP_RUN_INTERACTIVE)
    {
      gchar *shipped, *user;
      gboolean ok;

      cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
      /* The dialog's own preview computes here: its GPU starts on a helper
       * thread while the dialog opens. */
      ctx = cc_context_new ();
      ok = convolve_dialog (procedure, config, drawable, ctx, shipped, user, &keep_effect);
      g_free (shipped);
      g_free (user);
      if (!ok)
        {
          cc_context_free (ctx);
          return gimp_procedure_new_return_values (procedure, GIMP_PDB_CANCEL, NULL);
        }
    }

  start = g_get_monotonic_time ();
  if (!settings_from_config (config, &settings, &error))
    status = GIMP_PDB_CALLING_ERROR;
  else if (keep_effect)
    {
      /* The dialog left the filter on the layer: GIMP computes it when and
       * where it shows it, with the method asked for. */
      applied.method = g_strdup (cc_method_name (settings.method));
      applied.device = g_strdup ("cuda:convolve in GIMP's process, an editable effect");
    }
  else if (!selection_is_partial (drawable) && apply_filter (drawable, &settings, &applied))
    {
      applied.ms = (g_get_monotonic_time () - start) / 1000.0;
      if (run_mode != GIMP_RUN_NONINTERACTIVE)
        gimp_displays_flush ();
    }
  /* No operation in GIMP, or a selection: the plug-in moves the pixels, on
   * its own engine. */
  else if (!(transfer = render_transfer_new (drawable, &error)) && error)
    status = GIMP_PDB_EXECUTION_ERROR;
  else if ((settings.transfer = transfer), (ctx = ctx ? ctx : cc_context_new ()),
           !render_drawable (image, drawable, &settings, ctx, &result, &error))
    status = GIMP_PDB_EXECUTION_ERROR;
  else
    {
      applied.method = g_strdup (result.device[0] ? cc_method_name (result.method_used) : "");
      applied.device = g_strdup (result.device);
      applied.ms = (g_get_monotonic_time () - start) / 1000.0;
      if (run_mode != GIMP_RUN_NONINTERACTIVE)
        gimp_displays_flush ();
    }

  values = gimp_procedure_new_return_values (procedure, status, error);
  if (status == GIMP_PDB_SUCCESS)
    {
      GIMP_VALUES_SET_STRING (values, 1, applied.method);
      GIMP_VALUES_SET_STRING (values, 2, applied.device);
      GIMP_VALUES_SET_DOUBLE (values, 3, applied.ms);
    }
  g_free (applied.method);
  g_free (applied.device);
  g_free (settings.matrix);
  cc_transfer_free (transfer);
  cc_context_free (ctx);
  return values;
}
