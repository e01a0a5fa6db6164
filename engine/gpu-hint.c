/* What the machine says when CUDA finds no usable GPU, beyond what CUDA
 * says: inside Flathub's sandbox, which NVIDIA driver extension to install;
 * anywhere, that the nvidia_uvm module is not loaded (issue 64).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

/* The host's driver version from its kernel module, the first number of
 * dots after "Kernel Module" in /proc/driver/nvidia/version ("... Kernel
 * Module  580.95.05 ..." or "... Open Kernel Module for x86_64  580.95.05
 * ..."), or "". */
static void
kernel_driver (const char *root, char *version, size_t size)
{
  char path[512], line[512];
  FILE *f;

  version[0] = '\0';
  snprintf (path, sizeof path, "%s/proc/driver/nvidia/version", root);
  if (!(f = fopen (path, "r")))
    return;
  while (!version[0] && fgets (line, sizeof line, f))
    {
      char *k = strstr (line, "Kernel Module"), *save = NULL;

      for (char *t = k ? strtok_r (k, " \t\n", &save) : NULL; t && !version[0];
           t = strtok_r (NULL, " \t\n", &save))
        if (t[0] >= '0' && t[0] <= '9' && strchr (t, '.') &&
            strspn (t, "0123456789.") == strlen (t))
          snprintf (version, size, "%s", t);
    }
  fclose (f);
}

static bool
exists (const char *root, const char *path)
{
  char full[512];

  snprintf (full, sizeof full, "%s%s", root, path);
  return access (full, F_OK) == 0;
}

void
cc_gpu_hint (CcStatus status, const char *root, char *hint, size_t size)
{
  char version[64], extension[96];

  hint[0] = '\0';
  kernel_driver (root, version, sizeof version);
  /* Flathub's name for the extension: the version's dots as dashes. */
  snprintf (extension, sizeof extension, "org.freedesktop.Platform.GL.nvidia-%s",
            version[0] ? version : "VERSION");
  for (char *c = extension + strlen ("org.freedesktop.Platform.GL.nvidia-"); *c; c++)
    *c = *c == '.' ? '-' : *c;
  if (status != CC_ERROR_NO_DRIVER && exists (root, "/dev/nvidia0") &&
      !exists (root, "/dev/nvidia-uvm"))
    snprintf (hint, size, "/dev/nvidia-uvm is missing: load the nvidia_uvm kernel module "
              "(sudo modprobe nvidia_uvm)");
  else if (exists (root, "/.flatpak-info") && status != CC_ERROR_NO_GPU)
    snprintf (hint, size, "inside Flatpak the driver's libraries come from Flathub's "
              "extension for the host's driver%s%s: install %s (flatpak update)",
              version[0] ? " " : "", version, extension);
}
