/* cuda-convolve: convolve image files with a mask, on the GPU when one is
 * usable.  One file (IN OUT) or many (IN... -o DIR).  This file is the
 * options and the mask; job.c one file's work, pipeline.c the threads that
 * overlap files, outputs.c the temporary names.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convolve.h"
#include "files.h"
#include "imageio.h"
#include "job.h"
#include "outputs.h"
#include "pipeline.h"
#ifdef HAVE_GLIB
#include "preset.h"
#endif

static const char usage[] =
  "Usage: cuda-convolve [OPTION]... IN OUT\n"
  "  or:  cuda-convolve [OPTION]... IN... -o DIR\n"
  "Convolve image IN with a mask and write OUT, in the format OUT's name asks for;\n"
  "or each IN into DIR, under its own name and in its own format.\n"
  "\n"
  "  -o, --output-dir DIR  write each output into DIR (made if missing)\n"
  "  --preset ID           the mask, divisor and offset of a preset (see\n"
  "                        --list-presets); not with --matrix, --divisor, --offset\n"
  "                        or --normalize\n"
  "  --list-presets        print each preset's id, size and name\n"
  "  --matrix TEXT         the mask, rows separated by ';' (or new lines), values\n"
  "                        by ',' (default \"0,0,0;0,1,0;0,0,0\", the identity);\n"
  "                        @FILE reads that text from FILE, - from standard input\n"
  "  --divisor X           divide the weighted sum by X (default 1)\n"
  "  --offset X            then add X, in the 0..1 scale (default 0)\n"
  "  --normalize           divisor and offset from the mask's sum (GIMP's rule)\n"
  "  --shape NAME          the mask made from a shape, scaled to sum 1 (not with\n"
  "                        --preset, --matrix, --divisor, --offset, --normalize):\n"
  "                        gaussian (three standard deviations at the radius),\n"
  "                        disc, polygon, ring, box (2 x radius + 1 wide) or\n"
  "                        motion (a line 2 x radius + 1 long)\n"
  "  --radius R            its radius in pixels, 0.5 to 511 (default 5)\n"
  "  --angle DEG           polygon and motion: turned counter-clockwise (default 0:\n"
  "                        a corner at the top, a line across)\n"
  "  --blades N            polygon: 3 to 12 sides (default 6)\n"
  "  --inner F             ring: the hole's radius over the radius, 0 to 0.95\n"
  "                        (default 0.5)\n"
  "  --mask-image FILE     the mask made from an image (any format this tool\n"
  "                        reads): each pixel's luminance in linear light times\n"
  "                        its alpha, scaled to sum 1, up to 1023x1023 (an even\n"
  "                        side gains a zero column or row); not with --preset,\n"
  "                        --matrix, --shape, --divisor, --offset, --normalize\n"
  "  --print-matrix        print the mask's values in the text form --matrix takes\n"
  "                        and stop (the divisor and offset are not part of it)\n"
  "  --border MODE         zero, extend, wrap, mirror, black or white (default\n"
  "                        extend); GEGL's none, clamp and loop name zero, extend\n"
  "                        and wrap\n"
  "  --method NAME         one of the methods below (default auto)\n"
  "  --perceptual          convolve perceptual values, as the procedure's linear\n"
  "                        FALSE (GIMP 2's convmatrix); by default each file is\n"
  "                        convolved in linear light of its own colour space,\n"
  "                        as GIMP 3 does\n"
  "  --channels LIST       the channels to convolve, a subset of rgba (default\n"
  "                        rgba); the others keep their values; on gray images\n"
  "                        any of r, g, b means gray\n"
  "  --no-clamp            keep results outside [0,1] (float output only)\n"
  "  --no-alpha-weighting  convolve colour without weighting it by alpha\n"
  "  --keep-alpha          copy the alpha channel instead of convolving it (as\n"
  "                        leaving a out of --channels)\n"
  "  --deconvolve ALGO     undo a blur by the mask instead of convolving:\n"
  "                        richardson-lucy (iterative, for photographs and stars)\n"
  "                        or wiener (one step, for a known blur and low noise);\n"
  "                        the mask is scaled to sum 1, the border defaults to\n"
  "                        mirror, alpha is kept\n"
  "  --iterations N        richardson-lucy: 1 to 1000 (default 30)\n"
  "  --init START          richardson-lucy starts flat (0.5 everywhere, as\n"
  "                        scikit-image; the default) or from the image\n"
  "  --tv-weight X         richardson-lucy: total-variation weight against noise,\n"
  "                        0 (off, the default) to 0.1; 0.002 to 0.01 is typical\n"
  "  --noise X             wiener: the noise-to-signal balance, 0 or more (default\n"
  "                        0.01); larger is smoother\n"
  "  --verbose             print the method, the device and the times\n"
  "  --help                print this help\n"
  "  --version             print the version\n";

/* ---- Options ----------------------------------------------------------------- */

/* --mask-image: the file read as an input is, whole, its weights made the
 * mask by cc_mask_resolve.  Leaves GEGL started where the file needed it. */
static bool
mask_of_image (const char *path, CcMask *mask, double **values, char *error, size_t size)
{
  Job job = { .in = path, .raw_in = is_raw_file (path) };
  CcMaskSource source = { 0 };
  float *ya = NULL;
  bool ok;

  if (!job.raw_in && !files_init (error, size))
    return false;
  job_decode (&job);
  if (job.failed)
    {
      snprintf (error, size, "%s", job.error);
      return false;
    }
  ok = files_mask_pixels (&job.src, &ya, error, size);
  if (ok)
    {
      source.image = ya;
      source.image_width = job.src.image.width;
      source.image_height = job.src.image.height;
      ok = cc_mask_resolve (&source, mask, values, error, size);
    }
  free (ya);
  files_image_free (&job.src);
  return ok;
}

static int
die (int code, const char *format, ...)
{
  va_list args;

  fputs ("cuda-convolve: ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  return code;
}

/* --channels: which of r, g, b, a are convolved; false where LIST is not
 * a subset of rgba. */
static bool
parse_channels (const char *list, bool convolve[4])
{
  static const char names[] = "rgba";

  if (!*list)
    return false;
  memset (convolve, 0, 4 * sizeof (bool));
  for (const char *p = list; *p; p++)
    {
      const char *at = strchr (names, *p);

      if (!at || convolve[at - names])
        return false;
      convolve[at - names] = true;
    }
  return true;
}

/* --matrix @FILE or --matrix -: the text form from a file or standard
 * input (a large mask's text is longer than an argument may be).  Returns
 * malloc'd text, or NULL and why. */
static char *
read_matrix_text (const char *arg, char *error, size_t size)
{
  const bool from_stdin = strcmp (arg, "-") == 0;
  FILE *f = from_stdin ? stdin : fopen (arg + 1, "rb");
  size_t n = 0, cap = 1 << 16;
  char *text = malloc (cap);

  if (!f || !text)
    {
      snprintf (error, size, "%s: %s", from_stdin ? "standard input" : arg + 1,
                f ? "out of memory" : strerror (errno));
      free (text);
      if (f && !from_stdin)
        fclose (f);
      return NULL;
    }
  for (size_t got; (got = fread (text + n, 1, cap - n - 1, f)) > 0;)
    {
      n += got;
      if (n + 1 == cap)
        {
          char *more = cap < ((size_t) 64 << 20) ? realloc (text, cap * 2) : NULL;

          if (!more)
            {
              snprintf (error, size, "%s: longer than 64 MB", from_stdin ? "standard input"
                                                                         : arg + 1);
              free (text);
              text = NULL;
              break;
            }
          text = more;
          cap *= 2;
        }
    }
  if (text && ferror (f))
    {
      snprintf (error, size, "%s: %s", from_stdin ? "standard input" : arg + 1,
                strerror (errno));
      free (text);
      text = NULL;
    }
  if (!from_stdin)
    fclose (f);
  if (text)
    text[n] = '\0';
  return text;
}

/* An option's long name, for messages. */
static const char *
longopts_name (const struct option *options, int value)
{
  for (; options->name; options++)
    if (options->val == value)
      return options->name;
  return "?";
}

static bool
parse_number (const char *text, double *value)
{
  char *end;

  errno = 0;
  *value = strtod (text, &end);
  return end != text && *end == '\0' && errno == 0 && isfinite (*value);
}

#ifdef HAVE_GLIB
static void
preset_dirs (gchar **shipped, gchar **user)
{
  cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, shipped, user);
}

static int
list_presets (void)
{
  GString *warnings = g_string_new (NULL);
  gchar *shipped, *user;
  GList *presets;

  preset_dirs (&shipped, &user);
  presets = cc_presets_list (shipped, user, warnings);
  for (GList *l = presets; l; l = l->next)
    {
      const CcPreset *p = l->data;
      gchar *size = g_strdup_printf ("%dx%d", p->width, p->height);

      printf ("%-20s %-8s %s%s\n", p->id, size, p->name, p->shipped ? "" : " (yours)");
      g_free (size);
    }
  if (warnings->len)
    fprintf (stderr, "%s", warnings->str);
  cc_presets_free (presets);
  g_string_free (warnings, TRUE);
  g_free (shipped);
  g_free (user);
  return 0;
}

static bool
load_preset (const char *id, CcMask *mask, double **values, char *error, size_t size)
{
  GError *gerror = NULL;
  gdouble *kept;

  if (!cc_preset_mask (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, id, mask, &kept, &gerror))
    {
      snprintf (error, size, "%s (see --list-presets)", gerror->message);
      g_error_free (gerror);
      return false;
    }
  *values = malloc (sizeof (double) * mask->width * mask->height);
  if (*values)
    memcpy (*values, kept, sizeof (double) * mask->width * mask->height);
  else
    snprintf (error, size, "out of memory");
  mask->values = *values;
  g_free (kept);
  return *values != NULL;
}
#else
static int
list_presets (void)
{
  return die (2, "--list-presets: this build has no presets (it was built without GLib)");
}

static bool
load_preset (const char *id, CcMask *mask, double **values, char *error, size_t size)
{
  (void) id;
  (void) mask;
  (void) values;
  snprintf (error, size, "this build has no presets (it was built without GLib)");
  return false;
}
#endif

static bool
is_directory (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

static bool
same_file (const char *a, const char *b)
{
  struct stat sa, sb;

  return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* The output names this build writes, for messages. */
static const char *
writable_names (void)
{
  return files_formats ()[0] ? ".png, .jpg, .tif, .exr, .webp, .pfm, .pgm, .ppm, .pnm or .pam"
                             : ".pfm, .pgm, .ppm, .pnm or .pam";
}

/* Where each output goes, and whether its format is one this build
 * writes; a job that cannot be is failed now, and the others go on. */
static void
plan_output (Job *job, Job *jobs, int index, const char *dir, const char *out)
{
  if (dir)
    {
      const char *base = strrchr (job->in, '/');

      base = base ? base + 1 : job->in;
      job->out = malloc (strlen (dir) + strlen (base) + 2);
      if (!job->out)
        {
          job_fail (job, "%s: out of memory", job->in);
          return;
        }
      sprintf (job->out, "%s/%s", dir, base);
    }
  else if (!(job->out = strdup (out)))
    {
      job_fail (job, "%s: out of memory", job->in);
      return;
    }
  job->raw_out = io_format_for_name (job->out, &job->out_format);
  if (!job->raw_out && !files_writes (job->out))
    {
      job_fail (job, "%s: unknown output format: name it %s", job->out, writable_names ());
      return;
    }
  if (same_file (job->in, job->out))
    {
      job_fail (job, "%s: the output would replace its input", job->in);
      return;
    }
  for (int i = 0; i < index; i++)
    if (jobs[i].out && strcmp (jobs[i].out, job->out) == 0)
      {
        job_fail (job, "%s: %s is already the output of %s", job->in, job->out, jobs[i].in);
        return;
      }
}

/* A stage that holds a job up (the kernels' first compile on a GPU newer
 * than the build) is said once on stderr, so that the wait is explained. */
static void
say_stage (const char *stage, void *user_data)
{
  static char said[512];

  (void) user_data;
  if (stage && strcmp (stage, said) != 0)
    {
      snprintf (said, sizeof said, "%s", stage);
      fprintf (stderr, "cuda-convolve: %s...\n", stage);
    }
}

int
main (int argc, char **argv)
{
  enum { OPT_MATRIX = 256, OPT_DIVISOR, OPT_OFFSET, OPT_NORMALIZE, OPT_BORDER,
         OPT_METHOD, OPT_PERCEPTUAL, OPT_CHANNELS, OPT_NO_CLAMP, OPT_NO_WEIGHT,
         OPT_KEEP_ALPHA, OPT_VERBOSE, OPT_HELP, OPT_VERSION, OPT_PRESET, OPT_LIST_PRESETS,
         OPT_SHAPE, OPT_RADIUS, OPT_ANGLE, OPT_BLADES, OPT_INNER, OPT_PRINT_MATRIX,
         OPT_MASK_IMAGE, OPT_DECONVOLVE, OPT_ITERATIONS, OPT_INIT, OPT_TV_WEIGHT,
         OPT_NOISE };
  static const struct option longopts[] = {
    { "output-dir",         required_argument, NULL, 'o' },
    { "preset",             required_argument, NULL, OPT_PRESET },
    { "list-presets",       no_argument,       NULL, OPT_LIST_PRESETS },
    { "matrix",             required_argument, NULL, OPT_MATRIX },
    { "divisor",            required_argument, NULL, OPT_DIVISOR },
    { "offset",             required_argument, NULL, OPT_OFFSET },
    { "normalize",          no_argument,       NULL, OPT_NORMALIZE },
    { "shape",              required_argument, NULL, OPT_SHAPE },
    { "radius",             required_argument, NULL, OPT_RADIUS },
    { "angle",              required_argument, NULL, OPT_ANGLE },
    { "blades",             required_argument, NULL, OPT_BLADES },
    { "inner",              required_argument, NULL, OPT_INNER },
    { "print-matrix",       no_argument,       NULL, OPT_PRINT_MATRIX },
    { "mask-image",         required_argument, NULL, OPT_MASK_IMAGE },
    { "border",             required_argument, NULL, OPT_BORDER },
    { "method",             required_argument, NULL, OPT_METHOD },
    { "perceptual",         no_argument,       NULL, OPT_PERCEPTUAL },
    { "channels",           required_argument, NULL, OPT_CHANNELS },
    { "no-clamp",           no_argument,       NULL, OPT_NO_CLAMP },
    { "no-alpha-weighting", no_argument,       NULL, OPT_NO_WEIGHT },
    { "keep-alpha",         no_argument,       NULL, OPT_KEEP_ALPHA },
    { "deconvolve",         required_argument, NULL, OPT_DECONVOLVE },
    { "iterations",         required_argument, NULL, OPT_ITERATIONS },
    { "init",               required_argument, NULL, OPT_INIT },
    { "tv-weight",          required_argument, NULL, OPT_TV_WEIGHT },
    { "noise",              required_argument, NULL, OPT_NOISE },
    { "verbose",            no_argument,       NULL, OPT_VERBOSE },
    { "help",               no_argument,       NULL, OPT_HELP },
    { "version",            no_argument,       NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 }
  };
  Settings s = { .convolve = { true, true, true, true } };
  const char *matrix = NULL, *preset = NULL, *dir = NULL;
  double divisor = 1.0, offset = 0.0;
  bool normalize = false, divisor_given = false, offset_given = false, need_files = false;
  bool print_matrix = false;
  const char *mask_image = NULL;
  const char *shape_option = NULL;   /* the first of --radius, --angle, ... given */
  const char *deconvolve_option = NULL;   /* the first of --iterations, --noise, ... given */
  bool border_given = false;
  CcShapeSpec shape = { CC_SHAPE_MATRIX, 5.0, 0.0, 6, 0.5 };
  double number;
  double *values = NULL;
  char error[1024];
  Job *jobs;
  int opt, n_jobs, status;

  cc_options_init (&s.options);
  cc_deconvolve_params_init (&s.deconvolution);
  s.options.stage = say_stage;
  opterr = 0;
  while ((opt = getopt_long (argc, argv, "o:", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'o':            dir = optarg; break;
      case OPT_PRESET:     preset = optarg; break;
      case OPT_LIST_PRESETS:
        return list_presets ();
      case OPT_MATRIX:     matrix = optarg; break;
      case OPT_NORMALIZE:  normalize = true; break;
      case OPT_NO_CLAMP:   s.options.clamp = false; break;
      case OPT_NO_WEIGHT:  s.options.alpha_weighting = false; break;
      case OPT_KEEP_ALPHA: s.convolve[3] = false; break;
      case OPT_PERCEPTUAL: s.perceptual = true; break;
      case OPT_CHANNELS:
        if (!parse_channels (optarg, s.convolve))
          return die (2, "--channels: '%s' is not a subset of rgba (each letter once)",
                      optarg);
        break;
      case OPT_VERBOSE:    s.verbose = true; break;
      case OPT_PRINT_MATRIX: print_matrix = true; break;
      case OPT_MASK_IMAGE: mask_image = optarg; break;
      case OPT_SHAPE:
        if (!cc_shape_from_name (optarg, &shape.shape))
          return die (2, "--shape: '%s' is not one of %s", optarg, cc_shape_names ());
        break;
      case OPT_RADIUS:
      case OPT_ANGLE:
      case OPT_BLADES:
      case OPT_INNER:
        if (!parse_number (optarg, &number) ||
            (opt == OPT_BLADES && number != floor (number)))
          return die (2, "--%s: '%s' is not a%s number", longopts_name (longopts, opt), optarg,
                      opt == OPT_BLADES ? " whole" : "");
        if (opt == OPT_RADIUS)
          shape.radius = number;
        else if (opt == OPT_ANGLE)
          shape.angle = number;
        else if (opt == OPT_BLADES)
          shape.blades = number > INT_MAX ? INT_MAX : number < INT_MIN ? INT_MIN : (int) number;
        else
          shape.inner = number;
        shape_option = shape_option ? shape_option : longopts_name (longopts, opt);
        break;
      case OPT_DIVISOR:
        if (!parse_number (optarg, &divisor) || divisor == 0.0)
          return die (2, "--divisor: '%s' is not a non-zero number", optarg);
        divisor_given = true;
        break;
      case OPT_OFFSET:
        if (!parse_number (optarg, &offset))
          return die (2, "--offset: '%s' is not a number", optarg);
        offset_given = true;
        break;
      case OPT_BORDER:
        if (!cc_border_from_name (optarg, &s.options.border))
          return die (2, "--border: '%s' is not one of %s (or none, clamp, loop)", optarg,
                      cc_border_names ());
        border_given = true;
        break;
      case OPT_DECONVOLVE:
        if (!cc_deconvolve_algorithm_from_name (optarg, &s.deconvolution.algorithm))
          return die (2, "--deconvolve: '%s' is not richardson-lucy or wiener", optarg);
        s.deconvolve = true;
        break;
      case OPT_INIT:
        if (!cc_deconvolve_start_from_name (optarg, &s.deconvolution.start))
          return die (2, "--init: '%s' is not image or flat", optarg);
        deconvolve_option = deconvolve_option ? deconvolve_option : "init";
        break;
      case OPT_ITERATIONS:
      case OPT_TV_WEIGHT:
      case OPT_NOISE:
        if (!parse_number (optarg, &number) ||
            (opt == OPT_ITERATIONS && number != floor (number)))
          return die (2, "--%s: '%s' is not a%s number", longopts_name (longopts, opt), optarg,
                      opt == OPT_ITERATIONS ? " whole" : "");
        if (opt == OPT_ITERATIONS)
          s.deconvolution.iterations = number > INT_MAX ? INT_MAX
                                       : number < INT_MIN ? INT_MIN : (int) number;
        else if (opt == OPT_TV_WEIGHT)
          s.deconvolution.tv_weight = number;
        else
          s.deconvolution.noise = number;
        deconvolve_option = deconvolve_option ? deconvolve_option
                                              : longopts_name (longopts, opt);
        break;
      case OPT_METHOD:
        if (!cc_method_from_name (optarg, &s.options.method))
          return die (2, "--method: '%s' is not one of %s", optarg, cc_method_names ());
        break;
      case OPT_HELP:
        fputs (usage, stdout);
        {
          const char *formats = files_init (error, sizeof error) ? files_formats () : "";

          printf ("\nFormats: %s%sPFM, PGM/PPM/PNM and PAM.\n", formats, formats[0] ? ", " : "");
        }
        fputs ("\nMethods:\n", stdout);
        for (int m = 0; m < CC_METHOD_COUNT; m++)
          printf ("  %-10s %s\n", cc_methods[m].name, cc_methods[m].summary);
        files_exit ();
        return 0;
      case OPT_VERSION:
        puts (PACKAGE_STRING);
        return 0;
      case '?':
      default:
        return die (2, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
      }
  if (mask_image && (shape.shape != CC_SHAPE_MATRIX || preset || matrix || divisor_given ||
                     offset_given || normalize))
    return die (2, "--mask-image makes the mask, scaled to sum 1: leave out --shape, --preset, "
                "--matrix, --divisor, --offset and --normalize");
  if (shape.shape != CC_SHAPE_MATRIX && (preset || matrix || divisor_given || offset_given ||
                                         normalize))
    return die (2, "--shape makes the mask, scaled to sum 1: leave out --preset, --matrix, "
                "--divisor, --offset and --normalize");
  if (shape.shape == CC_SHAPE_MATRIX && shape_option)
    return die (2, "--%s is a shape's: give --shape too", shape_option);
  if (!s.deconvolve && deconvolve_option)
    return die (2, "--%s is deconvolution's: give --deconvolve too", deconvolve_option);
  /* A mirrored border rings least where a deconvolution meets the edge. */
  if (s.deconvolve && !border_given)
    s.options.border = CC_BORDER_MIRROR;
  if (preset && (matrix || divisor_given || offset_given || normalize))
    return die (2, "--preset supplies the mask, divisor and offset: leave out --matrix, "
                "--divisor, --offset and --normalize");
  if (mask_image)
    {
      if (!mask_of_image (mask_image, &s.mask, &values, error, sizeof error))
        return die (2, "--mask-image %s: %s", mask_image, error);
    }
  else if (preset)
    {
      if (!load_preset (preset, &s.mask, &values, error, sizeof error))
        return die (2, "--preset: %s", error);
    }
  else
    {
      char *text = matrix && (matrix[0] == '@' || strcmp (matrix, "-") == 0)
                   ? read_matrix_text (matrix, error, sizeof error) : NULL;
      bool parsed;

      if (matrix && !text && (matrix[0] == '@' || strcmp (matrix, "-") == 0))
        return die (2, "--matrix %s: %s", matrix, error);
      const CcMaskSource source = {
        .text = text ? text : matrix ? matrix : "0,0,0;0,1,0;0,0,0", .divisor = divisor,
        .offset = offset, .normalize = normalize, .shape = shape };

      parsed = cc_mask_resolve (&source, &s.mask, &values, error, sizeof error);
      free (text);
      if (!parsed)
        return die (2, "%s: %s", shape.shape != CC_SHAPE_MATRIX ? "--shape"
                                 : matrix ? "--matrix" : "the mask", error);
    }
  if (print_matrix)
    {
      char *text = cc_mask_format (s.mask.width, s.mask.height, s.mask.values);

      if (optind != argc)
        status = die (2, "--print-matrix takes no files");
      else if (!text)
        status = die (1, "out of memory");
      else
        status = printf ("%s\n", text) < 0 ? 1 : 0;
      free (text);
      free (values);
      return status;
    }

  n_jobs = argc - optind;
  if (dir ? n_jobs < 1 : n_jobs != 2)
    {
      free (values);
      return die (2, dir ? "expected at least one input file (see --help)"
                         : "expected IN and OUT file names, or IN... -o DIR (see --help)");
    }
  if (dir && !is_directory (dir) && mkdir (dir, 0777) != 0)
    {
      free (values);
      return die (2, "-o %s: %s", dir, strerror (errno));
    }

  if (!dir)
    n_jobs = 1;
  jobs = calloc ((size_t) n_jobs, sizeof *jobs);
  if (!jobs)
    {
      free (values);
      return die (1, "out of memory");
    }
  /* GEGL starts only where a file needs it. */
  for (int i = 0; i < n_jobs; i++)
    {
      jobs[i].in = argv[optind + i];
      jobs[i].raw_in = is_raw_file (jobs[i].in);
      jobs[i].whole = s.deconvolve;
      need_files = need_files || !jobs[i].raw_in;
    }
  if (!dir)
    {
      IoFormat f;

      need_files = need_files || !io_format_for_name (argv[optind + 1], &f);
    }
  if (need_files && !files_init (error, sizeof error))
    {
      free (jobs);
      free (values);
      return die (1, "%s", error);
    }
  if (!dir)
    {
      IoFormat f;

      if (!io_format_for_name (argv[optind + 1], &f) && !files_writes (argv[optind + 1]))
        {
          free (jobs);
          free (values);
          return die (2, "%s: unknown output format: name it %s", argv[optind + 1],
                      writable_names ());
        }
    }

  outputs_catch_signals ();

  s.batch = dir != NULL;
  s.ctx = cc_context_new ();
  if (!s.ctx)
    {
      free (jobs);
      free (values);
      cc_context_free (s.ctx);
      return die (1, "out of memory");
    }
  for (int i = 0; i < n_jobs; i++)
    plan_output (&jobs[i], jobs, i, dir, dir ? NULL : argv[optind + 1]);
  status = run_jobs (jobs, n_jobs, &s);
  for (int i = 0; i < n_jobs; i++)
    free (jobs[i].out);
  free (jobs);
  cc_context_free (s.ctx);
  if (need_files)
    files_exit ();
  free (values);
  return status;
}
