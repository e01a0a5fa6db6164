/* The procedure's arguments as render settings, and where presets live.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "preset.h"
#include "settings.h"

/* Shipped presets sit in the plug-in's folder; CUDA_CONVOLVE_PRESET_DIR
 * points elsewhere. */
gchar *
settings_shipped_preset_dir (void)
{
  const gchar *env = g_getenv ("CUDA_CONVOLVE_PRESET_DIR");
  gchar *exe, *dir, *presets;

  if (env && *env)
    return g_strdup (env);
  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (!exe)
    return NULL;
  dir = g_path_get_dirname (exe);
  presets = g_build_filename (dir, "presets", NULL);
  g_free (dir);
  g_free (exe);
  return presets;
}

gsize
settings_host_budget (void)
{
  uint64_t bytes;

  if (!cc_bytes_parse (g_getenv ("CUDA_CONVOLVE_HOST_BUDGET"), &bytes))
    return 256 << 20;
  return bytes > G_MAXSIZE ? G_MAXSIZE : (gsize) bytes;
}

gchar *
settings_user_preset_dir (void)
{
  return g_build_filename (gimp_directory (), PLUG_IN_BINARY, "presets", NULL);
}

/* Reads and checks the arguments; on failure 'error' says which and why. */
gboolean
settings_from_config (GimpProcedureConfig *config, RenderSettings *s, GError **error)
{
  gchar *preset_id = NULL, *border = NULL, *method = NULL;
  GimpArray *matrix = NULL;
  gboolean normalize;
  gsize n = 0;
  const gdouble *values = NULL;
  gboolean ok = FALSE;

  memset (s, 0, sizeof *s);
  g_object_get (config,
                "preset",          &preset_id,
                "mask-width",      &s->width,
                "mask-height",     &s->height,
                "matrix",          &matrix,
                "divisor",         &s->divisor,
                "offset",          &s->offset,
                "normalize",       &normalize,
                "border",          &border,
                "method",          &method,
                "clamp",           &s->clamp,
                "alpha-weighting", &s->alpha_weighting,
                "affect-alpha",    &s->affect_alpha,
                "linear",          &s->linear,
                "red",             &s->red,
                "green",           &s->green,
                "blue",            &s->blue,
                NULL);
  if (matrix)
    values = gimp_double_array_get_values (matrix, &n);

  if (!cc_border_from_name (border, &s->border))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "border '%s' is not one of %s (or GEGL's none, clamp, loop)",
                   border ? border : "", cc_border_names ());
      goto out;
    }
  if (!cc_method_from_name (method, &s->method))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "method '%s' is not one of %s", method ? method : "",
                   cc_method_names ());
      goto out;
    }

  if (preset_id && *preset_id)
    {
      gchar *shipped = settings_shipped_preset_dir ();
      gchar *user = settings_user_preset_dir ();
      CcPreset *p = cc_presets_find (shipped, user, preset_id, error);

      g_free (shipped);
      g_free (user);
      if (!p)
        goto out;
      s->width = p->width;
      s->height = p->height;
      s->matrix = g_memdup2 (p->matrix, sizeof (gdouble) * p->width * p->height);
      s->divisor = p->divisor;
      s->offset = p->offset;
      cc_preset_free (p);
      ok = TRUE;
      goto out;
    }

  if (!(s->width & 1) || !(s->height & 1))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "mask-width and mask-height must be odd (1 to %d); got %dx%d",
                   CC_MASK_MAX, s->width, s->height);
      goto out;
    }
  if (n == 0)
    {
      /* No matrix: the identity, as the default 3x3 one is. */
      s->matrix = g_new0 (gdouble, s->width * s->height);
      s->matrix[(s->height / 2) * s->width + s->width / 2] = 1.0;
    }
  else if (n != (gsize) s->width * s->height)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "matrix has %" G_GSIZE_FORMAT " values; mask-width x mask-height "
                   "is %d x %d = %d", n, s->width, s->height, s->width * s->height);
      goto out;
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        if (!isfinite (values[i]))
          {
            g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                         "matrix value %" G_GSIZE_FORMAT " (row %d, column %d) is "
                         "not a finite number", i, (gint) (i / s->width) + 1,
                         (gint) (i % s->width) + 1);
            goto out;
          }
      s->matrix = g_memdup2 (values, sizeof (gdouble) * n);
    }

  if (normalize)
    {
      CcMask m = { s->width, s->height, s->matrix, s->divisor, s->offset };
      cc_mask_normalize (&m);
      s->divisor = m.divisor;
      s->offset = m.offset;
    }
  else if (s->divisor == 0.0 || !isfinite (s->divisor))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "divisor must be a non-zero number (or turn normalize on)");
      goto out;
    }
  if (!isfinite (s->offset))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "offset must be a finite number");
      goto out;
    }
  ok = TRUE;

out:
  if (!ok)
    g_clear_pointer (&s->matrix, g_free);
  g_clear_pointer (&matrix, gimp_array_free);
  g_free (preset_id);
  g_free (border);
  g_free (method);
  return ok;
}

