/* fft's first room: cuFFT's row transforms, for the bench's comparison
 * alone, loaded with dlopen where CUDA_CONVOLVE_CUFFT names the library.
 * Included by fft.cu only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FFT_CUFFT_CUH
#define CC_FFT_CUFFT_CUH

#include <dlfcn.h>
#include <stdio.h>

#include <cufft.h>   /* types only: the library is loaded at run time */

#include "gpu.cuh"

typedef cufftResult (*PlanManyFn) (cufftHandle *, int, int *, int *, int, int, int *, int,
                                   int, cufftType, int);
typedef cufftResult (*ExecR2CFn) (cufftHandle, cufftReal *, cufftComplex *);
typedef cufftResult (*ExecC2RFn) (cufftHandle, cufftComplex *, cufftReal *);
typedef cufftResult (*SetStreamFn) (cufftHandle, cudaStream_t);
typedef cufftResult (*DestroyFn) (cufftHandle);

static struct
{
  pthread_mutex_t lock;
  bool           tried;
  char           why[256];   /* empty when loaded */
  PlanManyFn     plan_many;
  ExecR2CFn      exec_r2c;
  ExecC2RFn      exec_c2r;
  SetStreamFn    set_stream;
  DestroyFn      destroy;
} cufft = { PTHREAD_MUTEX_INITIALIZER };

static void
load_cufft (const char *path)
{
  void *lib;

  if (!(lib = dlopen (path, RTLD_NOW | RTLD_LOCAL)))
    {
      snprintf (cufft.why, sizeof cufft.why, "cuFFT (CUDA_CONVOLVE_CUFFT) was not loaded: %s",
                dlerror ());
      return;
    }
  cufft.plan_many  = (PlanManyFn) dlsym (lib, "cufftPlanMany");
  cufft.exec_r2c   = (ExecR2CFn) dlsym (lib, "cufftExecR2C");
  cufft.exec_c2r   = (ExecC2RFn) dlsym (lib, "cufftExecC2R");
  cufft.set_stream = (SetStreamFn) dlsym (lib, "cufftSetStream");
  cufft.destroy    = (DestroyFn) dlsym (lib, "cufftDestroy");
  if (!cufft.plan_many || !cufft.exec_r2c || !cufft.exec_c2r || !cufft.set_stream ||
      !cufft.destroy)
    snprintf (cufft.why, sizeof cufft.why, "the cuFFT library found lacks cufftPlanMany");
}

/* Whether a context's fft takes cuFFT's rows: only where the environment
 * named it when the context was made; then cuFFT is loaded, once a
 * process, from the first such context's path (cufft.why says where that
 * failed). */
static bool
cufft_rows (const struct _CcGpu *g)
{
  if (!g->fft_cufft)
    return false;
  pthread_mutex_lock (&cufft.lock);
  if (!cufft.tried)
    load_cufft (g->fft_cufft);
  cufft.tried = true;
  pthread_mutex_unlock (&cufft.lock);
  return true;
}

#endif /* CC_FFT_CUFFT_CUH */
