/* The text form of a mask: "0,1,0;1,-4,1;0,1,0".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"

/* Numbers are written with a '.' whatever the caller's locale (a GIMP
 * plug-in may run under one with decimal commas): switch this thread to the
 * C locale for the duration. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale (void)
{
  c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
}

static locale_t
use_c_locale (void)
{
  pthread_once (&c_locale_once, make_c_locale);
  return c_locale ? uselocale (c_locale) : (locale_t) 0;
}

static void
restore_locale (locale_t old)
{
  if (old)
    uselocale (old);
}

/* Up to 20 characters of the text at p for a message, on one line: a
 * file's bytes (the tool's --matrix @FILE) may be anything. */
static const char *
quoted (const char *p, char out[24])
{
  int n = 0;

  while (n < 20 && p[n] && p[n] != '\n' && p[n] != '\r')
    {
      out[n] = isprint ((unsigned char) p[n]) ? p[n] : '?';
      n++;
    }
  out[n] = '\0';
  return out;
}

/* The number at *p, after blanks, and *p past it; or false and why. */
static bool
read_value (const char **p, double *x, char *message, size_t size)
{
  char *end, q[24];

  while (**p == ' ' || **p == '\t' || **p == '\r')
    (*p)++;
  errno = 0;
  *x = strtod (*p, &end);
  if (end == *p)
    {
      snprintf (message, size, "matrix: expected a number at \"%s\"", quoted (*p, q));
      return false;
    }
  /* Underflow (ERANGE with a value at most the smallest normal) keeps the
   * nearest double, as strtod returns it: a tap that small is a tap, and
   * what cc_mask_format writes of it must read back. */
  if ((errno == ERANGE && fabs (*x) > DBL_MIN) || !isfinite (*x))
    {
      snprintf (message, size, "matrix: value \"%.*s\" is not a finite number",
                (int) (end - *p > 20 ? 20 : end - *p), *p);
      return false;
    }
  *p = end;
  return true;
}

/* x after the n values in *v, grown by doubling: a 1023x1023 mask is 8 MB,
 * a 3x3 needs little. */
static bool
append (double **v, int *n, int *cap, double x, char *message, size_t size)
{
  if (*n == *cap)
    {
      double *grown;

      *cap = *cap ? 2 * *cap : 64;
      if (!(grown = realloc (*v, sizeof (double) * *cap)))
        {
          snprintf (message, size, "out of memory");
          return false;
        }
      *v = grown;
    }
  (*v)[(*n)++] = x;
  return true;
}

/* A row of in_row values ends at *p (';', a new line or the end): it has
 * the first row's length, and a row follows or the text ends; *p past the
 * separator and blanks.  False and why otherwise. */
static bool
end_row (const char **p, int in_row, int *rows, int *cols, char *message, size_t size)
{
  if (*rows == 0)
    *cols = in_row;
  else if (in_row != *cols)
    {
      snprintf (message, size, "matrix: row %d has %d values, row 1 has %d", *rows + 1, in_row,
                *cols);
      return false;
    }
  (*rows)++;
  if (**p == ';')
    (*p)++;
  while (isspace ((unsigned char) **p))
    (*p)++;
  if (**p == ';')
    snprintf (message, size, "matrix: row %d is empty", *rows + 1);
  else if (**p != '\0' && *rows >= CC_MASK_MAX)
    snprintf (message, size, "matrix: more than %d rows", CC_MASK_MAX);
  else
    return true;
  return false;
}

static bool
parse (const char *text, int *width, int *height, double **values,
       char *message, size_t size)
{
  const char *p = text;
  double *v = NULL, x;
  int n = 0, cap = 0, rows = 0, cols = 0, in_row = 0;
  char q[24];

  for (;;)
    {
      if (!read_value (&p, &x, message, size))
        goto fail;
      if (++in_row > CC_MASK_MAX)
        {
          snprintf (message, size, "matrix: more than %d values in a row", CC_MASK_MAX);
          goto fail;
        }
      if (!append (&v, &n, &cap, x, message, size))
        goto fail;
      while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
      if (*p == ',')
        {
          p++;
          continue;
        }
      if (*p != ';' && *p != '\n' && *p != '\0')
        {
          snprintf (message, size, "matrix: unexpected \"%s\"; separate values with ',' "
                    "and rows with ';'", quoted (p, q));
          goto fail;
        }
      if (!end_row (&p, in_row, &rows, &cols, message, size))
        goto fail;
      if (*p == '\0')
        break;
      in_row = 0;
    }
  if (!(cols & 1) || !(rows & 1))
    {
      snprintf (message, size, "matrix is %dx%d: width and height must be odd", cols, rows);
      goto fail;
    }
  *width = cols;
  *height = rows;
  *values = v;
  return true;

fail:
  free (v);
  return false;
}

bool
cc_mask_parse (const char *text, int *width, int *height, double **values,
               char *message, size_t size)
{
  locale_t old = use_c_locale ();
  bool ok = parse (text, width, height, values, message, size);

  restore_locale (old);
  return ok;
}

char *
cc_mask_format (int width, int height, const double *values)
{
  /* 26 bytes a value hold "%.17g" and a separator. */
  size_t cap = (size_t) width * height * 26 + 1;
  char *s = malloc (cap), *p = s;
  locale_t old;

  if (!s)
    return NULL;
  old = use_c_locale ();
  for (int j = 0; j < height; j++)
    for (int i = 0; i < width; i++)
      {
        double v = values[j * width + i];
        char num[32];

        /* The shortest of %.15g and %.17g that reads back the same. */
        snprintf (num, sizeof num, "%.15g", v);
        if (strtod (num, NULL) != v)
          snprintf (num, sizeof num, "%.17g", v);
        p += snprintf (p, cap - (p - s), "%s%s", num,
                       i + 1 < width ? "," : j + 1 < height ? ";" : "");
      }
  restore_locale (old);
  return s;
}
