/* nb-detector-read.h: the multi-panel geometry readers of the CBF/NeXus
 * module (nb-formats.h) that nb_detector_model_read() dispatches to: DIALS
 * experiment lists through jansson, NeXus NXmx through libhdf5.
 *
 * Each fills @model (nb_detector_model_init()ed by the reader; on failure it
 * is left empty) with every vector in nanoBragg's laboratory frame, in metres
 * (nb-detector.h), or returns an error whose one-line message names @path and
 * the place in the file (the JSON path "detector[0].panels[3].fast_axis", the
 * HDF5 object).  The files are untrusted: their size, panel count, hierarchy
 * depth and transformation chains are bounded (below).
 *
 * Errors: NB_ERR_IO (cannot open or read), NB_ERR_PARSE (malformed, or a
 * geometry the model cannot hold: non-square pixels, parallel axes),
 * NB_ERR_NOMEM (past a bound), NB_ERR_UNSUPPORTED (this build lacks the
 * module or its library: jansson, libhdf5).
 */
#pragma once

#include "nb-detector.h"
#include "nb-status.h"

/* The bounds on what a geometry file may make us hold. */
#define NB_DETECTOR_FILE_MAX_BYTES ((size_t) 64 << 20)   /* a .expt's JSON text */
#define NB_DETECTOR_MAX_PANELS     4096                  /* panels, NXdetector_modules */
#define NB_DETECTOR_MAX_DEPTH      64                    /* hierarchy levels, depends_on links */
#define NB_DETECTOR_MAX_AXIS       65536                 /* pixels along fdet or sdet */
#define NB_DETECTOR_MAX_PIXELS     ((long long) 1 << 28) /* all panels together */

/* nb_detector_read_expt: the detector of a DIALS/dxtbx experiment list
 * (.expt, JSON): its panels in the order of its "panels" list (dxtbx's panel
 * numbers), each composed through the "hierarchy" tree into the laboratory
 * frame as dxtbx does, their masks ("mask" rectangles [f0, s0, f1, s1), pixel
 * indices, end exclusive), the beam of the first experiment (or the first
 * beam) and its wavelength.  A file of more than one detector is refused. */
nb_status nb_detector_read_expt (const char *path, nb_detector_model *model, nb_error *err);

/* nb_detector_read_nxmx: the detector of a NeXus NXmx file's first NXentry:
 * one panel per NXdetector_module, placed by its module_offset,
 * fast_pixel_direction and slow_pixel_direction and their depends_on chains
 * (translations and rotations, at most NB_DETECTOR_MAX_DEPTH links, no
 * cycles), data_origin and data_size giving its place in the data array
 * (data_fpixels x data_spixels), the detector's pixel_mask cut into the
 * panels' masks, the beam along the McStas +z (or the beam's
 * incident_beam_direction... where given) and the incident wavelength. */
nb_status nb_detector_read_nxmx (const char *path, nb_detector_model *model, nb_error *err);
