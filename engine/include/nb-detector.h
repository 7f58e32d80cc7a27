/* nb-detector.h: a detector of one or more flat panels, as the multi-panel
 * geometry files describe it (DIALS/dxtbx experiment lists, CrystFEL .geom,
 * NeXus NXmx with several NXdetector_module groups).
 *
 * nanoBragg models one flat panel; a real detector is many.  Each panel here
 * is exactly what nanoBragg's CUSTOM convention describes with -fdet_vector,
 * -sdet_vector and -pix0_vector: a grid of fpixels x spixels square pixels
 * whose pixel (f, s) has its outer corner at pix0 + f * pixel_size * fdet +
 * s * pixel_size * sdet.  Coplanar modules with gaps (Pilatus, Eiger) may be
 * one panel with the gap pixels masked; tilted or displaced sensors (CSPAD,
 * Jungfrau, a cylindrical Pilatus 12M) are separate panels.
 *
 * Frame: every vector is in nanoBragg's laboratory frame (the MOSFLM
 * convention's: the beam travels along +x, from the source to the sample),
 * in metres; readers convert from the file's frame:
 *   dxtbx    (x_d, y_d, z_d), beam along -z_d:  nanoBragg = (-z_d, y_d, x_d)
 *   CrystFEL (x_c, y_c, z_c), beam along +z_c:  nanoBragg = (z_c, y_c, -x_c)
 *            (the dxtbx frame with x and z reversed)
 *   NXmx     the McStas frame (beam along +z, y up): as CrystFEL
 * and record the file's beam direction, so a beam tilted away from the axis
 * survives the conversion.
 *
 * Data layout: pixels of panel p are rendered into the p-th block of an
 * image of nb_detector_model_pixels() floats, panel after panel, each block
 * slow-major (pixel (f, s) at s * fpixels + f), as nb_plan_execute() renders
 * one panel.  data_origin_f/s say where a panel's pixels sit in the file's
 * own 2-D data array (CrystFEL min_fs/min_ss, NXmx data_origin), so that a
 * measured frame can be cut into panels and a written frame laid out as the
 * geometry file expects.
 *
 * Ownership: an nb_detector_model owns its panels and their masks; clear it
 * with nb_detector_model_clear().
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nanobragg.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* Longest panel name kept, NUL included; longer names are refused. */
#define NB_PANEL_NAME_MAX 64

  typedef struct
  {
    char name[NB_PANEL_NAME_MAX];     /* the file's name for it ("q0a0", "p3a1", "module_07") */
    int fpixels, spixels;             /* pixel counts along fdet and sdet (> 0) */
    double pixel_size;                /* m: square pixels, as nanoBragg's */
    double fdet[3], sdet[3];          /* unit fast and slow directions, lab frame */
    double pix0[3];                   /* m: sample to the outer corner of pixel (0, 0) */
    double thick;                     /* sensor thickness (m); 0 = not given */
    double mu;                        /* sensor attenuation (1/m); 0 = not given */
    char material[16];                /* sensor material ("Si", "CdTe"), or "" */
    uint8_t *mask;                    /* fpixels * spixels, non-zero = not a measurement (gaps,
                                     bad regions); NULL = every pixel measures; owned */
    int data_origin_f, data_origin_s; /* first pixel's place in the file's 2-D data array,
                                         or -1 where the file has none */
  } nb_panel;

  typedef enum
  {
    NB_DETECTOR_FILE_NONE = 0, /* built by hand or from nb_params */
    NB_DETECTOR_FILE_EXPT,     /* DIALS/dxtbx experiment list (JSON) */
    NB_DETECTOR_FILE_GEOM,     /* CrystFEL geometry */
    NB_DETECTOR_FILE_NXMX,     /* NeXus NXmx (HDF5) */
  } nb_detector_file_kind;

  typedef struct
  {
    int n_panels;
    nb_panel *panels;  /* n_panels, owned */
    double beam[3];    /* unit direction of the beam (source to sample), lab frame */
    double wavelength; /* m, where the file gives one (.expt, NXmx); 0 = not given */
    int data_fpixels;  /* size of the file's 2-D data array (0 = none) */
    int data_spixels;
    nb_detector_file_kind kind;
    char note[256]; /* a reader's one line on what it read and did not use, or "" */
  } nb_detector_model;

  /* nb_detector_model_init: an empty model (no panels, beam along +x). */
  NB_API void nb_detector_model_init (nb_detector_model *model);

  /* nb_detector_model_clear: frees the panels and their masks and leaves an
   * empty model (nb_detector_model_init()).  NULL is allowed. */
  NB_API void nb_detector_model_clear (nb_detector_model *model);

  /* nb_detector_model_pixels: the number of pixels of all panels together
   * (the length of a multi-panel image), or -1 if it overflows a size_t. */
  NB_API long long nb_detector_model_pixels (const nb_detector_model *model);

  /* nb_detector_model_panel_offset: index of panel @panel's pixel (0, 0) in a
   * multi-panel image (the sum of the pixel counts of the panels before it). */
  NB_API size_t nb_detector_model_panel_offset (const nb_detector_model *model, int panel);

  /* nb_detector_model_move: moves every panel of @model as one rigid body
   * about the sample: each pix0 x becomes R x + @shift and each fdet, sdet
   * becomes R fdet, R sdet, where R turns by |@rotation| (rad) about
   * @rotation (a rotation vector, right-handed, lab frame); @shift in m, lab
   * frame.  The beam, pixel counts, sizes and masks stay.  A zero @shift and
   * @rotation change nothing (not a bit).  This is what -detector_shift and
   * -detector_rotation (nanobragg.h) do to the -detector model a plan reads. */
  NB_API void nb_detector_model_move (nb_detector_model *model,
                                      const double shift[3],
                                      const double rotation[3]);

  /* Largest geometry file nb_detector_model_read() reads (bytes). */
#define NB_DETECTOR_FILE_MAX (16u << 20)

  /* nb_detector_model_read: the detector model of the geometry file @path
   * into @out (initialised here; empty on error; clear with
   * nb_detector_model_clear()), its kind told by its contents: the HDF5
   * signature, NeXus NXmx; a first non-blank byte '{', a DIALS/dxtbx
   * experiment list; anything else, CrystFEL geometry (see
   * nb_detector_model_parse_geom in formats/nb-geom.h for what is read and
   * its limits).  The file is opened as every input (a FIFO or a device is
   * refused without waiting) and read up to NB_DETECTOR_FILE_MAX bytes.
   * Errors: NB_ERR_IO (open, read), NB_ERR_NOMEM (larger than the limit),
   * NB_ERR_PARSE "PATH:LINE: ...", NB_ERR_UNSUPPORTED for NXmx and .expt
   * until the formats module reads them. */
  NB_API nb_status nb_detector_model_read (const char *path, nb_detector_model *out, nb_error *err);

  /* nb_plan_get_detector_model: the -detector model @plan renders (its
   * panels' names, masks and data origins; the geometry the plan derived
   * from it is nb_plan_get_panel_info()'s), or NULL for a plan of one
   * detector.  Owned by the plan, valid until its next update. */
  NB_API const nb_detector_model *nb_plan_get_detector_model (const nb_plan *plan);

  /* nb_plan_get_panel_params: the parameters of a one-panel plan that renders
   * panel @panel (0-based) of @plan's -detector model as @plan renders it:
   * @plan's parameters with that panel in place of the detector, as the
   * CUSTOM convention's -fdet_vector, -sdet_vector, -odet_vector (the normal
   * away from the sample), -pix0_vector, -beam_vector (the model's beam),
   * pixel counts and size, and the panel's thickness and attenuation where
   * its file gives them; no -detector file and no detector motion (the
   * panel's vectors are already moved).  @out is initialised here; clear it
   * with nb_params_clear().  Errors: NB_ERR_INVALID (a plan without panels,
   * @panel out of range), NB_ERR_NOMEM. */
  NB_API nb_status nb_plan_get_panel_params (const nb_plan *plan,
                                             int panel,
                                             nb_params *out,
                                             nb_error *err);

#ifdef __cplusplus
}
#endif
