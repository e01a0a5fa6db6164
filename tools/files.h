/* Image files through a library: PNG, JPEG, TIFF, OpenEXR and WebP, read
 * whole in their own pixel format and written back in it.  GEGL's loaders
 * and savers do the work (JPEG is read with libjpeg directly: GEGL's JPEG
 * loader ends the process on a corrupt file); a build without GEGL has
 * none of these, and says so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_FILES_H
#define CC_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "convolve.h"
#include "imageio.h"

typedef struct
{
  CcImage      image;    /* malloc'd samples, rows 'stride' apart */
  bool         alpha;    /* the last channel is alpha, not premultiplied */
  bool         coded;    /* 8- or 16-bit perceptual codes: linear light goes through
                            transfer tables */
  bool         linear;   /* float samples are linear light (else perceptual) */
  int          maxval;   /* what a raw output writes integer samples with (0: PFM's
                            float, or 65535 from float) */
  const void  *format;   /* the library's pixel format (a Babl *); NULL for
                            images read from raw files */
  bool         half;     /* the file held half floats, which the engine takes as
                            float: an OpenEXR output stores half again */
} FileImage;

/* Starts the library; false and why when it cannot start. */
bool         files_init             (char *error, size_t size);
void         files_exit             (void);
/* "PNG, JPEG, TIFF, OpenEXR, WebP" (those this machine's library has), or
 * "" in a build without it. */
const char  *files_formats          (void);
/* Whether a name's extension is a format this build writes through the
 * library (.png, .jpg/.jpeg, .tif/.tiff, .exr, .webp). */
bool         files_writes           (const char *path);

/* Reads a whole file. */
bool         files_load             (const char *path, FileImage *out, char *error,
                                     size_t size);
/* Converts an image read through the library to what a raw file holds:
 * linear float for PFM ('pfm'), else perceptual codes of 8 or 16 bits, or
 * perceptual float. */
bool         files_to_raw           (FileImage *im, bool pfm, char *error, size_t size);
/* Writes 'im' to 'path' (a new file) in the format 'name' asks for, keeping
 * its precision where that format has it, and its colour profile. */
bool         files_save             (const char *path, const char *name, const FileImage *im,
                                     char *error, size_t size);
/* Tables for a coded image in its own colour space; NULL with no message
 * where the image is not coded. */
CcTransfer  *files_transfer_new     (const FileImage *im, char *error, size_t size);

void         files_image_free       (FileImage *im);

#endif /* CC_FILES_H */
