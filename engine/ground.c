/* The ground floor: the helpers every engine file and the GPU's host side
 * call (status, time, options, borders, mask widths).  It includes only
 * the public header and pixel.h, so nothing above it comes back down.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ground.h"
#include "pixel.h"
#include "setting-table.h"

CcStatus
cc_fail (CcResult *result, CcStatus status, const char *format, ...)
{
  va_list args;

  result->status = status;
  va_start (args, format);
  vsnprintf (result->message, sizeof result->message, format, args);
  va_end (args);
  return status;
}

double
cc_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int
cc_mask_width_class (int width)
{
  static const int classes[] = { 1, 3, 5, 7, 9, 15, 25, 31, 63, 127 };

  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (width <= classes[i])
      return classes[i];
  return 0;
}

void
cc_options_init (CcOptions *options)
{
  memset (options, 0, sizeof *options);
  options->method          = CC_SETTING_DEFAULT (METHOD);
  options->border          = CC_SETTING_DEFAULT (BORDER);
  options->clamp           = CC_SETTING_DEFAULT (CLAMP);
  options->alpha_weighting = CC_SETTING_DEFAULT (ALPHA_WEIGHTING);
  options->affect_alpha    = CC_SETTING_DEFAULT (AFFECT_ALPHA);
}

void
cc_options_keep_colour (CcOptions *options, bool gray, bool red, bool green, bool blue)
{
  options->keep_colour[0] = gray ? !red && !green && !blue : !red;
  options->keep_colour[1] = gray ? options->keep_colour[0] : !green;
  options->keep_colour[2] = gray ? options->keep_colour[0] : !blue;
}

bool
cc_border_is_constant (CcBorder border)
{
  return border == CC_BORDER_BLACK || border == CC_BORDER_WHITE;
}

int64_t
cc_border_map (int64_t i, int64_t n, CcBorder border)
{
  return cc_border_index (i, n, cc_border_is_constant (border) ? CC_BORDER_ZERO : border);
}

bool
cc_border_runs (int64_t first, int64_t count, int64_t n, CcBorder border, CcRowRun run,
                void *data)
{
  for (int64_t k = 0; k < count;)
    {
      const int64_t from = cc_border_map (first + k, n, border);
      int64_t rows = 1;

      while (k + rows < count &&
             cc_border_map (first + k + rows, n, border) == (from < 0 ? -1 : from + rows))
        rows++;
      if (!run (k, from, rows, data))
        return false;
      k += rows;
    }
  return true;
}

void
cc_mask_normalize (CcMask *mask)
{
  double sum = 0.0;

  for (int i = 0; i < mask->width * mask->height; i++)
    sum += mask->values[i];
  if (sum > 0)
    mask->divisor = sum;
  else if (sum < 0)
    {
      mask->divisor = -sum;
      mask->offset  = 1.0;
    }
  else
    {
      mask->divisor = 1.0;
      mask->offset  = 0.5;
    }
}
