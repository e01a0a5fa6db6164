/* plug-in-cuda-estimate-blur: a drawable's blur estimated from the image
 * and, where asked, restored with it as an effect the user can adjust.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_ESTIMATE_H
#define CC_ESTIMATE_H

#include <libgimp/gimp.h>

/* shape and restore; the return values shape, radius, angle, confidence. */
void            estimate_add_arguments (GimpProcedure       *procedure);

/* Estimates the blur of 'drawable' (one, neither a group nor indexed) from
 * the selection's bounding box, or the whole of it where nothing is
 * selected, and restores it where the config says: the return values. */
GimpValueArray *estimate_run           (GimpProcedure       *procedure,
                                        GimpRunMode          run_mode,
                                        GimpImage           *image,
                                        GimpDrawable        *drawable,
                                        GimpProcedureConfig *config);

#endif /* CC_ESTIMATE_H */
