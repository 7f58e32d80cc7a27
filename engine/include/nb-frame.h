/* nb-frame.h: measured detector frames (SMV, CBF, NeXus/HDF5) and the
 * geometry their headers carry.
 *
 * A frame is read whole into an nb_frame: its counts as int32 (whatever the
 * file's integer type), a mask of the same shape saying which pixels are
 * measurements, and the geometry items its header gave (wavelength, distance,
 * beam centre...), each with the header text it came from.
 * nb_frame_apply_geometry() turns those items into nb_params fields, so a plan
 * simulates what the detector saw; items the header lacks keep their values.
 *
 * Readers, by the file's first bytes (not its name):
 *   SMV      "{\nHEADER_BYTES=": ADSC, Rayonix, Timepix and nanoBragg headers,
 *            unsigned 16- and 32-bit pixels (own code, like nanoBragg's -img)
 *   CBF      "###CBF" or "data_": miniCBF (Pilatus/Eiger header in
 *            _array_data.header_contents) and full imgCIF with its axis
 *            categories, through CBFlib (libcbf); any compression CBFlib decodes
 *   NeXus    the HDF5 signature: an NXmx master file with its data in the file
 *            or behind external links (Eiger: data_000001...), one frame by
 *            index, through libhdf5
 * A build without CBFlib or libhdf5 refuses those files with NB_ERR_UNSUPPORTED.
 * Threads: reading is reentrant as far as the libraries are: CBFlib handles are
 * per call, and libhdf5 must be a thread-safe build (Debian's is) to read from
 * two threads at once; its error printing is switched off per call and thread.
 *
 * Conventions: pixel (f, s) is counts[s * fpixels + f], fast index first, as
 * the file stores it and as nb_plan_execute() renders.  Lengths and angles of
 * the items are SI (m, rad, s), as nb_params holds them.  The beam centre is
 * given along the detector's fast and slow axes from the outer corner of pixel
 * (0, 0), the frame nanoBragg's Fbeam/Sbeam and DIALS use; each header's own
 * convention is converted on reading (see the readers' notes below).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nanobragg.h"
#include "nb-detector.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* What a pixel of nb_frame.mask says about nb_frame.counts. */
  enum
  {
    NB_PIXEL_VALID = 0,    /* a measurement */
    NB_PIXEL_MASKED = 1,   /* not a measurement: a negative count (Pilatus and Eiger mark module
                              gaps -1 and bad pixels -2), a value above INT32_MAX in an unsigned
                              32-bit file (Eiger's 2^32 - 1 for gaps), or a pixel of an NXmx
                              pixel_mask; counts keeps the value as read (clamped to INT32_MAX) */
    NB_PIXEL_OVERLOAD = 2, /* at or above the count cutoff: saturated, the true count is larger */
  };

  typedef enum
  {
    NB_FRAME_SMV = 0,
    NB_FRAME_MINICBF, /* CBF whose geometry is the Pilatus header text */
    NB_FRAME_CBF,     /* full imgCIF: geometry from the axis categories */
    NB_FRAME_NEXUS,
  } nb_frame_format;

  /* The geometry items a header can give. */
  typedef enum
  {
    NB_FRAME_WAVELENGTH = 0, /* m */
    NB_FRAME_DISTANCE,       /* sample to detector (m) */
    NB_FRAME_BEAM_F,         /* beam centre along the fast axis from pixel (0, 0)'s corner (m) */
    NB_FRAME_BEAM_S,         /* the same along the slow axis (m) */
    NB_FRAME_PIXEL_SIZE,     /* m (square pixels; a rectangular one is refused) */
    NB_FRAME_PHI_START,      /* spindle angle at the start of the exposure (rad) */
    NB_FRAME_OSCILLATION,    /* spindle rotation during the exposure (rad) */
    NB_FRAME_EXPOSURE,       /* s */
    NB_FRAME_TWOTHETA,       /* detector two-theta (rad): read, never applied (see below) */
    NB_FRAME_THICKNESS,      /* sensor thickness (m): read, never applied */
    NB_FRAME_N_ITEMS
  } nb_frame_item;

#define NB_FRAME_SOURCE_MAX 200

  typedef struct
  {
    int have;                         /* 1 when the header gave the item */
    double value;                     /* SI units, see nb_frame_item */
    char source[NB_FRAME_SOURCE_MAX]; /* where it came from, e.g. "the miniCBF header '#
                                         Detector_distance 0.21396 m'" (printable ASCII) */
  } nb_frame_value;

  typedef struct
  {
    char *path; /* as given (owned) */
    nb_frame_format format;
    int fpixels, spixels;
    int32_t *counts; /* fpixels * spixels (owned, nb_alloc_large); NULL after a header-only read */
    uint8_t *mask;   /* fpixels * spixels NB_PIXEL_* (owned, nb_alloc_large); NULL likewise */
    long n_masked, n_overload; /* pixels of each state */
    int64_t count_cutoff;      /* counts >= this are overloads; 0 when the file gives none */
    char element_type[32];     /* the file's pixel type: "unsigned 16-bit", "signed 32-bit"... */
    int frame_index;           /* the frame read (NeXus: 0-based index into the series), else 0 */
    int n_frames;              /* frames in the file (1 for SMV and CBF) */
    char *header;              /* the header text as read (SMV header, miniCBF header_contents),
                                  or NULL (NeXus, full CBF); owned */
    nb_frame_value item[NB_FRAME_N_ITEMS];
    int n_modules; /* panels the header's geometry describes: rows of a full CBF's
                      diffrn_detector_element, NXdetector_module groups of an NXmx detector;
                      0 when it says nothing (SMV, miniCBF) */
    char detector[NB_FRAME_SOURCE_MAX]; /* the detector's model as a full CBF
                                           (diffrn_detector.type) or NXmx (description) names
                                           it, "" otherwise; a miniCBF's is in header */
    nb_detector_model *modules;         /* an NXmx file's panels when it has more than one
                                   NXdetector_module and their geometry could be read
                                   (nb-detector.h: placed through their depends_on
                                   chains, data_origin in the frame's pixels), else NULL;
                                   owned */
  } nb_frame;

  /* Flags of nb_frame_read(). */
  enum
  {
    NB_FRAME_HEADER_ONLY = 1 << 0, /* read the header and the dimensions, not the pixels
                                      (counts and mask stay NULL) */
  };

  /* nb_frame_read: reads frame @index (0-based; only NeXus files hold more
   * than one) of @path into @frame (uninitialised; cleared on failure).  The
   * whole file is checked: an SMV file must be exactly its header and
   * SIZE1 x SIZE2 pixels of its TYPE; CBF binary sections must decode to the
   * element count and dimensions they declare; a NeXus dataset must use
   * filters this libhdf5 has.  Errors (one line naming @path and the reason):
   * NB_ERR_IO (cannot open/read, not a regular file: a named pipe, a
   * terminal, a folder, or a NeXus link to one), NB_ERR_PARSE (not a frame
   * format, a malformed or inconsistent header, truncated or surplus pixel
   * data, an unknown pixel type or compression, index out of range),
   * NB_ERR_NOMEM (a frame of more than NB_FRAME_MAX_PIXELS, or beyond the
   * default memory budget: see nb_frame_read_budget()), NB_ERR_UNSUPPORTED
   * (CBF or NeXus in a build without CBFlib or libhdf5).
   * Free with nb_frame_clear(). */
  NB_API nb_status
  nb_frame_read (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err);

  /* The most pixels nb_frame_read() holds: 2^28, 1.3 GB of counts and mask
   * (today's largest detectors have 18 to 32 million). */
#define NB_FRAME_MAX_PIXELS ((size_t) 1 << 28)

  /* nb_frame_read_budget: nb_frame_read() within a memory budget of @budget
   * bytes (0: the default, nb_memory_budget (0): half of what the process may
   * use), the one budget of the CLI, the library and the viewer.  Counted
   * against it before anything is allocated: the frame's counts and mask (5
   * bytes a pixel), @caller_bytes a pixel that the caller adds once the frame
   * is read (libbraggscope's float copy: 4), and the reader's own buffers (a
   * CBF file's text, a decoded NeXus chunk, an NXmx pixel mask to convert).
   * NB_ERR_NOMEM naming @path, the need and the budget.  A NeXus dataset
   * whose chunks are much larger than what is read of them (more than 64 MB
   * and 16 times the frame: a 64 x 64 frame in one 16384 x 16384 chunk costs
   * 1 GB to decode) is refused with NB_ERR_PARSE; the chunks read are cached
   * once, so a row-by-row read decodes each chunk once. */
  NB_API nb_status nb_frame_read_budget (const char *path,
                                         int index,
                                         unsigned flags,
                                         double budget,
                                         size_t caller_bytes,
                                         nb_frame *frame,
                                         nb_error *err);

  /* nb_frame_read_limited: nb_frame_read() refusing frames of more than
   * @max_pixels pixels (0: no limit but the 65536 per axis and the default
   * memory budget) with NB_ERR_NOMEM before anything is allocated: a header
   * may claim any size, and a compressed file can be tiny. */
  NB_API nb_status nb_frame_read_limited (const char *path,
                                          int index,
                                          unsigned flags,
                                          size_t max_pixels,
                                          nb_frame *frame,
                                          nb_error *err);

  /* nb_frame_alloc: an empty frame of @fpixels x @spixels (counts 0, every
   * pixel valid, no geometry), for callers that fill one themselves (a
   * simulated image with noise standing in for a measurement).  @path may be
   * NULL.  NB_ERR_INVALID for a size outside 1..65536, NB_ERR_NOMEM. */
  NB_API nb_status
  nb_frame_alloc (nb_frame *frame, int fpixels, int spixels, const char *path, nb_error *err);

  /* nb_frame_clear: frees what @frame owns and zeroes it (NULL allowed). */
  NB_API void nb_frame_clear (nb_frame *frame);

  /* nb_frame_format_name: "SMV", "miniCBF", "CBF", "NeXus". */
  NB_API const char *nb_frame_format_name (nb_frame_format format);

  /* nb_frame_item_name: "wavelength", "distance", "beam centre (fast)"... */
  NB_API const char *nb_frame_item_name (nb_frame_item item);

  /* nb_params_set_beam_centre: sets the fields of @p that put the direct beam
   * at @fbeam, @sbeam (m along fast and slow from pixel (0, 0)'s corner, as
   * nb_plan_info's Fbeam/Sbeam) in @p's convention: ADXV Xbeam = F, Ybeam =
   * detsize_s - S; MOSFLM Xbeam = S - pixel/2, Ybeam = F - pixel/2; DENZO
   * Xbeam = S, Ybeam = F; XDS and DIALS (which pivot about the sample) the
   * origin ORGX = F / pixel + 1/2, ORGY = S / pixel + 1/2; CUSTOM Xbeam = F,
   * Ybeam = S.  Exact for a detector normal to the beam (no rotations or
   * two-theta); otherwise the point these fields name, as nanoBragg reads
   * them.  Uses @p->pixel_size and the detector size (@p->spixels or
   * detsize_s), so set those first. */
  NB_API void nb_params_set_beam_centre (nb_params *p, double fbeam, double sbeam);

  /* nb_frame_detector_problem: whether the header of @frame describes a
   * detector that the single flat panel of nb_params cannot represent, so
   * that its geometry would be wrong if adopted: a model known to be curved
   * or made of separate panels (a miniCBF's '# Detector: PILATUS 12M' line, a
   * full CBF's diffrn_detector.type, an NXmx description), several detector
   * elements or modules (n_modules > 1), or a distance at which a flat array
   * of the frame's size would reach beyond 80 deg two-theta (a curved
   * detector's header gives its radius, or nothing usable).  Returns 1 with
   * one line in @why (@size bytes; NULL allowed) naming the header line and
   * the reason, 0 when nothing in the header says so. */
  NB_API int nb_frame_detector_problem (const nb_frame *frame, char *why, size_t size);

  /* Flags of nb_frame_apply_geometry_flags(). */
  enum
  {
    NB_FRAME_APPLY_AS_FLAT = 1 << 0, /* apply a header nb_frame_detector_problem() refuses (the
                                        caller gives the geometry it got wrong), and say so in
                                        the report */
    NB_FRAME_APPLY_PANELS = 1 << 1,  /* the detector is a -detector model (the frame's own
                                        modules, or a geometry file whose panels cut the
                                        frame's array): apply the beam's items (wavelength,
                                        phi, oscillation, exposure) and no one-panel geometry
                                        (pixel size and count, distance, beam centre), and
                                        refuse nothing nb_frame_detector_problem() says */
  };

  /* nb_frame_apply_geometry: sets the fields of @p the frame's header gave:
   * the pixel counts (always: the frame's dimensions, detsize_f/_s from them),
   * pixel_size, lambda0, distance (and close_distance when @p had one: it is
   * dropped, the header names the beam distance), the beam centre through
   * nb_params_set_beam_centre() in @p's convention, phi0, osc, exposure.
   * Items the header lacks keep @p's values.  Two-theta and sensor thickness
   * are never applied: a nonzero two-theta is reported as such (its axis and
   * sign differ between headers), and a thickness alone would change
   * nothing without the sensor's attenuation.
   *
   * @report, when non-NULL, receives a malloc'ed text, one line per item
   * ("distance 213.96 mm from the miniCBF header '# Detector_distance
   * 0.21396 m'", "oscillation: not in the header, keeps 0 deg"), in the
   * units of nanoBragg's flags; free() it.  Errors: NB_ERR_UNSUPPORTED (a
   * detector nb_frame_detector_problem() says one flat panel cannot
   * represent: the message is its reason), NB_ERR_NOMEM; @p is unchanged
   * then. */
  NB_API nb_status nb_frame_apply_geometry (const nb_frame *frame,
                                            nb_params *p,
                                            char **report,
                                            nb_error *err);

  /* nb_frame_apply_geometry_flags: the same with NB_FRAME_APPLY_* @flags. */
  NB_API nb_status nb_frame_apply_geometry_flags (
      const nb_frame *frame, nb_params *p, unsigned flags, char **report, nb_error *err);

#ifdef __cplusplus
}
#endif
