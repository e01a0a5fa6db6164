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

/* Written once for both integer types and, through an inlined body with
 * constant channel counts, for each layout: one pass over the pixels, a
 * look-up a colour sample, no test a sample of which channel it is. */
#define ENCODE(T, C, COLOUR) \
  encode_pixels_##T (in, t, steps, mid, C, COLOUR, count / (C), out)
#define TRANSFER_ROWS(T, SCALE, TO_INT)                                               \
  static inline __attribute__ ((always_inline)) void                              \
  decode_pixels_##T (const T *in, const float *const *lut, int C, int colour,      \
                     int64_t pixels, float *out)                                  \
  {                                                                               \
    for (int64_t p = 0; p < pixels; p++, in += C, out += C)                       \
      for (int c = 0; c < C; c++)                                                 \
        out[c] = c < colour ? lut[c][in[c]] : in[c] * (SCALE);                    \
  }                                                                               \
                                                                                  \
  static void                                                                     \
  decode_##T (const T *in, const CcTransfer *t, int C, int colour, int64_t count,  \
              float *out)                                                         \
  {                                                                               \
    const float *lut[4];                                                          \
                                                                                  \
    for (int c = 0; c < C; c++)                                                   \
      lut[c] = t->to_linear + (size_t) cc_transfer_curve (t, c < colour ? c : 0) * t->codes; \
    switch (C * 8 + colour)                                                       \
      {                                                                           \
      case 4 * 8 + 3: decode_pixels_##T (in, lut, 4, 3, count / 4, out); break;   \
      case 4 * 8 + 4: decode_pixels_##T (in, lut, 4, 4, count / 4, out); break;   \
      case 3 * 8 + 3: decode_pixels_##T (in, lut, 3, 3, count / 3, out); break;   \
      case 2 * 8 + 1: decode_pixels_##T (in, lut, 2, 1, count / 2, out); break;   \
      default: decode_pixels_##T (in, lut, C, colour, count / C, out); break;     \
      }                                                                           \
  }                                                                               \
                                                                                  \
  static inline __attribute__ ((always_inline)) void                              \
  encode_pixels_##T (const float *in, const CcTransfer *t,                        \
                     const CcTransferStep *const *steps, const float *const *mid, \
                     int C, int colour, int64_t pixels, T *out)                   \
  {                                                                               \
    if (t->single)                                                                \
      for (int64_t p = 0; p < pixels; p++, in += C, out += C)                     \
        for (int c = 0; c < C; c++)                                               \
          out[c] = c < colour ? (T) cc_transfer_code_single (in[c], steps[c],     \
                                                             t->buckets)          \
                              : TO_INT (in[c]);                                   \
    else                                                                          \
      for (int64_t p = 0; p < pixels; p++, in += C, out += C)                     \
        for (int c = 0; c < C; c++)                                               \
          out[c] = c < colour ? (T) cc_transfer_code (in[c], mid[c], steps[c],    \
                                                      t->buckets)                 \
                              : TO_INT (in[c]);                                   \
  }                                                                               \
                                                                                  \
  static void                                                                     \
  encode_##T (const float *in, const CcTransfer *t, int C, int colour,            \
              int64_t count, T *out)                                              \
  {                                                                               \
    const CcTransferStep *steps[4];                                               \
    const float *mid[4];                                                          \
                                                                                  \
    for (int c = 0; c < C; c++)                                                   \
      {                                                                           \
        const int k = cc_transfer_curve (t, c < colour ? c : 0);                  \
        steps[c] = t->steps + (size_t) k * (t->buckets + 2);                      \
        mid[c] = t->midpoints + (size_t) k * t->codes;                            \
      }                                                                           \
    switch (C * 8 + colour)                                                       \
      {                                                                           \
      case 4 * 8 + 3: ENCODE (T, 4, 3); break;                                    \
      case 4 * 8 + 4: ENCODE (T, 4, 4); break;                                    \
      case 3 * 8 + 3: ENCODE (T, 3, 3); break;                                    \
      case 2 * 8 + 1: ENCODE (T, 2, 1); break;                                    \
      default: ENCODE (T, C, colour); break;                                      \
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
