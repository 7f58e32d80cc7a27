/* nb-io.h: the field's image files (raw float, SMV, PGM, PNG) and atomic output.
 *
 * Every writer goes through nb_write_file_atomic(), which treats a name by
 * what it is when the write starts:
 *   - missing, or a regular file: "<dir>/.<name>.XXXXXX" is created next to
 *     it, written, flushed and checked for errors (a full disk is an error),
 *     then rename()d over it.  When the target exists and is not empty, the
 *     data are fsynced before the rename and the folder after it, so that a
 *     crash leaves the old file or the new one, never an empty one (the policy
 *     of GLib's g_file_set_contents()).  On any failure the temporary file is
 *     removed and an existing file of the target name is left untouched.
 *     An existing file is replaced only when the user could write it (as a
 *     shell's `>` could), and the new one keeps its permission bits (less
 *     set-user-ID and set-group-ID) and group, and as root its owner.
 *   - a symbolic link: followed only when the caller gave the name (not
 *     after nb_output_set_derived()), the link belongs to the user or to root
 *     and, in a sticky world-writable folder (/tmp), to the user or the
 *     folder's owner; each link of a chain likewise.  The link stays; the name
 *     at the end of its chain is replaced as above, the temporary file in that
 *     name's folder.  A dangling link's target is created.  A link the rules
 *     refuse is an NB_ERR_IO error naming it and why; nothing is written.
 *   - a character device, named pipe or socket (also behind a link, as
 *     /dev/stdout is): opened (a socket connected to) and written through, no
 *     temporary file; its write errors are the call's (ENOSPC from /dev/full,
 *     EPIPE when a pipe's reader has gone: SIGPIPE is held on the writing
 *     thread and does not end the process).  A pipe with no reader blocks
 *     until one opens it, as `cat > fifo` does; one that another user left in
 *     a sticky world-writable folder is refused.
 *   - a folder or anything else (a block device): refused, nothing written.
 * The policy and its reasons: engine/base/io-write.c, docs/security.md.
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

  /* nb_write_file_atomic: writes @n_chunks buffers (@chunks[i], @sizes[i] bytes)
 * back to back into @path, atomically where @path is a file, as described
 * above.  Errors: NB_ERR_IO naming @path (and a link's target) with the
 * strerror text; NB_ERR_INVALID for a bad chunk list; NB_ERR_NOMEM. */
  nb_status nb_write_file_atomic (const char *path,
                                  const void *const *chunks,
                                  const size_t *sizes,
                                  int n_chunks,
                                  nb_error *err);

  /* nb_output_set_derived: whether the names the calling thread writes from
 * now on were made up by the program (nanobragg-series' frames and series
 * files, derived from --out) rather than given by the user: a symbolic link
 * at such a name is never followed (an NB_ERR_IO error, nothing written), and
 * a stream there is opened O_NOFOLLOW.  Per thread, off on a new thread.
 * Returns the previous setting. */
  int nb_output_set_derived (int derived);

  /* A set of outputs that appear together or not at all (the CLI's float, SMV,
 * PGM and PNG files of one run).  After nb_output_begin(), every
 * nb_write_file_atomic() on the calling thread (so every writer below) leaves
 * its file complete, flushed and checked under its temporary name, and keeps
 * a copy of the bytes for a stream (device, pipe, socket), which could not be
 * taken back.  nb_output_commit() then writes the streams, then renames the
 * files, each in order (NB_ERR_IO naming the first that fails: a failed
 * stream leaves every file untouched; a failed rename leaves the files before
 * it replaced and removes the rest); nb_output_abort() removes the temporary
 * files and drops the copies, leaving every existing file and stream
 * untouched.  Both end the set.  Not nested: nb_output_begin() aborts an open
 * set. */
  void nb_output_begin (void);
  nb_status nb_output_commit (nb_error *err);
  void nb_output_abort (void);

  /* nb_write_float_image: @image holds @fpixels x @spixels native floats, fast
 * index first (index = s * fpixels + f).  Written raw, no header: nanoBragg's
 * -floatfile format. */
  nb_status nb_write_float_image (
      const char *path, const float *image, int fpixels, int spixels, nb_error *err);

  /* Values of an SMV (ADSC) header as nanoBragg writes it (physics.md §19.6).
 * Units are those of the header text: mm, Angstrom, degrees, pixels. */
  typedef struct
  {
    int size1; /* fast pixels */
    int size2; /* slow pixels */
    double pixel_size_mm;
    double distance_mm;
    double wavelength_A;
    double beam_center_x_mm;
    double beam_center_y_mm;
    double adxv_center_x_mm;
    double adxv_center_y_mm;
    double mosflm_center_x_mm;
    double mosflm_center_y_mm;
    double denzo_x_beam_mm;
    double denzo_y_beam_mm;
    double dials_origin_mm[3];
    double xds_orgx_px;
    double xds_orgy_px;
    double close_distance_mm;
    double phi_deg;
    double osc_start_deg;
    double osc_range_deg;
    double twotheta_deg;
    /* 0: nanoBragg's header, byte for byte.  1: the header DIALS reads right
     * (nb_smv_header_for_dials()): BEAM_CENTER_X/Y as dxtbx's FormatSMVJHSim
     * reads them, DIALS_ORIGIN with its ';', and ADC_OFFSET */
    int dials;
    double adc_offset; /* counts added to every pixel (-adc); written when @dials */
  } nb_smv_header;

  /* nb_smv_header_from_info: the header nanoBragg writes for an image of a plan
 * whose derived values are @info (nb_plan_get_info(), or a copy of it kept
 * with the image): detector size, pixel size, distance, wavelength, the beam
 * centre in the convention's, ADXV's, MOSFLM's and DENZO's frames, the DIALS
 * and XDS origins, close distance, phi, oscillation and two-theta.  The one
 * place this header is made (the CLI's -intfile/-noisefile, the plugin's SMV
 * export). */
  void nb_smv_header_from_info (const nb_plan_info *info, nb_smv_header *h);

  /* nb_smv_header_for_dials: turns @h, made by nb_smv_header_from_info() from
 * @info, into the header DIALS reads with the simulated geometry (what
 * nanobragg-series and nanobragg -physical write): nanoBragg's images carry
 * BEAMLINE=fake, which dxtbx reads with FormatSMVJHSim: fast +x, slow -y,
 * beam along -z, spindle +x, and the beam at (BEAM_CENTER_X + pixel,
 * SIZE2 * pixel - BEAM_CENTER_Y + pixel) mm from the first pixel's outer
 * corner, whatever the convention; a pedestal of ADC_OFFSET, 1 when absent.
 * So BEAM_CENTER_X = Fbeam - pixel and BEAM_CENTER_Y = SIZE2 * pixel + pixel
 * - Sbeam (mm), ADC_OFFSET = @adc.  The other keys keep nanoBragg's values.
 * A geometry that header cannot describe (a detector not square to the beam,
 * a spindle not along fast, nanoBragg's mirrored ADXV frame) stays one dxtbx
 * misreads: docs/series.md gives the mapping. */
  void nb_smv_header_for_dials (const nb_plan_info *info, double adc, nb_smv_header *h);

  /* nb_write_smv_image: what `nanobragg -intfile @path` writes for @image
 * (info->fpixels x info->spixels floats, fast index first, rendered by a plan
 * with derived values @info and -mask pixels @mask, NULL for none): the
 * statistics of nb_image_statistics(), pixels as nb_image_to_smv() makes them
 * with @scale (<= 0: auto) and @adc, the header of nb_smv_header_from_info(),
 * written by nb_write_smv().  Needs no plan, so a copy of @info taken when the
 * image was rendered will do.  Errors: those of nb_write_smv(), NB_ERR_NOMEM. */
  nb_status nb_write_smv_image (const char *path,
                                const nb_plan_info *info,
                                const uint16_t *mask,
                                const float *image,
                                double scale,
                                double adc,
                                nb_error *err);

  /* nb_smv_format_header: writes the exact 512-byte header nanoBragg writes
 * (keys in its order, "%g" numbers, "}\f", space padding) into @out.
 * Returns the number of meaningful bytes before padding; more than 512 when
 * the text does not fit (then @out holds its first 512 bytes). */
  size_t nb_smv_format_header (const nb_smv_header *h, char out[512]);

  /* nb_write_smv: header of @h then @h->size1 * @h->size2 little-endian uint16.
 * A header text longer than 512 bytes is written as a 1024-byte header with
 * HEADER_BYTES=1024 (nanoBragg would misplace the pixels). */
  nb_status
  nb_write_smv (const char *path, const nb_smv_header *h, const uint16_t *pixels, nb_error *err);

  /* nb_smv_encode: the bytes nb_write_smv() writes for @h and @pixels, in one
 * malloc'd buffer (*@bytes, *@size; free with free()), for a caller that
 * needs them before they are written (nanobragg-series fingerprints them).
 * Errors: NB_ERR_INVALID (bad size, header too long), NB_ERR_NOMEM. */
  nb_status nb_smv_encode (
      const nb_smv_header *h, const uint16_t *pixels, void **bytes, size_t *size, nb_error *err);

  /* An SMV file read back.  @text is the NUL-terminated header text (owned),
 * @pixels the data (owned, size1*size2, host order). */
  typedef struct
  {
    char *text;
    size_t header_bytes;
    int size1;
    int size2;
    uint16_t *pixels;
  } nb_smv_file;

  /* nb_read_smv: reads an SMV file.  The file must start with "{\nHEADER_BYTES=";
 * the header size comes from HEADER_BYTES, dimensions from SIZE1/SIZE2, the
 * byte order from BYTE_ORDER (swapped when it differs from the host's).
 * Errors: NB_ERR_IO (cannot read), NB_ERR_PARSE (names the file and the key).
 * Free with nb_smv_file_clear(). */
  nb_status nb_read_smv (const char *path, nb_smv_file *out, nb_error *err);
  void nb_smv_file_clear (nb_smv_file *f);

  /* nb_smv_value: nanoBragg's ValueOf(): the number after the first '=' that
 * follows the LAST occurrence of @key as a substring of the header (so
 * "DISTANCE" finds CLOSE_DISTANCE's value in nanoBragg headers, quirk Q-27).
 * Returns NAN when absent. */
  double nb_smv_value (const nb_smv_file *f, const char *key);

  /* nb_smv_lookup: nb_smv_value()'s search, strict, for callers that reject a
 * malformed header.  Returns 0 when @key is absent; 1 when the text after the
 * '=' is one finite number ending at ';' or the end of the line (*@value);
 * -1 when it is not (no '=', no number, trailing text, nan or inf; *@value is
 * NAN).  When found, *@line is the 1-based header line of the key and @raw
 * (@raw_size bytes, may be 0) receives the value's text up to ';' or the line's
 * end, truncated, non-printable bytes as '?'. */
  int nb_smv_lookup (
      const nb_smv_file *f, const char *key, double *value, long *line, char *raw, size_t raw_size);

  /* nb_write_pgm: 8-bit P5 file with the comment "# pixels scaled by <scale %g>". */
  nb_status nb_write_pgm (
      const char *path, const uint8_t *bytes, int width, int height, double scale, nb_error *err);

  /* nb_png_available: 1 when this build has libpng (nb_write_png works). */
  int nb_png_available (void);

  /* nb_write_png_gray8: 8-bit greyscale PNG through libpng, with @n_text tEXt
 * (or iTXt when not Latin-1) chunks of @keys[i] = @values[i].
 * Errors: NB_ERR_IO, NB_ERR_UNSUPPORTED without libpng. */
  nb_status nb_write_png_gray8 (const char *path,
                                const uint8_t *bytes,
                                int width,
                                int height,
                                const char *const *keys,
                                const char *const *values,
                                int n_text,
                                nb_error *err);

  /* nb_write_png_rgb8: as nb_write_png_gray8, for 8-bit RGB pixels (@rgb:
 * 3 bytes per pixel, rows of @width pixels). */
  nb_status nb_write_png_rgb8 (const char *path,
                               const uint8_t *rgb,
                               int width,
                               int height,
                               const char *const *keys,
                               const char *const *values,
                               int n_text,
                               nb_error *err);

#ifdef __cplusplus
}
#endif
