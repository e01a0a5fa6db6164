/* The procedure's arguments as render settings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SETTINGS_H
#define CC_SETTINGS_H

#include <libgimp/gimp.h>

#include "render.h"

#define PLUG_IN_BINARY "plug-in-cuda-convolve"

/* Reads and checks the procedure's arguments (a preset supplies the mask);
 * FALSE and 'error' say which is wrong and why.  Free s->matrix. */
gboolean  settings_from_config         (GimpProcedureConfig *config,
                                        RenderSettings      *s,
                                        GError             **error);

#endif /* CC_SETTINGS_H */
