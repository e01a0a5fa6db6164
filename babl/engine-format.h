/* What the engine reads and writes for pixels of a babl format, and the
 * transfer tables that let it work in linear light on 8- and 16-bit
 * perceptual codes.  The GEGL operation, the procedure's pixel path and
 * the tool share these, so that all read the same codes the same way.
 * babl and the engine only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_ENGINE_FORMAT_H
#define CC_ENGINE_FORMAT_H

#include <babl/babl.h>
#include <glib.h>

#include "convolve.h"

/* Whether the format's colour is perceptual codes of 8 or 16 bits (R'G'B'
 * or R~G~B~, gray alike), which linear light reads through transfer
 * tables. */
gboolean    engine_format_coded        (const Babl *own);

/* The format pixels of 'own' travel in: its own sample type and colour
 * space, linear or perceptual as asked.  Linear light on coded samples
 * travels as 'own' itself, and the engine converts through the transfer
 * tables: nothing wider is copied, and nothing is quantised in linear
 * light. */
const Babl *engine_format              (const Babl *own, gboolean linear);

/* Float samples of 'own''s colour space, linear light or perceptual values,
 * in 'own''s layout (gray or colour, with alpha or not) or, with 'rgba', as
 * RGBA: where the engine works on anything but 8- and 16-bit codes, as
 * GIMP's Convolution Matrix does. */
const Babl *engine_format_float        (const Babl *own, gboolean linear, gboolean rgba);

/* The transfer tables of a coded format, made by babl in its own colour
 * space (each code as babl converts it; the midpoints between codes in
 * double precision); NULL with no message for other formats, NULL with a
 * message where babl gives no usable tables.  Free with cc_transfer_free. */
CcTransfer *engine_format_transfer_new (const Babl *own, char *message, size_t size);

#endif /* CC_ENGINE_FORMAT_H */
