/* libFuzzer target: the preset parser.  Whatever parses must write out and
 * parse back to the same preset.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "preset.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  CcPreset *p = cc_preset_parse ("fuzz", (const gchar *) data, size, &error), *back;
  gchar *text;
  gsize length;

  if (!p)
    {
      /* Refused: with a reason. */
      if (!error || !error->message[0])
        abort ();
      g_error_free (error);
      return 0;
    }
  text = cc_preset_to_data (p, &length);
  back = cc_preset_parse ("fuzz", text, length, NULL);
  if (!back || back->width != p->width || back->height != p->height ||
      memcmp (back->matrix, p->matrix, sizeof (gdouble) * p->width * p->height) != 0 ||
      back->divisor != p->divisor || back->offset != p->offset ||
      strcmp (back->name, p->name) != 0)
    abort ();
  cc_preset_free (back);
  cc_preset_free (p);
  g_free (text);
  return 0;
}
