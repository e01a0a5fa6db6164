/* The procedures' shared arguments.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "arguments.h"

/* A setting of the table (engine/setting-table.h) as an argument: its label
 * with the mnemonic, a choice as a string (GIMP 3.0 turns an unknown
 * GimpChoice into the default before the plug-in sees it, and a script's
 * typo must be refused, not run), with the choices after its blurb. */
static void
add_setting (GimpProcedure *procedure, CcSettingId id, const gchar *choice_default)
{
  const CcSetting *s = &cc_settings[id];
  gchar *label = g_strdup_printf ("%.*s_%s", s->mnemonic, s->label, s->label + s->mnemonic);
  gchar *blurb = s->type == CC_SETTING_TYPE_CHOICE
                 ? g_strdup_printf ("%s (%s)", s->blurb, cc_setting_choice_names (id))
                 : g_strdup (s->blurb);

  switch (s->type)
    {
    case CC_SETTING_TYPE_INT:
      gimp_procedure_add_int_argument (procedure, s->name, label, blurb, (gint) s->min,
                                       (gint) s->max, (gint) s->value, G_PARAM_READWRITE);
      break;
    case CC_SETTING_TYPE_DOUBLE:
      gimp_procedure_add_double_argument (procedure, s->name, label, blurb, s->min, s->max,
                                          s->value, G_PARAM_READWRITE);
      break;
    case CC_SETTING_TYPE_BOOL:
      gimp_procedure_add_boolean_argument (procedure, s->name, label, blurb, s->value != 0,
                                           G_PARAM_READWRITE);
      break;
    case CC_SETTING_TYPE_CHOICE:
      gimp_procedure_add_string_argument (procedure, s->name, label, blurb,
                                          choice_default ? choice_default
                                          : cc_setting_choice_name (id, (int) s->value),
                                          G_PARAM_READWRITE);
      break;
    case CC_SETTING_TYPE_TEXT:
      gimp_procedure_add_string_argument (procedure, s->name, label, blurb, s->text,
                                          G_PARAM_READWRITE);
      break;
    }
  g_free (label);
  g_free (blurb);
}

void
arguments_add_settings (GimpProcedure *procedure, const CcSettingId *ids, gint n)
{
  for (gint i = 0; i < n; i++)
    add_setting (procedure, ids[i], NULL);
}

void
arguments_add_matrix (GimpProcedure *procedure)
{
  static const CcSettingId after[] = { CC_SETTING_ID_DIVISOR, CC_SETTING_ID_OFFSET,
                                       CC_SETTING_ID_NORMALIZE };

  add_setting (procedure, CC_SETTING_ID_PRESET, NULL);
  gimp_procedure_add_int_argument (procedure, "mask-width", "Mask _width",
                                   "Mask width, odd, 1 to " G_STRINGIFY (CC_MASK_MAX)
                                   " (1: a vertical 1D mask)",
                                   1, CC_MASK_MAX, 3, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "mask-height", "Mask _height",
                                   "Mask height, odd, 1 to " G_STRINGIFY (CC_MASK_MAX)
                                   " (1: a horizontal 1D mask)",
                                   1, CC_MASK_MAX, 3, G_PARAM_READWRITE);
  gimp_procedure_add_double_array_argument (procedure, "matrix", "_Matrix",
                                            "The mask, row-major, mask-width x mask-height "
                                            "values; empty: the identity (centre 1)",
                                            G_PARAM_READWRITE);
  arguments_add_settings (procedure, after, G_N_ELEMENTS (after));
}

void
arguments_add_border_method (GimpProcedure *procedure, CcBorder border_default)
{
  add_setting (procedure, CC_SETTING_ID_BORDER,
               cc_setting_choice_name (CC_SETTING_ID_BORDER, border_default));
  add_setting (procedure, CC_SETTING_ID_METHOD, NULL);
}

void
arguments_add_channels (GimpProcedure *procedure, const gchar *verb, const gchar *done)
{
  gchar *blurb;

  add_setting (procedure, CC_SETTING_ID_LINEAR, NULL);
  blurb = g_strdup_printf ("%s the red channel; off keeps it (on gray drawables gray is "
                           "%s unless red, green and blue are all off)", verb, done);
  gimp_procedure_add_boolean_argument (procedure, "red", "_Red", blurb, TRUE,
                                       G_PARAM_READWRITE);
  g_free (blurb);
  blurb = g_strdup_printf ("%s the green channel; off keeps it", verb);
  gimp_procedure_add_boolean_argument (procedure, "green", "_Green", blurb, TRUE,
                                       G_PARAM_READWRITE);
  g_free (blurb);
  blurb = g_strdup_printf ("%s the blue channel; off keeps it", verb);
  gimp_procedure_add_boolean_argument (procedure, "blue", "_Blue", blurb, TRUE,
                                       G_PARAM_READWRITE);
  g_free (blurb);
}

void
arguments_add_shape (GimpProcedure *procedure)
{
  static const CcSettingId shape[] = { CC_SETTING_ID_SHAPE, CC_SETTING_ID_RADIUS,
                                       CC_SETTING_ID_ANGLE, CC_SETTING_ID_BLADES,
                                       CC_SETTING_ID_INNER };

  arguments_add_settings (procedure, shape, G_N_ELEMENTS (shape));
  gimp_procedure_add_drawable_argument (procedure, "mask-drawable", "Mask _layer",
                                        "A layer (or channel) as the mask: each pixel's "
                                        "luminance in linear light times its alpha, scaled "
                                        "to sum 1, its whole extent, up to "
                                        G_STRINGIFY (CC_MASK_MAX) "x" G_STRINGIFY (CC_MASK_MAX)
                                        " (an even side gains a zero column or row); shape, "
                                        "preset and matrix are then ignored",
                                        TRUE, G_PARAM_READWRITE);
}

void
arguments_add_return_values (GimpProcedure *procedure, const gchar *ms_note)
{
  gchar *blurb = g_strdup_printf ("Milliseconds the application took, reading and writing "
                                  "the pixels included%s", ms_note);

  gimp_procedure_add_string_return_value (procedure, "method-used", "Method used",
                                          "The method that ran (\"\" when the selection "
                                          "misses the drawable)", "", G_PARAM_READWRITE);
  gimp_procedure_add_string_return_value (procedure, "device", "Device",
                                          "The GPU's name, or the CPU threads", "",
                                          G_PARAM_READWRITE);
  gimp_procedure_add_double_return_value (procedure, "elapsed-ms", "Elapsed ms", blurb,
                                          0.0, G_MAXDOUBLE, 0.0, G_PARAM_READWRITE);
  g_free (blurb);
}
