/* The settings' table (engine/setting-table.h) against the engine: each
 * default in its range and the engine's own defaults (cc_options_init,
 * cc_deconvolve_params_init); each choice's names both ways; and the
 * engine's checks accept each number setting at its bounds and refuse it
 * just past them.  With --print, the table as tab-separated lines (name,
 * type, min, max, default, label, description), which test-tool.sh and GIMP's
 * suite (tests/gimp/settings.py) hold the front ends against.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "setting-table.h"

static const char *const type_names[] = { "int", "double", "bool", "choice", "text" };

static void
print_table (void)
{
  for (int i = 0; i < CC_SETTING_COUNT; i++)
    {
      const CcSetting *s = &cc_settings[i];

      printf ("%s\t%s\t%.17g\t%.17g\t", s->name, type_names[s->type], s->min, s->max);
      if (s->type == CC_SETTING_TYPE_TEXT)
        printf ("%s", s->text);
      else if (s->type == CC_SETTING_TYPE_CHOICE)
        printf ("%s", cc_setting_choice_name ((CcSettingId) i, (int) s->value));
      else
        printf ("%.17g", s->value);
      printf ("\t%s\t%s\n", s->label, s->blurb);
    }
}

/* Whether the engine takes 'v' for the number setting 'id': a shape's
 * through cc_mask_shape, a deconvolution's through cc_deconvolve_check. */
static bool
engine_takes (CcSettingId id, double v, char *why, size_t size)
{
  CcShapeSpec shape = CC_SHAPE_SPEC_DEFAULT;
  CcDeconvolveParams p;
  double one = 1.0, *values = NULL;
  const CcMask point = { 1, 1, &one, 1.0, 0.0 };
  CcMask mask;
  bool ok;

  cc_deconvolve_params_init (&p);
  shape.shape = id == CC_SETTING_ID_BLADES ? CC_SHAPE_POLYGON
                : id == CC_SETTING_ID_INNER ? CC_SHAPE_RING : CC_SHAPE_MOTION;
  switch (id)
    {
    case CC_SETTING_ID_RADIUS: shape.radius = v; break;
    case CC_SETTING_ID_ANGLE:  shape.angle = v; break;
    case CC_SETTING_ID_BLADES: shape.blades = (int) v; break;
    case CC_SETTING_ID_INNER:  shape.inner = v; break;
    case CC_SETTING_ID_ITERATIONS: p.iterations = (int) v; break;
    case CC_SETTING_ID_TV_WEIGHT:  p.tv_weight = v; break;
    case CC_SETTING_ID_NOISE:      p.noise = v; p.algorithm = CC_DECONVOLVE_WIENER; break;
    default: return false;
    }
  if (id == CC_SETTING_ID_ITERATIONS || id == CC_SETTING_ID_TV_WEIGHT ||
      id == CC_SETTING_ID_NOISE)
    return cc_deconvolve_check (&point, &p, why, size);
  /* A radius past what a 1023-wide mask holds is refused for its size. */
  if (id != CC_SETTING_ID_RADIUS)
    shape.radius = 3.0;
  ok = cc_mask_shape (&shape, &mask, &values, why, size);
  free (values);
  return ok;
}

static void
check_bounds (CcSettingId id)
{
  const CcSetting *s = &cc_settings[id];
  const double step = s->type == CC_SETTING_TYPE_INT ? 1.0 : 1e-6 * fmax (1.0, fabs (s->max));
  char why[512] = "";

  CHECK (engine_takes (id, s->min, why, sizeof why), "%s = %g (its minimum): %s", s->name,
         s->min, why);
  CHECK (engine_takes (id, s->value, why, sizeof why), "%s = %g (its default): %s", s->name,
         s->value, why);
  if (s->max < 1e300)
    {
      CHECK (engine_takes (id, s->max, why, sizeof why), "%s = %g (its maximum): %s",
             s->name, s->max, why);
      CHECK (!engine_takes (id, s->max + step, why, sizeof why),
             "%s = %g, past its maximum, is taken", s->name, s->max + step);
    }
  CHECK (!engine_takes (id, s->min - step, why, sizeof why),
         "%s = %g, below its minimum, is taken", s->name, s->min - step);
}

int
main (int argc, char **argv)
{
  CcOptions o;
  CcDeconvolveParams p;
  int v;

  if (argc > 1 && strcmp (argv[1], "--print") == 0)
    {
      print_table ();
      return 0;
    }
  for (int i = 0; i < CC_SETTING_COUNT; i++)
    {
      const CcSetting *s = &cc_settings[i];

      CHECK (cc_setting_find (s->name) == s, "%s: not found by its name", s->name);
      CHECK (s->mnemonic >= 0 && s->mnemonic < (int) strlen (s->label) &&
             s->label[s->mnemonic] != ' ', "%s: the mnemonic %d of '%s'", s->name,
             s->mnemonic, s->label);
      CHECK (s->type == CC_SETTING_TYPE_TEXT || (s->value >= s->min && s->value <= s->max),
             "%s: the default %g outside %g..%g", s->name, s->value, s->min, s->max);
      if (s->type == CC_SETTING_TYPE_CHOICE)
        for (int c = (int) s->min; c <= (int) s->max; c++)
          {
            const char *name = cc_setting_choice_name ((CcSettingId) i, c);

            CHECK (name && cc_setting_choice_from ((CcSettingId) i, name, &v) && v == c &&
                   strstr (cc_setting_choice_names ((CcSettingId) i), name),
                   "%s: choice %d ('%s') does not come back from its name", s->name, c,
                   name ? name : "(none)");
          }
      /* The divisor and offset are any numbers (the divisor not 0). */
      if ((s->type == CC_SETTING_TYPE_INT || s->type == CC_SETTING_TYPE_DOUBLE) &&
          i != CC_SETTING_ID_DIVISOR && i != CC_SETTING_ID_OFFSET)
        check_bounds ((CcSettingId) i);
    }
  CHECK (cc_setting_find ("no-such-setting") == NULL, "an unknown name is found");

  cc_options_init (&o);
  CHECK (o.border == (CcBorder) cc_settings[CC_SETTING_ID_BORDER].value &&
         o.method == (CcMethod) cc_settings[CC_SETTING_ID_METHOD].value &&
         o.clamp == (cc_settings[CC_SETTING_ID_CLAMP].value != 0) &&
         o.alpha_weighting == (cc_settings[CC_SETTING_ID_ALPHA_WEIGHTING].value != 0) &&
         o.affect_alpha == (cc_settings[CC_SETTING_ID_AFFECT_ALPHA].value != 0),
         "cc_options_init's defaults are not the table's");
  cc_deconvolve_params_init (&p);
  CHECK (p.algorithm == (CcDeconvolveAlgorithm) cc_settings[CC_SETTING_ID_ALGORITHM].value &&
         p.iterations == cc_settings[CC_SETTING_ID_ITERATIONS].value &&
         p.start == (CcDeconvolveStart) cc_settings[CC_SETTING_ID_INIT].value &&
         p.tv_weight == cc_settings[CC_SETTING_ID_TV_WEIGHT].value &&
         p.noise == cc_settings[CC_SETTING_ID_NOISE].value,
         "cc_deconvolve_params_init's defaults are not the table's");
  printf ("%d settings; %s\n", CC_SETTING_COUNT,
          check_failures ? "FAIL" : "the engine's defaults and bounds agree");
  return check_failures ? 1 : 0;
}
