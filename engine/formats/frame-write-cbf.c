/* frame-write-cbf.c: CBF frames through CBFlib (see nb-frame-write.h).
 *
 * Two kinds, chosen by the geometry:
 *
 * - a Pilatus miniCBF when the detector is a real Pilatus's (0.172 mm pixels,
 *   modules of 487 x 195 with gaps of 7 and 17 pixels, as dxtbx's
 *   determine_pilatus_mask() expects) and the geometry is the one such a
 *   header can describe (nb_axes_square_to_beam()).  The header follows the
 *   "PILATUS_1.2" convention: one "# Key value" line per item, in the units and
 *   spellings fabio's, dxtbx's (FormatCBFMiniPilatus) and XDS's readers look
 *   for, the date line included (dxtbx needs one; a fixed date, so the same
 *   frame gives the same bytes on every run); the module gaps count -1, as the
 *   detector writes them.
 * - otherwise a full imgCIF file (dxtbx's FormatCBFFull): the wavelength, the
 *   polarization, the goniometer's axis and the detector's axes in imgCIF's
 *   laboratory frame (nb-frame-axes.h), its pixel sizes, the scan and the
 *   exposure, with the same "# Key value" lines as its header text.
 */
#include "nb-fingerprint.h"
#include "formats/nb-frame-axes.h"
#include "nb-frame-write.h"
#include "nb-io.h"

#include <errno.h>
#include <locale.h>
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

/* A Pilatus module and the gaps between modules, in pixels (dxtbx's
 * _DetectorDatabase["Pilatus"]), and its pixel size (m). */
#define PILATUS_MODULE_F 487
#define PILATUS_MODULE_S 195
#define PILATUS_GAP_F    7
#define PILATUS_GAP_S    17
#define PILATUS_PIXEL    172e-6

/* The number of modules of @n pixels along one axis of a Pilatus, or 0. */
static int
pilatus_modules (int n, int module, int gap)
{
  int m = (n + gap) / (module + gap);

  return m >= 1 && m * module + (m - 1) * gap == n ? m : 0;
}

/* 1 when @g is a real Pilatus a miniCBF header describes. */
static int
is_pilatus (const nb_frame_geometry *g)
{
  return fabs (g->pixel_size - PILATUS_PIXEL) < 1e-12 &&
         pilatus_modules (g->fpixels, PILATUS_MODULE_F, PILATUS_GAP_F) > 0 &&
         pilatus_modules (g->spixels, PILATUS_MODULE_S, PILATUS_GAP_S) > 0 &&
         nb_axes_square_to_beam (g);
}

/* 1 when pixel (@f, @s) of a Pilatus lies in a gap between modules. */
static int
pilatus_gap (int f, int s)
{
  return f % (PILATUS_MODULE_F + PILATUS_GAP_F) >= PILATUS_MODULE_F ||
         s % (PILATUS_MODULE_S + PILATUS_GAP_S) >= PILATUS_MODULE_S;
}

/* Headers say "0.1", not "0,1", whatever locale the application chose;
 * uselocale() changes only this thread. */
typedef struct
{
  locale_t c;
  locale_t old;
} c_numeric;

static void
c_numeric_push (c_numeric *l)
{
  l->c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  l->old = l->c != (locale_t) 0 ? uselocale (l->c) : (locale_t) 0;
}

static void
c_numeric_pop (c_numeric *l)
{
  if (l->c != (locale_t) 0)
    {
      uselocale (l->old);
      freelocale (l->c);
    }
}

/* The header text, lines of at most 80 characters (CIF would fold longer
 * ones).  The Pilatus items with @pilatus, the rest of the header otherwise.
 * Malloc'd, or NULL. */
static char *
pilatus_header (const nb_frame_geometry *g, int pilatus, const char *extra, int fingerprint)
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);

  if (f == NULL)
    return NULL;
  /* the text field starts on the line after its ";", as in Pilatus files */
  fprintf (f, "\n# Detector: Braggscope nanobragg-series simulated pixel-array detector, S/N 0\n");
  if (pilatus)
    fprintf (f, "# 1970-01-01T00:00:00.000\n");
  fprintf (f, "# Pixel_size %.9ge-6 m x %.9ge-6 m\n", g->pixel_size * 1e6, g->pixel_size * 1e6);
  /* no line at all without a sensor: a thickness of 0 stops dxtbx */
  if (g->sensor_thickness > 0)
    fprintf (f, "# Silicon sensor, thickness %.9f m\n", g->sensor_thickness);
  fprintf (f, "# Exposure_time %.9g s\n", g->exposure);
  fprintf (f, "# Exposure_period %.9g s\n", g->exposure);
  fprintf (f, "# Tau = 0 s\n");
  fprintf (f, "# Count_cutoff %ld counts\n", g->count_cutoff);
  fprintf (f, "# Wavelength %.9g A\n", g->wavelength * 1e10);
  fprintf (f, "# Detector_distance %.9g m\n", g->distance);
  if (pilatus)
    fprintf (f, "# Beam_xy (%.6f, %.6f) pixels\n", g->close_f, g->close_s);
  fprintf (f, "# Flux %.9g\n", g->flux);
  fprintf (f, "# Start_angle %.9g deg.\n", g->start_angle * RTD);
  fprintf (f, "# Angle_increment %.9g deg.\n", g->angle_increment * RTD);
  fprintf (f, "# Phi %.9g deg.\n", g->start_angle * RTD);
  if (pilatus)
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

/* A loop of @n_rows rows of @n_columns values (row by row) as category
 * @category. */
static int
cif_loop (cbf_handle cbf,
          const char *category,
          const char *const *columns,
          int n_columns,
          const char *const *values,
          int n_rows)
{
  int code = cbf_new_category (cbf, category);

  for (int c = 0; c < n_columns; c++)
    code |= cbf_new_column (cbf, columns[c]);
  for (int r = 0; r < n_rows && code == 0; r++)
    {
      code |= cbf_new_row (cbf);
      for (int c = 0; c < n_columns; c++)
        {
          code |= cbf_find_column (cbf, columns[c]);
          code |= cbf_set_value (cbf, values[r * n_columns + c]);
          /* "." is CIF's "not applicable", not the text "." */
          if (strcmp (values[r * n_columns + c], ".") == 0)
            code |= cbf_set_typeofvalue (cbf, "null");
        }
    }
  return code;
}

#define N_OF(a) ((int) (sizeof (a) / sizeof (a)[0]))

/* Numbers as the tables' text: each in its own buffer of @fmt's result. */
typedef char cif_number[32];

static const char *
num (cif_number buf, double v)
{
  /* + 0.0: no "-0" */
  snprintf (buf, sizeof (cif_number), "%.10g", v + 0.0);
  return buf;
}

/* The experiment, the radiation (wavelength, polarization), the detector and
 * the goniometer of full_cbf_tables(). */
static int
cif_diffrn_tables (cbf_handle cbf, const nb_frame_geometry *g)
{
  cif_number n[2], w;
  double bxe[3], e[3], polar_normal;
  int code = 0;

  /* the normal to the polarization plane: beam (-z) x E-vector; dxtbx reads
   * it as the angle from +y towards +x */
  nb_axes_to_imgcif (g, g->polar_vector, e);
  {
    const double beam[3] = { 0.0, 0.0, -1.0 };

    nb_axes_cross (beam, e, bxe);
  }
  polar_normal = atan2 (bxe[0], bxe[1]) * RTD;
  {
    const char *c[] = { "id" };
    const char *v[] = { "BRAGGSCOPE" };
    code |= cif_loop (cbf, "diffrn", c, 1, v, 1);
  }
  {
    const char *c[] = { "diffrn_id", "source", "type" };
    const char *v[] = { "BRAGGSCOPE", "simulated", "Braggscope nanobragg-series" };
    code |= cif_loop (cbf, "diffrn_source", c, N_OF (c), v, 1);
  }
  {
    /* dxtbx reads polarizn_source_ratio as DIALS' polarization fraction (the
     * share of the intensity with the E-vector in the plane), (1 + k) / 2 for
     * nanoBragg's Kahn factor k, and dxtbx's own full-CBF writer writes it so */
    const char *c[] = { "diffrn_id", "wavelength_id", "probe", "polarizn_source_ratio",
                        "polarizn_source_norm" };
    const char *v[] = { "BRAGGSCOPE", "WAVELENGTH1", "x-ray",
                        num (n[0], (1.0 + g->polarization) / 2.0), num (n[1], polar_normal) };
    code |= cif_loop (cbf, "diffrn_radiation", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "id", "wavelength", "wt" };
    const char *v[] = { "WAVELENGTH1", num (w, g->wavelength * 1e10), "1.0" };
    code |= cif_loop (cbf, "diffrn_radiation_wavelength", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "diffrn_id", "id", "type", "number_of_axes" };
    const char *v[] = { "BRAGGSCOPE", "DETECTOR", "simulated pixel-array detector", "4" };
    code |= cif_loop (cbf, "diffrn_detector", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "detector_id", "axis_id" };
    const char *v[] = { "DETECTOR", "DETECTOR_Z", "DETECTOR", "DETECTOR_Y",
                        "DETECTOR", "DETECTOR_X", "DETECTOR", "DETECTOR_R" };
    code |= cif_loop (cbf, "diffrn_detector_axis", c, N_OF (c), v, 4);
  }
  {
    const char *c[] = { "id", "detector_id" };
    const char *v[] = { "ELEMENT1", "DETECTOR" };
    code |= cif_loop (cbf, "diffrn_detector_element", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "id", "detector_element_id", "array_id", "binary_id" };
    const char *v[] = { "FRAME1", "ELEMENT1", "ARRAY1", "1" };
    code |= cif_loop (cbf, "diffrn_data_frame", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "diffrn_id", "id", "number_of_axes", "method" };
    const char *v[] = { "BRAGGSCOPE", "GONIOMETER", "1", "rotation" };
    code |= cif_loop (cbf, "diffrn_measurement", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "measurement_id", "axis_id" };
    const char *v[] = { "GONIOMETER", "GONIOMETER_OMEGA" };
    code |= cif_loop (cbf, "diffrn_measurement_axis", c, N_OF (c), v, 1);
  }
  return code;
}

/* The scan of full_cbf_tables(): one frame, omega turning. */
static int
cif_scan_tables (cbf_handle cbf, const nb_frame_geometry *g)
{
  cif_number n[8];
  int code = 0;

  {
    const char *c[] = { "id", "frame_id_start", "frame_id_end", "frames" };
    const char *v[] = { "SCAN1", "FRAME1", "FRAME1", "1" };
    code |= cif_loop (cbf, "diffrn_scan", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "scan_id",
                        "axis_id",
                        "angle_start",
                        "angle_range",
                        "angle_increment",
                        "displacement_start",
                        "displacement_range",
                        "displacement_increment" };
    const char *v[] = { "SCAN1",
                        "GONIOMETER_OMEGA",
                        num (n[3], g->start_angle * RTD),
                        num (n[4], g->angle_increment * RTD),
                        num (n[5], g->angle_increment * RTD),
                        "0",
                        "0",
                        "0",
#define ZERO_SCAN(axis) "SCAN1", axis, "0", "0", "0", "0", "0", "0"
                        ZERO_SCAN ("DETECTOR_Z"),
                        ZERO_SCAN ("DETECTOR_Y"),
                        ZERO_SCAN ("DETECTOR_X"),
                        ZERO_SCAN ("DETECTOR_R"),
                        ZERO_SCAN ("MODULE"),
                        ZERO_SCAN ("ELEMENT_Y"),
                        ZERO_SCAN ("ELEMENT_X") };
#undef ZERO_SCAN
    code |= cif_loop (cbf, "diffrn_scan_axis", c, N_OF (c), v, 8);
  }
  {
    const char *c[] = { "frame_id", "frame_number", "integration_time", "scan_id", "date" };
    const char *v[] = { "FRAME1", "1", num (n[6], g->exposure), "SCAN1", "1970-01-01T00:00:00" };
    code |= cif_loop (cbf, "diffrn_scan_frame", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "frame_id", "axis_id", "angle", "displacement" };
    const char *v[] = { "FRAME1",
                        "GONIOMETER_OMEGA",
                        num (n[7], g->start_angle * RTD),
                        "0",
#define ZERO_FRAME(axis) "FRAME1", axis, "0", "0"
                        ZERO_FRAME ("DETECTOR_Z"),
                        ZERO_FRAME ("DETECTOR_Y"),
                        ZERO_FRAME ("DETECTOR_X"),
                        ZERO_FRAME ("DETECTOR_R"),
                        ZERO_FRAME ("MODULE"),
                        ZERO_FRAME ("ELEMENT_Y"),
                        ZERO_FRAME ("ELEMENT_X") };
#undef ZERO_FRAME
    code |= cif_loop (cbf, "diffrn_scan_frame_axis", c, N_OF (c), v, 8);
  }
  return code;
}

/* The axes and the array of full_cbf_tables(). */
static int
cif_axis_tables (cbf_handle cbf, const nb_frame_geometry *g)
{
  cif_number n[32];
  double spindle[3], fdet[3], sdet[3], pix0[3];
  int code = 0;

  nb_axes_to_imgcif (g, g->spindle, spindle);
  nb_axes_to_imgcif (g, g->fdet, fdet);
  nb_axes_to_imgcif (g, g->sdet, sdet);
  nb_axes_to_imgcif (g, g->pix0, pix0);
  {
    const char *c[] = { "id",        "type",      "equipment", "depends_on", "vector[1]",
                        "vector[2]", "vector[3]", "offset[1]", "offset[2]",  "offset[3]" };
    const char *v[] = { "GONIOMETER_OMEGA",
                        "rotation",
                        "goniometer",
                        ".",
                        num (n[8], spindle[0]),
                        num (n[9], spindle[1]),
                        num (n[10], spindle[2]),
                        "0",
                        "0",
                        "0",
                        "SOURCE",
                        "general",
                        "source",
                        ".",
                        "0",
                        "0",
                        "1",
                        ".",
                        ".",
                        ".",
                        "GRAVITY",
                        "general",
                        "gravity",
                        ".",
                        "0",
                        "-1",
                        "0",
                        ".",
                        ".",
                        ".",
                        "DETECTOR_Z",
                        "translation",
                        "detector",
                        ".",
                        "0",
                        "0",
                        "1",
                        "0",
                        "0",
                        "0",
                        "DETECTOR_Y",
                        "translation",
                        "detector",
                        "DETECTOR_Z",
                        "0",
                        "1",
                        "0",
                        "0",
                        "0",
                        "0",
                        "DETECTOR_X",
                        "translation",
                        "detector",
                        "DETECTOR_Y",
                        "1",
                        "0",
                        "0",
                        "0",
                        "0",
                        "0",
                        "DETECTOR_R",
                        "rotation",
                        "detector",
                        "DETECTOR_X",
                        "0",
                        "0",
                        "1",
                        "0",
                        "0",
                        "0",
                        "MODULE",
                        "rotation",
                        "detector",
                        "DETECTOR_R",
                        "0",
                        "1",
                        "0",
                        num (n[14], pix0[0] * 1e3),
                        num (n[15], pix0[1] * 1e3),
                        num (n[16], pix0[2] * 1e3),
                        "ELEMENT_Y",
                        "translation",
                        "detector",
                        "MODULE",
                        num (n[17], sdet[0]),
                        num (n[18], sdet[1]),
                        num (n[19], sdet[2]),
                        "0",
                        "0",
                        "0",
                        "ELEMENT_X",
                        "translation",
                        "detector",
                        "ELEMENT_Y",
                        num (n[11], fdet[0]),
                        num (n[12], fdet[1]),
                        num (n[13], fdet[2]),
                        "0",
                        "0",
                        "0" };
    code |= cif_loop (cbf, "axis", c, N_OF (c), v, 10);
  }
  {
    const char *c[] = {
      "array_id", "index", "dimension", "precedence", "direction", "axis_set_id"
    };
    const char *v[] = { "ARRAY1", "1", num (n[20], g->fpixels), "1", "increasing", "ELEMENT_X",
                        "ARRAY1", "2", num (n[21], g->spixels), "2", "increasing", "ELEMENT_Y" };
    code |= cif_loop (cbf, "array_structure_list", c, N_OF (c), v, 2);
  }
  {
    const char *c[] = { "axis_set_id", "axis_id", "displacement", "displacement_increment" };
    const char *v[] = { "ELEMENT_X", "ELEMENT_X", "0", num (n[22], g->pixel_size * 1e3),
                        "ELEMENT_Y", "ELEMENT_Y", "0", num (n[23], g->pixel_size * 1e3) };
    code |= cif_loop (cbf, "array_structure_list_axis", c, N_OF (c), v, 2);
  }
  {
    const char *c[] = { "array_id", "index", "size" };
    const char *v[] = { "ARRAY1", "1", num (n[24], g->pixel_size),
                        "ARRAY1", "2", num (n[25], g->pixel_size) };
    code |= cif_loop (cbf, "array_element_size", c, N_OF (c), v, 2);
  }
  {
    const char *c[] = {
      "array_id", "binary_id", "linearity", "gain", "overload", "undefined_value"
    };
    const char *v[] = { "ARRAY1", "1", "linear", "1", num (n[26], (double) g->count_cutoff), "-1" };
    code |= cif_loop (cbf, "array_intensities", c, N_OF (c), v, 1);
  }
  {
    const char *c[] = { "id", "encoding_type", "compression_type", "byte_order" };
    const char *v[] = { "ARRAY1", "signed 32-bit integer", "x-CBF_BYTE_OFFSET", "little_endian" };
    code |= cif_loop (cbf, "array_structure", c, N_OF (c), v, 1);
  }
  return code;
}

/* The categories of a full imgCIF file that dxtbx's FormatCBFFull reads
 * (through CBFlib's cbf_construct_detector, cbf_construct_goniometer,
 * cbf_get_wavelength, cbf_get_polarization, cbf_get_integration_time):
 * the detector in the layout of dxtbx's own full-CBF writer (CBFlib builds
 * its pixel positions from it): settings of zero on DETECTOR_Z, _Y, _X, _R,
 * then MODULE whose offset is the outer corner of the first pixel (dxtbx's
 * panel origin: CBFlib puts pixel index 0 at the displacement, written 0),
 * ELEMENT_Y along the slow pixel direction and ELEMENT_X along fast,
 * depending on it; the goniometer as GONIOMETER_OMEGA about the spindle;
 * lengths in mm. */
static int
full_cbf_tables (cbf_handle cbf, const nb_frame_geometry *g)
{
  return cif_diffrn_tables (cbf, g) | cif_scan_tables (cbf, g) | cif_axis_tables (cbf, g);
}

static nb_status
cbf_failed (nb_error *err, const char *path, const char *what, int code)
{
  return nb_error_set (err, NB_ERR_IO, "%s: CBFlib failed to %s (error 0x%x)", path, what, code);
}

/* The CBF of @g and @pixels (a Pilatus's with its gaps at -1 when
 * @pilatus), with @header as its text, into @stream.  A CBFlib status. */
static int
encode_cbf (FILE *stream,
            const nb_frame_geometry *g,
            const int32_t *pixels,
            int pilatus,
            const char *header)
{
  size_t n = (size_t) g->fpixels * (size_t) g->spixels;
  int32_t *gapped = NULL;
  cbf_handle cbf = NULL;
  int code;

  if (pilatus)
    {
      if ((gapped = malloc (n * sizeof *gapped)) == NULL)
        return CBF_ALLOC;
      for (size_t i = 0; i < n; i++)
        gapped[i] = pilatus_gap ((int) (i % (size_t) g->fpixels), (int) (i / (size_t) g->fpixels))
                        ? -1
                        : pixels[i];
      pixels = gapped;
    }
  if ((code = cbf_make_handle (&cbf)) != 0)
    {
      free (gapped);
      return code;
    }
  /* CBFlib logs its warnings to stderr unless told otherwise; the engine
   * reports through its return values only */
  cbf_set_cbf_logfile (cbf, NULL);
  code |= cbf_new_datablock (cbf, "image_1");
  if (!pilatus)
    code |= full_cbf_tables (cbf, g);
  code |= cbf_new_category (cbf, "array_data");
  if (!pilatus)
    {
      code |= cbf_new_column (cbf, "array_id");
      code |= cbf_set_value (cbf, "ARRAY1");
      code |= cbf_new_column (cbf, "binary_id");
      code |= cbf_set_value (cbf, "1");
    }
  code |= cbf_new_column (cbf, "header_convention");
  code |= cbf_set_value (cbf, pilatus ? "PILATUS_1.2" : "BRAGGSCOPE_1.0");
  code |= cbf_new_column (cbf, "header_contents");
  code |= cbf_set_value (cbf, header);
  code |= cbf_new_column (cbf, "data");
  /* CBFlib's API takes the array as void *; it only reads it */
  code |= cbf_set_integerarray_wdims_fs (cbf, CBF_BYTE_OFFSET, 1, (void *) pixels, sizeof (int32_t),
                                         1, n, "little_endian", (size_t) g->fpixels,
                                         (size_t) g->spixels, 0, 4095);
  /* not "readable": the stream stays ours to close */
  if (code == 0)
    code |= cbf_write_file (cbf, stream, 0, CBF, MSG_DIGEST | MIME_HEADERS | PAD_4K, ENC_NONE);
  cbf_free_handle (cbf);
  free (gapped);
  return code;
}

nb_status
nb_write_cbf (const char *path,
              const nb_frame_geometry *g,
              const int32_t *pixels,
              const char *extra_header,
              const nb_sha256 *fingerprint,
              nb_error *err)
{
  int pilatus = is_pilatus (g);
  char *header, *buffer = NULL;
  size_t size = 0;
  FILE *stream = NULL;
  int code = 0;
  nb_status st;
  c_numeric loc;

  c_numeric_push (&loc);
  header = pilatus_header (g, pilatus, extra_header, fingerprint != NULL);
  if (header == NULL || (stream = open_memstream (&buffer, &size)) == NULL)
    {
      c_numeric_pop (&loc);
      free (header);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for the CBF header", path);
    }
  code = encode_cbf (stream, g, pixels, pilatus, header);
  c_numeric_pop (&loc);
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
