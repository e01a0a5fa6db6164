/* The operation's mask properties, resolved.  Presets are found where the
 * plug-in finds them: the shipped ones in the plug-in's folder (or
 * CUDA_CONVOLVE_PRESET_DIR), the user's in GIMP's profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>

#include "convolve.h"
#include "op-settings.h"
#include "preset.h"

static CcPreset *
find_preset (const gchar *id, GError **error)
{
  gchar *shipped, *user;
  CcPreset *p;

  cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
  p = cc_presets_find (shipped, user, id, error);
  g_free (shipped);
  g_free (user);
  return p;
}

static OpSettings *
invalid (OpSettings *s, gchar *message)
{
  g_clear_pointer (&s->values, g_free);
  s->valid = FALSE;
  s->message = g_strdup_printf ("%s; the input is passed through unchanged", message);
  g_free (message);
  return s;
}

OpSettings *
op_settings_new (const gchar *preset, const gchar *matrix, gdouble divisor, gdouble offset,
                 gboolean normalize, const OpSettings *same_matrix)
{
  OpSettings *s = g_new0 (OpSettings, 1);
  char why[256];

  if (preset && *preset)
    {
      GError *error = NULL;
      CcPreset *p = find_preset (preset, &error);

      if (!p)
        {
          gchar *message = g_strdup (error->message);

          g_error_free (error);
          return invalid (s, message);
        }
      s->width = p->width;
      s->height = p->height;
      s->values = g_memdup2 (p->matrix, sizeof (gdouble) * p->width * p->height);
      s->divisor = p->divisor;
      s->offset = p->offset;
      cc_preset_free (p);
      s->valid = TRUE;
      return s;
    }

  if (same_matrix && same_matrix->values)
    {
      s->width = same_matrix->width;
      s->height = same_matrix->height;
      s->values = g_memdup2 (same_matrix->values, sizeof (gdouble) * s->width * s->height);
    }
  else
    {
      double *values = NULL;

      if (!cc_mask_parse (matrix ? matrix : "", &s->width, &s->height, &values, why,
                          sizeof why))
        return invalid (s, g_strdup (why));
      s->values = g_memdup2 (values, sizeof (gdouble) * s->width * s->height);
      free (values);
    }
  {
    CcMask m = { s->width, s->height, s->values, divisor, offset };

    if (normalize)
      cc_mask_normalize (&m);
    /* The parser took the sizes and values; this checks divisor and offset. */
    if (!cc_mask_check (&m, why, sizeof why))
      return invalid (s, g_strdup (why));
    s->divisor = m.divisor;
    s->offset = m.offset;
  }
  s->valid = TRUE;
  return s;
}

void
op_settings_free (OpSettings *s)
{
  if (!s)
    return;
  g_free (s->values);
  g_free (s->message);
  g_free (s);
}
