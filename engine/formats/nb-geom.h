/* nb-geom.h: the CrystFEL geometry reader (detector-geom.c), below the
 * dispatcher nb_detector_model_read() (detector-model.c). */
#pragma once

#include "nb-detector.h"

/* nb_detector_model_parse_geom: the CrystFEL geometry of @text (@len bytes,
 * NUL-terminated; modified in place) read from @path (named in messages)
 * into @out (initialised here; on error left empty).  Panels in the order
 * the file first names them; vectors in nanoBragg's lab frame (nb-detector.h),
 * fs and ss normalised, pixel_size 1/res, pix0 the first pixel's corner at
 * (corner_x, corner_y) / res and clen + coffset along the beam; bad regions
 * in the masks.  Errors: NB_ERR_PARSE "PATH:LINE: ..." (a malformed or
 * missing key, a clen read from a header, limits: 4096 panels, 2^26 pixels a
 * panel, 2^28 in all, lines of 4096 bytes), NB_ERR_NOMEM. */
nb_status nb_detector_model_parse_geom (
    const char *path, char *text, size_t len, nb_detector_model *out, nb_error *err);
