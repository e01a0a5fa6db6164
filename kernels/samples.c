/* Rows of samples of any type to float and back (host side).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "engine.h"
#include "pixel.h"
#include "samples.h"

CC_HOT void
cc_samples_to_float (const void *row, CcType type, int64_t first, int64_t count,
                     float *out)
{
  int64_t i;

  switch (type)
    {
    case CC_TYPE_U8:
      for (i = 0; i < count; i++)
        out[i] = ((const uint8_t *) row)[first + i] * (1.0f / 255.0f);
      break;
    case CC_TYPE_U16:
      for (i = 0; i < count; i++)
        out[i] = ((const uint16_t *) row)[first + i] * (1.0f / 65535.0f);
      break;
    case CC_TYPE_U32:
      for (i = 0; i < count; i++)
        out[i] = (float) (((const uint32_t *) row)[first + i] / 4294967295.0);
      break;
    case CC_TYPE_HALF:
      for (i = 0; i < count; i++)
        out[i] = cc_half_to_float (((const uint16_t *) row)[first + i]);
      break;
    case CC_TYPE_FLOAT:
      for (i = 0; i < count; i++)
        out[i] = ((const float *) row)[first + i];
      break;
    default:
      for (i = 0; i < count; i++)
        out[i] = (float) ((const double *) row)[first + i];
      break;
    }
}

CC_HOT void
cc_samples_from_float (const float *in, int64_t count, CcType type, void *row)
{
  int64_t i;

  switch (type)
    {
    case CC_TYPE_U8:
      for (i = 0; i < count; i++)
        ((uint8_t *) row)[i] = cc_float_to_u8 (in[i]);
      break;
    case CC_TYPE_U16:
      for (i = 0; i < count; i++)
        ((uint16_t *) row)[i] = cc_float_to_u16 (in[i]);
      break;
    case CC_TYPE_U32:
      for (i = 0; i < count; i++)
        ((uint32_t *) row)[i] = cc_double_to_u32 (in[i]);
      break;
    case CC_TYPE_HALF:
      for (i = 0; i < count; i++)
        ((uint16_t *) row)[i] = cc_float_to_half (in[i]);
      break;
    case CC_TYPE_FLOAT:
      for (i = 0; i < count; i++)
        ((float *) row)[i] = in[i];
      break;
    default:
      for (i = 0; i < count; i++)
        ((double *) row)[i] = in[i];
      break;
    }
}

/* Which curve colour channel c takes. */
static inline int
curve_of (const CcTransfer *t, int c)
{
  return t->curves == 1 ? 0 : c;
}

/* Written once for both integer types; every channel's loop is a plain
 * one, alpha's included, so that a row costs a look-up a colour sample. */
#define TRANSFER_ROWS(T, SCALE, TO_INT)                                           \
  static void                                                                     \
  decode_##T (const T *in, const CcTransfer *t, int C, int colour, int64_t count,  \
              float *out)                                                         \
  {                                                                               \
    for (int c = 0; c < C; c++)                                                   \
      {                                                                           \
        const float *lut = t->to_linear + (size_t) curve_of (t, c) * t->codes;    \
                                                                                  \
        if (c < colour)                                                           \
          for (int64_t i = c; i < count; i += C)                                  \
            out[i] = lut[in[i]];                                                  \
        else                                                                      \
          for (int64_t i = c; i < count; i += C)                                  \
            out[i] = in[i] * (SCALE);                                             \
      }                                                                           \
  }                                                                               \
                                                                                  \
  static void                                                                     \
  encode_##T (const float *in, const CcTransfer *t, int C, int colour,            \
              int64_t count, T *out)                                              \
  {                                                                               \
    for (int c = 0; c < C; c++)                                                   \
      {                                                                           \
        const int k = curve_of (t, c);                                            \
        const float *mid = t->midpoints + (size_t) k * t->codes;                  \
        const uint16_t *guess = t->guess + (size_t) k * CC_TRANSFER_GUESSES;      \
                                                                                  \
        if (c < colour)                                                           \
          for (int64_t i = c; i < count; i += C)                                  \
            out[i] = (T) cc_transfer_code (in[i], mid, guess);                    \
        else                                                                      \
          for (int64_t i = c; i < count; i += C)                                  \
            out[i] = TO_INT (in[i]);                                              \
      }                                                                           \
  }

TRANSFER_ROWS (uint8_t, 1.0f / 255.0f, cc_float_to_u8)
TRANSFER_ROWS (uint16_t, 1.0f / 65535.0f, cc_float_to_u16)

CC_HOT void
cc_samples_decode (const void *row, const CcTransfer *t, int C, int colour,
                   int64_t first, int64_t count, float *out)
{
  if (t->type == CC_TYPE_U8)
    decode_uint8_t ((const uint8_t *) row + first, t, C, colour, count, out);
  else
    decode_uint16_t ((const uint16_t *) row + first, t, C, colour, count, out);
}

CC_HOT void
cc_samples_encode (const float *in, int64_t count, int C, int colour,
                   const CcTransfer *t, void *row)
{
  if (t->type == CC_TYPE_U8)
    encode_uint8_t (in, t, C, colour, count, row);
  else
    encode_uint16_t (in, t, C, colour, count, row);
}

double
cc_sample_get (const void *row, CcType type, int64_t i)
{
  switch (type)
    {
    case CC_TYPE_U8:    return ((const uint8_t *) row)[i] / 255.0;
    case CC_TYPE_U16:   return ((const uint16_t *) row)[i] / 65535.0;
    case CC_TYPE_U32:   return ((const uint32_t *) row)[i] / 4294967295.0;
    case CC_TYPE_HALF:  return cc_half_to_float (((const uint16_t *) row)[i]);
    case CC_TYPE_FLOAT: return ((const float *) row)[i];
    default:            return ((const double *) row)[i];
    }
}

void
cc_sample_set (void *row, CcType type, int64_t i, double v)
{
  switch (type)
    {
    case CC_TYPE_U8:
      ((uint8_t *) row)[i] = (uint8_t) (cc_clamp01 (v) * 255.0 + 0.5);
      break;
    case CC_TYPE_U16:
      ((uint16_t *) row)[i] = (uint16_t) (cc_clamp01 (v) * 65535.0 + 0.5);
      break;
    case CC_TYPE_U32:
      ((uint32_t *) row)[i] = cc_double_to_u32 (v);
      break;
    case CC_TYPE_HALF:
      ((uint16_t *) row)[i] = cc_float_to_half ((float) v);
      break;
    case CC_TYPE_FLOAT:
      ((float *) row)[i] = (float) v;
      break;
    default:
      ((double *) row)[i] = v;
      break;
    }
}
