/* Masks made from shapes, one definition for every front end: each cell
 * weighs the area of the shape that covers it (a Gaussian: its integral
 * over the cell), so that a slowly moved slider changes the mask smoothly,
 * and the whole is scaled to sum 1.  Cell (i, j) covers [i - 0.5, i + 0.5]
 * x [j - 0.5, j + 0.5] about the centre; y grows downwards, as in an image,
 * and angles turn counter-clockwise as seen.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"

static const char *const shape_names[CC_SHAPE_COUNT] =
  { "matrix", "gaussian", "disc", "polygon", "ring", "box", "motion" };

const char *
cc_shape_name (CcShape shape)
{
  return (unsigned) shape < CC_SHAPE_COUNT ? shape_names[shape] : "?";
}

bool
cc_shape_from_name (const char *name, CcShape *shape)
{
  for (int s = 0; name && s < CC_SHAPE_COUNT; s++)
    if (strcmp (name, shape_names[s]) == 0)
      {
        *shape = (CcShape) s;
        return true;
      }
  return false;
}

const char *
cc_shape_names (void)
{
  return "matrix, gaussian, disc, polygon, ring, box, motion";
}

/* ---- Areas ------------------------------------------------------------------ */

/* The integral of sqrt (r^2 - t^2) from 0 to x, |x| <= r. */
static double
half_chord_integral (double r, double x)
{
  return 0.5 * (x * sqrt (fmax (r * r - x * x, 0.0)) + r * r * asin (fmax (-1.0, fmin (1.0, x / r))));
}

static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The area of the disc of radius r about the origin inside [x0, x1] x
 * [y0, y1]: the integral over x of the chord's part between y0 and y1,
 * split where the chord's ends cross y0 or y1, each piece in closed form. */
static double
disc_area (double r, double x0, double x1, double y0, double y1)
{
  double cuts[6];
  int n = 0;
  double area = 0.0;

  if (r <= 0.0)
    return 0.0;
  x0 = fmax (x0, -r);
  x1 = fmin (x1, r);
  if (x0 >= x1 || y0 >= r || y1 <= -r)
    return 0.0;
  cuts[n++] = x0;
  cuts[n++] = x1;
  for (int k = 0; k < 2; k++)
    {
      const double y = k ? y1 : y0;

      if (fabs (y) < r)
        {
          const double x = sqrt (r * r - y * y);

          if (x > x0 && x < x1)
            cuts[n++] = x;
          if (-x > x0 && -x < x1)
            cuts[n++] = -x;
        }
    }
  qsort (cuts, (size_t) n, sizeof cuts[0], compare_doubles);
  for (int k = 0; k + 1 < n; k++)
    {
      const double a = cuts[k], b = cuts[k + 1], m = 0.5 * (a + b);
      const double h = sqrt (fmax (r * r - m * m, 0.0));
      const double chord = half_chord_integral (r, b) - half_chord_integral (r, a);

      if (b <= a || fmin (y1, h) <= fmax (y0, -h))
        continue;
      /* Between the cuts the top is y1 or the circle, the bottom y0 or it. */
      area += (h < y1 ? chord : y1 * (b - a)) - (-h > y0 ? -chord : y0 * (b - a));
    }
  return area;
}

typedef struct
{
  double x, y;
} Point;

/* Clips a convex polygon to the half-plane s * (coordinate 'axis') <=
 * limit (Sutherland-Hodgman); returns the new vertex count. */
static int
clip (const Point *in, int n, Point *out, int axis, double s, double limit)
{
  int m = 0;

  for (int i = 0; i < n; i++)
    {
      const Point p = in[i], q = in[(i + 1) % n];
      const double pv = s * (axis ? p.y : p.x) - limit, qv = s * (axis ? q.y : q.x) - limit;

      if (pv <= 0.0)
        out[m++] = p;
      if ((pv <= 0.0) != (qv <= 0.0))
        {
          const double t = pv / (pv - qv);

          out[m++] = (Point) { p.x + t * (q.x - p.x), p.y + t * (q.y - p.y) };
        }
    }
  return m;
}

/* The area of a convex polygon inside [x0, x1] x [y0, y1]. */
static double
polygon_area (const Point *poly, int n, double x0, double x1, double y0, double y1)
{
  Point a[24], b[24];
  double area = 0.0;

  memcpy (a, poly, sizeof (Point) * n);
  n = clip (a, n, b, 0, 1.0, x1);
  n = clip (b, n, a, 0, -1.0, -x0);
  n = clip (a, n, b, 1, 1.0, y1);
  n = clip (b, n, a, 1, -1.0, -y0);
  for (int i = 0; i < n; i++)
    area += a[i].x * a[(i + 1) % n].y - a[(i + 1) % n].x * a[i].y;
  return 0.5 * fabs (area);
}

/* The overlap of [a0, a1] and [b0, b1]. */
static double
overlap (double a0, double a1, double b0, double b1)
{
  return fmax (0.0, fmin (a1, b1) - fmax (a0, b0));
}

/* The standard normal's mass in [a, b], in units of sigma. */
static double
normal_mass (double a, double b)
{
  return 0.5 * (erf (b / M_SQRT2) - erf (a / M_SQRT2));
}

/* ---- Shapes ------------------------------------------------------------------ */

/* Whether the spec's numbers are in range; if not, why. */
static bool
spec_check (const CcShapeSpec *spec, char *message, size_t size)
{
  const double r = spec->radius;

  if (spec->shape <= CC_SHAPE_MATRIX || spec->shape >= CC_SHAPE_COUNT)
    snprintf (message, size, "no shape to make a mask of");
  else if (!(r >= CC_SHAPE_RADIUS_MIN && r <= CC_SHAPE_RADIUS_MAX))
    snprintf (message, size, "radius %g: it must be %g to %g pixels", r, CC_SHAPE_RADIUS_MIN,
              CC_SHAPE_RADIUS_MAX);
  else if (!(fabs (spec->angle) <= CC_SHAPE_ANGLE_MAX))
    snprintf (message, size, "angle %g: it must be %g to %g degrees", spec->angle,
              -CC_SHAPE_ANGLE_MAX, CC_SHAPE_ANGLE_MAX);
  else if (spec->shape == CC_SHAPE_POLYGON &&
           (spec->blades < CC_SHAPE_BLADES_MIN || spec->blades > CC_SHAPE_BLADES_MAX))
    snprintf (message, size, "%d blades: a polygon has %d to %d", spec->blades,
              CC_SHAPE_BLADES_MIN, CC_SHAPE_BLADES_MAX);
  else if (spec->shape == CC_SHAPE_RING &&
           !(spec->inner >= 0.0 && spec->inner <= CC_SHAPE_INNER_MAX))
    snprintf (message, size, "inner %g: a ring's inner radius is 0 to %g of its radius",
              spec->inner, CC_SHAPE_INNER_MAX);
  else
    return true;
  return false;
}

/* A polygon's or a motion line's corners (up to 12), and the number of
 * them; 0 for the round shapes and the box. */
static int
outline (const CcShapeSpec *spec, Point *poly)
{
  const double r = spec->radius, turn = spec->angle * M_PI / 180.0;

  if (spec->shape == CC_SHAPE_POLYGON)
    {
      /* A corner at the top for angle 0. */
      for (int k = 0; k < spec->blades; k++)
        {
          const double a = turn + M_PI / 2 + 2 * M_PI * k / spec->blades;

          poly[k] = (Point) { r * cos (a), -r * sin (a) };
        }
      return spec->blades;
    }
  if (spec->shape == CC_SHAPE_MOTION)
    {
      /* A line 2r + 1 long and 1 wide, along the angle. */
      const double c = cos (turn), s = -sin (turn), l = r + 0.5;

      poly[0] = (Point) { l * c + 0.5 * s, l * s - 0.5 * c };
      poly[1] = (Point) { -l * c + 0.5 * s, -l * s - 0.5 * c };
      poly[2] = (Point) { -l * c - 0.5 * s, -l * s + 0.5 * c };
      poly[3] = (Point) { l * c - 0.5 * s, l * s + 0.5 * c };
      return 4;
    }
  return 0;
}

/* The area of the shape over the cell [x0, x1] x [y0, y1]. */
static double
cell_weight (const CcShapeSpec *spec, const Point *poly, int corners, double x0, double x1,
             double y0, double y1)
{
  const double r = spec->radius;

  switch (spec->shape)
    {
    case CC_SHAPE_GAUSSIAN:
      {
        /* Three standard deviations at the radius, cut off there. */
        const double sigma = r / 3.0;

        if (x1 <= -r || x0 >= r || y1 <= -r || y0 >= r)
          return 0.0;
        return normal_mass (fmax (x0, -r) / sigma, fmin (x1, r) / sigma) *
               normal_mass (fmax (y0, -r) / sigma, fmin (y1, r) / sigma);
      }
    case CC_SHAPE_DISC:
      return disc_area (r, x0, x1, y0, y1);
    case CC_SHAPE_RING:
      return disc_area (r, x0, x1, y0, y1) - disc_area (spec->inner * r, x0, x1, y0, y1);
    case CC_SHAPE_BOX:
      return overlap (x0, x1, -r - 0.5, r + 0.5) * overlap (y0, y1, -r - 0.5, r + 0.5);
    default:
      return polygon_area (poly, corners, x0, x1, y0, y1);
    }
}

bool
cc_mask_shape (const CcShapeSpec *spec, CcMask *mask, double **values, char *message,
               size_t size)
{
  const double r = spec->radius;
  Point poly[12];
  int corners, hx, hy, w, h;
  double ex, ey, sum = 0.0;

  *values = NULL;
  if (!spec_check (spec, message, size))
    return false;
  /* The shape's reach from the centre along x and y. */
  corners = outline (spec, poly);
  ex = ey = spec->shape == CC_SHAPE_BOX ? r + 0.5 : corners ? 0.0 : r;
  for (int k = 0; k < corners; k++)
    {
      ex = fmax (ex, fabs (poly[k].x));
      ey = fmax (ey, fabs (poly[k].y));
    }
  /* Cells that the reach enters (i - 0.5 < e); a rounding hair past a
   * cell's edge is not an entry. */
  hx = (int) ceil (ex + 0.5 - 1e-9) - 1;
  hy = (int) ceil (ey + 0.5 - 1e-9) - 1;
  hx = hx < 0 ? 0 : hx;
  hy = hy < 0 ? 0 : hy;
  w = 2 * hx + 1;
  h = 2 * hy + 1;
  if (w > CC_MASK_MAX || h > CC_MASK_MAX)
    {
      snprintf (message, size, "a %s of radius %g is a %dx%d mask; masks go to %dx%d",
                cc_shape_name (spec->shape), r, w, h, CC_MASK_MAX, CC_MASK_MAX);
      return false;
    }
  if (!(*values = calloc ((size_t) w * h, sizeof (double))))
    {
      snprintf (message, size, "out of memory");
      return false;
    }
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      {
        const double x0 = i - hx - 0.5, y0 = j - hy - 0.5;

        (*values)[j * w + i] = fmax (cell_weight (spec, poly, corners, x0, x0 + 1.0, y0,
                                                  y0 + 1.0), 0.0);
        sum += (*values)[j * w + i];
      }
  if (!(sum > 0.0))
    {
      free (*values);
      *values = NULL;
      snprintf (message, size, "a %s of radius %g covers nothing", cc_shape_name (spec->shape), r);
      return false;
    }
  for (int k = 0; k < w * h; k++)
    (*values)[k] /= sum;
  *mask = (CcMask) { w, h, *values, 1.0, 0.0 };
  return true;
}
