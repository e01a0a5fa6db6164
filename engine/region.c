/* The halo a front end reads to convolve a piece of its source
 * (cc_region_input): the one rule of the plug-in's bands, the operation's
 * regions and the tool's strips.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "convolve.h"

/* One axis: the output's span 'at' .. 'at + n' of a source spanning 'lo'
 * .. 'lo + size', and the mask's taps before and after a pixel.  Where the
 * front end reads past the source's edges ('beyond') the span is the whole
 * halo; else it is clipped to the source, and wrap, which needs the far
 * side, takes all of it where its halo was clipped.  Returns the span's
 * start and sets its length. */
static int64_t
axis_span (int64_t at, int64_t n, int64_t lo, int64_t size, int before, int after,
           CcBorder border, bool beyond, int64_t *length)
{
  int64_t first = at - before, end = at + n + after;

  if (!beyond)
    {
      if (border == CC_BORDER_WRAP && (first < lo || end > lo + size))
        first = lo, end = lo + size;
      first = first < lo ? lo : first;
      end = end > lo + size ? lo + size : end;
    }
  *length = end - first;
  return first;
}

CcRegion
cc_region_input (const CcRect *out, const CcRect *source, int mask_width, int mask_height,
                 CcBorder border, unsigned rows_beyond, unsigned columns_beyond)
{
  const bool rows = (rows_beyond & CC_BORDER_BIT (border)) != 0;
  const bool columns = (columns_beyond & CC_BORDER_BIT (border)) != 0;
  CcRegion r;

  r.input.x = axis_span (out->x, out->width, source->x, source->width, (mask_width - 1) / 2,
                         mask_width / 2, border, columns, &r.input.width);
  r.input.y = axis_span (out->y, out->height, source->y, source->height,
                         (mask_height - 1) / 2, mask_height / 2, border, rows, &r.input.height);
  /* Nothing of the source to read: what the front end has there (its
   * abyss) is the input. */
  if ((!columns && r.input.width <= 0) || (!rows && r.input.height <= 0))
    r.input = *out;
  r.out_x = out->x - r.input.x;
  r.out_y = out->y - r.input.y;
  /* The whole halo read: the engine never reaches a border. */
  r.border = rows && columns ? CC_BORDER_ZERO : border;
  return r;
}
