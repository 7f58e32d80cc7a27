/* nb-predict-private.h: the prediction model predict.c builds, with what
 * matching and refinement ask of it (a peak's lattice vector, the nearest
 * predicted spot, a moved detector) and the matrix helpers. */
#pragma once

#include "base/nb-rotation.h"
#include "nb-frame.h"
#include "nb-predict.h"

#include <stdint.h>

/* Most panels a model holds: a CSPAD's 64 sensors, a Jungfrau 16M's 32
 * modules, an AGIPD's 128 ASICs fit. */
#define NB_MODEL_PANELS_MAX 256

/* One flat panel of the detector, as nb_plan_get_panel_info() gives it
 * (lengths in m), and where its pixels sit in a measured frame's 2-D data
 * array (nb_panel.data_origin_f/s; -1 where the geometry gives none). */
typedef struct
{
  double pix0[3], fdet[3], sdet[3], odet[3];
  double pixel;
  int fpixels, spixels;
  int data_origin_f, data_origin_s;
  size_t offset; /* its pixel (0, 0) among all panels' pixels one after another */
} nb_model_panel;

/* Everything prediction needs, in the lab frame of the plan: lengths of the
 * detector in m, of the crystal in Angstrom and 1/Angstrom.  A detector of
 * one panel (no -detector model) is panels[0]; a -detector model's panels
 * are panels[0 .. n_panels - 1], moved together by nb_model_shift() and
 * nb_model_turn(). */
typedef struct
{
  double s0[3];              /* unit beam direction, source to sample */
  double k;                  /* 1/lambda (1/Angstrom) */
  double e[3];               /* unit spindle axis */
  double phi0, osc, phi_mid; /* rad */
  double excitation;         /* rad, each side of [phi0, phi0 + osc] */
  double spot_radius;        /* 1/Angstrom */
  double A0[9];              /* rows: real cell vectors a, b, c (Angstrom) at misset 0 and phi 0 */
  double B0[9];              /* rows: reciprocal vectors a*, b*, c* (1/Angstrom) of A0 */
  double G[9];               /* reciprocal metric B0 B0^T */
  double V;                  /* cell volume (Angstrom^3) */
  double U0[9]; /* the parameters' orientation (misset, or -misset random), row-major */
  double s_max; /* 1/d_min (1/Angstrom) */
  double Fbeam, Sbeam, distance;  /* the plan's (m), to map detector shifts back */
  double turn[3];                 /* rotation vector (rad) nb_model_turn() applied */
  int n_panels;                   /* >= 1 */
  int data_fpixels, data_spixels; /* the geometry's 2-D data array, or 0 */
  nb_model_panel panels[NB_MODEL_PANELS_MAX];
} nb_model;

/* Builds @m from @p through a plan stripped of files and sampling. */
nb_status
nb_model_init (nb_model *m, const nb_params *p, const nb_predict_options *opt, nb_error *err);

/* nb_model_init(), and in *@masked (when non-NULL) the masks of the
 * -detector model's panels (gaps, bad regions: nb_panel.mask) copied into
 * one malloc'ed block of every panel's pixels one after another
 * (nb_model_panel.offset), non-zero where masked; NULL when no panel has a
 * mask (one panel without a -detector model never has). */
nb_status nb_model_init_masked (nb_model *m,
                                const nb_params *p,
                                const nb_predict_options *opt,
                                uint8_t **masked,
                                nb_error *err);

/* Where a spot may not be predicted: the pixels masked by the panels' own
 * masks (@panels, as nb_model_init_masked() gives them, or NULL) or by a
 * measured frame (@frame, NULL for none: NB_PIXEL_MASKED; panel p's pixel
 * (f, s) at frame pixel @base[p] + s * @stride[p] + f). */
typedef struct
{
  const uint8_t *panels;
  const nb_frame *frame;
  size_t base[NB_MODEL_PANELS_MAX];
  int stride[NB_MODEL_PANELS_MAX];
} nb_spot_mask;

/* Whether the spot at pixel position (@f, @s) of panel @panel of @m lies on
 * a pixel @mask (NULL: none) masks; a spot off the panel's pixels is not
 * masked. */
int nb_spot_masked (const nb_model *m, const nb_spot_mask *mask, int panel, double f, double s);

/* The predicted spots of lattice point (h, k, l) with the crystal in
 * orientation @U (row-major, applied to A0/B0): up to two (its two crossings
 * of the Ewald sphere); with @gate only those recorded during the exposure;
 * returns how many, with pixel positions in @f, @s and the crossing angles in
 * @phi.  Without @gate, a crossing far outside the exposure is placed where
 * its tail would be recorded, at the nearer edge.  Positions are on the plane
 * of panel *@panel when *@panel >= 0 (@panel[1] too: both crossings on that
 * panel's plane); with *@panel -1, on the panel whose pixels the ray meets
 * (its index in @panel[j]), or, where it meets none, on panel 0's plane for a
 * one-panel model and with @panel[j] -1 (f, s NAN) for several. */
int nb_model_predict (const nb_model *m,
                      const double U[9],
                      int h,
                      int k,
                      int l,
                      int gate,
                      int panel[2],
                      double f[2],
                      double s[2],
                      double phi[2]);

/* The lab position (m, from the sample) of pixel position (@f, @s) of panel
 * @panel of @m. */
void nb_model_position (const nb_model *m, int panel, double f, double s, double pos[3]);

/* Matrix helpers (row-major 3 x 3). */
void nb_mat_transpose (const double a[9], double out[9]);
void nb_mat_misset (const double misset[3], double out[9]);
void nb_mat_mul (const double a[9], const double b[9], double out[9]);
void nb_mat_to_misset (const double U[9], double misset[3]);
double nb_mat_angle (const double a[9], const double b[9]);

/* The detector of @m moved by @dD along the beam and the beam centre by @dF,
 * @dS along fast and slow (m; panel 0's fast and slow): every panel by the
 * same lab vector, the detector moved as a whole. */
void nb_model_shift (nb_model *m, double dD, double dF, double dS);

/* The detector of @m turned as a whole by the rotation vector @w (rad) about
 * the point where the beam meets panel 0's plane (every panel's pix0, fdet,
 * sdet and odet). */
void nb_model_turn (nb_model *m, const double w[3]);

/* The reciprocal-lattice vector (1/Angstrom, lab frame at phi = 0) a peak at
 * pixel position (@f, @s) implies when it diffracted at the middle of the
 * exposure; *@tau0 receives the reciprocal distance @radius pixels make
 * there. */
void nb_model_peak_vector (
    const nb_model *m, int panel, double f, double s, double radius, double y[3], double *tau0);

/* Distance (pixels) from the peak at (@f, @s) of panel @panel to the nearest
 * spot predicted on that panel's plane (nb_model_predict with @gate) for the
 * lattice points around its back-projection, with the crystal in orientation
 * @U; INFINITY when none.  The reflection in @hkl and its spot in @spot when
 * non-NULL. */
double nb_model_nearest (const nb_model *m,
                         const double U[9],
                         int panel,
                         double f,
                         double s,
                         int gate,
                         int hkl[3],
                         double spot[2]);

/* nb_model_nearest() among the spots not on a pixel @mask masks (NULL:
 * every spot, as nb_model_nearest()). */
double nb_model_nearest_masked (const nb_model *m,
                                const double U[9],
                                int panel,
                                double f,
                                double s,
                                int gate,
                                const nb_spot_mask *mask,
                                int hkl[3],
                                double spot[2]);
