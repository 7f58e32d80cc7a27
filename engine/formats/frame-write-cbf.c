/* frame-write-cbf.c: miniCBF frames through CBFlib (see nb-frame-write.h).
 *
 * The header follows the Pilatus detectors' "PILATUS_1.2" convention, the one
 * miniCBF files carry: one "# Key value" line per item, in the units and
 * spellings that fabio's, dxtbx's and XDS's readers look for.  No date line:
 * the same frame gives the same bytes on every run.
 */
#include "nb-fingerprint.h"
#include "nb-frame-write.h"
#include "nb-io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cbflib/cbf.h>

#define RTD (180.0 * M_1_PI)

/* The header line that carries the file's fingerprint: this, then its 64 hex
 * digits (80 characters: a longer line would make CBFlib fold the whole text
 * field, CIF 1.1's ";\" protocol, which Pilatus-header readers do not expect) */
#define FINGERPRINT_MARKER "# Braggscope_fp "

/* The header text, lines of at most 80 characters (CIF would fold longer
 * ones).  Malloc'd, or NULL. */
static char *
pilatus_header (const nb_frame_geometry *g, const char *extra, int fingerprint)
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);

  if (f == NULL)
    return NULL;
  /* the text field starts on the line after its ";", as in Pilatus files */
  fprintf (f, "\n# Detector: Braggscope nanobragg-series simulated pixel-array detector, S/N 0\n");
  fprintf (f, "# Pixel_size %.9ge-6 m x %.9ge-6 m\n", g->pixel_size * 1e6, g->pixel_size * 1e6);
  fprintf (f, "# Silicon sensor, thickness %.9f m\n", g->sensor_thickness);
  fprintf (f, "# Exposure_time %.9g s\n", g->exposure);
  fprintf (f, "# Exposure_period %.9g s\n", g->exposure);
  fprintf (f, "# Tau = 0 s\n");
  fprintf (f, "# Count_cutoff %ld counts\n", g->count_cutoff);
  fprintf (f, "# Wavelength %.9g A\n", g->wavelength * 1e10);
  fprintf (f, "# Detector_distance %.9g m\n", g->distance);
  fprintf (f, "# Beam_xy (%.6f, %.6f) pixels\n", g->close_f, g->close_s);
  fprintf (f, "# Flux %.9g\n", g->flux);
  fprintf (f, "# Start_angle %.9g deg.\n", g->start_angle * RTD);
  fprintf (f, "# Angle_increment %.9g deg.\n", g->angle_increment * RTD);
  fprintf (f, "# Phi %.9g deg.\n", g->start_angle * RTD);
  fprintf (f, "# Oscillation_axis X, CW\n");
  fprintf (f, "# N_oscillations 1\n");
  fprintf (f, "# Polarization %.9g\n", g->polarization);
  if (extra != NULL)
    fputs (extra, f);
  /* zeros until the file's bytes are known (nb_fingerprint_seal) */
  if (fingerprint)
    fprintf (f, "%s%0*d\n", FINGERPRINT_MARKER, NB_FINGERPRINT_DIGITS, 0);
  if (fclose (f) != 0)
    {
      free (text);
      return NULL;
    }
  /* CBFlib ends the text field itself */
  if (size > 0 && text[size - 1] == '\n')
    text[size - 1] = '\0';
  return text;
}

static nb_status
cbf_failed (nb_error *err, const char *path, const char *what, int code)
{
  return nb_error_set (err, NB_ERR_IO, "%s: CBFlib failed to %s (error 0x%x)", path, what, code);
}

nb_status
nb_write_cbf (const char *path,
              const nb_frame_geometry *g,
              const int32_t *pixels,
              const char *extra_header,
              const nb_sha256 *fingerprint,
              nb_error *err)
{
  size_t n = (size_t) g->fpixels * (size_t) g->spixels;
  char *header = pilatus_header (g, extra_header, fingerprint != NULL);
  char *buffer = NULL;
  size_t size = 0;
  FILE *stream = NULL;
  cbf_handle cbf = NULL;
  int code = 0;
  nb_status st;

  if (header == NULL || (stream = open_memstream (&buffer, &size)) == NULL)
    {
      free (header);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for the CBF header", path);
    }
  code |= cbf_make_handle (&cbf);
  if (code == 0)
    {
      /* CBFlib logs its warnings to stderr unless told otherwise; the engine
       * reports through its return values only */
      cbf_set_cbf_logfile (cbf, NULL);
      code |= cbf_new_datablock (cbf, "image_1");
      code |= cbf_new_category (cbf, "array_data");
      code |= cbf_new_column (cbf, "header_convention");
      code |= cbf_set_value (cbf, "PILATUS_1.2");
      code |= cbf_new_column (cbf, "header_contents");
      code |= cbf_set_value (cbf, header);
      code |= cbf_new_column (cbf, "data");
      /* CBFlib's API takes the array as void *; it only reads it */
      code |= cbf_set_integerarray_wdims_fs (cbf, CBF_BYTE_OFFSET, 1, (void *) pixels,
                                             sizeof (int32_t), 1, n, "little_endian",
                                             (size_t) g->fpixels, (size_t) g->spixels, 0, 4095);
      /* not "readable": the stream stays ours to close */
      if (code == 0)
        code |= cbf_write_file (cbf, stream, 0, CBF, MSG_DIGEST | MIME_HEADERS | PAD_4K, ENC_NONE);
      cbf_free_handle (cbf);
    }
  free (header);
  if (fclose (stream) != 0 && code == 0)
    {
      free (buffer);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for the CBF image", path);
    }
  if (code != 0)
    {
      free (buffer);
      return cbf_failed (err, path, "encode the image", code);
    }
  if (fingerprint != NULL && (st = nb_fingerprint_seal (fingerprint, buffer, size,
                                                        FINGERPRINT_MARKER, path, err)) != NB_OK)
    {
      free (buffer);
      return st;
    }
  {
    const void *chunks[1] = { buffer };
    size_t sizes[1] = { size };

    st = nb_write_file_atomic (path, chunks, sizes, 1, err);
  }
  free (buffer);
  return st;
}

/* The fingerprint the file carries: where its digits are, or what is wrong. */
static nb_status
check_fingerprint (
    const nb_sha256 *fingerprint, const char *name, const void *bytes, size_t size, nb_error *err)
{
  size_t mlen = strlen (FINGERPRINT_MARKER);
  long long at = nb_fingerprint_find (bytes, size, FINGERPRINT_MARKER, mlen);

  if (at < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: %s", name,
                         at == -1 ? "no fingerprint" : "more than one fingerprint");
  return nb_fingerprint_check (fingerprint, bytes, size, (size_t) at + mlen, name, err);
}

nb_status
nb_cbf_verify (const char *name,
               const void *bytes,
               size_t size,
               int fpixels,
               int spixels,
               const nb_sha256 *fingerprint,
               nb_error *err)
{
  cbf_handle cbf = NULL;
  FILE *f;
  const char *text = NULL;
  unsigned int compression = 0;
  int id = 0, elsigned = 0, elunsigned = 0, minelem = 0, maxelem = 0, code;
  size_t elsize = 0, nelem = 0, dimf = 0, dimm = 0, dims = 0, padding = 0, read = 0;
  const char *order = NULL;
  int32_t *data = NULL;
  nb_status st = NB_OK;

  /* every byte: CBFlib's MD5 digest covers the binary section only, not the header */
  if (fingerprint != NULL &&
      (st = check_fingerprint (fingerprint, name, bytes, size, err)) != NB_OK)
    return st;
  /* read-only: fmemopen() does not write into a buffer opened "rb" */
  if (size == 0 || (f = fmemopen ((void *) bytes, size, "rb")) == NULL)
    return nb_error_set (err, NB_ERR_PARSE, "%s: empty", name);
  if ((code = cbf_make_handle (&cbf)) != 0)
    {
      fclose (f);
      return cbf_failed (err, name, "start", code);
    }
  cbf_set_cbf_logfile (cbf, NULL);
  /* the handle owns the stream from here; MSG_DIGESTNOW checks Content-MD5 */
  if ((code = cbf_read_file (cbf, f, MSG_DIGESTNOW)) != 0)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: not a complete CBF file (CBFlib error 0x%x)", name,
                       code);
  else if (cbf_find_category (cbf, "array_data") != 0 ||
           cbf_find_column (cbf, "header_contents") != 0 || cbf_get_value (cbf, &text) != 0 ||
           text == NULL)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: no _array_data.header_contents", name);
  else if (cbf_find_column (cbf, "data") != 0 ||
           cbf_get_integerarrayparameters_wdims_fs (cbf, &compression, &id, &elsize, &elsigned,
                                                    &elunsigned, &nelem, &minelem, &maxelem, &order,
                                                    &dimf, &dimm, &dims, &padding) != 0)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: no integer image in _array_data.data", name);
  /* a 2-D image has its slow size in the middle dimension (as written) */
  else if (elsize != sizeof (int32_t) || !elsigned || dimf != (size_t) fpixels ||
           dimm != (size_t) spixels || dims > 1 || nelem != dimf * dimm)
    st =
        nb_error_set (err, NB_ERR_PARSE,
                      "%s: a %zux%zu image of %zu-byte %s integers, expected %dx%d 4-byte signed",
                      name, dimf, dimm, elsize, elsigned ? "signed" : "unsigned", fpixels, spixels);
  else if ((data = malloc (nelem * sizeof *data)) == NULL)
    st = nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", name);
  else if (cbf_get_integerarray (cbf, &id, data, sizeof *data, 1, nelem, &read) != 0 ||
           read != nelem)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: the image data end early (%zu of %zu pixels)", name,
                       read, nelem);
  free (data);
  cbf_free_handle (cbf);
  return st;
}
