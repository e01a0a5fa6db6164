/* cuda-convolve: convolve a PFM, PGM/PPM or PAM image with a mask, on the GPU
 * when one is usable.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "convolve.h"
#include "imageio.h"

static const char usage[] =
  "Usage: cuda-convolve [OPTION]... IN OUT\n"
  "Convolve image IN with a mask and write OUT (PFM, PGM/PPM or PAM, by OUT's name).\n"
  "\n"
  "  --matrix TEXT         the mask, rows separated by ';', values by ','\n"
  "                        (default \"0,0,0;0,1,0;0,0,0\", the identity)\n"
  "  --divisor X           divide the weighted sum by X (default 1)\n"
  "  --offset X            then add X, in the 0..1 scale (default 0)\n"
  "  --normalize           divisor and offset from the mask's sum (GIMP's rule)\n"
  "  --border MODE         zero, extend, wrap, mirror, black or white (default\n"
  "                        extend); GEGL's none, clamp and loop name zero, extend\n"
  "                        and wrap\n"
  "  --method NAME         one of the methods below (default auto)\n"
  "  --perceptual          convolve 8- and 16-bit files' perceptual values as they\n"
  "                        are (GIMP 2's convmatrix); by default they are taken as\n"
  "                        sRGB and convolved in linear light, as GIMP 3 does\n"
  "  --channels LIST       the channels to convolve, a subset of rgba (default\n"
  "                        rgba); the others keep their values; on gray images\n"
  "                        any of r, g, b means gray\n"
  "  --no-clamp            keep results outside [0,1] (float output only)\n"
  "  --no-alpha-weighting  convolve colour without weighting it by alpha\n"
  "  --keep-alpha          copy the alpha channel instead of convolving it (as\n"
  "                        leaving a out of --channels)\n"
  "  --verbose             print the method, the device and the times\n"
  "  --help                print this help\n"
  "  --version             print the version\n";

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

static bool
parse_number (const char *text, double *value)
{
  char *end;

  errno = 0;
  *value = strtod (text, &end);
  return end != text && *end == '\0' && errno == 0 && isfinite (*value);
}

int
main (int argc, char **argv)
{
  enum { OPT_MATRIX = 256, OPT_DIVISOR, OPT_OFFSET, OPT_NORMALIZE, OPT_BORDER,
         OPT_METHOD, OPT_PERCEPTUAL, OPT_CHANNELS, OPT_NO_CLAMP, OPT_NO_WEIGHT,
         OPT_KEEP_ALPHA, OPT_VERBOSE, OPT_HELP, OPT_VERSION };
  static const struct option longopts[] = {
    { "matrix",             required_argument, NULL, OPT_MATRIX },
    { "divisor",            required_argument, NULL, OPT_DIVISOR },
    { "offset",             required_argument, NULL, OPT_OFFSET },
    { "normalize",          no_argument,       NULL, OPT_NORMALIZE },
    { "border",             required_argument, NULL, OPT_BORDER },
    { "method",             required_argument, NULL, OPT_METHOD },
    { "perceptual",         no_argument,       NULL, OPT_PERCEPTUAL },
    { "channels",           required_argument, NULL, OPT_CHANNELS },
    { "no-clamp",           no_argument,       NULL, OPT_NO_CLAMP },
    { "no-alpha-weighting", no_argument,       NULL, OPT_NO_WEIGHT },
    { "keep-alpha",         no_argument,       NULL, OPT_KEEP_ALPHA },
    { "verbose",            no_argument,       NULL, OPT_VERBOSE },
    { "help",               no_argument,       NULL, OPT_HELP },
    { "version",            no_argument,       NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 }
  };
  const char *matrix = "0,0,0;0,1,0;0,0,0";
  double divisor = 1.0, offset = 0.0;
  bool normalize = false, verbose = false, perceptual = false;
  bool convolve[4] = { true, true, true, true };   /* r, g, b, a */
  CcTransfer *transfer = NULL;
  struct rusage rusage;
  CcOptions options;
  CcMask mask;
  CcResult result;
  CcContext *ctx;
  IoImage in, out;
  IoFormat format;
  double *values;
  char error[512];
  int opt, status;

  cc_options_init (&options);
  opterr = 0;
  while ((opt = getopt_long (argc, argv, "", longopts, NULL)) != -1)
    switch (opt)
      {
      case OPT_MATRIX:     matrix = optarg; break;
      case OPT_NORMALIZE:  normalize = true; break;
      case OPT_NO_CLAMP:   options.clamp = false; break;
      case OPT_NO_WEIGHT:  options.alpha_weighting = false; break;
      case OPT_KEEP_ALPHA: convolve[3] = false; break;
      case OPT_PERCEPTUAL: perceptual = true; break;
      case OPT_CHANNELS:
        if (!parse_channels (optarg, convolve))
          return die (2, "--channels: '%s' is not a subset of rgba (each letter once)",
                      optarg);
        break;
      case OPT_VERBOSE:    verbose = true; break;
      case OPT_DIVISOR:
        if (!parse_number (optarg, &divisor) || divisor == 0.0)
          return die (2, "--divisor: '%s' is not a non-zero number", optarg);
        break;
      case OPT_OFFSET:
        if (!parse_number (optarg, &offset))
          return die (2, "--offset: '%s' is not a number", optarg);
        break;
      case OPT_BORDER:
        if (!cc_border_from_name (optarg, &options.border))
          return die (2, "--border: '%s' is not one of %s (or none, clamp, loop)", optarg,
                      cc_border_names ());
        break;
      case OPT_METHOD:
        if (!cc_method_from_name (optarg, &options.method))
          return die (2, "--method: '%s' is not one of %s", optarg, cc_method_names ());
        break;
      case OPT_HELP:
        {
          fputs (usage, stdout);
          fputs ("\nMethods:\n", stdout);
          for (int m = 0; m < CC_METHOD_COUNT; m++)
            printf ("  %-10s %s\n", cc_methods[m].name, cc_methods[m].summary);
        }
        return 0;
      case OPT_VERSION:
        puts (PACKAGE_STRING);
        return 0;
      default:
        return die (2, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
      }
  if (argc - optind != 2)
    return die (2, "expected IN and OUT file names (see --help)");
  if (!io_format_for_name (argv[optind + 1], &format))
    return die (2, "%s: unknown output format: name it .pfm, .pgm, .ppm, .pnm or .pam",
                argv[optind + 1]);
  if (!cc_mask_parse (matrix, &mask.width, &mask.height, &values, error, sizeof error))
    return die (2, "--matrix: %s", error);
  mask.values = values;
  mask.divisor = divisor;
  mask.offset = offset;
  if (normalize)
    cc_mask_normalize (&mask);

  if (!io_read (argv[optind], &in, error, sizeof error))
    {
      free (values);
      return die (1, "%s", error);
    }
  out = in;
  out.image.data = malloc (in.image.stride * in.image.height);
  if (!out.image.data)
    {
      io_free (&in);
      free (values);
      return die (1, "out of memory");
    }
  options.has_alpha = in.alpha;
  options.affect_alpha = convolve[3];
  cc_options_keep_colour (&options, in.image.channels - in.alpha == 1, convolve[0],
                          convolve[1], convolve[2]);
  /* 8- and 16-bit files hold sRGB codes: linear light through its tables.
   * Other maxvals arrive as float and are taken as they are. */
  if (!perceptual && (in.image.type == CC_TYPE_U8 || in.image.type == CC_TYPE_U16))
    options.transfer = transfer = cc_transfer_new_srgb (in.image.type);

  ctx = cc_context_new ();
  if (!ctx)
    status = die (1, "out of memory");
  else if (cc_convolve (ctx, &in.image, 0, 0, &out.image, &mask, &options, &result) != CC_OK)
    status = die (1, "%s", result.message);
  else if (!io_write (argv[optind + 1], &out, error, sizeof error))
    status = die (1, "%s", error);
  else
    {
      status = 0;
      if (verbose)
        {
          printf ("method: %s\ndevice: %s\n", cc_method_name (result.method_used),
                  result.device);
          printf ("time: %.3f ms (upload %.3f, kernel %.3f, download %.3f) in %d strip%s\n",
                  result.total_ms, result.upload_ms, result.kernel_ms,
                  result.download_ms, result.strips, result.strips == 1 ? "" : "s");
          if (result.message[0])
            printf ("note: %s\n", result.message);
          if (getrusage (RUSAGE_SELF, &rusage) == 0)
            printf ("peak host memory: %.1f MB\n", rusage.ru_maxrss / 1024.0);
        }
    }
  cc_context_free (ctx);
  cc_transfer_free (transfer);
  io_free (&out);
  io_free (&in);
  free (values);
  return status;
}
