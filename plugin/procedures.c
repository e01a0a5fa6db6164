/* The plug-in's GIMP 3 procedures:
 *   plug-in-cuda-convolve          the filter (Filters > Generic)
 *   plug-in-cuda-deconvolve        deconvolution, for scripts (the menu's
 *                                  Filters > Enhance entry is GIMP's own
 *                                  dialog for cuda:deconvolve)
 *   plug-in-cuda-estimate-blur     the blur estimated and restored
 *                                  (Filters > Enhance)
 *   plug-in-cuda-convolve-presets  the preset ids they know
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
#include "arguments.h"
#include "op-report.h"
#include "preset.h"
#include "render.h"
#include "filter.h"
#include "settings.h"
#include "dialog.h"
#include "estimate.h"

#define PLUG_IN_PROC            "plug-in-cuda-convolve"
#define PLUG_IN_DECONVOLVE_PROC "plug-in-cuda-deconvolve"
#define PLUG_IN_PRESETS_PROC    "plug-in-cuda-convolve-presets"
#define PLUG_IN_ESTIMATE_PROC   "plug-in-cuda-estimate-blur"


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
static GimpValueArray * deconvolve_run            (GimpProcedure        *procedure,
                                                   GimpRunMode           run_mode,
                                                   GimpImage            *image,
                                                   GimpDrawable        **drawables,
                                                   GimpProcedureConfig  *config,
                                                   gpointer              run_data);
static GimpValueArray * estimate_blur_run         (GimpProcedure        *procedure,
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

static gboolean
convolve_set_i18n (GimpPlugIn   *plug_in,
                   const gchar  *procedure_name,
                   gchar       **gettext_domain,
                   gchar       **catalog_dir)
{
  /* Untranslated for now: no catalogue to look for. */
  return FALSE;
}

/* plug-in-cuda-convolve's. */
static void
add_convolve_arguments (GimpProcedure *procedure)
{
  static const CcSettingId applied[] = { CC_SETTING_ID_CLAMP, CC_SETTING_ID_ALPHA_WEIGHTING,
                                         CC_SETTING_ID_AFFECT_ALPHA };

  arguments_add_matrix (procedure);
  arguments_add_border_method (procedure, CC_SETTING_DEFAULT (BORDER));
  arguments_add_settings (procedure, applied, G_N_ELEMENTS (applied));
  arguments_add_channels (procedure, "Convolve", "convolved");
  /* The shape's arguments come last, so that calls written before them
   * keep their places. */
  arguments_add_shape (procedure);
  arguments_add_return_values (procedure, " (0 for an editable effect: GIMP computes it "
                                          "when it shows it)");
}

/* plug-in-cuda-deconvolve's: the mask's as plug-in-cuda-convolve names
 * them, shape first (a blur is most often one), then how it is applied,
 * then the deconvolution's own, named as cuda:deconvolve's properties. */
static void
add_deconvolve_arguments (GimpProcedure *procedure)
{
  static const CcSettingId own[] = { CC_SETTING_ID_ALGORITHM, CC_SETTING_ID_ITERATIONS,
                                     CC_SETTING_ID_INIT, CC_SETTING_ID_TV_WEIGHT,
                                     CC_SETTING_ID_NOISE };

  arguments_add_shape (procedure);
  arguments_add_matrix (procedure);
  arguments_add_border_method (procedure, CC_DECONVOLVE_BORDER);
  arguments_add_channels (procedure, "Restore", "restored");
  arguments_add_settings (procedure, own, G_N_ELEMENTS (own));
  arguments_add_return_values (procedure, "");
}

/* plug-in-cuda-convolve-presets' one return value. */
static void
add_presets_return_value (GimpProcedure *procedure)
{
  gimp_procedure_add_string_array_return_value (procedure, "presets", "Presets",
                                                "Every preset id", G_PARAM_READWRITE);
}

/* What sets one procedure apart from the others. */
typedef struct
{
  const gchar      *name;
  GimpRunImageFunc  image_run;    /* an image procedure on one drawable; else: */
  GimpRunFunc       run;
  const gchar      *menu_label;   /* NULL: no menu entry */
  const gchar      *menu_path;
  const gchar      *blurb;
  const gchar      *help;
  void            (*add_arguments) (GimpProcedure *procedure);
} ProcedureInfo;

/* In the order GIMP is told of them. */
static const ProcedureInfo procedures[] = {
  { .name = PLUG_IN_PROC, .image_run = convolve_run,
    .menu_label = "CUDA Convolution Matrix...", .menu_path = "<Image>/Filters/Generic",
    .blurb = "Convolve with any mask on the GPU",
    .help =
    "Convolves the selected part of one drawable with a mask of odd width and "
    "height from 1 to " G_STRINGIFY (CC_MASK_MAX) ", on an NVIDIA GPU through CUDA, "
    "or on all CPU cores where no GPU is usable.  out = clamp (sum (mask * in) / "
    "divisor + offset), in correlation form with values in the 0..1 scale; border "
    "sets what lies beyond the drawable's edges.  A preset supplies the mask, "
    "divisor and offset.",
    .add_arguments = add_convolve_arguments },
  /* No menu entry: the menu's is GIMP's own dialog for the operation
   * cuda:deconvolve, with its canvas preview. */
  { .name = PLUG_IN_DECONVOLVE_PROC, .image_run = deconvolve_run,
    .blurb = "Undo a known blur on the GPU",
    .help =
    "Restores one drawable as it was before a blur by a known mask (a shape, a "
    "matrix, a preset or a layer, scaled to sum 1), by Richardson-Lucy or Wiener "
    "deconvolution, on an NVIDIA GPU through CUDA, or on all CPU cores where no GPU "
    "is usable.  The whole drawable is read, since every restored pixel depends on "
    "every pixel; only the selection is written.  It opens no dialog: called "
    "interactively or with the last values, it runs with the values GIMP kept from "
    "its last run.",
    .add_arguments = add_deconvolve_arguments },
  { .name = PLUG_IN_ESTIMATE_PROC, .image_run = estimate_blur_run,
    .menu_label = "Estimate and Restore on the GPU...", .menu_path = "<Image>/Filters/Enhance",
    .blurb = "Estimate a blur from the image and restore it",
    .help =
    "Estimates the blur of one drawable from the image alone, from the selection's "
    "bounding box or the whole drawable: a disc's radius (out of focus), a "
    "Gaussian's (a soft lens), a motion line's half-length and angle (a shake), or "
    "with auto whichever fits best, with how sure it is; on an NVIDIA GPU through "
    "CUDA, or on all CPU cores.  With restore, the drawable is restored with it: on "
    "a layer, where GIMP has the operation cuda:deconvolve, it is added as an effect "
    "(Richardson-Lucy at its defaults, the estimated shape) that the user can open "
    "and adjust; else the pixels are restored as plug-in-cuda-deconvolve restores "
    "them.  It opens no dialog: from the menu it runs with auto and restore, and "
    "says what it found.",
    .add_arguments = estimate_add_arguments },
  { .name = PLUG_IN_PRESETS_PROC, .run = presets_run,
    .blurb = "The preset ids plug-in-cuda-convolve knows",
    .help =
    "Lists every preset id, shipped ones first, then the user's own "
    "(kept under the plug-in's folder in the GIMP profile).",
    .add_arguments = add_presets_return_value },
};

static GList *
convolve_query_procedures (GimpPlugIn *plug_in)
{
  GList *list = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (procedures); i++)
    list = g_list_append (list, g_strdup (procedures[i].name));
  return list;
}

/* One procedure as its row says, with what they all share: an image
 * procedure takes RGB and gray drawables. */
static GimpProcedure *
procedure_new (GimpPlugIn *plug_in, const ProcedureInfo *info)
{
  GimpProcedure *procedure;

  if (info->image_run)
    {
      procedure = gimp_image_procedure_new (plug_in, info->name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                            info->image_run, NULL, NULL);
      gimp_procedure_set_image_types (procedure, "RGB*, GRAY*");
      gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE);
    }
  else
    procedure = gimp_procedure_new (plug_in, info->name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                    info->run, NULL, NULL);
  if (info->menu_label)
    {
      gimp_procedure_set_menu_label (procedure, info->menu_label);
      gimp_procedure_add_menu_path (procedure, info->menu_path);
    }
  gimp_procedure_set_documentation (procedure, info->blurb, info->help, info->name);
  gimp_procedure_set_attribution (procedure, "gimp-cuda-convolve authors",
                                  "GPL-3.0-or-later", "2026");
  info->add_arguments (procedure);
  return procedure;
}

static GimpProcedure *
convolve_create_procedure (GimpPlugIn  *plug_in,
                           const gchar *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (procedures); i++)
    if (strcmp (name, procedures[i].name) == 0)
      return procedure_new (plug_in, &procedures[i]);
  return NULL;
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

/* Applies the settings through GIMP's cuda:convolve or cuda:deconvolve
 * filter, merged: one undo step, the selection respected by GIMP, and the
 * pixels computed in GIMP's process, where the operation writes what ran
 * to a report file (gegl/op-report.h) that becomes the return values.
 * FALSE where GIMP has no such operation: the caller then moves the
 * pixels itself, and says so once. */
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
                 "looks); the plug-in computes the result itself, which is slower.  The "
                 "release tarball's install.sh adds the operation, with its canvas preview "
                 "and editable effects", filter_operation (s));
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
      applied->device = g_strdup_printf ("%s in GIMP's process", filter_operation (s));
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

/* The one drawable a procedure works on, or NULL with the status and
 * why: 'verb' is what it does ("convolve"). */
static GimpDrawable *
one_drawable (GimpProcedure *procedure, const gchar *verb, GimpDrawable **drawables,
              GimpPDBStatusType *status, GError **error)
{
  gsize n = drawables ? gimp_core_object_array_get_length ((GObject **) drawables) : 0;

  if (n != 1)
    {
      *status = GIMP_PDB_CALLING_ERROR;
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "%s works on exactly one drawable; %" G_GSIZE_FORMAT " given",
                   gimp_procedure_get_name (procedure), n);
      return NULL;
    }
  *status = GIMP_PDB_EXECUTION_ERROR;
  if (gimp_item_is_group (GIMP_ITEM (drawables[0])))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                 "cannot %s a layer group; pick one of its layers", verb);
  else if (gimp_drawable_is_indexed (drawables[0]))
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                 "cannot %s an indexed image; convert it to RGB or grayscale "
                 "(Image > Mode) first", verb);
  else
    {
      *status = GIMP_PDB_SUCCESS;
      return drawables[0];
    }
  return NULL;
}

/* Applies 's' to the drawable: through GIMP's operation, merged, where
 * GIMP has it and the selection leaves nothing out; else on the plug-in's
 * own engine, '*ctx' (made where NULL).  FALSE and 'error' where it
 * failed, the drawable as it was. */
static gboolean
apply (GimpImage *image, GimpDrawable *drawable, RenderSettings *s, CcContext **ctx,
       GimpRunMode run_mode, gint64 start, Applied *applied, GError **error)
{
  CcTransfer *transfer = NULL;
  CcResult result;
  gboolean ok = TRUE;

  if (!selection_is_partial (drawable) && apply_filter (drawable, s, applied))
    ;
  /* No operation in GIMP, or a selection: the plug-in moves the pixels, on
   * its own engine. */
  else if (!(transfer = render_transfer_new (drawable, error)) && *error)
    ok = FALSE;
  else
    {
      s->transfer = transfer;
      *ctx = *ctx ? *ctx : cc_context_new ();
      if ((ok = render_drawable (image, drawable, s, *ctx, &result, error)))
        {
          applied->method = g_strdup (result.device[0] ? cc_method_name (result.method_used)
                                                       : "");
          applied->device = g_strdup (result.device);
        }
      s->transfer = NULL;
    }
  if (ok)
    {
      applied->ms = (g_get_monotonic_time () - start) / 1000.0;
      if (run_mode != GIMP_RUN_NONINTERACTIVE)
        gimp_displays_flush ();
    }
  cc_transfer_free (transfer);
  return ok;
}

/* Reads plug-in-cuda-convolve's or plug-in-cuda-deconvolve's settings. */
typedef gboolean (*SettingsRead) (GimpProcedureConfig *config, RenderSettings *s,
                                  GError **error);

/* Reads the settings and applies them (unless the dialog left the filter
 * on the layer, 'keep_effect'), on 'ctx' where the plug-in's own engine
 * moves the pixels (made where NULL); the return values. */
static GimpValueArray *
run_settings (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
              GimpDrawable *drawable, GimpProcedureConfig *config, SettingsRead read,
              CcContext *ctx, gboolean keep_effect)
{
  const gint64 start = g_get_monotonic_time ();
  GimpPDBStatusType status = GIMP_PDB_SUCCESS;
  RenderSettings settings = { 0 };
  Applied applied = { NULL, NULL, 0.0 };
  GError *error = NULL;
  GimpValueArray *values;

  if (!read (config, &settings, &error))
    status = GIMP_PDB_CALLING_ERROR;
  else if (keep_effect)
    {
      /* The dialog left the filter on the layer: GIMP computes it when and
       * where it shows it, with the method asked for. */
      applied.method = g_strdup (cc_method_name (settings.method));
      applied.device = g_strdup ("cuda:convolve in GIMP's process, an editable effect");
    }
  else if (!apply (image, drawable, &settings, &ctx, run_mode, start, &applied, &error))
    status = GIMP_PDB_EXECUTION_ERROR;

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
  cc_context_free (ctx);
  return values;
}

static GimpValueArray *
convolve_run (GimpProcedure        *procedure,
              GimpRunMode           run_mode,
              GimpImage            *image,
              GimpDrawable        **drawables,
              GimpProcedureConfig  *config,
              gpointer              run_data)
{
  GimpPDBStatusType status;
  GimpDrawable *drawable;
  CcContext *ctx = NULL;
  GError *error = NULL;
  gboolean keep_effect = FALSE;

  if (!(drawable = one_drawable (procedure, "convolve", drawables, &status, &error)))
    return gimp_procedure_new_return_values (procedure, status, error);

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
  return run_settings (procedure, run_mode, image, drawable, config, settings_from_config,
                       ctx, keep_effect);
}

/* No dialog: GIMP's config holds the arguments given, or, called
 * interactively or with the last values, those of the last run. */
static GimpValueArray *
deconvolve_run (GimpProcedure        *procedure,
                GimpRunMode           run_mode,
                GimpImage            *image,
                GimpDrawable        **drawables,
                GimpProcedureConfig  *config,
                gpointer              run_data)
{
  GimpPDBStatusType status;
  GError *error = NULL;
  GimpDrawable *drawable = one_drawable (procedure, "deconvolve", drawables, &status, &error);

  if (!drawable)
    return gimp_procedure_new_return_values (procedure, status, error);
  return run_settings (procedure, run_mode, image, drawable, config,
                       settings_deconvolve_from_config, NULL, FALSE);
}

/* No dialog: GIMP's config holds the arguments given, or, from the menu,
 * those of its last run there: the defaults (auto, restore). */
static GimpValueArray *
estimate_blur_run (GimpProcedure        *procedure,
                   GimpRunMode           run_mode,
                   GimpImage            *image,
                   GimpDrawable        **drawables,
                   GimpProcedureConfig  *config,
                   gpointer              run_data)
{
  GimpPDBStatusType status;
  GError *error = NULL;
  GimpDrawable *drawable = one_drawable (procedure, "estimate the blur of", drawables,
                                         &status, &error);

  if (!drawable)
    return gimp_procedure_new_return_values (procedure, status, error);
  return estimate_run (procedure, run_mode, image, drawable, config);
}
