/* The one resolution of a mask for every front end (the procedure, the
 * GEGL operation, the tool): text or values, the identity where none are
 * given, GIMP's normalize rule, and the engine's checks, with one text for
 * each fault.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"

bool
cc_mask_resolve (const CcMaskSource *source, CcMask *mask, double **values,
                 char *message, size_t size)
{
  const size_t n = (size_t) source->width * source->height;

  *values = NULL;
  if (source->shape.shape != CC_SHAPE_MATRIX)
    return cc_mask_shape (&source->shape, mask, values, message, size);
  if (source->text)
    {
      if (!cc_mask_parse (source->text, &mask->width, &mask->height, values, message, size))
        return false;
    }
  else
    {
      if (source->width < 1 || source->width > CC_MASK_MAX || !(source->width & 1) ||
          source->height < 1 || source->height > CC_MASK_MAX || !(source->height & 1))
        {
          snprintf (message, size, "the mask's width and height must be odd, 1 to %d; "
                    "got %dx%d", CC_MASK_MAX, source->width, source->height);
          return false;
        }
      if (source->n_values != 0 && source->n_values != n)
        {
          snprintf (message, size, "the matrix has %zu values; %d x %d is %zu",
                    source->n_values, source->width, source->height, n);
          return false;
        }
      if (!(*values = calloc (n, sizeof (double))))
        {
          snprintf (message, size, "out of memory");
          return false;
        }
      if (source->n_values)
        memcpy (*values, source->values, sizeof (double) * n);
      else
        (*values)[(source->height / 2) * source->width + source->width / 2] = 1.0;
      mask->width = source->width;
      mask->height = source->height;
    }
  mask->values = *values;
  mask->divisor = source->divisor;
  mask->offset = source->offset;
  if (source->normalize)
    cc_mask_normalize (mask);
  if (!cc_mask_check (mask, message, size))
    {
      free (*values);
      *values = NULL;
      mask->values = NULL;
      return false;
    }
  return true;
}
