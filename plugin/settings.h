/* The procedure's arguments as render settings, and where presets live.
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

/* Shipped presets: the plug-in's folder (or CUDA_CONVOLVE_PRESET_DIR);
 * the user's: the plug-in's folder in the GIMP profile.  g_free them. */
gchar    *settings_shipped_preset_dir  (void);
gchar    *settings_user_preset_dir     (void);

/* Host memory the plug-in's bands in flight may take (two sources and a
 * result), so that layers of any size run in bounded memory; 256 MB, or
 * CUDA_CONVOLVE_HOST_BUDGET (bytes, or 512M, 2G).  The plug-in's environment is read
 * here, the engine's in engine/env.c. */
gsize     settings_host_budget         (void);

#endif /* CC_SETTINGS_H */
