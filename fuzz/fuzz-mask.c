/* libFuzzer target: the mask text form ("0,1,0;1,-4,1;0,1,0") that the tool's
 * --mask and the dialog's text field take.  Whatever parses must format and
 * parse back to the same values.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1), *again, message[256] = "";
  double *values, *back;
  int w, h, w2, h2;

  if (!text)
    return 0;
  memcpy (text, data, size);
  text[size] = '\0';
  if (!cc_mask_parse (text, &w, &h, &values, message, sizeof message))
    {
      if (!message[0])
        abort ();
      free (text);
      return 0;
    }
  if (w < 1 || h < 1 || w > CC_MASK_MAX || h > CC_MASK_MAX || w % 2 == 0 || h % 2 == 0)
    abort ();
  again = cc_mask_format (w, h, values);
  if (!again || !cc_mask_parse (again, &w2, &h2, &back, message, sizeof message) ||
      w2 != w || h2 != h || memcmp (back, values, sizeof (double) * w * h) != 0)
    abort ();
  free (back);
  free (again);
  free (values);
  free (text);
  return 0;
}
