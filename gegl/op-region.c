/* The operations' regions: a region's pixels fetched with the mask's halo
 * into linear memory, convolved by the engine in one call, and stored; or
 * for deconvolution, the whole input so, restored in one call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "engine-format.h"
#include "op-engine.h"
#include "op-region.h"
#include "op-state.h"

/* The most pixels the GPU computes in one block: a layer up to this size
 * is one block, a larger one bands of its full width
 * (CUDA_CONVOLVE_GPU_BLOCK, pixels, changes it, for the tests).  A chunk
 * GIMP asks for across two bands has both computed. */
#define GPU_BLOCK_PIXELS ((gint64) 64 << 20)

/* CUDA_CONVOLVE_TRACE set: each region computed, and where its time went,
 * on standard error. */
static gboolean
tracing (void)
{
  static gint trace = -1;

  if (trace < 0)
    trace = g_getenv ("CUDA_CONVOLVE_TRACE") && *g_getenv ("CUDA_CONVOLVE_TRACE");
  return trace;
}

/* A warning once per distinct text, so that a preview's many regions do
 * not flood GIMP's error console, after the operation's family ('who':
 * cuda:convolve, cuda:deconvolve). */
static void
warn_once (const gchar *who, const gchar *text)
{
  gchar *said_text = g_strdup_printf ("%s: %s", who, text);
  static GMutex lock;
  static GHashTable *said = NULL;
  gboolean fresh;

  g_mutex_lock (&lock);
  if (!said)
    said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fresh = g_hash_table_add (said, g_strdup (said_text));
  g_mutex_unlock (&lock);
  if (fresh)
    g_warning ("%s", said_text);
  g_free (said_text);
}

/* The transfer tables of a coded format, made once a format for the
 * process (a few formats at most); NULL where babl gives none. */
static const CcTransfer *
transfer_for (const Babl *format)
{
  static GMutex lock;
  static GHashTable *made = NULL;
  gpointer t;

  g_mutex_lock (&lock);
  if (!made)
    made = g_hash_table_new (NULL, NULL);
  if (!g_hash_table_lookup_extended (made, format, NULL, &t))
    {
      char message[256];

      t = engine_format_transfer_new (format, message, sizeof message);
      g_hash_table_insert (made, (gpointer) format, t);
    }
  g_mutex_unlock (&lock);
  return t;
}

/* Where the input is 8- or 16-bit perceptual codes and results are
 * clamped, the input's own codes: the engine reads linear light through
 * the transfer tables and rounds as the procedure's pixel path does, and
 * GEGL converts nothing.  Otherwise RGBA float in the input's space, which
 * keeps values outside [0,1] for what follows the operation. */
const Babl *
op_region_format (GeglOperation *operation, gboolean clamp, gboolean linear)
{
  const Babl *source = gegl_operation_get_source_format (operation, "input");
  const Babl *space = gegl_operation_get_source_space (operation, "input");

  if (source && clamp && engine_format_coded (source) && (!linear || transfer_for (source)))
    return engine_format (source, linear);
  return engine_format_float (babl_format_with_space ("RGBA float", space), linear, TRUE);
}

GeglRectangle
op_region_input_box (GeglOperation *operation)
{
  const GeglRectangle *in = gegl_operation_source_get_bounding_box (operation, "input");

  return in ? *in : (GeglRectangle) { 0, 0, 0, 0 };
}

static gint64
block_pixels (void)
{
  static gint64 pixels = 0;

  if (!pixels)
    {
      const gchar *v = g_getenv ("CUDA_CONVOLVE_GPU_BLOCK");
      gint64 n = v ? g_ascii_strtoll (v, NULL, 10) : 0;

      pixels = n > 0 ? n : GPU_BLOCK_PIXELS;
    }
  return pixels;
}

GeglRectangle
op_region_gpu_block (const GeglRectangle *in, const GeglRectangle *roi)
{
  GeglRectangle block = *in;
  gint rows;

  if ((gint64) in->width * in->height > block_pixels ())
    {
      rows = (gint) MAX (1, block_pixels () / MAX (1, in->width));
      block.y = in->y + (roi->y - in->y) / rows * rows;
      block.height = in->y + ((roi->y + roi->height - 1 - in->y) / rows + 1) * rows - block.y;
      if (!gegl_rectangle_intersect (&block, &block, in))
        return *roi;
    }
  gegl_rectangle_bounding_box (&block, &block, roi);
  if (tracing ())
    g_printerr ("cuda:convolve: %dx%d at %d,%d asked: the block %dx%d at %d,%d\n",
                roi->width, roi->height, roi->x, roi->y, block.width, block.height, block.x,
                block.y);
  return block;
}

static void
pass_through (GeglBuffer *input, GeglBuffer *output, const GeglRectangle *roi)
{
  gegl_buffer_copy (input, roi, GEGL_ABYSS_NONE, output, roi);
}

/* A buffer's rectangle to or from linear memory ('set'): for a whole GPU
 * block, on GEGL's threads, a band each, so that the copies of a block
 * take no longer than a GEGL thread's share of a region would. */
typedef struct
{
  GeglBuffer          *buffer;
  const GeglRectangle *whole;
  const Babl          *format;
  guchar              *pixels;
  GeglAbyssPolicy      abyss;
  gboolean             set;
} Copy;

static void
copy_area (const GeglRectangle *area, gpointer data)
{
  const Copy *c = data;
  const gsize bpp = babl_format_get_bytes_per_pixel (c->format);
  const gint stride = (gint) (c->whole->width * bpp);
  guchar *p = c->pixels + (gsize) (area->y - c->whole->y) * stride +
              (gsize) (area->x - c->whole->x) * bpp;

  if (c->set)
    gegl_buffer_set (c->buffer, area, 0, c->format, p, stride);
  else
    gegl_buffer_get (c->buffer, area, 1.0, c->format, p, stride, c->abyss);
}

static void
copy_pixels (GeglBuffer *buffer, const GeglRectangle *rect, const Babl *format,
             guchar *pixels, GeglAbyssPolicy abyss, gboolean set, gboolean whole)
{
  Copy c = { buffer, rect, format, pixels, abyss, set };

  if (whole)
    gegl_parallel_distribute_area (rect, 4096.0, GEGL_SPLIT_STRATEGY_HORIZONTAL, copy_area,
                                   &c);
  else
    copy_area (rect, &c);
}

/* Page-locked memory for the GPU's blocks, kept for the process and grown
 * as blocks need: the engine copies it to and from the device at full
 * speed, where pageable memory costs a staging copy each way (several
 * milliseconds a block).  One block at a time holds it. */
static GMutex pinned_lock;
static guchar *pinned[2];
static gsize pinned_bytes[2];

static guchar *
pinned_buffer (int which, gsize bytes)
{
  if (bytes > pinned_bytes[which])
    {
      cc_host_free (op_engine (), pinned[which]);
      pinned[which] = cc_host_alloc (op_engine (), bytes);
      pinned_bytes[which] = pinned[which] ? bytes : 0;
    }
  return pinned[which];
}

/* A region's input and output in linear memory: a whole GPU block's the
 * pinned buffers, held under their lock until released; a region's share
 * its own. */
typedef struct
{
  guchar  *in;
  guchar  *out;
  gboolean pinned;
} Buffers;

/* FALSE where memory ran out; the buffers are to be released either way.
 * 'pinned': the GPU block's page-locked ones. */
static gboolean
buffers_get (Buffers *b, gsize in_bytes, gsize out_bytes, gboolean pinned)
{
  b->pinned = pinned;
  if (pinned)
    {
      g_mutex_lock (&pinned_lock);
      b->in = pinned_buffer (0, in_bytes);
      b->out = pinned_buffer (1, out_bytes);
    }
  else
    {
      b->in = g_try_malloc (in_bytes);
      b->out = g_try_malloc (out_bytes);
    }
  return b->in && b->out;
}

static void
buffers_release (Buffers *b)
{
  if (b->pinned)
    g_mutex_unlock (&pinned_lock);
  else
    {
      g_free (b->in);
      g_free (b->out);
    }
}

/* The engine's options for the properties and the working format. */
static void
region_options (CcOptions *options, const OpRegionProperties *p, const Babl *format,
                const Babl *source)
{
  cc_options_init (options);
  options->method = p->method;
  options->border = p->border;
  options->clamp = p->clamp;
  /* RGBA float has alpha where the input has none: 1 throughout, and it
   * stays so. */
  options->has_alpha = babl_format_has_alpha (format);
  options->alpha_weighting = p->alpha_weighting && source && babl_format_has_alpha (source);
  options->affect_alpha = p->affect_alpha && source && babl_format_has_alpha (source);
  /* A gray source arrives as three equal colour channels. */
  cc_options_keep_colour (options,
                          source && babl_format_get_n_components (source) -
                                    babl_format_has_alpha (source) < 3,
                          p->red, p->green, p->blue);
  options->transfer = p->linear && engine_format_coded (format) ? transfer_for (format) : NULL;
}

/* The input a region reads: 'roi' and the halo of the mask 's'
 * (cc_region_input).  GEGL's loop abyss gives wrap's halo past the input's
 * edges, rows and columns alike: all of it is fetched, and the engine
 * never reaches a border.  The other borders are the engine's own, at the
 * input's edges ('bounds'). */
static GeglRectangle
region_fetch (const OpSettings *s, const GeglRectangle *roi, const GeglRectangle *bounds,
              CcOptions *options)
{
  const CcRect out = { roi->x, roi->y, roi->width, roi->height };
  const CcRect source = { bounds->x, bounds->y, bounds->width, bounds->height };
  const CcRegion r = cc_region_input (&out, &source, s->width, s->height, options->border,
                                      CC_BORDER_BIT (CC_BORDER_WRAP),
                                      CC_BORDER_BIT (CC_BORDER_WRAP));

  options->border = r.border;
  return (GeglRectangle) { (gint) r.input.x, (gint) r.input.y, (gint) r.input.width,
                           (gint) r.input.height };
}

/* The method a region runs.  auto without a usable GPU, or while CUDA
 * starts, is the CPU path, on this thread's own context; worth a word
 * after a GPU failure, not where the machine simply has no GPU.  A GPU
 * method asked for takes the CPU too while the driver compiles the
 * kernels, which GIMP must not wait for. */
static CcMethod
region_method (const gchar *who, CcMethod method, OpState *state)
{
  char why[256];

  if (method == CC_METHOD_AUTO && !op_engine_takes_gpu (method, op_state_taps (state)))
    {
      if (cc_context_gpu_started (op_engine ()) &&
          cc_context_gpu_status (op_engine (), why, sizeof why) == CC_ERROR_GPU)
        {
          char note[512];

          cc_fallback_note (CC_FALLBACK_NO_GPU, why, note, sizeof note);
          warn_once (who, note);
        }
      return CC_METHOD_CPU;
    }
  if (method != CC_METHOD_AUTO && method != CC_METHOD_CPU &&
      cc_context_gpu_status (op_engine (), why, sizeof why) == CC_OK &&
      cc_context_gpu_compiling (op_engine ()))
    {
      gchar *note = g_strdup_printf ("the driver is compiling the GPU kernels for this GPU "
                                     "model, once; the CPU path runs instead of %s meanwhile",
                                     cc_method_name (method));

      warn_once (who, note);
      g_free (note);
      return CC_METHOD_CPU;
    }
  return method;
}

/* What one engine call reads and writes, and how. */
typedef struct
{
  const gchar              *who;         /* the operation's family, for its words */
  CcImage                   src;         /* the input fetched, the halo with it */
  CcImage                   dst;
  int64_t                   x;           /* the region's place in src */
  int64_t                   y;
  CcMask                    mask;
  CcOptions                 options;
  const CcDeconvolveParams *deconvolve;  /* NULL: a convolution */
} Call;

/* The call on 'ctx': a convolution of the region, or a deconvolution of
 * the whole source. */
static CcStatus
engine_call (CcContext *ctx, const Call *call, CcResult *result)
{
  if (call->deconvolve)
    return cc_deconvolve (ctx, &call->src, &call->dst, &call->mask, &call->options,
                          call->deconvolve, result);
  return cc_convolve (ctx, &call->src, call->x, call->y, &call->dst, &call->mask,
                      &call->options, result);
}

/* The engine call, and where a GPU method could not run or failed, the
 * CPU path in its place, with one word.  'shared' is set where the CPU
 * path ran on this thread's own context, a GEGL thread's share. */
static CcStatus
call_engine (Call *call, gboolean whole, gboolean *shared, CcResult *result)
{
  CcStatus status;

  *shared = call->options.method == CC_METHOD_CPU && !whole;
  status = engine_call (*shared ? op_engine_cpu () : op_engine (), call, result);
  if (status != CC_OK && call->options.method != CC_METHOD_CPU &&
      status != CC_ERROR_INVALID && status != CC_ERROR_CANCELLED)
    {
      gchar *note = g_strdup_printf ("%s failed (%s); the CPU path ran instead",
                                     cc_method_name (call->options.method), result->message);

      warn_once (call->who, note);
      g_free (note);
      call->options.method = CC_METHOD_CPU;
      *shared = !whole;
      status = engine_call (*shared ? op_engine_cpu () : op_engine (), call, result);
    }
  else if (status == CC_OK && result->message[0])
    warn_once (call->who, result->message);   /* auto left the GPU for the CPU, and why */
  return status;
}

/* A region computed, with its times (microseconds): its fetch, the engine
 * call and its store. */
static void
trace_region (const Call *call, const GeglRectangle *roi, gboolean whole, CcStatus status,
              const CcResult *result, gint64 fetch, gint64 engine, gint64 store)
{
  g_printerr ("%s: %dx%d at %d,%d%s, %s: fetch %.1f ms, engine %.1f ms "
              "(upload %.1f, kernel %.1f, download %.1f), store %.1f ms\n",
              call->who, roi->width, roi->height, roi->x, roi->y,
              call->deconvolve ? " (the whole input)" : whole ? " (a GPU block)" : "",
              status == CC_OK ? cc_method_name (result->method_used) : "failed",
              fetch / 1000.0, engine / 1000.0, result->upload_ms, result->kernel_ms,
              result->download_ms, store / 1000.0);
}

/* What a region reads and writes: its buffers, the rectangle fetched with
 * its halo, the region itself, and the working format. */
typedef struct
{
  GeglBuffer          *input;
  GeglBuffer          *output;
  GeglRectangle        fetch;
  const GeglRectangle *roi;
  const Babl          *format;
  gboolean             whole;    /* a GPU block, or the whole input, in one call */
} Region;

/* The call on the region: the fetch copied in ('abyss': GEGL's loop for
 * wrap's halo), the engine run, and the result stored with its report; or
 * where the call failed, the input passed through with a word. */
static void
region_run (Call *call, const Region *r, const Buffers *b, CcType type, GeglAbyssPolicy abyss,
            gpointer *state)
{
  const gint channels = babl_format_get_n_components (r->format);
  const gsize bpp = babl_format_get_bytes_per_pixel (r->format);
  CcResult result;
  CcStatus status;
  gboolean shared;
  gint64 t0, t1, t2;

  t0 = g_get_monotonic_time ();
  copy_pixels (r->input, &r->fetch, r->format, b->in, abyss, FALSE, r->whole);
  t1 = g_get_monotonic_time ();

  call->src = (CcImage) { b->in, type, channels, r->fetch.width, r->fetch.height,
                          (int64_t) (r->fetch.width * bpp), false };
  call->dst = (CcImage) { b->out, type, channels, r->roi->width, r->roi->height,
                          (int64_t) (r->roi->width * bpp), false };
  call->x = r->roi->x - r->fetch.x;
  call->y = r->roi->y - r->fetch.y;
  call->options.method = region_method (call->who, call->options.method, *state);
  status = call_engine (call, r->whole, &shared, &result);

  t2 = g_get_monotonic_time ();
  if (status == CC_OK)
    {
      copy_pixels (r->output, r->roi, r->format, b->out, GEGL_ABYSS_NONE, TRUE, r->whole);
      if (shared)
        op_engine_name_cpu_share (&result);
      op_report_add (((OpState *) *state)->report, &result,
                     (gint64) r->roi->width * r->roi->height);
    }
  else
    {
      gchar *note = g_strdup_printf ("%s; the input is passed through unchanged",
                                     result.message);

      warn_once (call->who, note);
      g_free (note);
      pass_through (r->input, r->output, r->roi);
    }
  if (tracing ())
    trace_region (call, r->roi, r->whole, status, &result, t1 - t0, t2 - t1,
                  g_get_monotonic_time () - t2);
}

/* The region 'roi' convolved with the mask 's', which the caller holds; or
 * with 'deconvolve', 'roi' the whole input, restored. */
static gboolean
compute_with (GeglOperation            *operation,
              const OpSettings         *s,
              gpointer                 *state,
              const OpRegionProperties *p,
              const CcDeconvolveParams *deconvolve,
              GeglBuffer               *input,
              GeglBuffer               *output,
              const GeglRectangle      *roi,
              gboolean                  whole)
{
  const GeglRectangle *bounds = gegl_operation_source_get_bounding_box (operation, "input");
  Region r = { input, output, *roi, roi, gegl_operation_get_format (operation, "output"),
               whole };
  const gsize bpp = babl_format_get_bytes_per_pixel (r.format);
  Call call = { .who = deconvolve ? "cuda:deconvolve" : "cuda:convolve",
                .deconvolve = deconvolve };
  Buffers buffers;
  CcType type;

  if (!s || !s->valid)
    {
      warn_once (call.who, s ? s->message : "no mask yet; the input is passed through "
                                            "unchanged");
      pass_through (input, output, roi);
      return TRUE;
    }
  if (!bounds || roi->width <= 0 || roi->height <= 0)
    return TRUE;
  /* babl names sample types as the engine does. */
  if (!cc_type_from_name (babl_get_name (babl_format_get_type (r.format, 0)), &type))
    {
      warn_once (call.who, "an unknown working format; the input is passed through");
      pass_through (input, output, roi);
      return TRUE;
    }
  region_options (&call.options, p, r.format,
                  gegl_operation_get_source_format (operation, "input"));
  /* A deconvolution reads the whole input, and the engine applies the
   * border itself. */
  if (!deconvolve)
    r.fetch = region_fetch (s, roi, bounds, &call.options);
  /* A deconvolution up to a GPU block's size takes the blocks' page-locked
   * buffers too: its one copy each way runs at full speed, and into memory
   * already mapped, where a fresh buffer's pages would fault in during it. */
  if (!buffers_get (&buffers, (gsize) r.fetch.width * r.fetch.height * bpp,
                    (gsize) roi->width * roi->height * bpp,
                    whole && (!deconvolve ||
                              (gint64) roi->width * roi->height <= block_pixels ())))
    {
      warn_once (call.who, "out of memory for a region; the input is passed through");
      buffers_release (&buffers);
      pass_through (input, output, roi);
      return TRUE;
    }
  call.mask = (CcMask) { s->width, s->height, s->values, s->divisor, s->offset };
  region_run (&call, &r, &buffers, type,
              p->border == CC_BORDER_WRAP && !deconvolve ? GEGL_ABYSS_LOOP : GEGL_ABYSS_NONE,
              state);
  buffers_release (&buffers);
  return TRUE;
}

gboolean
op_region_convolve (GeglOperation            *operation,
                    gpointer                 *state,
                    const OpRegionProperties *properties,
                    GeglBuffer               *input,
                    GeglBuffer               *output,
                    const GeglRectangle      *roi,
                    gboolean                  whole)
{
  OpSettings *s = op_state_settings (*state);
  gboolean ok = compute_with (operation, s, state, properties, NULL, input, output, roi,
                              whole);

  op_settings_unref (s);
  return ok;
}

gboolean
op_region_deconvolve (GeglOperation            *operation,
                      GeglOperationContext     *context,
                      const GeglRectangle      *result,
                      gpointer                 *state,
                      const OpRegionProperties *properties,
                      const CcDeconvolveParams *params)
{
  const GeglRectangle whole = op_region_input_box (operation);
  GeglBuffer *input = (GeglBuffer *) gegl_operation_context_dup_object (context, "input");
  GeglBuffer *output = gegl_operation_context_get_output_maybe_in_place (operation, context,
                                                                         input, result);
  OpSettings *s = op_state_settings (*state);
  gboolean ok = input && compute_with (operation, s, state, properties, params, input,
                                       output, &whole, TRUE);

  op_settings_unref (s);
  g_clear_object (&input);
  return ok;
}
