/* What the operations' property lists share: the settings' table
 * (engine/setting-table.h) as properties, the choices as GEGL enum types
 * made from the engine's own tables and the preset files, so that the
 * front ends cannot drift apart, and the keys.  Each operation's list
 * includes op-mask-properties.h for the mask's properties themselves.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_PROPERTIES_H
#define CC_OP_PROPERTIES_H

#include <gegl-plugin.h>

#include "convolve.h"
#include "op-state.h"
#include "setting-table.h"

/* A property made from the settings' table (engine/setting-table.h), which
 * holds its label, description, default and range; the list adds only
 * what GIMP's dialog shows (ui_range, ui_meta). */
#define OP_DOUBLE(ID, name) \
  property_double (name, CC_SETTING_LABEL (ID), CC_SETTING_DEFAULT (ID)) \
    description (CC_SETTING_BLURB (ID)) \
    value_range (CC_SETTING_MIN (ID), CC_SETTING_MAX (ID))
#define OP_INT(ID, name) \
  property_int (name, CC_SETTING_LABEL (ID), CC_SETTING_DEFAULT (ID)) \
    description (CC_SETTING_BLURB (ID)) \
    value_range (CC_SETTING_MIN (ID), CC_SETTING_MAX (ID))
#define OP_BOOLEAN(ID, name) \
  property_boolean (name, CC_SETTING_LABEL (ID), CC_SETTING_DEFAULT (ID)) \
    description (CC_SETTING_BLURB (ID))
#define OP_STRING(ID, name) \
  property_string (name, CC_SETTING_LABEL (ID), CC_SETTING_DEFAULT (ID)) \
    description (CC_SETTING_BLURB (ID))
#define OP_ENUM(ID, name, type, type_name, value) \
  property_enum (name, CC_SETTING_LABEL (ID), type, type_name, value) \
    description (CC_SETTING_BLURB (ID))

typedef gint                  CudaConvolvePreset;
typedef CcBorder              CudaConvolveBorder;
typedef CcMethod              CudaConvolveMethod;
typedef CcShape               CudaConvolveShape;
typedef CcDeconvolveAlgorithm CudaDeconvolveAlgorithm;
typedef CcDeconvolveStart     CudaDeconvolveInit;

/* The presets as a choice, found by the one rule (the shipped ones, then
 * the user's) when GEGL first lists the operations: GIMP's dialog shows
 * them as a list, nothing is typed.  0 is "none", the matrix. */
GType        cuda_convolve_preset_get_type      (void);
GType        cuda_convolve_shape_get_type       (void);
GType        cuda_convolve_border_get_type      (void);
GType        cuda_convolve_method_get_type      (void);
GType        cuda_deconvolve_algorithm_get_type (void);
GType        cuda_deconvolve_init_get_type      (void);

/* The state for the operation's mask properties (op-mask-properties.h)
 * and its report, which cuda:convolve and cuda:deconvolve share: 'old'
 * where they have not changed (op_state_for). */
OpState     *op_properties_state               (GeglOperation *operation, OpState *old);

/* The keys GEGL and GIMP read: GIMP lists the operation at 'menu_path' as
 * 'menu_label', with a dialog made from its properties. */
void         op_properties_set_keys (GeglOperationClass *klass, const gchar *name,
                                     const gchar *title, const gchar *categories,
                                     const gchar *description, const gchar *menu_path,
                                     const gchar *menu_label);

#endif /* CC_OP_PROPERTIES_H */
