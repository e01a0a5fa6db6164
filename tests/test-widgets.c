/* The dialog's widgets, built and driven under Xvfb: the mask editor (grid,
 * cell edits, rotate, flip, text form, sizes, normalize) and the preset bar
 * (choosing, save as, rename, delete, hostile names, broken files).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "mask-editor.h"
#include "preset-bar.h"

static GtkWidget *window;

static void
flush_events (void)
{
  while (gtk_events_pending ())
    gtk_main_iteration ();
}

static MaskEditor *
new_editor (void)
{
  GtkWidget *editor = mask_editor_new ();
  GList *children = gtk_container_get_children (GTK_CONTAINER (window));

  for (GList *l = children; l; l = l->next)
    gtk_widget_destroy (l->data);
  g_list_free (children);
  gtk_container_add (GTK_CONTAINER (window), editor);
  gtk_widget_show_all (window);
  flush_events ();
  return MASK_EDITOR (editor);
}

static void
count_change (MaskEditor *editor, gint *count)
{
  (*count)++;
}

static const gchar *
cell_text (MaskEditor *e, gint i, gint j)
{
  return gtk_entry_get_text (GTK_ENTRY (mask_editor_get_cell (e, i, j)));
}

static void
test_grid (void)
{
  static const gdouble gauss[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  MaskEditor *e = new_editor ();
  gint changes = 0;
  gchar *text;

  g_signal_connect (e, "changed", G_CALLBACK (count_change), &changes);
  mask_editor_set (e, 3, 3, gauss, 16, 0, FALSE);
  g_assert_cmpint (changes, ==, 0);
  g_assert_cmpstr (cell_text (e, 0, 0), ==, "1");
  g_assert_cmpstr (cell_text (e, 1, 1), ==, "4");
  g_assert_cmpstr (cell_text (e, 2, 1), ==, "2");
  g_assert_null (mask_editor_get_cell (e, 3, 0));

  /* Editing a cell changes the mask and says so; nonsense does not. */
  gtk_entry_set_text (GTK_ENTRY (mask_editor_get_cell (e, 2, 1)), "7.5");
  g_assert_cmpfloat (mask_editor_get_mask (e)->values[5], ==, 7.5);
  g_assert_cmpint (changes, ==, 1);
  gtk_entry_set_text (GTK_ENTRY (mask_editor_get_cell (e, 0, 2)), "x");
  g_assert_cmpfloat (mask_editor_get_mask (e)->values[6], ==, 1.0);
  g_assert_true (gtk_style_context_has_class (gtk_widget_get_style_context (
                   mask_editor_get_cell (e, 0, 2)), "error"));
  g_assert_cmpint (changes, ==, 1);

  text = mask_editor_get_text (e);
  g_assert_cmpstr (text, ==, "1,2,1;2,4,7.5;1,2,1");
  g_free (text);
}

static void
expect_values (MaskEditor *e, gint w, gint h, const gdouble *want)
{
  const MaskModel *m = mask_editor_get_mask (e);

  g_assert_cmpint (m->width, ==, w);
  g_assert_cmpint (m->height, ==, h);
  for (gint k = 0; k < w * h; k++)
    g_assert_cmpfloat (m->values[k], ==, want[k]);
  /* The grid shows what the mask holds. */
  for (gint j = 0; j < h; j++)
    for (gint i = 0; i < w; i++)
      {
        gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_assert_cmpstr (cell_text (e, i, j), ==,
                         g_ascii_formatd (buf, sizeof buf, "%.6g", want[j * w + i]));
      }
}

static void
test_rotate_flip (void)
{
  static const gdouble nine[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  static const gdouble cw[9] = { 7, 4, 1, 8, 5, 2, 9, 6, 3 };
  static const gdouble ccw[9] = { 3, 6, 9, 2, 5, 8, 1, 4, 7 };
  static const gdouble hflip[9] = { 3, 2, 1, 6, 5, 4, 9, 8, 7 };
  static const gdouble vflip[9] = { 7, 8, 9, 4, 5, 6, 1, 2, 3 };
  static const gdouble row[3] = { 1, 2, 3 };
  MaskEditor *e = new_editor ();
  gint changes = 0;

  g_signal_connect (e, "changed", G_CALLBACK (count_change), &changes);
  mask_editor_set (e, 3, 3, nine, 1, 0, FALSE);
  mask_editor_rotate (e, TRUE);
  expect_values (e, 3, 3, cw);
  mask_editor_set (e, 3, 3, nine, 1, 0, FALSE);
  mask_editor_rotate (e, FALSE);
  expect_values (e, 3, 3, ccw);
  mask_editor_set (e, 3, 3, nine, 1, 0, FALSE);
  mask_editor_flip (e, TRUE);
  expect_values (e, 3, 3, hflip);
  mask_editor_set (e, 3, 3, nine, 1, 0, FALSE);
  mask_editor_flip (e, FALSE);
  expect_values (e, 3, 3, vflip);
  g_assert_cmpint (changes, ==, 4);

  /* A row turned right stands as a column, its left end on top. */
  mask_editor_set (e, 3, 1, row, 1, 0, FALSE);
  mask_editor_rotate (e, TRUE);
  expect_values (e, 1, 3, row);
  for (gint i = 0; i < 3; i++)
    mask_editor_rotate (e, TRUE);
  expect_values (e, 3, 1, row);
}

static void
test_text (void)
{
  static const gdouble laplace[9] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  MaskEditor *e = new_editor ();
  GError *error = NULL;
  gchar *text;

  g_assert_true (mask_editor_set_text (e, "0,1,0;1,-4,1;0,1,0", &error));
  expect_values (e, 3, 3, laplace);
  text = mask_editor_get_text (e);
  g_assert_cmpstr (text, ==, "0,1,0;1,-4,1;0,1,0");
  g_free (text);
  g_assert_false (mask_editor_set_text (e, "1,2;3,4", &error));
  g_assert_nonnull (strstr (error->message, "odd"));
  g_clear_error (&error);
  g_assert_false (mask_editor_set_text (e, "1,x,1", &error));
  g_clear_error (&error);
  expect_values (e, 3, 3, laplace);
}

static void
test_sizes (void)
{
  MaskEditor *e = new_editor ();
  gdouble *big = g_new0 (gdouble, 17 * 17);
  GList *rows = gtk_container_get_children (GTK_CONTAINER (e));
  GList *first = gtk_container_get_children (GTK_CONTAINER (rows->data));
  GtkWidget *width_spin = g_list_nth_data (first, 1);

  /* An even width typed in becomes odd, the mask keeps its centre. */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (width_spin), 4);
  g_assert_cmpint (mask_editor_get_mask (e)->width, ==, 5);
  g_assert_cmpfloat (mask_editor_get_mask (e)->values[1 * 5 + 2], ==, 1.0);
  g_list_free (first);
  g_list_free (rows);

  /* Beyond 15 a side the grid gives way to the text form. */
  big[8 * 17 + 8] = 1.0;
  mask_editor_set (e, 17, 17, big, 1, 0, FALSE);
  flush_events ();
  g_assert_false (mask_editor_grid_shown (e));
  g_assert_null (mask_editor_get_cell (e, 0, 0));
  mask_editor_set (e, 15, 15, big, 1, 0, FALSE);
  g_assert_true (mask_editor_grid_shown (e));
  g_assert_nonnull (mask_editor_get_cell (e, 14, 14));
  g_free (big);
}

static void
test_normalize (void)
{
  static const gdouble sobel[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const gdouble box[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  MaskEditor *e = new_editor ();
  GtkWidget *divisor = mask_editor_get_divisor_widget (e);

  mask_editor_set (e, 3, 3, box, 3, 0, FALSE);
  g_assert_true (gtk_widget_get_sensitive (divisor));
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (divisor)), ==, 3);
  /* Normalize greys the divisor and shows the one it uses. */
  mask_editor_set (e, 3, 3, box, 3, 0, TRUE);
  g_assert_false (gtk_widget_get_sensitive (divisor));
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (divisor)), ==, 9);
  mask_editor_set (e, 3, 3, sobel, 3, 0, TRUE);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (divisor)), ==, 1);
  g_assert_cmpfloat (mask_editor_get_divisor (e), ==, 3);
}

/* ---- the preset bar ---- */

static gchar *user_dir;

static void
remember_choice (PresetBar *bar, const CcPreset *p, gchar **id)
{
  g_free (*id);
  *id = g_strdup (p->id);
}

static gboolean
user_file (const gchar *id)
{
  gchar *file = g_strconcat (id, ".preset", NULL);
  gchar *path = g_build_filename (user_dir, file, NULL);
  gboolean there = g_file_test (path, G_FILE_TEST_EXISTS);

  g_free (path);
  g_free (file);
  return there;
}

static void
test_preset_bar (void)
{
  static const gdouble soft[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  const gchar *shipped = g_getenv ("PRESET_DIR");
  MaskEditor *e = new_editor ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  PresetBar *bar = PRESET_BAR (preset_bar_new (shipped, user_dir, e));
  gchar *chosen = NULL, *long_name, *path;
  GError *error = NULL;

  g_object_ref (e);
  gtk_container_remove (GTK_CONTAINER (window), GTK_WIDGET (e));
  gtk_box_pack_start (GTK_BOX (box), GTK_WIDGET (bar), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), GTK_WIDGET (e), FALSE, FALSE, 0);
  g_object_unref (e);
  gtk_container_add (GTK_CONTAINER (window), box);
  gtk_widget_show_all (window);
  g_signal_connect (bar, "chosen", G_CALLBACK (remember_choice), &chosen);

  /* Choosing a shipped preset. */
  g_assert_true (preset_bar_select (bar, "box-3"));
  g_assert_cmpstr (chosen, ==, "box-3");
  g_assert_true (preset_bar_get_selected (bar)->shipped);
  g_assert_false (preset_bar_delete (bar, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY);
  g_clear_error (&error);

  /* Save as, then again: it asks first (EXISTS) unless told to overwrite. */
  mask_editor_set (e, 3, 3, soft, 16, 0, FALSE);
  g_assert_true (preset_bar_save_as (bar, "My Blur", FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (user_file ("my-blur"));
  g_assert_cmpstr (preset_bar_get_selected (bar)->id, ==, "my-blur");
  g_assert_false (preset_bar_get_selected (bar)->shipped);
  g_assert_false (preset_bar_save_as (bar, "my blur", FALSE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_true (preset_bar_save_as (bar, "my blur", TRUE, &error));

  /* Rename moves the file; a shipped id cannot be taken. */
  g_assert_true (preset_bar_rename (bar, "Softer", FALSE, &error));
  g_assert_true (user_file ("softer"));
  g_assert_false (user_file ("my-blur"));
  g_assert_false (preset_bar_rename (bar, "Box 3", TRUE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_true (preset_bar_delete (bar, &error));
  g_assert_false (user_file ("softer"));
  g_assert_null (preset_bar_get_selected (bar));

  /* Hostile names stay inside the user's folder, or are refused. */
  g_assert_true (preset_bar_save_as (bar, "../x", FALSE, &error));
  g_assert_true (user_file ("x"));
  path = g_build_filename (user_dir, "..", "x.preset", NULL);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
  g_assert_true (preset_bar_save_as (bar, "/etc/x", FALSE, &error));
  g_assert_true (user_file ("etc-x"));
  g_assert_false (preset_bar_save_as (bar, "", FALSE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID);
  g_clear_error (&error);
  g_assert_false (preset_bar_save_as (bar, "日本語", FALSE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID);
  g_clear_error (&error);
  g_assert_false (preset_bar_save_as (bar, "Box 3", TRUE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY);
  g_clear_error (&error);
  long_name = g_strnfill (300, 'a');
  g_assert_true (preset_bar_save_as (bar, long_name, FALSE, &error));
  g_assert_cmpuint (strlen (preset_bar_get_selected (bar)->id), ==, CC_PRESET_ID_MAX);
  g_free (long_name);

  /* A broken file is skipped and named. */
  path = g_build_filename (user_dir, "broken.preset", NULL);
  g_file_set_contents (path, "[Preset]\nName=b\nWidth=4\n", -1, NULL);
  preset_bar_reload (bar);
  g_assert_nonnull (strstr (preset_bar_get_warnings (bar), "broken.preset"));
  g_assert_false (preset_bar_select (bar, "broken"));
  g_unlink (path);
  g_free (path);
  g_free (chosen);
}

int
main (int argc, char **argv)
{
  gchar *tmp;
  gint status;

  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check (&argc, &argv))
    {
      g_print ("SKIP: no display for GTK\n");
      return 77;
    }
  tmp = g_dir_make_tmp ("widget-presets-XXXXXX", NULL);
  user_dir = g_build_filename (tmp, "presets", NULL);
  window = gtk_window_new (GTK_WINDOW_TOPLEVEL);

  g_test_add_func ("/editor/grid", test_grid);
  g_test_add_func ("/editor/rotate-flip", test_rotate_flip);
  g_test_add_func ("/editor/text", test_text);
  g_test_add_func ("/editor/sizes", test_sizes);
  g_test_add_func ("/editor/normalize", test_normalize);
  g_test_add_func ("/presets/bar", test_preset_bar);
  status = g_test_run ();

  {
    const gchar *name;
    GDir *d = g_dir_open (user_dir, 0, NULL);
    while (d && (name = g_dir_read_name (d)))
      {
        gchar *p = g_build_filename (user_dir, name, NULL);
        g_unlink (p);
        g_free (p);
      }
    if (d)
      g_dir_close (d);
    g_rmdir (user_dir);
    g_rmdir (tmp);
  }
  return status;
}
