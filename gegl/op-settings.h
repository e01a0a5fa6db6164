/* The operation's mask properties (preset, matrix, divisor, offset,
 * normalize) checked and resolved as the procedure resolves its arguments.
 * GLib and the engine only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_SETTINGS_H
#define CC_OP_SETTINGS_H

#include <glib.h>

#include "convolve.h"

typedef struct
{
  gint      refs;       /* a region holds its settings while it runs */
  gboolean  valid;
  gchar    *message;    /* why not, when not valid */
  gint      width;
  gint      height;
  gdouble  *values;     /* row-major */
  gdouble   divisor;    /* normalize applied */
  gdouble   offset;
} OpSettings;

/* A shape other than CC_SHAPE_MATRIX makes the mask, the others then
 * ignored.  same_matrix: settings made from the same matrix text, whose
 * values are taken rather than parsed again (a 127x127 text takes
 * milliseconds), or NULL. */
OpSettings *op_settings_new       (const CcShapeSpec *shape, const gchar *preset,
                                    const gchar *matrix, gdouble divisor, gdouble offset,
                                    gboolean normalize, const OpSettings *same_matrix);
/* An image on the aux input as the mask: its pixels as "YA float"
 * (luminance in linear light, alpha), width x height; NULL: not read. */
OpSettings *op_settings_new_image (const gfloat *ya, gint width, gint height);
/* Whether two settings hold the same mask. */
gboolean    op_settings_equal     (const OpSettings *a, const OpSettings *b);
OpSettings *op_settings_ref       (OpSettings *settings);
void        op_settings_unref     (OpSettings *settings);

#endif /* CC_OP_SETTINGS_H */
