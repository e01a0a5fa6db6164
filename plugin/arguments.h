/* The procedures' arguments that plug-in-cuda-convolve and
 * plug-in-cuda-deconvolve share, added in groups so that each procedure
 * keeps its own order: the same names, meanings and ranges in both.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_ARGUMENTS_H
#define CC_ARGUMENTS_H

#include <libgimp/gimp.h>

#include "setting-table.h"

/* The settings 'ids' (engine/setting-table.h), in that order. */
void arguments_add_settings      (GimpProcedure     *procedure,
                                  const CcSettingId *ids,
                                  gint               n);
/* preset, mask-width, mask-height, matrix, divisor, offset, normalize. */
void arguments_add_matrix        (GimpProcedure *procedure);
/* border (its default named) and method. */
void arguments_add_border_method (GimpProcedure *procedure,
                                  CcBorder       border_default);
/* linear, red, green and blue; 'verb' and 'done' say what happens to a
 * channel ("Convolve", "convolved"). */
void arguments_add_channels      (GimpProcedure *procedure,
                                  const gchar   *verb,
                                  const gchar   *done);
/* shape, radius, angle, blades, inner and mask-drawable. */
void arguments_add_shape         (GimpProcedure *procedure);
/* method-used, device and elapsed-ms; 'ms_note' ends elapsed-ms's blurb. */
void arguments_add_return_values (GimpProcedure *procedure,
                                  const gchar   *ms_note);

#endif /* CC_ARGUMENTS_H */
