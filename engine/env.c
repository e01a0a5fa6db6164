/* The engine's environment: every CUDA_CONVOLVE_* variable the engine
 * reads is read here (docs: README.md, Limits and Tests).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

bool
cc_bytes_parse (const char *text, uint64_t *bytes)
{
  char *end;
  double v;

  if (!text)
    return false;
  errno = 0;
  v = strtod (text, &end);
  if (errno || end == text || !(v > 0))
    return false;
  switch (toupper ((unsigned char) *end))
    {
    case 'K': v *= 1024.0; end++; break;
    case 'M': v *= 1024.0 * 1024.0; end++; break;
    case 'G': v *= 1024.0 * 1024.0 * 1024.0; end++; break;
    default: break;
    }
  if (*end || v < 1.0)
    return false;
  *bytes = v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t) v;
  return true;
}

void
cc_env_read (CcEnv *env)
{
  const char *v;

  memset (env, 0, sizeof *env);
  if ((v = getenv ("CUDA_CONVOLVE_THREADS")) && atoi (v) > 0)
    env->threads = atoi (v);
  /* Left 0, the GPU's free memory, where unset or unreadable. */
  cc_bytes_parse (getenv ("CUDA_CONVOLVE_DEVICE_BUDGET"), &env->device_budget);
  v = getenv ("CUDA_CONVOLVE_NO_GPU");
  env->no_gpu = v && *v && strcmp (v, "0") != 0;
  v = getenv ("CUDA_CONVOLVE_PIPELINE");
  env->pipeline = !(v && strcmp (v, "0") == 0);
  env->cufft = getenv ("CUDA_CONVOLVE_CUFFT");
  cc_bytes_parse (getenv ("CUDA_CONVOLVE_SHARED_LIMIT"), &env->shared_limit);
}

uint64_t
cc_host_budget (void)
{
  uint64_t bytes;

  return cc_bytes_parse (getenv ("CUDA_CONVOLVE_HOST_BUDGET"), &bytes) ? bytes
                                                                       : (uint64_t) 256 << 20;
}

/* Read at each call: the tests set it between calls. */
bool
cc_fault (const char *what)
{
  const char *env = getenv ("CUDA_CONVOLVE_FAULT");

  return env && strcmp (env, what) == 0;
}
