/* The layer operations, cuda:convolve-layer and cuda:deconvolve-layer:
 * their operation with an aux input, an image whose luminance makes the
 * mask.  Each is an operation of its own because GIMP 3.0 lets no
 * operation with an "aux" pad stay on a layer as a non-destructive effect
 * (it cannot save the drawable: drawable-cmds.c, gimpfiltertool.c), so
 * cuda:convolve and cuda:deconvolve, which stay, have none.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_LAYER_H
#define CC_OP_LAYER_H

#include <gegl-plugin.h>

#include "op-state.h"

/* Registers in 'module' the layer operation of 'parent' (cuda:convolve's
 * or cuda:deconvolve's type, whose class and instance sizes it shares):
 * its name with "-layer", its title and menu label made with 'verb'
 * ("Convolve", "Deconvolve"), a static string. */
void     op_layer_register   (GTypeModule *module, GType parent, guint16 class_size,
                              guint16 instance_size, const gchar *verb);
/* At prepare: whether an image on the aux input makes the mask (the aux
 * pad's format then set), in 'state', and the mask's size (the aux image's
 * where it makes it, known before its pixels), 0 x 0 where none is known
 * yet. */
void     op_layer_prepare    (GeglOperation *operation, OpState *state, gint *width,
                              gint *height);
/* Where the aux input makes the mask, its image read whole, as each region
 * is processed (a painted mask layer changes in place), into 'state'. */
void     op_layer_update_aux (GeglOperation *operation, GeglOperationContext *context,
                              OpState *state);

#endif /* CC_OP_LAYER_H */
