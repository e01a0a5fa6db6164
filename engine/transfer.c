/* Transfer tables: a perceptual encoding of 8- or 16-bit samples and the
 * linear light it stands for, so that linear light is computed from, and
 * rounded into, the image's own codes without a wider copy of the image.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static atomic_uint_fast64_t next_serial = 1;

static int
codes_of (CcType type)
{
  return type == CC_TYPE_U8 ? 256 : type == CC_TYPE_U16 ? 65536 : 0;
}

/* Step b: the midpoints at or below b / buckets and the one above them
 * ('mid' has n of them, then +inf); the last step is past 1.  Returns
 * whether every bucket holds at most one midpoint. */
static bool
fill_steps (const float *mid, int n, int buckets, CcTransferStep *steps)
{
  bool single = true;
  int k = 0;

  for (int b = 0; b <= buckets + 1; b++)
    {
      const float edge = b <= buckets ? (float) b / (float) buckets : INFINITY;

      while (k < n && mid[k] <= edge)
        k++;
      steps[b].code = k;
      steps[b].threshold = mid[k];
      if (b > 0 && b <= buckets && steps[b].code - steps[b - 1].code > 1)
        single = false;
    }
  return single;
}

CcTransfer *
cc_transfer_new (CcType type, int curves, const float *to_linear, const float *midpoints,
                 char *message, size_t size)
{
  const int codes = codes_of (type);
  const int buckets = codes == 256 ? 4096 : 65536;
  CcTransfer *t;
  size_t bytes;
  char *block;

  if (!codes)
    {
      snprintf (message, size, "transfer tables are for u8 or u16 samples, not %s",
                cc_type_name (type));
      return NULL;
    }
  if (curves != 1 && curves != 3)
    {
      snprintf (message, size, "transfer tables have 1 or 3 curves, not %d", curves);
      return NULL;
    }
  if (!to_linear || !midpoints)
    {
      snprintf (message, size, "transfer tables missing");
      return NULL;
    }
  for (int k = 0; k < curves; k++)
    {
      const float *lin = to_linear + (size_t) k * codes;
      const float *mid = midpoints + (size_t) k * (codes - 1);

      for (int i = 0; i < codes; i++)
        if (!isfinite (lin[i]) || (i < codes - 1 && !(lin[i] <= mid[i] && mid[i] <= lin[i + 1])))
          {
            snprintf (message, size,
                      "transfer curve %d is not ascending with its midpoints between "
                      "codes, at code %d", k, i);
            return NULL;
          }
    }

  bytes = (size_t) curves * (2 * codes * sizeof (float) +
                             (buckets + 2) * sizeof (CcTransferStep));
  t = calloc (1, sizeof *t);
  block = malloc (bytes);
  if (!t || !block)
    {
      free (t);
      free (block);
      snprintf (message, size, "out of host memory for transfer tables");
      return NULL;
    }
  t->bytes = bytes;
  t->type = type;
  t->codes = codes;
  t->curves = curves;
  t->buckets = buckets;
  t->single = true;
  t->steps = (CcTransferStep *) block;
  t->to_linear = (float *) (t->steps + (size_t) curves * (buckets + 2));
  t->midpoints = t->to_linear + (size_t) curves * codes;
  t->serial = atomic_fetch_add (&next_serial, 1);
  memcpy (t->to_linear, to_linear, sizeof (float) * curves * codes);
  for (int k = 0; k < curves; k++)
    {
      float *mid = t->midpoints + (size_t) k * codes;

      memcpy (mid, midpoints + (size_t) k * (codes - 1), sizeof (float) * (codes - 1));
      mid[codes - 1] = INFINITY;
      t->single &= fill_steps (mid, codes - 1, buckets, t->steps + (size_t) k * (buckets + 2));
    }
  return t;
}

double
cc_srgb_to_linear (double v)
{
  return v <= 0.04045 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
}

double
cc_srgb_from_linear (double v)
{
  return v <= 0.0031308 ? v * 12.92 : 1.055 * pow (v, 1 / 2.4) - 0.055;
}

CcTransfer *
cc_transfer_new_srgb (CcType type)
{
  const int codes = codes_of (type);
  float *lin, *mid;
  CcTransfer *t = NULL;
  char message[128];

  if (!codes)
    return NULL;
  lin = malloc (sizeof (float) * codes);
  mid = malloc (sizeof (float) * codes);
  if (lin && mid)
    {
      for (int i = 0; i < codes; i++)
        {
          lin[i] = (float) cc_srgb_to_linear ((double) i / (codes - 1));
          if (i < codes - 1)
            mid[i] = (float) cc_srgb_to_linear ((i + 0.5) / (codes - 1));
        }
      t = cc_transfer_new (type, 1, lin, mid, message, sizeof message);
    }
  free (lin);
  free (mid);
  return t;
}

void
cc_transfer_free (CcTransfer *t)
{
  if (t)
    free (t->steps);
  free (t);
}

CcType
cc_transfer_type (const CcTransfer *t)
{
  return t->type;
}

double
cc_transfer_decode (const CcTransfer *t, int c, unsigned code)
{
  const int k = cc_transfer_curve (t, c);

  return t->to_linear[(size_t) k * t->codes + (code < (unsigned) t->codes ? code : 0)];
}

unsigned
cc_transfer_encode (const CcTransfer *t, int c, double linear)
{
  const int k = cc_transfer_curve (t, c);

  return (unsigned) cc_transfer_code ((float) linear, t->midpoints + (size_t) k * t->codes,
                                      t->steps + (size_t) k * (t->buckets + 2), t->buckets);
}
