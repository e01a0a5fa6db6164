/* A file's colour space, linearity and orientation as GIMP 3 takes them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib-object.h>
#include <lcms2.h>

#include "colour.h"

/* The descriptions of GIMP's built-in profiles: an image tagged with the one
 * for its base type and linearity is left untagged (GIMP compares the whole
 * profile; these four names are GIMP's alone). */
static const char *const builtin[2][2] = {
  { "GIMP built-in sRGB", "GIMP built-in Linear sRGB" },
  { "GIMP built-in D65 Grayscale with sRGB TRC", "GIMP built-in D65 Linear Grayscale" },
};

static cmsHPROFILE
open_icc (const void *icc, size_t length)
{
  return icc && length >= sizeof (cmsICCHeader) && length <= 0x7fffffff
    ? cmsOpenProfileFromMem (icc, (cmsUInt32Number) length) : NULL;
}

static bool
curve_linear (cmsHPROFILE profile, cmsTagSignature tag)
{
  const cmsToneCurve *curve = cmsReadTag (profile, tag);

  return curve && cmsIsToneCurveLinear (curve);
}

bool
colour_icc_is_linear (const void *icc, size_t length)
{
  cmsHPROFILE profile = open_icc (icc, length);
  bool linear = false;

  if (!profile)
    return false;
  if (cmsIsMatrixShaper (profile) &&
      !cmsIsCLUT (profile, INTENT_PERCEPTUAL, LCMS_USED_AS_INPUT) &&
      !cmsIsCLUT (profile, INTENT_PERCEPTUAL, LCMS_USED_AS_OUTPUT))
    {
      if (cmsGetColorSpace (profile) == cmsSigRgbData)
        linear = curve_linear (profile, cmsSigRedTRCTag) &&
                 curve_linear (profile, cmsSigGreenTRCTag) &&
                 curve_linear (profile, cmsSigBlueTRCTag);
      else if (cmsGetColorSpace (profile) == cmsSigGrayData)
        linear = curve_linear (profile, cmsSigGrayTRCTag);
    }
  cmsCloseProfile (profile);
  return linear;
}

/* babl's space for a profile, with the intent GIMP asks for; NULL where babl
 * cannot read it (GIMP then leaves the layers in sRGB too). */
static const Babl *
babl_space_of (const void *icc, size_t length)
{
  const char *why = NULL;
  const Babl *space = babl_space_from_icc (icc, (int) length,
                                           BABL_ICC_INTENT_RELATIVE_COLORIMETRIC, &why);

  return why ? NULL : space;
}

const Babl *
colour_space_from_icc (const void *icc, size_t length, bool gray, bool linear)
{
  cmsHPROFILE profile = open_icc (icc, length);
  char description[128] = "";
  bool untagged;

  if (!profile)
    return NULL;
  cmsGetProfileInfoASCII (profile, cmsInfoDescription, "en", "US", description,
                          sizeof description);
  untagged = cmsGetColorSpace (profile) != (gray ? cmsSigGrayData : cmsSigRgbData) ||
             strcmp (description, builtin[gray][linear]) == 0;
  cmsCloseProfile (profile);
  return untagged ? NULL : babl_space_of (icc, length);
}

/* babl's space for a profile lcms made. */
static const Babl *
babl_space_of_lcms (cmsHPROFILE profile)
{
  cmsUInt32Number length = 0;
  const Babl *space = NULL;
  void *icc;

  if (!profile)
    return NULL;
  if (cmsSaveProfileToMem (profile, NULL, &length) && (icc = g_malloc (length)))
    {
      if (cmsSaveProfileToMem (profile, icc, &length))
        space = babl_space_of (icc, length);
      g_free (icc);
    }
  cmsCloseProfile (profile);
  return space;
}

/* sRGB's primaries and white point (ITU-R BT.709, D65). */
static const double srgb_chrm[8] = { 0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06 };

static cmsHPROFILE
rgb_profile (const double *chrm, cmsToneCurve *curve)
{
  cmsCIExyY white = { chrm[0], chrm[1], 1.0 };
  cmsCIExyYTRIPLE primaries = { { chrm[2], chrm[3], 1.0 }, { chrm[4], chrm[5], 1.0 },
                                { chrm[6], chrm[7], 1.0 } };
  cmsToneCurve *curves[3] = { curve, curve, curve };

  return cmsCreateRGBProfile (&white, &primaries, curves);
}

/* The sRGB curve (IEC 61966-2-1) as an ICC parametric curve of type 4. */
static cmsToneCurve *
srgb_curve (void)
{
  const cmsFloat64Number p[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };

  return cmsBuildParametricToneCurve (NULL, 4, p);
}

const Babl *
colour_space_from_png (bool gray, double gamma, const double *chrm)
{
  cmsToneCurve *curve = gamma > 0 ? cmsBuildGamma (NULL, 1.0 / gamma) : srgb_curve ();
  cmsHPROFILE profile;

  if (!chrm)
    chrm = srgb_chrm;
  if (gray)
    {
      cmsCIExyY white = { chrm[0], chrm[1], 1.0 };

      profile = cmsCreateGrayProfile (&white, curve);
    }
  else
    profile = rgb_profile (chrm, curve);
  cmsFreeToneCurve (curve);
  return babl_space_of_lcms (profile);
}

const Babl *
colour_space_from_exr (const double *chrm)
{
  const cmsFloat64Number one[2] = { 1.0, 0.0 };
  cmsToneCurve *curve;
  cmsHPROFILE profile;

  if (!chrm)
    return NULL;
  curve = cmsBuildParametricToneCurve (NULL, 1, one);
  profile = rgb_profile (chrm, curve);
  cmsFreeToneCurve (curve);
  return babl_space_of_lcms (profile);
}

const Babl *
colour_space_adobe_rgb (void)
{
  /* Adobe RGB (1998): its primaries, D65, and gamma 563/256. */
  static const double chrm[8] = { 0.3127, 0.3290, 0.64, 0.33, 0.21, 0.71, 0.15, 0.06 };
  cmsToneCurve *curve = cmsBuildGamma (NULL, 563.0 / 256.0);
  cmsHPROFILE profile = rgb_profile (chrm, curve);

  cmsFreeToneCurve (curve);
  return babl_space_of_lcms (profile);
}

const Babl *
colour_space_linear (const Babl *space)
{
  if (!space)
    space = babl_space ("sRGB");
  return babl_space_is_gray (space) ? NULL : babl_space_with_trc (space, babl_trc ("linear"));
}

/* gexiv2, GIMP's own library for Exif and XMP, is loaded when first needed:
 * its soname differs between the distributions GIMP 3 runs on (Debian 13's
 * 0.14 is libgexiv2.so.2, forky's 0.16 libgexiv2-0.16.so.4), so a tool
 * built on one runs on the other.  0.16 gave its plain getters an error
 * argument and deprecated the try_ ones that 0.12 to 0.14 have for it:
 * each library's own current names. */
typedef struct _Metadata Metadata;

static const struct
{
  const char *soname, *has_tag, *tag_long, *tag_string, *orientation;
} gexiv2_libraries[] = {
  { "libgexiv2-0.16.so.4", "gexiv2_metadata_has_tag", "gexiv2_metadata_get_tag_long",
    "gexiv2_metadata_get_tag_string", "gexiv2_metadata_get_orientation" },
  { "libgexiv2.so.2", "gexiv2_metadata_try_has_tag", "gexiv2_metadata_try_get_tag_long",
    "gexiv2_metadata_try_get_tag_string", "gexiv2_metadata_try_get_orientation" },
};

static struct
{
  gboolean   (*initialize) (void);
  Metadata  *(*metadata_new) (void);
  gboolean   (*open_path) (Metadata *, const gchar *, GError **);
  gboolean   (*has_tag) (Metadata *, const gchar *, GError **);
  glong      (*tag_long) (Metadata *, const gchar *, GError **);
  gchar     *(*tag_string) (Metadata *, const gchar *, GError **);
  gint       (*orientation) (Metadata *, GError **);
  bool       loaded;
} gexiv2;

static gpointer
load_gexiv2 (gpointer unused)
{
  for (size_t i = 0; i < G_N_ELEMENTS (gexiv2_libraries) && !gexiv2.loaded; i++)
    {
      void *lib = dlopen (gexiv2_libraries[i].soname, RTLD_NOW | RTLD_LOCAL);

      if (!lib)
        continue;
      *(void **) &gexiv2.initialize = dlsym (lib, "gexiv2_initialize");
      *(void **) &gexiv2.metadata_new = dlsym (lib, "gexiv2_metadata_new");
      *(void **) &gexiv2.open_path = dlsym (lib, "gexiv2_metadata_open_path");
      *(void **) &gexiv2.has_tag = dlsym (lib, gexiv2_libraries[i].has_tag);
      *(void **) &gexiv2.tag_long = dlsym (lib, gexiv2_libraries[i].tag_long);
      *(void **) &gexiv2.tag_string = dlsym (lib, gexiv2_libraries[i].tag_string);
      *(void **) &gexiv2.orientation = dlsym (lib, gexiv2_libraries[i].orientation);
      gexiv2.loaded = gexiv2.initialize && gexiv2.metadata_new && gexiv2.open_path &&
                      gexiv2.has_tag && gexiv2.tag_long && gexiv2.tag_string &&
                      gexiv2.orientation && gexiv2.initialize ();
      if (!gexiv2.loaded)
        dlclose (lib);
    }
  return NULL;
}

/* The value of a numeric tag, or -1. */
static long
tag_long (Metadata *md, const char *tag)
{
  return gexiv2.has_tag (md, tag, NULL) ? gexiv2.tag_long (md, tag, NULL) : -1;
}

/* Exif's ColorSpace (XMP's where Exif has none): 1 sRGB, 2 Adobe RGB; for
 * 0xffff (uncalibrated) the interoperability index (R03 Adobe RGB, R98
 * sRGB), then Nikon's and Canon's maker notes, which use 1 and 2 alike. */
static bool
names_adobe_rgb (Metadata *md)
{
  static const char *const makers[] = { "Exif.Nikon3.ColorSpace", "Exif.Canon.ColorSpace" };
  long cs = tag_long (md, "Exif.Photo.ColorSpace");

  if (cs < 0)
    cs = tag_long (md, "Xmp.exif.ColorSpace");
  if (cs == 1 || cs == 2)
    return cs == 2;
  if (cs == 0xffff)
    {
      gchar *index = gexiv2.tag_string (md, "Exif.Iop.InteroperabilityIndex", NULL);
      bool adobe = g_strcmp0 (index, "R03") == 0, srgb = g_strcmp0 (index, "R98") == 0;

      g_free (index);
      if (adobe || srgb)
        return adobe;
    }
  for (size_t i = 0; i < G_N_ELEMENTS (makers); i++)
    {
      long maker = tag_long (md, makers[i]);

      if (maker == 1 || maker == 2)
        return maker == 2;
    }
  return false;
}

bool
colour_metadata (const char *path, int *orientation, bool *adobe_rgb)
{
  static GOnce once = G_ONCE_INIT;
  Metadata *md;

  *orientation = 1;
  *adobe_rgb = false;
  g_once (&once, load_gexiv2, NULL);
  if (!gexiv2.loaded)
    return false;
  if (!(md = gexiv2.metadata_new ()))
    return true;
  if (gexiv2.open_path (md, path, NULL))
    {
      /* Exif's orientations, 1 (normal) to 8 (turned 270 degrees). */
      gint o = gexiv2.orientation (md, NULL);

      if (o >= 1 && o <= 8)
        *orientation = o;
      *adobe_rgb = names_adobe_rgb (md);
    }
  g_object_unref (md);
  return true;
}
