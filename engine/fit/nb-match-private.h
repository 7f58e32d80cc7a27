/* nb-match-private.h: what match.c, match-chance.c and peak-shadow.c add to
 * the prediction model of predict.c (nb-predict-private.h) for refine.c to
 * drive. */
#pragma once

#include "nb-match.h"
#include "nb-predict-private.h"

/* The shadows of @frame (peak-shadow.c) grown by @margin pixels: *@map
 * (malloc'ed, *@nbx x *@nby bytes, 1 in and near a shadow) over blocks of
 * *@block pixels; *@map NULL when the frame has none it can tell or @margin
 * is 0.  0, or -1 out of memory. */
int
nb_shadow_map (const nb_frame *frame, int margin, uint8_t **map, int *block, int *nbx, int *nby);

/* Where each of @n panels lies in @frame's pixels (panels.c): @geom[p] is
 * panel p's fpixels, spixels, data_origin_f, data_origin_s (-1: none); on
 * success panel p's pixel (f, s) is frame pixel @base[p] + s * @stride[p] + f.
 * The frame holds every panel at its data origin (every panel has one and
 * fits) or all panels' pixels one after another (a simulated image; one
 * panel: the frame is its size).  NB_ERR_INVALID for a frame that is
 * neither. */
nb_status nb_panels_layout (
    int n, const int (*geom)[4], const nb_frame *frame, size_t *base, int *stride, nb_error *err);

/* nb_panels_layout() for the panels of @m (@base, @stride of m->n_panels). */
nb_status nb_model_frame_layout (
    const nb_model *m, const nb_frame *frame, size_t *base, int *stride, nb_error *err);

/* NB_ERR_INVALID naming the first of @peaks (@n) on a panel @m does not
 * have. */
nb_status nb_model_check_peaks (const nb_model *m, const nb_peak *peaks, int n, nb_error *err);

/* What chance gives for a prediction (match-chance.c). */
typedef struct
{
  double fraction;     /* of the area within the radius of a predicted spot */
  double d_max, d_min; /* the area's resolution range (A) */
  long area, covered;  /* pixels */
  long predicted;      /* spots marked */
} nb_chance;

/* nb_match_chance()'s count for model @m in orientation @U (@frame's mask,
 * or none when NULL): a spot on a pixel the frame masks is not marked. */
nb_status nb_model_chance (const nb_model *m,
                           const double U[9],
                           const nb_frame *frame,
                           const nb_peak *peaks,
                           int n,
                           double radius,
                           nb_chance *c,
                           nb_error *err);

/* nb_model_chance() with the panels' own masks (@panels, as
 * nb_model_init_masked() gives them, or NULL) left out of the area and
 * their spots, like the frame's masked pixels, unmarked. */
nb_status nb_model_chance_masked (const nb_model *m,
                                  const double U[9],
                                  const nb_frame *frame,
                                  const uint8_t *panels,
                                  const nb_peak *peaks,
                                  int n,
                                  double radius,
                                  nb_chance *c,
                                  nb_error *err);

/* Checks @frame (NULL: none) against @m (its mask, one panel's size, the
 * panels' layout) and fills @mask's frame part (its panels NULL).
 * NB_ERR_INVALID naming the frame. */
nb_status
nb_model_frame_check (const nb_model *m, const nb_frame *frame, nb_spot_mask *mask, nb_error *err);

/* log10 of the p-value of @matched of the @n peaks for @m moved by
 * @shift (nb_model_shift with the first three, then nb_model_turn with the
 * rest) in orientation @U; NAN when out of memory. */
double nb_model_log10_p (const nb_model *m,
                         const double U[9],
                         const double shift[6],
                         const nb_frame *frame,
                         const nb_peak *peaks,
                         int n,
                         double radius,
                         int matched);

/* Fills the chance part of @res (its n_matched and n_peaks set) from @c. */
void nb_match_judge (nb_match_result *res, const nb_chance *c, double trials, double alpha);

/* The number of orientations (and, as @opt refines them, beam centres and
 * distances) a fit of @peaks (@n) tells apart at @opt->match.radius: within
 * @opt->max_rotation of a start, or among all orientations when
 * @whole_sphere (a search).  At least 1. */
double nb_model_trials (
    const nb_model *m, const nb_peak *peaks, int n, const nb_refine_options *opt, int whole_sphere);

/* The most parameters nb_nelder_mead() takes: a rotation vector, the
 * distance, the beam centre and two turns of the whole detector. */
#define NB_NM_MAX 9

typedef double (*nb_nm_fn) (const double *x, void *ctx);

/* Minimises @fn from @x (@n <= NB_NM_MAX values, in place; *@fx its value)
 * with a first simplex of @step[i] along each axis, within @max_evals
 * evaluations; stops early when the simplex is smaller than @xtol (in
 * @step's units) and the values agree to @ftol, or when *@stop becomes
 * non-zero.  Returns the evaluations made (simplex.c). */
int nb_nelder_mead (nb_nm_fn fn,
                    void *ctx,
                    int n,
                    double *x,
                    double *fx,
                    const double *step,
                    int max_evals,
                    double xtol,
                    double ftol,
                    const int *stop);
