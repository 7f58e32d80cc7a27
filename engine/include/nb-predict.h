/* nb-predict.h: reflections predicted from a plan's geometry: which
 * reciprocal-lattice points reach the Ewald sphere during the exposure, and
 * where their diffracted rays meet the detector.
 *
 * The predictor of the measured-frames work (nb-match.h on that branch, which
 * uses it to match measured frames), public here because the viewer's
 * Miller-index labels need the same one; stills are its zero-range case.
 *
 * Geometry and orientation come from nb_params, through the engine's own
 * detector and crystal set-up (a plan without structure factors, sources or
 * mosaic domains is made internally), so conventions, pivots, rotations,
 * -mat and misset mean exactly what they mean to nb_plan_execute().  Pixel
 * coordinates are those of nb_geometry_query(): pixel (i, j) spans
 * [i, i+1) x [j, j+1), its centre is (i + 0.5, j + 0.5).
 *
 * Prediction (the rotation method's, as in DIALS and XDS): the crystal turns
 * about the spindle from phi0 to phi0 + osc; reciprocal-lattice point
 * r = h a* + k b* + l c* (misset applied) is in diffracting position where
 * |s0/lambda + R(phi) r| = 1/lambda.  Solved for phi in closed form
 * (a cos phi + b sin phi = c); a reflection whose solution falls within the
 * exposure widened by the excitation on each side is predicted, and its spot
 * is where the diffracted ray s0/lambda + R(phi) r meets the flat detector
 * plane (a curved detector is treated as flat).  With a -detector model of
 * several panels (nb-detector.h) the ray is intersected with every panel's
 * plane and the spot recorded on the first panel (in the model's order)
 * whose pixel range holds it, in that panel's pixels; masked pixels are
 * not excluded.  Mosaic spread, divergence
 * and spectral width are not modelled except through the excitation.
 *
 * Threads: reentrant.
 */
#pragma once

#include <stddef.h>

#include "nanobragg.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* A predicted reflection. */
  typedef struct
  {
    int h, k, l;
    double f, s; /* spot centre on the detector plane (pixels; may lie off the detector) */
    double phi;  /* spindle angle of the diffracting position (rad), within the window */
    double d;    /* resolution (Angstrom) */
    int panel;   /* the panel whose pixels the spot falls on (0 without a -detector model;
                    f and s are that panel's pixels); -1 (f, s NAN) for a spot of a
                    multi-panel detector off every panel (on_detector 0) */
  } nb_reflection;

  /* What nb_predict_reflections() predicts. */
  typedef struct
  {
    double excitation;  /* half-width (rad) added to each side of the exposure's phi range;
                           < 0: the default, the mosaic spread (when given) plus 0.05 deg */
    double spot_radius; /* radius (1/Angstrom) of a reciprocal-lattice point (its shape
                           transform): a reflection diffracts while its point is within this of
                           the Ewald sphere, which widens its phi range by spot_radius / |the
                           point's speed across the sphere per radian| (the Lorentz factor);
                           < 0: the default, 1.43 / (N a) for the crystal's smallest N a, N b
                           or N c (its cells per edge times the edge): the main lobe of a
                           simulated spherical crystal's shape transform, so a simulation's own
                           spot size; 0: points */
    double d_min;       /* highest resolution (Angstrom); 0: what the detector's corners reach */
    int on_detector;    /* 1 (default): only spots that fall on the detector's pixels (on a
                           panel's, for several), not on one the panel's own mask masks
                           (a -detector model's gaps and bad regions, nb_panel.mask) */
  } nb_predict_options;

  /* nb_predict_options_init: the defaults above. */
  NB_API void nb_predict_options_init (nb_predict_options *opt);

  /* nb_predict_reflections: every reflection of the crystal of @p predicted
   * on its detector during its exposure (see the top of this file), in a
   * malloc'ed array *@out of *@n (free() it).  h k l run over the cube the
   * resolution limit allows.  @opt may be NULL (the defaults).  Errors: those
   * of nb_plan_create() for @p (files are not read: structure factors play no
   * part), NB_ERR_NOMEM, NB_ERR_INVALID (no unit cell, more than 10 million
   * reflections). */
  NB_API nb_status nb_predict_reflections (const nb_params *p,
                                           const nb_predict_options *opt,
                                           nb_reflection **out,
                                           size_t *n,
                                           nb_error *err);

#ifdef __cplusplus
}
#endif
