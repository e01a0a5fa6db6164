/* The operations' regions: the format the engine works in, the block the
 * GPU computes for a region asked for, and one engine call for a region
 * (cuda:convolve's) or the whole input (cuda:deconvolve's), which never
 * fails GEGL: where it cannot compute, it passes the input through with a
 * warning.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_OP_REGION_H
#define CC_OP_REGION_H

#include <gegl-plugin.h>

#include "convolve.h"

/* The properties a region runs with, beside the mask's (the state's).
 * Deconvolution weights nothing by alpha and keeps alpha: both FALSE. */
typedef struct
{
  CcMethod method;
  CcBorder border;
  gboolean clamp;
  gboolean alpha_weighting;
  gboolean affect_alpha;
  gboolean linear;
  gboolean red;
  gboolean green;
  gboolean blue;
} OpRegionProperties;

/* The format the engine reads and writes for the operation's input, which
 * prepare sets on the input and output pads. */
const Babl   *op_region_format    (GeglOperation *operation, gboolean clamp, gboolean linear);
/* The input's bounding box, empty where there is no input: the output's
 * too. */
GeglRectangle op_region_input_box (GeglOperation *operation);
/* What the GPU computes for 'roi' of the input 'in': a whole block, the
 * layer or the bands of it that the region touches, which GEGL keeps in
 * the node's cache for the regions that follow. */
GeglRectangle op_region_gpu_block (const GeglRectangle *in, const GeglRectangle *roi);
/* One engine call for the region 'roi': a whole GPU block in one call
 * ('whole'), or a GEGL thread's share of a region, whose CPU path runs on
 * that thread's own context.  'state' is where the operation keeps its
 * OpState, read each time the region needs it: prepare may replace it. */
gboolean      op_region_convolve  (GeglOperation            *operation,
                                   gpointer                 *state,
                                   const OpRegionProperties *properties,
                                   GeglBuffer               *input,
                                   GeglBuffer               *output,
                                   const GeglRectangle      *roi,
                                   gboolean                  whole);

/* The whole input of GEGL's 'context' restored by one cc_deconvolve call
 * with 'params', on the GPU or the CPU as a region's call would run, the
 * CPU where the GPU fails, into the context's output for 'result' (the
 * operation's cached region, the input's bounding box: every output pixel
 * depends on every input pixel).  FALSE where there is no input. */
gboolean      op_region_deconvolve (GeglOperation            *operation,
                                    GeglOperationContext     *context,
                                    const GeglRectangle      *result,
                                    gpointer                 *state,
                                    const OpRegionProperties *properties,
                                    const CcDeconvolveParams *params);

#endif /* CC_OP_REGION_H */
