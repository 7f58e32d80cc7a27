/* arcs.c: how many mosaic domains draw a smooth arc (nb_plan_arc_domains).
 *
 * A mosaic domain is the crystal turned by a small random rotation within the
 * mosaic spread; each draws its own copy of every spot.  A spot is seen as
 * one arc when neighbouring copies overlap: when their angular spacing is no
 * larger than the angle that moves a reciprocal-lattice point by its own
 * width.  That width is the main lobe of the crystal's shape transform,
 * about 1 / (N a) (N cells of edge a along the crystal's longest edge: its
 * sharpest spots); at resolution d the point lies 1/d from the origin, so
 * the angle is w = d / (N a), smallest at the detector's highest resolution.
 * The domains' rotations fill a patch of about s x s (s the mosaic spread in
 * radians) around each point, so n of them lie about s / sqrt(n) apart, and
 * the copies merge when n >= (s / w)^2.
 */
#include "nb-model.h"

#include <math.h>

int
nb_plan_arc_domains (nb_plan *plan, int max_domains)
{
  const nb_crystal *x = &plan->xtal;
  const double edges[3] = { x->Na * nb_magnitude (x->a0), x->Nb * nb_magnitude (x->b0),
                            x->Nc * nb_magnitude (x->c0) };
  nb_geometry *geom;
  double longest = 0.0, d_min = INFINITY, width, ratio;
  int fpixels = 0, spixels = 0;

  if (!(x->mosaic_spread > 0.0) || x->mosaic_domains < 1)
    return x->mosaic_domains;
  for (int i = 0; i < 3; i++)
    if (edges[i] > longest)
      longest = edges[i];
  longest *= 1e10; /* Angstrom */
  geom = nb_plan_ref_geometry (plan);
  if (geom == NULL || !(longest > 0.0))
    {
      nb_geometry_unref (geom);
      return x->mosaic_domains;
    }
  nb_geometry_size (geom, &fpixels, &spixels);
  for (int c = 0; c < 4; c++)
    {
      nb_pixel_query q;

      if (nb_geometry_query (geom, (c & 1) ? fpixels : 0, (c & 2) ? spixels : 0, &q, NULL) ==
              NB_OK &&
          q.d < d_min)
        d_min = q.d;
    }
  nb_geometry_unref (geom);
  if (!isfinite (d_min))
    return x->mosaic_domains;
  width = d_min / longest;
  ratio = x->mosaic_spread / width;
  if (!(ratio * ratio > x->mosaic_domains))
    return x->mosaic_domains;
  return ratio * ratio >= max_domains ? max_domains : (int) ceil (ratio * ratio);
}
