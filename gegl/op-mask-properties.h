/* The mask's properties and how it is applied (border, method, clamp),
 * which cuda:convolve and cuda:deconvolve share, each made from the
 * settings' table (op-properties.h's OP_DOUBLE ...): each operation's
 * property list includes this file where they stand, so it has no include
 * guard, and gegl-op.h reads it as often as it reads the list.  The
 * operation defines OP_BORDER_DEFAULT first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
OP_ENUM (SHAPE, shape, CudaConvolveShape, cuda_convolve_shape, CC_SETTING_DEFAULT (SHAPE))

OP_DOUBLE (RADIUS, radius)
  ui_range (0.5, 100.0)
  ui_meta ("unit", "pixel-distance")
  ui_meta ("visible", "! shape {matrix}")

OP_DOUBLE (ANGLE, angle)
  ui_meta ("unit", "degree")
  ui_meta ("visible", "shape {polygon, motion}")

OP_INT (BLADES, blades)
  ui_meta ("visible", "shape {polygon}")

OP_DOUBLE (INNER, inner)
  ui_meta ("visible", "shape {ring}")

/* The presets are a choice here, 0 (none) the table's empty id. */
OP_ENUM (PRESET, preset, CudaConvolvePreset, cuda_convolve_preset, 0)
  ui_meta ("visible", "shape {matrix}")

OP_STRING (MATRIX, matrix)
  ui_meta ("visible", "shape {matrix}")

OP_DOUBLE (DIVISOR, divisor)
  ui_range (-1000.0, 1000.0)
  ui_meta ("sensitive", "! normalize")
  ui_meta ("visible", "shape {matrix}")

OP_DOUBLE (OFFSET, offset)
  ui_range (-1.0, 1.0)
  ui_meta ("sensitive", "! normalize")
  ui_meta ("visible", "shape {matrix}")

OP_BOOLEAN (NORMALIZE, normalize)
  ui_meta ("visible", "shape {matrix}")

OP_ENUM (BORDER, border, CudaConvolveBorder, cuda_convolve_border, OP_BORDER_DEFAULT)

OP_ENUM (METHOD, method, CudaConvolveMethod, cuda_convolve_method,
         CC_SETTING_DEFAULT (METHOD))

OP_BOOLEAN (CLAMP, clamp)
