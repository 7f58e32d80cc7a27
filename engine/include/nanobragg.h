/* nanobragg.h: the Braggscope engine's public API.
 *
 * The engine computes what a pixel-array detector records when an X-ray beam
 * hits a small crystal: the forward model of James Holton's nanoBragg
 * (bl831/nanoBragg nanoBragg.c), reproduced image for image.
 *
 * Shape of the API (after FFTW): fill an nb_params (by hand, or from
 * nanoBragg's command-line flags with nb_params_parse_argv()), create an
 * nb_plan from it once (geometry, sources, orientations, structure factors and
 * buffers are derived and cached there), then call nb_plan_execute() as often
 * as needed to fill a float image; nb_plan_update() takes new parameters.
 *
 * Units: nb_params holds the reference's internal units: lengths in metres,
 * angles in radians, wavelengths in metres, fluence in photons/m^2.  The
 * parser converts from the command line's mm, degrees, Angstrom and mrad.
 *
 * Threads: a plan is used by one thread at a time; execute parallelises
 * internally with OpenMP.  Different plans are independent.  The image does
 * not depend on the number of threads.
 *
 * Errors: every fallible call returns an nb_status and fills an nb_error with
 * a one-line message naming the input.  The engine never prints and never
 * exits.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    NB_CONVENTION_CUSTOM = 0,
    NB_CONVENTION_ADXV,
    NB_CONVENTION_MOSFLM,
    NB_CONVENTION_XDS,
    NB_CONVENTION_DIALS,
    NB_CONVENTION_DENZO,
  } nb_convention;

  typedef enum
  {
    NB_PIVOT_SAMPLE = 0,
    NB_PIVOT_BEAM,
  } nb_pivot;

  typedef enum
  {
    NB_SHAPE_SQUARE = 0, /* parallelepiped: product of sincg (grating) functions */
    NB_SHAPE_ROUND,      /* sphere: sinc3 */
    NB_SHAPE_GAUSS,      /* Gaussian spots */
    NB_SHAPE_TOPHAT,     /* flat-top spots */
  } nb_shape;

  typedef enum
  {
    NB_PRECISION_DOUBLE = 0, /* fast kernel in double precision: the golden images to ~1e-12 */
    NB_PRECISION_SINGLE,     /* fast kernel in single precision: the interactive path */
    NB_PRECISION_EXACT,      /* the reference's own arithmetic and loop order, bit for bit */
  } nb_precision;

  /* How a pixel's lattice factor is integrated over its area (-integration). */
  typedef enum
  {
    NB_INTEGRATION_EXACT = 0, /* the reference's: oversample^2 sub-pixels in every pixel */
    NB_INTEGRATION_ADAPTIVE,  /* sub-pixels only where the shape transform's envelope says
                                 they change the pixel by more than the tolerance
                                 (docs/adaptive-integration.md); the CPU's fast kernels */
  } nb_integration;

  /* Where nb_plan_execute() runs (-backend auto|cpu|cuda). */
  typedef enum
  {
    NB_BACKEND_CPU = 0, /* the CPU kernels (OpenMP) */
    NB_BACKEND_AUTO,    /* the GPU when this build has CUDA, a device and driver are
                         present and the GPU pays for its start-up, else the CPU (the plan
                         log says which, and why).  It pays when the process has started
                         the CUDA context already (nb_cuda_warm_up(), or an earlier plan
                         on the GPU), or when one image's estimated CPU time exceeds the
                         start-up: samples / (rate x OpenMP threads), samples = ROI pixels
                         x oversample^2 x sensor layers x sources (the divergence and
                         dispersion grid; a -sourcefile counts 1) x mosaic domains x phi
                         steps, rate 4e8 samples/s per thread in single precision and
                         1.5e8 in double (above what a fast AVX-512 core does, so the
                         estimate errs towards the CPU), against 0.3 s to create the CUDA
                         context plus 4 bytes per pixel at 5 GB/s.  The context is then
                         created on a thread of its own while the plan reads its
                         structure factors */
    NB_BACKEND_CUDA,    /* the GPU; nb_plan_create() fails with NB_ERR_UNSUPPORTED
                         without a usable device or in a build without CUDA */
  } nb_backend;

  typedef enum
  {
    NB_STOL_NONE = 0,
    NB_STOL_STOL,  /* -stol: sin(theta)/lambda in 1/Angstrom */
    NB_STOL_4STOL, /* -4stol */
    NB_STOL_Q,     /* -Q: 4 pi sin(theta)/lambda */
  } nb_stol_kind;

  /* Sentinel meaning "not given": counts use -1, lengths/angles NAN or -1 as the
 * reference does; each field says which. */

  typedef struct
  {
    /* ---- crystal ---- */
    double cell[6];    /* a, b, c (Angstrom), alpha, beta, gamma (rad); a == 0: no -cell */
    char *mat_file;    /* -mat: MOSFLM orientation matrix file, or NULL (owned) */
    double misset[3];  /* -misset: XYZ rotation of the reciprocal cell (rad) */
    int misset_random; /* -misset random: orientation drawn from misset_seed */
    long misset_seed;  /* stored negated, as the reference: -misset_seed N -> -N */
    double Na, Nb, Nc; /* unit cells along a, b, c (whole numbers) */
    double sample_x, sample_y, sample_z; /* crystal size (m); 0 = use Na/Nb/Nc */
    nb_shape shape;
    double fudge;         /* shape parameter for ROUND/GAUSS/TOPHAT (dimensionless) */
    double mosaic_spread; /* isotropic mosaic spread (rad); -1 = not given */
    int mosaic_domains;   /* number of mosaic domains; -1 = not given */
    long mosaic_seed;     /* stored negated; default -12345678 */
    int interpolate;      /* structure factors: 0 nearest, 1 tricubic, 2 auto */
    char *hkl_file;       /* -hkl/-model: structure factors (HKL text, MTZ, -sf.cif) or an
                           * atomic model (PDB, mmCIF) to compute them from, or NULL (owned) */
    char *dump_file;      /* -dump: Fdump cache written after -hkl, read without it (owned) */
    double default_F;     /* F of reflections not in the file */
    char *stol_file;      /* -stol/-4stol/-Q table: read and reported, unused (owned) */
    nb_stol_kind stol_kind;

    /* ---- beam ---- */
    double lambda0;              /* central wavelength (m) */
    double dispersion;           /* full spectral width (fraction); 0 = monochromatic */
    double dispstep;             /* -1 = auto */
    int dispsteps;               /* number of wavelengths; -1 = auto */
    double hdivrange, vdivrange; /* full divergence ranges (rad); -1 = not given */
    double hdivstep, vdivstep;   /* divergence step sizes (rad); -1 = not given */
    int hdivsteps, vdivsteps;    /* divergence counts; -1 = not given */
    int round_div;               /* 1: cull the divergence grid to an ellipse */
    char *source_file;           /* -sourcefile: X Y Z weight lambda(m) table (owned) */
    double fluence;              /* photons/m^2 */
    double flux;                 /* photons/s; non-zero: fluence = flux*exposure/beamsize^2 */
    double exposure;             /* s */
    double beamsize;             /* m; also clips sample_y/z (quirk Q-21) */
    double polarization;         /* Kahn factor K */
    int nopolar;                 /* 1: polarization factor 1 */
    double water_size;           /* water background thickness (m) */

    /* ---- detector ---- */
    double pixel_size;           /* m */
    int fpixels, spixels;        /* pixel counts; 0 = from detsize */
    double detsize_f, detsize_s; /* m */
    double distance;             /* sample to beam spot (m) */
    double close_distance; /* sample to detector plane along its normal (m); NAN = not given */
    double Xbeam, Ybeam;   /* beam centre in the convention's frame (m); NAN = not given */
    double Xclose, Yclose; /* near point (m); NAN = not given */
    double ORGX, ORGY;     /* XDS origin (pixels); NAN = not given */
    nb_pivot pivot;
    nb_convention convention;
    double fdet[3], sdet[3], odet[3]; /* CUSTOM detector fast, slow, normal unit vectors */
    double beam[3];                   /* CUSTOM beam direction (source to sample) */
    double polar_vector[3];           /* CUSTOM polarization (E-vector) direction */
    double spindle[3];                /* CUSTOM rotation axis */
    double twotheta_axis[3]; /* CUSTOM two-theta axis (used as given, not normalised: Q-10) */
    double pix0[3]; /* -pix0_vector (m): the outer corner of pixel (0, 0) from the sample, rotated
                       with the axes; 0 0 0 = not given (the reference ignores it, Q-13: a
                       non-zero one takes effect here, which no reference command line gives) */
    double rotx, roty, rotz;   /* detector rotations about lab X, Y, Z (rad) */
    double twotheta;           /* detector two-theta (rad) */
    int curved_det;            /* spherical detector */
    int point_pixel;           /* solid angle 1/R^2 */
    double detector_mu;        /* attenuation (1/m); -1 = not given */
    double detector_thick;     /* sensor thickness (m) */
    double detector_thickstep; /* -1 = auto */
    int detector_thicksteps;   /* sensor layers; -1 = auto */
    int roi[4];                /* xmin xmax ymin ymax (inclusive pixels); -1 = whole detector */
    char *img_file;            /* -img: SMV header read for defaults (owned) */
    char *mask_file;           /* -mask: SMV file, zero pixels skipped (owned) */
    char *frame_file;          /* -frame: a measured frame (SMV, CBF, NeXus) whose header gives
                                  defaults, read before -mask and -img (owned; nb-frame.h) */
    int frame_index;           /* -frame_index: the frame of a NeXus series (0-based) */
    char *detector_file;       /* -detector: a multi-panel geometry (CrystFEL .geom; DIALS .expt and
                                  NXmx through the formats module; nb_detector_model_read() in
                                  nb-detector.h), or NULL: the one panel of the fields above.
                                  Each panel is rendered as a CUSTOM-convention panel of its fdet,
                                  sdet, odet = +-fdet x sdet (away from the sample), pix0 and pixel counts; the rotations,
                                  -roi and the sampling apply to every panel (owned) */
    double detector_shift[3];  /* -detector_shift (m, lab frame): t of the rigid motion below */
    double detector_rotation[3]; /* -detector_rotation (rad, lab frame): the rotation vector of R
                                    (a turn by |w| about w, right-handed).  The -detector model's
                                    panels, as read, are moved as one rigid body about the sample:
                                    every pix0 x becomes R x + t and every fdet, sdet (and so odet)
                                    becomes R fdet, R sdet; the beam stays.  0 0 0 and 0 0 0 (the
                                    default) leave the file's geometry bit for bit; non-zero without
                                    -detector is an error.  nb_refine() writes its refined
                                    whole-detector motion here (nb-match.h) */

    /* ---- sampling ---- */
    double phi0;    /* start spindle angle (rad) */
    double osc;     /* oscillation range (rad); -1 = not given */
    double phistep; /* (rad); -1 = not given */
    int phisteps;   /* -1 = not given */
    int oversample; /* sub-pixels per axis; <= 0 = auto */
    int oversample_thick, oversample_polar, oversample_omega;
    double dmin; /* resolution cut-off (m); 0 = off; structure factors computed from a
                  * model go no further */

    /* ---- output (used by the CLI) ---- */
    char *floatfile, *intfile, *pgmfile, *noisefile, *pngfile; /* owned */
    int write_pgm;                                             /* 1: write pgmfile */
    int calculate_noise;                                       /* 1: write noisefile */
    double intfile_scale;                                      /* <= 0: auto 55000/max */
    double pgm_scale;                                          /* <= 0: auto */
    double adc;                                                /* offset added to SMV pixels */
    long seed; /* noise seed, stored negated; default -time() */
    int printout;
    int printout_fpixel, printout_spixel;
    int progress;

    /* ---- Braggscope ---- */
    nb_precision precision;
    int physical;         /* 1: correct the reference's bugs (see nb_params_parse_argv) */
    int stats;            /* -stats: print plan cache counters */
    double memory_budget; /* bytes a run may use (-memory_budget MB); 0 = nb_memory_budget (0) */
    nb_backend backend;   /* -backend; nb_params_init() sets NB_BACKEND_AUTO.  -precision exact
                            and tricubic interpolation always run on the CPU, and so does a
                            curved detector (the plan log says so) */
    nb_integration integration; /* -integration; nb_params_init() sets EXACT */
    double tolerance;           /* -tolerance: adaptive integration's error bound per pixel, as a
                         fraction of the frame's brightest pixel (default 1e-3) */
  } nb_params;

  /* nb_params_init: the reference's defaults (as `nanobragg -h` lists them); strings NULL except the
 * output names (floatimage.bin, intimage.img, image.pgm, noiseimage.img).
 * The noise seed and the misset seed default to -time(NULL), as the reference. */
  NB_API void nb_params_init (nb_params *p);

  /* nb_params_clear: frees the owned strings; @p may be re-initialised after. */
  NB_API void nb_params_clear (nb_params *p);

  /* nb_params_copy: deep copy of @src into uninitialised @dst.  NB_ERR_NOMEM. */
  NB_API nb_status nb_params_copy (nb_params *dst, const nb_params *src, nb_error *err);

  /* nb_params_parse_argv: applies nanoBragg command-line flags (argv[0] is the
 * program name and is skipped) on top of @p, in argv order, last wins, with the
 * reference's spellings, aliases and precedence (`nanobragg -h`).  Unlike the
 * reference, an unknown flag, a stray argument or a missing or non-numeric value
 * is an NB_ERR_USAGE error naming it (unless -lenient: see nb_parse_options).
 * -img/-mask headers are read first (mask, then image) as the reference does,
 * after the header of a -frame (nb_frame_apply_geometry()).  Returns NB_OK,
 * NB_ERR_USAGE, or errors of reading -img/-mask and those of nb_frame_read()
 * for -frame. */
  NB_API nb_status nb_params_parse_argv (nb_params *p,
                                         int argc,
                                         const char *const *argv,
                                         nb_error *err);

  /* nb_warn_func: receives one warning of the parser, a single line without
 * its newline, valid for the call only. */
  typedef void (*nb_warn_func) (void *user, const char *message);

  /* How nb_params_parse_argv_with() treats command lines written for nanoBragg. */
  typedef struct
  {
    /* 1: skip what nanoBragg itself ignores instead of refusing it: a word
     * starting with '-' that no nanoBragg flag matches (-hdiv, -lamda), and a
     * value no flag takes (the 0 of "-oversample_thick 0").  A word nanoBragg
     * would act on through its substring matching (-distance_mm) and a missing
     * or malformed value of a known flag stay errors.  The flag -lenient
     * anywhere on the command line does the same. */
    int lenient;
    /* called once per skipped word (may be NULL: warnings are dropped) */
    nb_warn_func warn;
    void *user;
    /* called once per line of what a -frame header set, each value with the
     * header text it came from (nb_frame_apply_geometry()'s report; may be
     * NULL: the lines are dropped) */
    nb_warn_func report;
  } nb_parse_options;

  /* nb_params_parse_argv_with: nb_params_parse_argv() with @opts (NULL: the
 * defaults, strict).  An unknown flag's error names the nearest known flags
 * and says whether nanoBragg ignores the word (then -lenient runs the line as
 * nanoBragg would) or reads it as one of its flags. */
  NB_API nb_status nb_params_parse_argv_with (
      nb_params *p, int argc, const char *const *argv, const nb_parse_options *opts, nb_error *err);

  /* nb_params_parse_scene_argv: nb_params_parse_argv() for arguments that
 * describe a scene and nothing else: those of a snapshot, of a saved scene,
 * of a lesson.  Any flag naming an output (NB_PARAM_OUTPUT in nb-param.h:
 * -dump, -floatfile, -stolout...) is refused before a word is parsed or a
 * file read, with NB_ERR_USAGE and the one line "SOURCE: -dump names a file
 * to write, which a scene may not hold" (@source: where the arguments come
 * from, a file's path or "the last scene"; NULL: "arguments").  Otherwise as
 * nb_params_parse_argv(). */
  NB_API nb_status nb_params_parse_scene_argv (
      nb_params *p, int argc, const char *const *argv, const char *source, nb_error *err);

  /* nb_params_validate: checks every field of @p against what the physics and
 * the engine allow, without touching files: numbers must be finite and in
 * range (wavelength >= 0.001 A, cell lengths >= 0.1 A and angles that close a cell, no
 * negative sizes, counts within their limits, divergence/phi/sensor grids of a
 * bounded number of steps, an ROI that keeps a pixel...), the "not given"
 * sentinels documented above are accepted.  The values the reference accepts
 * on purpose stay valid (-N 0, -phisteps 0, -oversample 0 = auto, negative
 * beam centres...).  Returns NB_OK, or NB_ERR_INVALID with a one-line message
 * naming the parameter as its command-line flag, the value in the flag's units
 * and what is allowed.  nb_plan_create() and nb_plan_update() call it first;
 * nb_params_parse_argv() does not (it checks syntax only). */
  NB_API nb_status nb_params_validate (const nb_params *p, nb_error *err);

  /* nb_params_check_inputs: whether the files @p names for reading (-hkl,
 * -mat, -sourcefile, -mask, -img, -stol, -frame...) that differ from
 * @before's (NULL: all of them) can be opened as the plan will open them: a
 * regular file the process may read (a named pipe, a terminal or a directory
 * is refused without waiting on it).  Cheap: each is opened and closed,
 * nothing is read.  Returns NB_OK, or NB_ERR_IO with one line naming the
 * flag and the file ("-hkl: cannot open P1.hkl: No such file or
 * directory").  For a program that wants a bad file name refused where it
 * was given, before the plan reads it. */
  NB_API nb_status nb_params_check_inputs (const nb_params *p,
                                           const nb_params *before,
                                           nb_error *err);

  /* nb_params_hkl_is_model: 1 when the structure-factor file @p names (-hkl,
   * -model) is an atomic model (PDB, mmCIF) or an mmCIF -sf.cif file, either
   * of which gives the crystal its own unit cell where -cell and -mat do not;
   * 0 for HKL text and MTZ files, no file, or one that cannot be read.  Reads
   * the file's first bytes (check it with nb_params_check_inputs() first). */
  NB_API int nb_params_hkl_is_model (const nb_params *p);

  /* nb_params_to_argv: a nanoBragg command line that reproduces @p: argv[0] is
 * "nanobragg", then the flags of every field that differs from
 * nb_params_init()'s defaults, in the units the parser takes, so that
 * nb_params_parse_argv() on a fresh nb_params gives back a set that renders
 * the same (round trip tested): equal in every field except those without
 * effect, which are left out.  Those are the seeds that do not matter (their
 * defaults depend on the time): the misset seed without -misset random, the
 * mosaic seed unless several domains with a spread are drawn or a noise image
 * continues its generator, the noise seed without a noise image; and the
 * misset angles with -misset random.  Flags appended to the result keep
 * their meaning (-misset_seed is never last: Q-29).  The array
 * and its strings are malloc'ed and NULL-terminated; free with nb_argv_free().
 * Sets *@argc when @argc is non-NULL.  NULL when out of memory. */
  NB_API char **nb_params_to_argv (const nb_params *p, int *argc);

  /* nb_params_to_scene_argv: nb_params_to_argv() without the flags that
 * name an output (the rows with NB_PARAM_OUTPUT, nb-param.h: -dump,
 * -floatfile, -pngfile...): the scene @p describes, for a snapshot or a
 * saved scene, which must not make the program that reopens it write a
 * file.  A -dump read without -hkl is left out too (the structure factors
 * then come from -default_F). */
  NB_API char **nb_params_to_scene_argv (const nb_params *p, int *argc);

  /* nb_argv_free: frees an array from nb_params_to_argv() (NULL allowed). */
  NB_API void nb_argv_free (char **argv);

  /* ------------------------------------------------------------------------- */

  typedef struct nb_plan nb_plan;

  /* nb_cell_differs: 1 when unit cells @a and @b (a, b, c in Angstrom;
   * alpha, beta, gamma in degrees) cannot be one crystal's: their edges,
   * sorted, differ by more than 3 %, or their angles, sorted, by more than 3
   * degrees (a cell refined against other data differs by tenths of a
   * percent; another setting of the same lattice permutes the edges).  0 when
   * either has a zero edge (unknown). */
  NB_API int nb_cell_differs (const double a[6], const double b[6]);

  /* Derived geometry and bookkeeping, valid for the plan's life (until update). */
  typedef struct
  {
    int fpixels, spixels;
    double pixel_size; /* m */
    int oversample;
    int thicksteps;
    int sources, mosaic_domains, phisteps;
    int comment_sources;   /* of sources, those read from '#' lines of -sourcefile */
    int steps;             /* sources * domains * phisteps * oversample^2 */
    double lambda0;        /* m */
    double distance;       /* post-geometry (m) */
    double close_distance; /* m */
    double Xbeam, Ybeam;   /* convention-level beam centre (m) */
    double Fbeam, Sbeam, Fclose, Sclose; /* post-geometry (m) */
    double ORGX, ORGY;                   /* pixels */
    double dials_origin[3];              /* mm */
    double detsize_f, detsize_s;         /* m */
    double fdet[3], sdet[3], odet[3], beam[3], pix0[3], spindle[3], polar_vector[3];
    double phi0, osc, phistep;              /* rad, after auto-selection */
    double twotheta;                        /* rad (as given) */
    double a_star[3], b_star[3], c_star[3]; /* 1/Angstrom, misset applied */
    double a0[3], b0[3], c0[3];             /* real cell vectors (m), misset applied, phi = 0 */
    double Na, Nb, Nc;
    double fluence;
    int roi[4];
    nb_convention convention;
    nb_pivot pivot;
    int interpolate; /* 0/1 as used */
    double default_F;
    double cell[6];           /* the crystal's unit cell (Angstrom, degrees), from a0, b0, c0 */
    double hkl_cell[6];       /* the structure-factor file's cell when it gives one (an MTZ
                                 file's CELL record), else all 0 */
    char hkl_space_group[16]; /* its space group (MTZ SYMINF), or "" */
    int hkl_cell_differs;     /* hkl_cell is not the crystal's (nb_cell_differs()): the file's
                                 structure factors cannot belong to this crystal */
    int n_panels;             /* panels of a -detector model (0: none).  The image then holds every
                     panel, one after another (nb_detector_model_panel_offset()), and
                     fpixels x spixels is its whole size: the panels' common width x the
                     sum of their heights (stacked slow-wise), or, when their widths
                     differ, the total pixel count x 1.  The geometry fields above are
                     panel 0's, but roi, which spans the whole image (each panel
                     renders its own -roi) */
    nb_integration integration; /* as execute integrates: ADAPTIVE only where the plan takes
                                   it (not -precision exact, -curved_det,
                                   -oversample_thick/polar/omega, tricubic interpolation) */
    double tolerance;           /* adaptive: the error bound per pixel, a fraction of the
                                   frame's brightest pixel */
    double hkl_d_min;           /* the resolution (Angstrom) to which the structure factors were
                                 computed from an atomic model (-model), reflections beyond it
                                 taking default_F; 0 when they were read from a file */
  } nb_plan_info;

  /* The plan's stages (its warm cache).  Each is recomputed only when one of its
 * inputs changed:
 *   DETECTOR     pixel size and counts, distance, beam centre, convention,
 *                pivot, vectors, rotations, two-theta, sensor, ROI
 *   CRYSTAL      cell, -mat, misset, crystal size, wavelength (a -mat needs it),
 *                and the detector (automatic oversampling)
 *   STRUCTURE_FACTORS  -hkl/-dump files and default_F: never re-read otherwise
 *   SOURCES      wavelength, dispersion, divergence, source file, and the
 *                detector (beam and polarization vectors)
 *   ORIENTATION  phi, oscillation, mosaic spread/domains/seed, and the crystal
 *                and detector (spindle)
 *   BUFFERS      the cache key: pixel counts, counts of sources, domains and
 *                phi steps, the mask, the precision; reallocated only when a
 *                table or row buffer must grow */
  typedef enum
  {
    NB_STAGE_DETECTOR = 0,
    NB_STAGE_CRYSTAL,
    NB_STAGE_STRUCTURE_FACTORS,
    NB_STAGE_SOURCES,
    NB_STAGE_ORIENTATION,
    NB_STAGE_BUFFERS,
    NB_N_STAGES
  } nb_stage;

  typedef struct
  {
    long hits[NB_N_STAGES];     /* updates that reused the stage */
    long rebuilds[NB_N_STAGES]; /* creations and updates that recomputed it */
  } nb_plan_stats;

  /* nb_stage_name: "detector", "crystal", ... */
  NB_API const char *nb_stage_name (nb_stage stage);

  /* nb_plan_get_stats: the hit/rebuild counters since the plan was created. */
  NB_API void nb_plan_get_stats (const nb_plan *plan, nb_plan_stats *stats);

  /* nb_plan_create: derives everything from @params in the reference's order
 * (nanoBragg.c's order): detector, sources, orientation, structure factors (reads
 * -hkl/-mat/-sourcefile/-stol/-mask files), and allocates the buffers.  The
 * params are copied; @params may be freed after.  Errors: NB_ERR_INVALID (a
 * setting that leaves no sources or pixels, an impossible cell...), NB_ERR_IO
 * and NB_ERR_PARSE for input files, NB_ERR_NOMEM. */
  NB_API nb_status nb_plan_create (const nb_params *params, nb_plan **out, nb_error *err);

  /* nb_plan_update: replaces the plan's parameters by @params, recomputing only
 * the stages whose inputs changed.  On error the plan keeps its old state. */
  NB_API nb_status nb_plan_update (nb_plan *plan, const nb_params *params, nb_error *err);

  /* nb_plan_destroy: frees the plan (NULL allowed). */
  NB_API void nb_plan_destroy (nb_plan *plan);

  /* Statistics of the image an execute renders, computed where it is rendered
 * (on the GPU for a plan that runs there), so that a caller showing the image
 * does not pass over its pixels again.  Fill the "in" fields and point
 * nb_exec_options.stats at it. */
  typedef struct
  {
    int window;             /* in: also the percentile window (full images; a preview
                               gets finite and max only) */
    double low_percentile;  /* in: 0..100, see nb_image_window() */
    double high_percentile; /* in */
    int valid;              /* out: 1 when execute filled the fields below (0 after an
                               error or a cancel) */
    int has_window;         /* out: low and high were computed */
    size_t finite;          /* out: pixels that are finite */
    float max;              /* out: the largest finite pixel (photons), 0 when none */
    double low, high;       /* out: nb_image_window() of the image */
  } nb_exec_stats;

  /* nb_exec_stats_compute: @stats of @image (@n floats) on the CPU, what
 * execute computes with nb_exec_options.stats; no window (has_window 0) when
 * out of memory. */
  NB_API void nb_exec_stats_compute (const float *image, size_t n, nb_exec_stats *stats);

  /* nb_image_window: a display window from the distribution of @data (@n
 * floats): *@low and *@high are the @low_percentile-th and
 * @high_percentile-th percentiles (0..100) of its finite values, the order
 * statistic at rank p / 100 * (m - 1) among the m finite values interpolated
 * linearly between neighbouring ranks (numpy.percentile's default).  Exact,
 * in O(n) without a copy (two counting passes over 16-bit digits of the
 * values' sort keys, nb-stats.h).  Percentiles are clamped to 0..100 (NaN:
 * 0 for low, 100 for high) and swapped if given in the wrong order.  An empty
 * window (high <= low) ends at the largest finite value, or at low + 1 when
 * that is not above low; with no finite value (or out of memory) the window
 * is 0..1. */
  NB_API void nb_image_window (const float *data,
                               size_t n,
                               double low_percentile,
                               double high_percentile,
                               double *low,
                               double *high);

  typedef struct
  {
    const volatile int
        *cancel; /* if non-NULL and becomes non-zero, execute stops (NB_ERR_CANCELLED)
                                 within one row tile; execute reads it with an atomic load, so
                                 set it from another thread with an atomic store
                                 (__atomic_store_n, g_atomic_int_set) */
    void (*progress) (void *user,
                      int rows_done,
                      int rows_total); /* called from the calling thread */
    void *user;
    int threads;          /* OpenMP threads; 0 = default */
    int preview_stride;   /* 0 or 1: full image.  k >= 2: a preview: one pixel per k x k
                                 block (its centre, pixel f0 + k/2, s0 + k/2, clipped to the
                                 ROI) is simulated and copied to the whole block, so the
                                 image is full size at about 1/k^2 of the cost */
    nb_exec_stats *stats; /* or NULL: statistics of the image, filled by execute */
  } nb_exec_options;

  /* nb_plan_execute: renders the image into @image (caller-owned,
 * fpixels*spixels floats, fast index first), in photons per pixel.  Pixels
 * outside the ROI or masked are 0.  @opts may be NULL. */
  NB_API nb_status nb_plan_execute (nb_plan *plan,
                                    float *image,
                                    const nb_exec_options *opts,
                                    nb_error *err);

  /* nb_alloc_large: malloc() for whole images and grids: a buffer of @bytes,
 * from 2 MB up aligned to 2 MB and advised onto transparent huge pages
 * (madvise MADV_HUGEPAGE), so filling it takes one page fault per 2 MB
 * instead of per 4 kB.  Uninitialised; NULL when out of memory.  Free with
 * free(). */
  NB_API void *nb_alloc_large (size_t bytes);

  /* nb_memory_budget: the bytes one run may hold, the one budget of every
 * path that plans an image or reads a frame (nb_plan_create(),
 * nb_frame_read()): @requested (nb_params.memory_budget) when > 0, else half
 * of the memory this process may use: the physical memory, or less where
 * the process's address space or data segment is limited (RLIMIT_AS,
 * RLIMIT_DATA) or its cgroup's memory.max says so. */
  NB_API double nb_memory_budget (double requested);

  /* nb_image_alloc: a buffer of @bytes for images that a plan running on the
 * GPU (nb_plan_get_backend() "cuda") renders into: with @pinned, page-locked
 * host memory (cudaMallocHost), which the GPU's copy back writes into
 * directly while the kernel renders the next band, without a copy through
 * the backend's own buffer; without @pinned, or where page-locked memory
 * cannot be had (a build without CUDA, no device, the limit of locked
 * memory), nb_alloc_large().  Either works with any plan.  Uninitialised;
 * NULL when out of memory.  Free with nb_image_free() only.  Thread-safe. */
  NB_API void *nb_image_alloc (size_t bytes, int pinned);

  /* nb_image_free: frees a buffer of nb_image_alloc() (NULL allowed).  Freeing
 * page-locked memory may wait for the GPU's work in flight. */
  NB_API void nb_image_free (void *image);

  typedef struct
  {
    double execute_ms; /* wall time of the last execute that rendered a full image
                          (not a preview, not cancelled), 0 before the first */
    double kernel_ms;  /* of that execute, on the GPU: from the start of the first
                          band's kernel to the end of the last one's (CUDA events);
                          0 on the CPU */
    int on_gpu;        /* that execute ran on the GPU */
    int adaptive;      /* that execute integrated adaptively (-integration adaptive) */
    double samples;    /* the sub-pixel positions it evaluated (each for every sensor layer,
                          source and orientation step): ROI pixels x oversample^2 x layers
                          for the reference's method; adaptive: those its cells took
                          (a viewer's status line shows it) */
  } nb_plan_timing;

  /* nb_plan_get_timing: how long the plan's last full image took, for a
 * program to choose between a preview and a full frame (a frame that fits
 * the display's frame time needs no preview) and for benchmarks. */
  NB_API void nb_plan_get_timing (const nb_plan *plan, nb_plan_timing *timing);

  /* nb_cuda_warm_up: for a long-lived program that will render many frames (a
 * viewer): where @params asks for the GPU (-backend cuda, or auto unless
 * NB_BACKEND=cpu) and this build and machine have one, starts creating the
 * CUDA context on a thread of its own and returns at once, so that it is
 * ready by the time the first plan needs it; from then on -backend auto
 * counts the GPU's start-up as paid and chooses the GPU for every plan the
 * GPU can run (see nb_params.backend).  Once per process; thread-safe. */
  NB_API void nb_cuda_warm_up (const nb_params *params);

  /* nb_kernel_variant: the instruction set the fast kernels (single and double
 * precision) use on this CPU now ("avx512", "avx2", "sse41" or "generic"); the
 * environment variable NB_KERNEL=generic|sse41|avx2|avx512 forces one
 * (falling back when unsupported). */
  NB_API const char *nb_kernel_variant (void);

  /* nb_plan_get_backend: where the plan's execute runs now: "cuda" or "cpu".
 * A plan asked for auto or cuda runs on the CPU when the device is missing,
 * for -precision exact, tricubic interpolation or a curved detector, and
 * after a CUDA error in one of its runs (that run and the later ones fall
 * back to the CPU kernel; the plan log has the error).  A constant string. */
  NB_API const char *nb_plan_get_backend (const nb_plan *plan);

  /* nb_cuda_device_available: 1 when this build has the CUDA backend and a
 * device of compute capability 8.0 or newer and its driver are present, else
 * 0.  @why (if non-NULL, @n bytes) receives the device's name, or the reason
 * there is none (no driver, no device, a build without CUDA...).  The probe
 * runs once per process; thread-safe. */
  NB_API int nb_cuda_device_available (char *why, size_t n);

  /* nb_plan_get_info: derived values (geometry, counts) of the current plan. */
  NB_API const nb_plan_info *nb_plan_get_info (const nb_plan *plan);

  /* nb_plan_get_panel_info: the derived values of panel @panel (0-based) of
   * a plan's -detector model into @info, as nb_plan_get_info() gives them for
   * a one-panel plan: that panel's pixel counts, vectors (odet the normal
   * away from the sample), pix0, distances and oversampling; the crystal's,
   * the sources' and the counts shared.  A plan without panels has one,
   * panel 0.  Errors: NB_ERR_INVALID for a panel it does not have. */
  NB_API nb_status nb_plan_get_panel_info (const nb_plan *plan,
                                           int panel,
                                           nb_plan_info *info,
                                           nb_error *err);

  /* nb_plan_arc_domains: the mosaic domains that draw the plan's mosaic
 * spread as smooth arcs rather than separate copies of each spot: the
 * plan's own count when it already does (or without a mosaic spread), else
 * ceil ((s / w)^2) up to @max_domains, where s is the spread (rad) and
 * w = d_min / (N a) the angle that moves a reciprocal-lattice point by its
 * shape transform's width (d_min the detector's highest resolution, N a the
 * crystal's longest edge).  The plan is not changed (a geometry snapshot is
 * made, as nb_plan_ref_geometry()). */
  NB_API int nb_plan_arc_domains (nb_plan *plan, int max_domains);

  /* nb_plan_get_params: the parameters the plan was built from (owned by the plan). */
  NB_API const nb_params *nb_plan_get_params (const nb_plan *plan);

  /* nb_plan_get_warnings: the reference's quirks that change this plan's image
 * and are reproduced because -physical is not given, one line each ending in
 * '\n', naming the quirk and -physical (today Q-2: a detector two-theta left
 * out of the distance ratio, which from 90 degrees on puts the detector
 * behind the sample and every pixel at negative photons); "" when none.  A
 * strict program prints them on stderr (nanobragg), a library hands them on
 * with its frames.  Owned by the plan, valid until its next update. */
  NB_API const char *nb_plan_get_warnings (const nb_plan *plan);

  /* nb_plan_get_log: the lines the reference prints while setting up (convention,
 * cell, sources, summary...), for the CLI to print; NUL-terminated, owned by
 * the plan.  Also any lines execute adds (interpolation warning). */
  NB_API const char *nb_plan_get_log (const nb_plan *plan);

  /* nb_plan_get_mask: the -mask pixels (1 = use), or NULL; with a -detector model, every
   * panel's (its bad regions) in the image's layout, or NULL where none has one. */
  NB_API const uint16_t *nb_plan_get_mask (const nb_plan *plan);

  /* nb_plan_get_omega_sum: the sum of the solid angles (sr) of every sub-pixel
 * of the last execute; divided by steps it is the reference's "solid angle
 * subtended by detector". */
  NB_API double nb_plan_get_omega_sum (const nb_plan *plan);

  /* ------------------------------------------------------------------------- */
  /* Pixel queries: what a viewer shows under the cursor. */

  /* An immutable, reference-counted snapshot of the plan's geometry, crystal
 * orientation and structure factors, safe to query from any thread while the
 * plan itself is updated or destroyed. */
  typedef struct nb_geometry nb_geometry;

  typedef struct
  {
    double fdet, sdet;  /* position on the detector along fdet and sdet from pix0's corner (m) */
    double lab[3];      /* position in the lab frame (m), sample at the origin */
    double two_theta;   /* scattering angle 2 theta (rad) to the central beam */
    double azimuth;     /* angle about the beam of the scattered ray (rad, -pi..pi):
                         atan2 of its components along (beam x polar_vector) and
                         polar_vector, so 0 is the polarization direction */
    double d;           /* resolution d = lambda / (2 sin theta) (Angstrom); INFINITY at 2theta 0 */
    double q;           /* |q| = 4 pi sin(theta) / lambda (1/Angstrom) */
    double stol;        /* sin(theta) / lambda (1/Angstrom) */
    double hkl[3];      /* fractional Miller indices h k l: real cell vectors . (s - s0)/lambda,
                         crystal at the middle of the first phi step (as nanoBragg.c takes it) */
    int h, k, l;        /* nearest whole indices (the reference's rounding, ceil(x - 0.5)) */
    double F;           /* structure factor of (h, k, l): from the file, else default_F */
    int F_from_file;    /* 1 when (h, k, l) is one of the file's reflections */
    double solid_angle; /* solid angle of the pixel (sr), flat or point-pixel as the plan */
  } nb_pixel_query;

  /* nb_plan_ref_geometry: a new reference to the snapshot of the plan's current
 * state (shared until the next update changes the detector, crystal,
 * orientation, sources or structure factors).  NULL only when out of memory.
 * Release with nb_geometry_unref(). */
  NB_API nb_geometry *nb_plan_ref_geometry (nb_plan *plan);

  /* nb_geometry_ref / nb_geometry_unref: atomic reference counting (NULL allowed). */
  NB_API nb_geometry *nb_geometry_ref (nb_geometry *geom);
  NB_API void nb_geometry_unref (nb_geometry *geom);

  /* nb_geometry_new_plane: a new snapshot like @geom (its crystal, beam,
   * wavelength and structure factors, shared) for another flat detector:
   * @fpixels x @spixels pixels of @pixel_size (m), whose pixel (0, 0) has its
   * outer corner at @pix0 (m, lab frame, from the sample) and whose fast and
   * slow axes are @fdet and @sdet (unit vectors made of them).  One panel of
   * a multi-panel detector, or a plane a viewer projects the panels on.
   * NULL for counts or a size that are not positive, or out of memory;
   * release with nb_geometry_unref(). */
  NB_API nb_geometry *nb_geometry_new_plane (const nb_geometry *geom,
                                             int fpixels,
                                             int spixels,
                                             double pixel_size,
                                             const double pix0[3],
                                             const double fdet[3],
                                             const double sdet[3]);

  /* nb_geometry_size: the detector's pixel counts. */
  NB_API void nb_geometry_size (const nb_geometry *geom, int *fpixels, int *spixels);

  /* nb_geometry_query: the quantities of nb_pixel_query at the detector point
 * (@fpixel, @spixel) in pixel units: pixel (i, j) spans [i, i+1) x [j, j+1) and
 * its centre is (i + 0.5, j + 0.5); points off the detector are allowed.  The
 * central wavelength and the first source's direction are used.  Errors:
 * NB_ERR_INVALID for a non-finite coordinate. */
  NB_API nb_status nb_geometry_query (
      const nb_geometry *geom, double fpixel, double spixel, nb_pixel_query *out, nb_error *err);

  /* nb_geometry_direction_to_pixel: where the ray from the sample along @dir
 * (lab frame, any length) meets the detector plane, in the pixel units of
 * nb_geometry_query() (a curved detector is treated as flat).  Returns 1 and
 * sets *@fpixel, *@spixel, or 0 when the ray runs parallel to the plane or
 * away from it; points off the detector's pixels are returned (compare them
 * with nb_geometry_size()). */
  NB_API int nb_geometry_direction_to_pixel (const nb_geometry *geom,
                                             const double dir[3],
                                             double *fpixel,
                                             double *spixel);

  /* nb_geometry_structure_factor: the structure factor the plan uses for
 * (@h, @k, @l): the file's where the file has the reflection, else default_F
 * (as the kernel's lookup of whole indices).  *@from_file (when non-NULL) is
 * 1 when the indices lie inside the file's grid. */
  NB_API double
  nb_geometry_structure_factor (const nb_geometry *geom, int h, int k, int l, int *from_file);

  /* nb_geometry_same_structure_factors: 1 when @a and @b look up the same
 * structure factors (the same table read once by a plan, and the same
 * default_F), so that F computed with one holds for the other: the cache key
 * of a viewer that draws |F| while the orientation changes. */
  NB_API int nb_geometry_same_structure_factors (const nb_geometry *a, const nb_geometry *b);

  /* ------------------------------------------------------------------------- */
  /* Statistics and conversions of a float image, as the reference computes them
 * (at the end of a run). */

  typedef struct
  {
    double max_I;
    double max_I_x, max_I_y; /* Fdet, Sdet (m) of the last sub-pixel of the max pixel */
    double mean, rms, rmsd;
    double sum;
    long n;
  } nb_image_stats;

  /* nb_image_statistics: over ROI pixels not masked (rmsd over all ROI pixels,
 * quirk Q-25).  @mask may be NULL. */
  NB_API void nb_image_statistics (const nb_plan *plan, const float *image, nb_image_stats *st);

  /* nb_image_first_non_finite: the index of the first of the @n pixels of
 * @image that is an infinity or a NaN, or -1 when all are finite; *@count
 * (when @count is not NULL) gets how many are.  Such an image is an error,
 * never an output (nanobragg and nanobragg-series refuse to write it). */
  NB_API long nb_image_first_non_finite (const float *image, size_t n, size_t *count);

  /* nb_image_check_finite: NB_OK when every pixel of @image (@plan's
 * fpixels x spixels, as nb_plan_execute() rendered it) is finite, else
 * NB_ERR_INVALID with one line giving how many are not, the first (fast,
 * slow) and its value, and the likely cause: the '#' lines of a -sourcefile
 * read as sources, or the flags that scale intensities (-fluence,
 * -flux, -water, -default_F).  The one check of every path that renders:
 * nanobragg refuses to write such an image, libbraggscope reports it through
 * its error signal instead of delivering a frame. */
  NB_API nb_status nb_image_check_finite (const nb_plan *plan, const float *image, nb_error *err);

  /* nb_image_to_smv: uint16 pixels: ROI pixels floorf(v*scale + adc + 0.5)
 * clamped to [0, 65535], others 0.  @scale <= 0 means auto
 * (55000/max_I, 1 when max_I is 0).  Returns the scale used. */
  NB_API double nb_image_to_smv (const nb_plan *plan,
                                 const float *image,
                                 const nb_image_stats *st,
                                 double scale,
                                 double adc,
                                 uint16_t *out);

  /* nb_image_to_pgm: bytes min(255, v*scale) for ROI pixels.  @scale <= 0: auto
 * (250/(5 rmsd), else @int_scale).  Returns the scale used. */
  NB_API double nb_image_to_pgm (const nb_plan *plan,
                                 const float *image,
                                 const nb_image_stats *st,
                                 double scale,
                                 double int_scale,
                                 uint8_t *out);

  /* nb_image_to_noise: Poisson noise image with the reference's generator
 * (seed @seed, stored negated as -seed N gives; the generator table continues
 * from the plan's misset and mosaic draws, as the reference shares it), ROI
 * pixels only, + adc, upper clamp 65535 (overloads counted).  Returns the
 * total photons. */
  NB_API double nb_image_to_noise (const nb_plan *plan,
                                   const float *image,
                                   long seed,
                                   double adc,
                                   uint16_t *out,
                                   int *overloads);

#ifdef __cplusplus
}
#endif
