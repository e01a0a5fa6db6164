/* The plug-in's dialog.  It edits the procedure's config and shows a preview;
 * it does no pixel math of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DIALOG_H
#define CC_DIALOG_H

#include <libgimp/gimp.h>

#include "convolve.h"

/* Runs the dialog; TRUE when the user pressed OK.  *keep_effect is then
 * TRUE where the user kept the result as an editable effect: the filter is
 * already on the drawable, configured as 'config' says, and nothing is left
 * to merge. */
gboolean convolve_dialog (GimpProcedure       *procedure,
                          GimpProcedureConfig *config,
                          GimpDrawable        *drawable,
                          CcContext           *ctx,
                          const gchar         *shipped_preset_dir,
                          const gchar         *user_preset_dir,
                          gboolean            *keep_effect);

#endif /* CC_DIALOG_H */
