/* What the engine reads and writes for pixels of a babl format, and its
 * transfer tables.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "engine-format.h"

static const gchar *
type_name (const Babl *format)
{
  return babl_get_name (babl_format_get_type (format, 0));
}

gboolean
engine_format_coded (const Babl *own)
{
  const gchar *type = type_name (own);
  const gchar *model = babl_get_name (babl_format_get_model (own));

  return (strcmp (type, "u8") == 0 || strcmp (type, "u16") == 0) &&
         (strchr (model, '\'') || strchr (model, '~'));
}

const Babl *
engine_format (const Babl *own, gboolean linear)
{
  const gboolean alpha = babl_format_has_alpha (own);
  const gboolean gray = babl_format_get_n_components (own) - (alpha ? 1 : 0) == 1;
  const gchar *model;
  gchar *name;
  const Babl *format;

  if (linear && engine_format_coded (own))
    return own;
  if (gray)
    model = linear ? (alpha ? "YA" : "Y") : (alpha ? "Y'A" : "Y'");
  else
    model = linear ? (alpha ? "RGBA" : "RGB") : (alpha ? "R'G'B'A" : "R'G'B'");
  name = g_strdup_printf ("%s %s", model, type_name (own));
  format = babl_format_with_space (name, babl_format_get_space (own));
  g_free (name);
  return format;
}

const Babl *
engine_format_float (const Babl *own, gboolean linear, gboolean rgba)
{
  const gboolean alpha = babl_format_has_alpha (own);
  const gboolean gray = babl_format_get_n_components (own) - (alpha ? 1 : 0) == 1;
  const gchar *model;

  if (rgba)
    model = linear ? "RGBA float" : "R'G'B'A float";
  else if (gray)
    model = linear ? (alpha ? "YA float" : "Y float") : (alpha ? "Y'A float" : "Y' float");
  else
    model = linear ? (alpha ? "RGBA float" : "RGB float")
                   : (alpha ? "R'G'B'A float" : "R'G'B' float");
  return babl_format_with_space (model, babl_format_get_space (own));
}

/* babl's conversion between two models of the format's space. */
static void
convert (const Babl *own, const gchar *from, const gchar *to, const void *in, void *out,
         gint n)
{
  const Babl *space = babl_format_get_space (own);

  babl_process (babl_fish (babl_format_with_space (from, space),
                           babl_format_with_space (to, space)), in, out, n);
}

/* Curves read from ICC profiles are not always ascending: babl's reading of
 * a ProPhoto profile steps back by 2e-5 where its linear toe meets the
 * power segment, and its fast integer path and its double path differ by
 * some 1e-5 near black.  Such a curve is held flat where it steps back,
 * and a midpoint outside its two codes becomes their mean; a curve that
 * would move by more than 1e-3 is left for cc_transfer_new to refuse. */
static void
make_ascending (gfloat *curve, gfloat *mid, gint codes)
{
  gfloat top = curve[0], moved = 0;

  for (gint k = 1; k < codes; k++)
    {
      top = MAX (top, curve[k]);
      moved = MAX (moved, top - curve[k]);
    }
  if (moved > 1e-3f)
    return;
  for (gint k = 1; k < codes; k++)
    curve[k] = MAX (curve[k], curve[k - 1]);
  for (gint k = 0; k < codes - 1; k++)
    if (!(curve[k] <= mid[k] && mid[k] <= curve[k + 1]))
      mid[k] = curve[k] + (curve[k + 1] - curve[k]) / 2;
}

/* Whether three curves, one after another, are the same, midpoints and
 * all. */
static gboolean
curves_alike (const gfloat *to_linear, const gfloat *midpoints, gint codes)
{
  return memcmp (to_linear, to_linear + codes, sizeof (gfloat) * codes) == 0 &&
         memcmp (to_linear, to_linear + 2 * codes, sizeof (gfloat) * codes) == 0 &&
         memcmp (midpoints, midpoints + (codes - 1), sizeof (gfloat) * (codes - 1)) == 0 &&
         memcmp (midpoints, midpoints + 2 * (codes - 1), sizeof (gfloat) * (codes - 1)) == 0;
}

CcTransfer *
engine_format_transfer_new (const Babl *own, char *message, size_t size)
{
  const gboolean alpha = babl_format_has_alpha (own);
  const gint n = babl_format_get_n_components (own) - (alpha ? 1 : 0);
  const gboolean tilde = strchr (babl_get_name (babl_format_get_model (own)), '~') != NULL;
  const gchar *coded_model = n == 1 ? (tilde ? "Y~" : "Y'") : (tilde ? "R~G~B~" : "R'G'B'");
  const gchar *linear_model = n == 1 ? "Y" : "RGB";
  const gchar *type = type_name (own);
  const gint codes = strcmp (type, "u8") == 0 ? 256 : 65536;
  gchar *from, *to;
  guint16 *in;
  gfloat *lin, *to_linear, *midpoints;
  gdouble *din, *dout;
  gint curves = n;
  CcTransfer *t;

  if (size)
    message[0] = '\0';
  if (!engine_format_coded (own))
    return NULL;
  in = g_new (guint16, (gsize) codes * n);
  lin = g_new (gfloat, (gsize) codes * n);
  din = g_new (gdouble, (gsize) (codes - 1) * n);
  dout = g_new (gdouble, (gsize) (codes - 1) * n);
  for (gint k = 0; k < codes; k++)
    for (gint c = 0; c < n; c++)
      {
        if (codes == 256)
          ((guint8 *) in)[k * n + c] = (guint8) k;
        else
          in[k * n + c] = (guint16) k;
        if (k < codes - 1)
          din[k * n + c] = (k + 0.5) / (codes - 1);
      }
  from = g_strdup_printf ("%s %s", coded_model, type);
  to = g_strdup_printf ("%s float", linear_model);
  convert (own, from, to, in, lin, codes);
  g_free (from);
  g_free (to);
  from = g_strdup_printf ("%s double", coded_model);
  to = g_strdup_printf ("%s double", linear_model);
  convert (own, from, to, din, dout, codes - 1);
  g_free (from);
  g_free (to);

  /* Curves as the engine takes them, one after another; one where the
   * space's three are the same. */
  to_linear = g_new (gfloat, (gsize) codes * n);
  midpoints = g_new (gfloat, (gsize) (codes - 1) * n);
  for (gint c = 0; c < n; c++)
    for (gint k = 0; k < codes; k++)
      {
        to_linear[c * codes + k] = lin[k * n + c];
        if (k < codes - 1)
          midpoints[c * (codes - 1) + k] = (gfloat) dout[k * n + c];
      }
  for (gint c = 0; c < n; c++)
    make_ascending (to_linear + (gsize) c * codes, midpoints + (gsize) c * (codes - 1), codes);
  if (n == 3 && curves_alike (to_linear, midpoints, codes))
    curves = 1;
  t = cc_transfer_new (codes == 256 ? CC_TYPE_U8 : CC_TYPE_U16, curves, to_linear,
                       midpoints, message, size);
  g_free (in);
  g_free (lin);
  g_free (din);
  g_free (dout);
  g_free (to_linear);
  g_free (midpoints);
  return t;
}
