/* The operation's mask properties, resolved as every front end resolves
 * them: a preset by cc_preset_mask, the matrix text by cc_mask_resolve.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "convolve.h"
#include "op-settings.h"
#include "preset.h"

static OpSettings *
invalid (OpSettings *s, gchar *message)
{
  g_clear_pointer (&s->values, g_free);
  s->valid = FALSE;
  s->message = g_strdup_printf ("%s; the input is passed through unchanged", message);
  g_free (message);
  return s;
}

/* Settings holding a mask, its values g_malloc'd. */
static OpSettings *
valid (OpSettings *s, const CcMask *m)
{
  s->width = m->width;
  s->height = m->height;
  s->divisor = m->divisor;
  s->offset = m->offset;
  s->valid = TRUE;
  return s;
}

/* Settings holding the mask a source resolves to, or why not, after
 * 'what'. */
static OpSettings *
resolved (OpSettings *s, const CcMaskSource *source, const gchar *what)
{
  CcMask m;
  double *values;
  char why[256];

  if (!cc_mask_resolve (source, &m, &values, why, sizeof why))
    return invalid (s, g_strdup_printf ("%s%s", what, why));
  s->values = g_memdup2 (values, sizeof (gdouble) * m.width * m.height);
  free (values);
  return valid (s, &m);
}

OpSettings *
op_settings_new (const CcShapeSpec *shape, const gchar *preset, const gchar *matrix,
                 gdouble divisor, gdouble offset, gboolean normalize,
                 const OpSettings *same_matrix)
{
  OpSettings *s = g_new0 (OpSettings, 1);
  CcMaskSource source;
  gboolean kept;
  CcMask m;

  s->refs = 1;
  if (shape->shape == CC_SHAPE_MATRIX && preset && *preset)
    {
      GError *error = NULL;

      if (!cc_preset_mask (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, preset, &m, &s->values,
                           &error))
        {
          gchar *message = g_strdup (error->message);

          g_error_free (error);
          return invalid (s, message);
        }
      return valid (s, &m);
    }
  /* The kept values where the text is the one they came from. */
  kept = same_matrix && same_matrix->values;
  source = (CcMaskSource) {
    .text = kept ? NULL : matrix ? matrix : "",
    .values = kept ? same_matrix->values : NULL,
    .n_values = kept ? (gsize) same_matrix->width * same_matrix->height : 0,
    .width = kept ? same_matrix->width : 0, .height = kept ? same_matrix->height : 0,
    .divisor = divisor, .offset = offset, .normalize = normalize, .shape = *shape };
  return resolved (s, &source, "");
}

OpSettings *
op_settings_new_image (const gfloat *ya, gint width, gint height)
{
  OpSettings *s = g_new0 (OpSettings, 1);
  const CcMaskSource source = { .image = ya, .image_width = width,
                                .image_height = height };
  char why[256];

  s->refs = 1;
  if (!cc_mask_image_size_check (width, height, why, sizeof why) ||
      (!ya && g_snprintf (why, sizeof why, "the mask image could not be read")))
    return invalid (s, g_strdup_printf ("aux: %s", why));
  return resolved (s, &source, "aux: ");
}

gboolean
op_settings_equal (const OpSettings *a, const OpSettings *b)
{
  return a && b && a->valid == b->valid && g_strcmp0 (a->message, b->message) == 0 &&
         a->width == b->width && a->height == b->height && a->divisor == b->divisor &&
         a->offset == b->offset &&
         (!a->valid || memcmp (a->values, b->values,
                               sizeof (gdouble) * a->width * a->height) == 0);
}

OpSettings *
op_settings_ref (OpSettings *s)
{
  if (s)
    g_atomic_int_inc (&s->refs);
  return s;
}

void
op_settings_unref (OpSettings *s)
{
  if (!s || !g_atomic_int_dec_and_test (&s->refs))
    return;
  g_free (s->values);
  g_free (s->message);
  g_free (s);
}
