/* test-frame.c: measured frames (nb-frame.h): the two real frames of
 * tests/data/measured read and their header geometry checked against the
 * header text itself, a full imgCIF and an NXmx master with external data
 * made here through CBFlib and libhdf5, the geometry applied in every
 * convention, and ten damaged copies of each real frame refused with a clear
 * one-line message. */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zlib.h>

#include "nb-frame.h"
#include "nb-test-util.h"

#ifdef NB_HAVE_CBF
#include <cbflib/cbf.h>
#include <cbflib/cbf_simple.h>
#endif
#ifdef NB_HAVE_HDF5
#include <hdf5.h>
#endif

#define RTD (180.0 / G_PI)

static char *tmpdir;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/* Decompresses tests/data/measured/@name.gz into the temporary folder once;
 * returns the path (owned by the caller). */
static char *
measured_frame (const char *name)
{
  g_autofree char *gz_name = g_strconcat (name, ".gz", NULL);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", "measured", gz_name, NULL);
  char *dst = g_build_filename (tmpdir, name, NULL);
  gzFile in;
  FILE *out;
  char buf[65536];
  int got;

  if (g_file_test (dst, G_FILE_TEST_EXISTS))
    return dst;
  in = gzopen (src, "rb");
  g_assert_nonnull (in);
  out = fopen (dst, "wb");
  g_assert_nonnull (out);
  while ((got = gzread (in, buf, sizeof buf)) > 0)
    g_assert_cmpint ((int) fwrite (buf, 1, (size_t) got, out), ==, got);
  g_assert_cmpint (got, ==, 0);
  gzclose (in);
  g_assert_cmpint (fclose (out), ==, 0);
  return dst;
}

static char *
read_all (const char *path, gsize *len)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, len, &error));
  g_assert_no_error (error);
  return text;
}

/* The number after "KEY=" at a line's start in an SMV header text. */
static double
smv_header_number (const char *text, const char *key)
{
  g_autofree char *needle = g_strconcat ("\n", key, "=", NULL);
  const char *at = strstr (text, needle);

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (needle), NULL);
}

/* The first number after "# KEY" in a miniCBF header text (after '(' and
 * ',' for Beam_xy's second with @which 1). */
static double
minicbf_number (const char *text, const char *key, int which)
{
  g_autofree char *needle = g_strconcat ("# ", key, NULL);
  const char *at = strstr (text, needle);
  char *end;
  double v;

  g_assert_nonnull (at);
  at += strlen (needle);
  while (*at == ' ' || *at == '(')
    at++;
  v = g_ascii_strtod (at, &end);
  if (which == 1)
    {
      at = end;
      while (*at == ',' || *at == ' ')
        at++;
      v = g_ascii_strtod (at, &end);
    }
  g_assert_true (end != at);
  return v;
}

static void
assert_item (
    const nb_frame *f, nb_frame_item item, double expected, double tol, const char *source_part)
{
  g_test_message ("%s = %.10g (expected %.10g) from %s", nb_frame_item_name (item),
                  f->item[item].value, expected, f->item[item].source);
  g_assert_true (f->item[item].have);
  g_assert_cmpfloat_with_epsilon (f->item[item].value, expected, tol);
  g_assert_nonnull (strstr (f->item[item].source, source_part));
}

/* A read that must fail: NB_OK never, one line naming @path. */
static void
assert_refused (const char *path, int index, const char *why_part)
{
  nb_frame f;
  nb_error err = { 0 };
  nb_status st = nb_frame_read (path, index, 0, &f, &err);

  g_test_message ("%s: %s", path, err.message);
  g_assert_cmpint (st, !=, NB_OK);
  g_assert_null (f.counts);
  g_assert_null (f.mask);
  g_assert_null (f.header);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_null (strchr (err.message, '\n'));
  if (why_part != NULL)
    g_assert_nonnull (strstr (err.message, why_part));
}

/* ------------------------------------------------------------------------ */
/* SMV: the Timepix frame                                                    */

static void
test_smv_timepix (void)
{
  g_autofree char *path = measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img");
  gsize len;
  g_autofree char *raw = read_all (path, &len);
  nb_frame f;
  nb_error err;
  double px = smv_header_number (raw, "PIXEL_SIZE") * 1e-3;
  long sum = 0;

  g_assert_cmpint (nb_frame_read (path, 0, 0, &f, &err), ==, NB_OK);
  g_assert_cmpint (f.format, ==, NB_FRAME_SMV);
  g_assert_cmpint (f.fpixels, ==, (int) smv_header_number (raw, "SIZE1"));
  g_assert_cmpint (f.spixels, ==, (int) smv_header_number (raw, "SIZE2"));
  g_assert_cmpstr (f.element_type, ==, "unsigned 16-bit");
  assert_item (&f, NB_FRAME_WAVELENGTH, smv_header_number (raw, "WAVELENGTH") * 1e-10, 1e-16,
               "WAVELENGTH=0.025100");
  assert_item (&f, NB_FRAME_DISTANCE, smv_header_number (raw, "DISTANCE") * 1e-3, 1e-12,
               "DISTANCE=531.85");
  assert_item (&f, NB_FRAME_PIXEL_SIZE, px, 1e-12, "PIXEL_SIZE=0.055000");
  /* RED's Timepix headers give the beam centre in pixels, X along fast (as dxtbx reads them) */
  assert_item (&f, NB_FRAME_BEAM_F, smv_header_number (raw, "BEAM_CENTER_X") * px, 1e-12,
               "BEAM_CENTER_X=246.14");
  assert_item (&f, NB_FRAME_BEAM_S, smv_header_number (raw, "BEAM_CENTER_Y") * px, 1e-12,
               "BEAM_CENTER_Y=240.35");
  /* ... which the header's own DENZO beam (mm, X along slow) confirms to its 2 decimals */
  g_assert_cmpfloat_with_epsilon (f.item[NB_FRAME_BEAM_S].value * 1e3,
                                  smv_header_number (raw, "DENZO_X_BEAM"), 0.006);
  g_assert_cmpfloat_with_epsilon (f.item[NB_FRAME_BEAM_F].value * 1e3,
                                  smv_header_number (raw, "DENZO_Y_BEAM"), 0.006);
  assert_item (&f, NB_FRAME_PHI_START, smv_header_number (raw, "OSC_START") / RTD, 1e-12,
               "OSC_START=-65.40");
  assert_item (&f, NB_FRAME_OSCILLATION, smv_header_number (raw, "OSC_RANGE") / RTD, 1e-12,
               "OSC_RANGE=0.23");
  assert_item (&f, NB_FRAME_EXPOSURE, smv_header_number (raw, "TIME"), 1e-12, "TIME=0.096288");
  assert_item (&f, NB_FRAME_TWOTHETA, 0.0, 1e-15, "TWOTHETA=0.00");

  /* every pixel as the file stores it: little-endian 16-bit after 512 bytes */
  g_assert_cmpuint (len, ==, 512 + 2 * 516 * 516);
  for (int i = 0; i < 516 * 516; i++)
    {
      int v = (unsigned char) raw[512 + 2 * i] | (unsigned char) raw[513 + 2 * i] << 8;

      g_assert_cmpint (f.counts[i], ==, v);
      g_assert_cmpint (f.mask[i], ==, v >= 65535 ? NB_PIXEL_OVERLOAD : NB_PIXEL_VALID);
      sum += v;
    }
  g_test_message ("sum of counts %ld", sum);
  g_assert_cmpint (f.count_cutoff, ==, 65535);
  nb_frame_clear (&f);
}

/* A little SMV file of @size x @size pixels of @type (2 or 4 bytes, @order)
 * with the extra header lines @extra. */
static char *
write_smv (const char *name,
           int size,
           const char *type,
           const char *order,
           const char *extra,
           const void *pixels,
           gsize bytes)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  char header[1024];
  GString *s = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  int n = g_snprintf (header, sizeof header,
                      "{\nHEADER_BYTES=1024;\nDIM=2;\nBYTE_ORDER=%s;\nTYPE=%s;\nSIZE1=%d;\n"
                      "SIZE2=%d;\n%s}\f",
                      order, type, size, size, extra);

  memset (header + n, ' ', sizeof header - (gsize) n);
  g_string_append_len (s, header, sizeof header);
  g_string_append_len (s, pixels, (gssize) bytes);
  g_assert_true (g_file_set_contents (path, s->str, (gssize) s->len, &error));
  g_string_free (s, TRUE);
  return path;
}

static void
test_smv_types (void)
{
  /* 32-bit big-endian, Eiger-like: 2^32 - 1 is not a count */
  const unsigned char be32[4 * 4] = { 0,    0,    0,    7,    0, 1, 0,    0,
                                      0xff, 0xff, 0xff, 0xff, 0, 0, 0x30, 0x39 };
  g_autofree char *p32 = write_smv ("t32.img", 2, "unsigned_long", "big_endian",
                                    "PIXEL_SIZE=0.1;\nDISTANCE=100;\nBEAM_CENTER_X=1.5;\n"
                                    "BEAM_CENTER_Y=2.5;\nSATURATED_VALUE=12345;\n",
                                    be32, sizeof be32);
  nb_frame f;
  nb_error err;

  g_assert_cmpint (nb_frame_read (p32, 0, 0, &f, &err), ==, NB_OK);
  g_assert_cmpstr (f.element_type, ==, "unsigned 32-bit");
  g_assert_cmpint (f.counts[0], ==, 7);
  g_assert_cmpint (f.counts[1], ==, 65536);
  g_assert_cmpint (f.mask[2], ==, NB_PIXEL_MASKED);
  g_assert_cmpint (f.counts[3], ==, 12345);
  g_assert_cmpint (f.mask[3], ==, NB_PIXEL_OVERLOAD);
  g_assert_cmpint (f.mask[1], ==, NB_PIXEL_OVERLOAD);
  g_assert_cmpint (f.n_masked, ==, 1);
  g_assert_cmpint (f.n_overload, ==, 2);
  /* ADSC's beam centre: mm in MOSFLM's frame, X along slow */
  assert_item (&f, NB_FRAME_BEAM_F, 2.5e-3, 1e-15, "BEAM_CENTER_Y=2.5");
  assert_item (&f, NB_FRAME_BEAM_S, 1.5e-3, 1e-15, "ADSC");
  nb_frame_clear (&f);

  {
    /* signed 16-bit: negative values are masked and kept */
    const unsigned char le16[2 * 4] = { 5, 0, 0xff, 0xff, 0xfe, 0xff, 9, 0 };
    g_autofree char *p16 =
        write_smv ("t16.img", 2, "signed_short", "little_endian", "", le16, sizeof le16);

    g_assert_cmpint (nb_frame_read (p16, 0, 0, &f, &err), ==, NB_OK);
    g_assert_cmpint (f.counts[1], ==, -1);
    g_assert_cmpint (f.counts[2], ==, -2);
    g_assert_cmpint (f.n_masked, ==, 2);
    g_assert_false (f.item[NB_FRAME_WAVELENGTH].have);
    nb_frame_clear (&f);
  }
  {
    const unsigned char four[8] = { 0 };
    g_autofree char *pf = write_smv ("float.img", 2, "float", "little_endian", "", four, 8);
    g_autofree char *pc =
        write_smv ("comp.img", 2, "unsigned_short", "little_endian", "COMPRESSION=pck;\n", four, 8);

    assert_refused (pf, 0, "TYPE=float");
    assert_refused (pc, 0, "unknown compression");
  }
}

/* ------------------------------------------------------------------------ */
/* CBF: the Eiger frame as miniCBF                                           */

static void
test_minicbf_thermolysin (void)
{
#ifdef NB_HAVE_CBF
  g_autofree char *path = measured_frame ("dlsnxs2cbf_therm_0001.cbf");
  gsize len;
  g_autofree char *raw = read_all (path, &len);
  char *end = strstr (raw, "_array_data.data");
  nb_frame f;
  nb_error err;
  double px;
  long negative = 0, masked_rows = 0, sum = 0;

  g_assert_nonnull (end);
  *end = '\0'; /* the header text, for the checks */
  px = minicbf_number (raw, "Pixel_size", 0);
  g_assert_cmpint (nb_frame_read (path, 0, 0, &f, &err), ==, NB_OK);
  g_assert_cmpint (f.format, ==, NB_FRAME_MINICBF);
  g_assert_cmpint (f.fpixels, ==, 4148);
  g_assert_cmpint (f.spixels, ==, 4362);
  g_assert_cmpstr (f.element_type, ==, "signed 32-bit");
  g_assert_nonnull (strstr (f.header, "# Detector: EIGER 16M"));
  assert_item (&f, NB_FRAME_WAVELENGTH, minicbf_number (raw, "Wavelength", 0) * 1e-10, 1e-18,
               "'# Wavelength 0.98027 A'");
  assert_item (&f, NB_FRAME_DISTANCE, minicbf_number (raw, "Detector_distance", 0), 1e-12,
               "'# Detector_distance 0.21396 m'");
  assert_item (&f, NB_FRAME_PIXEL_SIZE, px, 1e-15, "'# Pixel_size 75e-6 m x 75e-6 m'");
  assert_item (&f, NB_FRAME_BEAM_F, minicbf_number (raw, "Beam_xy", 0) * px, 1e-12,
               "'# Beam_xy (2216.06, 2300.41) pixels'");
  assert_item (&f, NB_FRAME_BEAM_S, minicbf_number (raw, "Beam_xy", 1) * px, 1e-12, "Beam_xy");
  assert_item (&f, NB_FRAME_PHI_START, minicbf_number (raw, "Start_angle", 0) / RTD, 1e-12,
               "Start_angle 174.0000 deg.");
  assert_item (&f, NB_FRAME_OSCILLATION, minicbf_number (raw, "Angle_increment", 0) / RTD, 1e-12,
               "Angle_increment 0.2500 deg.");
  assert_item (&f, NB_FRAME_EXPOSURE, minicbf_number (raw, "Exposure_time", 0), 1e-12,
               "Exposure_time 0.00800 s");
  assert_item (&f, NB_FRAME_THICKNESS, 0.000450, 1e-12, "thickness 0.000450 m");
  assert_item (&f, NB_FRAME_TWOTHETA, 0.0, 1e-15, "Detector_2theta");
  g_assert_cmpint (f.count_cutoff, ==, (int) minicbf_number (raw, "Count_cutoff", 0));

  /* the Eiger's module gaps are negative, and masked; nothing else is */
  for (int s = 0; s < f.spixels; s++)
    {
      int all = 1;

      for (int x = 0; x < f.fpixels; x++)
        {
          size_t i = (size_t) s * f.fpixels + x;

          negative += f.counts[i] < 0;
          g_assert_cmpint (f.mask[i] == NB_PIXEL_MASKED, ==, f.counts[i] < 0);
          if (f.mask[i] == NB_PIXEL_VALID)
            sum += f.counts[i];
          all &= f.mask[i] == NB_PIXEL_MASKED;
        }
      masked_rows += all;
    }
  g_test_message ("%ld pixels masked, %ld whole rows (gaps between module rows), %ld counts",
                  f.n_masked, masked_rows, sum);
  g_assert_cmpint (negative, ==, f.n_masked);
  /* 8 rows of modules, 7 gaps of 37 pixels between them */
  g_assert_cmpint (masked_rows, >=, 7 * 37);
  /* the weak frame: about 45,000 counts in all */
  g_assert_cmpint (sum, >, 40000);
  g_assert_cmpint (sum, <, 50000);
  nb_frame_clear (&f);

  /* the header alone: same geometry, no pixels */
  g_assert_cmpint (nb_frame_read (path, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
  g_assert_null (f.counts);
  g_assert_cmpint (f.fpixels, ==, 4148);
  g_assert_true (f.item[NB_FRAME_BEAM_S].have);
  nb_frame_clear (&f);
#else
  g_test_skip ("this build has no CBFlib");
#endif
}

#ifdef NB_HAVE_CBF
/* A full imgCIF frame of 40 x 30 pixels of 0.1 mm: its axis categories put
 * the beam 20.5 and 10.5 pixels from pixel (0, 0)'s corner at 150 mm, phi from
 * 12.5 deg by 0.4, wavelength 1.2345 A, 0.25 s, overload 30000. */
static const char full_cbf_template[] =
    "###CBF: VERSION 1.5\n"
    "data_test_frame\n"
    "_diffrn.id DS1\n"
    "_diffrn_source.diffrn_id DS1\n"
    "_diffrn_source.source synchrotron\n"
    "_diffrn_radiation.diffrn_id DS1\n"
    "_diffrn_radiation.wavelength_id WAVELENGTH1\n"
    "_diffrn_radiation_wavelength.id WAVELENGTH1\n"
    "_diffrn_radiation_wavelength.wavelength 1.2345\n"
    "_diffrn_radiation_wavelength.wt 1.0\n"
    "_diffrn_detector.diffrn_id DS1\n"
    "_diffrn_detector.id DETECTOR\n"
    "_diffrn_detector.type 'test detector'\n"
    "_diffrn_detector.number_of_axes 3\n"
    "loop_\n_diffrn_detector_axis.detector_id\n_diffrn_detector_axis.axis_id\n"
    "DETECTOR DETECTOR_X\nDETECTOR DETECTOR_Y\nDETECTOR DETECTOR_Z\n"
    "_diffrn_detector_element.id ELEMENT1\n"
    "_diffrn_detector_element.detector_id DETECTOR\n"
    "_diffrn_measurement.diffrn_id DS1\n"
    "_diffrn_measurement.id GONIOMETER\n"
    "_diffrn_measurement.number_of_axes 1\n"
    "_diffrn_measurement.method rotation\n"
    "_diffrn_measurement_axis.measurement_id GONIOMETER\n"
    "_diffrn_measurement_axis.axis_id GONIOMETER_PHI\n"
    "_diffrn_scan.id SCAN1\n"
    "_diffrn_scan.frame_id_start FRAME1\n"
    "_diffrn_scan.frame_id_end FRAME1\n"
    "_diffrn_scan.frames 1\n"
    "loop_\n_diffrn_scan_axis.scan_id\n_diffrn_scan_axis.axis_id\n"
    "_diffrn_scan_axis.angle_start\n_diffrn_scan_axis.angle_range\n"
    "_diffrn_scan_axis.angle_increment\n_diffrn_scan_axis.displacement_start\n"
    "_diffrn_scan_axis.displacement_range\n_diffrn_scan_axis.displacement_increment\n"
    "SCAN1 GONIOMETER_PHI 12.5 0.4 0.4 0.0 0.0 0.0\n"
    "SCAN1 DETECTOR_Z 0.0 0.0 0.0 150.0 0.0 0.0\n"
    "SCAN1 DETECTOR_Y 0.0 0.0 0.0 0.0 0.0 0.0\n"
    "SCAN1 DETECTOR_X 0.0 0.0 0.0 0.0 0.0 0.0\n"
    "_diffrn_scan_frame.frame_id FRAME1\n"
    "_diffrn_scan_frame.frame_number 1\n"
    "_diffrn_scan_frame.integration_time 0.25\n"
    "_diffrn_scan_frame.scan_id SCAN1\n"
    "loop_\n_diffrn_scan_frame_axis.frame_id\n_diffrn_scan_frame_axis.axis_id\n"
    "_diffrn_scan_frame_axis.angle\n_diffrn_scan_frame_axis.displacement\n"
    "FRAME1 GONIOMETER_PHI 12.5 0.0\nFRAME1 DETECTOR_Z 0.0 150.0\n"
    "FRAME1 DETECTOR_Y 0.0 0.0\nFRAME1 DETECTOR_X 0.0 0.0\n"
    "loop_\n_axis.id\n_axis.type\n_axis.equipment\n_axis.depends_on\n"
    "_axis.vector[1]\n_axis.vector[2]\n_axis.vector[3]\n"
    "_axis.offset[1]\n_axis.offset[2]\n_axis.offset[3]\n"
    "SOURCE general source . 0 0 1 . . .\n"
    "GRAVITY general gravity . 0 -1 0 . . .\n"
    "GONIOMETER_PHI rotation goniometer . 1 0 0 . . .\n"
    "DETECTOR_Z translation detector . 0 0 -1 0 0 0\n"
    "DETECTOR_Y translation detector DETECTOR_Z 0 1 0 0 0 0\n"
    "DETECTOR_X translation detector DETECTOR_Y 1 0 0 0 0 0\n"
    "ELEMENT_X translation detector DETECTOR_X 1 0 0 -2.05 1.05 0\n"
    "ELEMENT_Y translation detector ELEMENT_X 0 1 0 0 0 0\n"
    "loop_\n_array_structure_list.array_id\n_array_structure_list.index\n"
    "_array_structure_list.dimension\n_array_structure_list.precedence\n"
    "_array_structure_list.direction\n_array_structure_list.axis_set_id\n"
    "ARRAY1 1 40 1 increasing ELEMENT_X\nARRAY1 2 30 2 increasing ELEMENT_Y\n"
    "loop_\n_array_structure_list_axis.axis_set_id\n_array_structure_list_axis.axis_id\n"
    "_array_structure_list_axis.displacement\n_array_structure_list_axis.displacement_increment\n"
    "ELEMENT_X ELEMENT_X 0.05 0.1\nELEMENT_Y ELEMENT_Y -0.05 -0.1\n"
    "loop_\n_array_element_size.array_id\n_array_element_size.index\n_array_element_size.size\n"
    "ARRAY1 1 100e-6\nARRAY1 2 100e-6\n"
    "_array_intensities.array_id ARRAY1\n"
    "_array_intensities.binary_id 1\n"
    "_array_intensities.linearity linear\n"
    "_array_intensities.gain 1.0\n"
    "_array_intensities.overload 30000\n"
    "_array_intensities.undefined_value -1\n"
    "_diffrn_data_frame.id FRAME1\n"
    "_diffrn_data_frame.detector_element_id ELEMENT1\n"
    "_diffrn_data_frame.array_id ARRAY1\n"
    "_diffrn_data_frame.binary_id 1\n"
    "_array_data.array_id ARRAY1\n"
    "_array_data.binary_id 1\n"
    "_array_data.data ?\n";

/* @template (full_cbf_template or a variant) with a 40 x 30 byte-offset
 * array (value (i % 37), pixel 5 at -1, pixel 7 at the overload) added
 * through CBFlib, written to @name. */
static char *
write_full_cbf (const char *name, const char *template)
{
  g_autofree char *tpath = g_build_filename (tmpdir, "template.cif", NULL);
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GError) error = NULL;
  int32_t data[1200];
  cbf_handle h;
  FILE *in, *out;

  for (int i = 0; i < 1200; i++)
    data[i] = i % 37;
  data[5] = -1;
  data[7] = 30000;
  g_assert_true (g_file_set_contents (tpath, template, -1, &error));
  g_assert_cmpint (cbf_make_handle (&h), ==, 0);
  in = fopen (tpath, "rb");
  g_assert_nonnull (in);
  g_assert_cmpint (cbf_read_file (h, in, MSG_NODIGEST), ==, 0);
  g_assert_cmpint (cbf_find_category (h, "array_data"), ==, 0);
  g_assert_cmpint (cbf_find_column (h, "data"), ==, 0);
  g_assert_cmpint (cbf_rewind_row (h), ==, 0);
  g_assert_cmpint (cbf_set_integerarray_wdims_fs (h, CBF_BYTE_OFFSET, 1, data, 4, 1, 1200,
                                                  "little_endian", 40, 30, 0, 0),
                   ==, 0);
  out = fopen (path, "w+b");
  g_assert_nonnull (out);
  /* CBFlib closes the file (readable: 1) */
  g_assert_cmpint (cbf_write_file (h, out, 1, CBF, MSG_DIGEST | MIME_HEADERS, 0), ==, 0);
  cbf_free_handle (h);
  return path;
}
#endif

static void
test_full_cbf (void)
{
#ifdef NB_HAVE_CBF
  g_autofree char *path = write_full_cbf ("full.cbf", full_cbf_template);
  nb_frame f;
  nb_error err;

  g_assert_cmpint (nb_frame_read (path, 0, 0, &f, &err), ==, NB_OK);
  g_assert_cmpint (f.format, ==, NB_FRAME_CBF);
  g_assert_cmpint (f.fpixels, ==, 40);
  g_assert_cmpint (f.spixels, ==, 30);
  assert_item (&f, NB_FRAME_WAVELENGTH, 1.2345e-10, 1e-18, "diffrn_radiation_wavelength");
  assert_item (&f, NB_FRAME_DISTANCE, 0.150, 1e-12, "detector axes");
  assert_item (&f, NB_FRAME_PIXEL_SIZE, 1e-4, 1e-15, "array_element_size");
  /* the element's offset puts the beam at pixel index 20, 10 from pixel (0, 0)'s centre */
  assert_item (&f, NB_FRAME_BEAM_F, 2.05e-3, 1e-12, "cbf_get_beam_center");
  assert_item (&f, NB_FRAME_BEAM_S, 1.05e-3, 1e-12, "cbf_get_beam_center");
  assert_item (&f, NB_FRAME_PHI_START, 12.5 / RTD, 1e-12, "goniometer");
  assert_item (&f, NB_FRAME_OSCILLATION, 0.4 / RTD, 1e-12, "goniometer");
  assert_item (&f, NB_FRAME_EXPOSURE, 0.25, 1e-12, "integration time");
  g_assert_cmpint (f.count_cutoff, ==, 30000);
  for (int i = 0; i < 1200; i++)
    if (i != 5 && i != 7)
      g_assert_cmpint (f.counts[i], ==, i % 37);
  g_assert_cmpint (f.counts[5], ==, -1);
  g_assert_cmpint (f.mask[5], ==, NB_PIXEL_MASKED);
  g_assert_cmpint (f.mask[7], ==, NB_PIXEL_OVERLOAD);
  g_assert_cmpint (f.n_masked, ==, 1);
  g_assert_cmpint (f.n_overload, ==, 1);
  nb_frame_clear (&f);
#else
  g_test_skip ("this build has no CBFlib");
#endif
}

/* ------------------------------------------------------------------------ */
/* NeXus: an Eiger-like master with its data behind external links           */

#ifdef NB_HAVE_HDF5
static void
h5_attr_string (hid_t obj, const char *name, const char *value)
{
  hid_t type = H5Tcopy (H5T_C_S1), space = H5Screate (H5S_SCALAR), a;

  H5Tset_size (type, strlen (value));
  a = H5Acreate2 (obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Awrite (a, type, value), >=, 0);
  H5Aclose (a);
  H5Sclose (space);
  H5Tclose (type);
}

static void
h5_number (hid_t loc, const char *name, const double *v, hsize_t n, const char *units)
{
  hid_t space = n > 1 ? H5Screate_simple (1, &n, NULL) : H5Screate (H5S_SCALAR);
  hid_t d = H5Dcreate2 (loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  g_assert_cmpint (d, >=, 0);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), >=, 0);
  if (units != NULL)
    h5_attr_string (d, "units", units);
  H5Dclose (d);
  H5Sclose (space);
}

static hid_t
h5_group (hid_t loc, const char *name, const char *nx_class)
{
  hid_t g = H5Gcreate2 (loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  g_assert_cmpint (g, >=, 0);
  if (nx_class != NULL)
    h5_attr_string (g, "NX_class", nx_class);
  return g;
}

/* A data file @name: 3 frames of 30 x 20 uint32, pixel (i) of frame k
 * k * 1000 + i, pixel 11 of every frame 2^32 - 1, pixel 12 at 60000; with a
 * filter @filter (0: none) on 10 x 20 x 30 chunks. */
static void
write_data_file (const char *name, H5Z_filter_t filter)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  hsize_t dims[3] = { 3, 20, 30 }, chunk[3] = { 1, 20, 30 };
  uint32_t *v = g_new (uint32_t, 3 * 600);
  hid_t f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), entry, data, space, dcpl, d;

  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 600; i++)
      v[k * 600 + i] = i == 11 ? 0xffffffffu : i == 12 ? 60000u : (uint32_t) (k * 1000 + i);
  entry = h5_group (f, "entry", "NXentry");
  data = h5_group (entry, "data", "NXdata");
  space = H5Screate_simple (3, dims, NULL);
  dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, 3, chunk);
  if (filter != 0)
    /* optional: HDF5 records a filter it does not have and writes the data unfiltered */
    g_assert_cmpint (H5Pset_filter (dcpl, filter, H5Z_FLAG_OPTIONAL, 0, NULL), >=, 0);
  d = H5Dcreate2 (data, "data", H5T_STD_U32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), >=, 0);
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Gclose (data);
  H5Gclose (entry);
  H5Fclose (f);
  g_free (v);
}

/* The master @name: geometry as the Eiger file writer records it, and
 * /entry/data/data_000001 an external link to @data_name. */
static char *
write_master (const char *name, const char *data_name)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  hid_t f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t entry = h5_group (f, "entry", "NXentry"), data = h5_group (entry, "data", "NXdata");
  hid_t inst = h5_group (entry, "instrument", "NXinstrument");
  hid_t beam = h5_group (inst, "beam", "NXbeam"), det = h5_group (inst, "detector", "NXdetector");
  hid_t sample = h5_group (entry, "sample", "NXsample");
  hid_t gonio = h5_group (sample, "goniometer", "NXtransformations");
  const double wavelength = 0.9763, distance = 0.2, px = 75e-6, bx = 14.5, by = 9.25, t = 0.1,
               sat = 50000, thick = 450e-6, omega[3] = { 10.0, 10.5, 11.0 }, step = 0.5,
               zero[3] = { 0, 0, 0 };
  uint32_t mask[600] = { 0 };

  g_assert_cmpint (H5Lcreate_external (data_name, "/entry/data/data", data, "data_000001",
                                       H5P_DEFAULT, H5P_DEFAULT),
                   >=, 0);
  h5_number (beam, "incident_wavelength", &wavelength, 1, "angstrom");
  h5_number (det, "detector_distance", &distance, 1, "m");
  h5_number (det, "x_pixel_size", &px, 1, "m");
  h5_number (det, "y_pixel_size", &px, 1, "m");
  h5_number (det, "beam_center_x", &bx, 1, "pixel");
  h5_number (det, "beam_center_y", &by, 1, "pixel");
  h5_number (det, "count_time", &t, 1, "s");
  h5_number (det, "saturation_value", &sat, 1, NULL);
  h5_number (det, "sensor_thickness", &thick, 1, "m");
  h5_number (gonio, "omega", omega, 3, "deg");
  h5_number (gonio, "omega_range_average", &step, 1, "deg");
  h5_number (gonio, "phi", zero, 3, "deg");
  {
    hsize_t dims[2] = { 20, 30 };
    hid_t space = H5Screate_simple (2, dims, NULL);
    hid_t d =
        H5Dcreate2 (det, "pixel_mask", H5T_STD_U32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

    mask[30 * 4 + 7] = 1; /* pixel (7, 4): dead */
    g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, mask), >=, 0);
    H5Dclose (d);
    H5Sclose (space);
  }
  H5Gclose (gonio);
  H5Gclose (sample);
  H5Gclose (det);
  H5Gclose (beam);
  H5Gclose (inst);
  H5Gclose (data);
  H5Gclose (entry);
  H5Fclose (f);
  return path;
}
#endif

static void
test_nexus (void)
{
#ifdef NB_HAVE_HDF5
  g_autofree char *master;
  g_autofree char *cwd = g_get_current_dir ();
  nb_frame f;
  nb_error err;

  write_data_file ("eiger_data_000001.h5", 0);
  master = write_master ("eiger_master.h5", "eiger_data_000001.h5");
  /* the data file is found beside the master, wherever the program runs */
  g_assert_cmpint (g_chdir ("/"), ==, 0);
  g_assert_cmpint (nb_frame_read (master, 2, 0, &f, &err), ==, NB_OK);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_cmpint (f.format, ==, NB_FRAME_NEXUS);
  g_assert_cmpint (f.n_frames, ==, 3);
  g_assert_cmpint (f.frame_index, ==, 2);
  g_assert_cmpint (f.fpixels, ==, 30);
  g_assert_cmpint (f.spixels, ==, 20);
  g_assert_cmpstr (f.element_type, ==, "unsigned 32-bit");
  assert_item (&f, NB_FRAME_WAVELENGTH, 0.9763e-10, 1e-18, "incident_wavelength");
  assert_item (&f, NB_FRAME_DISTANCE, 0.2, 1e-12, "detector_distance");
  assert_item (&f, NB_FRAME_PIXEL_SIZE, 75e-6, 1e-15, "x_pixel_size");
  assert_item (&f, NB_FRAME_BEAM_F, 14.5 * 75e-6, 1e-15, "beam_center_x");
  assert_item (&f, NB_FRAME_BEAM_S, 9.25 * 75e-6, 1e-15, "beam_center_x,_y");
  /* omega moves (phi does not): frame 2 starts at 11 deg */
  assert_item (&f, NB_FRAME_PHI_START, 11.0 / RTD, 1e-12, "goniometer/omega[2]");
  assert_item (&f, NB_FRAME_OSCILLATION, 0.5 / RTD, 1e-12, "omega");
  assert_item (&f, NB_FRAME_EXPOSURE, 0.1, 1e-12, "count_time");
  assert_item (&f, NB_FRAME_THICKNESS, 450e-6, 1e-15, "sensor_thickness");
  g_assert_cmpint (f.count_cutoff, ==, 50000);
  g_assert_cmpint (f.counts[0], ==, 2000);
  g_assert_cmpint (f.counts[599], ==, 2599);
  g_assert_cmpint (f.mask[11], ==, NB_PIXEL_MASKED); /* 2^32 - 1 */
  g_assert_cmpint (f.mask[12], ==, NB_PIXEL_OVERLOAD);
  g_assert_cmpint (f.mask[30 * 4 + 7], ==, NB_PIXEL_MASKED); /* pixel_mask */
  g_assert_cmpint (f.n_masked, ==, 2);
  nb_frame_clear (&f);

  /* frame 0 and the header alone */
  g_assert_cmpint (nb_frame_read (master, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
  g_assert_null (f.counts);
  g_assert_cmpfloat_with_epsilon (f.item[NB_FRAME_PHI_START].value, 10.0 / RTD, 1e-12);
  nb_frame_clear (&f);

  assert_refused (master, 3, "frame 3 asked for, the file holds 3");
  {
    /* one frame, slow x fast, in the master itself, signed 16-bit, no geometry at all */
    g_autofree char *one = g_build_filename (tmpdir, "one_frame.h5", NULL);
    hid_t file = H5Fcreate (one, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t entry = h5_group (file, "entry", "NXentry"), data = h5_group (entry, "data", "NXdata");
    hsize_t dims[2] = { 4, 5 };
    hid_t space = H5Screate_simple (2, dims, NULL);
    hid_t d =
        H5Dcreate2 (data, "data", H5T_STD_I16LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int16_t v[20];

    for (int i = 0; i < 20; i++)
      v[i] = (int16_t) (i - 2);
    g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), >=, 0);
    H5Dclose (d);
    H5Sclose (space);
    H5Gclose (data);
    H5Gclose (entry);
    H5Fclose (file);
    g_assert_cmpint (nb_frame_read (one, 0, 0, &f, &err), ==, NB_OK);
    g_assert_cmpint (f.n_frames, ==, 1);
    g_assert_cmpint (f.fpixels, ==, 5);
    g_assert_cmpint (f.spixels, ==, 4);
    g_assert_cmpstr (f.element_type, ==, "signed 16-bit");
    g_assert_cmpint (f.counts[0], ==, -2);
    g_assert_cmpint (f.counts[19], ==, 17);
    g_assert_cmpint (f.n_masked, ==, 2);
    for (int k = 0; k < NB_FRAME_N_ITEMS; k++)
      g_assert_false (f.item[k].have);
    nb_frame_clear (&f);
    assert_refused (one, 1, "frame 1 asked for, the file holds 1");
  }
  {
    /* a data file that is not there: the link and its target are named */
    g_autofree char *lost = write_master ("lost_master.h5", "lost_data_000001.h5");

    assert_refused (lost, 0, "lost_data_000001.h5");
  }
  {
    /* bitshuffle/LZ4 (32008), a plugin this libhdf5 lacks: unknown compression */
    g_autofree char *lz4;

    write_data_file ("bslz4_data_000001.h5", 32008);
    lz4 = write_master ("bslz4_master.h5", "bslz4_data_000001.h5");
    if (H5Zfilter_avail (32008) > 0)
      g_test_message ("this libhdf5 has filter 32008: not checked");
    else
      assert_refused (lz4, 0, "unknown compression: HDF5 filter 32008");
  }
#else
  g_test_skip ("this build has no libhdf5");
#endif
}

/* ------------------------------------------------------------------------ */
/* Hostile files (issue 23): links to pipes, chunks and frames beyond reason  */

#ifdef NB_HAVE_HDF5
/* @n zero bytes deflated as libhdf5's deflate filter stores them (a zlib
 * stream), made a piece at a time: the test never holds @n bytes. */
static GByteArray *
deflate_zeros (gsize n)
{
  static const guint8 zeros[1 << 16];
  guint8 buf[1 << 16];
  GByteArray *out = g_byte_array_new ();
  z_stream z = { 0 };

  g_assert_cmpint (deflateInit (&z, Z_BEST_SPEED), ==, Z_OK);
  do
    {
      gsize take = MIN (n, sizeof zeros);

      n -= take;
      z.next_in = (Bytef *) zeros;
      z.avail_in = (uInt) take;
      do
        {
          z.next_out = buf;
          z.avail_out = sizeof buf;
          g_assert_cmpint (deflate (&z, n == 0 ? Z_FINISH : Z_NO_FLUSH), !=, Z_STREAM_ERROR);
          g_byte_array_append (out, buf, (guint) (sizeof buf - z.avail_out));
        }
      while (z.avail_out == 0);
    }
  while (n > 0);
  deflateEnd (&z);
  return out;
}

/* A NeXus file @name whose /entry/data/data is @dims (frames, slow, fast) of
 * @type in deflated chunks of @chunk, extendible without limit when
 * @extendible.  With @stored its first chunk holds zeros (written deflated,
 * as a writer would), else no chunk is stored (the fill value is read). */
static char *
write_chunked_frames (const char *name,
                      const hsize_t dims[3],
                      const hsize_t chunk[3],
                      hid_t type,
                      gboolean extendible,
                      gboolean stored)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  hsize_t unlimited[3] = { H5S_UNLIMITED, H5S_UNLIMITED, H5S_UNLIMITED }, origin[3] = { 0 };
  hid_t f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t entry = h5_group (f, "entry", "NXentry"), data = h5_group (entry, "data", "NXdata");
  hid_t space = H5Screate_simple (3, dims, extendible ? unlimited : NULL);
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE), d;

  H5Pset_chunk (dcpl, 3, chunk);
  H5Pset_deflate (dcpl, 1);
  d = H5Dcreate2 (data, "data", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  if (stored)
    {
      g_autoptr (GByteArray) z =
          deflate_zeros (chunk[0] * chunk[1] * chunk[2] * H5Tget_size (type));

      g_assert_cmpint (H5Dwrite_chunk (d, H5P_DEFAULT, 0, origin, z->len, z->data), >=, 0);
    }
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Gclose (data);
  H5Gclose (entry);
  H5Fclose (f);
  return path;
}

/* A master whose frames are a virtual dataset of 8 x 8 pixels taken from
 * /data of the file @source. */
static char *
write_virtual_master (const char *name, const char *source)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  hsize_t dims[3] = { 1, 8, 8 };
  hid_t f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t entry = h5_group (f, "entry", "NXentry"), data = h5_group (entry, "data", "NXdata");
  hid_t space = H5Screate_simple (3, dims, NULL), dcpl = H5Pcreate (H5P_DATASET_CREATE), d;

  g_assert_cmpint (H5Pset_virtual (dcpl, space, source, "/data", space), >=, 0);
  d = H5Dcreate2 (data, "data", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Gclose (data);
  H5Gclose (entry);
  H5Fclose (f);
  return path;
}
#endif

/* Files made to hang or exhaust the reader: an external link or a virtual
 * dataset naming a named pipe blocked libhdf5's open() for ever; a 64 x 64
 * frame in one 8192 x 8192 chunk cost 256 MB to decode; an unsigned 32-bit
 * frame in one chunk of 16 MB was decoded once per row (2048 times). */
static void
test_hostile_nexus (void)
{
#ifdef NB_HAVE_HDF5
  nb_frame f;
  nb_error err = { 0 };
  g_autofree char *pipe = g_build_filename (tmpdir, "pipe_data_000001.h5", NULL);
  g_autofree char *vpipe = g_build_filename (tmpdir, "pipe_source.h5", NULL);
  g_autofree char *linked = write_master ("pipe_master.h5", "pipe_data_000001.h5");
  g_autofree char *virtual = write_virtual_master ("virtual_master.h5", "pipe_source.h5");
  const hsize_t small[3] = { 1, 64, 64 }, huge_chunk[3] = { 1, 8192, 8192 };
  const hsize_t wide[3] = { 1, 2048, 2048 };
  g_autofree char *in_huge_chunk =
      write_chunked_frames ("small_in_huge_chunk.h5", small, huge_chunk, H5T_STD_I32LE, TRUE, TRUE);
  g_autofree char *one_chunk =
      write_chunked_frames ("one_chunk_u32.h5", wide, wide, H5T_STD_U32LE, FALSE, TRUE);
  gint64 start;

  g_assert_cmpint (mkfifo (pipe, 0600), ==, 0);
  g_assert_cmpint (mkfifo (vpipe, 0600), ==, 0);
  assert_refused (linked, 0, "pipe_data_000001.h5: a named pipe (FIFO), not a regular file");
  g_assert_cmpint (nb_frame_read (linked, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_ERR_IO);
  assert_refused (virtual, 0, "pipe_source.h5: a named pipe (FIFO), not a regular file");
  assert_refused (in_huge_chunk, 0, "chunks are more than 16 times the size of its frames");

  start = g_get_monotonic_time ();
  g_assert_cmpint (nb_frame_read (one_chunk, 0, 0, &f, &err), ==, NB_OK);
  g_test_message ("2048 x 2048 unsigned 32-bit frame in one chunk: %.2f s",
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpint (f.counts[2048 * 2048 - 1], ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  nb_frame_clear (&f);
#else
  g_test_skip ("this build has no libhdf5");
#endif
}

/* Issue 23: a 1 MB NeXus file declaring 16384 x 16384 pixels made the viewer
 * allocate gigabytes and abort.  Every frame read is held to the engine's one
 * memory budget (nb_memory_budget: -memory_budget, or half of what the
 * process may use, a ulimit included) before anything is allocated. */
static void
test_frame_budget (void)
{
#ifdef NB_HAVE_HDF5
  const hsize_t huge[3] = { 1, 16384, 16384 }, chunk[3] = { 1, 1024, 1024 };
  g_autofree char *path =
      write_chunked_frames ("declares_16384.h5", huge, chunk, H5T_STD_I32LE, FALSE, FALSE);
  g_autofree char *smv = measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img");
  nb_frame f;
  nb_error err = { 0 };

  if (g_test_subprocess ())
    {
#if defined(__SANITIZE_ADDRESS__)
      /* AddressSanitizer's shadow memory alone reserves terabytes of address space */
      return;
#endif
      /* 1.5 GB of address space: the default budget is 0.75 GB, whatever the machine has */
      struct rlimit rl = { (rlim_t) 1500 << 20, (rlim_t) 1500 << 20 };

      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      g_assert_cmpfloat (nb_memory_budget (0.0), ==, (double) (750 << 20));
      g_assert_cmpfloat (nb_memory_budget (5e6), ==, 5e6);
      g_assert_cmpint (nb_frame_read (path, 0, 0, &f, &err), ==, NB_ERR_NOMEM);
      g_assert_null (f.counts);
      printf ("%s\n", err.message);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
#if !defined(__SANITIZE_ADDRESS__)
  g_test_trap_assert_stdout ("*declares_16384.h5: reading this 16384 x 16384 frame needs about "
                             "1342.2 MB (1342.2 MB of counts and mask), more than the memory "
                             "budget of 786.4 MB (half of what this process may use*");
#endif

  /* an explicit budget, with the caller's copy counted */
  g_assert_cmpint (nb_frame_read_budget (path, 0, 0, 100e6, 4, &f, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "2415.9 MB (1342.2 MB of counts and mask, 1073.7 MB "
                                         "for the caller's copy)"));
  g_assert_nonnull (strstr (err.message, "budget of 100.0 MB (-memory_budget)"));
  /* the header alone holds no pixels */
  g_assert_cmpint (nb_frame_read_budget (path, 0, NB_FRAME_HEADER_ONLY, 100e6, 4, &f, &err), ==,
                   NB_OK);
  g_assert_cmpint (f.fpixels, ==, 16384);
  nb_frame_clear (&f);
  /* SMV: 516 x 516 pixels are 1.3 MB of counts and mask */
  g_assert_cmpint (nb_frame_read_budget (smv, 0, 0, 1e6, 0, &f, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "516 x 516"));
  g_assert_cmpint (nb_frame_read_budget (smv, 0, 0, 3e6, 0, &f, &err), ==, NB_OK);
  nb_frame_clear (&f);
#else
  g_test_skip ("this build has no libhdf5");
#endif
}

/* ------------------------------------------------------------------------ */
/* The geometry into parameters                                              */

/* In every convention the plan built from the applied parameters puts the
 * beam where the header says, and takes the header's other values. */
static void
test_apply_conventions (void)
{
  g_autofree char *path = measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img");
  static const nb_convention conventions[] = {
    NB_CONVENTION_ADXV, NB_CONVENTION_MOSFLM, NB_CONVENTION_DENZO,
    NB_CONVENTION_XDS,  NB_CONVENTION_DIALS,  NB_CONVENTION_CUSTOM,
  };
  nb_frame f;
  nb_error err;

  g_assert_cmpint (nb_frame_read (path, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
  for (gsize c = 0; c < G_N_ELEMENTS (conventions); c++)
    {
      nb_params p;
      nb_plan *plan = NULL;
      const nb_plan_info *in;
      char *report = NULL;

      nb_params_init (&p);
      p.convention = conventions[c];
      p.cell[0] = p.cell[1] = p.cell[2] = 50;
      p.default_F = 1;
      p.backend = NB_BACKEND_CPU;
      p.osc = 1.0 / RTD; /* replaced: the header has OSC_RANGE */
      g_assert_cmpint (nb_frame_apply_geometry (&f, &p, &report, &err), ==, NB_OK);
      if (c == 0)
        g_test_message ("%s", report);
      g_assert_nonnull (strstr (report, "distance 531.85 mm from the SMV header line 17"));
      g_assert_nonnull (strstr (report, "wavelength 0.0251 A from"));
      free (report);
      g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
      in = nb_plan_get_info (plan);
      g_test_message ("convention %d: Fbeam %.6f mm Sbeam %.6f mm distance %.4f mm", (int) c,
                      in->Fbeam * 1e3, in->Sbeam * 1e3, in->distance * 1e3);
      g_assert_cmpint (in->fpixels, ==, 516);
      g_assert_cmpint (in->spixels, ==, 516);
      g_assert_cmpfloat_with_epsilon (in->pixel_size, 55e-6, 1e-15);
      g_assert_cmpfloat_with_epsilon (in->lambda0, 0.0251e-10, 1e-20);
      g_assert_cmpfloat_with_epsilon (in->distance, 0.53185, 1e-9);
      g_assert_cmpfloat_with_epsilon (in->Fbeam, f.item[NB_FRAME_BEAM_F].value, 1e-9);
      g_assert_cmpfloat_with_epsilon (in->Sbeam, f.item[NB_FRAME_BEAM_S].value, 1e-9);
      g_assert_cmpfloat_with_epsilon (in->phi0, -65.4 / RTD, 1e-12);
      g_assert_cmpfloat_with_epsilon (in->osc, 0.23 / RTD, 1e-12);
      nb_plan_destroy (plan);
      nb_params_clear (&p);
    }
  nb_frame_clear (&f);

  {
    /* what the header lacks keeps its value */
    const unsigned char zero[8] = { 0 };
    g_autofree char *bare = write_smv ("bare.img", 2, "unsigned_short", "little_endian",
                                       "PIXEL_SIZE=0.2;\n", zero, sizeof zero);
    nb_params p;
    char *report = NULL;

    nb_params_init (&p);
    p.lambda0 = 1.5e-10;
    p.distance = 0.123;
    g_assert_cmpint (nb_frame_read (bare, 0, 0, &f, &err), ==, NB_OK);
    g_assert_cmpint (nb_frame_apply_geometry (&f, &p, &report, &err), ==, NB_OK);
    g_test_message ("%s", report);
    g_assert_cmpfloat (p.lambda0, ==, 1.5e-10);
    g_assert_cmpfloat (p.distance, ==, 0.123);
    g_assert_cmpfloat (p.pixel_size, ==, 0.2e-3);
    g_assert_cmpint (p.fpixels, ==, 2);
    g_assert_nonnull (strstr (report, "wavelength: not in the header, keeps 1.5 A"));
    g_assert_nonnull (strstr (report, "distance: not in the header, keeps 123 mm"));
    free (report);
    nb_params_clear (&p);
    nb_frame_clear (&f);
  }
}

/* ------------------------------------------------------------------------ */
/* Damaged copies                                                            */

typedef struct
{
  const char *name;
  const char *why; /* a part of the message, or NULL */
} damage;

/* @len bytes of @data into @name. */
static char *
write_bytes (const char *name, const char *data, gsize len)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, data, (gssize) len, &error));
  return path;
}

/* @data with @from replaced by @to (same header text, other length allowed). */
static char *
replaced (const char *data, gsize len, const char *from, const char *to, gsize *out_len)
{
  const char *at = g_strstr_len (data, (gssize) len, from);
  gsize head, n_from = strlen (from), n_to = strlen (to);
  char *out;

  g_assert_nonnull (at);
  head = (gsize) (at - data);
  out = g_malloc (len - n_from + n_to);
  memcpy (out, data, head);
  memcpy (out + head, to, n_to);
  memcpy (out + head + n_to, at + n_from, len - head - n_from);
  *out_len = len - n_from + n_to;
  return out;
}

static void
test_damaged_smv (void)
{
  g_autofree char *path = measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img");
  gsize len, n;
  g_autofree char *raw = read_all (path, &len);
  struct
  {
    const char *name, *from, *to, *why;
  } edits[] = {
    { "smv-size1.img", "SIZE1=516;", "SIZE1=517;", "truncated: SIZE1=517" },
    { "smv-type32.img", "TYPE=unsigned_short;", "TYPE=unsigned_long; ", "unsigned 32-bit need" },
    { "smv-type-junk.img", "TYPE=unsigned_short;", "TYPE=complex_thing;", "TYPE=complex_thing" },
    { "smv-order.img", "BYTE_ORDER=little_endian;", "BYTE_ORDER=middle_endian;",
      "BYTE_ORDER=middle_endian" },
    { "smv-distance.img", "DISTANCE=531.85;", "DISTANCE=5x1.85;", "DISTANCE='5x1.85'" },
    { "smv-wavelength.img", "WAVELENGTH=0.025100;", "WAVELENGTH=-0.02510;", "WAVELENGTH" },
    { "smv-header-bytes.img", "HEADER_BYTES=  512;", "HEADER_BYTES=99999;", "HEADER_BYTES" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (edits); i++)
    {
      g_autofree char *bad = replaced (raw, len, edits[i].from, edits[i].to, &n);
      g_autofree char *p = write_bytes (edits[i].name, bad, n);

      assert_refused (p, 0, edits[i].why);
    }
  {
    /* truncated in the pixels, by one byte, and inside the header */
    g_autofree char *t1 = write_bytes ("smv-half.img", raw, len / 2);
    g_autofree char *t2 = write_bytes ("smv-short1.img", raw, len - 1);
    g_autofree char *t3 = write_bytes ("smv-header-cut.img", raw, 300);

    assert_refused (t1, 0, "truncated");
    assert_refused (t2, 0, "truncated");
    assert_refused (t3, 0, "HEADER_BYTES");
  }
  {
    /* surplus bytes after the pixels: the sizes or the type are wrong */
    g_autofree char *more = g_malloc (len + 1000);
    g_autofree char *p;

    memcpy (more, raw, len);
    memset (more + len, 0, 1000);
    p = write_bytes ("smv-long.img", more, len + 1000);
    assert_refused (p, 0, "wrong size");
  }
}

static void
test_damaged_cbf (void)
{
#ifdef NB_HAVE_CBF
  g_autofree char *path = measured_frame ("dlsnxs2cbf_therm_0001.cbf");
  gsize len, n;
  g_autofree char *raw = read_all (path, &len);
  const char *binary = g_strstr_len (raw, (gssize) len, "\x0c\x1a\x04\xd5");
  gsize data_at;
  struct
  {
    const char *name, *from, *to, *why;
  } edits[] = {
    /* the MIME header disagrees with the data */
    { "cbf-elements.cbf", "X-Binary-Number-of-Elements: 18093576",
      "X-Binary-Number-of-Elements: 18093577", "X-Binary-Number-of-Elements" },
    { "cbf-fast.cbf", "X-Binary-Size-Fastest-Dimension: 4148",
      "X-Binary-Size-Fastest-Dimension: 4149", NULL },
    { "cbf-size.cbf", "X-Binary-Size: 18093590", "X-Binary-Size: 98093590", NULL },
    { "cbf-compression.cbf", "x-CBF_BYTE_OFFSET", "x-CBF_NOSUCHCODE", NULL },
    { "cbf-element-type.cbf", "signed 32-bit integer", "complex 96-bit number", NULL },
    /* the Pilatus header text */
    { "cbf-wavelength.cbf", "# Wavelength 0.98027 A", "# Wavelength zero A    ", "Wavelength" },
    { "cbf-pixel.cbf", "# Pixel_size 75e-6 m x 75e-6 m", "# Pixel_size 75e-6 m x 80e-6 m",
      "rectangular" },
  };

  g_assert_nonnull (binary);
  data_at = (gsize) (binary - raw) + 4;
  for (gsize i = 0; i < G_N_ELEMENTS (edits); i++)
    {
      g_autofree char *bad = replaced (raw, len, edits[i].from, edits[i].to, &n);
      g_autofree char *p = write_bytes (edits[i].name, bad, n);

      assert_refused (p, 0, edits[i].why);
    }
  {
    /* truncated in the data, just after the binary section starts, and in the text */
    g_autofree char *t1 = write_bytes ("cbf-half.cbf", raw, data_at + (len - data_at) / 2);
    g_autofree char *t2 = write_bytes ("cbf-data-start.cbf", raw, data_at + 10);
    g_autofree char *t3 = write_bytes ("cbf-text-cut.cbf", raw, 700);

    assert_refused (t1, 0, NULL);
    assert_refused (t2, 0, NULL);
    assert_refused (t3, 0, NULL);
  }
#else
  g_test_skip ("this build has no CBFlib");
#endif
}

static void
test_not_frames (void)
{
  g_autofree char *text = write_bytes ("text.img", "hello, not a frame\n", 19);
  g_autofree char *empty = write_bytes ("empty.img", "", 0);
  g_autofree char *gz = g_test_build_filename (G_TEST_DIST, "data", "measured",
                                               "TIMEPIX_SU_516-stdgoni_0001.img.gz", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.cbf", NULL);

  assert_refused (text, 0, "not a detector frame");
  assert_refused (empty, 0, "empty file");
  assert_refused (gz, 0, "gzip-compressed");
  assert_refused (missing, 0, "cannot open");
  {
    g_autofree char *smv = measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img");

    assert_refused (smv, 1, "holds one frame");
  }
}

static void
collect_line (void *user, const char *line)
{
  g_ptr_array_add (user, g_strdup (line));
}

static nb_status
parse_with_report (nb_params *p, const char *const *args, int n, GPtrArray *lines, nb_error *err)
{
  nb_parse_options opts = { 0, NULL, lines, lines != NULL ? collect_line : NULL };

  nb_params_init (p);
  return nb_params_parse_argv_with (p, n, args, &opts, err);
}

/* -frame: the frame's header is read before every flag (so -distance, even
 * before it, wins), its report comes line by line, and nb_params_to_argv()
 * writes a command line that gives the same parameters back. */
static void
test_frame_flag (void)
{
  g_autofree char *path = measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img");
  const char *args[] = { "nanobragg", "-distance", "100", "-frame", path, "-cell",
                         "50",        "50",        "50",  "90",     "90", "90" };
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  nb_params p, q;
  nb_error err;
  char **again;
  int n_again;
  g_autofree char *line_p = NULL, *line_q = NULL;

  g_assert_cmpint (parse_with_report (&p, args, G_N_ELEMENTS (args), lines, &err), ==, NB_OK);
  g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_OK);
  g_assert_cmpfloat (p.distance, ==, 0.1);
  g_assert_cmpfloat_with_epsilon (p.lambda0, 0.0251e-10, 1e-22);
  g_assert_cmpint (p.fpixels, ==, 516);
  g_assert_cmpfloat_with_epsilon (p.exposure, 0.096288, 1e-12);
  g_assert_cmpuint (lines->len, >, 8);
  g_assert_nonnull (strstr (g_ptr_array_index (lines, 2), "'DISTANCE=531.85'"));
  for (guint i = 0; i < lines->len; i++)
    g_assert_null (strchr (g_ptr_array_index (lines, i), '\n'));

  again = nb_params_to_argv (&p, &n_again);
  g_assert_nonnull (again);
  line_p = g_strjoinv (" ", again);
  g_test_message ("%s", line_p);
  g_assert_nonnull (strstr (line_p, "-frame"));
  g_assert_cmpint (parse_with_report (&q, (const char *const *) again, n_again, NULL, &err), ==,
                   NB_OK);
  nb_argv_free (again);
  again = nb_params_to_argv (&q, NULL);
  line_q = g_strjoinv (" ", again);
  nb_argv_free (again);
  g_assert_cmpstr (line_q, ==, line_p);
  g_assert_cmpfloat (q.distance, ==, p.distance);
  g_assert_cmpfloat (q.lambda0, ==, p.lambda0);
  g_assert_cmpfloat (q.Xbeam, ==, p.Xbeam);
  g_assert_cmpfloat (q.Ybeam, ==, p.Ybeam);
  g_assert_cmpfloat (q.phi0, ==, p.phi0);
  g_assert_cmpfloat (q.osc, ==, p.osc);
  g_assert_cmpfloat (q.exposure, ==, p.exposure);
  g_assert_cmpint (q.fpixels, ==, p.fpixels);
  nb_params_clear (&q);
  nb_params_clear (&p);

  /* an SMV file holds one frame; -frame_index alone names no file */
  {
    const char *beyond[] = { "nanobragg", "-frame", path, "-frame_index", "1" };
    const char *alone[] = { "nanobragg", "-frame_index", "1" };

    g_assert_cmpint (parse_with_report (&p, beyond, G_N_ELEMENTS (beyond), NULL, &err), ==,
                     NB_ERR_PARSE);
    g_assert_nonnull (strstr (err.message, path));
    nb_params_clear (&p);
    g_assert_cmpint (parse_with_report (&p, alone, G_N_ELEMENTS (alone), NULL, &err), ==, NB_OK);
    g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_ERR_INVALID);
    g_assert_nonnull (strstr (err.message, "-frame_index 1 without -frame"));
    nb_params_clear (&p);
  }
}

/* The CBF/NeXus module (engine/formats/nb-formats.h) that cannot be loaded: NB_ERR_IO,
 * one line naming the frame, the module's file and the loader's reason, and
 * nothing printed.  In a subprocess: the module is looked for once a process. */
static void
test_module_missing (void)
{
#ifdef NB_HAVE_CBF
  if (g_test_subprocess ())
    {
      g_autofree char *cbf =
          g_test_build_filename (G_TEST_DIST, "fuzz", "corpus", "frame-cbf", "minicbf-none", NULL);
      nb_frame frame;
      nb_error err;

      g_setenv ("NB_FORMATS_MODULE", "/nonexistent/nanobragg-formats.so", TRUE);
      for (int i = 0; i < 2; i++) /* the second call gives the first's reason */
        {
          g_assert_cmpint (nb_frame_read (cbf, 0, 0, &frame, &err), ==, NB_ERR_IO);
          g_test_message ("%s", err.message);
          g_assert_true (g_str_has_prefix (err.message, cbf));
          g_assert_nonnull (
              strstr (err.message, "NB_FORMATS_MODULE=/nonexistent/nanobragg-formats.so"));
          g_assert_nonnull (strstr (err.message, "No such file or directory"));
          g_assert_null (strchr (err.message, '\n'));
        }
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("");
#else
  g_test_skip ("this build has no CBFlib");
#endif
}

/* ------------------------------------------------------------------------ */
/* Detectors one flat panel cannot represent                                 */

/* A copy of @path with @from replaced by @to (the same length or not: the
 * miniCBF header is text), as @name. */
static char *
edited_copy (const char *path, const char *name, const char *from, const char *to)
{
  gsize len;
  g_autofree char *text = read_all (path, &len);
  char *at = g_strstr_len (text, (gssize) len, from);
  char *dst = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) out = g_string_new_len (text, (gssize) (at - text));

  g_assert_nonnull (at);
  g_string_append (out, to);
  g_string_append_len (out, at + strlen (from), (gssize) (len - (at - text) - strlen (from)));
  g_assert_true (g_file_set_contents (dst, out->str, (gssize) out->len, &error));
  return dst;
}

/* The I23 Pilatus 12M: refused by its model, naming the header line; with
 * NB_FRAME_APPLY_AS_FLAT applied and said so.  Renamed to a flat model, its
 * 10 mm distance for a 42 x 87 cm array is refused instead. */
static void
test_detector_i23 (void)
{
#ifdef NB_HAVE_CBF
  g_autofree char *path = measured_frame ("DLS_I23_P12M_thau_00001_zeroed.cbf");
  g_autofree char *renamed = NULL;
  g_autofree char *report = NULL;
  nb_frame f;
  nb_params p;
  nb_error err;
  char why[512];

  g_assert_cmpint (nb_frame_read (path, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
  g_assert_cmpint (nb_frame_detector_problem (&f, why, sizeof why), ==, 1);
  g_test_message ("%s", why);
  g_assert_nonnull (strstr (why, "'# Detector: PILATUS 12M, S/N 120-0100'"));
  nb_params_init (&p);
  g_assert_cmpint (nb_frame_apply_geometry (&f, &p, &report, &err), ==, NB_ERR_UNSUPPORTED);
  g_assert_null (report);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, "PILATUS 12M"));
  g_assert_cmpfloat (p.distance, ==, 0.1); /* nanoBragg's default: unchanged */
  g_assert_cmpint (p.spixels, !=, 5071);
  g_assert_cmpint (nb_frame_apply_geometry_flags (&f, &p, NB_FRAME_APPLY_AS_FLAT, &report, &err),
                   ==, NB_OK);
  g_assert_nonnull (strstr (report, "note: the miniCBF header line '# Detector: PILATUS 12M"));
  g_assert_cmpint (p.spixels, ==, 5071);
  nb_params_clear (&p);
  nb_frame_clear (&f);

  renamed = edited_copy (path, "i23_renamed.cbf", "PILATUS 12M", "PILATUS 6M");
  g_assert_cmpint (nb_frame_read (renamed, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
  g_assert_cmpint (nb_frame_detector_problem (&f, why, sizeof why), ==, 1);
  g_test_message ("%s", why);
  g_assert_nonnull (strstr (why, "'# Detector_distance 0.01000 m'"));
  g_assert_nonnull (strstr (why, "423.6 x 872.2 mm"));
  nb_frame_clear (&f);
#else
  g_test_skip ("this build has no CBFlib");
#endif
}

/* The real flat detectors are not refused. */
static void
test_detector_flat (void)
{
  const char *names[] = { "TIMEPIX_SU_516-stdgoni_0001.img", "simtbx_FormatSMVJHSim_001.img",
#ifdef NB_HAVE_CBF
                          "dlsnxs2cbf_therm_0001.cbf", "DLS_I03_smargon_0001.cbf",
#endif
                          NULL };

  for (int i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = measured_frame (names[i]);
      nb_frame f;
      nb_error err;
      char why[512];

      g_assert_cmpint (nb_frame_read (path, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
      g_assert_cmpint (nb_frame_detector_problem (&f, why, sizeof why), ==, 0);
      g_assert_cmpstr (why, ==, "");
      nb_frame_clear (&f);
    }
}

/* A full CBF with two detector elements, and one whose detector type names
 * a Pilatus 12M; an NXmx file with two NXdetector_module groups. */
static void
test_detector_panels (void)
{
#ifdef NB_HAVE_CBF
  {
    const char *one = "_diffrn_detector_element.id ELEMENT1\n"
                      "_diffrn_detector_element.detector_id DETECTOR\n";
    g_autoptr (GString) two = g_string_new (full_cbf_template);
    g_autoptr (GString) named = g_string_new (full_cbf_template);
    g_autofree char *p2 = NULL, *p3 = NULL;
    nb_frame f;
    nb_error err;
    char why[512];

    g_string_replace (two, one,
                      "loop_\n_diffrn_detector_element.id\n_diffrn_detector_element.detector_id\n"
                      "ELEMENT1 DETECTOR\nELEMENT2 DETECTOR\n",
                      1);
    p2 = write_full_cbf ("two_elements.cbf", two->str);
    g_assert_cmpint (nb_frame_read (p2, 0, 0, &f, &err), ==, NB_OK);
    g_assert_cmpint (f.n_modules, ==, 2);
    g_assert_cmpint (nb_frame_detector_problem (&f, why, sizeof why), ==, 1);
    g_test_message ("%s", why);
    g_assert_nonnull (strstr (why, "diffrn_detector_element describes a detector of 2 elements"));
    nb_frame_clear (&f);

    g_string_replace (named, "'test detector'", "'PILATUS 12M-DLS'", 1);
    p3 = write_full_cbf ("named.cbf", named->str);
    g_assert_cmpint (nb_frame_read (p3, 0, 0, &f, &err), ==, NB_OK);
    g_assert_cmpint (f.n_modules, ==, 1);
    g_assert_cmpstr (f.detector, ==, "PILATUS 12M-DLS");
    g_assert_cmpint (nb_frame_detector_problem (&f, why, sizeof why), ==, 1);
    g_assert_nonnull (strstr (why, "the CBF detector type 'PILATUS 12M-DLS'"));
    nb_frame_clear (&f);
  }
#endif
#ifdef NB_HAVE_HDF5
  {
    g_autofree char *master = NULL;
    hid_t file, det, m1, m2;
    nb_frame f;
    nb_error err;
    char why[512];

    write_data_file ("modules_data_000001.h5", 0);
    master = write_master ("modules_master.h5", "modules_data_000001.h5");
    g_assert_cmpint (nb_frame_read (master, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
    g_assert_cmpint (f.n_modules, ==, 0);
    g_assert_cmpint (nb_frame_detector_problem (&f, NULL, 0), ==, 0);
    nb_frame_clear (&f);
    file = H5Fopen (master, H5F_ACC_RDWR, H5P_DEFAULT);
    det = H5Gopen2 (file, "/entry/instrument/detector", H5P_DEFAULT);
    m1 = h5_group (det, "module_a", "NXdetector_module");
    m2 = h5_group (det, "module_b", "NXdetector_module");
    H5Gclose (m1);
    H5Gclose (m2);
    H5Gclose (det);
    H5Fclose (file);
    g_assert_cmpint (nb_frame_read (master, 0, NB_FRAME_HEADER_ONLY, &f, &err), ==, NB_OK);
    g_assert_cmpint (f.n_modules, ==, 2);
    g_assert_cmpint (nb_frame_detector_problem (&f, why, sizeof why), ==, 1);
    g_test_message ("%s", why);
    g_assert_nonnull (strstr (why, "2 NXdetector_module groups"));
    nb_frame_clear (&f);
  }
#endif
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("nb-test-frame-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/frame/smv/timepix", test_smv_timepix);
  g_test_add_func ("/frame/smv/types", test_smv_types);
  g_test_add_func ("/frame/cbf/minicbf-eiger", test_minicbf_thermolysin);
  g_test_add_func ("/frame/cbf/full-imgcif", test_full_cbf);
  g_test_add_func ("/frame/nexus/nxmx-external", test_nexus);
  g_test_add_func ("/frame/apply/conventions", test_apply_conventions);
  g_test_add_func ("/frame/apply/frame-flag", test_frame_flag);
  g_test_add_func ("/frame/damaged/smv", test_damaged_smv);
  g_test_add_func ("/frame/damaged/cbf", test_damaged_cbf);
  g_test_add_func ("/frame/not-frames", test_not_frames);
  g_test_add_func ("/frame/module-missing", test_module_missing);
  g_test_add_func ("/frame/detector/i23", test_detector_i23);
  g_test_add_func ("/frame/detector/flat", test_detector_flat);
  g_test_add_func ("/frame/detector/panels", test_detector_panels);
  g_test_add_func ("/frame/hostile/nexus", test_hostile_nexus);
  g_test_add_func ("/frame/hostile/budget", test_frame_budget);
  rc = g_test_run ();

  nb_test_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
