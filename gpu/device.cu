/* The GPU back end's services: CUDA start-up (on a helper thread), what a
 * method can take, device and page-locked host memory.  A job's run is in
 * scheduler.cu.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.cuh"

CcStatus
cc_gpu_status_of (cudaError_t err)
{
  switch (err)
    {
    case cudaSuccess:                 return CC_OK;
    case cudaErrorMemoryAllocation:   return CC_ERROR_OUT_OF_MEMORY;
    case cudaErrorInsufficientDriver: return CC_ERROR_DRIVER_TOO_OLD;
    case cudaErrorNoDevice:           return CC_ERROR_NO_GPU;
    default:                          return CC_ERROR_GPU;
    }
}

void
cc_gpu_set_status (struct _CcGpu *g, CcStatus status, const char *format, ...)
{
  va_list args;

  g->status = status;
  va_start (args, format);
  vsnprintf (g->message, sizeof g->message, format, args);
  va_end (args);
}

/* Whether the build has a cubin this GPU runs: one for its major version
 * and a minor one no newer than its own.  CUDA_FORCE_PTX_JIT makes the
 * driver compile the PTX all the same. */
static bool
cubin_runs (int major, int minor)
{
  static const int archs[] = CC_CUBIN_ARCHS;
  const char *force = getenv ("CUDA_FORCE_PTX_JIT");

  if (force && *force && strcmp (force, "0") != 0)
    return false;
  for (int i = 0; archs[i]; i++)
    if (archs[i] / 10 == major && archs[i] % 10 <= minor)
      return true;
  return false;
}

static const void *const *const module_kernel[MODULE_COUNT] =
  { &cc_module_convert, &cc_module_textbook, &cc_module_register, &cc_module_separable,
    &cc_module_fft, &cc_module_deconvolve, &cc_module_wiener, &cc_module_estimate };

typedef struct
{
  struct _CcGpu *g;
  int            module;
} ModuleLoad;

/* One module's load on a helper thread: there the driver compiles its PTX
 * (seconds for the large ones), beside the other modules' loads. */
static void *
module_load (void *data)
{
  ModuleLoad *load = (ModuleLoad *) data;
  struct _CcGpu *g = load->g;
  cudaFuncAttributes attr;
  cudaError_t err;

  if ((err = cudaSetDevice (g->device)) == cudaSuccess)
    err = cudaFuncGetAttributes (&attr, *module_kernel[load->module]);
  if (err != cudaSuccess)
    {
      cudaError_t none = cudaSuccess;

      __atomic_compare_exchange_n (&g->load_error, &none, err, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE);
    }
  __atomic_or_fetch (&g->loaded, MODULE_BIT (load->module), __ATOMIC_RELEASE);
  free (load);
  return NULL;
}

/* Where no cubin runs on this GPU, loads every module now, each on a
 * thread, so that a job waits only for what is left of its own; elsewhere
 * the driver loads a module at its first launch, in milliseconds. */
static void
modules_start (struct _CcGpu *g, int major, int minor)
{
  if (cubin_runs (major, minor))
    {
      g->loaded = (1u << MODULE_COUNT) - 1;
      return;
    }
  for (int m = 0; m < MODULE_COUNT; m++)
    {
      ModuleLoad *load = (ModuleLoad *) malloc (sizeof *load);

      if (load)
        {
          load->g = g;
          load->module = m;
        }
      if (!load || pthread_create (&g->loader[m], NULL, module_load, load) != 0)
        {
          free (load);
          g->loader[m] = 0;
          __atomic_or_fetch (&g->loaded, MODULE_BIT (m), __ATOMIC_RELEASE);
        }
    }
}

/* What the machine says more about a failed start-up (cc_gpu_hint),
 * after the status's message. */
static void
add_hint (struct _CcGpu *g)
{
  char hint[320];
  const size_t n = strlen (g->message);

  cc_gpu_hint (g->status, "", hint, sizeof hint);
  if (hint[0])
    snprintf (g->message + n, sizeof g->message - n, "; %s", hint);
}

/* CUDA 13 needs an NVIDIA driver of the 580 series or later. */
#define DRIVER_NEEDED "580"

/* Whether a driver new enough and a GPU are there; if not, the status
 * says which is missing, with the machine's hint. */
static bool
driver_and_gpu (struct _CcGpu *g)
{
  int driver = 0, count = 0;
  cudaError_t err;
  void *lib;

  /* The static runtime loads the driver itself; looking first tells "no
   * driver" apart from "driver too old". */
  if (!(lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)))
    {
      cc_gpu_set_status (g, CC_ERROR_NO_DRIVER,
                  "no NVIDIA driver found (libcuda.so.1); the GPU methods need driver "
                  DRIVER_NEEDED " or later");
      add_hint (g);
      return false;
    }
  dlclose (lib);
  cudaDriverGetVersion (&driver);
  if (driver < CUDART_VERSION)
    {
      cc_gpu_set_status (g, CC_ERROR_DRIVER_TOO_OLD,
                  "the NVIDIA driver supports CUDA %d.%d, this build needs CUDA %d.%d "
                  "(driver " DRIVER_NEEDED " or later)",
                  driver / 1000, driver % 1000 / 10,
                  CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
      add_hint (g);
      return false;
    }
  if ((err = cudaGetDeviceCount (&count)) != cudaSuccess || count == 0)
    {
      cc_gpu_set_status (g, err == cudaSuccess ? CC_ERROR_NO_GPU : cc_gpu_status_of (err),
                  "no usable NVIDIA GPU: %s",
                  err == cudaSuccess ? "none found" : cudaGetErrorString (err));
      add_hint (g);
      return false;
    }
  return true;
}

/* The device's streams, buffers and lanes. */
static cudaError_t
device_set_up (struct _CcGpu *g, cudaDeviceProp *prop)
{
  cudaError_t err;

  g->device = 0;
  if ((err = cudaSetDevice (g->device)) != cudaSuccess ||
      (err = cudaGetDeviceProperties (prop, g->device)) != cudaSuccess ||
      /* A blocking stream: it waits for what callers queued on the legacy
       * default stream, such as an upload of an on_device source whose DMA
       * from pageable memory may still be running when cudaMemcpy returns. */
      (err = cudaStreamCreateWithFlags (&g->stream, cudaStreamDefault)) != cudaSuccess ||
      (err = cudaMalloc (&g->mask, sizeof (float) * CC_MASK_MAX * CC_MASK_MAX)) !=
        cudaSuccess ||
      (err = cudaMalloc (&g->claims, sizeof (Claims) * LANES)) != cudaSuccess ||
      (err = cudaMemset (g->claims, 0, sizeof (Claims) * LANES)) != cudaSuccess ||
      (err = cudaHostAlloc (&g->ran, sizeof (Fallbacks) * LANES, cudaHostAllocDefault)) !=
        cudaSuccess)
    return err;
  for (int l = 0; l < LANES; l++)
    {
      Lane *lane = &g->lane[l];

      lane->claims = g->claims + l;
      lane->ran = g->ran + l;
      memset (lane->ran, 0, sizeof *lane->ran);
      if ((err = cudaStreamCreateWithFlags (&lane->stream, cudaStreamDefault)) != cudaSuccess)
        break;
      for (int i = 0; i < 4 && err == cudaSuccess; i++)
        err = cudaEventCreate (&lane->ev[i]);
      if (err != cudaSuccess)
        break;
    }
  return err;
}

/* Start-up, on the helper thread: the driver, the device, then the
 * kernels' modules (modules_start loads them on threads of their own). */
static void
gpu_start_up (struct _CcGpu *g)
{
  cudaDeviceProp prop;
  cudaError_t err;

  if (g->no_gpu)
    {
      cc_gpu_set_status (g, CC_ERROR_NO_GPU, "GPU use is turned off (CUDA_CONVOLVE_NO_GPU is set)");
      return;
    }
  if (!driver_and_gpu (g))
    return;
  if ((err = device_set_up (g, &prop)) != cudaSuccess)
    {
      cc_gpu_set_status (g, cc_gpu_status_of (err), "could not start the GPU: %s",
                         cudaGetErrorString (err));
      return;
    }
  snprintf (g->name, sizeof g->name, "%s", prop.name);
  g->facts.sms = prop.multiProcessorCount;
  g->facts.major = prop.major;
  g->facts.shared_optin = prop.sharedMemPerBlockOptin;
  g->facts.shared_per_sm = prop.sharedMemPerMultiprocessor;
  /* The tests' smaller GPU: every launcher reads these. */
  if (g->shared_limit && g->shared_limit < g->facts.shared_optin)
    g->facts.shared_optin = g->shared_limit;
  if (g->shared_limit && g->shared_limit < g->facts.shared_per_sm)
    g->facts.shared_per_sm = g->shared_limit;
  g->status = CC_OK;
  modules_start (g, prop.major, prop.minor);
}

/* The helper thread's start-up; callers that must not wait ask
 * cc_gpu_started whether it is done. */
static void *
gpu_start (void *data)
{
  struct _CcGpu *g = (struct _CcGpu *) data;

  gpu_start_up (g);
  __atomic_store_n (&g->started, 1, __ATOMIC_RELEASE);
  return NULL;
}

extern "C" struct _CcGpu *
cc_gpu_new (const CcEnv *env, int threads)
{
  struct _CcGpu *g = (struct _CcGpu *) calloc (1, sizeof *g);

  if (!g)
    return NULL;
  g->no_gpu = env->no_gpu;
  g->fft_cufft = env->cufft && *env->cufft ? strdup (env->cufft) : NULL;
  g->shared_limit = env->shared_limit;
  /* Off: one strip where the image fits, the driver's own copies. */
  g->pipeline = env->pipeline;
  /* Staging copies on the context's threads up to 16, the caller's
   * included: host memory saturates about there (docs: performance.md). */
  g->stage_threads = (threads > 16 ? 16 : threads) - 1;
  pthread_mutex_init (&g->lock, NULL);
  cc_gpu_set_status (g, CC_ERROR_GPU, "GPU start-up did not run");
  if (pthread_create (&g->thread, NULL, gpu_start, g) != 0)
    {
      g->joined = true;
      gpu_start (g);
    }
  return g;
}

/* Waits for start-up, once. */
struct _CcGpu *
cc_gpu_ready (struct _CcGpu *g)
{
  pthread_mutex_lock (&g->lock);
  if (!g->joined)
    {
      pthread_join (g->thread, NULL);
      g->joined = true;
    }
  pthread_mutex_unlock (&g->lock);
  if (g->status == CC_OK)
    cudaSetDevice (g->device);   /* the current device is per thread */
  return g;
}

extern "C" void
cc_gpu_free (struct _CcGpu *g)
{
  if (!g)
    return;
  cc_gpu_ready (g);
  /* A module still compiling holds 'g', and the runtime must not be torn
   * down under the driver's compile: waited for. */
  for (int m = 0; m < MODULE_COUNT; m++)
    if (g->loader[m])
      pthread_join (g->loader[m], NULL);
  if (g->status == CC_OK || g->stream)
    {
      cudaDeviceSynchronize ();
      cudaFree (g->mask);
      cudaFree (g->claims);
      cudaFreeHost (g->ran);
      cudaFree (g->transfer);
      for (int l = 0; l < LANES; l++)
        {
          Lane *lane = &g->lane[l];

          cc_fft_state_free (lane->fft);
          cudaFree (lane->scratch);
          cudaFreeHost (lane->stage);
          for (int i = 0; i < 4; i++)
            if (lane->ev[i])
              cudaEventDestroy (lane->ev[i]);
          if (lane->stream)
            cudaStreamDestroy (lane->stream);
        }
      cudaStreamDestroy (g->stream);
    }
  cc_workers_free (g->stagers);
  for (FftMask &m : g->fft_masks)
    free (m.values);
  free (g->fft_cufft);
  pthread_mutex_destroy (&g->lock);
  free (g);
}

extern "C" CcStatus
cc_gpu_status (struct _CcGpu *g, char *message, size_t size)
{
  if (!g)
    {
      snprintf (message, size, "out of host memory");
      return CC_ERROR_OUT_OF_MEMORY;
    }
  cc_gpu_ready (g);
  snprintf (message, size, "%s", g->status == CC_OK ? g->name : g->message);
  return g->status;
}

extern "C" bool
cc_gpu_started (struct _CcGpu *g)
{
  return !g || __atomic_load_n (&g->started, __ATOMIC_ACQUIRE);
}

extern "C" bool
cc_gpu_compiling (struct _CcGpu *g)
{
  return g && __atomic_load_n (&g->started, __ATOMIC_ACQUIRE) && g->status == CC_OK &&
         __atomic_load_n (&g->loaded, __ATOMIC_ACQUIRE) != (1u << MODULE_COUNT) - 1;
}

CcStatus
cc_gpu_wait_modules (struct _CcGpu *g, unsigned modules, const CcJob *job, CcResult *r)
{
  const CcOptions *o = job->options;
  /* Said only where it takes long: the driver's cached compile loads at once. */
  double next = cc_now_ms () + 250;
  char stage[320] = "";
  cudaError_t err;

  modules |= MODULES_EVERY_JOB;
  while ((__atomic_load_n (&g->loaded, __ATOMIC_ACQUIRE) & modules) != modules)
    {
      const struct timespec tick = { 0, 10 * 1000 * 1000 };

      if (o->stage && cc_now_ms () >= next)
        {
          if (!*stage)
            snprintf (stage, sizeof stage, "Compiling the GPU kernels for %s, the first "
                      "time on this GPU model", g->name);
          o->stage (stage, o->user_data);
          next += 100;
        }
      if (o->cancel && o->cancel (o->user_data))
        {
          if (*stage)
            o->stage (NULL, o->user_data);
          return cc_fail (r, CC_ERROR_CANCELLED, "cancelled");
        }
      nanosleep (&tick, NULL);
    }
  if (*stage)
    o->stage (NULL, o->user_data);
  if ((err = __atomic_load_n (&g->load_error, __ATOMIC_ACQUIRE)) != cudaSuccess)
    return cc_fail (r, cc_gpu_status_of (err), "could not load the GPU kernels: %s",
                    cudaGetErrorString (err));
  return CC_OK;
}

extern "C" const char *
cc_gpu_name (struct _CcGpu *g)
{
  return cc_gpu_ready (g)->name;
}

extern "C" uint64_t
cc_gpu_memory_free (struct _CcGpu *g)
{
  char message[8];
  size_t free_bytes = 0, total = 0;

  if (cc_gpu_status (g, message, sizeof message) != CC_OK ||
      cudaMemGetInfo (&free_bytes, &total) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return free_bytes;
}

/* The method's kernels; NULL for a method that is not a GPU one. */
static const CcKernels *
method_kernels (CcMethod method)
{
  return (unsigned) method < CC_METHOD_COUNT ? cc_methods[method].kernels : NULL;
}

extern "C" bool
cc_gpu_one_pass (struct _CcGpu *g, CcMethod method, const CcJob *job)
{
  char message[8];
  const CcKernels *k = method_kernels (method);

  return k && k->one_pass && cc_gpu_status (g, message, sizeof message) == CC_OK &&
         k->one_pass (g, job);
}

/* Whether a job's deconvolution step can ride in the method's finish: the
 * fft method's plain sums into device planes of floats (alpha weighting's
 * exact pixels and copied channels are written past the step). */
static CcStatus
follow_check (const CcKernels *k, const CcJob *job, CcMethod method, char *message,
              size_t size)
{
  bool plain = !job->weighted;

  for (int c = 0; c < job->channels; c++)
    plain = plain && job->mode[c] == CC_MODE_PLAIN;
  if (!k->follows)
    snprintf (message, size, "a deconvolution step follows only the fft method's finish, "
              "not %s's", cc_method_name (method));
  else if (!job->dst->on_device || job->dst->type != CC_TYPE_FLOAT)
    snprintf (message, size, "a deconvolution step follows a convolution into device planes "
              "of floats only");
  else if (!plain)
    snprintf (message, size, "a deconvolution step follows plain sums only, not alpha "
              "weighting or copied channels");
  else
    return CC_OK;
  return CC_ERROR_UNSUPPORTED;
}

extern "C" CcStatus
cc_gpu_check (struct _CcGpu *g, CcMethod method, const CcJob *job, char *message,
              size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  const CcKernels *k = method_kernels (method);
  size_t shared = 0;

  if (status != CC_OK)
    return status;
  if (!k)
    {
      snprintf (message, size, "%s is not a GPU method", cc_method_name (method));
      return CC_ERROR_INVALID;
    }
  if ((status = k->check (job, &shared, message, size)) != CC_OK)
    return status;
  if (job->follow.step != CC_FOLLOW_NONE && (status = follow_check (k, job, method, message,
                                                                     size)) != CC_OK)
    return status;
  if (shared > g->facts.shared_optin)
    {
      snprintf (message, size,
                "method %s cannot take a %dx%d mask on %d channels: it needs %zu KB of "
                "shared memory a block, and %s allows %zu KB", cc_method_name (method),
                job->mask_width, job->mask_height, job->channels, shared / 1024, g->name,
                g->facts.shared_optin / 1024);
      return CC_ERROR_UNSUPPORTED;
    }
  return CC_OK;
}

extern "C" CcStatus
cc_gpu_alloc (struct _CcGpu *g, size_t bytes, void **ptr, char *message, size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  cudaError_t err;

  if (status != CC_OK)
    return status;
  if ((err = cudaMalloc (ptr, bytes)) != cudaSuccess)
    {
      snprintf (message, size, "%s", cudaGetErrorString (err));
      return cc_gpu_status_of (err);
    }
  return CC_OK;
}

extern "C" void
cc_gpu_release (struct _CcGpu *g, void *ptr)
{
  if (g && cc_gpu_ready (g)->status == CC_OK)
    cudaFree (ptr);
}

extern "C" CcStatus
cc_gpu_copy (struct _CcGpu *g, void *dst, const void *src, size_t bytes,
             char *message, size_t size)
{
  CcStatus status = cc_gpu_status (g, message, size);
  cudaError_t err;

  if (status != CC_OK)
    return status;
  if ((err = cudaMemcpy (dst, src, bytes, cudaMemcpyDefault)) != cudaSuccess)
    {
      snprintf (message, size, "%s", cudaGetErrorString (err));
      return cc_gpu_status_of (err);
    }
  return CC_OK;
}

extern "C" void *
cc_gpu_host_alloc (struct _CcGpu *g, size_t bytes)
{
  void *ptr = NULL;

  if (!g || cc_gpu_ready (g)->status != CC_OK ||
      cudaHostAlloc (&ptr, bytes, cudaHostAllocPortable) != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return ptr;
}

bool
cc_gpu_host_pinned (const void *ptr)
{
  cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess)
    {
      cudaGetLastError ();
      return false;
    }
  return attr.type == cudaMemoryTypeHost;
}

extern "C" bool
cc_gpu_host_free (struct _CcGpu *g, void *ptr)
{
  if (!g || !ptr || cc_gpu_ready (g)->status != CC_OK || !cc_gpu_host_pinned (ptr))
    return false;
  cudaFreeHost (ptr);
  return true;
}
