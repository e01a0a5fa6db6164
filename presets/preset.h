/* Preset files: one GKeyFile a mask, its id the file name without ".preset".
 * GLib only, so the plug-in, the dialog and the tests share it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_PRESET_H
#define CC_PRESET_H

#include <glib.h>

#include "convolve.h"

G_BEGIN_DECLS

#define CC_PRESET_SUFFIX   ".preset"
#define CC_PRESET_MAX_SIZE CC_MASK_MAX   /* the engine's limit */
#define CC_PRESET_ID_MAX   64

#define CC_PRESET_ERROR (cc_preset_error_quark ())

typedef enum
{
  CC_PRESET_ERROR_NOT_FOUND,
  CC_PRESET_ERROR_BAD_ID,
  CC_PRESET_ERROR_MALFORMED,
  CC_PRESET_ERROR_READ_ONLY,
  CC_PRESET_ERROR_EXISTS
} CcPresetError;

typedef struct
{
  gchar    *id;            /* [a-z0-9-]+ */
  gchar    *name;          /* readable, for menus */
  gchar    *description;   /* may be NULL */
  gint      width;         /* odd, 1..127 */
  gint      height;
  gdouble  *matrix;        /* row-major, width * height */
  gdouble   divisor;       /* non-zero */
  gdouble   offset;
  gboolean  shipped;       /* read-only */
} CcPreset;

GQuark     cc_preset_error_quark   (void);

CcPreset  *cc_preset_new           (const gchar    *id,
                                    const gchar    *name,
                                    gint            width,
                                    gint            height,
                                    const gdouble  *matrix,
                                    gdouble         divisor,
                                    gdouble         offset);
CcPreset  *cc_preset_copy          (const CcPreset *preset);
void       cc_preset_free          (CcPreset       *preset);

/* Parses a preset file's text; every field is checked. */
CcPreset  *cc_preset_parse         (const gchar    *id,
                                    const gchar    *data,
                                    gsize           length,
                                    GError        **error);
/* The file text, which parses back to the same preset. */
gchar     *cc_preset_to_data       (const CcPreset *preset,
                                    gsize          *length);

CcPreset  *cc_preset_load          (const gchar    *path,
                                    GError        **error);

gboolean   cc_preset_id_is_valid   (const gchar    *id);
/* An id made from a readable name: lower-case ASCII letters and digits,
 * other runs become '-', at most CC_PRESET_ID_MAX long; NULL when nothing
 * usable is left (an empty or all-symbol name). */
gchar     *cc_preset_id_from_name  (const gchar    *name);

/* Presets from the shipped folder and the user's, shipped ones first, each
 * sorted by name.  A user preset with a shipped id is skipped, and a file
 * that does not parse is skipped; each skip adds a line to 'warnings'
 * (when not NULL), which the caller shows. */
GList     *cc_presets_list         (const gchar    *shipped_dir,
                                    const gchar    *user_dir,
                                    GString        *warnings);
void       cc_presets_free         (GList          *presets);

/* Where presets are found, one rule for every front end (the plug-in, its
 * dialog, the GEGL operation, the tool): the shipped folder is
 * $CUDA_CONVOLVE_PRESET_DIR; else "presets" beside the program or module
 * holding this code, where its file really is (the plug-in's own folder,
 * wherever GIMP keeps it; the release's folder), or in "gimp-cuda-convolve"
 * beside it (the GEGL module of the release); else 'installed' where it
 * exists; else the plug-in's folder in GIMP's profile ($GIMP3_DIRECTORY,
 * or the running GIMP's, or the newest GIMP 3 one), where make install-user
 * puts it.  The user's presets are in the profile under 'plug_in'. */
void       cc_presets_dirs         (const gchar    *installed,
                                    const gchar    *plug_in,
                                    gchar         **shipped_dir,
                                    gchar         **user_dir);

/* A preset by id as a mask, found by that rule from the front end's
 * CC_SHIPPED_PRESET_DIR and CC_PLUG_IN_NAME: the one preset lookup, which
 * every front end hands cc_mask_resolve (CcMaskSource's find_preset).  Its
 * values malloc'd into *values (free them); or false and why. */
bool       cc_preset_find_mask     (const char     *id,
                                    CcMask         *mask,
                                    double        **values,
                                    char           *message,
                                    size_t          size);

/* A preset by id, shipped first, then the user's. */
CcPreset  *cc_presets_find         (const gchar    *shipped_dir,
                                    const gchar    *user_dir,
                                    const gchar    *id,
                                    GError        **error);

/* Writes a user preset into 'user_dir' (created if missing).  Refuses an
 * invalid id, a shipped id, and (unless 'overwrite') an existing file. */
gboolean   cc_preset_save          (const CcPreset *preset,
                                    const gchar    *shipped_dir,
                                    const gchar    *user_dir,
                                    gboolean        overwrite,
                                    GError        **error);
gboolean   cc_preset_delete        (const gchar    *user_dir,
                                    const gchar    *id,
                                    GError        **error);

G_END_DECLS

#endif /* CC_PRESET_H */
