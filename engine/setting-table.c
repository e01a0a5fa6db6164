/* The settings' table (setting-table.h), and a choice's names from the engine
 * table of its kind.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "setting-table.h"

/* A text's default is its text; every other type's, its value. */
#define VALUE_INT(d)    (d)
#define VALUE_DOUBLE(d) (d)
#define VALUE_BOOL(d)   (d)
#define VALUE_CHOICE(d) (d)
#define VALUE_TEXT(d)   0
#define TEXT_INT(d)     NULL
#define TEXT_DOUBLE(d)  NULL
#define TEXT_BOOL(d)    NULL
#define TEXT_CHOICE(d)  NULL
#define TEXT_TEXT(d)    (d)

const CcSetting cc_settings[CC_SETTING_COUNT] = {
#define ROW(id, type, name, label, mnemonic, min, max, d, blurb) \
  [CC_SETTING_ID_##id] = { name, CC_SETTING_TYPE_##type, label, mnemonic, min, max, \
                           VALUE_##type (d), TEXT_##type (d), blurb },
  CC_SETTINGS (ROW)
#undef ROW
};

const CcSetting *
cc_setting_find (const char *name)
{
  for (int i = 0; i < CC_SETTING_COUNT; i++)
    if (strcmp (cc_settings[i].name, name) == 0)
      return &cc_settings[i];
  return NULL;
}

const char *
cc_setting_choice_name (CcSettingId id, int value)
{
  switch (id)
    {
    case CC_SETTING_ID_SHAPE:     return cc_shape_name ((CcShape) value);
    case CC_SETTING_ID_BORDER:    return cc_border_name ((CcBorder) value);
    case CC_SETTING_ID_METHOD:    return cc_method_name ((CcMethod) value);
    case CC_SETTING_ID_ALGORITHM: return cc_deconvolve_algorithm_name ((CcDeconvolveAlgorithm) value);
    case CC_SETTING_ID_INIT:      return cc_deconvolve_start_name ((CcDeconvolveStart) value);
    default:                      return NULL;
    }
}

const char *
cc_setting_choice_names (CcSettingId id)
{
  switch (id)
    {
    case CC_SETTING_ID_SHAPE:     return cc_shape_names ();
    case CC_SETTING_ID_BORDER:    return cc_border_names ();
    case CC_SETTING_ID_METHOD:    return cc_method_names ();
    case CC_SETTING_ID_ALGORITHM: return "richardson-lucy or wiener";
    case CC_SETTING_ID_INIT:      return "flat or image";
    default:                      return NULL;
    }
}

bool
cc_setting_choice_from (CcSettingId id, const char *name, int *value)
{
  bool found = false;

  switch (id)
    {
    case CC_SETTING_ID_SHAPE:
      {
        CcShape v;
        if ((found = cc_shape_from_name (name, &v)))
          *value = (int) v;
        break;
      }
    case CC_SETTING_ID_BORDER:
      {
        CcBorder v;
        if ((found = cc_border_from_name (name, &v)))
          *value = (int) v;
        break;
      }
    case CC_SETTING_ID_METHOD:
      {
        CcMethod v;
        if ((found = cc_method_from_name (name, &v)))
          *value = (int) v;
        break;
      }
    case CC_SETTING_ID_ALGORITHM:
      {
        CcDeconvolveAlgorithm v;
        if ((found = cc_deconvolve_algorithm_from_name (name, &v)))
          *value = (int) v;
        break;
      }
    case CC_SETTING_ID_INIT:
      {
        CcDeconvolveStart v;
        if ((found = cc_deconvolve_start_from_name (name, &v)))
          *value = (int) v;
        break;
      }
    default:
      break;
    }
  return found;
}
