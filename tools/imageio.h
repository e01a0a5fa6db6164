/* Reading and writing PFM, PGM/PPM and PAM images for cuda-convolve, a few
 * rows at a time, so that an image of any size passes through bounded
 * memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_IMAGEIO_H
#define CC_IMAGEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "convolve.h"

typedef enum
{
  IO_PFM,
  IO_PNM,   /* P5 (gray) or P6 (RGB); P2 and P3 are read too */
  IO_PAM    /* P7 */
} IoFormat;

/* What a header says, and how rows arrive in memory: u8 for maxval 255, u16
 * for 65535, float (in the 0..1 scale) for PFM and other maxvals. */
typedef struct
{
  IoFormat  format;
  int64_t   width;
  int64_t   height;
  int       channels;
  CcType    type;
  int       maxval;   /* PNM/PAM sample range; 0 for PFM */
  bool      alpha;    /* the last channel is alpha (PAM *_ALPHA) */
} IoInfo;

typedef struct _IoReader IoReader;
typedef struct _IoWriter IoWriter;

/* Opens an image and checks its header against the bytes the file has;
 * rows are read on demand.  Text (P2, P3) files and inputs that cannot seek
 * are decoded whole at once.  Every function that can fail returns false and
 * a one-line reason naming the file. */
bool      io_reader_open        (const char *path, IoReader **reader, IoInfo *info,
                                 char *error, size_t size);
bool      io_reader_open_memory (const void *data, size_t length, IoReader **reader,
                                 IoInfo *info, char *error, size_t size);
/* Rows y .. y + n - 1, top to bottom, into 'dst' ('stride' bytes apart), in
 * the info's type; samples are checked (finite, not above maxval). */
bool      io_reader_rows        (IoReader *reader, int64_t y, int64_t n, void *dst,
                                 int64_t stride, char *error, size_t size);
void      io_reader_close       (IoReader *reader);

/* Creates 'path' (which must not exist) for an image shaped as 'info', in
 * 'format' (the name the file will have decides it, see io_format_for_name).
 * Integer samples are written with info's maxval (65535 for float input to
 * PNM/PAM); float samples are clamped to [0,1] there. */
bool      io_writer_open        (const char *path, IoFormat format, const IoInfo *info,
                                 IoWriter **writer, char *error, size_t size);
/* Rows y .. y + n - 1 in the info's type, in any order. */
bool      io_writer_rows        (IoWriter *writer, int64_t y, int64_t n, const void *src,
                                 int64_t stride, char *error, size_t size);
/* Closes the file; false when anything written did not reach it. */
bool      io_writer_close       (IoWriter *writer, char *error, size_t size);

/* Whether a format holds an image of this shape, and if not why. */
bool      io_format_holds       (IoFormat format, const IoInfo *info, char *error,
                                 size_t size);
/* The format a file name asks for: .pfm, .pgm/.ppm/.pnm, .pam. */
bool      io_format_for_name    (const char *path, IoFormat *format);
/* Whether a file's first bytes are one of these formats' magic numbers. */
bool      io_format_sniff       (const unsigned char *head, size_t length);

/* A whole image in memory (the fuzz target). */
typedef struct
{
  CcImage  image;
  IoInfo   info;
} IoImage;

bool      io_read_memory        (const void *data, size_t length, IoImage *out,
                                 char *error, size_t size);
void      io_free               (IoImage *im);

#endif /* CC_IMAGEIO_H */
