/* The procedure's arguments as render settings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SETTINGS_H
#define CC_SETTINGS_H

#include <libgimp/gimp.h>

#include "render.h"

#define PLUG_IN_BINARY "plug-in-cuda-convolve"

/* The mask 'source' resolves to (cc_mask_resolve: one resolution for every
 * front end) into s->matrix, its size, divisor and offset; FALSE and
 * 'error' ('what', then why) where it does not.  Free s->matrix. */
gboolean  settings_resolve_mask        (const CcMaskSource  *source,
                                        RenderSettings      *s,
                                        const gchar         *what,
                                        GError             **error);
/* Reads and checks plug-in-cuda-convolve's arguments (a preset supplies
 * the mask); FALSE and 'error' say which is wrong and why.  Free
 * s->matrix. */
gboolean  settings_from_config         (GimpProcedureConfig *config,
                                        RenderSettings      *s,
                                        GError             **error);
/* The same for plug-in-cuda-deconvolve's, the mask checked as the blur
 * cc_deconvolve takes. */
gboolean  settings_deconvolve_from_config (GimpProcedureConfig *config,
                                           RenderSettings      *s,
                                           GError             **error);

#endif /* CC_SETTINGS_H */
