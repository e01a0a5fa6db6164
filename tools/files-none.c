/* A build without GEGL: the tool reads and writes its raw formats only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "files.h"
#include "samples.h"

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

/* babl's sRGB luminance (its primaries adapted to D50, as ICC profiles hold
 * them), which GIMP's reading of a layer as "YA float" weighs with. */
static const double srgb_luminance[3] = { 0.22248794, 0.71690384, 0.06060826 };

bool
files_mask_pixels (const FileImage *im, float **ya, char *error, size_t size)
{
  const int C = im->image.channels, colour = C - (im->alpha ? 1 : 0);
  const int64_t w = im->image.width, h = im->image.height;
  float *out = malloc (sizeof (float) * 2 * (size_t) (w * h));

  if (!out)
    {
      snprintf (error, size, "out of memory for the mask image");
      return false;
    }
  for (int64_t y = 0; y < h; y++)
    for (int64_t x = 0; x < w; x++)
      {
        const char *row = (const char *) im->image.data + y * im->image.stride;
        double lum = 0.0, v;

        for (int c = 0; c < colour; c++)
          {
            v = cc_sample_get (row, im->image.type, x * C + c);
            v = im->linear ? v : cc_srgb_to_linear (v);
            lum += colour == 1 ? v : srgb_luminance[c] * v;
          }
        out[2 * (y * w + x)] = (float) lum;
        out[2 * (y * w + x) + 1] =
          im->alpha ? (float) cc_sample_get (row, im->image.type, x * C + C - 1) : 1.0f;
      }
  *ya = out;
  return true;
}

void
files_image_free (FileImage *im)
{
  free (im->image.data);
  im->image.data = NULL;
}
