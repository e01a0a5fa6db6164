/* Reading and writing PFM, PGM/PPM and PAM images for cuda-convolve.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_IMAGEIO_H
#define CC_IMAGEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "convolve.h"

typedef enum
{
  IO_PFM,
  IO_PNM,   /* P5 (gray) or P6 (RGB); P2 and P3 are read too */
  IO_PAM    /* P7 */
} IoFormat;

typedef struct
{
  CcImage   image;     /* host memory; u8, u16 or float samples */
  IoFormat  format;
  int       maxval;    /* PNM/PAM sample range; 0 for PFM */
  bool      alpha;     /* the last channel is alpha (PAM *_ALPHA) */
} IoImage;

/* Each returns false and a one-line reason on any malformed, truncated or
 * oversized input; nothing is allocated then. */
bool      io_read            (const char *path, IoImage *out, char *error, size_t size);
bool      io_read_memory     (const void *data, size_t length, IoImage *out,
                              char *error, size_t size);
bool      io_write           (const char *path, const IoImage *im, char *error, size_t size);
void      io_free            (IoImage *im);

/* The format a file name asks for: .pfm, .pgm/.ppm/.pnm, .pam. */
bool      io_format_for_name (const char *path, IoFormat *format);

#endif /* CC_IMAGEIO_H */
