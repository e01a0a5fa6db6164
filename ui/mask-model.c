/* A mask being edited and the edits the dialog's buttons make.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "mask-model.h"

void
mask_model_set (MaskModel *m, gint width, gint height, const gdouble *values)
{
  gdouble *v = g_new0 (gdouble, width * height);

  if (values)
    memcpy (v, values, sizeof (gdouble) * width * height);
  g_free (m->values);
  m->width = width;
  m->height = height;
  m->values = v;
}

void
mask_model_clear (MaskModel *m)
{
  g_clear_pointer (&m->values, g_free);
  m->width = m->height = 0;
}

void
mask_model_resize (MaskModel *m, gint width, gint height)
{
  gdouble *v = g_new0 (gdouble, width * height);
  /* Odd sizes: the centres line up at these offsets. */
  const gint dx = (width - m->width) / 2, dy = (height - m->height) / 2;

  for (gint j = 0; j < height; j++)
    for (gint i = 0; i < width; i++)
      {
        gint si = i - dx, sj = j - dy;

        if (si >= 0 && si < m->width && sj >= 0 && sj < m->height)
          v[j * width + i] = m->values[sj * m->width + si];
      }
  g_free (m->values);
  m->values = v;
  m->width = width;
  m->height = height;
}

void
mask_model_rotate (MaskModel *m, gboolean clockwise)
{
  const gint w = m->width, h = m->height;
  gdouble *v = g_new (gdouble, w * h);

  /* The new mask is h wide and w tall. */
  for (gint j = 0; j < h; j++)
    for (gint i = 0; i < w; i++)
      {
        gint ni = clockwise ? h - 1 - j : j;
        gint nj = clockwise ? i : w - 1 - i;

        v[nj * h + ni] = m->values[j * w + i];
      }
  g_free (m->values);
  m->values = v;
  m->width = h;
  m->height = w;
}

void
mask_model_flip (MaskModel *m, gboolean horizontal)
{
  const gint w = m->width, h = m->height;

  for (gint j = 0; j < (horizontal ? h : h / 2); j++)
    for (gint i = 0; i < (horizontal ? w / 2 : w); i++)
      {
        gint oi = horizontal ? w - 1 - i : i, oj = horizontal ? j : h - 1 - j;
        gdouble t = m->values[j * w + i];

        m->values[j * w + i] = m->values[oj * w + oi];
        m->values[oj * w + oi] = t;
      }
}
