/* The layer operations: the aux pad beside the filter's input and output,
 * the image on it read into the mask, and the regions of it each output
 * needs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "op-layer.h"
#include "op-properties.h"

/* The class a layer operation's class chains up to: cuda:convolve's or
 * cuda:deconvolve's. */
static GeglOperationClass *
parent_class (GeglOperation *operation)
{
  return g_type_class_peek_parent (GEGL_OPERATION_GET_CLASS (operation));
}

/* The aux image as its weights are read: luminance in linear light and
 * alpha, in its own space. */
static const Babl *
aux_format (GeglOperation *operation)
{
  return babl_format_with_space ("YA float",
                                 gegl_operation_get_source_space (operation, "aux"));
}

/* Whether an image is connected to the aux input, and then its mask's
 * size, known before its pixels ('width', 'height' left alone where it is
 * too large to be one); the aux pad's format set. */
static gboolean
prepare_aux (GeglOperation *operation, gint *width, gint *height)
{
  const GeglRectangle *aux;
  char why[8];

  if (!gegl_node_has_pad (operation->node, "aux") ||
      gegl_operation_get_source_node (operation, "aux") == NULL)
    return FALSE;
  aux = gegl_operation_source_get_bounding_box (operation, "aux");
  if (aux && cc_mask_image_size_check (aux->width, aux->height, why, sizeof why))
    {
      *width = aux->width | 1;
      *height = aux->height | 1;
    }
  gegl_operation_set_format (operation, "aux", aux_format (operation));
  return TRUE;
}

void
op_layer_prepare (GeglOperation *operation, OpState *state, gint *width, gint *height)
{
  *width = *height = 0;
  state->aux_on = prepare_aux (operation, width, height);
  if (state->aux_on)
    state->aux_taps = *width * *height;
  else if (state->mask->valid)
    {
      *width = state->mask->width;
      *height = state->mask->height;
    }
}

/* The settings are kept where the image's weights are the same. */
void
op_layer_update_aux (GeglOperation *operation, GeglOperationContext *context, OpState *state)
{
  GObject *aux = gegl_operation_context_get_object (context, "aux");
  const GeglRectangle *rect = gegl_operation_source_get_bounding_box (operation, "aux");
  const gint w = rect ? rect->width : 0, h = rect ? rect->height : 0;
  gfloat *ya = NULL;
  OpSettings *fresh;
  char why[8];

  if (!state || !state->aux_on)
    return;
  if (aux && cc_mask_image_size_check (w, h, why, sizeof why))
    {
      if ((ya = g_try_new (gfloat, 2 * (gsize) w * h)))
        gegl_buffer_get (GEGL_BUFFER (aux), rect, 1.0, aux_format (operation), ya,
                         GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
    }
  fresh = op_settings_new_image (ya, w, h);
  g_free (ya);
  op_state_take_aux (state, fresh);
}

/* The aux pad: an image whose luminance makes the mask (GIMP shows a
 * drawable chooser for it). */
static void
attach (GeglOperation *operation)
{
  GParamSpec *pspec;

  parent_class (operation)->attach (operation);
  pspec = g_param_spec_object ("aux", "Mask image",
                               "An image as the mask: each pixel's luminance in linear "
                               "light times its alpha, scaled to sum 1, up to 1023x1023; "
                               "shape, preset and matrix are then ignored",
                               GEGL_TYPE_BUFFER, G_PARAM_READWRITE | GEGL_PARAM_PAD_INPUT);
  gegl_operation_create_pad (operation, pspec);
  g_param_spec_sink (pspec);
}

/* The aux image is read whole (none of one too large to be a mask), and
 * any change to it changes every output. */
static GeglRectangle
get_required_for_output (GeglOperation       *operation,
                         const gchar         *input_pad,
                         const GeglRectangle *roi)
{
  const GeglRectangle *aux;
  char why[8];

  if (strcmp (input_pad, "aux") != 0)
    return parent_class (operation)->get_required_for_output (operation, input_pad, roi);
  aux = gegl_operation_source_get_bounding_box (operation, "aux");
  return aux && cc_mask_image_size_check (aux->width, aux->height, why, sizeof why)
         ? *aux : (GeglRectangle) { 0, 0, 0, 0 };
}

static GeglRectangle
get_invalidated_by_change (GeglOperation       *operation,
                           const gchar         *input_pad,
                           const GeglRectangle *roi)
{
  if (strcmp (input_pad, "aux") == 0)
    return parent_class (operation)->get_bounding_box (operation);
  return parent_class (operation)->get_invalidated_by_change (operation, input_pad, roi);
}

/* The keys follow the parent's: its name with "-layer", its categories and
 * menu, and the verb ('data') in the title and label. */
static void
class_init (gpointer klass, gpointer data)
{
  const gchar *verb = data;
  GeglOperationClass *operation_class = GEGL_OPERATION_CLASS (klass);
  GeglOperationClass *parent = g_type_class_peek_parent (klass);
  gchar *name = g_strdup_printf ("%s-layer", gegl_operation_class_get_key (parent, "name"));
  gchar *title = g_strdup_printf ("%s with a layer (CUDA)", verb);
  gchar *description = g_strdup_printf (
    "%ss with an image on the aux input as the mask (its luminance in linear light times "
    "alpha, scaled to sum 1, up to 1023x1023) on an NVIDIA GPU, or on all CPU cores where "
    "there is none; without one, as %s", verb, gegl_operation_class_get_key (parent, "name"));
  gchar *label = g_strdup_printf ("%s with a layer on the GPU...", verb);

  operation_class->attach = attach;
  operation_class->get_required_for_output = get_required_for_output;
  operation_class->get_invalidated_by_change = get_invalidated_by_change;
  op_properties_set_keys (operation_class, name, title,
                          gegl_operation_class_get_key (parent, "categories"), description,
                          gegl_operation_class_get_key (parent, "gimp:menu-path"), label);
  g_free (name);
  g_free (title);
  g_free (description);
  g_free (label);
}

void
op_layer_register (GTypeModule *module, GType parent, guint16 class_size,
                   guint16 instance_size, const gchar *verb)
{
  const GTypeInfo info = {
    .class_size = class_size, .class_init = class_init, .class_data = verb,
    .instance_size = instance_size };
  gchar *type_name = g_strdup_printf ("%s_layer", g_type_name (parent));

  g_type_module_register_type (module, parent, type_name, &info, 0);
  g_free (type_name);
}
