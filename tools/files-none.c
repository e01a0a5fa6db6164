/* A build without GEGL: the tool reads and writes its raw formats only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "files.h"

bool
files_init (char *error, size_t size)
{
  (void) error;
  (void) size;
  return true;
}

void
files_exit (void)
{
}

const char *
files_formats (void)
{
  return "";
}

bool
files_writes (const char *path)
{
  (void) path;
  return false;
}

bool
files_load (const char *path, FileImage *out, char *error, size_t size)
{
  out->image.data = NULL;
  snprintf (error, size, "%s: not a PFM, PGM, PPM or PAM file (this build reads no other "
            "formats: it was built without GEGL)", path);
  return false;
}

bool
files_save (const char *path, const char *name, const FileImage *im, char *error,
            size_t size)
{
  (void) path;
  (void) im;
  snprintf (error, size, "%s: this build writes PFM, PGM/PPM and PAM only (it was built "
            "without GEGL)", name);
  return false;
}

bool
files_to_raw (FileImage *im, bool pfm, char *error, size_t size)
{
  (void) im;
  (void) pfm;
  (void) error;
  (void) size;
  return true;
}

/* No image here comes through a library: these are never reached. */
bool
files_work (const FileImage *im, bool linear, bool clamp, FileImage *work,
            CcTransfer **transfer, char *error, size_t size)
{
  (void) im;
  (void) linear;
  (void) clamp;
  (void) work;
  *transfer = NULL;
  snprintf (error, size, "this build reads no library formats");
  return false;
}

bool
files_unwork (FileImage *result, const FileImage *own, char *error, size_t size)
{
  (void) result;
  (void) own;
  snprintf (error, size, "this build reads no library formats");
  return false;
}

void
files_image_free (FileImage *im)
{
  free (im->image.data);
  im->image.data = NULL;
}
