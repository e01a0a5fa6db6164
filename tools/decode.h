/* PNG, JPEG and WebP decoded as GIMP 3's own loaders decode them (libpng's
 * expansions, libjpeg's floating-point DCT and its default colour
 * conversion, CMYK through the file's profile, WebP always as RGBA), and
 * each file's profile taken as GIMP takes it (tools/colour.h); and an
 * OpenEXR header's chromaticities.  The tool reads these itself: GEGL's
 * loaders print libpng's errors, end the process on a damaged JPEG, take a
 * cut-off WebP without a word, and decode JPEG with other settings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_DECODE_H
#define CC_DECODE_H

#include <stdbool.h>
#include <stddef.h>

#include "files.h"

/* Each reads a whole file into 'out' (its samples in the format GIMP's
 * layer would have: model, type and space), or fails with a message. */
bool decode_png              (const char *path, FileImage *out, char *error, size_t size);
bool decode_jpeg             (const char *path, FileImage *out, char *error, size_t size);
bool decode_webp             (const char *path, FileImage *out, char *error, size_t size);

/* An OpenEXR file's chromaticities (white x, y, then red, green and blue x,
 * y), where its header has them and a white luminance, as GIMP asks. */
bool decode_exr_chromaticities (const char *path, double chrm[8]);

/* A TIFF file's ICC profile (its first image's), g_malloc'd, where it has
 * one; classic and BigTIFF. */
bool decode_tiff_icc           (const char *path, void **icc, size_t *length);

/* Fills in the image's shape from its format; allocates its samples. */
void file_image_describe     (FileImage *im, const Babl *format, int64_t width,
                              int64_t height);
bool file_image_allocate     (FileImage *im, const char *path, char *error, size_t size);

#endif /* CC_DECODE_H */
