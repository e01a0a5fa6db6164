/* cuda:convolve's engines: the process's, the CPU-only one of each of
 * GEGL's threads, and whether the GPU takes a region.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <gegl.h>

#include "op-engine.h"

/* Masks of up to this many taps run on the CPU while the GPU starts (a
 * 9x9 takes the CPU about as long as CUDA takes to start); larger ones
 * wait for it. */
#define CPU_WHILE_STARTING_TAPS 81

/* One engine for the process: its GPU starts once, and it serialises the
 * calls of GEGL's threads (the engine runs each on all cores or the GPU). */
CcContext *
op_engine (void)
{
  static gsize once = 0;
  static CcContext *ctx = NULL;

  if (g_once_init_enter (&once))
    {
      ctx = cc_context_new ();
      g_once_init_leave (&once, 1);
    }
  return ctx;
}

/* GEGL's threads, and the cores each one's CPU context takes. */
static void
cpu_share (gint *gegl_threads, gint *each)
{
  gint threads = 1;

  g_object_get (gegl_config (), "threads", &threads, NULL);
  *gegl_threads = MAX (1, threads);
  *each = MAX (1, (gint) g_get_num_processors () / *gegl_threads);
}

/* GEGL splits a region among its threads and waits for all of them, so one
 * shared context (which serialises calls) would leave cores idle: each of
 * GEGL's threads has a CPU-only context of its own, the cores shared out
 * among them. */
CcContext *
op_engine_cpu (void)
{
  static GPrivate own = G_PRIVATE_INIT ((GDestroyNotify) cc_context_free);
  CcContext *ctx = g_private_get (&own);

  if (!ctx)
    {
      gint threads, each;

      cpu_share (&threads, &each);
      ctx = cc_context_new_cpu (each);
      g_private_set (&own, ctx);
    }
  return ctx;
}

/* A context's own name would count only its share. */
void
op_engine_name_cpu_share (CcResult *result)
{
  gint threads, each;

  cpu_share (&threads, &each);
  g_snprintf (result->device, sizeof result->device, "CPU (%d thread%s)",
              threads * each, threads * each == 1 ? "" : "s");
}

/* Where a GPU is usable, with an explicit GPU method (which waits for CUDA
 * to start) or auto, except while CUDA still starts for masks the CPU
 * takes quickly, and while the driver compiles the kernels for a GPU newer
 * than the build (seconds, once per GPU model), which GIMP must not wait
 * for, whatever the method. */
gboolean
op_engine_takes_gpu (CcMethod method, gint taps)
{
  char why[8];

  if (!taps || method == CC_METHOD_CPU)
    return FALSE;
  if (method == CC_METHOD_AUTO && !cc_context_gpu_started (op_engine ()) &&
      taps <= CPU_WHILE_STARTING_TAPS)
    return FALSE;
  return cc_context_gpu_status (op_engine (), why, sizeof why) == CC_OK &&
         !cc_context_gpu_compiling (op_engine ());
}
