/* What the operations' prepare resolves from the mask properties, kept for
 * the regions to come while the properties stay the same: GEGL prepares an
 * operation again for each chunk GIMP renders (seven times a merge), and a
 * 127x127 mask's text takes over a millisecond to parse.  The one way from
 * a property to the engine (cc_mask_resolve).  GLib and the engine only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_STATE_H
#define CC_OP_STATE_H

#include <glib.h>

#include "convolve.h"
#include "op-report.h"

/* A mask resolved from the properties or the aux image, or why not. */
typedef struct
{
  gint      refs;       /* a region holds its settings while it runs */
  gboolean  valid;
  gchar    *message;    /* why not, when not valid */
  gint      width;
  gint      height;
  gdouble  *values;     /* row-major */
  gdouble   divisor;    /* normalize applied */
  gdouble   offset;
} OpSettings;

/* An image on the aux input as the mask: its pixels as "YA float"
 * (luminance in linear light, alpha), width x height; NULL: not read. */
OpSettings *op_settings_new_image (const gfloat *ya, gint width, gint height);
OpSettings *op_settings_ref       (OpSettings *settings);
void        op_settings_unref     (OpSettings *settings);

/* The properties a state is resolved from: two states with equal keys are
 * the same. */
typedef struct
{
  CcShapeSpec  shape;
  const gchar *preset;    /* the chosen preset's id; "" for none */
  const gchar *matrix;
  gdouble      divisor;
  gdouble      offset;
  gboolean     normalize;
  const gchar *report;    /* the report file's path */
} OpStateKey;

typedef struct
{
  OpStateKey  key;      /* its strings the state's own */
  OpSettings *mask;
  gboolean    aux_on;   /* an image on the aux input makes the mask */
  OpSettings *aux;      /* its mask, made when a region is processed */
  gint        aux_taps; /* its size, known at prepare; 0: none it can make */
  OpReport   *report;
} OpState;

/* The state for 'key': 'old' where its key is the same, else a new one,
 * which takes over old's aux mask, and 'old' freed. */
OpState    *op_state_for      (OpState *old, const OpStateKey *key);
void        op_state_free     (OpState *state);
/* The settings a region runs with, held until op_settings_unref: the aux
 * input's mask may be replaced meanwhile by another region's.  NULL where
 * there are none yet (no state, or the aux image not read yet). */
OpSettings *op_state_settings (OpState *state);
/* The mask's taps, 0 where it has none; before the first region reads the
 * aux image, its size stands for its mask. */
gint        op_state_taps     (OpState *state);
/* 'fresh', the aux image's mask just read, taken as the state's, unless it
 * holds the same mask as the one there (then freed). */
void        op_state_take_aux (OpState *state, OpSettings *fresh);

#endif /* CC_OP_STATE_H */
