/* cuda:convolve's state: the mask resolved at prepare, the aux image's
 * mask, and the report, with the properties they were resolved from.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "op-state.h"

/* Guards the state's masks: a region takes its settings while another
 * region's aux image replaces them, or prepare makes a new state. */
static GMutex settings_lock;

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
