/* The one resolution of a mask for every front end (the procedure, the
 * GEGL operation, the tool): an image's weights, a shape, a preset, text or
 * values, the identity where none are given, GIMP's normalize rule, and
 * the engine's checks, with one text for each fault.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"

bool
cc_mask_image_size_check (int64_t width, int64_t height, char *message, size_t size)
{
  if (width < 1 || height < 1)
    {
      snprintf (message, size, "the mask image is empty");
      return false;
    }
  if (width > CC_MASK_MAX || height > CC_MASK_MAX)
    {
      snprintf (message, size, "the mask image is %lldx%lld; masks go to %dx%d",
                (long long) width, (long long) height, CC_MASK_MAX, CC_MASK_MAX);
      return false;
    }
  return true;
}

/* An image's weights as the mask: its whole extent, an even side padded
 * with zeros at the right or bottom, scaled to sum 1. */
static bool
mask_of_image (const CcMaskSource *source, CcMask *mask, double **values, char *message,
               size_t size)
{
  const int64_t iw = source->image_width, ih = source->image_height;
  double sum = 0.0, *v;
  int w, h;

  if (!cc_mask_image_size_check (iw, ih, message, size))
    return false;
  w = (int) iw | 1;
  h = (int) ih | 1;
  if (!(v = calloc ((size_t) w * h, sizeof (double))))
    {
      snprintf (message, size, "out of memory");
      return false;
    }
  for (int64_t y = 0; y < ih; y++)
    for (int64_t x = 0; x < iw; x++)
      {
        const float *ya = source->image + 2 * (y * iw + x);

        v[y * w + x] = (double) ya[0] * ya[1];
        if (!isfinite (v[y * w + x]))
          {
            snprintf (message, size, "the mask image's pixel (%lld,%lld) is not a finite "
                      "number", (long long) x, (long long) y);
            free (v);
            return false;
          }
        sum += v[y * w + x];
      }
  if (!(sum > 0.0))
    {
      snprintf (message, size, sum == 0.0
                ? "the mask image is all zero (black or transparent): it weighs nothing"
                : "the mask image's weights sum to %g; they must sum to more than 0", sum);
      free (v);
      return false;
    }
  for (int k = 0; k < w * h; k++)
    v[k] /= sum;
  *values = v;
  mask->width = w;
  mask->height = h;
  mask->values = v;
  mask->divisor = 1.0;
  mask->offset = 0.0;
  return true;
}

static bool
mask_of_preset (const CcMaskSource *source, CcMask *mask, double **values, char *message,
                size_t size)
{
  if (!source->find_preset)
    {
      snprintf (message, size, "preset '%s': this build has no presets (it was built "
                "without GLib)", source->preset);
      return false;
    }
  if (!source->find_preset (source->preset, mask, values, message, size))
    return false;
  mask->values = *values;
  if (!cc_mask_check (mask, message, size))
    {
      free (*values);
      *values = NULL;
      mask->values = NULL;
      return false;
    }
  return true;
}

bool
cc_mask_resolve (const CcMaskSource *source, CcMask *mask, double **values,
                 char *message, size_t size)
{
  const size_t n = (size_t) source->width * source->height;

  *values = NULL;
  if (source->image)
    return mask_of_image (source, mask, values, message, size);
  if (source->shape.shape != CC_SHAPE_MATRIX)
    return cc_mask_shape (&source->shape, mask, values, message, size);
  if (source->preset && source->preset[0])
    return mask_of_preset (source, mask, values, message, size);
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
