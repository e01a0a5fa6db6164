/* The one way pixels flow: drawable -> buffer -> engine -> shadow buffer ->
 * merge.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <string.h>

#include "engine-format.h"
#include "render.h"
#include "settings.h"

const Babl *
render_format (GimpDrawable *drawable, gboolean linear)
{
  return engine_format (gimp_drawable_get_format (drawable), linear);
}

CcTransfer *
render_transfer_new (GimpDrawable *drawable, GError **error)
{
  char message[256];
  CcTransfer *t = engine_format_transfer_new (gimp_drawable_get_format (drawable), message,
                                              sizeof message);

  if (!t && message[0])
    g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                 "the drawable's colour space gives no usable linear-light tables: %s",
                 message);
  return t;
}

/* The borders whose rows past the drawable's top and bottom render_read
 * gathers itself (a zero ghost row is zeros, as allocated): all but black
 * and white, whose ghost rows the engine adds, as it does beside the
 * columns read. */
#define ROWS_READ_BEYOND (CC_BORDER_BIT (CC_BORDER_ZERO) | CC_BORDER_BIT (CC_BORDER_EXTEND) | \
                          CC_BORDER_BIT (CC_BORDER_WRAP) | CC_BORDER_BIT (CC_BORDER_MIRROR))

/* What the output rectangle 'out' needs of the drawable: it and the mask's
 * halo (cc_region_input).  A deconvolution's is the whole drawable, read
 * without halo: the engine applies the border itself. */
static CcRegion
source_region (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s)
{
  const CcRect rect = { out->x, out->y, out->width, out->height };
  const CcRect whole = { 0, 0, gimp_drawable_get_width (drawable),
                         gimp_drawable_get_height (drawable) };

  return cc_region_input (&rect, &whole, s->deconvolve ? 1 : s->width,
                          s->deconvolve ? 1 : s->height, s->border, ROWS_READ_BEYOND, 0);
}

struct _RenderSource
{
  CcImage       image;      /* the output's rows and its halo rows, border resolved */
  CcRegion      region;     /* where they lie, and the output in them */
  GeglRectangle out;        /* the output rectangle, drawable coordinates */
  gint          bpp;
  gboolean      alpha;
  gint          colour;     /* colour channels: 1 (gray) or 3 */
};

/* Reads the rows of the output's region, each mapped by the border rule
 * at the drawable's top and bottom, runs of consecutive rows in one read. */
typedef struct
{
  GeglBuffer         *buffer;
  const Babl         *format;
  gint                x;
  gint                width;
  const RenderSource *src;
} BandReads;

/* One run of border-mapped rows; ghost rows stay as allocated: zeros. */
static bool
read_run (int64_t at, int64_t from, int64_t rows, void *data)
{
  const BandReads *r = data;

  if (from >= 0)
    gegl_buffer_get (r->buffer, GEGL_RECTANGLE (r->x, (gint) from, r->width, (gint) rows), 1.0,
                     r->format, (guchar *) r->src->image.data + at * r->src->image.stride,
                     r->src->image.stride, GEGL_ABYSS_NONE);
  return true;
}

RenderSource *
render_read (GimpDrawable *drawable, const GeglRectangle *out, const RenderSettings *s,
             GError **error)
{
  const Babl *format = render_format (drawable, s->linear);
  const CcRegion region = source_region (drawable, out, s);
  const gint width = (gint) region.input.width, rows = (gint) region.input.height;
  RenderSource *src;
  BandReads reads;
  CcType type;

  if (s->linear && engine_format_coded (gimp_drawable_get_format (drawable)) && !s->transfer)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0,
                   "linear light on this drawable needs transfer tables for its colour "
                   "space, and babl gave none that are usable");
      return NULL;
    }
  src = g_new0 (RenderSource, 1);
  src->region = region;
  src->out = *out;
  src->bpp = babl_format_get_bytes_per_pixel (format);
  src->alpha = babl_format_has_alpha (format);
  src->colour = babl_format_get_n_components (format) - (src->alpha ? 1 : 0);
  /* babl names sample types as the engine does. */
  if (!cc_type_from_name (babl_get_name (babl_format_get_type (format, 0)), &type))
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "unsupported pixel format %s",
                   babl_get_name (format));
      g_free (src);
      return NULL;
    }
  src->image = (CcImage) { NULL, type, babl_format_get_n_components (format), width, rows,
                           (gint64) width * src->bpp, FALSE };
  src->image.data = g_try_malloc0 ((gsize) src->image.stride * rows);
  if (!src->image.data)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "out of memory for a %dx%d region",
                   width, rows);
      g_free (src);
      return NULL;
    }

  reads = (BandReads) { gimp_drawable_get_buffer (drawable), format, (gint) region.input.x,
                        width, src };
  cc_border_runs (region.input.y, rows, gimp_drawable_get_height (drawable), s->border,
                  read_run, &reads);
  g_object_unref (reads.buffer);
  return src;
}

void
render_source_free (RenderSource *src)
{
  if (src)
    g_free (src->image.data);
  g_free (src);
}

const CcImage *
render_source_image (const RenderSource *src, gboolean *has_alpha)
{
  *has_alpha = src->alpha;
  return &src->image;
}

guchar *
render_compute (const RenderSource *src, const RenderSettings *s, CcContext *ctx,
                CcProgressFunc progress, CcCancelFunc cancel, CcStageFunc stage,
                gpointer user_data,
                CcResult *result, GError **error)
{
  CcImage dst = src->image;
  CcMask mask = { s->width, s->height, s->matrix, s->divisor, s->offset };
  CcOptions options;

  dst.width = src->out.width;
  dst.height = src->out.height;
  dst.stride = (gint64) src->out.width * src->bpp;
  dst.data = g_try_malloc ((gsize) dst.stride * dst.height);
  if (!dst.data)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "out of memory for a %dx%d region",
                   src->out.width, src->out.height);
      return NULL;
    }

  cc_options_init (&options);
  options.method = s->method;
  options.border = src->region.border;
  options.clamp = s->clamp;
  options.has_alpha = src->alpha;
  options.alpha_weighting = s->alpha_weighting;
  options.affect_alpha = s->affect_alpha;
  cc_options_keep_colour (&options, src->colour == 1, s->red, s->green, s->blue);
  options.transfer = s->linear ? s->transfer : NULL;
  options.progress = progress;
  options.cancel = cancel;
  options.stage = stage;
  options.user_data = user_data;

  if ((s->deconvolve
         ? cc_deconvolve (ctx, &src->image, &dst, &mask, &options, &s->deconvolution, result)
         : cc_convolve (ctx, &src->image, src->region.out_x, src->region.out_y, &dst, &mask,
                        &options, result)) != CC_OK)
    {
      g_set_error (error, GIMP_PLUG_IN_ERROR, 0, "%s", result->message);
      g_free (dst.data);
      return NULL;
    }
  return dst.data;
}

/* Bands of about this many bytes, so that reading one band, computing the
 * next and writing a third overlap. */
#define BAND_BYTES (8 << 20)

static const gchar *
progress_text (const RenderSettings *s)
{
  return s->deconvolve ? "CUDA deconvolution" : "CUDA convolution";
}

/* One band's computation, on a worker thread: the engine never calls
 * libgimp, so the main thread reads and writes other bands meanwhile. */
typedef struct
{
  RenderSource         *source;
  const RenderSettings *settings;
  CcContext            *ctx;
  guchar               *pixels;     /* the result, or NULL and 'error' */
  CcResult              result;
  GError               *error;
  GThread              *thread;
  GMutex                lock;
  GCond                 cond;
  gboolean              done;       /* under 'lock' */
  gdouble               fraction;   /* progress, under 'lock' */
  gchar                *stage;      /* what holds the band up, under 'lock'; NULL: nothing */
} BandJob;

static void
band_progress (gdouble fraction, gpointer data)
{
  BandJob *job = data;

  g_mutex_lock (&job->lock);
  job->fraction = fraction;
  g_mutex_unlock (&job->lock);
}

static void
band_stage (const char *stage, gpointer data)
{
  BandJob *job = data;

  g_mutex_lock (&job->lock);
  if (g_strcmp0 (stage, job->stage) != 0)
    {
      g_free (job->stage);
      job->stage = g_strdup (stage);
    }
  g_mutex_unlock (&job->lock);
}

static gpointer
band_compute (gpointer data)
{
  BandJob *job = data;

  job->pixels = render_compute (job->source, job->settings, job->ctx, band_progress, NULL,
                                band_stage, job, &job->result, &job->error);
  g_mutex_lock (&job->lock);
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

static BandJob *
band_start (RenderSource *source, const RenderSettings *s, CcContext *ctx)
{
  BandJob *job = g_new0 (BandJob, 1);

  job->source = source;
  job->settings = s;
  job->ctx = ctx;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  if (!(job->thread = g_thread_try_new ("convolve", band_compute, job, NULL)))
    band_compute (job);   /* no thread to spare: here, then */
  return job;
}

/* Waits for a band, moving GIMP's progress bar (main thread only); a
 * stage that holds the band up (the kernels' first compile) is the bar's
 * text meanwhile, and a line on GIMP's terminal. */
static void
band_wait (BandJob *job, const GeglRectangle *all)
{
  const gdouble done = (gdouble) (job->source->out.y - all->y) / all->height;
  const gdouble share = (gdouble) job->source->out.height / all->height;
  gchar *shown = NULL;

  g_mutex_lock (&job->lock);
  while (!job->done)
    {
      const gdouble fraction = job->fraction;
      gchar *stage = g_strdup (job->stage);

      g_mutex_unlock (&job->lock);
      if (stage && g_strcmp0 (stage, shown) != 0)
        {
          gimp_progress_set_text (stage);
          g_printerr ("%s: %s\n", PLUG_IN_BINARY, stage);
        }
      else if (!stage && shown)
        gimp_progress_set_text (progress_text (job->settings));
      if (stage)
        gimp_progress_pulse ();
      else
        gimp_progress_update (done + fraction * share);
      g_free (shown);
      shown = stage;
      g_mutex_lock (&job->lock);
      if (!job->done)
        g_cond_wait_until (&job->cond, &job->lock,
                           g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND);
    }
  g_mutex_unlock (&job->lock);
  if (shown)
    gimp_progress_set_text (progress_text (job->settings));
  g_free (shown);
  if (job->thread)
    g_thread_join (job->thread);
  job->thread = NULL;
}

static void
band_free (BandJob *job)
{
  render_source_free (job->source);
  g_free (job->pixels);
  g_clear_error (&job->error);
  g_free (job->stage);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

/* Every computed pixel is in the shadow buffer: one merge, through the
 * selection mask, as one undo step. */
static void
merge (GimpImage *image, GimpDrawable *drawable, const GeglRectangle *all)
{
  gimp_image_undo_group_start (image);
  gimp_drawable_merge_shadow (drawable, TRUE);
  gimp_image_undo_group_end (image);
  gimp_drawable_update (drawable, all->x, all->y, all->width, all->height);
  gimp_progress_update (1.0);
}

/* A deconvolution: the whole drawable read and restored in one engine
 * call on a worker thread (every output pixel depends on every input
 * pixel), and only the selection's bounds written to the shadow buffer,
 * which the merge then takes through the selection mask. */
static gboolean
restore_drawable (GimpImage *image, GimpDrawable *drawable, const RenderSettings *s,
                  CcContext *ctx, const GeglRectangle *all, CcResult *result, GError **error)
{
  const GeglRectangle whole = { 0, 0, gimp_drawable_get_width (drawable),
                                gimp_drawable_get_height (drawable) };
  const Babl *format = render_format (drawable, s->linear);
  const gsize bpp = babl_format_get_bytes_per_pixel (format);
  RenderSource *source;
  GeglBuffer *shadow;
  BandJob *job;

  if (!(source = render_read (drawable, &whole, s, error)))
    return FALSE;
  gimp_progress_init (progress_text (s));
  job = band_start (source, s, ctx);
  band_wait (job, &whole);
  if (!job->pixels)
    {
      g_propagate_error (error, g_steal_pointer (&job->error));
      band_free (job);
      return FALSE;
    }
  shadow = gimp_drawable_get_shadow_buffer (drawable);
  gegl_buffer_set (shadow, all, 0, format,
                   job->pixels + ((gsize) all->y * whole.width + all->x) * bpp,
                   (gint) (whole.width * bpp));
  gegl_buffer_flush (shadow);
  g_object_unref (shadow);
  *result = job->result;
  band_free (job);
  merge (image, drawable, all);
  return TRUE;
}

gboolean
render_drawable (GimpImage *image, GimpDrawable *drawable, const RenderSettings *s,
                 CcContext *ctx, CcResult *result, GError **error)
{
  const Babl *format = render_format (drawable, s->linear);
  GeglRectangle all, band;
  GeglBuffer *shadow;
  BandJob *computing = NULL;
  RenderSource *source;
  gint rows;
  gsize row_bytes;

  memset (result, 0, sizeof *result);
  if (!gimp_drawable_mask_intersect (drawable, &all.x, &all.y, &all.width, &all.height))
    return TRUE;   /* the selection misses this drawable: nothing to do */
  if (s->deconvolve)
    return restore_drawable (image, drawable, s, ctx, &all, result, error);

  /* Bands of output rows, each read with its halo: memory stays bounded
   * whatever the layer's size, and band k + 1 is read and band k - 1
   * written while band k is computed. */
  row_bytes = (gsize) (source_region (drawable, &all, s).input.width + all.width) *
              babl_format_get_bytes_per_pixel (format);
  rows = (gint) MAX ((gint64) (MIN (cc_host_budget (), G_MAXSIZE) / 3 / row_bytes) -
                     (s->height - 1), 1);
  rows = MIN (rows, MAX ((gint) (BAND_BYTES / row_bytes), 64));

  gimp_progress_init (progress_text (s));
  shadow = gimp_drawable_get_shadow_buffer (drawable);
  band = all;
  band.height = MIN (rows, all.height);
  if ((source = render_read (drawable, &band, s, error)))
    computing = band_start (source, s, ctx);
  while (computing)
    {
      BandJob *done = computing;
      RenderSource *next = NULL;

      band.y += band.height;
      band.height = MIN (rows, all.y + all.height - band.y);
      if (band.height > 0 && !(next = render_read (drawable, &band, s, error)))
        {
          band_wait (done, &all);
          band_free (done);
          break;
        }
      band_wait (done, &all);
      if (!done->pixels)
        {
          g_propagate_error (error, g_steal_pointer (&done->error));
          render_source_free (next);
          band_free (done);
          break;
        }
      /* The next band computes while this one goes to GIMP. */
      computing = next ? band_start (next, s, ctx) : NULL;
      gegl_buffer_set (shadow, &done->source->out, 0, format, done->pixels,
                       GEGL_AUTO_ROWSTRIDE);
      gegl_buffer_flush (shadow);
      result->method_used = done->result.method_used;
      memcpy (result->device, done->result.device, sizeof result->device);
      result->total_ms += done->result.total_ms;
      result->strips += done->result.strips;
      band_free (done);
      if (!next)
        {
          g_object_unref (shadow);
          merge (image, drawable, &all);
          return TRUE;
        }
    }
  g_object_unref (shadow);
  return FALSE;   /* nothing merged: the drawable is as it was */
}
