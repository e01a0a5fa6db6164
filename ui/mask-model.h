/* A mask being edited: its size and values, and the edits the dialog's
 * buttons make (resize, rotate, flip).  No pixels, no GTK.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_MASK_MODEL_H
#define CC_MASK_MODEL_H

#include <glib.h>

typedef struct
{
  gint     width;    /* odd, 1..127 */
  gint     height;
  gdouble *values;   /* row-major, width * height */
} MaskModel;

void  mask_model_set     (MaskModel *m, gint width, gint height, const gdouble *values);
void  mask_model_clear   (MaskModel *m);
/* A new size keeps the overlapping part, centred; new cells are 0. */
void  mask_model_resize  (MaskModel *m, gint width, gint height);
void  mask_model_rotate  (MaskModel *m, gboolean clockwise);
void  mask_model_flip    (MaskModel *m, gboolean horizontal);

#endif /* CC_MASK_MODEL_H */
