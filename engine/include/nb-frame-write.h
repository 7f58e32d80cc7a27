/* nb-frame-write.h: detector frames as data-processing programs read them.
 *
 * - miniCBF through CBFlib (frame-write-cbf.c): one image, byte-offset
 *   compressed signed 32-bit counts with an MD5 digest, and the Pilatus-style
 *   header text (_array_data.header_contents) from which fabio, dxtbx and XDS
 *   take the geometry: pixel size, sensor thickness, exposure, count cutoff,
 *   wavelength, detector distance, beam centre in pixels, start angle and
 *   increment, oscillation axis.
 * - NeXus/HDF5 through libhdf5 (frame-write-nexus.c): NXmx files (the
 *   NeXus application definition for macromolecular crystallography): the
 *   beam, the detector with its module's axes, the goniometer's omega axis,
 *   and the counts in a chunked dataset compressed with deflate (shuffle
 *   first) and checked with Fletcher-32.  A frame file holds one frame and is
 *   complete on its own; a master file holds the geometry of a whole series
 *   and reaches its frame files through external links (data_000001, ...,
 *   as Dectris Eiger files do) and a virtual dataset /entry/data/data of
 *   every frame (HDF5 >= 1.10).
 *
 * Each file is encoded in memory (CBFlib into an open_memstream(), libhdf5
 * through its core driver) and written by nb_write_file_atomic(): under a
 * temporary name, then renamed, inside an nb_output_begin() set when one is
 * open.  A build without CBFlib or libhdf5 returns NB_ERR_UNSUPPORTED from
 * that format's functions.  libhdf5 is not thread-safe in Debian's build: call
 * the NeXus functions from one thread at a time.
 */
#pragma once

#include <stdint.h>

#include "nanobragg.h"
#include "nb-detector.h"
#include "nb-fingerprint.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* The geometry of one frame, in the engine's lab frame (nanoBragg's: the
 * sample at the origin; vectors are unit vectors). */
  typedef struct
  {
    int fpixels, spixels;
    double pixel_size;       /* m */
    double wavelength;       /* m */
    double distance;         /* sample to the detector plane along its normal (m) */
    double beam_f, beam_s;   /* where the direct beam meets the detector, in pixels from the
                              outer corner of the first pixel along fdet and sdet (pixel i
                              spans [i, i + 1)): the Pilatus header's Beam_xy */
    double close_f, close_s; /* the foot of the normal from the sample, same units (XDS's
                              ORGX, ORGY) */
    double start_angle;      /* spindle angle at the start of the exposure (rad) */
    double angle_increment;  /* spindle rotation during the exposure (rad) */
    double exposure;         /* s */
    double flux;             /* photons/s; 0: not given */
    double polarization;     /* nanoBragg's Kahn factor (-polar) */
    long count_cutoff;       /* the largest count that is not an overload */
    double sensor_thickness; /* m */
    double fdet[3], sdet[3], odet[3], beam[3], spindle[3], polar_vector[3];
    double pix0[3]; /* the outer corner of the first pixel (m) */
  } nb_frame_geometry;

  /* nb_frame_geometry_from_plan: the geometry of an image rendered by a plan
 * with derived values @info and parameters @p (exposure, flux, polarization,
 * sensor thickness), with @count_cutoff as the overload limit. */
  NB_API void nb_frame_geometry_from_plan (const nb_plan_info *info,
                                           const nb_params *p,
                                           long count_cutoff,
                                           nb_frame_geometry *g);

  /* nb_cbf_available, nb_nexus_available: 1 when this build has CBFlib,
 * libhdf5. */
  NB_API int nb_cbf_available (void);
  NB_API int nb_nexus_available (void);

  /* nb_write_cbf: a CBF file of @pixels (@g->fpixels x @g->spixels signed
 * 32-bit counts, fast index first).  For a real Pilatus (0.172 mm pixels,
 * 487 x 195-pixel modules with 7- and 17-pixel gaps) square to the beam with
 * the spindle along fast, a miniCBF with the Pilatus header of @g and the
 * module gaps counting -1; otherwise a full imgCIF file with the detector's
 * and the goniometer's axes.  The header text ends with @extra_header (lines
 * "# Key value", each ending in '\n'; NULL for none).
 * With @fingerprint (a computation nb_fingerprint_begin() began for the
 * frame; NULL: none) the header's last line is "# Braggscope_fp" and the 64
 * hex digits of the file's fingerprint (nb-fingerprint.h).
 * Errors: NB_ERR_IO naming @path, NB_ERR_NOMEM, NB_ERR_UNSUPPORTED. */
  NB_API nb_status nb_write_cbf (const char *path,
                                 const nb_frame_geometry *g,
                                 const int32_t *pixels,
                                 const char *extra_header,
                                 const nb_sha256 *fingerprint,
                                 nb_error *err);

  /* nb_cbf_verify: checks that the @size bytes @bytes (a file read by the
 * caller, named @name in messages) are a complete frame of this kind: with
 * @fingerprint, the one fingerprint line of the header is the fingerprint of
 * every byte for that frame; CBFlib reads it with its MD5 digest checked; the
 * image is @fpixels x @spixels signed 32-bit.  NB_OK, or NB_ERR_PARSE naming
 * @name and what is wrong ("fingerprint differs"...). */
  NB_API nb_status nb_cbf_verify (const char *name,
                                  const void *bytes,
                                  size_t size,
                                  int fpixels,
                                  int spixels,
                                  const nb_sha256 *fingerprint,
                                  nb_error *err);

  /* nb_write_nexus_frame: an NXmx file of one frame: the geometry of @g
 * (omega from @g->start_angle) and /entry/data/data, 1 x @g->spixels x
 * @g->fpixels int32 counts in one chunk (shuffle, deflate level 1,
 * Fletcher-32).  @n_attrs string attributes @keys[i] = @values[i] are set on
 * /entry (the frame's command line...); with @fingerprint also
 * /entry@braggscope_fingerprint, the 64 hex digits of the file's fingerprint
 * (nb-fingerprint.h: they stand in the file's bytes once, in the attribute's
 * value).  Errors as nb_write_cbf(). */
  NB_API nb_status nb_write_nexus_frame (const char *path,
                                         const nb_frame_geometry *g,
                                         const int32_t *pixels,
                                         const char *const *keys,
                                         const char *const *values,
                                         int n_attrs,
                                         const nb_sha256 *fingerprint,
                                         nb_error *err);

  /* nb_nexus_verify_frame: checks that the @size bytes @bytes (named @name in
 * messages) are a complete frame file of nb_write_nexus_frame(): with
 * @fingerprint, /entry@braggscope_fingerprint is the fingerprint of every byte
 * for that frame; libhdf5 opens it, /entry/data/data is 1 x @spixels x
 * @fpixels and reads whole (every chunk's Fletcher-32 checksum verified).
 * Errors as nb_cbf_verify(). */
  NB_API nb_status nb_nexus_verify_frame (const char *name,
                                          const void *bytes,
                                          size_t size,
                                          int fpixels,
                                          int spixels,
                                          const nb_sha256 *fingerprint,
                                          nb_error *err);

  /* nb_write_nexus_master: the NXmx master file of a series of @n_frames
 * frames of geometry @g whose spindle angles at the start of each frame are
 * @omega[i] (rad; each frame turns by @g->angle_increment): the geometry,
 * /entry/sample/transformations/omega (@n_frames values), external links
 * /entry/data/data_%06d (i + 1) to "/entry/data/data" in @frame_files[i] (names
 * relative to the master's folder), and the virtual dataset /entry/data/data
 * (@n_frames x spixels x fpixels int32) over them.  The frame files need not
 * exist yet.  Errors as nb_write_cbf(). */
  NB_API nb_status nb_write_nexus_master (const char *path,
                                          const nb_frame_geometry *g,
                                          int n_frames,
                                          const double *omega,
                                          const char *const *frame_files,
                                          nb_error *err);

  /* nb_write_nexus_detector: a still of the multi-panel detector @model as
 * NXmx, one NXdetector_module per panel, as dxtbx's FormatNXmx reads it:
 * @pixels are nb_detector_model_pixels() int32 counts, panel after panel, each
 * slow-major (nb-detector.h); they are laid out in one 1 x H x W array
 * /entry/data/data at the panels' data_origin_f/s when every panel has one and
 * they fit the model's data_fpixels x data_spixels without overlapping, else
 * stacked along the slow direction (H the sum of the panels' spixels, W the
 * widest); /entry/instrument/detector/pixel_mask marks the array's pixels that
 * belong to no panel and the panels' masked pixels (1, "gap").  Module p
 * (named by the panel when its name is a plain HDF5 name, else
 * "module_%04d") has data_origin, data_size, module_offset (a translation to
 * the panel's pix0) after /entry/instrument/detector/transformations/origin
 * (zero), and fast/slow_pixel_direction one pixel along fdet and sdet.  The
 * vectors are @model's turned so that its beam is the McStas +z (y stays the
 * lab's y where the beam is along +x).  The wavelength is
 * @model->wavelength (m).
 *
 * Refused (NB_ERR_INVALID, naming @path): no panels, no wavelength, panels of
 * different sensors (NXmx has one sensor_material and sensor_thickness), a
 * layout over 2^28 pixels.  Other errors as nb_write_cbf(). */
  NB_API nb_status nb_write_nexus_detector (const char *path,
                                            const nb_detector_model *model,
                                            const int32_t *pixels,
                                            nb_error *err);

#ifdef __cplusplus
}
#endif
