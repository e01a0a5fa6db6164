/* The mask's properties and how it is applied (border, method, clamp),
 * which cuda:convolve and cuda:deconvolve share, names, meanings and
 * ranges alike: each operation's property list includes this file where
 * they stand, so it has no include guard, and gegl-op.h reads it as often
 * as it reads the list.  The operation defines OP_BORDER_DEFAULT first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
property_enum (shape, "Shape", CudaConvolveShape, cuda_convolve_shape, CC_SHAPE_MATRIX)
  description ("matrix: the matrix or preset below; else a mask made from a shape, "
               "scaled to sum 1, each cell weighing the area of the shape over it")

property_double (radius, "Radius", 5.0)
  description ("The shape's radius (a box is 2 x radius + 1 wide, a motion line as "
               "long)")
  value_range (CC_SHAPE_RADIUS_MIN, CC_SHAPE_RADIUS_MAX)
  ui_range (0.5, 100.0)
  ui_meta ("unit", "pixel-distance")
  ui_meta ("visible", "! shape {matrix}")

property_double (angle, "Angle", 0.0)
  description ("Turned counter-clockwise: 0 puts a polygon's corner at the top, a "
               "motion line across")
  value_range (-360.0, 360.0)
  ui_meta ("unit", "degree")
  ui_meta ("visible", "shape {polygon, motion}")

property_int (blades, "Blades", 6)
  description ("The polygon's sides")
  value_range (CC_SHAPE_BLADES_MIN, CC_SHAPE_BLADES_MAX)
  ui_meta ("visible", "shape {polygon}")

property_double (inner, "Inner", 0.5)
  description ("The ring's hole, over its radius")
  value_range (0.0, CC_SHAPE_INNER_MAX)
  ui_meta ("visible", "shape {ring}")

property_enum (preset, "Preset", CudaConvolvePreset, cuda_convolve_preset, 0)
  description ("A preset, the shipped ones and yours (as GIMP started); it supplies "
               "the matrix, divisor and offset, and normalize is ignored; none: the "
               "matrix below")
  ui_meta ("visible", "shape {matrix}")

property_string (matrix, "Matrix", "0,0,0;0,1,0;0,0,0")
  description ("The mask: rows separated by ';', values by ',', odd sizes up to "
               "1023x1023, e.g. \"0,1,0;1,-4,1;0,1,0\"")
  ui_meta ("visible", "shape {matrix}")

property_double (divisor, "Divisor", 1.0)
  description ("The weighted sum is divided by this")
  value_range (-G_MAXDOUBLE, G_MAXDOUBLE)
  ui_range (-1000.0, 1000.0)
  ui_meta ("sensitive", "! normalize")
  ui_meta ("visible", "shape {matrix}")

property_double (offset, "Offset", 0.0)
  description ("Then this is added, in the 0..1 scale")
  value_range (-G_MAXDOUBLE, G_MAXDOUBLE)
  ui_range (-1.0, 1.0)
  ui_meta ("sensitive", "! normalize")
  ui_meta ("visible", "shape {matrix}")

property_boolean (normalize, "Normalize", FALSE)
  description ("Divisor and offset from the mask's sum (GIMP's rule)")
  ui_meta ("visible", "shape {matrix}")

property_enum (border, "Border", CudaConvolveBorder, cuda_convolve_border,
               OP_BORDER_DEFAULT)
  description ("What lies beyond the image's edges")

property_enum (method, "Method", CudaConvolveMethod, cuda_convolve_method,
               CC_METHOD_AUTO)
  description ("How to compute it: auto takes the fastest, the CPU where no GPU "
               "is usable")

property_boolean (clamp, "Clamp", TRUE)
  description ("Clamp results to [0,1]; off keeps HDR values")
