/* The procedures' work handed to GIMP: the GEGL operation cuda:convolve
 * (or cuda:deconvolve) as a filter on the drawable, run in GIMP's own
 * process, so that no pixel crosses the plug-in's process boundary.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FILTER_H
#define CC_FILTER_H

#include <libgimp/gimp.h>

#include "render.h"

/* The operation that applies 's': cuda:deconvolve where it undoes a blur,
 * else cuda:convolve. */
const gchar        *filter_operation (const RenderSettings *s);

/* Its filter on 'drawable' configured as 's' says, writing what ran to
 * the file 'report' ("": none; gegl/op-report.h), or NULL where GIMP has
 * no such operation (it could not load the module). */
GimpDrawableFilter *filter_new (GimpDrawable *drawable, const RenderSettings *s,
                                const gchar *report);

/* Configures an existing filter as 's' says. */
void                filter_configure (GimpDrawableFilter *filter, const RenderSettings *s);

#endif /* CC_FILTER_H */
