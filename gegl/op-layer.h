/* cuda:convolve-layer: cuda:convolve with an aux input, an image whose
 * luminance makes the mask.  It is an operation of its own because GIMP
 * 3.0 lets no operation with an "aux" pad stay on a layer as a
 * non-destructive effect (it cannot save the drawable: drawable-cmds.c,
 * gimpfiltertool.c), so cuda:convolve, which stays, has none.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_LAYER_H
#define CC_OP_LAYER_H

#include <gegl-plugin.h>

#include "op-state.h"

/* Registers cuda:convolve-layer in 'module': a subclass of 'convolve'
 * (cuda:convolve's type), whose class and instance sizes it shares. */
void     op_layer_register    (GTypeModule *module, GType convolve, guint16 class_size,
                               guint16 instance_size);
/* At prepare: whether an image is connected to the aux input, and then
 * its mask's size, known before its pixels ('width', 'height' left alone
 * where it is too large to be one); the aux pad's format set. */
gboolean op_layer_prepare_aux (GeglOperation *operation, gint *width, gint *height);
/* Where the aux input makes the mask, its image read whole, as each region
 * is processed (a painted mask layer changes in place), into 'state'. */
void     op_layer_update_aux  (GeglOperation *operation, GeglOperationContext *context,
                               OpState *state);

#endif /* CC_OP_LAYER_H */
