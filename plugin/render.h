/* The one way pixels flow: drawable -> buffer -> engine -> shadow buffer ->
 * merge.  The dialog's preview uses the first half of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_RENDER_H
#define CC_RENDER_H

#include <libgimp/gimp.h>

#include "convolve.h"

typedef struct
{
  gint       width;            /* odd, 1..127 */
  gint       height;
  gdouble   *matrix;           /* row-major, width * height */
  gdouble    divisor;          /* after normalize, non-zero */
  gdouble    offset;
  CcBorder   border;
  CcMethod   method;
  gboolean   clamp;
  gboolean   alpha_weighting;
  gboolean   affect_alpha;
  gboolean   linear;           /* linear RGB rather than perceptual R'G'B' */
  gboolean   red;              /* convolve these colour channels; off keeps them */
  gboolean   green;            /* (gray: convolved unless all three are off) */
  gboolean   blue;
  const CcTransfer *transfer;  /* the drawable's, from render_transfer_new */
  CcShapeSpec shape;           /* the shape the mask was made from, or CC_SHAPE_MATRIX */
  gboolean   deconvolve;       /* undo a blur by the mask (cc_deconvolve) rather than
                                  convolve: the whole drawable read, restored, and
                                  written where the selection is */
  CcDeconvolveParams deconvolution;
} RenderSettings;

/* The format pixels travel in: the drawable's own sample type and colour
 * space, linear or perceptual as asked.  Linear light on an 8- or 16-bit
 * perceptual drawable travels as its own codes, and the engine converts
 * them through the drawable's transfer tables: no wider copy crosses the
 * process boundary, and nothing is quantised in linear light. */
const Babl *render_format        (GimpDrawable         *drawable,
                                  gboolean              linear);

/* The drawable's transfer tables, made by babl in its own colour space,
 * where linear light needs them (8- and 16-bit perceptual drawables),
 * else NULL (and no error).  Free with cc_transfer_free. */
CcTransfer *render_transfer_new  (GimpDrawable         *drawable,
                                  GError              **error);

/* The pixels an output rectangle needs: what render_read takes from the
 * drawable (libgimp: the main thread), for render_compute (engine only: any
 * thread). */
typedef struct _RenderSource RenderSource;

/* Reads what the rectangle 'out' of 'drawable' (drawable coordinates)
 * needs: it and the real pixels around it as halo, in render_format().  A
 * deconvolution's 'out' is the whole drawable, read without halo: the
 * engine applies the border. */
RenderSource *render_read        (GimpDrawable         *drawable,
                                  const GeglRectangle  *out,
                                  const RenderSettings *settings,
                                  GError              **error);
void        render_source_free   (RenderSource         *source);
/* The pixels read, for an engine call of the caller's own (the blur's
 * estimate), and whether their last channel is alpha. */
const CcImage *render_source_image (const RenderSource *source,
                                    gboolean           *has_alpha);

/* Convolves a read rectangle, or restores the whole drawable read;
 * returns its pixels in render_format() (g_free them), or NULL and an
 * error. */
guchar     *render_compute       (const RenderSource   *source,
                                  const RenderSettings *settings,
                                  CcContext            *ctx,
                                  CcProgressFunc        progress,
                                  CcCancelFunc          cancel,
                                  CcStageFunc           stage,
                                  gpointer              user_data,
                                  CcResult             *result,
                                  GError              **error);

/* Convolves the selected part of 'drawable', or restores the whole of it
 * and writes the selected part, and merges it as one undo step.  On any
 * error the drawable is left as it was. */
gboolean    render_drawable      (GimpImage            *image,
                                  GimpDrawable         *drawable,
                                  const RenderSettings *settings,
                                  CcContext            *ctx,
                                  CcResult             *result,
                                  GError              **error);

#endif /* CC_RENDER_H */
