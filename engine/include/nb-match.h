/* nb-match.h: matching a simulation to a measured frame: peaks found on the
 * frame, the match score of the reflections predicted from the plan's
 * geometry (nb-predict.h) against them, the correlation in resolution shells,
 * refinement of the orientation (and optionally the distance and beam centre),
 * and an orientation search for a known cell.
 *
 * Geometry and orientation come from nb_params, as for nb-predict.h's
 * prediction, and pixel coordinates are those of nb_geometry_query(): pixel
 * (i, j) spans [i, i+1) x [j, j+1), its centre is (i + 0.5, j + 0.5).
 *
 * Several panels (a -detector model, nb-detector.h): a prediction and a peak
 * carry their panel (nb_reflection.panel, nb_peak.panel) and are in that
 * panel's pixels; a peak is matched against the spots predicted on its own
 * panel's plane; the chance area is the union of every panel's pixels that
 * the frame does not mask within the peaks' resolution range (taken over
 * all panels), each panel's covered part counted on its own pixel grid.  So
 * the p-value of N panels is one test for the whole detector: the chance
 * that peaks placed uniformly at random over all N panels' unmasked area
 * match as many as were matched, not N tests (no correction for N is made
 * or needed); a panel without peaks adds to the area only through the
 * resolution range.  A spot on a pixel masked by its panel's own mask
 * (nb_panel.mask: gaps, bad regions) or by the frame is not matched, and its
 * disc is not counted in the chance area, which leaves those pixels out too.
 * The shell correlation (nb_plan_shell_correlation()) runs over every
 * panel, each pixel's resolution from its own panel's geometry.
 *
 * Threads: every function is reentrant; nb_orientation_search() runs its grids
 * on OpenMP threads.  Progress callbacks run on the calling thread; the cancel
 * flag is read with atomic loads, as nb_exec_options.cancel.
 *
 * Precision: on a 256 x 256 still of 1HPV with photon noise (tests/test-match.c)
 * refinement returns to the simulated misset within 0.003 deg from starts 1 deg
 * away; the rotation about the spindle of a rotation frame is known only
 * through which reflections are partial, so it is the least well determined.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nanobragg.h"
#include "nb-detector.h"
#include "nb-frame.h"
#include "nb-predict.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* ---- peaks ---- */

  /* A peak found on a frame: a local maximum of the counts above the local
   * background. */
  typedef struct
  {
    double f, s;        /* centroid of the counts above the background in the box around the
                           maximum (pixels) */
    int fpixel, spixel; /* the maximum pixel */
    double intensity;   /* counts of the box above the background */
    double height;      /* counts of the maximum above the background */
    double background;  /* background per pixel (counts) */
    int pixels;         /* pixels of the 3 x 3 box around the maximum clearly above the
                           background */
    int overloaded;     /* the box holds an overloaded pixel */
    int panel;          /* the panel it was found on (nb_find_panel_peaks(); 0 for one panel):
                           f, s, fpixel and spixel are that panel's pixels */
  } nb_peak;

  typedef struct
  {
    int max_peaks;     /* keep the strongest this many (by intensity); default 50 */
    double min_height; /* the maximum must be at least this many counts above the background;
                          default 3 */
    double sigmas;     /* ... and this many Poisson sigmas (sqrt of the background, at least 1)
                          above it; default 3 */
    int min_pixels;    /* at least this many pixels of the 3 x 3 box clearly above the
                          background (by max(1, sqrt(background)) counts): a lone hot pixel or
                          cosmic ray is not a spot; default 2 */
    int separation;    /* a peak closer than this (pixels, along either axis) to a stronger one
                          is dropped; default 4 */
    int block;         /* the background is the median of the valid pixels of each block x block
                          tile (pixels); default 32 */
    int edge;          /* peaks within this many pixels of a masked pixel or the frame's edge are
                          dropped (module gaps, dead pixels); default 1 */
    int box;           /* the box of a peak's intensity and centroid reaches this many pixels
                          either side of its maximum (masked pixels left out); default 2 */
    int shadow;        /* peaks within this many pixels of a shadow (a beam stop's, its arm's:
                          a region of at least 600 pixels whose counts are below an eighth of
                          the frame's typical background, module gaps within it included) are
                          dropped: the diffuse scatter at a shadow's edge makes false peaks;
                          default 24; 0: none.  Frames whose background is too weak to tell a
                          shadow from it (under 16 counts in 32 x 32 pixels) have none */
  } nb_peak_options;

  /* nb_peak_options_init: the defaults above. */
  NB_API void nb_peak_options_init (nb_peak_options *opt);

  /* nb_find_peaks: the strongest peaks of @frame (which must hold pixels),
   * strongest first, in a malloc'ed array *@peaks of *@n (free() it; NULL
   * when none).  Only valid and overloaded pixels count: masked pixels never
   * become peaks, nor enter a box or a background.  @opt may be NULL (the
   * defaults).  Errors: NB_ERR_INVALID (a frame without pixels, options out
   * of range), NB_ERR_NOMEM. */
  NB_API nb_status nb_find_peaks (
      const nb_frame *frame, const nb_peak_options *opt, nb_peak **peaks, int *n, nb_error *err);

  /* nb_find_panel_peaks: nb_find_peaks() panel by panel for a frame of a
   * multi-panel @detector (nb-detector.h): each panel's pixels are cut from
   * the frame (at their data origins, as a CrystFEL .geom's min_fs/min_ss or
   * NXmx data_origin place them in the file's data array, when every panel
   * has one and fits the frame; else the panels one after another, as a
   * simulated multi-panel image holds them), the panel's own mask (gaps, bad
   * regions) masks them, and each panel is searched alone (its edges are
   * edges), its peaks tagged with their panel and in its pixels.  The
   * strongest @opt->max_peaks of all panels are kept, strongest first.
   * @detector NULL or without panels: nb_find_peaks().  Errors: those of
   * nb_find_peaks(), NB_ERR_INVALID (a frame that holds the panels neither
   * way). */
  NB_API nb_status nb_find_panel_peaks (const nb_frame *frame,
                                        const nb_detector_model *detector,
                                        const nb_peak_options *opt,
                                        nb_peak **peaks,
                                        int *n,
                                        nb_error *err);

  /* nb_detector_frame_layout: where each panel of a multi-panel @detector
   * lies in @frame's 2-D pixel array, as nb_find_panel_peaks() and the
   * match cut it: panel p's pixel (f, s) is frame pixel @base[p] + s *
   * @stride[p] + f (an index into frame->counts and frame->mask).  @base and
   * @stride are the caller's arrays of detector->n_panels.  The panels lie
   * at their data origins when every panel has one and fits the frame, else
   * one after another (a simulated multi-panel image).  Errors:
   * NB_ERR_INVALID (no panels, a frame that holds them neither way),
   * NB_ERR_NOMEM. */
  NB_API nb_status nb_detector_frame_layout (const nb_detector_model *detector,
                                             const nb_frame *frame,
                                             size_t *base,
                                             int *stride,
                                             nb_error *err);

  /* nb_peaks_in_resolution: keeps the peaks of @peaks (@n) whose resolution,
   * with the detector and wavelength of @p, lies within [@d_min, @d_max]
   * (Angstrom; 0 for no limit), in their order, packed at the front (the
   * direct beam and the beam stop's shadow lie beyond any d_max).  Returns
   * how many, or -1 with @err set (the errors of nb_plan_create() for @p). */
  NB_API int nb_peaks_in_resolution (
      const nb_params *p, nb_peak *peaks, int n, double d_min, double d_max, nb_error *err);

  /* nb_peaks_resolution_range: the lowest and highest resolution (Angstrom)
   * of @peaks (@n >= 1) with the detector and wavelength of @p, in *@d_max
   * and *@d_min (INFINITY for a peak on the beam).  Errors: those of
   * nb_plan_create() for @p, NB_ERR_INVALID without peaks. */
  NB_API nb_status nb_peaks_resolution_range (
      const nb_params *p, const nb_peak *peaks, int n, double *d_max, double *d_min, nb_error *err);

  /* ---- the match score ---- */

  typedef struct
  {
    double radius;              /* a peak matches when a predicted reflection lies within this many
                                   pixels of its centroid; default 3 */
    nb_predict_options predict; /* what is predicted */
    const nb_frame *frame;      /* the frame the peaks were found on (borrowed): its unmasked
                                   pixels make the area of the chance fraction; NULL (default):
                                   every pixel of the detector */
    double alpha;               /* significance level of a match; default 1e-3 */
    double trials;              /* orientations (and detector positions) the score was chosen
                                   among, >= 1: the p-value is multiplied by it before it is
                                   compared with alpha (Bonferroni); default 1, for parameters
                                   given rather than fitted (nb_refine() and
                                   nb_orientation_search() set their own) */
  } nb_match_options;

  NB_API void nb_match_options_init (nb_match_options *opt);

#define NB_MAX_SHELLS 32

  typedef struct
  {
    /* peaks against predictions */
    int n_peaks;
    int n_matched;       /* peaks within the radius of a predicted reflection */
    double fraction;     /* n_matched / n_peaks (0 without peaks) */
    double rms_distance; /* of the matched peaks (pixels) */
    double soft;         /* mean over peaks of exp(-d^2 / (2 (radius/2)^2)), d the distance to the
                            nearest predicted reflection: the smooth score refinement maximises */
    /* against chance (nb_match_peaks): the same predictions and peaks placed at random */
    double chance_fraction; /* fraction of the area (the unmasked pixels of the detector whose
                               resolution lies within the peaks' range) within the radius of a
                               predicted reflection: the fraction random peaks would score */
    double chance_d_max, chance_d_min; /* the area's (and the peaks') resolution range (A) */
    long chance_pixels;                /* pixels of the area */
    long n_predicted;                  /* reflections predicted on or next to the area */
    double p_value;        /* P(X >= n_matched) for X binomial (n_peaks, chance_fraction): how often
                        chance matches as many (1 without peaks); may underflow to 0 */
    double log10_p;        /* log10 of p_value, finite where p_value underflows */
    double trials;         /* the correction applied (nb_match_options.trials) */
    double alpha;          /* the significance level applied */
    int significant;       /* p_value * trials < alpha: a match; 0: no better than chance */
    double distance;       /* the detector geometry scored: distance (m) */
    double beam_f, beam_s; /* beam centre along fast and slow from pixel (0, 0)'s corner (m) */
    /* simulated against measured pixels (nb_match_frame only; n_shells 0 otherwise) */
    int n_shells;
    double shell_d_max[NB_MAX_SHELLS]; /* low-resolution edge (Angstrom) */
    double shell_d_min[NB_MAX_SHELLS]; /* high-resolution edge (Angstrom) */
    double shell_cc[NB_MAX_SHELLS];    /* Pearson correlation; NAN with fewer than 3 pixels or
                                          no variance */
    long shell_pixels[NB_MAX_SHELLS];
    double cc; /* over all valid pixels */
  } nb_match_result;

  /* Per-peak detail of nb_match_peaks(). */
  typedef struct
  {
    double distance; /* pixels to the nearest predicted reflection; INFINITY when none is near */
    int h, k, l;     /* that reflection */
    double f, s;     /* its predicted spot (pixels of the peak's panel, on that panel's plane) */
    int panel;       /* the peak's panel */
  } nb_peak_match;

  /* nb_match_peaks: how many of @peaks (@n) lie within @opt->radius of a
   * reflection the crystal of @p is predicted to give (nb_predict_reflections
   * with @opt->predict): for each peak, the lattice points nearest the
   * reciprocal-lattice vector its position implies (at the middle of the
   * exposure) are predicted and the nearest spot kept, but for a spot on a
   * pixel its panel's mask (a -detector model's) or @opt->frame masks, which
   * is never matched.  Then what chance
   * gives for the same predictions (nb_match_chance()) and the significance
   * of the count against it.  Fills @res's peak and chance parts (n_shells 0)
   * and, when @detail is non-NULL, @n entries of it.  Errors: those of
   * nb_plan_create() for @p and of nb_match_chance(), NB_ERR_NOMEM. */
  NB_API nb_status nb_match_peaks (const nb_params *p,
                                   const nb_peak *peaks,
                                   int n,
                                   const nb_match_options *opt,
                                   nb_match_result *res,
                                   nb_peak_match *detail,
                                   nb_error *err);

  /* nb_match_chance: the chance part of @res for @n peaks of which
   * @res->n_matched matched: the area is every pixel of @p's detector that
   * neither @opt->frame (NB_PIXEL_VALID or NB_PIXEL_OVERLOAD count) nor its
   * panel's own mask (a -detector model's) masks whose centre's resolution
   * lies between the lowest and the highest of the peaks' (at their
   * centroids); every reflection of @p predicted during the exposure
   * (nb_model_predict's gate, @opt->predict) marks the pixels whose centres
   * lie within @opt->radius of its spot, but for a spot on a masked pixel
   * (which nb_match_peaks() does not match); chance_fraction is the
   * marked part of the area, counted exactly on the pixel grid.  The p-value
   * is the binomial upper tail, summed in log space (exact for any n), and
   * significant says p_value * @opt->trials < @opt->alpha.  Without peaks:
   * p_value 1, not significant.  Errors: NB_ERR_INVALID (a frame of another
   * size than the detector, options out of range), those of nb_plan_create(),
   * NB_ERR_NOMEM. */
  NB_API nb_status nb_match_chance (const nb_params *p,
                                    const nb_peak *peaks,
                                    int n,
                                    const nb_match_options *opt,
                                    nb_match_result *res,
                                    nb_error *err);

  /* nb_binomial_log10_tail: log10 P(X >= @k) for X binomial (@n, @p0): 0
   * for k <= 0, -INFINITY for k > n or p0 = 0 (and k > 0). */
  NB_API double nb_binomial_log10_tail (int k, int n, double p0);

  /* nb_shell_correlation: Pearson correlations between @image (a simulation,
   * info->fpixels x info->spixels floats) and @frame's counts, over the
   * frame's valid pixels (NB_PIXEL_VALID: overloaded and masked pixels left
   * out), in @n_shells (1..NB_MAX_SHELLS) shells of equal reciprocal-space
   * volume between the lowest and highest resolution of those pixels'
   * centres, and over all; resolution (|x| = 2 sin(theta) / lambda, d = 1 /
   * |x|) from @info (the one-panel plan that rendered @image).  Fills @res's
   * shell part.  Errors: NB_ERR_INVALID (sizes differ, a frame without
   * pixels or mask, @n_shells out of range, an @info of a -detector model:
   * nb_plan_shell_correlation() takes its panels), NB_ERR_NOMEM. */
  NB_API nb_status nb_shell_correlation (const nb_plan_info *info,
                                         const float *image,
                                         const nb_frame *frame,
                                         int n_shells,
                                         nb_match_result *res,
                                         nb_error *err);

  /* nb_plan_shell_correlation: nb_shell_correlation() for the @image
   * @plan rendered (nb_plan_execute()), over every panel of a plan of a
   * -detector model: each pixel's resolution from the centre of that pixel
   * on its own panel (nb_plan_get_panel_info()), a pixel left out where its
   * panel's mask (nb_panel.mask: gaps, bad regions) or @frame's mask says
   * so, and the shells spanning all panels' counted pixels.  @image holds
   * the panels one after another (as the plan renders them); @frame holds
   * them at their data origins or one after another, as
   * nb_find_panel_peaks() takes it.  A plan without panels:
   * nb_shell_correlation() of its info, to the bit.  Errors: those of
   * nb_shell_correlation(), NB_ERR_INVALID for a frame that holds the
   * panels neither way. */
  NB_API nb_status nb_plan_shell_correlation (const nb_plan *plan,
                                              const float *image,
                                              const nb_frame *frame,
                                              int n_shells,
                                              nb_match_result *res,
                                              nb_error *err);

  /* nb_match_frame: the whole match score of a simulated @image of @plan
   * against the measured @frame: nb_match_peaks() for @peaks (@n; from
   * nb_find_peaks()) with the plan's parameters (@frame the chance area's
   * mask when @opt->frame is NULL), and nb_plan_shell_correlation() in 10
   * shells, over every panel of a -detector model.  Errors: those two's. */
  NB_API nb_status nb_match_frame (const nb_plan *plan,
                                   const float *image,
                                   const nb_frame *frame,
                                   const nb_peak *peaks,
                                   int n,
                                   const nb_match_options *opt,
                                   nb_match_result *res,
                                   nb_error *err);

  /* ---- refinement and orientation search ---- */

  /* Progress: @fraction 0..1 of the work, @stage a constant English word
   * ("grid", "refine"...), @score the best match fraction so far. */
  typedef void (*nb_match_progress) (void *user, double fraction, const char *stage, double score);

  typedef struct
  {
    nb_match_options match; /* the score maximised (its radius sets the final tolerance) */
    int refine_distance;    /* also refine the distance (within +-max_distance_change) */
    int refine_beam;        /* also refine the beam centre (within +-max_beam_change pixels) */
    int refine_detector_rotation; /* also turn the whole detector, every panel together, about
                                     the point where the beam meets panel 0's plane, about the
                                     two axes across the beam (within max_detector_rotation):
                                     with refine_distance and refine_beam, a multi-panel
                                     detector refined as one rigid body, its motion in
                                     nb_refine_result.  A turn about the beam itself is the
                                     crystal's turn about it (turning both together moves no
                                     spot), so it is refined as part of the misset */
    double max_rotation;          /* rad: how far the orientation may move; default 3 deg */
    double max_distance_change;   /* m; default 5% of the distance */
    double max_beam_change;       /* pixels; default 20 */
    double max_detector_rotation; /* rad; default 1 deg */
    int max_evaluations;          /* per Nelder-Mead run; default 600 */
    nb_match_progress progress;
    void *user;
    const volatile int *cancel; /* raised (atomic store, non-zero): return NB_ERR_CANCELLED */
  } nb_refine_options;

  NB_API void nb_refine_options_init (nb_refine_options *opt);

  typedef struct
  {
    nb_match_result score;       /* of the refined parameters (peak part) */
    double rotation;             /* angle between the start and refined orientations (rad) */
    int evaluations;             /* score evaluations made */
    double detector_shift[3];    /* m, lab frame: how far the refinement moved every panel (its
                                    distance and beam centre changes), before the turn; this
                                    refinement's own step: @p's detector_shift and
                                    detector_rotation hold the whole motion from the file */
    double detector_rotation[3]; /* rad, lab frame: the rotation vector then turning the whole
                                    detector (refine_detector_rotation; else 0), normal to
                                    the beam */
  } nb_refine_result;

  /* nb_refine: adjusts the misset of @p (and, when asked, its distance and
   * beam centre, through nb_params_set_beam_centre()) to maximise the match
   * of @peaks (@n, at least 3) from the orientation @p has, with Nelder-Mead
   * simplex searches over a rotation vector about that orientation (and the
   * detector shifts): first on a reciprocal-space score (peaks back-projected
   * onto the Ewald sphere against the lattice, tolerances narrowing from
   * max_rotation), then on the distances of nb_match_peaks() on the detector
   * (a Gaussian score narrowing to the radius, truncated least squares at
   * half of it, and last least squares of the peaks then within half the
   * radius).  The result is never worse than the start (more peaks matched,
   * or as many closer).  On success @p holds
   * the result (misset angles as -misset takes them, in radians; a -misset
   * random orientation becomes explicit angles; with a -detector model, the
   * refined motion of the whole detector composed into its detector_shift
   * and detector_rotation (nanobragg.h), so that @p renders and predicts the
   * refined detector; a flat detector's distance and beam centre as before)
   * and @res its score, its
   * significance corrected for the orientations (and detector positions)
   * the refinement could tell apart within max_rotation.  On error or
   * cancellation @p is unchanged.  Errors: NB_ERR_INVALID (fewer than 3
   * peaks, a cell-less @p, a match.frame of another size than the
   * detector), those of nb_plan_create(), NB_ERR_CANCELLED, NB_ERR_NOMEM. */
  NB_API nb_status nb_refine (nb_params *p,
                              const nb_peak *peaks,
                              int n,
                              const nb_refine_options *opt,
                              nb_refine_result *res,
                              nb_error *err);

  typedef struct
  {
    double step;              /* grid spacing (rad) of the orientations tried; default 1.5 deg */
    int candidates;           /* best grid orientations refined; default 12 */
    nb_refine_options refine; /* for the candidates (its progress and cancel serve the whole
                                 search) */
    int threads;              /* OpenMP threads; 0 = default.  The result is the same for any
                                 number (ties between candidates go to the first grid point) */
  } nb_search_options;

  NB_API void nb_search_options_init (nb_search_options *opt);

  typedef struct
  {
    nb_match_result score; /* of the best orientation, refined */
    long grid_points;      /* orientations scored on the grid (0 when it was skipped) */
    int grid_best;         /* peaks the best candidate matched in reciprocal space */
    int informative;       /* peaks sharp enough at the grid's spacing to be scored */
    double grid_seconds;   /* finding the candidates (both grids) */
    double refine_seconds; /* refining them */
  } nb_search_result;

  /* nb_orientation_search: the orientation of the crystal of @p's cell (or
   * -mat, whose orientation is ignored) that best explains @peaks, with the
   * rest of @p's geometry fixed.  Candidates come from two grids, both scored
   * on predicted positions alone, in reciprocal space (the peaks
   * back-projected onto the Ewald sphere at the middle of the exposure,
   * counted when within a tolerance of a lattice point):
   *   every orientation of a grid over all rotations (the cubed 3-sphere of
   *   unit quaternions, @opt->step apart), when at least 6 peaks are sharp
   *   enough to be told apart from chance at that spacing;
   *   the orientations whose cell edges lie along the lattice rows the peaks
   *   show (directions t of a hemisphere grid 0.25 deg apart where
   *   cos(2 pi L t.y) averages highest over the peaks y for each edge length
   *   L, combined into right-handed triplets with the cell's angles): the
   *   known-cell form of a real-space grid search, which large cells need.
   * The best distinct candidates (@opt->candidates of them, up to the
   * lattice's own symmetry) are refined with nb_refine()'s stages and
   * ranked by significance (each one's p-value against its own
   * chance fraction; p-values within a factor of 2 count as one, and of
   * those the most matches, then the closest, win).  On success @p's misset is the best (and its distance
   * and beam centre when refined; a -detector model's refined motion in its
   * detector_shift and detector_rotation, as nb_refine() writes it) and
   * @res->score says whether it is a
   * match, corrected for every orientation the search could tell apart:
   * report an orientation only when @res->score.significant.  Errors: those
   * of nb_refine(), NB_ERR_INVALID when no candidate at all was found. */
  NB_API nb_status nb_orientation_search (nb_params *p,
                                          const nb_peak *peaks,
                                          int n,
                                          const nb_search_options *opt,
                                          nb_search_result *res,
                                          nb_error *err);

#ifdef __cplusplus
}
#endif
