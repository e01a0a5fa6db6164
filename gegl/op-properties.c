/* The operations' shared choices, made once a process, the mask
 * properties' state, and the keys.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "op-properties.h"
#include "preset.h"

/* The choices whose values the engine names, 0 .. count - 1. */
typedef enum
{
  CHOICE_SHAPE,
  CHOICE_BORDER,
  CHOICE_METHOD,
  CHOICE_ALGORITHM,
  CHOICE_START,
  CHOICE_COUNT
} Choice;

static const struct
{
  const gchar *type_name;
  gint         count;
} choices[CHOICE_COUNT] = {
  [CHOICE_SHAPE]     = { "CudaConvolveShape", CC_SHAPE_COUNT },
  [CHOICE_BORDER]    = { "CudaConvolveBorder", CC_BORDER_COUNT },
  [CHOICE_METHOD]    = { "CudaConvolveMethod", CC_METHOD_COUNT },
  [CHOICE_ALGORITHM] = { "CudaDeconvolveAlgorithm", CC_DECONVOLVE_COUNT },
  [CHOICE_START]     = { "CudaDeconvolveInit", CC_DECONVOLVE_START_COUNT } };

static const char *
choice_name (Choice choice, gint value)
{
  switch (choice)
    {
    case CHOICE_SHAPE:
      return cc_shape_name ((CcShape) value);
    case CHOICE_BORDER:
      return cc_border_name ((CcBorder) value);
    case CHOICE_METHOD:
      return cc_methods[value].name;
    case CHOICE_ALGORITHM:
      return cc_deconvolve_algorithm_name ((CcDeconvolveAlgorithm) value);
    default:
      return cc_deconvolve_start_name ((CcDeconvolveStart) value);
    }
}

/* A choice's enum type, its values named and nicknamed by the engine,
 * registered at the first call. */
static GType
choice_type (Choice choice)
{
  static gsize types[CHOICE_COUNT];

  if (g_once_init_enter (&types[choice]))
    {
      GEnumValue *values = g_new0 (GEnumValue, choices[choice].count + 1);

      for (gint v = 0; v < choices[choice].count; v++)
        values[v] = (GEnumValue) { v, choice_name (choice, v), choice_name (choice, v) };
      g_once_init_leave (&types[choice],
                         g_enum_register_static (choices[choice].type_name, values));
    }
  return types[choice];
}

GType
cuda_convolve_preset_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      gchar *shipped, *user;
      GList *presets;
      GEnumValue *values;
      gint n = 1;

      cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
      presets = cc_presets_list (shipped, user, NULL);
      values = g_new0 (GEnumValue, g_list_length (presets) + 2);
      values[0] = (GEnumValue) { 0, "None: the matrix", "none" };
      for (GList *l = presets; l; l = l->next, n++)
        {
          const CcPreset *p = l->data;

          values[n] = (GEnumValue) { n, g_strdup (p->name), g_strdup (p->id) };
        }
      cc_presets_free (presets);
      g_free (shipped);
      g_free (user);
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolvePreset", values));
    }
  return type;
}

/* The get_type functions property_enum names. */
#define CHOICE_GET_TYPE(function, choice) \
  GType function (void) { return choice_type (choice); }

CHOICE_GET_TYPE (cuda_convolve_shape_get_type, CHOICE_SHAPE)
CHOICE_GET_TYPE (cuda_convolve_border_get_type, CHOICE_BORDER)
CHOICE_GET_TYPE (cuda_convolve_method_get_type, CHOICE_METHOD)
CHOICE_GET_TYPE (cuda_deconvolve_algorithm_get_type, CHOICE_ALGORITHM)
CHOICE_GET_TYPE (cuda_deconvolve_init_get_type, CHOICE_START)

/* The preset property's value as its id ("" for none). */
static const gchar *
preset_id (gint preset)
{
  GEnumClass *presets = g_type_class_ref (cuda_convolve_preset_get_type ());
  const GEnumValue *chosen = preset ? g_enum_get_value (presets, preset) : NULL;

  /* The class, and so its names, lives as long as the process. */
  g_type_class_unref (presets);
  return chosen ? chosen->value_nick : "";
}

OpState *
op_properties_state (GeglOperation *operation, OpState *old)
{
  gint shape, preset;
  gchar *matrix, *report;
  OpStateKey key;
  OpState *state;

  g_object_get (operation,
                "shape",     &shape,
                "radius",    &key.shape.radius,
                "angle",     &key.shape.angle,
                "blades",    &key.shape.blades,
                "inner",     &key.shape.inner,
                "preset",    &preset,
                "matrix",    &matrix,
                "divisor",   &key.divisor,
                "offset",    &key.offset,
                "normalize", &key.normalize,
                "report",    &report,
                NULL);
  key.shape.shape = (CcShape) shape;
  key.preset = preset_id (preset);
  key.matrix = matrix;
  key.report = report;
  state = op_state_for (old, &key);
  g_free (matrix);
  g_free (report);
  return state;
}

void
op_properties_set_keys (GeglOperationClass *klass, const gchar *name, const gchar *title,
                        const gchar *categories, const gchar *description,
                        const gchar *menu_path, const gchar *menu_label)
{
  gegl_operation_class_set_keys (klass,
    "name",            name,
    "title",           title,
    "categories",      categories,
    "description",     description,
    "gimp:menu-path",  menu_path,
    "gimp:menu-label", menu_label,
    NULL);
}
