/* A file's colour space, linearity and orientation as GIMP 3's loaders and
 * its file-open take them, so that the tool convolves the pixels GIMP would:
 * the ICC profile's space (GIMP's own built-in profiles leave the image
 * untagged, in babl's sRGB), the profile that GIMP makes where a file has
 * none (PNG's gAMA and cHRM, OpenEXR's chromaticities, Exif's Adobe RGB
 * tag), whether the image is linear (TIFF: where its profile's curves are;
 * OpenEXR always; other formats never), and the Exif orientation that
 * file-open applies.  lcms2 reads and makes the profiles, babl the spaces,
 * gexiv2 the metadata: the libraries GIMP itself does it with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_COLOUR_H
#define CC_COLOUR_H

#include <stdbool.h>
#include <stddef.h>

#include <babl/babl.h>

/* Whether an ICC profile's curves are linear, as GIMP decides whether a
 * TIFF is linear: a matrix-shaper RGB or gray profile whose every curve
 * is. */
bool        colour_icc_is_linear      (const void *icc, size_t length);

/* The space of an image of 'gray' base type and of linear precision or
 * not, tagged with an ICC profile; NULL (babl's sRGB) where GIMP leaves the
 * image untagged: a profile it cannot read, one for the other base type,
 * or its own built-in profile for this base type and linearity. */
const Babl *colour_space_from_icc     (const void *icc, size_t length, bool gray,
                                       bool linear);

/* The space GIMP makes for a PNG without iCCP or sRGB chunks from its gAMA
 * (file gamma; 0: the sRGB curve) and cHRM (white x, y, then red, green and
 * blue x, y; NULL: sRGB's primaries and D65). */
const Babl *colour_space_from_png     (bool gray, double gamma, const double *chrm);

/* The space of an OpenEXR file with chromaticities (as 'chrm' above) and a
 * white luminance: their primaries and white, linear light.  (GIMP compares
 * them with its linear sRGB profile's colorants, which an ICC profile holds
 * adapted to D50, so that it makes this profile for sRGB's too.) */
const Babl *colour_space_from_exr     (const double *chrm);

/* What a file's Exif and XMP say: its orientation (1 to 8, Exif's values;
 * 1 where there is none) and whether its colour space tags name Adobe RGB,
 * for which GIMP tags an image without a profile with its Adobe RGB (1998)
 * compatible profile.  False where gexiv2 could not be loaded (1 and no). */
bool        colour_metadata           (const char *path, int *orientation, bool *adobe_rgb);
/* That Adobe RGB (1998) space, for RGB images. */
const Babl *colour_space_adobe_rgb    (void);

/* 'space' with linear curves (NULL: sRGB's primaries), for writing linear
 * light where a format stores its space's curve's encoding. */
const Babl *colour_space_linear       (const Babl *space);

#endif /* CC_COLOUR_H */
