/* The preset chooser: shipped presets and the user's own by name, and
 * Save as, Rename and Delete for the user's.  Picking one emits "chosen"
 * with the preset; the mask it saves comes from a MaskEditor.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_PRESET_BAR_H
#define CC_PRESET_BAR_H

#include <gtk/gtk.h>

#include "mask-editor.h"
#include "preset.h"

G_BEGIN_DECLS

#define PRESET_TYPE_BAR (preset_bar_get_type ())
G_DECLARE_FINAL_TYPE (PresetBar, preset_bar, PRESET, BAR, GtkBox)

GtkWidget      *preset_bar_new          (const gchar *shipped_dir,
                                         const gchar *user_dir,
                                         MaskEditor  *editor);

/* Re-reads both folders; files that do not parse are named in the bar. */
void            preset_bar_reload       (PresetBar   *bar);
/* Selects a preset by id (emitting "chosen"), or the "custom" entry. */
gboolean        preset_bar_select       (PresetBar   *bar,
                                         const gchar *id);
/* The selected preset, or NULL for "custom". */
const CcPreset *preset_bar_get_selected (PresetBar   *bar);
/* The editor was changed by hand: show "custom". */
void            preset_bar_unselect     (PresetBar   *bar);
const gchar    *preset_bar_get_warnings (PresetBar   *bar);

/* The buttons' actions, without the questions they ask: 'overwrite' FALSE
 * refuses an existing preset with CC_PRESET_ERROR_EXISTS. */
gboolean        preset_bar_save_as      (PresetBar   *bar,
                                         const gchar *name,
                                         gboolean     overwrite,
                                         GError     **error);
gboolean        preset_bar_rename       (PresetBar   *bar,
                                         const gchar *name,
                                         gboolean     overwrite,
                                         GError     **error);
gboolean        preset_bar_delete       (PresetBar   *bar,
                                         GError     **error);

G_END_DECLS

#endif /* CC_PRESET_BAR_H */
