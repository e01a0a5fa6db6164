/* Image files through libraries: PNG, JPEG, TIFF, OpenEXR and WebP, read
 * whole with the pixels, colour space and orientation GIMP 3 gives them
 * (tools/decode.h, tools/colour.h; TIFF and OpenEXR samples through GEGL's
 * loaders), convolved as GIMP's procedure convolves such a layer, and
 * written back in the same encoding through GEGL's savers.  A build
 * without GEGL has none of these, and says so.
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
  bool         coded;    /* 8- or 16-bit perceptual codes */
  bool         linear;   /* the colour samples are linear light */
  int          maxval;   /* what a raw output writes integer samples with (0: PFM's
                            float, or 65535 from float) */
  const void  *format;   /* the samples' babl format (a Babl *): for a file read
                            through a library, the format GIMP's layer would have:
                            model, sample type and colour space; NULL for images
                            read from raw files (sRGB; PFM linear) */
  bool         tagged;   /* GIMP would tag the image with a colour profile */
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

/* The image as the engine takes it, as the GEGL operation takes a layer in
 * GIMP: 'work' holds the samples in the format the engine works in
 * ('linear' light or perceptual values, clamped or not), a copy converted
 * by babl where that is not the image's own, and '*transfer' the tables
 * through which it reads codes in linear light (NULL where it needs none).
 * A raw file's image (no format) is sRGB, PFM's linear. */
bool         files_work             (const FileImage *im, bool linear, bool clamp,
                                     FileImage *work, CcTransfer **transfer, char *error,
                                     size_t size);
/* A result in 'work''s format back into 'own''s, in place or into new
 * memory. */
bool         files_unwork           (FileImage *result, const FileImage *own, char *error,
                                     size_t size);

/* Converts an image read through the library to what a raw file holds:
 * linear float for PFM ('pfm'), else perceptual codes of 8 or 16 bits, or
 * perceptual float. */
bool         files_to_raw           (FileImage *im, bool pfm, char *error, size_t size);
/* Writes 'im' to 'path' (a new file) in the format 'name' asks for, keeping
 * its precision, linearity and colour space where that format holds them,
 * so that GIMP opens it as the same kind of image. */
bool         files_save             (const char *path, const char *name, const FileImage *im,
                                     char *error, size_t size);

/* An image's pixels as a mask takes them (--mask-image): each pixel's
 * luminance in linear light and its alpha, babl's "YA float" in the
 * image's own space, as GIMP's procedure reads a layer for its
 * mask-drawable; 2 x width x height floats, malloc'd into *ya.  A raw
 * file's image (no format) is sRGB, PFM's linear. */
bool         files_mask_pixels      (const FileImage *im, float **ya, char *error,
                                     size_t size);

void         files_image_free       (FileImage *im);

#endif /* CC_FILES_H */
