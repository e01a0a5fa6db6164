/* The names the front ends and messages use: borders (and GEGL's aliases),
 * sample types, statuses, and every method's and border's name as one
 * list for messages that quote the choices.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "engine.h"

static const char *const border_names[CC_BORDER_COUNT] =
  { "zero", "extend", "wrap", "mirror", "black", "white" };

/* GEGL's names for the same borders (its abyss policies). */
#define CC_BORDER_ALIASES 3
static const char *const border_aliases[CC_BORDER_ALIASES] = { "none", "clamp", "loop" };
static const CcBorder border_alias_of[CC_BORDER_ALIASES] =
  { CC_BORDER_ZERO, CC_BORDER_EXTEND, CC_BORDER_WRAP };

static const char *const type_names[CC_TYPE_COUNT] =
  { "u8", "u16", "u32", "half", "float", "double" };

static const size_t type_sizes[CC_TYPE_COUNT] = { 1, 2, 4, 2, 4, 8 };

/* A table of n names as one comma-separated string, made once. */
static const char *
join_names (const char *const *names, int n, char *buf, size_t size)
{
  size_t used = 0;

  for (int i = 0; i < n && used < size; i++)
    used += (size_t) snprintf (buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
  return buf;
}

static char method_list[128], border_list[128];

static void
make_lists (void)
{
  const char *method_names[CC_METHOD_COUNT];

  for (int m = 0; m < CC_METHOD_COUNT; m++)
    method_names[m] = cc_methods[m].name;
  join_names (method_names, CC_METHOD_COUNT, method_list, sizeof method_list);
  join_names (border_names, CC_BORDER_COUNT, border_list, sizeof border_list);
}

static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

const char *
cc_method_names (void)
{
  pthread_once (&lists_once, make_lists);
  return method_list;
}

const char *
cc_border_names (void)
{
  pthread_once (&lists_once, make_lists);
  return border_list;
}

/* Where 'name' stands in a table of n names, or -1. */
static int
name_index (const char *name, const char *const *names, int n)
{
  for (int i = 0; name && i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

const char *
cc_border_name (CcBorder border)
{
  return (unsigned) border < CC_BORDER_COUNT ? border_names[border] : "?";
}

bool
cc_border_from_name (const char *name, CcBorder *border)
{
  int i = name_index (name, border_names, CC_BORDER_COUNT);

  if (i >= 0)
    *border = (CcBorder) i;
  else if ((i = name_index (name, border_aliases, CC_BORDER_ALIASES)) >= 0)
    *border = border_alias_of[i];
  return i >= 0;
}

const char *
cc_type_name (CcType type)
{
  return (unsigned) type < CC_TYPE_COUNT ? type_names[type] : "?";
}

bool
cc_type_from_name (const char *name, CcType *type)
{
  const int i = name_index (name, type_names, CC_TYPE_COUNT);

  if (i >= 0)
    *type = (CcType) i;
  return i >= 0;
}

size_t
cc_type_size (CcType type)
{
  return (unsigned) type < CC_TYPE_COUNT ? type_sizes[type] : 0;
}

const char *
cc_status_name (CcStatus status)
{
  switch (status)
    {
    case CC_OK:                   return "ok";
    case CC_ERROR_INVALID:        return "invalid argument";
    case CC_ERROR_NO_DRIVER:      return "no NVIDIA driver";
    case CC_ERROR_DRIVER_TOO_OLD: return "NVIDIA driver too old";
    case CC_ERROR_NO_GPU:         return "no GPU";
    case CC_ERROR_OUT_OF_MEMORY:  return "out of memory";
    case CC_ERROR_UNSUPPORTED:    return "unsupported";
    case CC_ERROR_CANCELLED:      return "cancelled";
    case CC_ERROR_GPU:            return "GPU error";
    }
  return "?";
}
