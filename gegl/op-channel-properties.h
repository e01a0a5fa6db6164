/* The channels' properties (linear, red, green, blue) and the report,
 * which cuda:convolve and cuda:deconvolve share: included in each
 * operation's property list as op-mask-properties.h is, after the
 * operation defines OP_CHANNEL_VERB, what it does to a channel
 * ("Convolve", "Restore").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
OP_BOOLEAN (LINEAR, linear)

property_boolean (red, "Red", TRUE)
  description (OP_CHANNEL_VERB " the red channel; off keeps it")

property_boolean (green, "Green", TRUE)
  description (OP_CHANNEL_VERB " the green channel; off keeps it")

property_boolean (blue, "Blue", TRUE)
  description (OP_CHANNEL_VERB " the blue channel; off keeps it")

property_string (report, "Report", "")
  description ("A file the operation writes what ran to (methods, devices, engine time), "
               "for plug-in-cuda-convolve and the tests; empty: none")
  ui_meta ("visible", "0")
