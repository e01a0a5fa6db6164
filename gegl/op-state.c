/* The operations' state: the mask resolved at prepare (by cc_mask_resolve,
 * presets through cc_preset_find_mask), the aux image's mask, and the
 * report, with the properties they were resolved from.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "op-state.h"
#include "preset.h"

/* Guards the state's masks: a region takes its settings while another
 * region's aux image replaces them, or prepare makes a new state. */
static GMutex settings_lock;

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

/* A shape other than CC_SHAPE_MATRIX makes the mask, a preset next, the
 * others then ignored.  same_matrix: settings made from the same matrix
 * text, whose values are taken rather than parsed again (a 127x127 text
 * takes milliseconds), or NULL. */
static OpSettings *
op_settings_new (const CcShapeSpec *shape, const gchar *preset, const gchar *matrix,
                 gdouble divisor, gdouble offset, gboolean normalize,
                 const OpSettings *same_matrix)
{
  OpSettings *s = g_new0 (OpSettings, 1);
  CcMaskSource source;
  gboolean kept;

  s->refs = 1;
  /* The kept values where the text is the one they came from. */
  kept = same_matrix && same_matrix->values;
  source = (CcMaskSource) {
    .text = kept ? NULL : matrix ? matrix : "",
    .values = kept ? same_matrix->values : NULL,
    .n_values = kept ? (gsize) same_matrix->width * same_matrix->height : 0,
    .width = kept ? same_matrix->width : 0, .height = kept ? same_matrix->height : 0,
    .divisor = divisor, .offset = offset, .normalize = normalize, .shape = *shape,
    .preset = preset, .find_preset = cc_preset_find_mask };
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

/* Whether two settings hold the same mask. */
static gboolean
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

/* The one comparison of two keys.  Field by field, not bytes: strings by
 * their text, and numbers by value, where bytes would tell 0.0 from -0.0
 * and read the padding. */
static gboolean
key_equal (const OpStateKey *a, const OpStateKey *b)
{
  return a->shape.shape == b->shape.shape && a->shape.radius == b->shape.radius &&
         a->shape.angle == b->shape.angle && a->shape.blades == b->shape.blades &&
         a->shape.inner == b->shape.inner && g_strcmp0 (a->preset, b->preset) == 0 &&
         g_strcmp0 (a->matrix, b->matrix) == 0 && a->divisor == b->divisor &&
         a->offset == b->offset && a->normalize == b->normalize &&
         g_strcmp0 (a->report, b->report) == 0;
}

static void
key_copy (OpStateKey *to, const OpStateKey *from)
{
  *to = *from;
  to->preset = g_strdup (from->preset);
  to->matrix = g_strdup (from->matrix);
  to->report = g_strdup (from->report);
}

static void
key_clear (OpStateKey *key)
{
  g_free ((gchar *) key->preset);
  g_free ((gchar *) key->matrix);
  g_free ((gchar *) key->report);
}

void
op_state_free (OpState *state)
{
  if (!state)
    return;
  op_settings_unref (state->mask);
  op_settings_unref (state->aux);
  key_clear (&state->key);
  op_report_free (state->report);
  g_free (state);
}

OpState *
op_state_for (OpState *old, const OpStateKey *key)
{
  OpState *state;

  if (old && key_equal (&old->key, key))
    return old;
  state = g_new0 (OpState, 1);
  /* A change of divisor, offset, normalize or report alone keeps the
   * parsed matrix: a script sets properties one at a time, and GIMP
   * prepares the operation again after each. */
  state->mask = op_settings_new (&key->shape, key->preset, key->matrix, key->divisor,
                                 key->offset, key->normalize,
                                 old && !*key->preset &&
                                 old->key.shape.shape == CC_SHAPE_MATRIX &&
                                 g_strcmp0 (old->key.matrix, key->matrix) == 0
                                 ? old->mask : NULL);
  key_copy (&state->key, key);
  state->report = op_report_new (key->report);
  if (old)
    {
      g_mutex_lock (&settings_lock);
      state->aux = g_steal_pointer (&old->aux);
      g_mutex_unlock (&settings_lock);
    }
  op_state_free (old);
  return state;
}

OpSettings *
op_state_settings (OpState *state)
{
  OpSettings *s;

  g_mutex_lock (&settings_lock);
  s = op_settings_ref (!state ? NULL : state->aux_on ? state->aux : state->mask);
  g_mutex_unlock (&settings_lock);
  return s;
}

gint
op_state_taps (OpState *state)
{
  OpSettings *s = op_state_settings (state);
  const gint taps = s ? (s->valid ? s->width * s->height : 0)
                      : state && state->aux_on ? state->aux_taps : 0;

  op_settings_unref (s);
  return taps;
}

void
op_state_take_aux (OpState *state, OpSettings *fresh)
{
  g_mutex_lock (&settings_lock);
  if (op_settings_equal (state->aux, fresh))
    op_settings_unref (fresh);
  else
    {
      op_settings_unref (state->aux);
      state->aux = fresh;
    }
  g_mutex_unlock (&settings_lock);
}
