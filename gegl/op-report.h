/* What cuda:convolve ran, for whoever set its "report" property (the
 * procedure, which cannot see into GIMP's process): after each region the
 * file is rewritten whole, under a temporary name then renamed, one line a
 * method and device, in the order they first ran:
 * "METHOD<TAB>DEVICE<TAB>PIXELS<TAB>CALLS<TAB>ENGINE-MS<TAB>KERNELS"
 * (kernels as CcResult names them, "+"-joined).  GLib and the engine only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_REPORT_H
#define CC_OP_REPORT_H

#include <glib.h>

#include "convolve.h"

typedef struct _OpReport OpReport;

/* A report for an operation whose "report" is 'path' ("" or NULL: none,
 * and op_report_add does nothing). */
OpReport *op_report_new  (const gchar *path);
void      op_report_free (OpReport *report);
/* One region's engine call, as its result says, then the file rewritten. */
void      op_report_add  (OpReport *report, const CcResult *result, gint64 pixels);

/* What a report file says: the methods that ran, most pixels first, joined
 * by "+" (one where one ran), their devices alike, the engine's time in
 * all, and the pixels; FALSE where the file is missing or names nothing. */
gboolean  op_report_read (const gchar *path, gchar **methods, gchar **devices,
                          gdouble *engine_ms, gint64 *pixels);

#endif /* CC_OP_REPORT_H */
