/* test-detector-read.c: the multi-panel geometry readers (nb-detector-read.h)
 * on files the tests write: a hierarchy composed into nanoBragg's frame, and
 * bad files refused with one line naming the file and the place in it. */
#include "formats/nb-detector-read.h"
#include "nb-frame-write.h"
#include "nb-frame.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "nb-test-util.h"

static char *tmpdir;

/* A file of @text in the test's folder; its path (g_free). */
static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* One panel's JSON, @extra inserted among its keys. */
static char *
panel_json (const char *fast, const char *pixel, const char *extra)
{
  return g_strdup_printf ("{\"name\": \"p\", \"fast_axis\": %s, \"slow_axis\": [0, -1, 0], "
                          "\"origin\": [10, 0, 0], \"image_size\": [8, 6], "
                          "\"pixel_size\": %s, \"thickness\": 0.45, \"material\": \"Si\", "
                          "\"mu\": 3.9%s}",
                          fast, pixel, extra);
}

/* An experiment list of @panels (a JSON list's items) under @hierarchy. */
static char *
expt_json (const char *panels, const char *hierarchy)
{
  return g_strdup_printf ("{\"__id__\": \"ExperimentList\", \"experiment\": [{\"beam\": 0, "
                          "\"detector\": 0}], \"beam\": [{\"direction\": [0, 0, 1], "
                          "\"wavelength\": 1.0}], \"detector\": [{\"panels\": [%s]%s%s}]}",
                          panels, hierarchy != NULL ? ", \"hierarchy\": " : "",
                          hierarchy != NULL ? hierarchy : "");
}

/* A group rotated 90 degrees about z (fast along y, slow along -x), 100 mm
 * downstream, holding panel 0. */
#define TURNED_GROUP                                                                               \
  "{\"fast_axis\": [0, 1, 0], \"slow_axis\": [-1, 0, 0], \"origin\": [0, 0, -100], "               \
  "\"children\": [{\"panel\": 0}]}"

static void
assert_vector (const double *v, double x, double y, double z)
{
  g_assert_cmpfloat_with_epsilon (v[0], x, 1e-12);
  g_assert_cmpfloat_with_epsilon (v[1], y, 1e-12);
  g_assert_cmpfloat_with_epsilon (v[2], z, 1e-12);
}

/* The panel's local frame is composed with its group's: origin (10, 0, 0) in
 * the group is (0, 10, -100) mm in dxtbx's frame, nanoBragg's (0.1, 0.01, 0) m. */
static void
test_expt_hierarchy (void)
{
  g_autofree char *panel =
      panel_json ("[1, 0, 0]", "[0.1, 0.1]", ", \"mask\": [[2, 1, 4, 3], [-5, 5, 99, 99]]");
  g_autofree char *text = expt_json (panel, TURNED_GROUP);
  g_autofree char *path = write_file ("turned.expt", text);
  nb_detector_model m;
  nb_error err = { 0 };
  int masked = 0;

  g_assert_cmpint (nb_detector_read_expt (path, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.n_panels, ==, 1);
  g_assert_cmpint (m.kind, ==, NB_DETECTOR_FILE_EXPT);
  assert_vector (m.panels[0].pix0, 0.1, 0.01, 0.0);
  assert_vector (m.panels[0].fdet, 0.0, 1.0, 0.0);
  assert_vector (m.panels[0].sdet, 0.0, 0.0, 1.0);
  assert_vector (m.beam, 1.0, 0.0, 0.0);
  g_assert_cmpfloat_with_epsilon (m.wavelength, 1e-10, 1e-22);
  g_assert_cmpfloat_with_epsilon (m.panels[0].pixel_size, 1e-4, 1e-18);
  g_assert_cmpfloat_with_epsilon (m.panels[0].thick, 4.5e-4, 1e-18);
  g_assert_cmpfloat_with_epsilon (m.panels[0].mu, 3900.0, 1e-9);
  g_assert_cmpstr (m.panels[0].material, ==, "Si");
  g_assert_cmpint (m.panels[0].fpixels, ==, 8);
  g_assert_cmpint (m.panels[0].spixels, ==, 6);
  g_assert_nonnull (m.panels[0].mask);
  for (int k = 0; k < 8 * 6; k++)
    masked += m.panels[0].mask[k] != 0;
  /* [2, 4) x [1, 3): 4 pixels; the second clipped to [0, 8) x [5, 6): 8 */
  g_assert_cmpint (masked, ==, 12);
  g_assert_cmpint (m.panels[0].mask[1 * 8 + 2], !=, 0);
  g_assert_cmpint (m.panels[0].mask[0], ==, 0);
  nb_detector_model_clear (&m);
}

/* Refused, with @code and a message holding the file's name and @needle. */
static void
assert_refused (const char *name, const char *text, nb_status code, const char *needle)
{
  g_autofree char *path = write_file (name, text);
  nb_detector_model m;
  nb_error err = { 0 };

  g_assert_cmpint (nb_detector_read_expt (path, &m, &err), ==, code);
  g_test_message ("%s", err.message);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, needle));
  g_assert_null (strchr (err.message, '\n'));
  g_assert_cmpint (m.n_panels, ==, 0);
  g_assert_null (m.panels);
}

static void
test_expt_bad (void)
{
  g_autofree char *square = panel_json ("[1, 0, 0]", "[0.1, 0.2]", "");
  g_autofree char *short_axis = panel_json ("[1, 0]", "[0.1, 0.1]", "");
  g_autofree char *parallel = panel_json ("[0, -1, 0]", "[0.1, 0.1]", "");
  g_autofree char *ok = panel_json ("[1, 0, 0]", "[0.1, 0.1]", "");
  g_autofree char *empty_mask =
      panel_json ("[1, 0, 0]", "[0.1, 0.1]", ", \"mask\": [[4, 0, 4, 6]]");
  g_autofree char *t1 = expt_json (square, NULL);
  g_autofree char *t2 = expt_json (short_axis, TURNED_GROUP);
  g_autofree char *t3 = expt_json (parallel, NULL);
  g_autofree char *t4 = expt_json (empty_mask, NULL);
  g_autofree char *twice = g_strdup_printf ("%s, %s", ok, ok);
  g_autofree char *t5 = expt_json (
      twice, "{\"fast_axis\": [1, 0, 0], \"slow_axis\": [0, 1, 0], \"origin\": [0, 0, 0], "
             "\"children\": [{\"panel\": 0}, {\"panel\": 0}]}");
  g_autofree char *t6 = expt_json (
      twice, "{\"fast_axis\": [1, 0, 0], \"slow_axis\": [0, 1, 0], \"origin\": [0, 0, 0], "
             "\"children\": [{\"panel\": 0}]}");
  g_autofree char *two =
      g_strdup_printf ("{\"detector\": [{\"panels\": [%s]}, {\"panels\": [%s]}]}", ok, ok);
  GString *deep = g_string_new (NULL);
  GString *many = g_string_new (NULL);

  assert_refused ("square.expt", t1, NB_ERR_PARSE,
                  "detector[0].panels[0].pixel_size: 0.1 x 0.2 mm pixels");
  assert_refused ("short.expt", t2, NB_ERR_PARSE,
                  "detector[0].panels[0].fast_axis: expected 3 numbers");
  assert_refused ("parallel.expt", t3, NB_ERR_PARSE, "parallel");
  assert_refused ("mask.expt", t4, NB_ERR_PARSE, "detector[0].panels[0].mask[0]: an empty");
  assert_refused ("twice.expt", t5, NB_ERR_PARSE,
                  "detector[0].hierarchy.children[1].panel: a panel placed twice");
  assert_refused ("orphan.expt", t6, NB_ERR_PARSE,
                  "detector[0].panels[1]: not placed in the hierarchy");
  assert_refused ("two.expt", two, NB_ERR_PARSE, "2 detectors");
  assert_refused ("broken.expt", "{\"detector\": [", NB_ERR_PARSE, "not valid JSON");
  assert_refused ("list.expt", "[1, 2]", NB_ERR_PARSE, "not a DIALS experiment list");

  /* 70 nested groups: bounded recursion */
  for (int i = 0; i < 70; i++)
    g_string_append (deep, "{\"fast_axis\": [1, 0, 0], \"slow_axis\": [0, 1, 0], "
                           "\"origin\": [0, 0, 0], \"children\": [");
  g_string_append (deep, "{\"panel\": 0}");
  for (int i = 0; i < 70; i++)
    g_string_append (deep, "]}");
  {
    g_autofree char *t = expt_json (ok, deep->str);

    assert_refused ("deep.expt", t, NB_ERR_PARSE, "deeper than 64");
  }
  /* 4097 panels: bounded */
  for (int i = 0; i < 4097; i++)
    g_string_append_printf (many, "%s%s", i > 0 ? ", " : "", ok);
  {
    g_autofree char *t = expt_json (many->str, NULL);

    assert_refused ("many.expt", t, NB_ERR_NOMEM, "4097 panels, more than 4096");
  }
  g_string_free (deep, TRUE);
  g_string_free (many, TRUE);
}

/* Not a regular file, or absent: an I/O error naming it, nothing blocks. */
static void
test_expt_not_a_file (void)
{
  nb_detector_model m;
  nb_error err = { 0 };
  g_autofree char *missing = g_build_filename (tmpdir, "missing.expt", NULL);

  g_assert_cmpint (nb_detector_read_expt (tmpdir, &m, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "directory"));
  g_assert_cmpint (nb_detector_read_expt (missing, &m, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, missing));
}

#ifdef NB_HAVE_HDF5
#include <hdf5.h>

static void
h5_string_attr (hid_t obj, const char *name, const char *value)
{
  hid_t t = H5Tcopy (H5T_C_S1), s = H5Screate (H5S_SCALAR), a;

  H5Tset_size (t, strlen (value) + 1);
  a = H5Acreate2 (obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Awrite (a, t, value), >=, 0);
  H5Aclose (a);
  H5Sclose (s);
  H5Tclose (t);
}

static hid_t
h5_group (hid_t parent, const char *name, const char *cls)
{
  hid_t g = H5Gcreate2 (parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  g_assert_cmpint (g, >=, 0);
  h5_string_attr (g, "NX_class", cls);
  return g;
}

/* A transformation @name: @value (mm or deg) along or about @vector. */
static void
h5_axis (hid_t g,
         const char *name,
         double value,
         const char *type,
         const double vector[3],
         const char *depends_on)
{
  hid_t s = H5Screate (H5S_SCALAR), a, vs;
  hsize_t three = 3;
  hid_t d = H5Dcreate2 (g, name, H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  H5Dwrite (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value);
  h5_string_attr (d, "units", strcmp (type, "rotation") == 0 ? "deg" : "mm");
  h5_string_attr (d, "transformation_type", type);
  h5_string_attr (d, "depends_on", depends_on);
  vs = H5Screate_simple (1, &three, NULL);
  a = H5Acreate2 (d, "vector", H5T_NATIVE_DOUBLE, vs, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite (a, H5T_NATIVE_DOUBLE, vector);
  H5Aclose (a);
  H5Sclose (vs);
  H5Dclose (d);
  H5Sclose (s);
}

/* An NXmx file of one 4 x 3 module whose pixel directions depend on a chain
 * of @links translations t0 -> t1 -> ..., each 1 mm along z; the last
 * depends on "." or, with @cycle, on t0. */
static char *
write_chain_file (const char *name, int links, int cycle)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  hid_t f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t entry = h5_group (f, "entry", "NXentry");
  hid_t instrument = h5_group (entry, "instrument", "NXinstrument");
  hid_t det = h5_group (instrument, "detector", "NXdetector");
  hid_t t = h5_group (det, "transformations", "NXtransformations");
  hid_t module = h5_group (det, "module", "NXdetector_module");
  static const double z[3] = { 0, 0, 1 }, x[3] = { -1, 0, 0 }, y[3] = { 0, -1, 0 };
  hsize_t two = 2;
  long long size[2] = { 3, 4 };
  hid_t s = H5Screate_simple (1, &two, NULL);
  hid_t d =
      H5Dcreate2 (module, "data_size", H5T_NATIVE_LLONG, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  H5Dwrite (d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, size);
  H5Dclose (d);
  H5Sclose (s);
  for (int i = 0; i < links; i++)
    {
      g_autofree char *me = g_strdup_printf ("t%d", i);
      g_autofree char *next =
          i + 1 < links ? g_strdup_printf ("/entry/instrument/detector/transformations/t%d", i + 1)
          : cycle       ? g_strdup ("/entry/instrument/detector/transformations/t0")
                        : g_strdup (".");

      h5_axis (t, me, 1.0, "translation", z, next);
    }
  h5_axis (module, "fast_pixel_direction", 0.1, "translation", x,
           "/entry/instrument/detector/transformations/t0");
  h5_axis (module, "slow_pixel_direction", 0.1, "translation", y,
           "/entry/instrument/detector/transformations/t0");
  H5Gclose (module);
  H5Gclose (t);
  H5Gclose (det);
  H5Gclose (instrument);
  H5Gclose (entry);
  H5Fclose (f);
  return path;
}

/* A chain of 10 translations of 1 mm along McStas z puts pix0 10 mm
 * downstream; 65 links and a cycle are refused, naming the place. */
static void
test_nxmx_chains (void)
{
  g_autofree char *ok = write_chain_file ("chain10.nxs", 10, 0);
  g_autofree char *longer = write_chain_file ("chain65.nxs", 65, 0);
  g_autofree char *cycle = write_chain_file ("cycle.nxs", 3, 1);
  nb_detector_model m;
  nb_error err = { 0 };

  g_assert_cmpint (nb_detector_read_nxmx (ok, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.n_panels, ==, 1);
  g_assert_cmpstr (m.panels[0].name, ==, "module");
  assert_vector (m.panels[0].pix0, 0.010, 0.0, 0.0);
  /* McStas -x is nanoBragg's +z, -y its -y */
  assert_vector (m.panels[0].fdet, 0.0, 0.0, 1.0);
  assert_vector (m.panels[0].sdet, 0.0, -1.0, 0.0);
  g_assert_cmpfloat_with_epsilon (m.panels[0].pixel_size, 1e-4, 1e-18);
  g_assert_cmpint (m.panels[0].fpixels, ==, 4);
  g_assert_cmpint (m.panels[0].spixels, ==, 3);
  nb_detector_model_clear (&m);

  g_assert_cmpint (nb_detector_read_nxmx (longer, &m, &err), ==, NB_ERR_PARSE);
  g_test_message ("%s", err.message);
  g_assert_nonnull (strstr (err.message, "more than 64 links"));
  g_assert_cmpint (nb_detector_read_nxmx (cycle, &m, &err), ==, NB_ERR_PARSE);
  g_test_message ("%s", err.message);
  g_assert_nonnull (strstr (err.message, "/entry/instrument/detector/transformations/t0: a "
                                         "depends_on cycle"));
  g_assert_cmpint (m.n_panels, ==, 0);
}

#ifdef NB_HAVE_JANSSON
/* The CSPAD of the DIALS fixture written as NXmx with a made-up image and
 * read back: the same panels (stacked along slow in the data array). */
static void
test_nxmx_round_trip (void)
{
  g_autofree char *expt = g_test_build_filename (G_TEST_DIST, "data", "detectors",
                                                 "dials-cspad-single-image.expt", NULL);
  g_autofree char *nxs = g_build_filename (tmpdir, "cspad.nxs", NULL);
  nb_detector_model w, r;
  nb_error err = { 0 };
  int32_t *pixels;
  long long n;

  g_assert_cmpint (nb_detector_read_expt (expt, &w, &err), ==, NB_OK);
  n = nb_detector_model_pixels (&w);
  g_assert_cmpint (n, ==, 64 * 194 * 185);
  pixels = g_new0 (int32_t, n);
  g_assert_cmpint (nb_write_nexus_detector (nxs, &w, pixels, &err), ==, NB_OK);
  g_assert_cmpint (nb_detector_read_nxmx (nxs, &r, &err), ==, NB_OK);
  g_assert_cmpint (r.n_panels, ==, 64);
  g_assert_cmpint (r.kind, ==, NB_DETECTOR_FILE_NXMX);
  g_assert_cmpint (r.data_fpixels, ==, 194);
  g_assert_cmpint (r.data_spixels, ==, 64 * 185);
  g_assert_cmpfloat_with_epsilon (r.wavelength, w.wavelength, 1e-22);
  for (int p = 0; p < 64; p++)
    {
      g_assert_cmpstr (r.panels[p].name, ==, w.panels[p].name);
      g_assert_cmpint (r.panels[p].data_origin_s, ==, 185 * p);
      g_assert_cmpint (r.panels[p].data_origin_f, ==, 0);
      for (int k = 0; k < 3; k++)
        {
          g_assert_cmpfloat_with_epsilon (r.panels[p].pix0[k], w.panels[p].pix0[k], 1e-15);
          g_assert_cmpfloat_with_epsilon (r.panels[p].fdet[k], w.panels[p].fdet[k], 1e-15);
          g_assert_cmpfloat_with_epsilon (r.panels[p].sdet[k], w.panels[p].sdet[k], 1e-15);
        }
    }
  /* a measured frame of that file carries its modules */
  {
    nb_frame frame;

    g_assert_cmpint (nb_frame_read (nxs, 0, 0, &frame, &err), ==, NB_OK);
    g_assert_cmpint (frame.n_modules, ==, 64);
    g_assert_cmpint (frame.fpixels, ==, 194);
    g_assert_cmpint (frame.spixels, ==, 64 * 185);
    g_assert_nonnull (frame.modules);
    g_assert_cmpint (frame.modules->n_panels, ==, 64);
    g_assert_cmpint (frame.modules->panels[63].data_origin_s, ==, 63 * 185);
    g_assert_cmpfloat_with_epsilon (frame.modules->panels[5].pix0[1], w.panels[5].pix0[1], 1e-15);
    nb_frame_clear (&frame);
  }
  /* -frame on it makes its modules the detector (-detector FILE), takes its
   * wavelength and leaves the one-panel geometry alone; -detector given wins */
  {
    const char *argv[] = { "nanobragg", "-frame", nxs, "-distance", "123", NULL };
    nb_params p;

    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 3, argv, &err), ==, NB_OK);
    g_assert_cmpstr (p.detector_file, ==, nxs);
    g_assert_cmpfloat_with_epsilon (p.lambda0, w.wavelength, 1e-22);
    g_assert_cmpint (p.fpixels, !=, 194);
    nb_params_clear (&p);
    argv[3] = "-detector";
    argv[4] = expt;
    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 5, argv, &err), ==, NB_OK);
    g_assert_cmpstr (p.detector_file, ==, expt);
    nb_params_clear (&p);
  }
  g_free (pixels);
  nb_detector_model_clear (&w);
  nb_detector_model_clear (&r);
}
#endif
#endif

/* A 20 x 20 SMV frame of zeros at @distance mm, 1 A. */
static char *
write_flat_frame (const char *name, const char *distance)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autofree char *file = g_malloc0 (512 + 800);
  g_autofree char *header = g_strdup_printf (
      "{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\nTYPE=unsigned_short;\n"
      "SIZE1=20;\nSIZE2=20;\nPIXEL_SIZE=0.1;\nDISTANCE=%s;\nWAVELENGTH=1.5;\n}\f",
      distance);

  memset (file, ' ', 512);
  memcpy (file, header, strlen (header));
  g_assert_true (g_file_set_contents (path, file, 512 + 800, NULL));
  return path;
}

/* A flat frame with a -detector geometry whose panels cut its array: the
 * frame's beam is taken and its one-panel geometry is not, and a header one
 * flat panel cannot stand for (its distance puts the corner at 86 deg) is
 * refused without the geometry and taken with it. */
static void
test_flat_frame_with_detector (void)
{
  g_autofree char *geom = g_build_filename (tmpdir, "cut.geom", NULL);
  g_autofree char *flat = write_flat_frame ("flat.img", "100");
  g_autofree char *close = write_flat_frame ("close.img", "0.1");
  nb_error err = { 0 };
  nb_params p;

  g_assert_true (g_file_set_contents (
      geom,
      "res = 10000\nclen = 0.1 m\n"
      "a/min_fs = 0\na/max_fs = 9\na/min_ss = 0\na/max_ss = 19\na/fs = x\na/ss = y\n"
      "a/corner_x = -12\na/corner_y = -10\n"
      "b/min_fs = 10\nb/max_fs = 19\nb/min_ss = 0\nb/max_ss = 19\nb/fs = x\nb/ss = y\n"
      "b/corner_x = 2\nb/corner_y = -10\n",
      -1, NULL));
  for (int i = 0; i < 2; i++)
    {
      const char *frame = i == 0 ? flat : close;
      const char *with[] = { "nanobragg", "-frame", frame, "-detector", geom, NULL };

      nb_params_init (&p);
      g_assert_cmpint (nb_params_parse_argv (&p, 5, with, &err), ==, NB_OK);
      g_assert_cmpstr (p.detector_file, ==, geom);
      g_assert_cmpfloat_with_epsilon (p.lambda0, 1.5e-10, 1e-22);
      g_assert_cmpint (p.fpixels, !=, 20);
      nb_params_clear (&p);
    }
  {
    const char *flat_alone[] = { "nanobragg", "-frame", flat, NULL };
    const char *close_alone[] = { "nanobragg", "-frame", close, NULL };

    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 3, flat_alone, &err), ==, NB_OK);
    g_assert_cmpint (p.fpixels, ==, 20);
    g_assert_cmpfloat_with_epsilon (p.distance, 0.1, 1e-12);
    nb_params_clear (&p);
    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 3, close_alone, &err), ==, NB_ERR_UNSUPPORTED);
    g_test_message ("%s", err.message);
    nb_params_clear (&p);
  }
}

#ifdef NB_HAVE_HDF5
/* An NXmx whose pixel_mask is compact storage of fewer bytes than its
 * dimensions (tests/data/detectors/damaged-compact-mask.py): read as it
 * claims, libhdf5 copies past the stored bytes (15 masked pixels from
 * nowhere, or a heap over-read); refused in one line naming the dataset. */
static void
test_nxmx_short_compact (void)
{
  g_autofree char *path =
      g_test_build_filename (G_TEST_DIST, "data", "detectors", "damaged-compact-mask.nxs", NULL);
  nb_detector_model m;
  nb_error err = { 0 };

  g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_ERR_PARSE);
  g_test_message ("%s", err.message);
  g_assert_nonnull (strstr (err.message, "damaged-compact-mask.nxs"));
  g_assert_nonnull (strstr (err.message, "pixel_mask"));
  g_assert_nonnull (strstr (err.message, "compact storage"));
  g_assert_null (strchr (err.message, '\n'));
  g_assert_cmpint (m.n_panels, ==, 0);
}
#endif

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("nb-detector-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  g_test_add_func ("/detector/frame/flat-with-detector", test_flat_frame_with_detector);
#ifdef NB_HAVE_JANSSON
  g_test_add_func ("/detector/expt/hierarchy", test_expt_hierarchy);
  g_test_add_func ("/detector/expt/bad", test_expt_bad);
  g_test_add_func ("/detector/expt/not-a-file", test_expt_not_a_file);
#endif
#ifdef NB_HAVE_HDF5
  g_test_add_func ("/detector/nxmx/chains", test_nxmx_chains);
  g_test_add_func ("/detector/nxmx/short-compact", test_nxmx_short_compact);
#ifdef NB_HAVE_JANSSON
  g_test_add_func ("/detector/nxmx/round-trip", test_nxmx_round_trip);
#endif
#endif
  rc = g_test_run ();
  nb_test_remove_tree (tmpdir);
  g_free (tmpdir);
  return rc;
}
