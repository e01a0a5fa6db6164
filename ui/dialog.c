/* The plug-in's dialog: every argument but the matrix, which GIMP has no
 * widget for, as GimpProcedureDialog lays them out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <libgimp/gimpui.h>

#include "dialog.h"

gboolean
convolve_dialog (GimpProcedure *procedure, GimpProcedureConfig *config,
                 GimpDrawable *drawable, CcContext *ctx,
                 const gchar *shipped_preset_dir, const gchar *user_preset_dir)
{
  GtkWidget *dialog;
  gboolean run;

  gimp_ui_init ("plug-in-cuda-convolve");
  dialog = gimp_procedure_dialog_new (procedure, config, "CUDA Convolution Matrix");
  gimp_procedure_dialog_fill (GIMP_PROCEDURE_DIALOG (dialog),
                              "preset", "mask-width", "mask-height", "divisor", "offset",
                              "normalize", "border", "method", "clamp", "alpha-weighting",
                              "affect-alpha", "linear", NULL);
  run = gimp_procedure_dialog_run (GIMP_PROCEDURE_DIALOG (dialog));
  gtk_widget_destroy (dialog);
  return run;
}
