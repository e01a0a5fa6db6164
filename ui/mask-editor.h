/* The mask editor: size, a grid of cells, divisor, offset, normalize,
 * rotate and flip buttons, and the text form "0,1,0;1,-4,1;0,1,0".
 * It emits "changed" when the user edits anything.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_MASK_EDITOR_H
#define CC_MASK_EDITOR_H

#include <gtk/gtk.h>

#include "mask-model.h"

G_BEGIN_DECLS

/* Beyond this many cells a side, a grid is unusable: the text form remains. */
#define MASK_EDITOR_GRID_MAX 15

#define MASK_TYPE_EDITOR (mask_editor_get_type ())
G_DECLARE_FINAL_TYPE (MaskEditor, mask_editor, MASK, EDITOR, GtkBox)

GtkWidget       *mask_editor_new            (void);

/* Shows a mask without emitting "changed". */
void             mask_editor_set            (MaskEditor    *editor,
                                             gint           width,
                                             gint           height,
                                             const gdouble *values,
                                             gdouble        divisor,
                                             gdouble        offset,
                                             gboolean       normalize);

const MaskModel *mask_editor_get_mask       (MaskEditor    *editor);
gdouble          mask_editor_get_divisor    (MaskEditor    *editor);
gdouble          mask_editor_get_offset     (MaskEditor    *editor);
gboolean         mask_editor_get_normalize  (MaskEditor    *editor);

/* What the buttons do (and the tests). */
void             mask_editor_rotate         (MaskEditor    *editor,
                                             gboolean       clockwise);
void             mask_editor_flip           (MaskEditor    *editor,
                                             gboolean       horizontal);
gboolean         mask_editor_set_text       (MaskEditor    *editor,
                                             const gchar   *text,
                                             GError       **error);
gchar           *mask_editor_get_text       (MaskEditor    *editor);

/* Widgets inside, for the tests: a grid cell (NULL when the grid is
 * hidden), and the divisor's spin button. */
GtkWidget       *mask_editor_get_cell       (MaskEditor    *editor,
                                             gint           column,
                                             gint           row);
GtkWidget       *mask_editor_get_divisor_widget (MaskEditor *editor);
gboolean         mask_editor_grid_shown     (MaskEditor    *editor);

G_END_DECLS

#endif /* CC_MASK_EDITOR_H */
