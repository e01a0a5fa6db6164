/* Where a job runs when the GPU cannot take it: one table for convolution,
 * Richardson-Lucy and Wiener (docs/design.md, "Where a job runs"), and the
 * one function that applies it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "engine.h"

/* The rule: a row for 'auto', one for a GPU method asked for by name. */
static const CcFallback rules[2][CC_GPU_FAILURE_COUNT] = {
  /*               unusable             unsuited             out of memory
   *               refused              failed */
  [0] = { CC_FALLBACK_NO_GPU, CC_FALLBACK_NO_GPU, CC_FALLBACK_FELL_BACK,
          CC_FALLBACK_FELL_BACK, CC_FALLBACK_FELL_BACK },
  [1] = { CC_FALLBACK_ERROR, CC_FALLBACK_ERROR, CC_FALLBACK_ERROR,
          CC_FALLBACK_ERROR, CC_FALLBACK_ERROR },
};

CcFallback
cc_fallback_rule (CcMethod asked, CcGpuFailure what)
{
  if (asked == CC_METHOD_CPU)
    return CC_FALLBACK_NO_GPU;
  return (unsigned) what < CC_GPU_FAILURE_COUNT ? rules[asked != CC_METHOD_AUTO][what]
                                                : CC_FALLBACK_ERROR;
}

CcGpuFailure
cc_gpu_failure_of (CcStatus status, bool before)
{
  if (before)
    return status == CC_ERROR_UNSUPPORTED ? CC_GPU_UNSUITED : CC_GPU_UNUSABLE;
  switch (status)
    {
    case CC_ERROR_OUT_OF_MEMORY: return CC_GPU_RAN_OUT;
    case CC_ERROR_UNSUPPORTED:   return CC_GPU_REFUSED;
    case CC_ERROR_GPU:           return CC_GPU_FAILED;
    default:                     return CC_GPU_FAILURE_COUNT;   /* the caller's: no rule */
    }
}

void
cc_fallback_note (CcFallback rule, const char *why, char *note, size_t size)
{
  snprintf (note, size, "%s: %.400s",
            rule == CC_FALLBACK_FELL_BACK ? "fell back to the CPU" : "no GPU used", why);
}

CcStatus
cc_run_gpu_or_cpu (CcMethod asked, const CcGpuOrCpu *job, char *note, size_t size,
                   CcResult *r)
{
  char why[sizeof r->message];
  CcFallback rule;
  CcStatus status;
  bool before = true;

  note[0] = '\0';
  if (asked == CC_METHOD_CPU)
    return job->cpu (job->data, r);
  if ((status = job->usable (job->data, why, sizeof why)) == CC_OK)
    {
      before = false;
      if ((status = job->gpu (job->data, r)) == CC_OK)
        return CC_OK;
      snprintf (why, sizeof why, "%s", r->message);
    }
  rule = cc_fallback_rule (asked, cc_gpu_failure_of (status, before));
  if (rule == CC_FALLBACK_ERROR)
    return cc_fail (r, status, "%s", why);
  if (job->on_device)
    return cc_fail (r, status, "%s, and the CPU needs images in host memory", why);
  cc_fallback_note (rule, why, note, size);
  return job->cpu (job->data, r);
}
