/* cuda-convolve: convolve image files with a mask, on the GPU when one is
 * usable.  One file (IN OUT) or many (IN... -o DIR).  This file is the
 * options and the mask; job.c one file's work, pipeline.c the threads that
 * overlap files, outputs.c the temporary names, estimate.c the blur's
 * estimate and a star's mask.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <float.h>
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
#include "estimate.h"
#include "files.h"
#include "imageio.h"
#include "job.h"
#include "outputs.h"
#include "pipeline.h"
#include "setting-table.h"
#ifdef HAVE_GLIB
#include "preset.h"
#endif

/* ---- Usage ------------------------------------------------------------------- */

/* One option's help: its text wrapped to 80 columns, from column 24. */
static void
usage_line (const char *option, const char *text)
{
  enum { INDENT = 24, WIDTH = 80 };
  int column = printf ("  %s", option);

  if (column >= INDENT - 1)
    column = printf ("\n") - 1;
  for (const char *p = text; *p;)
    {
      const int n = (int) strcspn (p, " ");

      if (column < INDENT)
        column += printf ("%*s", INDENT - column, "");
      else if (column + 1 + n > WIDTH)
        column = printf ("\n%*s", INDENT, "") - 1;
      else
        column += printf (" ");
      column += printf ("%.*s", n, p);
      p += n + strspn (p + n, " ");
    }
  putchar ('\n');
}

/* A setting's help from the table (engine/setting-table.h): its
 * description, range and default, then 'extra'. */
static void
usage_setting (const char *option, CcSettingId id, const char *extra)
{
  const CcSetting *s = &cc_settings[id];
  char text[1024], range[128] = "";

  if (s->type == CC_SETTING_TYPE_INT || s->type == CC_SETTING_TYPE_DOUBLE)
    {
      if (s->max < DBL_MAX)
        snprintf (range, sizeof range, " (%g to %g, default %g)", s->min, s->max, s->value);
      else if (s->min > -DBL_MAX)
        snprintf (range, sizeof range, " (%g or more, default %g)", s->min, s->value);
      else
        snprintf (range, sizeof range, " (default %g)", s->value);
    }
  else if (s->type == CC_SETTING_TYPE_CHOICE)
    snprintf (range, sizeof range, " (%s; default %s)", cc_setting_choice_names (id),
              cc_setting_choice_name (id, (int) s->value));
  else if (s->type == CC_SETTING_TYPE_TEXT && s->text[0])
    snprintf (range, sizeof range, " (default \"%s\")", s->text);
  snprintf (text, sizeof text, "%s%s%s", s->blurb, range, extra);
  usage_line (option, text);
}

static void
usage (void)
{
  fputs ("Usage: cuda-convolve [OPTION]... IN OUT\n"
         "  or:  cuda-convolve [OPTION]... IN... -o DIR\n"
         "  or:  cuda-convolve --estimate-blur [OPTION]... IN\n"
         "Convolve image IN with a mask and write OUT, in the format OUT's name asks for;\n"
         "or each IN into DIR, under its own name and in its own format; or print the\n"
         "blur of IN.\n\n", stdout);
  usage_line ("-o, --output-dir DIR", "write each output into DIR (made if missing)");
  usage_setting ("--preset ID", CC_SETTING_ID_PRESET, " (see --list-presets); not with "
                 "--matrix, --divisor, --offset or --normalize");
  usage_line ("--list-presets", "print each preset's id, size and name");
  usage_setting ("--matrix TEXT", CC_SETTING_ID_MATRIX, "; new lines separate rows too; "
                 "@FILE reads the text from FILE, - from standard input");
  usage_setting ("--divisor X", CC_SETTING_ID_DIVISOR, "");
  usage_setting ("--offset X", CC_SETTING_ID_OFFSET, "");
  usage_setting ("--normalize", CC_SETTING_ID_NORMALIZE, "");
  usage_setting ("--shape NAME", CC_SETTING_ID_SHAPE, "; auto (with --estimate-blur or "
                 "--deconvolve): the blur estimated from each input; not with --preset, "
                 "--matrix, --divisor, --offset or --normalize");
  usage_setting ("--radius R", CC_SETTING_ID_RADIUS, "");
  usage_setting ("--angle DEG", CC_SETTING_ID_ANGLE, "");
  usage_setting ("--blades N", CC_SETTING_ID_BLADES, "");
  usage_setting ("--inner F", CC_SETTING_ID_INNER, "");
  usage_line ("--mask-image FILE", "the mask made from an image (any format this tool "
              "reads): each pixel's luminance in linear light times its alpha, scaled to "
              "sum 1, up to " CC_SETTING_STRING (CC_MASK_MAX) "x"
              CC_SETTING_STRING (CC_MASK_MAX) " (an even side gains a zero column or row); "
              "not with --preset, --matrix, --shape, --divisor, --offset, --normalize");
  usage_line ("--star X,Y,R", "the mask from a point source in each input: the square "
              "of radius R about (X, Y), less its background, centred on the star and "
              "scaled to sum 1; not with --preset, --matrix, --shape, --mask-image, "
              "--divisor, --offset, --normalize");
  usage_line ("--print-matrix", "print the mask's values in the text form --matrix takes "
              "and stop (the divisor and offset are not part of it)");
  usage_line ("--estimate-blur", "print the blur of IN (one file, no OUT) in the terms "
              "--shape, --radius and --angle take, and how sure the estimate is (0 to 1): a "
              "disc's, a gaussian's or a motion line's (--shape), or which of them fits "
              "best (--shape auto, the default); an image under 96x96, flat or saturated "
              "is refused");
  usage_line ("--json", "print the estimate as one JSON object: shape, radius, angle, "
              "confidence");
  usage_line ("--region X,Y,W,H", "estimate the blur from this rectangle of the image (its "
              "top-left corner and size in pixels; default the whole image)");
  usage_setting ("--border MODE", CC_SETTING_ID_BORDER, "; a deconvolution's default is "
                 "mirror");
  usage_setting ("--method NAME", CC_SETTING_ID_METHOD, " (see Methods below)");
  usage_line ("--perceptual", "convolve perceptual values, as the procedure's linear "
              "FALSE (GIMP 2's convmatrix); by default each file is convolved in linear "
              "light of its own colour space, as GIMP 3 does");
  usage_line ("--channels LIST", "the channels to convolve, a subset of rgba (default "
              "rgba); the others keep their values; on gray images any of r, g, b means "
              "gray");
  usage_line ("--no-clamp", "keep results outside [0,1] (float output only)");
  usage_line ("--no-alpha-weighting", "convolve colour without weighting it by alpha");
  usage_line ("--keep-alpha", "copy the alpha channel instead of convolving it (as "
              "leaving a out of --channels)");
  usage_setting ("--deconvolve ALGO", CC_SETTING_ID_ALGORITHM, ": undo a blur by the "
                 "mask instead of convolving; the mask is scaled to sum 1, the border "
                 "defaults to mirror, alpha is kept");
  usage_setting ("--iterations N", CC_SETTING_ID_ITERATIONS, "");
  usage_setting ("--init START", CC_SETTING_ID_INIT, "");
  usage_setting ("--tv-weight X", CC_SETTING_ID_TV_WEIGHT, "");
  usage_setting ("--noise X", CC_SETTING_ID_NOISE, "");
  usage_line ("--verbose", "print the method, the device and the times");
  usage_line ("--help", "print this help");
  usage_line ("--version", "print the version");
}

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
#define PRESETS cc_preset_find_mask

static int
list_presets (void)
{
  GString *warnings = g_string_new (NULL);
  gchar *shipped, *user;
  GList *presets;

  cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
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

#else
#define PRESETS NULL   /* cc_mask_resolve says a preset needs GLib */

static int
list_presets (void)
{
  return die (2, "--list-presets: this build has no presets (it was built without GLib)");
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

/* ---- The command line ---------------------------------------------------------- */

/* What the options said, before the mask is made. */
typedef struct
{
  Settings    s;
  const char *matrix, *preset, *dir, *mask_image;
  double      divisor, offset;
  bool        normalize, divisor_given, offset_given, border_given, print_matrix;
  bool        estimate_blur, json, shape_auto, star;
  const char *shape_option;        /* the first of --radius, --angle, ... given */
  const char *deconvolve_option;   /* the first of --iterations, --noise, ... given */
  CcShapeSpec shape;
} Options;

/* The options that are settings of the table are numbered past these, as
 * OPT_SETTING + their CcSettingId. */
enum { OPT_NORMALIZE = 256, OPT_PERCEPTUAL, OPT_CHANNELS, OPT_NO_CLAMP, OPT_NO_WEIGHT,
       OPT_KEEP_ALPHA, OPT_VERBOSE, OPT_HELP, OPT_VERSION, OPT_LIST_PRESETS,
       OPT_PRINT_MATRIX, OPT_MASK_IMAGE, OPT_ESTIMATE_BLUR, OPT_JSON, OPT_REGION, OPT_STAR,
       OPT_SETTING };

#define SETTING_OPTION(name, id) \
  { name, required_argument, NULL, OPT_SETTING + CC_SETTING_ID_##id }
static const struct option longopts[] = {
  { "output-dir",         required_argument, NULL, 'o' },
  SETTING_OPTION ("preset", PRESET),
  { "list-presets",       no_argument,       NULL, OPT_LIST_PRESETS },
  SETTING_OPTION ("matrix", MATRIX),
  SETTING_OPTION ("divisor", DIVISOR),
  SETTING_OPTION ("offset", OFFSET),
  { "normalize",          no_argument,       NULL, OPT_NORMALIZE },
  SETTING_OPTION ("shape", SHAPE),
  SETTING_OPTION ("radius", RADIUS),
  SETTING_OPTION ("angle", ANGLE),
  SETTING_OPTION ("blades", BLADES),
  SETTING_OPTION ("inner", INNER),
  { "print-matrix",       no_argument,       NULL, OPT_PRINT_MATRIX },
  { "mask-image",         required_argument, NULL, OPT_MASK_IMAGE },
  { "star",               required_argument, NULL, OPT_STAR },
  { "estimate-blur",      no_argument,       NULL, OPT_ESTIMATE_BLUR },
  { "json",               no_argument,       NULL, OPT_JSON },
  { "region",             required_argument, NULL, OPT_REGION },
  SETTING_OPTION ("border", BORDER),
  SETTING_OPTION ("method", METHOD),
  { "perceptual",         no_argument,       NULL, OPT_PERCEPTUAL },
  { "channels",           required_argument, NULL, OPT_CHANNELS },
  { "no-clamp",           no_argument,       NULL, OPT_NO_CLAMP },
  { "no-alpha-weighting", no_argument,       NULL, OPT_NO_WEIGHT },
  { "keep-alpha",         no_argument,       NULL, OPT_KEEP_ALPHA },
  SETTING_OPTION ("deconvolve", ALGORITHM),
  SETTING_OPTION ("iterations", ITERATIONS),
  SETTING_OPTION ("init", INIT),
  SETTING_OPTION ("tv-weight", TV_WEIGHT),
  SETTING_OPTION ("noise", NOISE),
  { "verbose",            no_argument,       NULL, OPT_VERBOSE },
  { "help",               no_argument,       NULL, OPT_HELP },
  { "version",            no_argument,       NULL, OPT_VERSION },
  { NULL, 0, NULL, 0 }
};

/* A number setting's value from its text: whole for an integer one,
 * saturated to int's range (the engine then refuses it by the table's). */
static int
set_number (Options *o, CcSettingId id, const char *option, const char *arg)
{
  const bool whole = cc_settings[id].type == CC_SETTING_TYPE_INT;
  double v;
  int n;

  if (!parse_number (arg, &v) || (whole && v != floor (v)) ||
      (id == CC_SETTING_ID_DIVISOR && v == 0.0))
    return die (2, "--%s: '%s' is not a%s number", option, arg,
                whole ? " whole" : id == CC_SETTING_ID_DIVISOR ? " non-zero" : "");
  if (v < cc_settings[id].min || v > cc_settings[id].max)
    return cc_settings[id].max < DBL_MAX
           ? die (2, "--%s: %s is not within %g to %g", option, arg, cc_settings[id].min,
                  cc_settings[id].max)
           : die (2, "--%s: %s is below %g", option, arg, cc_settings[id].min);
  n = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int) v;
  switch (id)
    {
    case CC_SETTING_ID_RADIUS:     o->shape.radius = v; break;
    case CC_SETTING_ID_ANGLE:      o->shape.angle = v; break;
    case CC_SETTING_ID_BLADES:     o->shape.blades = n; break;
    case CC_SETTING_ID_INNER:      o->shape.inner = v; break;
    case CC_SETTING_ID_DIVISOR:    o->divisor = v; o->divisor_given = true; return 0;
    case CC_SETTING_ID_OFFSET:     o->offset = v; o->offset_given = true; return 0;
    case CC_SETTING_ID_ITERATIONS: o->s.deconvolution.iterations = n; break;
    case CC_SETTING_ID_TV_WEIGHT:  o->s.deconvolution.tv_weight = v; break;
    case CC_SETTING_ID_NOISE:      o->s.deconvolution.noise = v; break;
    default:                       return die (1, "--%s: not a number setting", option);
    }
  if (id == CC_SETTING_ID_ITERATIONS || id == CC_SETTING_ID_TV_WEIGHT || id == CC_SETTING_ID_NOISE)
    o->deconvolve_option = o->deconvolve_option ? o->deconvolve_option : option;
  else
    o->shape_option = o->shape_option ? o->shape_option : option;
  return 0;
}

/* A choice setting's value from its name; 0, or the exit code. */
static int
set_choice (Options *o, CcSettingId id, const char *option, const char *arg)
{
  const char *names = cc_setting_choice_names (id);
  int v;

  /* auto is the tool's, not the table's: the estimate is the shape. */
  if (id == CC_SETTING_ID_SHAPE && strcmp (arg, "auto") == 0)
    {
      o->shape_auto = true;
      o->shape.shape = CC_SHAPE_MATRIX;
      return 0;
    }
  if (!cc_setting_choice_from (id, arg, &v))
    return die (2, "--%s: '%s' is not %s%s%s", option, arg, strchr (names, ',') ? "one of " : "",
                names, id == CC_SETTING_ID_BORDER ? " (or none, clamp, loop)"
                       : id == CC_SETTING_ID_SHAPE ? " (or auto)" : "");
  switch (id)
    {
    case CC_SETTING_ID_SHAPE:
      o->shape.shape = (CcShape) v;
      o->shape_auto = false;
      break;
    case CC_SETTING_ID_BORDER:
      o->s.options.border = (CcBorder) v;
      o->border_given = true;
      break;
    case CC_SETTING_ID_METHOD:
      o->s.options.method = (CcMethod) v;
      break;
    case CC_SETTING_ID_ALGORITHM:
      o->s.deconvolution.algorithm = (CcDeconvolveAlgorithm) v;
      o->s.deconvolve = true;
      break;
    default:
      o->s.deconvolution.start = (CcDeconvolveStart) v;
      o->deconvolve_option = o->deconvolve_option ? o->deconvolve_option : option;
    }
  return 0;
}

/* One setting of the table from its option's text; 0, or the exit code. */
static int
set_setting (Options *o, CcSettingId id, const char *option, const char *arg)
{
  switch (cc_settings[id].type)
    {
    case CC_SETTING_TYPE_CHOICE:
      return set_choice (o, id, option, arg);
    case CC_SETTING_TYPE_TEXT:
      if (id == CC_SETTING_ID_PRESET)
        o->preset = arg;
      else
        o->matrix = arg;
      return 0;
    default:
      return set_number (o, id, option, arg);
    }
}

static int
help (void)
{
  char error[1024];
  const char *formats = files_init (error, sizeof error) ? files_formats () : "";

  usage ();
  printf ("\nFormats: %s%sPFM, PGM/PPM/PNM and PAM.\n", formats, formats[0] ? ", " : "");
  fputs ("\nMethods:\n", stdout);
  for (int m = 0; m < CC_METHOD_COUNT; m++)
    printf ("  %-10s %s\n", cc_methods[m].name, cc_methods[m].summary);
  files_exit ();
  return 0;
}

/* The options into 'o'; -1 to go on, else the exit code. */
static int
parse_options (int argc, char **argv, Options *o)
{
  int opt, code;

  opterr = 0;
  while ((opt = getopt_long (argc, argv, "o:", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'o':              o->dir = optarg; break;
      case OPT_LIST_PRESETS: return list_presets ();
      case OPT_NORMALIZE:    o->normalize = true; break;
      case OPT_NO_CLAMP:     o->s.options.clamp = false; break;
      case OPT_NO_WEIGHT:    o->s.options.alpha_weighting = false; break;
      case OPT_KEEP_ALPHA:   o->s.convolve[3] = false; break;
      case OPT_PERCEPTUAL:   o->s.perceptual = true; break;
      case OPT_VERBOSE:      o->s.verbose = true; break;
      case OPT_PRINT_MATRIX: o->print_matrix = true; break;
      case OPT_MASK_IMAGE:   o->mask_image = optarg; break;
      case OPT_ESTIMATE_BLUR: o->estimate_blur = true; break;
      case OPT_JSON:         o->json = true; break;
      case OPT_REGION:
        if (!estimate_parse_region (optarg, &o->s.file_mask.region))
          return die (2, "--region: '%s' is not X,Y,W,H (whole numbers, W and H above 0)",
                      optarg);
        o->s.file_mask.has_region = true;
        break;
      case OPT_STAR:
        if (!estimate_parse_star (optarg, &o->s.file_mask))
          return die (2, "--star: '%s' is not X,Y,R (the centre, and a whole radius from 1 "
                      "to %d)", optarg, CC_MASK_MAX / 2);
        o->star = true;
        break;
      case OPT_HELP:         return help ();
      case OPT_VERSION:      return puts (PACKAGE_STRING) < 0;
      case OPT_CHANNELS:
        if (!parse_channels (optarg, o->s.convolve))
          return die (2, "--channels: '%s' is not a subset of rgba (each letter once)",
                      optarg);
        break;
      default:
        if (opt >= OPT_SETTING && opt < OPT_SETTING + CC_SETTING_COUNT)
          {
            if ((code = set_setting (o, (CcSettingId) (opt - OPT_SETTING),
                                     longopts_name (longopts, opt), optarg)) != 0)
              return code;
            break;
          }
        return die (2, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
      }
  return -1;
}

/* --estimate-blur, --shape auto, --star, --region and --json, where each
 * file's mask is made from the file; -1 where they go together with the
 * rest, else the exit code. */
static int
check_file_mask (Options *o)
{
  const bool mask_given = o->preset || o->matrix || o->mask_image || o->divisor_given ||
                          o->offset_given || o->normalize;
  const bool estimate = o->estimate_blur || o->shape_auto;
  const CcShape shape = o->shape.shape;
  FileMask *fm = &o->s.file_mask;

  if (o->estimate_blur && (o->s.deconvolve || o->dir || o->print_matrix))
    return die (2, "--estimate-blur prints the blur: leave out --deconvolve, -o and "
                "--print-matrix (--deconvolve ALGO --shape auto deconvolves by it)");
  if (o->shape_auto && !o->estimate_blur && !o->s.deconvolve)
    return die (2, "--shape auto needs --estimate-blur or --deconvolve");
  if (o->estimate_blur && shape != CC_SHAPE_MATRIX && shape != CC_SHAPE_DISC &&
      shape != CC_SHAPE_GAUSSIAN && shape != CC_SHAPE_MOTION)
    return die (2, "--estimate-blur finds a disc, a gaussian or a motion line: give --shape "
                "auto, disc, gaussian or motion");
  if (estimate && (mask_given || o->star))
    return die (2, "%s: the estimate makes the mask: leave out --preset, --matrix, "
                "--mask-image, --star, --divisor, --offset and --normalize",
                o->estimate_blur ? "--estimate-blur" : "--shape auto");
  if (estimate && o->shape_option)
    return die (2, "--%s: the estimate finds it: leave it out", o->shape_option);
  if (o->star && (mask_given || shape != CC_SHAPE_MATRIX))
    return die (2, "--star makes the mask, scaled to sum 1: leave out --shape, --preset, "
                "--matrix, --mask-image, --divisor, --offset and --normalize");
  if ((o->star || o->shape_auto) && o->print_matrix)
    return die (2, "--print-matrix: %s makes each input's own mask", o->star ? "--star"
                                                                          : "--shape auto");
  if (o->json && !o->estimate_blur)
    return die (2, "--json is --estimate-blur's: give --estimate-blur too");
  if (fm->has_region && !estimate)
    return die (2, "--region is the estimate's: give --estimate-blur or --shape auto");
  fm->kind = o->star ? FILE_MASK_STAR : estimate ? FILE_MASK_ESTIMATE : FILE_MASK_NONE;
  fm->shape = shape;
  return -1;
}

/* Options that do not go together; -1 where they do, else the exit code. */
static int
check_options (Options *o)
{
  const bool matrix_given = o->matrix || o->divisor_given || o->offset_given || o->normalize;
  int code;

  if ((code = check_file_mask (o)) >= 0)
    return code;
  if (o->mask_image && (o->shape.shape != CC_SHAPE_MATRIX || o->preset || matrix_given))
    return die (2, "--mask-image makes the mask, scaled to sum 1: leave out --shape, --preset, "
                "--matrix, --divisor, --offset and --normalize");
  if (o->shape.shape != CC_SHAPE_MATRIX && (o->preset || matrix_given))
    return die (2, "--shape makes the mask, scaled to sum 1: leave out --preset, --matrix, "
                "--divisor, --offset and --normalize");
  if (o->shape.shape == CC_SHAPE_MATRIX && o->shape_option)
    return die (2, "--%s is a shape's: give --shape too", o->shape_option);
  if (!o->s.deconvolve && o->deconvolve_option)
    return die (2, "--%s is deconvolution's: give --deconvolve too", o->deconvolve_option);
  if (o->s.deconvolve && !o->border_given)
    o->s.options.border = CC_DECONVOLVE_BORDER;
  if (o->preset && matrix_given)
    return die (2, "--preset supplies the mask, divisor and offset: leave out --matrix, "
                "--divisor, --offset and --normalize");
  return -1;
}

/* The mask from the image, the preset, or the matrix or shape, where
 * the files do not make their own; -1, or the exit code. */
static int
make_mask (Options *o, double **values)
{
  char error[1024], *text;
  bool parsed;

  if (o->s.file_mask.kind != FILE_MASK_NONE)
    return -1;   /* each file's own, made from it */
  if (o->mask_image)
    return mask_of_image (o->mask_image, &o->s.mask, values, error, sizeof error)
           ? -1 : die (2, "--mask-image %s: %s", o->mask_image, error);
  text = o->matrix && (o->matrix[0] == '@' || strcmp (o->matrix, "-") == 0)
         ? read_matrix_text (o->matrix, error, sizeof error) : NULL;
  if (o->matrix && !text && (o->matrix[0] == '@' || strcmp (o->matrix, "-") == 0))
    return die (2, "--matrix %s: %s", o->matrix, error);
  const CcMaskSource source = {
    .text = text ? text : o->matrix ? o->matrix : cc_settings[CC_SETTING_ID_MATRIX].text,
    .divisor = o->divisor, .offset = o->offset, .normalize = o->normalize,
    .shape = o->shape, .preset = o->preset, .find_preset = PRESETS };

  parsed = cc_mask_resolve (&source, &o->s.mask, values, error, sizeof error);
  free (text);
  if (!parsed && o->preset)
    return die (2, "--preset: %s (see --list-presets)", error);
  return parsed ? -1 : die (2, "%s: %s", o->shape.shape != CC_SHAPE_MATRIX ? "--shape"
                                         : o->matrix ? "--matrix" : "the mask", error);
}

static int
print_mask (const CcMask *mask, bool files)
{
  char *text = cc_mask_format (mask->width, mask->height, mask->values);
  int status;

  if (files)
    status = die (2, "--print-matrix takes no files");
  else if (!text)
    status = die (1, "out of memory");
  else
    status = printf ("%s\n", text) < 0 ? 1 : 0;
  free (text);
  return status;
}

/* The files named after the options: IN OUT, or IN... into o->dir; -1
 * where they can be, else the exit code. */
static int
check_files (const Options *o, int n, char **names, bool *need_files)
{
  char error[1024];
  IoFormat f;

  if (o->dir ? n < 1 : n != 2)
    return die (2, o->dir ? "expected at least one input file (see --help)"
                          : "expected IN and OUT file names, or IN... -o DIR (see --help)");
  if (o->dir && !is_directory (o->dir) && mkdir (o->dir, 0777) != 0)
    return die (2, "-o %s: %s", o->dir, strerror (errno));
  /* GEGL starts only where a file needs it. */
  *need_files = false;
  for (int i = 0; i < (o->dir ? n : 1); i++)
    *need_files = *need_files || !is_raw_file (names[i]);
  if (!o->dir)
    *need_files = *need_files || !io_format_for_name (names[1], &f);
  if (*need_files && !files_init (error, sizeof error))
    return die (1, "%s", error);
  if (!o->dir && !io_format_for_name (names[1], &f) && !files_writes (names[1]))
    return die (2, "%s: unknown output format: name it %s", names[1], writable_names ());
  return -1;
}

/* Each file's job, run; the exit code. */
static int
run_files (Options *o, int n, char **names)
{
  const int n_jobs = o->dir ? n : 1;
  Job *jobs = calloc ((size_t) n_jobs, sizeof *jobs);
  int status;

  if (!jobs || !(o->s.ctx = cc_context_new ()))
    {
      free (jobs);
      return die (1, "out of memory");
    }
  for (int i = 0; i < n_jobs; i++)
    {
      jobs[i].in = names[i];
      jobs[i].raw_in = is_raw_file (names[i]);
      jobs[i].whole = o->s.deconvolve || o->s.file_mask.kind != FILE_MASK_NONE;
    }
  outputs_catch_signals ();
  o->s.batch = o->dir != NULL;
  for (int i = 0; i < n_jobs; i++)
    plan_output (&jobs[i], jobs, i, o->dir, o->dir ? NULL : names[1]);
  status = run_jobs (jobs, n_jobs, &o->s);
  for (int i = 0; i < n_jobs; i++)
    free (jobs[i].out);
  free (jobs);
  cc_context_free (o->s.ctx);
  return status;
}

/* --estimate-blur IN: the exit code. */
static int
run_estimate (Options *o, int n, char **names)
{
  int status;

  if (n != 1)
    return die (2, "--estimate-blur takes one file, IN (see --help)");
  if (!(o->s.ctx = cc_context_new ()))
    return die (1, "out of memory");
  status = estimate_file (names[0], &o->s, o->json);
  cc_context_free (o->s.ctx);
  return status;
}

int
main (int argc, char **argv)
{
  Options o = { .s = { .convolve = { true, true, true, true } },
                .divisor = CC_SETTING_DEFAULT (DIVISOR),
                .offset = CC_SETTING_DEFAULT (OFFSET),
                .normalize = CC_SETTING_DEFAULT (NORMALIZE),
                .shape = CC_SHAPE_SPEC_DEFAULT };
  double *values = NULL;
  bool need_files = false;
  int status;

  cc_options_init (&o.s.options);
  cc_deconvolve_params_init (&o.s.deconvolution);
  o.s.options.stage = say_stage;
  if ((status = parse_options (argc, argv, &o)) >= 0 || (status = check_options (&o)) >= 0 ||
      (status = make_mask (&o, &values)) >= 0)
    {
      free (values);
      return status;
    }
  if (o.print_matrix)
    status = print_mask (&o.s.mask, optind != argc);
  else if (o.estimate_blur)
    status = run_estimate (&o, argc - optind, argv + optind);
  else if ((status = check_files (&o, argc - optind, argv + optind, &need_files)) < 0)
    status = run_files (&o, argc - optind, argv + optind);
  if (need_files)
    files_exit ();
  free (values);
  return status;
}
