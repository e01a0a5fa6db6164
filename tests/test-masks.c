/* Masks as the front ends make them: GIMP's normalize rule, the text
 * form (parse, format, refusals), cc_mask_resolve (values, the identity,
 * images, presets and the order it takes them in), the shapes (their
 * areas against sampled shapes, small steps of a slider giving small
 * steps of the mask, refusals), and the halo a front end reads for a mask
 * (cc_region_input).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine.h"

static void
test_normalize (void)
{
  double pos[3] = { 1, 2, 1 }, neg[3] = { -1, -2, 0 }, zero[3] = { -1, 2, -1 };
  CcMask m = { 3, 1, pos, 7.0, 0.25 };

  cc_mask_normalize (&m);
  CHECK (m.divisor == 4.0 && m.offset == 0.25, "normalize, sum > 0: %g %g", m.divisor, m.offset);
  m.values = neg;
  cc_mask_normalize (&m);
  CHECK (m.divisor == 3.0 && m.offset == 1.0, "normalize, sum < 0: %g %g", m.divisor, m.offset);
  m.values = zero;
  cc_mask_normalize (&m);
  CHECK (m.divisor == 1.0 && m.offset == 0.5, "normalize, sum = 0: %g %g", m.divisor, m.offset);
}

static void
test_mask_text (void)
{
  static const char *bad[] = {
    "", "1,2", "1;2", "1,2,3;4,5", "1,,2", "1,x,3", "nan", "1,inf,1", "1e999",
    "1,2,3;4,5,6;7,8", "1;;;", ",1", "0.5 0.5 0.5"
  };
  char msg[256], *text;
  double *v;
  int w, h;

  CHECK (cc_mask_parse ("0,1,0;1,-4,1;0,1,0", &w, &h, &v, msg, sizeof msg) &&
         w == 3 && h == 3 && v[4] == -4.0 && v[5] == 1.0, "parse a 3x3 Laplacian");
  text = cc_mask_format (w, h, v);
  CHECK (text && strcmp (text, "0,1,0;1,-4,1;0,1,0") == 0, "format gave '%s'", text);
  free (text);
  free (v);
  CHECK (cc_mask_parse (" 1 , 2 , 1 \n", &w, &h, &v, msg, sizeof msg) && w == 3 && h == 1,
         "spaces and a trailing new line");
  free (v);
  {
    double third[3] = { 1.0 / 3, 0.1, -2.5e-7 };
    double *back;
    text = cc_mask_format (3, 1, third);
    CHECK (cc_mask_parse (text, &w, &h, &back, msg, sizeof msg) &&
           memcmp (back, third, sizeof third) == 0, "round trip of '%s'", text);
    free (back);
    free (text);
  }
  /* Under a locale with decimal commas the text form is unchanged. */
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") || setlocale (LC_NUMERIC, "fr_FR.UTF-8"))
    {
      double half[3] = { 0.5, 1, 0.25 };
      CHECK (cc_mask_parse ("0.5,1,0.25", &w, &h, &v, msg, sizeof msg) && w == 3 &&
             v[0] == 0.5 && v[2] == 0.25, "parse under a decimal-comma locale");
      free (v);
      text = cc_mask_format (3, 1, half);
      CHECK (strcmp (text, "0.5,1,0.25") == 0, "format under a decimal-comma locale: %s", text);
      free (text);
      setlocale (LC_NUMERIC, "C");
    }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      msg[0] = '\0';
      CHECK (!cc_mask_parse (bad[i], &w, &h, &v, msg, sizeof msg) && msg[0],
             "'%s' must be refused with a reason", bad[i]);
    }
}

/* Every bad call is refused with a message, and leaves the output alone. */
/* cc_mask_resolve, the one resolution of every front end's mask: text or
 * values, the identity where none are given, normalize, and each fault
 * refused with its word. */
static void
test_mask_resolve (void)
{
  static const double box[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  static const double nan3[3] = { 1, NAN, 1 };
  static const struct
  {
    CcMaskSource source;
    const char *word;   /* NULL: taken */
  } refused[] = {
    { { .values = box, .n_values = 9, .width = 4, .height = 3, .divisor = 1.0 }, "odd" },
    { { .values = box, .n_values = 9, .width = CC_MASK_MAX + 2, .height = 1, .divisor = 1.0 },
      "odd" },
    { { .values = box, .n_values = 8, .width = 3, .height = 3, .divisor = 1.0 }, "8 values" },
    { { .values = nan3, .n_values = 3, .width = 3, .height = 1, .divisor = 1.0 }, "finite" },
    { { .values = box, .n_values = 9, .width = 3, .height = 3 }, "divisor" },
    { { .values = box, .n_values = 9, .width = 3, .height = 3, .divisor = 1.0,
        .offset = INFINITY }, "offset" },
    { { .text = "1,2;3,4", .divisor = 1.0 }, "odd" },
    { { .text = "1,x,1", .divisor = 1.0 }, "number" },
  };
  CcMaskSource identity = { .width = 5, .height = 3, .divisor = 1.0 };
  CcMaskSource text = { .text = "1,2,1", .normalize = true };
  CcMaskSource values = { .values = box, .n_values = 9, .width = 3, .height = 3, .offset = 0.25,
                          .normalize = true };
  char msg[256];
  double *v;
  CcMask m;

  CHECK (cc_mask_resolve (&identity, &m, &v, msg, sizeof msg) && m.width == 5 &&
         m.height == 3 && v[7] == 1.0 && v[0] == 0.0 && m.divisor == 1.0,
         "no values: the 5x3 identity (%s)", msg);
  free (v);
  CHECK (cc_mask_resolve (&text, &m, &v, msg, sizeof msg) && m.width == 3 && m.height == 1 &&
         v[1] == 2.0 && m.divisor == 4.0 && m.values == v,
         "text, normalized: 1,2,1 over 4 (%s)", msg);
  free (v);
  CHECK (cc_mask_resolve (&values, &m, &v, msg, sizeof msg) && m.divisor == 9.0 &&
         m.offset == 0.25 && v != box,
         "values, normalized: a copy over 9, the offset kept (%s)", msg);
  free (v);
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    {
      msg[0] = '\0';
      CHECK (!cc_mask_resolve (&refused[i].source, &m, &v, msg, sizeof msg) && !v &&
             strstr (msg, refused[i].word),
             "refused with '%s': %s", refused[i].word, msg);
    }

  /* An image as luminance and alpha: a 4x3 image is a 5x3 mask of their
   * products, its last column zero, scaled to sum 1; the shape, the text
   * and normalize ignored. */
  {
    static const float weights[24] = { 1, 1, 4, 0.5f, 3, 1, 8, 0.5f, 0, 1, 5, 0, 0, 1, 2, 1,
                                       1, 0.5f, 0.5f, 1, 0, 0, 6, 0.5f };
    static const float zero[8] = { 0, 1, 0, 1, 1, 0, 0, 0 }, negative[4] = { 1, 1, -3, 1 };
    static const float bad[6] = { 1, 1, NAN, 1, 1, 1 };
    CcMaskSource image = { .text = "1,x", .divisor = 5.0, .offset = 0.5, .normalize = true,
                           .shape = { CC_SHAPE_DISC, 3, 0, 0, 0 }, .image = weights,
                           .image_width = 4, .image_height = 3 };
    static const struct { const float *px; int64_t w, h; const char *word; } no[] = {
      { zero, 2, 2, "all zero" }, { negative, 2, 1, "sum to -2" }, { bad, 3, 1, "finite" },
      { zero, 0, 4, "empty" }, { zero, CC_MASK_MAX + 1, 1, "masks go to" },
    };
    double sum = 0.0;

    if (CHECK (cc_mask_resolve (&image, &m, &v, msg, sizeof msg) && m.width == 5 &&
               m.height == 3 && m.divisor == 1.0 && m.offset == 0.0, "a 4x3 image: %s", msg))
      {
        for (int k = 0; k < 15; k++)
          sum += v[k];
        CHECK (fabs (sum - 1.0) < 1e-12 && v[4] == 0.0 && v[9] == 0.0 && v[14] == 0.0 &&
               fabs (v[3] - 4.0 / 16.0) < 1e-12 && fabs (v[13] - 3.0 / 16.0) < 1e-12,
               "a 4x3 image's weights over their sum 16, a zero column at the right");
        free (v);
      }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
      {
        image.image = no[i].px;
        image.image_width = no[i].w;
        image.image_height = no[i].h;
        msg[0] = '\0';
        CHECK (!cc_mask_resolve (&image, &m, &v, msg, sizeof msg) && !v &&
               strstr (msg, no[i].word), "an image refused with '%s': %s", no[i].word, msg);
      }
  }
}

/* ---- Shapes: each against its cell coverage computed here, by sampling
 * the shape's definition written again (not the engine's areas). */

static double
shape_at (const CcShapeSpec *s, double x, double y)
{
  const double r = s->radius, t = s->angle * M_PI / 180.0;

  switch (s->shape)
    {
    case CC_SHAPE_GAUSSIAN:
      {
        const double sigma = r / 3.0;

        return fabs (x) <= r && fabs (y) <= r
               ? exp (-(x * x + y * y) / (2 * sigma * sigma)) : 0.0;
      }
    case CC_SHAPE_DISC:
      return x * x + y * y <= r * r;
    case CC_SHAPE_RING:
      return x * x + y * y <= r * r && x * x + y * y > s->inner * s->inner * r * r;
    case CC_SHAPE_BOX:
      return fabs (x) <= r + 0.5 && fabs (y) <= r + 0.5;
    case CC_SHAPE_MOTION:
      return fabs (x * cos (t) - y * sin (t)) <= r + 0.5 &&
             fabs (x * sin (t) + y * cos (t)) <= 0.5;
    case CC_SHAPE_POLYGON:
      /* Inside every side: each side's normal points between two corners,
       * a corner at the top for angle 0. */
      for (int k = 0; k < s->blades; k++)
        {
          const double b = t + M_PI / 2 + (2 * k + 1) * M_PI / s->blades;

          if (x * cos (b) - y * sin (b) > r * cos (M_PI / s->blades))
            return 0.0;
        }
      return 1.0;
    default:
      return 0.0;
    }
}

/* The mask sampled at n x n points a cell, of the size the engine chose,
 * scaled to sum 1; the raw sum (the shape's area, in cells) in *area. */
static double *
sampled_shape (const CcShapeSpec *s, int w, int h, int n, double *area)
{
  double *m = calloc ((size_t) w * h, sizeof (double)), sum = 0.0;

  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      {
        double v = 0.0;

        for (int b = 0; b < n; b++)
          for (int a = 0; a < n; a++)
            v += shape_at (s, i - w / 2 - 0.5 + (a + 0.5) / n, j - h / 2 - 0.5 + (b + 0.5) / n);
        sum += m[j * w + i] = v / (n * n);
      }
  for (int k = 0; k < w * h; k++)
    m[k] /= sum;
  *area = sum;
  return m;
}

static void
test_shapes (void)
{
  static const CcShapeSpec cases[] = {
    { CC_SHAPE_GAUSSIAN, 4.0, 0, 0, 0 }, { CC_SHAPE_GAUSSIAN, 10.3, 0, 0, 0 },
    { CC_SHAPE_DISC, 0.5, 0, 0, 0 }, { CC_SHAPE_DISC, 3.7, 0, 0, 0 },
    { CC_SHAPE_DISC, 12.0, 0, 0, 0 },
    { CC_SHAPE_POLYGON, 6.0, 0, 6, 0 }, { CC_SHAPE_POLYGON, 9.4, 17.0, 5, 0 },
    { CC_SHAPE_POLYGON, 5.0, 45.0, 3, 0 }, { CC_SHAPE_POLYGON, 7.5, -30.0, 12, 0 },
    { CC_SHAPE_RING, 8.0, 0, 0, 0.5 }, { CC_SHAPE_RING, 6.3, 0, 0, 0.9 },
    { CC_SHAPE_BOX, 2.0, 0, 0, 0 }, { CC_SHAPE_BOX, 3.25, 0, 0, 0 },
    { CC_SHAPE_MOTION, 7.0, 0, 0, 0 }, { CC_SHAPE_MOTION, 9.0, 30.0, 0, 0 },
    { CC_SHAPE_MOTION, 5.5, 90.0, 0, 0 }, { CC_SHAPE_MOTION, 8.0, 135.0, 0, 0 },
  };
  char msg[256];

  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      const CcShapeSpec *s = &cases[c];
      double *v, *want, area, sum = 0.0, worst = 0.0;
      CcMask m;

      if (!CHECK (cc_mask_shape (s, &m, &v, msg, sizeof msg), "%s radius %g: %s",
                  cc_shape_name (s->shape), s->radius, msg))
        continue;
      want = sampled_shape (s, m.width, m.height, 128, &area);
      for (int k = 0; k < m.width * m.height; k++)
        {
          sum += v[k];
          worst = fmax (worst, fabs (v[k] - want[k]) * area);
        }
      /* Sampling finds an edge within 1/128 of a cell along its crossing
       * (at most about 1.5 cells long), which bounds a cell's error. */
      CHECK (fabs (sum - 1.0) < 1e-12 && m.divisor == 1.0 && m.offset == 0.0 &&
             (m.width & 1) && (m.height & 1) &&
             worst < (s->shape == CC_SHAPE_GAUSSIAN ? 1e-3 : 0.012),
             "%s radius %g, angle %g: %dx%d, sum %.15g, worst cell %.4f of a cell's "
             "coverage off the sampled one", cc_shape_name (s->shape), s->radius, s->angle,
             m.width, m.height, sum, worst);
      /* The shape reaches the mask's edges (on one side at least: a
       * triangle is not symmetric about the centre), so the mask is no
       * larger than it needs. */
      {
        double columns = 0.0, rows = 0.0;

        for (int j = 0; j < m.height; j++)
          columns = fmax (columns, fmax (v[j * m.width], v[j * m.width + m.width - 1]));
        for (int i = 0; i < m.width; i++)
          rows = fmax (rows, fmax (v[i], v[(m.height - 1) * m.width + i]));
        CHECK (columns > 0.0 && rows > 0.0, "%s radius %g: empty edge rows or columns",
               cc_shape_name (s->shape), s->radius);
      }
      free (v);
      free (want);
    }
  /* A box of whole radius is an exact box. */
  {
    const CcShapeSpec box = { CC_SHAPE_BOX, 2.0, 0, 0, 0 };
    double *v;
    CcMask m;
    bool flat = cc_mask_shape (&box, &m, &v, msg, sizeof msg) && m.width == 5;

    for (int k = 0; flat && k < 25; k++)
      flat = fabs (v[k] - 1.0 / 25) < 1e-15;
    CHECK (flat, "box radius 2: a flat 5x5");
    free (v);
  }
}

/* The shape's area in cells, by its formula (a Gaussian: NAN, scaled by
 * its largest cell instead). */
static double
shape_area (const CcShapeSpec *s)
{
  const double r = s->radius;

  switch (s->shape)
    {
    case CC_SHAPE_DISC:    return M_PI * r * r;
    case CC_SHAPE_RING:    return M_PI * r * r * (1.0 - s->inner * s->inner);
    case CC_SHAPE_BOX:     return (2 * r + 1) * (2 * r + 1);
    case CC_SHAPE_MOTION:  return 2 * r + 1;
    case CC_SHAPE_POLYGON: return 0.5 * s->blades * r * r * sin (2 * M_PI / s->blades);
    default:               return NAN;
    }
}

/* A slider moved by 0.1 px (or 0.5 degrees) changes each cell's coverage
 * by at most what the edges crossing it sweep (a corner cell has two:
 * 0.1 x 2 and a little), and the mask grows by cells that start empty. */
static void
test_shape_steps (void)
{
  static const CcShapeSpec shapes[] = {
    { CC_SHAPE_GAUSSIAN, 0, 0, 0, 0 }, { CC_SHAPE_DISC, 0, 0, 0, 0 },
    { CC_SHAPE_POLYGON, 0, 10.0, 7, 0 }, { CC_SHAPE_RING, 0, 0, 0, 0.6 },
    { CC_SHAPE_BOX, 0, 0, 0, 0 }, { CC_SHAPE_MOTION, 0, 20.0, 0, 0 },
  };
  char msg[256];

  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++)
    for (int turn = 0; turn < 2; turn++)
      {
        double worst = 0.0, at = 0.0;

        for (int step = 10; step < 150; step++)
          {
            CcShapeSpec a = shapes[c], b = shapes[c];
            double *va, *vb, sa, sb;
            CcMask ka, kb;

            a.radius = b.radius = step / 10.0;
            if (turn)
              b.angle += 0.5;
            else
              b.radius += 0.1;
            if (!cc_mask_shape (&a, &ka, &va, msg, sizeof msg) ||
                !cc_mask_shape (&b, &kb, &vb, msg, sizeof msg))
              {
                CHECK (false, "%s: %s", cc_shape_name (a.shape), msg);
                break;
              }
            sa = shape_area (&a);
            sb = shape_area (&b);
            if (isnan (sa))
              {
                sa = 1.0 / va[ka.height / 2 * ka.width + ka.width / 2];
                sb = 1.0 / vb[kb.height / 2 * kb.width + kb.width / 2];
              }
            /* b's cells, a's centred in them (a is never the larger). */
            for (int j = 0; j < kb.height; j++)
              for (int i = 0; i < kb.width; i++)
                {
                  const int ai = i - (kb.width - ka.width) / 2;
                  const int aj = j - (kb.height - ka.height) / 2;
                  const double x = ai >= 0 && ai < ka.width && aj >= 0 && aj < ka.height
                                   ? va[aj * ka.width + ai] * sa : 0.0;
                  const double d = fabs (vb[j * kb.width + i] * sb - x);

                  if (d > worst)
                    {
                      worst = d;
                      at = a.radius;
                    }
                }
            free (va);
            free (vb);
          }
        CHECK (worst < 0.22, "%s, %s: a cell's coverage moved by %.3f at radius %.1f",
               cc_shape_name (shapes[c].shape), turn ? "0.5 degrees" : "0.1 px", worst, at);
      }
}

static void
test_shape_errors (void)
{
  static const struct
  {
    CcShapeSpec spec;
    const char *word;
  } bad[] = {
    { { CC_SHAPE_DISC, 0.0, 0, 0, 0 }, "radius" },
    { { CC_SHAPE_DISC, 600.0, 0, 0, 0 }, "radius" },
    { { CC_SHAPE_DISC, NAN, 0, 0, 0 }, "radius" },
    { { CC_SHAPE_POLYGON, 5.0, 0, 2, 0 }, "blades" },
    { { CC_SHAPE_POLYGON, 5.0, 0, 13, 0 }, "blades" },
    { { CC_SHAPE_RING, 5.0, 0, 0, 0.96 }, "inner" },
    { { CC_SHAPE_MOTION, 5.0, INFINITY, 0, 0 }, "angle" },
  };
  char msg[256];
  double *v;
  CcMask m;

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      msg[0] = '\0';
      CHECK (!cc_mask_shape (&bad[i].spec, &m, &v, msg, sizeof msg) && !v &&
             strstr (msg, bad[i].word), "%s refused with '%s': %s",
             cc_shape_name (bad[i].spec.shape), bad[i].word, msg);
    }
}

/* The sets of borders each front end reads past its source's edges
 * itself: the plug-in's rows (a zero ghost row left as allocated), the
 * tool's rows (real rows only), the operation's rows and columns (GEGL's
 * loop abyss). */
#define ROWS_RENDER (CC_BORDER_BIT (CC_BORDER_ZERO) | CC_BORDER_BIT (CC_BORDER_EXTEND) | \
                     CC_BORDER_BIT (CC_BORDER_WRAP) | CC_BORDER_BIT (CC_BORDER_MIRROR))
#define ROWS_TOOL   (CC_BORDER_BIT (CC_BORDER_EXTEND) | CC_BORDER_BIT (CC_BORDER_WRAP) | \
                     CC_BORDER_BIT (CC_BORDER_MIRROR))
#define WRAP_OP     CC_BORDER_BIT (CC_BORDER_WRAP)

static bool
rect_is (const CcRect *a, int64_t x, int64_t y, int64_t width, int64_t height)
{
  return a->x == x && a->y == y && a->width == width && a->height == height;
}

/* cc_region_input's answer for a source of 10x8 at 0,0. */
typedef struct
{
  const char *what;
  CcRect      out;
  int         width, height;
  CcBorder    border;
  unsigned    rows, columns;
  CcRect      input;
  int64_t     out_x, out_y;
  CcBorder    called;
} RegionCase;

static const RegionCase region_cases[] = {
  { "inside", { 3, 3, 2, 2 }, 5, 3, CC_BORDER_EXTEND, 0, 0, { 1, 2, 6, 4 }, 2, 1,
    CC_BORDER_EXTEND },
  { "top left, clipped", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_EXTEND, 0, 0, { 0, 0, 4, 3 }, 0, 0,
    CC_BORDER_EXTEND },
  { "bottom right, clipped", { 8, 6, 2, 2 }, 5, 3, CC_BORDER_ZERO, ROWS_TOOL, 0,
    { 6, 5, 4, 3 }, 2, 1, CC_BORDER_ZERO },
  { "wrap clipped: the whole width", { 0, 3, 2, 2 }, 5, 3, CC_BORDER_WRAP, 0, 0,
    { 0, 2, 10, 4 }, 0, 1, CC_BORDER_WRAP },
  { "wrap, rows read past the top", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_WRAP, ROWS_RENDER, 0,
    { 0, -1, 10, 4 }, 0, 1, CC_BORDER_WRAP },
  { "wrap read past every edge: border zero", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_WRAP,
    WRAP_OP, WRAP_OP, { -2, -1, 6, 4 }, 2, 1, CC_BORDER_ZERO },
  { "wrap read past every edge, inside", { 3, 3, 2, 2 }, 5, 3, CC_BORDER_WRAP, WRAP_OP,
    WRAP_OP, { 1, 2, 6, 4 }, 2, 1, CC_BORDER_ZERO },
  { "mirror clipped at one side", { 0, 3, 2, 2 }, 5, 3, CC_BORDER_MIRROR, 0, 0,
    { 0, 2, 4, 4 }, 0, 1, CC_BORDER_MIRROR },
  { "mirror, rows read past the top", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_MIRROR, ROWS_TOOL, 0,
    { 0, -1, 4, 4 }, 0, 1, CC_BORDER_MIRROR },
  { "black, the engine's ghost rows", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_BLACK, ROWS_RENDER, 0,
    { 0, 0, 4, 3 }, 0, 0, CC_BORDER_BLACK },
  { "white at the bottom right", { 8, 6, 2, 2 }, 5, 3, CC_BORDER_WHITE, ROWS_RENDER, 0,
    { 6, 5, 4, 3 }, 2, 1, CC_BORDER_WHITE },
  { "zero rows read as zeros", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_ZERO, ROWS_RENDER, 0,
    { 0, -1, 4, 4 }, 0, 1, CC_BORDER_ZERO },
  { "zero rows the engine's", { 0, 0, 2, 2 }, 5, 3, CC_BORDER_ZERO, ROWS_TOOL, 0,
    { 0, 0, 4, 3 }, 0, 0, CC_BORDER_ZERO },
  { "even mask inside", { 3, 3, 2, 2 }, 4, 2, CC_BORDER_EXTEND, 0, 0, { 2, 3, 5, 3 }, 1, 0,
    CC_BORDER_EXTEND },
  { "even mask at the bottom right", { 8, 6, 2, 2 }, 2, 4, CC_BORDER_EXTEND, 0, 0,
    { 8, 5, 2, 3 }, 0, 1, CC_BORDER_EXTEND },
  { "even mask, wrap read past every edge", { 0, 0, 2, 2 }, 4, 2, CC_BORDER_WRAP, WRAP_OP,
    WRAP_OP, { -1, 0, 5, 3 }, 1, 0, CC_BORDER_ZERO },
  { "mask past the image", { 3, 3, 2, 2 }, 31, 31, CC_BORDER_EXTEND, 0, 0, { 0, 0, 10, 8 },
    3, 3, CC_BORDER_EXTEND },
  { "mask past the image, wrap rows read", { 3, 3, 2, 2 }, 31, 31, CC_BORDER_WRAP,
    ROWS_TOOL, 0, { 0, -12, 10, 32 }, 3, 15, CC_BORDER_WRAP },
  { "output past the image: clipped", { -4, -2, 18, 12 }, 3, 3, CC_BORDER_EXTEND, 0, 0,
    { 0, 0, 10, 8 }, -4, -2, CC_BORDER_EXTEND },
  { "output outside the image: its own input", { 20, 0, 2, 2 }, 3, 3, CC_BORDER_EXTEND, 0, 0,
    { 20, 0, 2, 2 }, 0, 0, CC_BORDER_EXTEND },
  { "1x1: the output alone", { 0, 0, 10, 8 }, 1, 1, CC_BORDER_WRAP, ROWS_RENDER, 0,
    { 0, 0, 10, 8 }, 0, 0, CC_BORDER_WRAP },
};

static void
test_region_table (void)
{
  const CcRect source = { 0, 0, 10, 8 }, shifted = { 7, -5, 10, 8 };

  for (size_t i = 0; i < sizeof region_cases / sizeof region_cases[0]; i++)
    for (int moved = 0; moved < 2; moved++)
      {
        /* The same with the source at an offset, as GEGL's bounds may be. */
        const RegionCase *c = &region_cases[i];
        const int64_t dx = moved ? shifted.x : 0, dy = moved ? shifted.y : 0;
        const CcRect out = { c->out.x + dx, c->out.y + dy, c->out.width, c->out.height };
        const CcRegion r = cc_region_input (&out, moved ? &shifted : &source, c->width,
                                            c->height, c->border, c->rows, c->columns);

        CHECK (rect_is (&r.input, c->input.x + dx, c->input.y + dy, c->input.width,
                        c->input.height) &&
               r.out_x == c->out_x && r.out_y == c->out_y && r.border == c->called,
               "region, %s%s: %lld,%lld %lldx%lld, output at %lld,%lld, border %s", c->what,
               moved ? ", the source at an offset" : "", (long long) r.input.x,
               (long long) r.input.y, (long long) r.input.width, (long long) r.input.height,
               (long long) r.out_x, (long long) r.out_y, cc_border_name (r.border));
      }
}

/* Reads the region's input from a gray-and-alpha float source at 'source'
 * as a front end does: inside it its pixels, past its edges (where the
 * front end reads there) as the border maps them, a ghost zeros. */
static void
region_gather (const float *pixels, const CcRect *source, const CcRegion *r, CcBorder border,
               float *input)
{
  for (int64_t y = 0; y < r->input.height; y++)
    for (int64_t x = 0; x < r->input.width; x++)
      {
        const int64_t sy = cc_border_map (r->input.y + y - source->y, source->height, border);
        const int64_t sx = cc_border_map (r->input.x + x - source->x, source->width, border);
        float *to = input + 2 * (y * r->input.width + x);

        to[0] = to[1] = 0.0f;
        if (sx >= 0 && sy >= 0)
          memcpy (to, pixels + 2 * (sy * source->width + sx), 2 * sizeof (float));
      }
}

/* One output rectangle through the region a front end reads, against the
 * same rectangle of the whole source: byte for byte. */
static void
region_against_whole (CcContext *ctx, const float *pixels, const CcRect *source,
                      const CcRect *out, const CcMask *mask, CcBorder border, unsigned rows,
                      unsigned columns, const char *who)
{
  const CcRegion r = cc_region_input (out, source, mask->width, mask->height, border, rows,
                                      columns);
  const size_t px = 2 * sizeof (float);
  float *input = malloc ((size_t) (r.input.width * r.input.height) * px);
  float *got = malloc ((size_t) (out->width * out->height) * px);
  float *want = malloc ((size_t) (out->width * out->height) * px);
  CcImage whole = { (void *) pixels, CC_TYPE_FLOAT, 2, source->width, source->height,
                    (int64_t) (source->width * px), false };
  CcImage in = { input, CC_TYPE_FLOAT, 2, r.input.width, r.input.height,
                 (int64_t) (r.input.width * px), false };
  CcImage dst = { want, CC_TYPE_FLOAT, 2, out->width, out->height,
                  (int64_t) (out->width * px), false };
  CcOptions options;
  CcResult result;
  bool ok;

  cc_options_init (&options);
  options.method = CC_METHOD_CPU;
  options.clamp = false;
  options.has_alpha = true;
  options.border = border;
  region_gather (pixels, source, &r, border, input);
  ok = cc_convolve (ctx, &whole, out->x - source->x, out->y - source->y, &dst, mask, &options,
                    &result) == CC_OK;
  dst.data = got;
  options.border = r.border;
  ok = ok && cc_convolve (ctx, &in, r.out_x, r.out_y, &dst, mask, &options, &result) == CC_OK;
  CHECK (ok && memcmp (got, want, (size_t) (out->width * out->height) * px) == 0,
         "region, %s, border %s, mask %dx%d, %lldx%lld at %lld,%lld of %lldx%lld: the whole "
         "image's bytes", who, cc_border_name (border), mask->width, mask->height,
         (long long) out->width, (long long) out->height, (long long) out->x,
         (long long) out->y, (long long) source->width, (long long) source->height);
  free (input);
  free (got);
  free (want);
}

/* A span of an axis 'n' long: its first pixel, all of it, its last, its
 * middle, all but its ends. */
static bool
span (int64_t n, int k, int64_t *at, int64_t *length)
{
  const int64_t spans[5][2] = { { 0, 1 }, { 0, n }, { n - 1, 1 }, { n / 2, 1 },
                                { 1, n - 2 } };

  *at = spans[k][0];
  *length = spans[k][1];
  return *length > 0;
}

/* Every front end's regions on small images, each border and mask size
 * (past the image too), convolved from what they read. */
static void
test_region_pixels (void)
{
  static const int64_t sizes[] = { 1, 2, 5, 9 };
  static const int masks[][2] = { { 1, 1 }, { 3, 3 }, { 5, 3 }, { 3, 17 }, { 17, 5 } };
  CcContext *ctx = cc_context_new_cpu (1);

  for (size_t si = 0; si < 16; si++)
    {
      const CcRect source = { 7, -5, sizes[si % 4], sizes[si / 4] };
      const CcRect at_origin = { 0, 0, source.width, source.height };
      float *pixels = malloc ((size_t) (source.width * source.height) * 2 * sizeof (float));

      for (int64_t i = 0; i < source.width * source.height * 2; i++)
        pixels[i] = (float) check_uniform (0.0, 1.0);
      for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
        {
          const int mw = masks[m][0], mh = masks[m][1];
          double *values = malloc ((size_t) (mw * mh) * sizeof (double));
          const CcMask mask = { mw, mh, values, 1.0, 0.0 };

          for (int i = 0; i < mw * mh; i++)
            values[i] = check_uniform (-1.0, 1.0) / (mw * mh);
          for (int b = 0; b < CC_BORDER_COUNT; b++)
            for (int ky = 0; ky < 5; ky++)
              {
                CcRect out;

                if (!span (source.height, ky, &out.y, &out.height))
                  continue;
                out.x = 0;
                out.width = source.width;
                region_against_whole (ctx, pixels, &at_origin, &out, &mask, b, ROWS_TOOL, 0,
                                      "the tool's strip");
                for (int kx = 0; kx < 5; kx++)
                  {
                    if (!span (source.width, kx, &out.x, &out.width))
                      continue;
                    region_against_whole (ctx, pixels, &at_origin, &out, &mask, b,
                                          ROWS_RENDER, 0, "the plug-in's band");
                    out.x += source.x;
                    out.y += source.y;
                    region_against_whole (ctx, pixels, &source, &out, &mask, b, WRAP_OP,
                                          WRAP_OP, "the operation's region");
                    out.x -= source.x;
                    out.y -= source.y;
                  }
              }
          free (values);
        }
      free (pixels);
    }
  cc_context_free (ctx);
}

int
main (void)
{
  check_seed ();
  test_normalize ();
  test_mask_text ();
  test_mask_resolve ();
  test_shapes ();
  test_shape_steps ();
  test_shape_errors ();
  test_region_table ();
  test_region_pixels ();
  printf ("%s: %d failure%s\n", check_failures ? "FAIL" : "PASS", (int) check_failures,
          check_failures == 1 ? "" : "s");
  return check_failures ? 1 : 0;
}
