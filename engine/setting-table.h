/* The settings a user sets, each written once: its name, type, label,
 * range, default and description.  cuda:convolve's and cuda:deconvolve's
 * properties, the procedures' arguments and the tool's options are made
 * from these, and tests/test-settings checks that they agree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_SETTING_TABLE_H
#define CC_SETTING_TABLE_H

#include <float.h>

#include "convolve.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_SETTING_STRING_(x) #x
#define CC_SETTING_STRING(x)  CC_SETTING_STRING_ (x)

/* Each setting: X (ID, type, name, label, mnemonic, min, max, default,
 * description).  The mnemonic is the label's letter a GIMP dialog
 * underlines (its index); a choice's range is its enum's, its default one
 * of them. */
#define CC_SETTING_SHAPE(X) \
  X (SHAPE, CHOICE, "shape", "Shape", 1, 0, CC_SHAPE_COUNT - 1, CC_SHAPE_MATRIX, \
     "The mask made from a shape, scaled to sum 1, each cell weighing the area of the " \
     "shape over it; matrix: the preset or the matrix, which a shape ignores")
#define CC_SETTING_RADIUS(X) \
  X (RADIUS, DOUBLE, "radius", "Radius", 2, CC_SHAPE_RADIUS_MIN, CC_SHAPE_RADIUS_MAX, 5.0, \
     "The shape's radius in pixels (gaussian: three standard deviations; box: 2 x " \
     "radius + 1 wide; motion: a line 2 x radius + 1 long)")
#define CC_SETTING_ANGLE(X) \
  X (ANGLE, DOUBLE, "angle", "Angle", 2, -CC_SHAPE_ANGLE_MAX, CC_SHAPE_ANGLE_MAX, 0.0, \
     "polygon and motion: degrees counter-clockwise (0: a corner at the top, a line " \
     "across)")
#define CC_SETTING_BLADES(X) \
  X (BLADES, INT, "blades", "Blades", 3, CC_SHAPE_BLADES_MIN, CC_SHAPE_BLADES_MAX, 6, \
     "polygon: its sides")
#define CC_SETTING_INNER(X) \
  X (INNER, DOUBLE, "inner", "Inner", 0, 0.0, CC_SHAPE_INNER_MAX, 0.5, \
     "ring: the hole's radius over the radius")
#define CC_SETTING_PRESET(X) \
  X (PRESET, TEXT, "preset", "Preset", 0, 0, 0, "", \
     "A preset's id, the shipped ones and yours: it supplies the mask, divisor and " \
     "offset, and normalize is ignored; none: the matrix")
#define CC_SETTING_MATRIX(X) \
  X (MATRIX, TEXT, "matrix", "Matrix", 0, 0, 0, "0,0,0;0,1,0;0,0,0", \
     "The mask: rows separated by ';', values by ',', odd sizes up to " \
     CC_SETTING_STRING (CC_MASK_MAX) "x" CC_SETTING_STRING (CC_MASK_MAX) \
     ", e.g. \"0,1,0;1,-4,1;0,1,0\" (the procedures take its numbers, mask-width " \
     "x mask-height)")
#define CC_SETTING_DIVISOR(X) \
  X (DIVISOR, DOUBLE, "divisor", "Divisor", 0, -DBL_MAX, DBL_MAX, 1.0, \
     "The weighted sum is divided by this (not 0)")
#define CC_SETTING_OFFSET(X) \
  X (OFFSET, DOUBLE, "offset", "Offset", 1, -DBL_MAX, DBL_MAX, 0.0, \
     "Then this is added, in the 0..1 scale")
#define CC_SETTING_NORMALIZE(X) \
  X (NORMALIZE, BOOL, "normalize", "Normalize", 0, 0, 1, false, \
     "Divisor and offset from the mask's sum (GIMP's rule): sum > 0: divisor = sum; " \
     "sum < 0: divisor = -sum, offset = 1; sum = 0: divisor = 1, offset = 0.5")
#define CC_SETTING_BORDER(X) \
  X (BORDER, CHOICE, "border", "Border", 0, 0, CC_BORDER_COUNT - 1, CC_BORDER_EXTEND, \
     "What lies beyond the image's edges: zero (0, transparent where there is alpha), " \
     "extend (the edge pixel repeats), wrap (the image repeats), mirror (it reflects, " \
     "the edge pixel not repeated), black or white (opaque); GEGL's none, clamp and " \
     "loop name zero, extend and wrap")
#define CC_SETTING_METHOD(X) \
  X (METHOD, CHOICE, "method", "Method", 1, 0, CC_METHOD_COUNT - 1, CC_METHOD_AUTO, \
     "How to compute it: auto takes the fastest, the CPU where no GPU is usable")
#define CC_SETTING_CLAMP(X) \
  X (CLAMP, BOOL, "clamp", "Clamp", 0, 0, 1, true, \
     "Clamp results to [0,1]; off keeps the HDR values of float images")
#define CC_SETTING_ALPHA_WEIGHTING(X) \
  X (ALPHA_WEIGHTING, BOOL, "alpha-weighting", "Alpha weighting", 0, 0, 1, true, \
     "Weight colour by alpha, so that transparent pixels' colour does not bleed")
#define CC_SETTING_AFFECT_ALPHA(X) \
  X (AFFECT_ALPHA, BOOL, "affect-alpha", "Affect alpha", 9, 0, 1, true, \
     "Convolve the alpha channel too; off copies it")
#define CC_SETTING_LINEAR(X) \
  X (LINEAR, BOOL, "linear", "Linear light", 0, 0, 1, true, \
     "Work on linear RGB in the image's own colour space, as GIMP 3 does; off works on " \
     "the perceptual values, as GIMP 2 did")
#define CC_SETTING_ALGORITHM(X) \
  X (ALGORITHM, CHOICE, "algorithm", "Algorithm", 0, 0, CC_DECONVOLVE_COUNT - 1, \
     CC_DECONVOLVE_RICHARDSON_LUCY, \
     "richardson-lucy: iterative, for photographs and stars, no negative weights; " \
     "wiener: one step, for a known blur and little noise")
#define CC_SETTING_ITERATIONS(X) \
  X (ITERATIONS, INT, "iterations", "Iterations", 2, 1, CC_DECONVOLVE_ITERATIONS_MAX, 30, \
     "Richardson-Lucy's steps: more restore more detail, and more noise")
#define CC_SETTING_INIT(X) \
  X (INIT, CHOICE, "init", "Start", 1, 0, CC_DECONVOLVE_START_COUNT - 1, \
     CC_DECONVOLVE_START_FLAT, \
     "What Richardson-Lucy starts from: flat, 0.5 everywhere (as scikit-image); image, " \
     "the blurred image itself")
#define CC_SETTING_TV_WEIGHT(X) \
  X (TV_WEIGHT, DOUBLE, "tv-weight", "Total variation", 0, 0.0, CC_DECONVOLVE_TV_MAX, 0.0, \
     "Richardson-Lucy's total-variation weight, which holds noise down: 0 is off, 0.002 " \
     "to 0.01 typical")
#define CC_SETTING_NOISE(X) \
  X (NOISE, DOUBLE, "noise", "Noise", 1, 0.0, DBL_MAX, 0.01, \
     "Wiener's noise-to-signal balance: larger is smoother")

#define CC_SETTINGS(X) \
  CC_SETTING_SHAPE (X) CC_SETTING_RADIUS (X) CC_SETTING_ANGLE (X) CC_SETTING_BLADES (X) \
  CC_SETTING_INNER (X) CC_SETTING_PRESET (X) CC_SETTING_MATRIX (X) CC_SETTING_DIVISOR (X) CC_SETTING_OFFSET (X) \
  CC_SETTING_NORMALIZE (X) CC_SETTING_BORDER (X) CC_SETTING_METHOD (X) CC_SETTING_CLAMP (X) \
  CC_SETTING_ALPHA_WEIGHTING (X) CC_SETTING_AFFECT_ALPHA (X) CC_SETTING_LINEAR (X) \
  CC_SETTING_ALGORITHM (X) CC_SETTING_ITERATIONS (X) CC_SETTING_INIT (X) \
  CC_SETTING_TV_WEIGHT (X) CC_SETTING_NOISE (X)

/* One field of a setting, where a constant is wanted (a GEGL property
 * list): CC_SETTING_DEFAULT (RADIUS) is 5.0. */
#define CC_FIELD_LABEL(id, t, n, label, m, lo, hi, d, b)       label
#define CC_FIELD_MIN(id, t, n, l, m, min, hi, d, b)            min
#define CC_FIELD_MAX(id, t, n, l, m, lo, max, d, b)            max
#define CC_FIELD_DEFAULT(id, t, n, l, m, lo, hi, value, b)     value
#define CC_FIELD_BLURB(id, t, n, l, m, lo, hi, d, blurb)       blurb
#define CC_SETTING_LABEL(ID)   CC_SETTING_##ID (CC_FIELD_LABEL)
#define CC_SETTING_MIN(ID)     CC_SETTING_##ID (CC_FIELD_MIN)
#define CC_SETTING_MAX(ID)     CC_SETTING_##ID (CC_FIELD_MAX)
#define CC_SETTING_DEFAULT(ID) CC_SETTING_##ID (CC_FIELD_DEFAULT)
#define CC_SETTING_BLURB(ID)   CC_SETTING_##ID (CC_FIELD_BLURB)

/* The shape's settings' defaults, as one CcShapeSpec. */
#define CC_SHAPE_SPEC_DEFAULT \
  { CC_SETTING_DEFAULT (SHAPE), CC_SETTING_DEFAULT (RADIUS), CC_SETTING_DEFAULT (ANGLE), \
    CC_SETTING_DEFAULT (BLADES), CC_SETTING_DEFAULT (INNER) }

/* A deconvolution's border unless the user sets one: mirror rings least
 * where the restoration meets the image's edge. */
#define CC_DECONVOLVE_BORDER CC_BORDER_MIRROR

typedef enum
{
#define CC_SETTING_ENUM(id, t, n, l, m, lo, hi, d, b) CC_SETTING_ID_##id,
  CC_SETTINGS (CC_SETTING_ENUM)
#undef CC_SETTING_ENUM
  CC_SETTING_COUNT
} CcSettingId;

typedef enum
{
  CC_SETTING_TYPE_INT,
  CC_SETTING_TYPE_DOUBLE,
  CC_SETTING_TYPE_BOOL,
  CC_SETTING_TYPE_CHOICE,   /* one of an engine table's names */
  CC_SETTING_TYPE_TEXT
} CcSettingType;

typedef struct
{
  const char    *name;        /* as the procedures and the tool spell it */
  CcSettingType  type;
  const char    *label;
  int            mnemonic;    /* the label's underlined letter */
  double         min, max;    /* numbers; a choice: its enum's first and last */
  double         value;       /* the default, but for text */
  const char    *text;        /* a text's default */
  const char    *blurb;
} CcSetting;

extern const CcSetting cc_settings[CC_SETTING_COUNT];

/* The setting of that name, or NULL. */
const CcSetting *cc_setting_find        (const char *name);
/* A choice's value's name ("disc"), its names as a list ("matrix,
 * gaussian, ... motion"; two as "image or flat"), and the value of a name
 * (false: none). */
const char      *cc_setting_choice_name  (CcSettingId id, int value);
const char      *cc_setting_choice_names (CcSettingId id);
bool             cc_setting_choice_from  (CcSettingId id, const char *name, int *value);

#ifdef __cplusplus
}
#endif

#endif /* CC_SETTING_TABLE_H */
