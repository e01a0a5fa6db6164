/* The mask editor widget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"
#include "mask-editor.h"

struct _MaskEditor
{
  GtkBox      parent_instance;

  MaskModel   mask;
  gdouble     divisor;      /* as the user set them; normalize may show others */
  gdouble     offset;
  gboolean    normalize;
  gint        updating;     /* >0 while the editor sets its own widgets */

  GtkWidget  *width_spin;
  GtkWidget  *height_spin;
  GtkWidget  *scroller;
  GtkWidget  *grid;
  GtkWidget  *too_large;
  GtkWidget  *text_entry;
  GtkWidget  *text_error;
  GtkWidget  *divisor_spin;
  GtkWidget  *offset_spin;
  GtkWidget  *normalize_check;
};

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (MaskEditor, mask_editor, GTK_TYPE_BOX)

static void
emit_changed (MaskEditor *e)
{
  if (!e->updating)
    g_signal_emit (e, signals[CHANGED], 0);
}

static gchar *
format_number (gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

static gboolean
parse_number (const gchar *text, gdouble *v)
{
  gchar *end;

  text += strspn (text, " ");
  errno = 0;
  *v = g_ascii_strtod (text, &end);
  end += strspn (end, " ");
  return end != text && *end == '\0' && errno == 0 && isfinite (*v);
}

/* The divisor and offset shown: the user's, or normalize's (greyed). */
static void
show_divisor (MaskEditor *e)
{
  gdouble divisor = e->divisor, offset = e->offset;

  if (e->normalize && e->mask.values)
    {
      CcMask m = { e->mask.width, e->mask.height, e->mask.values, divisor, offset };
      cc_mask_normalize (&m);
      divisor = m.divisor;
      offset = m.offset;
    }
  e->updating++;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (e->divisor_spin), divisor);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (e->offset_spin), offset);
  gtk_widget_set_sensitive (e->divisor_spin, !e->normalize);
  gtk_widget_set_sensitive (e->offset_spin, !e->normalize);
  e->updating--;
}

static void
show_text (MaskEditor *e)
{
  gchar *text = mask_editor_get_text (e);

  e->updating++;
  gtk_entry_set_text (GTK_ENTRY (e->text_entry), text);
  gtk_style_context_remove_class (gtk_widget_get_style_context (e->text_entry), "error");
  gtk_label_set_text (GTK_LABEL (e->text_error), "");
  e->updating--;
  g_free (text);
}

static void
cell_changed (GtkEditable *cell, MaskEditor *e)
{
  const gint index = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (cell), "index"));
  GtkStyleContext *style = gtk_widget_get_style_context (GTK_WIDGET (cell));
  gdouble v;

  if (e->updating)
    return;
  if (!parse_number (gtk_entry_get_text (GTK_ENTRY (cell)), &v))
    {
      gtk_style_context_add_class (style, "error");
      return;
    }
  gtk_style_context_remove_class (style, "error");
  e->mask.values[index] = v;
  show_divisor (e);
  show_text (e);
  emit_changed (e);
}

/* The grid matches the mask's size, or gives way to a note beyond
 * MASK_EDITOR_GRID_MAX. */
static void
rebuild_grid (MaskEditor *e)
{
  const gboolean fits = e->mask.width <= MASK_EDITOR_GRID_MAX &&
                        e->mask.height <= MASK_EDITOR_GRID_MAX;
  GList *children = gtk_container_get_children (GTK_CONTAINER (e->grid));

  for (GList *l = children; l; l = l->next)
    gtk_widget_destroy (l->data);
  g_list_free (children);

  gtk_widget_set_visible (e->scroller, fits);
  gtk_widget_set_visible (e->too_large, !fits);
  if (!fits)
    {
      gchar *note = g_strdup_printf ("This %dx%d mask is too large for a grid: "
                                     "edit it as text below.",
                                     e->mask.width, e->mask.height);
      gtk_label_set_text (GTK_LABEL (e->too_large), note);
      g_free (note);
      return;
    }

  e->updating++;
  for (gint j = 0; j < e->mask.height; j++)
    for (gint i = 0; i < e->mask.width; i++)
      {
        GtkWidget *cell = gtk_entry_new ();
        gchar *text = format_number (e->mask.values[j * e->mask.width + i]);

        gtk_entry_set_width_chars (GTK_ENTRY (cell), 5);
        gtk_entry_set_alignment (GTK_ENTRY (cell), 1.0);
        gtk_entry_set_text (GTK_ENTRY (cell), text);
        g_free (text);
        g_object_set_data (G_OBJECT (cell), "index", GINT_TO_POINTER (j * e->mask.width + i));
        g_signal_connect (cell, "changed", G_CALLBACK (cell_changed), e);
        gtk_grid_attach (GTK_GRID (e->grid), cell, i, j, 1, 1);
        gtk_widget_show (cell);
      }
  e->updating--;
}

/* After any change to the mask as a whole. */
static void
refresh (MaskEditor *e)
{
  e->updating++;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (e->width_spin), e->mask.width);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (e->height_spin), e->mask.height);
  e->updating--;
  rebuild_grid (e);
  show_divisor (e);
  show_text (e);
}

static void
size_changed (GtkSpinButton *spin, MaskEditor *e)
{
  gint w = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (e->width_spin));
  gint h = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (e->height_spin));

  if (e->updating)
    return;
  /* Sizes are odd: an even one typed in goes up to the next odd. */
  w |= 1;
  h |= 1;
  mask_model_resize (&e->mask, MIN (w, CC_MASK_MAX), MIN (h, CC_MASK_MAX));
  refresh (e);
  emit_changed (e);
}

static void
divisor_changed (GtkSpinButton *spin, MaskEditor *e)
{
  if (e->updating || e->normalize)
    return;
  e->divisor = gtk_spin_button_get_value (GTK_SPIN_BUTTON (e->divisor_spin));
  e->offset = gtk_spin_button_get_value (GTK_SPIN_BUTTON (e->offset_spin));
  emit_changed (e);
}

static void
normalize_toggled (GtkToggleButton *toggle, MaskEditor *e)
{
  if (e->updating)
    return;
  e->normalize = gtk_toggle_button_get_active (toggle);
  show_divisor (e);
  emit_changed (e);
}

static void
text_apply (GtkWidget *widget, MaskEditor *e)
{
  GError *error = NULL;

  if (!mask_editor_set_text (e, gtk_entry_get_text (GTK_ENTRY (e->text_entry)), &error))
    {
      gtk_style_context_add_class (gtk_widget_get_style_context (e->text_entry), "error");
      gtk_label_set_text (GTK_LABEL (e->text_error), error->message);
      g_error_free (error);
    }
}

static void
rotate_left (GtkWidget *button, MaskEditor *e)
{
  mask_editor_rotate (e, FALSE);
}

static void
rotate_right (GtkWidget *button, MaskEditor *e)
{
  mask_editor_rotate (e, TRUE);
}

static void
flip_horizontal (GtkWidget *button, MaskEditor *e)
{
  mask_editor_flip (e, TRUE);
}

static void
flip_vertical (GtkWidget *button, MaskEditor *e)
{
  mask_editor_flip (e, FALSE);
}

static GtkWidget *
icon_button (const gchar *icon, const gchar *tooltip, GCallback callback, MaskEditor *e)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon, GTK_ICON_SIZE_BUTTON);

  gtk_widget_set_tooltip_text (button, tooltip);
  g_signal_connect (button, "clicked", callback, e);
  return button;
}

static GtkWidget *
spin (gdouble lo, gdouble hi, gdouble step, gint digits)
{
  GtkWidget *s = gtk_spin_button_new_with_range (lo, hi, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (s), digits);
  return s;
}

static void
mask_editor_finalize (GObject *object)
{
  mask_model_clear (&MASK_EDITOR (object)->mask);
  G_OBJECT_CLASS (mask_editor_parent_class)->finalize (object);
}

static void
mask_editor_class_init (MaskEditorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = mask_editor_finalize;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

/* The size's row, with the rotate and flip buttons at its end. */
static void
pack_size_row (MaskEditor *e)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *box;

  e->width_spin = spin (1, CC_MASK_MAX, 2, 0);
  e->height_spin = spin (1, CC_MASK_MAX, 2, 0);
  gtk_widget_set_tooltip_text (e->width_spin, "Mask width: odd, 1 to "
                               G_STRINGIFY (CC_MASK_MAX));
  gtk_widget_set_tooltip_text (e->height_spin, "Mask height: odd, 1 to "
                               G_STRINGIFY (CC_MASK_MAX));
  g_signal_connect (e->width_spin, "value-changed", G_CALLBACK (size_changed), e);
  g_signal_connect (e->height_spin, "value-changed", G_CALLBACK (size_changed), e);
  gtk_box_pack_start (GTK_BOX (row), gtk_label_new_with_mnemonic ("Si_ze:"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), e->width_spin, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), gtk_label_new ("x"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), e->height_spin, FALSE, FALSE, 0);
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 2);
  gtk_box_pack_start (GTK_BOX (box), icon_button ("object-rotate-left", "Rotate 90° left",
                                                  G_CALLBACK (rotate_left), e), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), icon_button ("object-rotate-right", "Rotate 90° right",
                                                  G_CALLBACK (rotate_right), e), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), icon_button ("object-flip-horizontal", "Flip horizontally",
                                                  G_CALLBACK (flip_horizontal), e), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), icon_button ("object-flip-vertical", "Flip vertically",
                                                  G_CALLBACK (flip_vertical), e), FALSE, FALSE, 0);
  gtk_box_pack_end (GTK_BOX (row), box, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (e), row, FALSE, FALSE, 0);
}

/* The grid, scrolled when large, and the note that stands in for it. */
static void
pack_grid (MaskEditor *e)
{
  e->grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (e->grid), 2);
  gtk_grid_set_column_spacing (GTK_GRID (e->grid), 2);
  e->scroller = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (e->scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (e->scroller), TRUE);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (e->scroller), TRUE);
  gtk_scrolled_window_set_max_content_width (GTK_SCROLLED_WINDOW (e->scroller), 560);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (e->scroller), 360);
  gtk_container_add (GTK_CONTAINER (e->scroller), e->grid);
  gtk_widget_show (e->grid);
  /* Shown or hidden by rebuild_grid, whatever show_all does. */
  gtk_widget_set_no_show_all (e->scroller, TRUE);
  gtk_box_pack_start (GTK_BOX (e), e->scroller, TRUE, TRUE, 0);
  e->too_large = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (e->too_large), TRUE);
  gtk_widget_set_no_show_all (e->too_large, TRUE);
  gtk_box_pack_start (GTK_BOX (e), e->too_large, FALSE, FALSE, 0);
}

/* The text form's row, and the line for its errors. */
static void
pack_text_form (MaskEditor *e)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *apply;

  e->text_entry = gtk_entry_new ();
  gtk_widget_set_tooltip_text (e->text_entry,
                               "The mask as text: values separated by ',', rows by ';'. "
                               "Paste one in and press Enter, or copy it out.");
  g_signal_connect (e->text_entry, "activate", G_CALLBACK (text_apply), e);
  apply = gtk_button_new_with_mnemonic ("_Apply");
  g_signal_connect (apply, "clicked", G_CALLBACK (text_apply), e);
  gtk_box_pack_start (GTK_BOX (row), gtk_label_new_with_mnemonic ("_Text:"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), e->text_entry, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (row), apply, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (e), row, FALSE, FALSE, 0);
  e->text_error = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (e->text_error), 0.0);
  gtk_box_pack_start (GTK_BOX (e), e->text_error, FALSE, FALSE, 0);
}

/* Divisor, offset, normalize. */
static void
pack_divisor_row (MaskEditor *e)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  e->divisor_spin = spin (-1e6, 1e6, 1, 4);
  e->offset_spin = spin (-1e3, 1e3, 0.01, 4);
  gtk_widget_set_tooltip_text (e->divisor_spin, "The weighted sum is divided by this");
  gtk_widget_set_tooltip_text (e->offset_spin, "Then this is added, in the 0..1 scale");
  g_signal_connect (e->divisor_spin, "value-changed", G_CALLBACK (divisor_changed), e);
  g_signal_connect (e->offset_spin, "value-changed", G_CALLBACK (divisor_changed), e);
  e->normalize_check = gtk_check_button_new_with_mnemonic ("_Normalize");
  gtk_widget_set_tooltip_text (e->normalize_check,
                               "Divisor and offset from the mask's sum (GIMP's rule)");
  g_signal_connect (e->normalize_check, "toggled", G_CALLBACK (normalize_toggled), e);
  gtk_box_pack_start (GTK_BOX (row), gtk_label_new_with_mnemonic ("_Divisor:"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), e->divisor_spin, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), gtk_label_new_with_mnemonic ("O_ffset:"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), e->offset_spin, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), e->normalize_check, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (e), row, FALSE, FALSE, 0);
}

static void
mask_editor_init (MaskEditor *e)
{
  gdouble identity[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };

  gtk_orientable_set_orientation (GTK_ORIENTABLE (e), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (e), 6);
  pack_size_row (e);
  pack_grid (e);
  pack_text_form (e);
  pack_divisor_row (e);
  mask_editor_set (e, 3, 3, identity, 1.0, 0.0, FALSE);
}

GtkWidget *
mask_editor_new (void)
{
  return g_object_new (MASK_TYPE_EDITOR, NULL);
}

void
mask_editor_set (MaskEditor *e, gint width, gint height, const gdouble *values,
                 gdouble divisor, gdouble offset, gboolean normalize)
{
  mask_model_set (&e->mask, width, height, values);
  e->divisor = divisor;
  e->offset = offset;
  e->normalize = normalize;
  e->updating++;
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (e->normalize_check), normalize);
  e->updating--;
  refresh (e);
}

const MaskModel *
mask_editor_get_mask (MaskEditor *e)
{
  return &e->mask;
}

gdouble
mask_editor_get_divisor (MaskEditor *e)
{
  return e->divisor;
}

gdouble
mask_editor_get_offset (MaskEditor *e)
{
  return e->offset;
}

gboolean
mask_editor_get_normalize (MaskEditor *e)
{
  return e->normalize;
}

void
mask_editor_rotate (MaskEditor *e, gboolean clockwise)
{
  mask_model_rotate (&e->mask, clockwise);
  refresh (e);
  emit_changed (e);
}

void
mask_editor_flip (MaskEditor *e, gboolean horizontal)
{
  mask_model_flip (&e->mask, horizontal);
  refresh (e);
  emit_changed (e);
}

gboolean
mask_editor_set_text (MaskEditor *e, const gchar *text, GError **error)
{
  char message[256];
  double *values;
  int w, h;

  if (!cc_mask_parse (text, &w, &h, &values, message, sizeof message))
    {
      g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, message);
      return FALSE;
    }
  mask_model_set (&e->mask, w, h, values);
  free (values);
  refresh (e);
  emit_changed (e);
  return TRUE;
}

gchar *
mask_editor_get_text (MaskEditor *e)
{
  char *text = cc_mask_format (e->mask.width, e->mask.height, e->mask.values);
  gchar *copy = g_strdup (text);

  free (text);
  return copy;
}

GtkWidget *
mask_editor_get_cell (MaskEditor *e, gint column, gint row)
{
  return mask_editor_grid_shown (e) ? gtk_grid_get_child_at (GTK_GRID (e->grid), column, row)
                                    : NULL;
}

GtkWidget *
mask_editor_get_divisor_widget (MaskEditor *e)
{
  return e->divisor_spin;
}

gboolean
mask_editor_grid_shown (MaskEditor *e)
{
  return e->mask.width <= MASK_EDITOR_GRID_MAX && e->mask.height <= MASK_EDITOR_GRID_MAX;
}
