/* The engine's context: its settings (from the environment, once), the
 * CPU's threads, the GPU back end, and memory on the device or page-locked
 * on the host.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

static CcContext *
context_new (bool gpu, int threads)
{
  CcContext *ctx = calloc (1, sizeof *ctx);
  CcEnv env;
  long n;

  if (!ctx)
    return NULL;
  pthread_mutex_init (&ctx->lock, NULL);
  cc_env_read (&env);

  n = threads > 0 ? threads : env.threads ? env.threads : sysconf (_SC_NPROCESSORS_ONLN);
  ctx->threads = n < 1 ? 1 : n > 256 ? 256 : (int) n;
  snprintf (ctx->cpu_name, sizeof ctx->cpu_name, "CPU (%d thread%s)",
            ctx->threads, ctx->threads == 1 ? "" : "s");
  ctx->budget = env.device_budget;
  ctx->cpu_only = !gpu;
  ctx->gpu = gpu ? cc_gpu_new (&env, ctx->threads) : NULL;
  return ctx;
}

CcContext *
cc_context_new (void)
{
  return context_new (true, 0);
}

CcContext *
cc_context_new_cpu (int threads)
{
  return context_new (false, threads);
}

void
cc_context_free (CcContext *ctx)
{
  if (!ctx)
    return;
  cc_gpu_free (ctx->gpu);
  free (ctx->sep_mask);
  free (ctx->sep_u);
  free (ctx->sep_v);
  pthread_mutex_destroy (&ctx->lock);
  free (ctx);
}

CcStatus
cc_context_gpu_status (CcContext *ctx, char *message, size_t size)
{
  if (ctx->cpu_only)
    {
      snprintf (message, size, "a CPU-only context");
      return CC_ERROR_NO_GPU;
    }
  return cc_gpu_status (ctx->gpu, message, size);
}

bool
cc_context_gpu_started (CcContext *ctx)
{
  return ctx->cpu_only || cc_gpu_started (ctx->gpu);
}

bool
cc_context_gpu_compiling (CcContext *ctx)
{
  return !ctx->cpu_only && cc_gpu_compiling (ctx->gpu);
}

const char *
cc_context_device_name (CcContext *ctx)
{
  char buf[8];

  if (cc_context_gpu_status (ctx, buf, sizeof buf) == CC_OK)
    return cc_gpu_name (ctx->gpu);
  return ctx->cpu_name;
}

const char *
cc_context_cpu_name (CcContext *ctx)
{
  return ctx->cpu_name;
}

void
cc_context_set_device_budget (CcContext *ctx, uint64_t bytes)
{
  pthread_mutex_lock (&ctx->lock);
  ctx->budget = bytes;
  pthread_mutex_unlock (&ctx->lock);
}

CcStatus
cc_device_alloc (CcContext *ctx, size_t bytes, void **ptr)
{
  char msg[256];

  return cc_gpu_alloc (ctx->gpu, bytes, ptr, msg, sizeof msg);
}

void
cc_device_free (CcContext *ctx, void *ptr)
{
  cc_gpu_release (ctx->gpu, ptr);
}

CcStatus
cc_device_copy (CcContext *ctx, void *dst, const void *src, size_t bytes,
                bool to_device)
{
  char msg[256];

  (void) to_device;   /* unified addressing tells the direction */
  return cc_gpu_copy (ctx->gpu, dst, src, bytes, msg, sizeof msg);
}

void *
cc_host_alloc (CcContext *ctx, size_t bytes)
{
  void *ptr = ctx ? cc_gpu_host_alloc (ctx->gpu, bytes) : NULL;

  return ptr ? ptr : malloc (bytes);
}

void
cc_host_free (CcContext *ctx, void *ptr)
{
  if (ptr && !(ctx && cc_gpu_host_free (ctx->gpu, ptr)))
    free (ptr);
}
