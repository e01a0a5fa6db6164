/* The preset chooser and the user's preset actions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "convolve.h"
#include "preset-bar.h"

struct _PresetBar
{
  GtkBox      parent_instance;

  gchar      *shipped_dir;
  gchar      *user_dir;
  MaskEditor *editor;
  GList      *presets;       /* CcPreset, shipped first */
  GString    *warnings;
  gint        updating;

  GtkWidget  *combo;         /* index 0 is "custom", then the presets */
  GtkWidget  *rename_button;
  GtkWidget  *delete_button;
  GtkWidget  *note;
};

enum { CHOSEN, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PresetBar, preset_bar, GTK_TYPE_BOX)

const CcPreset *
preset_bar_get_selected (PresetBar *bar)
{
  gint i = gtk_combo_box_get_active (GTK_COMBO_BOX (bar->combo));

  return i > 0 ? g_list_nth_data (bar->presets, i - 1) : NULL;
}

static void
update_buttons (PresetBar *bar)
{
  const CcPreset *p = preset_bar_get_selected (bar);
  const gchar *why = p && p->shipped ? "Shipped presets are read-only" : "Pick one of your presets";

  /* Shipped presets are read-only. */
  gtk_widget_set_sensitive (bar->rename_button, p && !p->shipped);
  gtk_widget_set_sensitive (bar->delete_button, p && !p->shipped);
  gtk_widget_set_tooltip_text (bar->rename_button, p && !p->shipped ? "Rename this preset" : why);
  gtk_widget_set_tooltip_text (bar->delete_button, p && !p->shipped ? "Delete this preset" : why);
}

static void
combo_changed (GtkComboBox *combo, PresetBar *bar)
{
  const CcPreset *p = preset_bar_get_selected (bar);

  update_buttons (bar);
  if (bar->updating || !p)
    return;
  gtk_widget_set_tooltip_text (bar->combo, p->description);
  g_signal_emit (bar, signals[CHOSEN], 0, p);
}

void
preset_bar_reload (PresetBar *bar)
{
  const CcPreset *selected = preset_bar_get_selected (bar);
  gchar *keep = selected ? g_strdup (selected->id) : NULL;
  gint index = 0, n = 1;

  cc_presets_free (bar->presets);
  g_string_truncate (bar->warnings, 0);
  bar->presets = cc_presets_list (bar->shipped_dir, bar->user_dir, bar->warnings);

  bar->updating++;
  gtk_combo_box_text_remove_all (GTK_COMBO_BOX_TEXT (bar->combo));
  gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (bar->combo), "(custom)");
  for (GList *l = bar->presets; l; l = l->next, n++)
    {
      const CcPreset *p = l->data;
      gchar *label = p->shipped ? g_strdup (p->name) : g_strdup_printf ("%s (yours)", p->name);

      gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (bar->combo), label);
      g_free (label);
      if (keep && strcmp (keep, p->id) == 0)
        index = n;
    }
  gtk_combo_box_set_active (GTK_COMBO_BOX (bar->combo), index);
  bar->updating--;
  g_free (keep);

  /* Broken files are skipped, and said so. */
  gtk_label_set_text (GTK_LABEL (bar->note), bar->warnings->str);
  gtk_widget_set_visible (bar->note, bar->warnings->len > 0);
  update_buttons (bar);
}

gboolean
preset_bar_select (PresetBar *bar, const gchar *id)
{
  gint n = 1;

  for (GList *l = bar->presets; l; l = l->next, n++)
    if (strcmp (((CcPreset *) l->data)->id, id) == 0)
      {
        gtk_combo_box_set_active (GTK_COMBO_BOX (bar->combo), n);
        return TRUE;
      }
  return FALSE;
}

void
preset_bar_unselect (PresetBar *bar)
{
  bar->updating++;
  gtk_combo_box_set_active (GTK_COMBO_BOX (bar->combo), 0);
  bar->updating--;
  update_buttons (bar);
}

const gchar *
preset_bar_get_warnings (PresetBar *bar)
{
  return bar->warnings->str;
}

/* The id a name makes, or NULL and why. */
static gchar *
id_for_name (const gchar *name, GError **error)
{
  gchar *id = cc_preset_id_from_name (name);

  if (!id)
    g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID,
                 "'%s' has no letters or digits to make a preset id from", name);
  return id;
}

/* After a save: the list again, the saved preset chosen (quietly: the
 * editor holds it already). */
static void
show_saved (PresetBar *bar, const gchar *id)
{
  preset_bar_reload (bar);
  bar->updating++;
  preset_bar_select (bar, id);
  bar->updating--;
  update_buttons (bar);
}

/* The editor's mask as a preset called 'name'. */
static CcPreset *
current_preset (PresetBar *bar, const gchar *name, GError **error)
{
  gchar *id = id_for_name (name, error);
  gchar *readable = g_strstrip (g_strdup (name));
  const MaskModel *m = mask_editor_get_mask (bar->editor);
  CcMask mask = { m->width, m->height, m->values, mask_editor_get_divisor (bar->editor),
                  mask_editor_get_offset (bar->editor) };
  CcPreset *p = NULL;

  /* Normalize is the procedure's, not the preset's: store what it gives. */
  if (mask_editor_get_normalize (bar->editor))
    cc_mask_normalize (&mask);
  if (id && mask.divisor == 0.0)
    g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_MALFORMED,
                 "a preset's divisor must not be 0");
  else if (id)
    p = cc_preset_new (id, readable, m->width, m->height, m->values, mask.divisor,
                       mask.offset);
  g_free (id);
  g_free (readable);
  return p;
}

gboolean
preset_bar_save_as (PresetBar *bar, const gchar *name, gboolean overwrite, GError **error)
{
  CcPreset *p = current_preset (bar, name, error);
  gboolean ok;

  if (!p)
    return FALSE;
  ok = cc_preset_save (p, bar->shipped_dir, bar->user_dir, overwrite, error);
  if (ok)
    show_saved (bar, p->id);
  cc_preset_free (p);
  return ok;
}

gboolean
preset_bar_rename (PresetBar *bar, const gchar *name, gboolean overwrite, GError **error)
{
  const CcPreset *old = preset_bar_get_selected (bar);
  CcPreset *p;
  gchar *id;
  gboolean ok;

  if (!old || old->shipped)
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY,
                   "only your own presets can be renamed");
      return FALSE;
    }
  if (!(id = id_for_name (name, error)))
    return FALSE;
  p = cc_preset_copy (old);
  g_free (p->id);
  p->id = id;
  g_free (p->name);
  p->name = g_strstrip (g_strdup (name));
  /* A new name may keep the id (only the readable name changes). */
  ok = cc_preset_save (p, bar->shipped_dir, bar->user_dir,
                       overwrite || strcmp (old->id, p->id) == 0, error) &&
       (strcmp (old->id, p->id) == 0 || cc_preset_delete (bar->user_dir, old->id, error));
  if (ok)
    show_saved (bar, p->id);
  cc_preset_free (p);
  return ok;
}

gboolean
preset_bar_delete (PresetBar *bar, GError **error)
{
  const CcPreset *p = preset_bar_get_selected (bar);

  if (!p || p->shipped)
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY,
                   "only your own presets can be deleted");
      return FALSE;
    }
  if (!cc_preset_delete (bar->user_dir, p->id, error))
    return FALSE;
  preset_bar_unselect (bar);
  preset_bar_reload (bar);
  return TRUE;
}

/* ---- The questions the buttons ask ---- */

static gchar *
ask_name (PresetBar *bar, const gchar *title, const gchar *initial)
{
  GtkWidget *dialog = gtk_dialog_new_with_buttons (title,
                                                   GTK_WINDOW (gtk_widget_get_toplevel (GTK_WIDGET (bar))),
                                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                                   "_Cancel", GTK_RESPONSE_CANCEL,
                                                   "_OK", GTK_RESPONSE_OK, NULL);
  GtkWidget *entry = gtk_entry_new ();
  gchar *name = NULL;

  gtk_entry_set_text (GTK_ENTRY (entry), initial ? initial : "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_OK);
  gtk_container_set_border_width (GTK_CONTAINER (dialog), 6);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dialog))),
                      gtk_label_new ("Preset name:"), FALSE, FALSE, 6);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dialog))),
                      entry, FALSE, FALSE, 6);
  gtk_widget_show_all (dialog);
  if (gtk_dialog_run (GTK_DIALOG (dialog)) == GTK_RESPONSE_OK)
    name = g_strdup (gtk_entry_get_text (GTK_ENTRY (entry)));
  gtk_widget_destroy (dialog);
  return name;
}

static gboolean
confirm (PresetBar *bar, const gchar *question)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (gtk_widget_get_toplevel (GTK_WIDGET (bar))),
                                              GTK_DIALOG_MODAL, GTK_MESSAGE_QUESTION,
                                              GTK_BUTTONS_YES_NO, "%s", question);
  gboolean yes = gtk_dialog_run (GTK_DIALOG (dialog)) == GTK_RESPONSE_YES;

  gtk_widget_destroy (dialog);
  return yes;
}

static void
tell (PresetBar *bar, const GError *error)
{
  gtk_label_set_text (GTK_LABEL (bar->note), error->message);
  gtk_widget_show (bar->note);
}

/* Save as and Rename: ask a name, and ask again before overwriting. */
static void
named_action (PresetBar *bar, gboolean rename)
{
  const CcPreset *p = preset_bar_get_selected (bar);
  gchar *name = ask_name (bar, rename ? "Rename preset" : "Save preset as",
                          rename && p ? p->name : NULL);
  GError *error = NULL;
  gboolean ok;

  if (!name)
    return;
  ok = rename ? preset_bar_rename (bar, name, FALSE, &error)
              : preset_bar_save_as (bar, name, FALSE, &error);
  if (!ok && g_error_matches (error, CC_PRESET_ERROR, CC_PRESET_ERROR_EXISTS))
    {
      gchar *question = g_strdup_printf ("A preset called \"%s\" exists. Replace it?", name);

      g_clear_error (&error);
      if (confirm (bar, question))
        ok = rename ? preset_bar_rename (bar, name, TRUE, &error)
                    : preset_bar_save_as (bar, name, TRUE, &error);
      else
        ok = TRUE;
      g_free (question);
    }
  if (!ok)
    tell (bar, error);
  g_clear_error (&error);
  g_free (name);
}

static void
save_clicked (GtkWidget *button, PresetBar *bar)
{
  named_action (bar, FALSE);
}

static void
rename_clicked (GtkWidget *button, PresetBar *bar)
{
  named_action (bar, TRUE);
}

static void
delete_clicked (GtkWidget *button, PresetBar *bar)
{
  const CcPreset *p = preset_bar_get_selected (bar);
  gchar *question;
  GError *error = NULL;

  if (!p)
    return;
  question = g_strdup_printf ("Delete your preset \"%s\"?", p->name);
  if (confirm (bar, question) && !preset_bar_delete (bar, &error))
    tell (bar, error);
  g_clear_error (&error);
  g_free (question);
}

static void
preset_bar_finalize (GObject *object)
{
  PresetBar *bar = PRESET_BAR (object);

  cc_presets_free (bar->presets);
  g_string_free (bar->warnings, TRUE);
  g_free (bar->shipped_dir);
  g_free (bar->user_dir);
  G_OBJECT_CLASS (preset_bar_parent_class)->finalize (object);
}

static void
preset_bar_class_init (PresetBarClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = preset_bar_finalize;
  signals[CHOSEN] = g_signal_new ("chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
preset_bar_init (PresetBar *bar)
{
  GtkWidget *row, *button;

  bar->warnings = g_string_new (NULL);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (bar), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (bar), 4);

  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  bar->combo = gtk_combo_box_text_new ();
  g_signal_connect (bar->combo, "changed", G_CALLBACK (combo_changed), bar);
  gtk_box_pack_start (GTK_BOX (row), gtk_label_new_with_mnemonic ("_Preset:"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), bar->combo, TRUE, TRUE, 0);
  button = gtk_button_new_with_mnemonic ("_Save as...");
  gtk_widget_set_tooltip_text (button, "Save the mask as one of your presets");
  g_signal_connect (button, "clicked", G_CALLBACK (save_clicked), bar);
  gtk_box_pack_start (GTK_BOX (row), button, FALSE, FALSE, 0);
  bar->rename_button = gtk_button_new_with_mnemonic ("_Rename...");
  g_signal_connect (bar->rename_button, "clicked", G_CALLBACK (rename_clicked), bar);
  gtk_box_pack_start (GTK_BOX (row), bar->rename_button, FALSE, FALSE, 0);
  bar->delete_button = gtk_button_new_with_mnemonic ("De_lete");
  g_signal_connect (bar->delete_button, "clicked", G_CALLBACK (delete_clicked), bar);
  gtk_box_pack_start (GTK_BOX (row), bar->delete_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), row, FALSE, FALSE, 0);

  bar->note = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (bar->note), TRUE);
  gtk_label_set_xalign (GTK_LABEL (bar->note), 0.0);
  gtk_widget_set_no_show_all (bar->note, TRUE);
  gtk_box_pack_start (GTK_BOX (bar), bar->note, FALSE, FALSE, 0);
}

GtkWidget *
preset_bar_new (const gchar *shipped_dir, const gchar *user_dir, MaskEditor *editor)
{
  PresetBar *bar = g_object_new (PRESET_TYPE_BAR, NULL);

  bar->shipped_dir = g_strdup (shipped_dir);
  bar->user_dir = g_strdup (user_dir);
  bar->editor = editor;
  preset_bar_reload (bar);
  return GTK_WIDGET (bar);
}
