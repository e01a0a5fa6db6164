/* The engines cuda:convolve calls, and which one takes a region: one
 * context for the process, which holds the GPU, and a CPU-only one for
 * each of GEGL's threads.  GLib, GEGL's configuration and the engine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_ENGINE_H
#define CC_OP_ENGINE_H

#include <glib.h>

#include "convolve.h"

/* The process's engine; CUDA starts on its helper thread at the first
 * call. */
CcContext *op_engine                (void);
/* The calling thread's CPU-only engine, for the CPU path's share of a
 * region that GEGL gave this thread. */
CcContext *op_engine_cpu            (void);
/* Names, in 'result', the CPU contexts of all of GEGL's threads together,
 * where a region ran on one thread's. */
void       op_engine_name_cpu_share (CcResult *result);
/* Whether a region of a mask of 'taps' (0: none) runs on the GPU under
 * 'method'. */
gboolean   op_engine_takes_gpu      (CcMethod method, gint taps);

#endif /* CC_OP_ENGINE_H */
