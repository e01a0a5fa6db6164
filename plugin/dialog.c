/* The plug-in's dialog: preset chooser, mask editor, method and border
 * choices, the procedure's toggles, and a live preview computed through the
 * engine on a worker thread (one engine context for the dialog's life).
 * Where GIMP has cuda:convolve, the same settings also preview on the
 * canvas: the filter appended while the dialog is open, updated with each
 * edit, removed on Cancel, and on OK left as an editable effect if the
 * user asks (else the procedure merges it).
 * Widgets edit the procedure's config; OK runs the procedure with it, the
 * same code path as scripts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include <libgimp/gimpui.h>

#include "dialog.h"
#include "filter.h"
#include "mask-editor.h"
#include "preset-bar.h"
#include "render.h"
#include "settings.h"

typedef struct
{
  GimpProcedureConfig *config;
  GimpDrawable        *drawable;
  CcContext           *ctx;
  CcTransfer          *transfer;      /* the drawable's, for linear light */
  gint                 updating;      /* >0 while widgets and config sync */

  GtkWidget           *preview;
  GtkWidget           *status;
  MaskEditor          *editor;
  PresetBar           *presets;
  GtkWidget           *method;
  GtkWidget           *method_note;
  GtkWidget           *border;
  GtkWidget           *shape;         /* matrix, or a shape with its sliders: */
  GtkWidget           *shape_widgets[4];   /* radius, angle, blades, inner */
  GtkWidget           *keep;          /* "keep as an editable effect" */

  GimpDrawableFilter  *canvas;        /* cuda:convolve appended while the dialog is open,
                                         or NULL where GIMP has no such operation */
  guint                timeout;       /* a preview update waiting */
  gint                 generation;    /* bumped by every change: older results are dropped */
  gint                 running;       /* preview computations in flight */
  gboolean             closed;
} Dialog;


/* ---- config <-> widgets ---- */

static void
write_mask (Dialog *d, const gchar *preset)
{
  const MaskModel *m = mask_editor_get_mask (d->editor);
  GValue matrix = G_VALUE_INIT;

  g_value_init (&matrix, GIMP_TYPE_DOUBLE_ARRAY);
  gimp_value_set_double_array (&matrix, m->values, m->width * m->height);
  d->updating++;
  g_object_set (d->config,
                "preset",      preset,
                "mask-width",  m->width,
                "mask-height", m->height,
                "divisor",     mask_editor_get_divisor (d->editor),
                "offset",      mask_editor_get_offset (d->editor),
                "normalize",   mask_editor_get_normalize (d->editor),
                NULL);
  g_object_set_property (G_OBJECT (d->config), "matrix", &matrix);
  d->updating--;
  g_value_unset (&matrix);
}

/* A shape shows the sliders it uses; the mask editor and presets make the
 * mask only where the shape is "matrix", and a mask layer, when one is
 * chosen, makes it instead of all of them. */
static void
show_shape (Dialog *d, CcShape shape)
{
  GimpDrawable *layer = NULL;
  gboolean own;
  static const guint uses[4] = {
    /* radius: every shape */
    ~1u,
    /* angle */
    1u << CC_SHAPE_POLYGON | 1u << CC_SHAPE_MOTION,
    /* blades */
    1u << CC_SHAPE_POLYGON,
    /* inner */
    1u << CC_SHAPE_RING,
  };

  g_object_get (d->config, "mask-drawable", &layer, NULL);
  own = layer == NULL;
  g_clear_object (&layer);
  for (gint k = 0; k < 4; k++)
    {
      gtk_widget_set_visible (d->shape_widgets[k], (uses[k] >> shape) & 1);
      gtk_widget_set_sensitive (d->shape_widgets[k], own);
    }
  gtk_widget_set_sensitive (d->shape, own);
  gtk_widget_set_sensitive (GTK_WIDGET (d->editor), own && shape == CC_SHAPE_MATRIX);
  gtk_widget_set_sensitive (GTK_WIDGET (d->presets), own && shape == CC_SHAPE_MATRIX);
}

/* The widgets show the config: at the start, and after Reset. */
static void
read_config (Dialog *d)
{
  gchar *preset = NULL, *border = NULL, *method = NULL, *shape_name = NULL;
  CcShape shape = CC_SHAPE_MATRIX;
  GimpArray *array = NULL;
  gint w, h;
  gdouble divisor, offset;
  gboolean normalize;
  gsize n = 0;
  const gdouble *values = NULL;
  CcBorder b = CC_BORDER_EXTEND;
  CcMethod m = CC_METHOD_AUTO;

  g_object_get (d->config, "preset", &preset, "mask-width", &w, "mask-height", &h,
                "matrix", &array, "divisor", &divisor, "offset", &offset,
                "normalize", &normalize, "border", &border, "method", &method,
                "shape", &shape_name, NULL);
  if (array)
    values = gimp_double_array_get_values (array, &n);

  d->updating++;
  if (preset && *preset && preset_bar_select (d->presets, preset))
    {
      const CcPreset *p = preset_bar_get_selected (d->presets);

      mask_editor_set (d->editor, p->width, p->height, p->matrix, p->divisor, p->offset,
                       FALSE);
    }
  else
    {
      gdouble *identity = NULL;

      /* Sizes the procedure would refuse show as the identity. */
      w = CLAMP (w | 1, 1, CC_MASK_MAX);
      h = CLAMP (h | 1, 1, CC_MASK_MAX);
      if (n != (gsize) w * h)
        {
          identity = g_new0 (gdouble, w * h);
          identity[(h / 2) * w + w / 2] = 1.0;
        }
      mask_editor_set (d->editor, w, h, identity ? identity : values, divisor, offset,
                       normalize);
      preset_bar_unselect (d->presets);
      g_free (identity);
    }
  cc_border_from_name (border, &b);
  cc_method_from_name (method, &m);
  gtk_combo_box_set_active (GTK_COMBO_BOX (d->border), b);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (d->method), cc_method_name (m));
  cc_shape_from_name (shape_name, &shape);
  gtk_combo_box_set_active (GTK_COMBO_BOX (d->shape), shape);
  show_shape (d, shape);
  d->updating--;

  g_clear_pointer (&array, gimp_array_free);
  g_free (preset);
  g_free (border);
  g_free (method);
  g_free (shape_name);
}

/* ---- the preview ---- */

typedef struct
{
  Dialog         *d;
  RenderSource   *source;
  RenderSettings  settings;
  GeglRectangle   rect;
  gint            generation;
  guchar         *pixels;
  CcResult        result;
  gchar          *error;
} PreviewJob;

static bool
preview_outdated (void *data)
{
  PreviewJob *job = data;

  return g_atomic_int_get (&job->d->generation) != job->generation;
}

static void
preview_compute (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  PreviewJob *job = data;
  GError *error = NULL;

  /* The engine only: safe off the main thread. */
  job->pixels = render_compute (job->source, &job->settings, job->d->ctx, NULL,
                                preview_outdated, NULL, job, &job->result, &error);
  if (error)
    {
      job->error = g_strdup (error->message);
      g_error_free (error);
    }
}

static void
preview_job_free (PreviewJob *job)
{
  render_source_free (job->source);
  g_free (job->settings.matrix);
  g_free (job->pixels);
  g_free (job->error);
  g_free (job);
}

static void
preview_done (GObject *source, GAsyncResult *res, gpointer data)
{
  PreviewJob *job = data;
  Dialog *d = job->d;

  d->running--;
  if (!d->closed && job->generation == d->generation)
    {
      if (job->pixels)
        {
          /* The preview draws 8-bit pixels in the drawable's layout. */
          const Babl *thumb = gimp_drawable_get_thumbnail_format (d->drawable);
          const Babl *format = render_format (d->drawable, job->settings.linear);
          const gint n = job->rect.width * job->rect.height;
          guchar *shown = g_malloc ((gsize) n * babl_format_get_bytes_per_pixel (thumb));
          gchar *status;

          babl_process (babl_fish (format, thumb), job->pixels, shown, n);
          gimp_preview_draw_buffer (GIMP_PREVIEW (d->preview), shown,
                                    job->rect.width * babl_format_get_bytes_per_pixel (thumb));
          g_free (shown);
          status = g_strdup_printf ("%s on %s: %.1f ms",
                                    cc_method_name (job->result.method_used),
                                    job->result.device, job->result.total_ms);
          gtk_label_set_text (GTK_LABEL (d->status), status);
          g_free (status);
        }
      else
        gtk_label_set_text (GTK_LABEL (d->status), job->error);
    }
  preview_job_free (job);
}

static gboolean
preview_start (gpointer data)
{
  Dialog *d = data;
  PreviewJob *job = g_new0 (PreviewJob, 1);
  GError *error = NULL;
  GTask *task;

  d->timeout = 0;
  job->d = d;
  job->generation = d->generation;
  gimp_preview_get_position (GIMP_PREVIEW (d->preview), &job->rect.x, &job->rect.y);
  gimp_preview_get_size (GIMP_PREVIEW (d->preview), &job->rect.width, &job->rect.height);
  if (settings_from_config (d->config, &job->settings, &error))
    {
      job->settings.transfer = d->transfer;
      if (d->canvas)
        {
          /* GIMP renders the canvas in its own process, as the merge will. */
          filter_configure (d->canvas, &job->settings);
          gimp_displays_flush ();
        }
    }
  if (error || !(job->source = render_read (d->drawable, &job->rect, &job->settings, &error)))
    {
      gtk_label_set_text (GTK_LABEL (d->status), error->message);
      g_error_free (error);
      preview_job_free (job);
      return G_SOURCE_REMOVE;
    }
  d->running++;
  task = g_task_new (NULL, NULL, preview_done, job);
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, preview_compute);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Every change: drop what is running, start again after a pause in typing. */
static void
preview_invalidate (Dialog *d)
{
  g_atomic_int_inc (&d->generation);
  if (d->timeout)
    g_source_remove (d->timeout);
  d->timeout = g_timeout_add (120, preview_start, d);
}

static void
preview_invalidated (GimpPreview *preview, Dialog *d)
{
  preview_invalidate (d);
}

static void
canvas_toggled (GtkToggleButton *button, Dialog *d)
{
  gimp_drawable_filter_set_visible (d->canvas, gtk_toggle_button_get_active (button));
  gimp_displays_flush ();
}

/* The canvas preview: cuda:convolve appended to the drawable, configured as
 * the dialog stands; NULL where GIMP has no such operation (the dialog's
 * own preview remains). */
static GimpDrawableFilter *
canvas_new (Dialog *d)
{
  RenderSettings settings = { 0 };
  GimpDrawableFilter *filter = NULL;

  if (settings_from_config (d->config, &settings, NULL) &&
      (filter = filter_new (d->drawable, &settings, "")))
    {
      gimp_drawable_append_filter (d->drawable, filter);
      gimp_displays_flush ();
    }
  g_free (settings.matrix);
  return filter;
}

/* ---- methods: GPU ones greyed where no GPU can take the mask ---- */

static void
update_methods (Dialog *d)
{
  GtkTreeModel *model = gtk_combo_box_get_model (GTK_COMBO_BOX (d->method));
  const MaskModel *m = mask_editor_get_mask (d->editor);
  const Babl *format = gimp_drawable_get_format (d->drawable);
  const gint channels = babl_format_get_n_components (format);
  gboolean weighted = FALSE;
  RenderSettings settings = { 0 };
  /* The mask the settings give (a shape's), else the editor's. */
  const gboolean resolved = settings_from_config (d->config, &settings, NULL);
  CcMask mask = resolved ? (CcMask) { settings.width, settings.height, settings.matrix, 1.0, 0.0 }
                         : (CcMask) { m->width, m->height, m->values, 1.0, 0.0 };
  GString *why = g_string_new (NULL);
  GtkTreeIter iter;
  CcMethod selected = CC_METHOD_AUTO;
  const gchar *id = gtk_combo_box_get_active_id (GTK_COMBO_BOX (d->method));
  gboolean ok;

  g_object_get (d->config, "alpha-weighting", &weighted, NULL);
  weighted = weighted && babl_format_has_alpha (format);
  cc_method_from_name (id, &selected);
  gtk_label_set_text (GTK_LABEL (d->method_note), cc_methods[selected].summary);
  for (ok = gtk_tree_model_get_iter_first (model, &iter); ok;
       ok = gtk_tree_model_iter_next (model, &iter))
    {
      gchar *name;
      CcMethod method;
      char message[512] = "";
      gboolean usable;

      gtk_tree_model_get (model, &iter, 0, &name, -1);
      cc_method_from_name (name, &method);
      usable = cc_method_check (d->ctx, method, &mask, channels, weighted, message,
                                sizeof message) == CC_OK;
      gtk_list_store_set (GTK_LIST_STORE (model), &iter, 2, usable, -1);
      if (!usable)
        g_string_append_printf (why, "%s: %s\n", name, message);
      if (!usable && method == selected)
        {
          gchar *note = g_strdup_printf ("%s cannot run this: %s", name, message);
          gtk_label_set_text (GTK_LABEL (d->method_note), note);
          g_free (note);
        }
      g_free (name);
    }
  if (why->len)
    g_string_truncate (why, why->len - 1);
  gtk_widget_set_tooltip_text (d->method, why->len ? why->str : NULL);
  g_string_free (why, TRUE);
  g_free (settings.matrix);
}

/* ---- signals ---- */

static void
editor_changed (MaskEditor *editor, Dialog *d)
{
  preset_bar_unselect (d->presets);
  write_mask (d, "");
  update_methods (d);
  preview_invalidate (d);
}

static void
preset_chosen (PresetBar *bar, const CcPreset *p, Dialog *d)
{
  mask_editor_set (d->editor, p->width, p->height, p->matrix, p->divisor, p->offset, FALSE);
  write_mask (d, p->id);
  update_methods (d);
  preview_invalidate (d);
}

static void
method_changed (GtkComboBox *combo, Dialog *d)
{
  if (d->updating)
    return;
  d->updating++;
  g_object_set (d->config, "method", gtk_combo_box_get_active_id (combo), NULL);
  d->updating--;
  update_methods (d);
  preview_invalidate (d);
}

static void
shape_changed (GtkComboBox *combo, Dialog *d)
{
  const CcShape shape = (CcShape) gtk_combo_box_get_active (combo);

  if (d->updating)
    return;
  d->updating++;
  g_object_set (d->config, "shape", cc_shape_name (shape), NULL);
  d->updating--;
  show_shape (d, shape);
  update_methods (d);
  preview_invalidate (d);
}

static void
border_changed (GtkComboBox *combo, Dialog *d)
{
  if (d->updating)
    return;
  d->updating++;
  g_object_set (d->config, "border", cc_border_name (gtk_combo_box_get_active (combo)), NULL);
  d->updating--;
  preview_invalidate (d);
}

/* Every change of the config lands here, the toggles GIMP made for it and
 * Reset's included: the widgets GIMP did not make are read back from it
 * (the dialog's own writes are marked by 'updating'), and the preview and
 * the methods follow. */
static void
config_notify (GObject *config, GParamSpec *pspec, Dialog *d)
{
  if (d->updating)
    return;
  read_config (d);
  update_methods (d);
  preview_invalidate (d);
}

/* ---- layout ---- */

/* An engine's name as a choice, its label the name capitalised. */
static void
append_name (GtkWidget *combo, const gchar *name)
{
  gchar *label = g_strdup (name);

  label[0] = g_ascii_toupper (label[0]);
  gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (combo), name, label);
  g_free (label);
}

static GtkWidget *
method_combo (void)
{
  GtkListStore *store = gtk_list_store_new (3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_BOOLEAN);
  GtkWidget *combo = gtk_combo_box_new_with_model (GTK_TREE_MODEL (store));
  GtkCellRenderer *cell = gtk_cell_renderer_text_new ();

  for (gint m = 0; m < CC_METHOD_COUNT; m++)
    gtk_list_store_insert_with_values (store, NULL, -1, 0, cc_methods[m].name,
                                       1, cc_methods[m].name, 2, TRUE, -1);
  gtk_combo_box_set_id_column (GTK_COMBO_BOX (combo), 0);
  gtk_cell_layout_pack_start (GTK_CELL_LAYOUT (combo), cell, TRUE);
  gtk_cell_layout_set_attributes (GTK_CELL_LAYOUT (combo), cell, "text", 1,
                                  "sensitive", 2, NULL);
  g_object_unref (store);
  return combo;
}

static GtkWidget *
labelled (const gchar *mnemonic, GtkWidget *widget, GtkWidget *extra)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new_with_mnemonic (mnemonic);

  gtk_label_set_mnemonic_widget (GTK_LABEL (label), widget);
  gtk_box_pack_start (GTK_BOX (row), label, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), widget, FALSE, FALSE, 0);
  if (extra)
    gtk_box_pack_start (GTK_BOX (row), extra, TRUE, TRUE, 0);
  return row;
}

/* The left column: the preview, its status line, and the canvas preview's
 * toggles (made here, with the filter they control). */
static GtkWidget *
preview_column (Dialog *d)
{
  GtkWidget *left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *on_canvas;

  d->preview = gimp_drawable_preview_new_from_drawable (d->drawable);
  g_signal_connect (d->preview, "invalidated", G_CALLBACK (preview_invalidated), d);
  d->status = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (d->status), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (d->status), 40);
  gtk_box_pack_start (GTK_BOX (left), d->preview, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (left), d->status, FALSE, FALSE, 0);
  d->canvas = canvas_new (d);
  on_canvas = gtk_check_button_new_with_mnemonic ("Preview on the _canvas");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (on_canvas), d->canvas != NULL);
  d->keep = gtk_check_button_new_with_mnemonic ("_Keep as an editable effect");
  gtk_widget_set_tooltip_text (d->keep, "OK leaves the filter on the layer, to edit or "
                                        "remove later, instead of merging it");
  gtk_widget_set_sensitive (on_canvas, d->canvas != NULL);
  gtk_widget_set_sensitive (d->keep, d->canvas != NULL);
  if (d->canvas)
    g_signal_connect (on_canvas, "toggled", G_CALLBACK (canvas_toggled), d);
  gtk_box_pack_start (GTK_BOX (left), on_canvas, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (left), d->keep, FALSE, FALSE, 0);
  return left;
}

/* The shape's rows: its choice, the mask layer's chooser, and the shape's
 * sliders. */
static void
pack_shape_rows (Dialog *d, GimpProcedureDialog *dialog, GtkWidget *right)
{
  static const gchar *const names[4] = { "radius", "angle", "blades", "inner" };

  d->shape = gtk_combo_box_text_new ();
  for (gint s = 0; s < CC_SHAPE_COUNT; s++)
    append_name (d->shape, cc_shape_name (s));
  gtk_widget_set_tooltip_text (d->shape, "Matrix: the mask below; else a mask made from "
                                         "a shape, scaled to sum 1");
  gtk_box_pack_start (GTK_BOX (right), labelled ("S_hape:", d->shape, NULL), FALSE, FALSE, 0);
  /* A layer as the mask: GIMP's own chooser, writing mask-drawable. */
  gtk_box_pack_start (GTK_BOX (right),
                      gimp_procedure_dialog_get_widget (dialog, "mask-drawable", G_TYPE_NONE),
                      FALSE, FALSE, 0);
  for (gint k = 0; k < 4; k++)
    {
      d->shape_widgets[k] = gimp_procedure_dialog_get_widget (dialog, names[k],
                                                              GIMP_TYPE_SPIN_SCALE);
      gtk_box_pack_start (GTK_BOX (right), d->shape_widgets[k], FALSE, FALSE, 0);
    }
  /* The slider's reach, for fine steps; larger radii are typed (to 511). */
  gimp_spin_scale_set_scale_limits (GIMP_SPIN_SCALE (d->shape_widgets[0]), 0.5, 100.0);
}

/* The method's row, with the device beside it, and the method's note.  GPU
 * methods are greyed, and the device says why, where no GPU is usable. */
static void
pack_method_rows (Dialog *d, GtkWidget *right)
{
  GtkWidget *device;
  char why[512];
  gchar *text;

  d->method = method_combo ();
  text = cc_context_gpu_status (d->ctx, why, sizeof why) == CC_OK
         ? g_strdup_printf ("Device: %s", why)
         : g_strdup_printf ("Device: %s. No GPU: %s", cc_context_device_name (d->ctx), why);
  device = gtk_label_new (text);
  g_free (text);
  gtk_label_set_line_wrap (GTK_LABEL (device), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (device), 48);
  gtk_label_set_xalign (GTK_LABEL (device), 0.0);
  gtk_box_pack_start (GTK_BOX (right), labelled ("M_ethod:", d->method, device), FALSE, FALSE, 0);
  d->method_note = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (d->method_note), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (d->method_note), 60);
  gtk_label_set_xalign (GTK_LABEL (d->method_note), 0.0);
  gtk_box_pack_start (GTK_BOX (right), d->method_note, FALSE, FALSE, 0);
}

/* The border's row, the procedure's toggles, and its channels in a row. */
static void
pack_border_rows (Dialog *d, GimpProcedureDialog *dialog, GtkWidget *right)
{
  GtkWidget *toggles, *channels;

  d->border = gtk_combo_box_text_new ();
  for (gint b = 0; b < CC_BORDER_COUNT; b++)
    append_name (d->border, cc_border_name (b));
  gtk_widget_set_tooltip_text (d->border, "What lies beyond the drawable's edges");
  gtk_box_pack_start (GTK_BOX (right), labelled ("_Border:", d->border, NULL), FALSE, FALSE, 0);

  toggles = gimp_procedure_dialog_fill_box (dialog, "toggles", "clamp", "alpha-weighting",
                                            "affect-alpha", "linear", NULL);
  gtk_box_pack_start (GTK_BOX (right), toggles, FALSE, FALSE, 0);
  channels = gimp_procedure_dialog_fill_box (dialog, "channels", "red", "green", "blue", NULL);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (channels), GTK_ORIENTATION_HORIZONTAL);
  gtk_box_pack_start (GTK_BOX (right), labelled ("Channels:", channels, NULL), FALSE, FALSE, 0);
}

/* The right column: the shape, the presets and the mask editor, the method,
 * the border and the procedure's toggles. */
static GtkWidget *
settings_column (Dialog *d, GimpProcedureDialog *dialog, const gchar *shipped_preset_dir,
                 const gchar *user_preset_dir)
{
  GtkWidget *right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);

  pack_shape_rows (d, dialog, right);
  d->editor = MASK_EDITOR (mask_editor_new ());
  d->presets = PRESET_BAR (preset_bar_new (shipped_preset_dir, user_preset_dir, d->editor));
  gtk_box_pack_start (GTK_BOX (right), GTK_WIDGET (d->presets), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (right), GTK_WIDGET (d->editor), TRUE, TRUE, 0);
  pack_method_rows (d, right);
  pack_border_rows (d, dialog, right);
  return right;
}

/* The widgets' edits, and the config's own changes, from now on. */
static void
connect_edits (Dialog *d)
{
  g_signal_connect (d->editor, "changed", G_CALLBACK (editor_changed), d);
  g_signal_connect (d->presets, "chosen", G_CALLBACK (preset_chosen), d);
  g_signal_connect (d->method, "changed", G_CALLBACK (method_changed), d);
  g_signal_connect (d->border, "changed", G_CALLBACK (border_changed), d);
  g_signal_connect (d->shape, "changed", G_CALLBACK (shape_changed), d);
  g_signal_connect (d->config, "notify", G_CALLBACK (config_notify), d);
}

/* Let a preview computation in flight finish before the context goes. */
static void
preview_stop (Dialog *d)
{
  d->closed = TRUE;
  g_atomic_int_inc (&d->generation);
  g_signal_handlers_disconnect_by_data (d->config, d);
  if (d->timeout)
    g_source_remove (d->timeout);
  while (d->running > 0)
    g_main_context_iteration (NULL, TRUE);
}

/* The canvas preview's filter, kept on the layer as the config stands now
 * and shown, or deleted (OK merges a filter of its own). */
static void
canvas_finish (Dialog *d, gboolean keep)
{
  if (keep)
    {
      RenderSettings settings = { 0 };

      if (settings_from_config (d->config, &settings, NULL))
        filter_configure (d->canvas, &settings);
      g_free (settings.matrix);
      gimp_drawable_filter_set_visible (d->canvas, TRUE);
    }
  else if (d->canvas)
    gimp_drawable_filter_delete (d->canvas);
  if (d->canvas)
    gimp_displays_flush ();
}

gboolean
convolve_dialog (GimpProcedure *procedure, GimpProcedureConfig *config,
                 GimpDrawable *drawable, CcContext *ctx,
                 const gchar *shipped_preset_dir, const gchar *user_preset_dir,
                 gboolean *keep_effect)
{
  Dialog d = { 0 };
  GtkWidget *dialog, *main_box;
  GError *error = NULL;
  gboolean run;

  d.config = config;
  d.drawable = drawable;
  d.ctx = ctx;
  /* A space with no usable tables shows its error in the preview's place
   * (render_read refuses linear light without them) and on OK. */
  d.transfer = render_transfer_new (drawable, &error);
  g_clear_error (&error);

  gimp_ui_init (PLUG_IN_BINARY);
  dialog = gimp_procedure_dialog_new (procedure, config, "CUDA Convolution Matrix");

  main_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_container_set_border_width (GTK_CONTAINER (main_box), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dialog))), main_box,
                      TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), preview_column (&d), TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (main_box),
                      settings_column (&d, GIMP_PROCEDURE_DIALOG (dialog), shipped_preset_dir,
                                       user_preset_dir),
                      FALSE, FALSE, 0);

  read_config (&d);
  connect_edits (&d);
  update_methods (&d);

  gtk_widget_show_all (main_box);
  read_config (&d);   /* the shape's sliders, after show_all showed them all */
  run = gimp_procedure_dialog_run (GIMP_PROCEDURE_DIALOG (dialog));

  preview_stop (&d);
  *keep_effect = run && d.canvas && gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d.keep));
  canvas_finish (&d, *keep_effect);
  gtk_widget_destroy (dialog);
  cc_transfer_free (d.transfer);
  return run;
}
