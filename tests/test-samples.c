/* Samples and their conversions: half precision both ways (every half,
 * and floats between halves against the compiler's own rounding), the
 * integer conversions' clamping and rounding, and transfer tables (what is
 * refused, and the sRGB encoder and decoder code by code against the exact
 * curve in double precision).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine.h"
#include "pixel.h"

static void
test_half (void)
{
  int bad = 0;

  /* Every half value survives half -> float -> half. */
  for (uint32_t h = 0; h < 65536 && bad < 5; h++)
    {
      float f = cc_half_to_float ((uint16_t) h);
      if (isnan (f))
        continue;
      if (!CHECK (cc_float_to_half (f) == h, "half 0x%04x -> %g -> 0x%04x", h, f,
                  cc_float_to_half (f)))
        bad++;
    }
#ifdef __FLT16_MAX__
  /* Rounding of floats between halves against the compiler's own. */
  for (uint32_t u = 0; u < 0xffffffffu - 4093 && bad < 10; u += 4093)
    {
      union { uint32_t u; float f; } x = { u };
      _Float16 ref = (_Float16) x.f;
      uint16_t want;

      if (isnan (x.f))
        continue;
      memcpy (&want, &ref, 2);
      if (!CHECK (cc_float_to_half (x.f) == want, "float %a -> half 0x%04x, want 0x%04x",
                  x.f, cc_float_to_half (x.f), want))
        bad++;
    }
#endif
  CHECK (cc_float_to_u8 (0.5f) == 128 && cc_float_to_u8 (-1) == 0 && cc_float_to_u8 (2) == 255 &&
         cc_float_to_u8 (NAN) == 0 && cc_float_to_u16 (1.0f) == 65535 &&
         cc_double_to_u32 (1.0) == 4294967295u, "integer conversions clamp and round");
}

/* Transfer tables: what is refused, and the encoder against the exact
 * sRGB curve for every 8-bit code, every 16-bit one, and the points
 * between them. */
static void
test_transfer (void)
{
  static const CcType types[] = { CC_TYPE_U8, CC_TYPE_U16 };
  float lin[3 * 256], mid[3 * 255];
  char msg[256];
  CcTransfer *t;

  for (int i = 0; i < 256; i++)
    lin[i] = i / 255.0f;
  for (int i = 0; i < 255; i++)
    mid[i] = (i + 0.5f) / 255.0f;
  CHECK (!cc_transfer_new (CC_TYPE_FLOAT, 1, lin, mid, msg, sizeof msg) && strstr (msg, "u8"),
         "a float transfer is refused: %s", msg);
  CHECK (!cc_transfer_new (CC_TYPE_U8, 2, lin, mid, msg, sizeof msg) && strstr (msg, "curves"),
         "two curves are refused: %s", msg);
  mid[100] = lin[102];
  CHECK (!cc_transfer_new (CC_TYPE_U8, 1, lin, mid, msg, sizeof msg) && strstr (msg, "100"),
         "a midpoint past the next code is refused: %s", msg);
  mid[100] = 100.5f / 255.0f;
  lin[7] = NAN;
  CHECK (!cc_transfer_new (CC_TYPE_U8, 1, lin, mid, msg, sizeof msg), "NaN is refused");
  lin[7] = 7 / 255.0f;
  t = cc_transfer_new (CC_TYPE_U8, 1, lin, mid, msg, sizeof msg);
  CHECK (t && cc_transfer_encode (t, 0, 0.5 / 255) == 1 && cc_transfer_encode (t, 0, -3) == 0 &&
         cc_transfer_encode (t, 0, NAN) == 0 && cc_transfer_encode (t, 0, 2) == 255,
         "the identity curve rounds to nearest, clamps, and takes NaN to 0");
  cc_transfer_free (t);

  for (int k = 0; k < 2; k++)
    {
      const double max = types[k] == CC_TYPE_U8 ? 255 : 65535;
      int bad = 0;

      t = cc_transfer_new_srgb (types[k]);
      for (unsigned code = 0; code <= max; code++)
        {
          const double v = code / max;
          const double linear = v <= 0.04045 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
          const double next = (code + 0.5) / max;
          const double above = next <= 0.04045 ? next / 12.92
                                               : pow ((next + 0.055) / 1.055, 2.4);

          bad += fabs (cc_transfer_decode (t, 0, code) - linear) > 1e-7 ||
                 cc_transfer_encode (t, 0, linear) != code ||
                 (code < max && (cc_transfer_encode (t, 0, above * 0.999999) != code ||
                                 cc_transfer_encode (t, 0, above * 1.000001) != code + 1));
        }
      CHECK (bad == 0, "sRGB %s: %d codes decode or encode wrong", cc_type_name (types[k]),
             bad);
      cc_transfer_free (t);
    }
}

int
main (void)
{
  test_half ();
  test_transfer ();
  printf ("%s: %d failure%s\n", check_failures ? "FAIL" : "PASS", (int) check_failures,
          check_failures == 1 ? "" : "s");
  return check_failures ? 1 : 0;
}
