/* What cuda:convolve ran, written for the procedure and read by it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "op-report.h"

typedef struct
{
  CcMethod  method;
  gchar    *device;
  gint64    pixels;
  gint64    calls;
  gdouble   ms;
  GString  *kernels;   /* "+"-joined, as they first ran */
} Line;

struct _OpReport
{
  GMutex  lock;      /* GEGL's threads compute regions at once */
  gchar  *path;
  GArray *lines;     /* Line, in the order the methods first ran */
};

OpReport *
op_report_new (const gchar *path)
{
  OpReport *r = g_new0 (OpReport, 1);

  g_mutex_init (&r->lock);
  r->path = path && *path ? g_strdup (path) : NULL;
  r->lines = g_array_new (FALSE, FALSE, sizeof (Line));
  return r;
}

void
op_report_free (OpReport *r)
{
  if (!r)
    return;
  for (guint i = 0; i < r->lines->len; i++)
    {
      g_free (g_array_index (r->lines, Line, i).device);
      g_string_free (g_array_index (r->lines, Line, i).kernels, TRUE);
    }
  g_array_free (r->lines, TRUE);
  g_free (r->path);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* Appends 'name' to a "+"-joined list that does not hold it yet. */
static void
join (GString *list, const gchar *name)
{
  gchar **have = g_strsplit (list->str, "+", -1);
  gboolean seen = g_strv_contains ((const gchar * const *) have, name);

  g_strfreev (have);
  if (!seen)
    g_string_append_printf (list, "%s%s", list->len ? "+" : "", name);
}

void
op_report_add (OpReport *r, const CcResult *result, gint64 pixels)
{
  GString *text;
  guint i;

  if (!r || !r->path)
    return;
  g_mutex_lock (&r->lock);
  for (i = 0; i < r->lines->len; i++)
    {
      Line *l = &g_array_index (r->lines, Line, i);

      if (l->method == result->method_used && strcmp (l->device, result->device) == 0)
        break;
    }
  if (i == r->lines->len)
    {
      Line l = { result->method_used, g_strdup (result->device), 0, 0, 0.0,
                 g_string_new (NULL) };

      g_array_append_val (r->lines, l);
    }
  g_array_index (r->lines, Line, i).pixels += pixels;
  g_array_index (r->lines, Line, i).calls++;
  g_array_index (r->lines, Line, i).ms += result->total_ms;
  if (result->kernel[0])
    join (g_array_index (r->lines, Line, i).kernels, result->kernel);
  text = g_string_new (NULL);
  for (i = 0; i < r->lines->len; i++)
    {
      const Line *l = &g_array_index (r->lines, Line, i);

      g_string_append_printf (text, "%s\t%s\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
                              "\t%.3f\t%s\n", cc_method_name (l->method), l->device,
                              l->pixels, l->calls, l->ms, l->kernels->str);
    }
  /* Written whole (a temporary file, renamed): a reader never sees half. */
  g_file_set_contents (r->path, text->str, (gssize) text->len, NULL);
  g_string_free (text, TRUE);
  g_mutex_unlock (&r->lock);
}

static gint
most_pixels_first (gconstpointer a, gconstpointer b)
{
  const gint64 pa = ((const Line *) a)->pixels, pb = ((const Line *) b)->pixels;

  return pa < pb ? 1 : pa > pb ? -1 : 0;
}

gboolean
op_report_read (const gchar *path, gchar **methods, gchar **devices, gdouble *engine_ms,
                gint64 *pixels)
{
  gchar *text = NULL;
  gchar **rows;
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  GString *m = g_string_new (NULL), *d = g_string_new (NULL);
  gboolean any;

  *engine_ms = 0.0;
  *pixels = 0;
  if (path && g_file_get_contents (path, &text, NULL, NULL))
    {
      rows = g_strsplit (text, "\n", -1);
      for (gchar **row = rows; *row; row++)
        {
          gchar **f = g_strsplit (*row, "\t", 6);
          Line l;

          if (g_strv_length (f) >= 5 && cc_method_from_name (f[0], &l.method))
            {
              l.device = g_strdup (f[1]);
              l.pixels = g_ascii_strtoll (f[2], NULL, 10);
              l.calls = g_ascii_strtoll (f[3], NULL, 10);
              l.ms = g_ascii_strtod (f[4], NULL);
              g_array_append_val (lines, l);
            }
          g_strfreev (f);
        }
      g_strfreev (rows);
      g_free (text);
    }
  g_array_sort (lines, most_pixels_first);
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);

      join (m, cc_method_name (l->method));
      join (d, l->device);
      *engine_ms += l->ms;
      *pixels += l->pixels;
      g_free (l->device);
    }
  any = lines->len > 0;
  g_array_free (lines, TRUE);
  *methods = g_string_free (m, FALSE);
  *devices = g_string_free (d, FALSE);
  return any;
}
