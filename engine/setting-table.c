/* The settings' table (setting-table.h), and the choice settings' names:
 * each kind's from the engine's own functions, its list made from the names
 * of its values.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
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

/* The engine's functions for each choice, by their prefix: a value's name
 * (cc_shape_name) and a name's value (cc_shape_from_name). */
#define CHOICES(X) \
  X (SHAPE, shape, CcShape) \
  X (BORDER, border, CcBorder) \
  X (METHOD, method, CcMethod) \
  X (ALGORITHM, deconvolve_algorithm, CcDeconvolveAlgorithm) \
  X (INIT, deconvolve_start, CcDeconvolveStart)

/* The same through an int, so that one table holds every kind's (the
 * engine's take their own enum). */
#define THROUGH_INT(ID, kind, Enum) \
  static const char * \
  kind##_name (int value) \
  { \
    return cc_##kind##_name ((Enum) value); \
  } \
  \
  static bool \
  kind##_from (const char *name, int *value) \
  { \
    Enum v; \
    \
    if (!cc_##kind##_from_name (name, &v)) \
      return false; \
    *value = (int) v; \
    return true; \
  }
CHOICES (THROUGH_INT)
#undef THROUGH_INT

typedef struct
{
  const char *(*name) (int value);
  bool        (*from) (const char *name, int *value);
} Choice;

static const Choice choices[CC_SETTING_COUNT] = {
#define ENTRY(ID, kind, Enum) [CC_SETTING_ID_##ID] = { kind##_name, kind##_from },
  CHOICES (ENTRY)
#undef ENTRY
};

/* Each choice's names as one list, made once from the names of its values
 * so that none is left out or spelt twice: "a or b" for two, commas for
 * more. */
static char choice_lists[CC_SETTING_COUNT][128];
static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

static void
make_lists (void)
{
  for (int id = 0; id < CC_SETTING_COUNT; id++)
    {
      const int first = (int) cc_settings[id].min, last = (int) cc_settings[id].max;
      const size_t size = sizeof choice_lists[id];
      size_t used = 0;

      for (int v = first; choices[id].name && v <= last && used < size; v++)
        used += (size_t) snprintf (choice_lists[id] + used, size - used, "%s%s",
                                   v == first ? "" : last - first == 1 ? " or " : ", ",
                                   choices[id].name (v));
    }
}

/* The choice setting 'id' is, or NULL. */
static const Choice *
choice_of (CcSettingId id)
{
  return (unsigned) id < CC_SETTING_COUNT && choices[id].name ? &choices[id] : NULL;
}

const char *
cc_setting_choice_name (CcSettingId id, int value)
{
  const Choice *c = choice_of (id);

  return c ? c->name (value) : NULL;
}

const char *
cc_setting_choice_names (CcSettingId id)
{
  if (!choice_of (id))
    return NULL;
  pthread_once (&lists_once, make_lists);
  return choice_lists[id];
}

bool
cc_setting_choice_from (CcSettingId id, const char *name, int *value)
{
  const Choice *c = choice_of (id);

  return c && c->from (name, value);
}
