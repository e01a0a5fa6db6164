/* The procedure's work handed to GIMP: the GEGL operation cuda:convolve as
 * a filter on the drawable, run in GIMP's own process, so that no pixel
 * crosses the plug-in's process boundary.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FILTER_H
#define CC_FILTER_H

#include <libgimp/gimp.h>

#include "render.h"

#define FILTER_OPERATION "cuda:convolve"

/* A cuda:convolve filter on 'drawable' configured as 's' says, writing
 * what ran to the file 'report' ("": none; gegl/op-report.h), or NULL
 * where GIMP has no such operation (it could not load the module). */
GimpDrawableFilter *filter_new (GimpDrawable *drawable, const RenderSettings *s,
                                const gchar *report);

/* Configures an existing filter as 's' says. */
void                filter_configure (GimpDrawableFilter *filter, const RenderSettings *s);

#endif /* CC_FILTER_H */
