/* The plug-in's dialog.  It edits the procedure's config and shows a preview;
 * it does no pixel math of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DIALOG_H
#define CC_DIALOG_H

#include <libgimp/gimp.h>

#include "convolve.h"

/* Runs the dialog; TRUE when the user pressed OK. */
gboolean convolve_dialog (GimpProcedure       *procedure,
                          GimpProcedureConfig *config,
                          GimpDrawable        *drawable,
                          CcContext           *ctx,
                          const gchar         *shipped_preset_dir,
                          const gchar         *user_preset_dir);

#endif /* CC_DIALOG_H */
