/* Names and the text the front ends parse: border names with GEGL's
 * aliases, each name parsing back, names that are none refused; and sizes
 * as the budget variables give them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>

#include "check.h"
#include "engine.h"

/* Border names, GEGL's aliases, and names that are none. */
static void
test_border_names (void)
{
  static const struct { const char *name; CcBorder want; } names[] = {
    { "zero", CC_BORDER_ZERO }, { "extend", CC_BORDER_EXTEND }, { "wrap", CC_BORDER_WRAP },
    { "mirror", CC_BORDER_MIRROR }, { "black", CC_BORDER_BLACK },
    { "white", CC_BORDER_WHITE }, { "none", CC_BORDER_ZERO }, { "clamp", CC_BORDER_EXTEND },
    { "loop", CC_BORDER_WRAP },
  };
  CcBorder b;

  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    CHECK (cc_border_from_name (names[i].name, &b) && b == names[i].want,
           "border name '%s'", names[i].name);
  for (int i = 0; i < CC_BORDER_COUNT; i++)
    CHECK (cc_border_from_name (cc_border_name ((CcBorder) i), &b) && b == (CcBorder) i,
           "border %d's name parses back", i);
  CHECK (!cc_border_from_name ("Black", &b) && !cc_border_from_name ("", &b) &&
         !cc_border_from_name (NULL, &b), "unknown border names are refused");
}

/* Sizes as the budget variables take them, and text that is none. */
static void
test_bytes (void)
{
  static const struct { const char *text; uint64_t want; } sizes[] = {
    { "123", 123 }, { "4K", 4096 }, { "4k", 4096 }, { "512M", 512ull << 20 },
    { "1.5G", 3ull << 29 }, { "64G", 64ull << 30 }, { "1e3", 1000 },
  };
  static const char *const bad[] = { "", "0", "-1", "G", "4GB", "12 ", "0.5", "x1", "nan" };
  uint64_t bytes;

  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    CHECK (cc_bytes_parse (sizes[i].text, &bytes) && bytes == sizes[i].want,
           "size '%s'", sizes[i].text);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK (!cc_bytes_parse (bad[i], &bytes), "'%s' is refused as a size", bad[i]);
  CHECK (!cc_bytes_parse (NULL, &bytes), "no text is no size");
}

int
main (void)
{
  test_border_names ();
  test_bytes ();
  printf ("%s: %d failure%s\n", check_failures ? "FAIL" : "PASS", (int) check_failures,
          check_failures == 1 ? "" : "s");
  return check_failures ? 1 : 0;
}
