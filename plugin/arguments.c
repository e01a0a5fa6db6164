/* The procedures' shared arguments.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "convolve.h"
#include "arguments.h"

void
arguments_add_matrix (GimpProcedure *procedure)
{
  gimp_procedure_add_string_argument (procedure, "preset", "_Preset",
                                      "A preset id (see plug-in-cuda-convolve-presets); "
                                      "when set it supplies mask-width, mask-height, matrix, "
                                      "divisor and offset, and normalize is ignored",
                                      "", G_PARAM_READWRITE);
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
  gimp_procedure_add_double_argument (procedure, "divisor", "_Divisor",
                                      "The weighted sum is divided by this (not 0)",
                                      -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "offset", "O_ffset",
                                      "Then this is added, in the 0..1 scale",
                                      -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "normalize", "_Normalize",
                                       "Divisor and offset from the mask's sum: sum > 0: "
                                       "divisor = sum; sum < 0: divisor = -sum, offset = 1; "
                                       "sum = 0: divisor = 1, offset = 0.5",
                                       FALSE, G_PARAM_READWRITE);
}

void
arguments_add_border_method (GimpProcedure *procedure, const gchar *border_default)
{
  gchar *blurb;

  /* Strings rather than GimpChoice: GIMP 3.0 turns an unknown choice into
   * the default before the plug-in sees it, and a script's typo must be
   * refused, not run. */
  gimp_procedure_add_string_argument (procedure, "border", "_Border",
                                      "What lies beyond the drawable's edges: \"zero\" "
                                      "(0, transparent where there is alpha), \"extend\" "
                                      "(the edge pixel repeats), \"wrap\" (the drawable "
                                      "repeats), \"mirror\" (it reflects, the edge pixel "
                                      "not repeated), \"black\" or \"white\" (opaque); "
                                      "GEGL's \"none\", \"clamp\" and \"loop\" name "
                                      "zero, extend and wrap",
                                      border_default, G_PARAM_READWRITE);
  blurb = g_strdup_printf ("How to compute it: %s (\"auto\": the fastest; the CPU where "
                           "no GPU is usable)", cc_method_names ());
  gimp_procedure_add_string_argument (procedure, "method", "M_ethod", blurb, "auto",
                                      G_PARAM_READWRITE);
  g_free (blurb);
}

void
arguments_add_channels (GimpProcedure *procedure, const gchar *linear_blurb,
                        const gchar *verb, const gchar *done)
{
  gchar *blurb;

  gimp_procedure_add_boolean_argument (procedure, "linear", "_Linear light", linear_blurb,
                                       TRUE, G_PARAM_READWRITE);
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
  gchar *blurb;

  blurb = g_strdup_printf ("The mask made from a shape, scaled to sum 1, each cell the "
                           "area of the shape over it: %s; \"matrix\" (the default): "
                           "the preset, or mask-width, mask-height, matrix, divisor, "
                           "offset and normalize, which a shape ignores",
                           cc_shape_names ());
  gimp_procedure_add_string_argument (procedure, "shape", "S_hape", blurb, "matrix",
                                      G_PARAM_READWRITE);
  g_free (blurb);
  gimp_procedure_add_double_argument (procedure, "radius", "Ra_dius",
                                      "The shape's radius in pixels (gaussian: three "
                                      "standard deviations; box: 2 x radius + 1 wide; "
                                      "motion: a line 2 x radius + 1 long)",
                                      CC_SHAPE_RADIUS_MIN, CC_SHAPE_RADIUS_MAX,
                                      5.0, G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "angle", "An_gle",
                                      "polygon and motion: degrees counter-clockwise (0: "
                                      "a corner at the top, a line across)",
                                      -360.0, 360.0, 0.0, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "blades", "Bla_des", "polygon: its sides",
                                   CC_SHAPE_BLADES_MIN, CC_SHAPE_BLADES_MAX, 6,
                                   G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "inner", "_Inner",
                                      "ring: the hole's radius over the radius",
                                      0.0, CC_SHAPE_INNER_MAX, 0.5, G_PARAM_READWRITE);
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
