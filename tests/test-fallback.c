/* The one fallback rule (engine/fallback.c, docs/design.md): its table;
 * cc_run_gpu_or_cpu on every row, with a job whose GPU fails as asked;
 * and convolution, Richardson-Lucy and Wiener on a context without a GPU,
 * the row every machine can run ("unusable"); and what cc_gpu_hint adds
 * to a GPU's absence, inside Flathub's sandbox and out.  The rows that need a GPU
 * run in test-gpu (check_fallback_gpu).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine.h"

/* The table as docs/design.md writes it: auto takes the CPU, saying "no
 * GPU used" where the GPU could not start the job and "fell back" where
 * its run failed; a GPU method asked for by name is an error in every row. */
static const CcFallback documented[2][CC_GPU_FAILURE_COUNT] = {
  { CC_FALLBACK_NO_GPU, CC_FALLBACK_NO_GPU, CC_FALLBACK_FELL_BACK, CC_FALLBACK_FELL_BACK,
    CC_FALLBACK_FELL_BACK },
  { CC_FALLBACK_ERROR, CC_FALLBACK_ERROR, CC_FALLBACK_ERROR, CC_FALLBACK_ERROR,
    CC_FALLBACK_ERROR },
};

static const char *const failure_names[CC_GPU_FAILURE_COUNT] = {
  "unusable", "unsuited", "out of memory", "refused", "failed"
};

/* A job whose GPU side ends as the row says. */
typedef struct
{
  CcStatus before, run;   /* 'usable's and 'gpu's statuses */
  int      gpu_ran, cpu_ran;
} Fake;

static CcStatus
fake_usable (void *data, char *why, size_t size)
{
  const Fake *f = data;

  snprintf (why, size, "the GPU said no before");
  return f->before;
}

static CcStatus
fake_gpu (void *data, CcResult *r)
{
  Fake *f = data;

  f->gpu_ran++;
  return f->run == CC_OK ? CC_OK : cc_fail (r, f->run, "the GPU said no as it ran");
}

static CcStatus
fake_cpu (void *data, CcResult *r)
{
  Fake *f = data;

  f->cpu_ran++;
  snprintf (r->message, sizeof r->message, "%s", "");
  return CC_OK;
}

static void
test_table (void)
{
  static const CcMethod asked[] = { CC_METHOD_AUTO, CC_METHOD_TILED, CC_METHOD_FFT };
  static const CcStatus before[CC_GPU_FAILURE_COUNT] = {
    CC_ERROR_NO_GPU, CC_ERROR_UNSUPPORTED, CC_OK, CC_OK, CC_OK };
  static const CcStatus run[CC_GPU_FAILURE_COUNT] = {
    CC_OK, CC_OK, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_UNSUPPORTED, CC_ERROR_GPU };

  for (size_t a = 0; a < sizeof asked / sizeof asked[0]; a++)
    for (int w = 0; w < CC_GPU_FAILURE_COUNT; w++)
      for (int device = 0; device < 2; device++)
        {
          const CcFallback want = documented[asked[a] != CC_METHOD_AUTO][w];
          Fake f = { before[w], run[w], 0, 0 };
          const CcGpuOrCpu job = { fake_usable, fake_gpu, fake_cpu, &f, device };
          char note[512];
          CcResult r;
          CcStatus st;
          bool ok;

          memset (&r, 0, sizeof r);
          CHECK (cc_fallback_rule (asked[a], (CcGpuFailure) w) == want &&
                 cc_gpu_failure_of (w < CC_GPU_RAN_OUT ? before[w] : run[w],
                                    w < CC_GPU_RAN_OUT) == (CcGpuFailure) w,
                 "%s, %s: the table's row", cc_method_name (asked[a]), failure_names[w]);
          st = cc_run_gpu_or_cpu (asked[a], &job, note, sizeof note, &r);
          if (want == CC_FALLBACK_ERROR || device)
            ok = st != CC_OK && f.cpu_ran == 0 && !note[0] &&
                 strstr (r.message, "the GPU said no") &&
                 (want == CC_FALLBACK_ERROR) ==
                   !strstr (r.message, "the CPU needs images in host memory");
          else
            ok = st == CC_OK && f.cpu_ran == 1 &&
                 strncmp (note, want == CC_FALLBACK_NO_GPU ? "no GPU used: the GPU said no"
                                                           : "fell back to the CPU: the GPU "
                                                             "said no",
                          want == CC_FALLBACK_NO_GPU ? 28 : 36) == 0;
          CHECK (ok && f.gpu_ran == (w >= CC_GPU_RAN_OUT),
                 "%s, %s%s: %s, the GPU ran %d, the CPU %d, '%s' '%s'",
                 cc_method_name (asked[a]), failure_names[w],
                 device ? ", images on the device" : "", cc_status_name (st), f.gpu_ran,
                 f.cpu_ran, note, r.message);
        }
  /* A cancel or a bad call as the GPU runs stands, whatever was asked. */
  for (int a = 0; a < 2; a++)
    {
      Fake f = { CC_OK, CC_ERROR_CANCELLED, 0, 0 };
      const CcGpuOrCpu job = { fake_usable, fake_gpu, fake_cpu, &f, false };
      char note[512];
      CcResult r;

      memset (&r, 0, sizeof r);
      CHECK (cc_run_gpu_or_cpu (a ? CC_METHOD_TILED : CC_METHOD_AUTO, &job, note, sizeof note,
                                &r) == CC_ERROR_CANCELLED && f.cpu_ran == 0,
             "a cancel on the GPU stands (%s)", a ? "tiled" : "auto");
    }
  {
    Fake f = { CC_ERROR_NO_GPU, CC_OK, 0, 0 };
    const CcGpuOrCpu job = { fake_usable, fake_gpu, fake_cpu, &f, false };
    char note[512];
    CcResult r;

    memset (&r, 0, sizeof r);
    CHECK (cc_run_gpu_or_cpu (CC_METHOD_CPU, &job, note, sizeof note, &r) == CC_OK &&
           f.cpu_ran == 1 && f.gpu_ran == 0 && !note[0], "cpu runs the CPU, no note");
  }
}

/* The three jobs on a context without a GPU: 'auto' takes the CPU saying
 * why, a GPU method fails saying why, the output untouched. */
static void
test_unusable (void)
{
  CcContext *ctx = cc_context_new_cpu (1);
  float in[24 * 20], out[24 * 20];
  const CcImage src = { in, CC_TYPE_FLOAT, 1, 24, 20, 24 * 4, false };
  const CcImage dst = { out, CC_TYPE_FLOAT, 1, 24, 20, 24 * 4, false };
  double values[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  const CcMask mask = { 3, 3, values, 16, 0 };
  static const char *const jobs[] = { "convolution", "richardson-lucy", "wiener" };

  for (int i = 0; i < 24 * 20; i++)
    in[i] = check_scene (i % 24, i / 24, 0);
  for (int j = 0; j < 3; j++)
    for (int a = 0; a < 2; a++)
      {
        CcOptions o;
        CcDeconvolveParams p;
        CcResult r;
        CcStatus st;
        bool untouched = true;

        cc_options_init (&o);
        o.method = a ? CC_METHOD_TILED : CC_METHOD_AUTO;
        cc_deconvolve_params_init (&p);
        p.algorithm = j == 2 ? CC_DECONVOLVE_WIENER : CC_DECONVOLVE_RICHARDSON_LUCY;
        memset (out, 0xff, sizeof out);
        st = j == 0 ? cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r)
                    : cc_deconvolve (ctx, &src, &dst, &mask, &o, &p, &r);
        for (int i = 0; i < 24 * 20; i++)
          untouched = untouched && isnan (out[i]);
        if (a)
          CHECK (st == CC_ERROR_NO_GPU && strstr (r.message, "CPU-only") && untouched,
                 "%s by tiled without a GPU: %s '%s'", jobs[j], cc_status_name (st),
                 r.message);
        else if (j == 2 && !check_cpu_wiener ())
          CHECK (st == CC_ERROR_UNSUPPORTED && strstr (r.message, "FFTW") && untouched,
                 "wiener by auto without a GPU nor FFTW: %s '%s'", cc_status_name (st),
                 r.message);
        else
          CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU &&
                 strcmp (r.message, "no GPU used: a CPU-only context") == 0,
                 "%s by auto without a GPU: %s '%s'", jobs[j], cc_status_name (st),
                 r.message);
      }
  cc_context_free (ctx);
}

/* A root of the files cc_gpu_hint reads: 'flatpak' its sandbox's marker,
 * the host driver's version, and /dev's nodes. */
static void
make_root (const char *root, bool flatpak, bool version, bool nvidia0, bool uvm)
{
  char path[512];
  FILE *f;

  snprintf (path, sizeof path, "mkdir -p %s/proc/driver/nvidia %s/dev", root, root);
  CHECK (system (path) == 0, "%s", path);
  if (flatpak)
    {
      snprintf (path, sizeof path, "%s/.flatpak-info", root);
      if ((f = fopen (path, "w")))
        fclose (f);
    }
  if (version)
    {
      snprintf (path, sizeof path, "%s/proc/driver/nvidia/version", root);
      if ((f = fopen (path, "w")))
        {
          fputs ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  "
                 "Release Build  (dvs-builder@U16-I3-B07-3-1)  Thu Sep 25 2025\n"
                 "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n", f);
          fclose (f);
        }
    }
  snprintf (path, sizeof path, "%s/dev/nvidia0", root);
  if (nvidia0 && (f = fopen (path, "w")))
    fclose (f);
  snprintf (path, sizeof path, "%s/dev/nvidia-uvm", root);
  if (uvm && (f = fopen (path, "w")))
    fclose (f);
}

/* What the machine says more where CUDA finds no GPU (cc_gpu_hint), on
 * roots made for each case. */
static void
test_gpu_hint (void)
{
  static const struct
  {
    const char *what;
    bool        flatpak, version, nvidia0, uvm;
    CcStatus    status;
    const char *says;   /* NULL: nothing */
  } cases[] = {
    { "no driver in Flatpak", true, true, true, true, CC_ERROR_NO_DRIVER,
      "install org.freedesktop.Platform.GL.nvidia-580-95-05 (flatpak update)" },
    { "a driver that does not match the host's in Flatpak", true, true, true, true,
      CC_ERROR_GPU, "org.freedesktop.Platform.GL.nvidia-580-95-05" },
    { "no driver in Flatpak, the host's version unknown", true, false, false, false,
      CC_ERROR_NO_DRIVER, "org.freedesktop.Platform.GL.nvidia-VERSION" },
    { "no /dev/nvidia-uvm", false, true, true, false, CC_ERROR_NO_GPU,
      "sudo modprobe nvidia_uvm" },
    { "no /dev/nvidia-uvm in Flatpak", true, true, true, false, CC_ERROR_GPU,
      "sudo modprobe nvidia_uvm" },
    { "no driver outside Flatpak", false, true, false, false, CC_ERROR_NO_DRIVER, NULL },
    { "a GPU turned off in Flatpak", true, true, true, true, CC_ERROR_NO_GPU, NULL },
    { "every node there, outside Flatpak", false, true, true, true, CC_ERROR_GPU, NULL },
  };
  char base[] = "/tmp/cc-hint.XXXXXX";

  CHECK (mkdtemp (base) != NULL, "a scratch folder");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char root[600], hint[320];

      snprintf (root, sizeof root, "%s/%zu", base, i);
      make_root (root, cases[i].flatpak, cases[i].version, cases[i].nvidia0, cases[i].uvm);
      cc_gpu_hint (cases[i].status, root, hint, sizeof hint);
      CHECK (cases[i].says ? strstr (hint, cases[i].says) != NULL : hint[0] == '\0',
             "%s: '%s'", cases[i].what, hint);
    }
  {
    char rm[600];

    snprintf (rm, sizeof rm, "rm -rf %s", base);
    CHECK (system (rm) == 0, "%s", rm);
  }
}

int
main (void)
{
  check_seed ();
  test_table ();
  test_unusable ();
  test_gpu_hint ();
  printf ("the fallback rule: %d failures\n", check_failures);
  return check_failures ? 1 : 0;
}
