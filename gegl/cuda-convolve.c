/* cuda:convolve, the engine as a GEGL operation: GIMP runs it inside its
 * own process, so it previews on the canvas, stays on a layer as an
 * editable effect and moves no pixel across a process boundary; the `gegl`
 * tool runs it on any file GEGL reads.  An area filter: GEGL asks for an
 * output rectangle, possibly from several threads at once, and hands over
 * the input with the mask's halo.
 *
 * On 8- and 16-bit perceptual input with results clamped it reads and
 * writes the input's own codes, and the engine works in linear light
 * through transfer tables, as the procedure's own pixel path does: GEGL
 * converts nothing.  Otherwise it works in "RGBA float" (linear light) or
 * "R'G'B'A float" (perceptual, linear FALSE) in the input's colour space,
 * as GIMP's Convolution Matrix does.  Results equal the procedure's.
 *
 * On the GPU it computes whole blocks of the input (the whole layer up to
 * 64 megapixels, bands of a larger one) in one engine call each, and GEGL's
 * cache serves the regions GIMP asks for from them: GIMP applies a filter in
 * chunks, the first one tile, and a large mask's halo and transforms would
 * otherwise be paid again for every chunk.  On the CPU each region is one
 * engine call, per GEGL thread: measured faster than a whole block there,
 * and a preview computes no more than its view.  CUDA starts on a helper
 * thread when the operation is first prepared; until it is ready, masks the
 * CPU takes quickly run there, so the first preview is not held up.
 *
 * Nothing here may crash or hang GIMP: a property the procedure would
 * refuse passes the input through with a warning, and a GPU that fails
 * leaves the call to the CPU path.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <string.h>

/* gegl-op.h marks the properties' names for translation; none is made. */
#define GETTEXT_PACKAGE PACKAGE
#include <glib/gi18n-lib.h>
#include <gegl.h>

#ifdef GEGL_PROPERTIES

/* The border and method choices are the engine's own tables (names.c,
 * methods.c), so that the three front ends cannot drift apart: GEGL's
 * enum types are made from them once, instead of gegl-op.h's enum lists.
 * This block is read once of the several times gegl-op.h includes this
 * file. */
#ifndef CUDA_CONVOLVE_ENUMS
#define CUDA_CONVOLVE_ENUMS
#include "convolve.h"

#include "preset.h"

typedef gint     CudaConvolvePreset;
typedef CcBorder CudaConvolveBorder;
typedef CcMethod CudaConvolveMethod;
typedef CcShape  CudaConvolveShape;

/* The presets as a choice, found by the one rule (the shipped ones, then
 * the user's) when GEGL first lists the operation: GIMP's dialog shows
 * them as a list, nothing is typed.  0 is "none", the matrix. */
static GType
cuda_convolve_preset_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      gchar *shipped, *user;
      GList *presets;
      GEnumValue *values;
      gint n = 1;

      cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
      presets = cc_presets_list (shipped, user, NULL);
      values = g_new0 (GEnumValue, g_list_length (presets) + 2);
      values[0] = (GEnumValue) { 0, "None: the matrix", "none" };
      for (GList *l = presets; l; l = l->next, n++)
        {
          const CcPreset *p = l->data;

          values[n] = (GEnumValue) { n, g_strdup (p->name), g_strdup (p->id) };
        }
      cc_presets_free (presets);
      g_free (shipped);
      g_free (user);
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolvePreset", values));
    }
  return type;
}

static GType
cuda_convolve_shape_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      GEnumValue *values = g_new0 (GEnumValue, CC_SHAPE_COUNT + 1);

      for (gint s = 0; s < CC_SHAPE_COUNT; s++)
        values[s] = (GEnumValue) { s, cc_shape_name ((CcShape) s),
                                   cc_shape_name ((CcShape) s) };
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolveShape", values));
    }
  return type;
}

static GType
cuda_convolve_border_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      GEnumValue *values = g_new0 (GEnumValue, CC_BORDER_COUNT + 1);

      for (gint b = 0; b < CC_BORDER_COUNT; b++)
        values[b] = (GEnumValue) { b, cc_border_name ((CcBorder) b),
                                   cc_border_name ((CcBorder) b) };
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolveBorder", values));
    }
  return type;
}

static GType
cuda_convolve_method_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      GEnumValue *values = g_new0 (GEnumValue, CC_METHOD_COUNT + 1);

      for (gint m = 0; m < CC_METHOD_COUNT; m++)
        values[m] = (GEnumValue) { m, cc_methods[m].name, cc_methods[m].name };
      g_once_init_leave (&type, g_enum_register_static ("CudaConvolveMethod", values));
    }
  return type;
}
#endif

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
               CC_BORDER_EXTEND)
  description ("What lies beyond the image's edges")

property_enum (method, "Method", CudaConvolveMethod, cuda_convolve_method,
               CC_METHOD_AUTO)
  description ("How to compute it: auto takes the fastest, the CPU where no GPU "
               "is usable")

property_boolean (clamp, "Clamp", TRUE)
  description ("Clamp results to [0,1]; off keeps HDR values")

property_boolean (alpha_weighting, "Alpha weighting", TRUE)
  description ("Weight colour by alpha, so that transparent pixels' colour does not "
               "bleed")

property_boolean (affect_alpha, "Affect alpha", TRUE)
  description ("Convolve the alpha channel too; off copies it")

property_boolean (linear, "Linear light", TRUE)
  description ("Work on linear RGB, as GIMP's Convolution Matrix does; off works on "
               "the perceptual values (GIMP 2's convmatrix)")

property_boolean (red, "Red", TRUE)
  description ("Convolve the red channel; off keeps it")

property_boolean (green, "Green", TRUE)
  description ("Convolve the green channel; off keeps it")

property_boolean (blue, "Blue", TRUE)
  description ("Convolve the blue channel; off keeps it")

property_string (report, "Report", "")
  description ("A file the operation writes what ran to (methods, devices, engine time), "
               "for plug-in-cuda-convolve; empty: none")
  ui_meta ("visible", "0")

#else

#define GEGL_OP_AREA_FILTER
#define GEGL_OP_NAME     cuda_convolve
#define GEGL_OP_C_SOURCE cuda-convolve.c
/* The module registers cuda:convolve-layer too (at the end). */
#define GEGL_OP_BUNDLE

#include "gegl-op.h"

#include "convolve.h"
#include "engine-format.h"
#include "op-report.h"
#include "op-settings.h"

/* The most pixels the GPU computes in one block: a layer up to this size
 * is one block, a larger one bands of its full width
 * (CUDA_CONVOLVE_GPU_BLOCK, pixels, changes it, for the tests).  A chunk
 * GIMP asks for across two bands has both computed. */
#define GPU_BLOCK_PIXELS ((gint64) 64 << 20)

/* Masks of up to this many taps run on the CPU while the GPU starts (a
 * 9x9 takes the CPU about as long as CUDA takes to start); larger ones
 * wait for it. */
#define CPU_WHILE_STARTING_TAPS 81

/* What prepare resolves, for the regions to come, and the properties it
 * resolved them from: GEGL prepares an operation again for each chunk GIMP
 * renders (seven times a merge), and a 127x127 mask's text takes over a
 * millisecond to parse. */
typedef struct
{
  OpSettings *mask;
  gboolean    aux_on;   /* an image on the aux input makes the mask */
  OpSettings *aux;      /* its mask, made when a region is processed */
  gint        aux_taps; /* its size, known at prepare; 0: none it can make */
  CcShapeSpec shape;
  gchar      *preset;
  gchar      *matrix;
  gdouble     divisor;
  gdouble     offset;
  gboolean    normalize;
  OpReport   *report;
  gchar      *report_path;
} State;

/* One engine for the process: its GPU starts once, and it serialises the
 * calls of GEGL's threads (the engine runs each on all cores or the GPU). */
static CcContext *
engine (void)
{
  static gsize once = 0;
  static CcContext *ctx = NULL;

  if (g_once_init_enter (&once))
    {
      ctx = cc_context_new ();
      g_once_init_leave (&once, 1);
    }
  return ctx;
}

/* GEGL's threads, and the cores each one's CPU context takes. */
static void
cpu_share (gint *gegl_threads, gint *each)
{
  gint threads = 1;

  g_object_get (gegl_config (), "threads", &threads, NULL);
  *gegl_threads = MAX (1, threads);
  *each = MAX (1, (gint) g_get_num_processors () / *gegl_threads);
}

/* The CPU path's engine for the calling thread.  GEGL splits a region
 * among its threads and waits for all of them, so one shared context
 * (which serialises calls) would leave cores idle: each of GEGL's threads
 * has a CPU-only context of its own, the cores shared out among them. */
static CcContext *
cpu_engine (void)
{
  static GPrivate own = G_PRIVATE_INIT ((GDestroyNotify) cc_context_free);
  CcContext *ctx = g_private_get (&own);

  if (!ctx)
    {
      gint threads, each;

      cpu_share (&threads, &each);
      ctx = cc_context_new_cpu (each);
      g_private_set (&own, ctx);
    }
  return ctx;
}

/* What a region on the CPU contexts ran on, all of GEGL's threads
 * together: a context's own name counts only its share. */
static void
name_cpu_share (CcResult *result)
{
  gint threads, each;

  cpu_share (&threads, &each);
  g_snprintf (result->device, sizeof result->device, "CPU (%d thread%s)",
              threads * each, threads * each == 1 ? "" : "s");
}

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
 * not flood GIMP's error console. */
static void
warn_once (const gchar *text)
{
  static GMutex lock;
  static GHashTable *said = NULL;
  gboolean fresh;

  g_mutex_lock (&lock);
  if (!said)
    said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fresh = g_hash_table_add (said, g_strdup (text));
  g_mutex_unlock (&lock);
  if (fresh)
    g_warning ("cuda:convolve: %s", text);
}

/* The settings a region runs with, held until op_settings_unref: the aux
 * input's mask may be replaced meanwhile by another region's. */
static GMutex settings_lock;

static OpSettings *
settings_acquire (GeglProperties *o)
{
  State *state = o->user_data;
  OpSettings *s;

  g_mutex_lock (&settings_lock);
  s = op_settings_ref (!state ? NULL : state->aux_on ? state->aux : state->mask);
  g_mutex_unlock (&settings_lock);
  return s;
}

static void
state_free (State *state)
{
  if (!state)
    return;
  op_settings_unref (state->mask);
  op_settings_unref (state->aux);
  g_free (state->preset);
  g_free (state->matrix);
  op_report_free (state->report);
  g_free (state->report_path);
  g_free (state);
}

/* The state for the current properties: the last one where they have not
 * changed, else a new one. */
static State *
state_for (GeglProperties *o)
{
  State *old = o->user_data, *state;
  const CcShapeSpec shape = { o->shape, o->radius, o->angle, o->blades, o->inner };
  GEnumClass *presets = g_type_class_ref (cuda_convolve_preset_get_type ());
  const GEnumValue *chosen = o->preset ? g_enum_get_value (presets, o->preset) : NULL;
  const gchar *preset = chosen ? chosen->value_nick : "";

  g_type_class_unref (presets);
  if (old && g_strcmp0 (old->preset, preset) == 0 &&
      g_strcmp0 (old->matrix, o->matrix) == 0 && old->divisor == o->divisor &&
      old->offset == o->offset && old->normalize == o->normalize &&
      old->shape.shape == shape.shape && old->shape.radius == shape.radius &&
      old->shape.angle == shape.angle && old->shape.blades == shape.blades &&
      old->shape.inner == shape.inner &&
      g_strcmp0 (old->report_path, o->report) == 0)
    return old;
  state = g_new0 (State, 1);
  /* A change of divisor, offset, normalize or report alone keeps the
   * parsed matrix: a script sets properties one at a time, and GIMP
   * prepares the operation again after each. */
  state->mask = op_settings_new (&shape, preset, o->matrix, o->divisor, o->offset,
                                 o->normalize,
                                 old && !*preset &&
                                 old->shape.shape == CC_SHAPE_MATRIX &&
                                 g_strcmp0 (old->matrix, o->matrix) == 0 ? old->mask : NULL);
  state->shape = shape;
  state->preset = g_strdup (preset);
  state->matrix = g_strdup (o->matrix);
  state->divisor = o->divisor;
  state->offset = o->offset;
  state->normalize = o->normalize;
  state->report = op_report_new (o->report);
  state->report_path = g_strdup (o->report);
  if (old)
    {
      g_mutex_lock (&settings_lock);
      state->aux = g_steal_pointer (&old->aux);
      g_mutex_unlock (&settings_lock);
    }
  state_free (old);
  return o->user_data = state;
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

/* The format the engine reads and writes.  Where the input is 8- or 16-bit
 * perceptual codes and results are clamped, the input's own codes: the
 * engine reads linear light through the transfer tables and rounds as the
 * procedure's pixel path does, and GEGL converts nothing.  Otherwise RGBA
 * float in the input's space, which keeps values outside [0,1] for what
 * follows the operation. */
static const Babl *
work_format (GeglOperation *operation, GeglProperties *o)
{
  const Babl *source = gegl_operation_get_source_format (operation, "input");
  const Babl *space = gegl_operation_get_source_space (operation, "input");

  if (source && o->clamp && engine_format_coded (source) &&
      (!o->linear || transfer_for (source)))
    return engine_format (source, o->linear);
  return engine_format_float (babl_format_with_space ("RGBA float", space), o->linear, TRUE);
}

/* The aux image as its weights are read: luminance in linear light and
 * alpha, in its own space. */
static const Babl *
aux_format (GeglOperation *operation)
{
  return babl_format_with_space ("YA float",
                                 gegl_operation_get_source_space (operation, "aux"));
}

static void
prepare (GeglOperation *operation)
{
  GeglOperationAreaFilter *area = GEGL_OPERATION_AREA_FILTER (operation);
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const Babl *format = work_format (operation, o);
  State *state;
  gint w = 0, h = 0;
  char why[8];

  /* CUDA starts now, on the engine's helper thread. */
  engine ();
  state = state_for (o);
  state->aux_on = gegl_node_has_pad (operation->node, "aux") &&
                  gegl_operation_get_source_node (operation, "aux") != NULL;
  if (state->aux_on)
    {
      const GeglRectangle *aux = gegl_operation_source_get_bounding_box (operation, "aux");

      /* The mask's size is the image's, known before its pixels. */
      if (aux && cc_mask_image_size_check (aux->width, aux->height, why, sizeof why))
        {
          w = aux->width | 1;
          h = aux->height | 1;
        }
      state->aux_taps = w * h;
      gegl_operation_set_format (operation, "aux", aux_format (operation));
    }
  else if (state->mask->valid)
    {
      w = state->mask->width;
      h = state->mask->height;
    }
  area->left = area->right = w ? (w - 1) / 2 : 0;
  area->top = area->bottom = h ? (h - 1) / 2 : 0;
  gegl_operation_set_format (operation, "input", format);
  gegl_operation_set_format (operation, "output", format);
}

/* Whether this operation's regions run on the GPU: where a GPU is usable,
 * with an explicit GPU method (which waits for CUDA to start) or auto,
 * except while CUDA still starts for masks the CPU takes quickly, and
 * while the driver compiles the kernels for a GPU newer than the build
 * (seconds, once per GPU model), which GIMP must not wait for, whatever
 * the method. */
static gboolean
takes_gpu (GeglProperties *o)
{
  const State *state = o->user_data;
  OpSettings *s = settings_acquire (o);
  /* Before the first region reads the aux image, its size stands for its
   * mask, so that the first region asks for the whole block too. */
  const gint taps = s ? (s->valid ? s->width * s->height : 0)
                      : state && state->aux_on ? state->aux_taps : 0;
  gboolean gpu;
  char why[8];

  if (!taps || o->method == CC_METHOD_CPU)
    gpu = FALSE;
  else if (o->method == CC_METHOD_AUTO && !cc_context_gpu_started (engine ()) &&
           taps <= CPU_WHILE_STARTING_TAPS)
    gpu = FALSE;
  else
    gpu = cc_context_gpu_status (engine (), why, sizeof why) == CC_OK &&
          !cc_context_gpu_compiling (engine ());
  op_settings_unref (s);
  return gpu;
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

/* The GPU computes a whole block, the layer or the bands of it that the
 * region touches; GEGL keeps it in the node's cache for the regions that
 * follow.  The CPU computes the region asked for. */
static GeglRectangle
get_cached_region (GeglOperation *operation, const GeglRectangle *roi)
{
  const GeglRectangle *in = gegl_operation_source_get_bounding_box (operation, "input");
  GeglRectangle block;
  gint rows;

  if (!in || !takes_gpu (GEGL_PROPERTIES (operation)))
    return *roi;
  block = *in;
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

/* The output covers the input, not the input grown by the halo. */
static GeglRectangle
get_bounding_box (GeglOperation *operation)
{
  const GeglRectangle *in = gegl_operation_source_get_bounding_box (operation, "input");

  return in ? *in : (GeglRectangle) { 0, 0, 0, 0 };
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
      cc_host_free (engine (), pinned[which]);
      pinned[which] = cc_host_alloc (engine (), bytes);
      pinned_bytes[which] = pinned[which] ? bytes : 0;
    }
  return pinned[which];
}

/* One engine call for the region 'roi': a whole GPU block in one call
 * ('whole'), or a GEGL thread's share of a region, whose CPU path runs on
 * that thread's own context. */
static gboolean
convolve_with (GeglOperation       *operation,
               const OpSettings    *s,
               GeglBuffer          *input,
               GeglBuffer          *output,
               const GeglRectangle *roi,
               gboolean             whole)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const Babl *format = gegl_operation_get_format (operation, "output");
  const Babl *source = gegl_operation_get_source_format (operation, "input");
  const gint channels = babl_format_get_n_components (format);
  const gsize bpp = babl_format_get_bytes_per_pixel (format);
  const GeglRectangle *bounds = gegl_operation_source_get_bounding_box (operation, "input");
  const gint rx = s && s->valid ? (s->width - 1) / 2 : 0;
  const gint ry = s && s->valid ? (s->height - 1) / 2 : 0;
  GeglRectangle want = { roi->x - rx, roi->y - ry, roi->width + 2 * rx,
                         roi->height + 2 * ry };
  GeglRectangle fetch;
  CcOptions options;
  CcMask mask;
  CcImage src, dst;
  CcResult result;
  CcStatus status;
  CcType type;
  guchar *in_pixels, *out_pixels;
  gboolean shared;
  gint64 t0, t1, t2;
  char why[256];

  if (!s || !s->valid)
    {
      warn_once (s ? s->message : "no mask yet; the input is passed through unchanged");
      pass_through (input, output, roi);
      return TRUE;
    }
  if (!bounds || roi->width <= 0 || roi->height <= 0)
    return TRUE;
  /* babl names sample types as the engine does. */
  if (!cc_type_from_name (babl_get_name (babl_format_get_type (format, 0)), &type))
    {
      warn_once ("an unknown working format; the input is passed through");
      pass_through (input, output, roi);
      return TRUE;
    }

  cc_options_init (&options);
  options.method = o->method;
  options.border = o->border;
  options.clamp = o->clamp;
  /* RGBA float has alpha where the input has none: 1 throughout, and it
   * stays so. */
  options.has_alpha = babl_format_has_alpha (format);
  options.alpha_weighting = o->alpha_weighting && source && babl_format_has_alpha (source);
  options.affect_alpha = o->affect_alpha && source && babl_format_has_alpha (source);
  /* A gray source arrives as three equal colour channels. */
  cc_options_keep_colour (&options,
                          source && babl_format_get_n_components (source) -
                                    babl_format_has_alpha (source) < 3,
                          o->red, o->green, o->blue);
  options.transfer = o->linear && engine_format_coded (format) ? transfer_for (format) : NULL;

  /* Wrap needs the far side of the image: GEGL's loop abyss gives the whole
   * halo.  The other borders are the engine's own, at the input's edges:
   * only the part of the halo inside the input is read. */
  if (options.border == CC_BORDER_WRAP)
    {
      fetch = want;
      options.border = CC_BORDER_ZERO;   /* never reached: the halo is all there */
    }
  else if (!gegl_rectangle_intersect (&fetch, &want, bounds))
    fetch = *roi;

  if (whole)
    {
      g_mutex_lock (&pinned_lock);
      in_pixels = pinned_buffer (0, (gsize) fetch.width * fetch.height * bpp);
      out_pixels = pinned_buffer (1, (gsize) roi->width * roi->height * bpp);
    }
  else
    {
      in_pixels = g_try_malloc ((gsize) fetch.width * fetch.height * bpp);
      out_pixels = g_try_malloc ((gsize) roi->width * roi->height * bpp);
    }
  if (!in_pixels || !out_pixels)
    {
      warn_once ("out of memory for a region; the input is passed through");
      if (whole)
        g_mutex_unlock (&pinned_lock);
      else
        {
          g_free (in_pixels);
          g_free (out_pixels);
        }
      pass_through (input, output, roi);
      return TRUE;
    }
  t0 = g_get_monotonic_time ();
  copy_pixels (input, &fetch, format, in_pixels,
               o->border == CC_BORDER_WRAP ? GEGL_ABYSS_LOOP : GEGL_ABYSS_NONE,
               FALSE, whole);
  t1 = g_get_monotonic_time ();

  src = (CcImage) { in_pixels, type, channels, fetch.width, fetch.height,
                    (int64_t) (fetch.width * bpp), false };
  dst = (CcImage) { out_pixels, type, channels, roi->width, roi->height,
                    (int64_t) (roi->width * bpp), false };
  mask = (CcMask) { s->width, s->height, s->values, s->divisor, s->offset };

  /* auto without a usable GPU, or while CUDA starts, is the CPU path, on
   * this thread's own context; worth a word after a GPU failure, not where
   * the machine simply has no GPU. */
  if (options.method == CC_METHOD_AUTO && !takes_gpu (o))
    {
      if (cc_context_gpu_started (engine ()) &&
          cc_context_gpu_status (engine (), why, sizeof why) == CC_ERROR_GPU)
        {
          gchar *note = g_strdup_printf ("no GPU used: %s", why);

          warn_once (note);
          g_free (note);
        }
      options.method = CC_METHOD_CPU;
    }
  else if (options.method != CC_METHOD_AUTO && options.method != CC_METHOD_CPU &&
           cc_context_gpu_status (engine (), why, sizeof why) == CC_OK &&
           cc_context_gpu_compiling (engine ()))
    {
      gchar *note = g_strdup_printf ("the driver is compiling the GPU kernels for this GPU "
                                     "model, once; the CPU path runs instead of %s meanwhile",
                                     cc_method_name (options.method));

      warn_once (note);
      g_free (note);
      options.method = CC_METHOD_CPU;
    }
  shared = options.method == CC_METHOD_CPU && !whole;
  status = cc_convolve (shared ? cpu_engine () : engine (), &src, roi->x - fetch.x,
                        roi->y - fetch.y, &dst, &mask, &options, &result);
  if (status != CC_OK && options.method != CC_METHOD_CPU &&
      status != CC_ERROR_INVALID && status != CC_ERROR_CANCELLED)
    {
      /* A GPU method that could not run or failed: the CPU, with one word. */
      gchar *note = g_strdup_printf ("%s failed (%s); the CPU path ran instead",
                                     cc_method_name (options.method), result.message);

      warn_once (note);
      g_free (note);
      options.method = CC_METHOD_CPU;
      shared = !whole;
      status = cc_convolve (shared ? cpu_engine () : engine (), &src, roi->x - fetch.x,
                            roi->y - fetch.y, &dst, &mask, &options, &result);
    }
  else if (status == CC_OK && result.message[0])
    warn_once (result.message);   /* auto left the GPU for the CPU, and why */

  t2 = g_get_monotonic_time ();
  if (status == CC_OK)
    {
      copy_pixels (output, roi, format, out_pixels, GEGL_ABYSS_NONE, TRUE, whole);
      if (shared)
        name_cpu_share (&result);
      op_report_add (((State *) o->user_data)->report, &result,
                     (gint64) roi->width * roi->height);
    }
  else
    {
      warn_once (result.message);
      pass_through (input, output, roi);
    }
  if (tracing ())
    g_printerr ("cuda:convolve: %dx%d at %d,%d%s, %s: fetch %.1f ms, engine %.1f ms "
                "(upload %.1f, kernel %.1f, download %.1f), store %.1f ms\n",
                roi->width, roi->height, roi->x, roi->y, whole ? " (a GPU block)" : "",
                status == CC_OK ? cc_method_name (result.method_used) : "failed",
                (t1 - t0) / 1000.0, (t2 - t1) / 1000.0, result.upload_ms, result.kernel_ms,
                result.download_ms, (g_get_monotonic_time () - t2) / 1000.0);
  if (whole)
    g_mutex_unlock (&pinned_lock);
  else
    {
      g_free (in_pixels);
      g_free (out_pixels);
    }
  return TRUE;
}

static gboolean
convolve_region (GeglOperation       *operation,
                 GeglBuffer          *input,
                 GeglBuffer          *output,
                 const GeglRectangle *roi,
                 gboolean             whole)
{
  OpSettings *s = settings_acquire (GEGL_PROPERTIES (operation));
  gboolean ok = convolve_with (operation, s, input, output, roi, whole);

  op_settings_unref (s);
  return ok;
}

static gboolean
process (GeglOperation       *operation,
         GeglBuffer          *input,
         GeglBuffer          *output,
         const GeglRectangle *roi,
         gint                 level)
{
  return convolve_region (operation, input, output, roi, FALSE);
}

/* GEGL's filters split a region among its threads; the GPU takes it in one
 * call instead (the engine serialises GPU calls, and each piece would pay
 * its halo and transforms again).  The CPU path keeps GEGL's threads. */
static gboolean (*filter_operation_process) (GeglOperation *, GeglOperationContext *,
                                             const gchar *, const GeglRectangle *, gint);

/* The aux input's image made the mask, where one is connected: read whole
 * for each region (a painted mask layer changes in place), the settings
 * kept where its weights are the same. */
static void
update_aux (GeglOperation *operation, GeglOperationContext *context)
{
  State *state = GEGL_PROPERTIES (operation)->user_data;
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
  g_mutex_lock (&settings_lock);
  if (op_settings_equal (state->aux, fresh))
    op_settings_unref (fresh);
  else
    {
      op_settings_unref (state->aux);
      state->aux = fresh;
    }
  g_mutex_unlock (&settings_lock);
}

static gboolean
operation_process (GeglOperation        *operation,
                   GeglOperationContext *context,
                   const gchar          *output_pad,
                   const GeglRectangle  *result,
                   gint                  level)
{
  GeglBuffer *input, *output;
  gboolean ok;

  update_aux (operation, context);
  if (strcmp (output_pad, "output") != 0 || !takes_gpu (GEGL_PROPERTIES (operation)))
    return filter_operation_process (operation, context, output_pad, result, level);
  input = (GeglBuffer *) gegl_operation_context_dup_object (context, "input");
  output = gegl_operation_context_get_output_maybe_in_place (operation, context, input, result);
  ok = convolve_region (operation, input, output, result, TRUE);
  g_clear_object (&input);
  return ok;
}

/* cuda:convolve-layer's aux pad, beside the area filter's input and
 * output: an image whose luminance makes the mask (GIMP shows a drawable
 * chooser for it). */
static void
attach_with_aux (GeglOperation *operation)
{
  GParamSpec *pspec;

  GEGL_OPERATION_CLASS (gegl_op_parent_class)->attach (operation);
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
    return GEGL_OPERATION_CLASS (gegl_op_parent_class)->get_required_for_output (operation,
                                                                                 input_pad,
                                                                                 roi);
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
    return get_bounding_box (operation);
  return GEGL_OPERATION_CLASS (gegl_op_parent_class)->get_invalidated_by_change (operation,
                                                                                   input_pad,
                                                                                   roi);
}

static void
finalize (GObject *object)
{
  GeglProperties *o = GEGL_PROPERTIES (object);

  state_free (o->user_data);
  o->user_data = NULL;
  G_OBJECT_CLASS (gegl_op_parent_class)->finalize (object);
}

static void
gegl_op_class_init (GeglOpClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GeglOperationClass *operation_class = GEGL_OPERATION_CLASS (klass);
  GeglOperationFilterClass *filter_class = GEGL_OPERATION_FILTER_CLASS (klass);

  object_class->finalize = finalize;
  operation_class->prepare = prepare;
  operation_class->get_bounding_box = get_bounding_box;
  operation_class->get_required_for_output = get_required_for_output;
  operation_class->get_invalidated_by_change = get_invalidated_by_change;
  operation_class->get_cached_region = get_cached_region;
  filter_operation_process = operation_class->process;
  operation_class->process = operation_process;
  filter_class->process = process;

  gegl_operation_class_set_keys (operation_class,
    "name",            "cuda:convolve",
    "title",           "Convolve (CUDA)",
    "categories",      "generic",
    "description",     "Convolves with a user's mask of up to 1023x1023 (a matrix, a "
                       "shape, or an image on the aux input) on an NVIDIA GPU, or on "
                       "all CPU cores where there is none; the same pixels as GIMP's "
                       "Convolution Matrix",
    "gimp:menu-path",  "<Image>/Filters/Generic",
    "gimp:menu-label", "Convolve on the GPU (live)...",
    NULL);
}

/* cuda:convolve-layer: cuda:convolve with the aux input.  GIMP 3.0 lets no
 * operation with an "aux" pad stay on a layer as a non-destructive effect
 * (it cannot save the drawable: drawable-cmds.c, gimpfiltertool.c), so
 * cuda:convolve, which stays, has none. */
static void
layer_class_init (gpointer klass, gpointer data)
{
  GeglOperationClass *operation_class = GEGL_OPERATION_CLASS (klass);

  operation_class->attach = attach_with_aux;
  gegl_operation_class_set_keys (operation_class,
    "name",            "cuda:convolve-layer",
    "title",           "Convolve with a layer (CUDA)",
    "categories",      "generic",
    "description",     "Convolves with an image on the aux input as the mask (its "
                       "luminance in linear light times alpha, scaled to sum 1, up to "
                       "1023x1023) on an NVIDIA GPU, or on all CPU cores where there "
                       "is none; without one, as cuda:convolve",
    "gimp:menu-path",  "<Image>/Filters/Generic",
    "gimp:menu-label", "Convolve with a layer on the GPU...",
    NULL);
}

G_MODULE_EXPORT const GeglModuleInfo *
gegl_module_query (GTypeModule *module)
{
  return &modinfo;
}

G_MODULE_EXPORT gboolean
gegl_module_register (GTypeModule *module)
{
  const GTypeInfo layer_info = {
    .class_size = sizeof (GeglOpClass), .class_init = layer_class_init,
    .instance_size = sizeof (GeglOp) };

  gegl_op_cuda_convolve_register_type (module);
  g_type_module_register_type (module, gegl_op_cuda_convolve_get_type (),
                               "gegl_op_cuda_convolve_layer", &layer_info, 0);
  return TRUE;
}

#endif
