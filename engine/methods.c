/* The methods, one row each: what the front ends list and describe, what
 * 'auto' weighs, and, for GPU methods, the kernels that run them.  Adding
 * a method is a row here, its enum value in convolve.h and its kernels'
 * CcKernels in kernels/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "engine.h"

#ifdef HAVE_CUDA
#define KERNELS(name) (&cc_kernels_##name)
#else
#define KERNELS(name) NULL
#endif

/* 'auto' tries the GPU methods by auto_order: first those whose taps
 * bounds hold the mask, then the same ignoring the bounds, then the last
 * resorts.  The bounds are in register's work (the mask's width class
 * times its height) and say where each method wins on 4096x4096 RGBA:
 * separable for rank-1 masks from 9x9 (from 7x7 where its one pass takes
 * the mask), register to 15x15, fft beyond (docs/performance.md, "Why each
 * choice", has the figures).  Masks past a method's mask_max go to one
 * that takes them: fft beyond 127x127 (README, "Limits"). */
const CcMethodInfo cc_methods[CC_METHOD_COUNT] =
{
  [CC_METHOD_AUTO] = {
    .name = "auto", .mask_max = CC_MASK_MAX,
    .summary = "the fastest method that can take the mask; the CPU where no GPU is usable" },
  [CC_METHOD_CPU] = {
    .name = "cpu", .mask_max = CC_MASK_MAX,
    .summary = "all CPU cores" },
  [CC_METHOD_BASIC] = {
    .name = "basic", .gpu = true, .kernels = KERNELS (basic),
    .mask_max = CC_DIRECT_MASK_MAX,
    .summary = "GPU, textbook: every read from global memory",
    .auto_order = 5, .auto_last_resort = true },
  [CC_METHOD_CONSTANT] = {
    .name = "constant", .gpu = true, .kernels = KERNELS (constant),
    .mask_max = CC_DIRECT_MASK_MAX,
    .summary = "GPU, textbook: the mask in constant memory" },
  [CC_METHOD_TILED] = {
    .name = "tiled", .gpu = true, .kernels = KERNELS (tiled),
    .mask_max = CC_DIRECT_MASK_MAX,
    .summary = "GPU, textbook: the input tile and its halo in shared memory" },
  [CC_METHOD_CACHING] = {
    .name = "caching", .gpu = true, .kernels = KERNELS (caching),
    .mask_max = CC_DIRECT_MASK_MAX,
    .summary = "GPU, textbook: the block's pixels in shared memory, the halo through L2",
    .auto_order = 4, .auto_last_resort = true },
  [CC_METHOD_REGISTER] = {
    .name = "register", .gpu = true, .kernels = KERNELS (register),
    .mask_max = CC_DIRECT_MASK_MAX,
    .summary = "GPU: several outputs a thread from a shared-memory tile",
    .auto_order = 2, .auto_max_taps = 25 * 16 },
  [CC_METHOD_SEPARABLE] = {
    .name = "separable", .gpu = true, .kernels = KERNELS (separable),
    .mask_max = CC_DIRECT_MASK_MAX,
    .summary = "GPU: a mask of rank up to 3 as row and column passes",
    .auto_order = 1, .auto_min_taps = 81, .auto_min_taps_one_pass = 49, .auto_rank1 = true },
  [CC_METHOD_FFT] = {
    .name = "fft", .gpu = true, .kernels = KERNELS (fft),
    .mask_max = CC_MASK_MAX,
    .summary = "GPU: FFT tiles, the same cost for any mask size",
    .auto_order = 3 },
};

const char *
cc_method_name (CcMethod method)
{
  return (unsigned) method < CC_METHOD_COUNT ? cc_methods[method].name : "?";
}

bool
cc_method_from_name (const char *name, CcMethod *method)
{
  for (int m = 0; name && m < CC_METHOD_COUNT; m++)
    if (strcmp (name, cc_methods[m].name) == 0)
      {
        *method = (CcMethod) m;
        return true;
      }
  return false;
}

bool
cc_method_is_gpu (CcMethod method)
{
  return (unsigned) method < CC_METHOD_COUNT && cc_methods[method].gpu;
}

bool
cc_method_takes_size (CcMethod method, int width, int height, char *message, size_t size)
{
  const int max = (unsigned) method < CC_METHOD_COUNT ? cc_methods[method].mask_max : 0;

  if (width <= max && height <= max)
    return true;
  snprintf (message, size, "the %s method takes masks to %dx%d, not %dx%d; "
            "cpu and auto take them to %dx%d", cc_method_name (method), max, max,
            width, height, CC_MASK_MAX, CC_MASK_MAX);
  return false;
}
