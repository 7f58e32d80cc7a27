/* nb-model.h: the model of the experiment that the set-up stages build
 * (geometry.c, crystal.c, sources.c) and the kernels read: the detector, the
 * sources, the crystal and its orientations, and the plan that holds them.
 *
 * The plan also holds what the layers above keep for it, by pointer only:
 * the fast kernels' tables (kernels/nb-kernel.h) and the GPU's side
 * (kernels/nb-backend.h).
 */
#pragma once

#include <stdint.h>
#include <stdlib.h>

#include "base/nb-log.h"
#include "base/nb-rng.h"
#include "base/nb-textfile.h"
#include "formats/nb-hkl.h"
#include "formats/nb-models.h"
#include "nanobragg.h"
#include "nb-detector.h"
#include "nb-vector.h"

/* ------------------------------------------------------------------------- */
/* Stage results. */

typedef struct
{
  int fpixels, spixels;
  double pixel_size, subpixel_size;
  int oversample;
  double detsize_f, detsize_s;
  double distance, close_distance;
  double Xbeam, Ybeam, Xclose, Yclose;
  double Fbeam, Sbeam, Fclose, Sclose;
  double ORGX, ORGY;
  double dials_origin[3];
  double fdet[3], sdet[3], odet[3], beam[3], pix0[3];
  double polar_vector[3], spindle[3], vert[3], twotheta_axis[3];
  nb_convention convention;
  nb_pivot pivot;
  int curved, point_pixel;
  int thicksteps;
  double thick, thickstep, mu;
  int roi_xmin, roi_xmax, roi_ymin, roi_ymax;
  char quirk_warning[400]; /* a reproduced quirk of this geometry, or "" */
} nb_detector;

typedef struct
{
  int count;
  double *dir;    /* 3 * count: unit direction from the sample towards the source */
  double *lambda; /* count, metres */
  double *weight; /* count, as given (unused by the physics) */
  size_t cap_dir, cap_lambda, cap_weight;
  int divsteps;     /* -1 with a -sourcefile, as the reference prints it */
  int comment_rows; /* sources read from '#' lines: the exact kernel runs them */
  double hdivrange, hdivstep, vdivrange, vdivstep;
  int hdivsteps, vdivsteps;
  double dispersion, dispstep;
  int dispsteps;
} nb_sources;

typedef struct
{
  double a0[3], b0[3], c0[3];             /* real cell (m), phi = 0 */
  double a_star[3], b_star[3], c_star[3]; /* 1/Angstrom (shapes) */
  double V_cell;
  double Na, Nb, Nc;
  double cell_print[6], recip_print[6];
  double a_A[3], b_A[3], c_A[3]; /* Angstrom, for printing */
  int phisteps;
  double phi0, phistep, osc;
  int mosaic_domains;
  double mosaic_spread;
  double *umats; /* 9 * domains */
  size_t cap_umats;
  double misset_random_deg[3];
} nb_crystal;

/* Per-step orientation tables: for every (phi step, domain) the rotated real
 * cell vectors a, b, c (m) as the kernel uses them.  Two tables because of the
 * reference's phi = 0 carry-over: "first" holds what the very first
 * evaluation of the image sees, "rest" what every later one sees. */
typedef struct
{
  int n;         /* phisteps * domains */
  double *first; /* 9 * n: a, b, c */
  double *rest;  /* 9 * n */
  int same;      /* first == rest */
  size_t cap_first, cap_rest;
} nb_orient;

typedef struct nb_shared_F nb_shared_F;

/* One panel of a multi-panel detector (-detector) as the plan renders it:
 * the detector nb_detector_setup() and nb_detector_orient() derive from the
 * panel's CUSTOM vectors, and what differs per panel downstream. */
typedef struct
{
  nb_detector det;
  int steps;     /* sources x domains x phi steps x this panel's oversample^2 */
  size_t offset; /* its pixel (0, 0) in the image (nb_detector_model_panel_offset) */
} nb_plan_panel;

struct nb_plan
{
  nb_params params;
  nb_plan_info info;
  nb_log log;

  nb_detector det;
  nb_sources src;
  nb_crystal xtal;
  nb_orient orient;
  nb_hkl_grid hkl;
  int interpolate;
  double default_F;

  double fluence;
  double I_bg;
  int steps;
  double omega_sum;

  uint16_t *mask; /* fpixels * spixels, or NULL */
  nb_ran1 ran;    /* shared generator table after misset/mosaic draws */

  double *row_omega; /* spixels: per-row solid-angle sums (thread-independent total) */
  size_t cap_row_omega;
  double samples; /* sub-pixel samples of the last execute (nb_plan_timing.samples) */
  nb_plan_stats stats;
  int interp_warned;

  struct nb_fast_tables
      *fast; /* kernel-fast.c: the fast kernels' tables (nb_fast_prepare), or NULL */

  nb_shared_F *hkl_shared; /* owns hkl.F, shared with nb_geometry snapshots */

  /* Input files read once per name: a parameter change never re-reads them. */
  char *mat_path; /* -mat file whose matrix is in mat[], or NULL */
  double mat[9];
  /* -hkl/-model naming an atomic model or -sf.cif (atomic-model.c): the file
   * as read, the cell it gives the crystal when neither -cell nor -mat does
   * (Angstrom, rad; a == 0: none), and the reflections computed from its
   * atoms (one of each set of equivalents) to model_d_min Angstrom. */
  char *model_path;
  nb_structure *model;
  double model_cell[6];
  int *model_hkl;
  double *model_F;
  long model_n;
  double model_d_min;
  char *source_path;     /* -sourcefile whose rows are in source_table, or NULL */
  unsigned source_flags; /* how it was read (nb_table_read_with) */
  nb_table source_table;
  nb_geometry *geometry;     /* snapshot for pixel queries; NULL until asked, dropped on update */
  struct nb_cuda_plan *cuda; /* backend-cuda.c: the GPU side of a plan asked for -backend
                                auto|cuda, or NULL */
  nb_plan_timing timing;     /* the last full image's (nb_plan_get_timing) */

  /* -detector (plan/panels.c): the model read once per name, and its panels.
   * Outside execute, det and steps are panel 0's and mask is NULL; execute
   * renders each panel in turn with its det, steps and part of panel_mask. */
  char *detector_path;
  double detector_motion[6]; /* the -detector_shift, -detector_rotation it was moved by */
  nb_detector_model detector;
  int n_panels; /* 0: the one detector of the parameters */
  nb_plan_panel *panels;
  uint16_t *panel_mask; /* every panel's mask in image layout (non-zero keeps), or NULL */
};

/* query.c: the structure-factor array, reference-counted so that geometry
 * snapshots outlive a structure-factor rebuild. */
nb_shared_F *nb_shared_F_new (double *F);
void nb_shared_F_unref (nb_shared_F *s);

/* Stages (geometry.c, crystal.c, sources.c). */
nb_status nb_detector_setup (nb_plan *plan, nb_error *err);
nb_status nb_detector_orient (nb_plan *plan, nb_error *err);
nb_status nb_crystal_setup (nb_plan *plan, nb_error *err);
void nb_crystal_size (nb_plan *plan, double sample_x, double sample_y, double sample_z);
nb_status nb_sampling_setup (nb_plan *plan, nb_error *err);
nb_status nb_sources_setup (nb_plan *plan, nb_error *err);
nb_status nb_mosaic_setup (nb_plan *plan, nb_error *err);
nb_status nb_orient_setup (nb_plan *plan, nb_error *err);
void nb_sources_free (nb_sources *s);
void nb_crystal_free (nb_crystal *c);
void nb_orient_free (nb_orient *o);

/* ---- atomic-model.c: structure factors from an atomic model (issue 30) ---- */

/* nb_atomic_model_read: when -hkl names a model or -sf.cif (nb_file_is_model),
 * reads it unless it is the one read last, and sets model_cell from it when
 * neither -cell nor -mat gives the cell; otherwise drops any model. */
nb_status nb_atomic_model_read (nb_plan *plan, nb_error *err);

/* nb_atomic_model_d_min: the resolution (Angstrom) a model's structure
 * factors are wanted to: what the detector's corners reach at the shortest
 * wavelength with the interpolation's neighbours, but not beyond -dmin (the
 * image's cut-off). */
double nb_atomic_model_d_min (const nb_plan *plan);

/* nb_atomic_model_stale: 1 when the plan's model needs its structure factors
 * computed (none yet, or the detector or -dmin now reaches beyond them). */
int nb_atomic_model_stale (const nb_plan *plan);

/* nb_atomic_model_grid: plan->hkl (empty) from the model: its reflections,
 * or the sum over its atoms (computed when stale, kept otherwise), expanded
 * to P1, within @max_bytes at @cell_bytes per cell. */
nb_status nb_atomic_model_grid (nb_plan *plan, size_t max_bytes, size_t cell_bytes, nb_error *err);

void nb_atomic_model_free (nb_plan *plan);
