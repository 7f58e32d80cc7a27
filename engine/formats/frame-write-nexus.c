/* frame-write-nexus.c: NXmx frames and master files through libhdf5 (see
 * nb-frame-write.h).
 *
 * Coordinates: NeXus (McStas) puts z along the beam, y up and x = y cross z;
 * the engine's lab frame has the beam along any vector it is given.  The
 * vectors written here are the engine's expressed in the frame whose z is the
 * beam and whose x is the polarization E-vector's part across the beam (a
 * synchrotron's horizontal): a rigid rotation of every vector together, so
 * the geometry a reader builds is the simulated one.
 *
 * Detector: one module.  /entry/instrument/detector/transformations/origin
 * translates to pix0, the outer corner of the first pixel (the origin dxtbx
 * reads: its pixel coordinates run from that corner); module_offset is zero;
 * fast_pixel_direction and slow_pixel_direction step one pixel along fdet and
 * sdet.  Goniometer: /entry/sample/transformations/omega about the spindle.
 *
 * No time stamps (HDF5's object times are off, no start_time): the same
 * frame gives the same bytes on every run.
 */
#include "nb-fingerprint.h"
#include "formats/nb-frame-axes.h"
#include "nb-frame-write.h"
#include "nb-io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#define RTD (180.0 * M_1_PI)

/* The attribute of /entry that holds a frame file's fingerprint. */
#define FINGERPRINT_ATTR "braggscope_fingerprint"

/* The objects of one file being written; every helper returns < 0 on failure
 * and the caller gives up at the end. */
typedef struct
{
  hid_t file;
  hid_t gcpl; /* groups without time stamps */
  hid_t dcpl; /* datasets without time stamps */
  int failed;
} nx_file;

static void
nx_check (nx_file *nx, herr_t status)
{
  if (status < 0)
    nx->failed = 1;
}

static hid_t
nx_string_type (const char *value)
{
  hid_t t = H5Tcopy (H5T_C_S1);

  H5Tset_size (t, strlen (value) > 0 ? strlen (value) : 1);
  H5Tset_strpad (t, H5T_STR_NULLPAD);
  H5Tset_cset (t, H5T_CSET_UTF8);
  return t;
}

static void
nx_attr_string (nx_file *nx, hid_t obj, const char *name, const char *value)
{
  hid_t t = nx_string_type (value), s = H5Screate (H5S_SCALAR);
  hid_t a = H5Acreate2 (obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);

  nx_check (nx, a < 0 ? -1 : H5Awrite (a, t, value));
  if (a >= 0)
    H5Aclose (a);
  H5Sclose (s);
  H5Tclose (t);
}

static void
nx_attr_vector (nx_file *nx, hid_t obj, const char *name, const double v[3])
{
  hsize_t dims[1] = { 3 };
  hid_t s = H5Screate_simple (1, dims, NULL);
  hid_t a = H5Acreate2 (obj, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);

  nx_check (nx, a < 0 ? -1 : H5Awrite (a, H5T_NATIVE_DOUBLE, v));
  if (a >= 0)
    H5Aclose (a);
  H5Sclose (s);
}

static hid_t
nx_group (nx_file *nx, hid_t parent, const char *name, const char *nx_class)
{
  hid_t g = H5Gcreate2 (parent, name, H5P_DEFAULT, nx->gcpl, H5P_DEFAULT);

  if (g < 0)
    {
      nx->failed = 1;
      return g;
    }
  nx_attr_string (nx, g, "NX_class", nx_class);
  return g;
}

static void
nx_close_group (hid_t g)
{
  if (g >= 0)
    H5Gclose (g);
}

static void
nx_string (nx_file *nx, hid_t parent, const char *name, const char *value)
{
  hid_t t = nx_string_type (value), s = H5Screate (H5S_SCALAR);
  hid_t d = H5Dcreate2 (parent, name, t, s, H5P_DEFAULT, nx->dcpl, H5P_DEFAULT);

  nx_check (nx, d < 0 ? -1 : H5Dwrite (d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, value));
  if (d >= 0)
    H5Dclose (d);
  H5Sclose (s);
  H5Tclose (t);
}

/* A 1-D double dataset of @n values (a scalar when @n is 0) with "units";
 * returned open for more attributes, or < 0. */
static hid_t
nx_numbers (nx_file *nx, hid_t parent, const char *name, const double *v, int n, const char *units)
{
  hsize_t dims[1] = { (hsize_t) n };
  hid_t s = n > 0 ? H5Screate_simple (1, dims, NULL) : H5Screate (H5S_SCALAR);
  hid_t d = H5Dcreate2 (parent, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, nx->dcpl, H5P_DEFAULT);

  H5Sclose (s);
  if (d < 0)
    {
      nx->failed = 1;
      return d;
    }
  nx_check (nx, H5Dwrite (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
  if (units != NULL)
    nx_attr_string (nx, d, "units", units);
  return d;
}

static void
nx_number (nx_file *nx, hid_t parent, const char *name, double v, const char *units)
{
  hid_t d = nx_numbers (nx, parent, name, &v, 0, units);

  if (d >= 0)
    H5Dclose (d);
}

static void
nx_ints (nx_file *nx, hid_t parent, const char *name, const long long *v, int n)
{
  hsize_t dims[1] = { (hsize_t) n };
  hid_t s = n > 0 ? H5Screate_simple (1, dims, NULL) : H5Screate (H5S_SCALAR);
  hid_t d = H5Dcreate2 (parent, name, H5T_STD_I64LE, s, H5P_DEFAULT, nx->dcpl, H5P_DEFAULT);

  nx_check (nx, d < 0 ? -1 : H5Dwrite (d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
  if (d >= 0)
    H5Dclose (d);
  H5Sclose (s);
}

/* An NXtransformations axis: @n values (0: scalar) about or along @vector. */
static void
nx_axis (nx_file *nx,
         hid_t parent,
         const char *name,
         const double *values,
         int n,
         const char *units,
         const char *type,
         const double vector[3],
         const char *depends_on)
{
  static const double zero[3] = { 0.0, 0.0, 0.0 };
  hid_t d = nx_numbers (nx, parent, name, values, n, units);

  if (d < 0)
    return;
  nx_attr_string (nx, d, "transformation_type", type);
  nx_attr_vector (nx, d, "vector", vector);
  nx_attr_vector (nx, d, "offset", zero);
  nx_attr_string (nx, d, "depends_on", depends_on);
  H5Dclose (d);
}

/* @v of the engine's lab frame in the NeXus frame described at the top. */
static void
to_nexus (const nb_frame_geometry *g, const double v[3], double out[3])
{
  nb_axes_to_beam_frame (g, v, out);
}

/* The length of @v, which becomes its unit vector (+z when it has none). */
static double
nx_unit (double v[3])
{
  double len = sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);

  if (len > 0)
    for (int k = 0; k < 3; k++)
      v[k] /= len;
  else
    v[0] = v[1] = 0.0, v[2] = 1.0;
  return len;
}

/* The fields of NXdetector_module @module, named @name in the detector group:
 * its place in the data array (@origin, @size: slow, fast), its offset of
 * @offset m along unit @offset_dir from the detector's origin, and its pixels
 * of @pixel m along @fdir and @sdir (NeXus frame). */
static void
nx_module_fields (nx_file *nx,
                  hid_t module,
                  const char *name,
                  const long long origin[2],
                  const long long size[2],
                  const double *offset,
                  const double offset_dir[3],
                  const double *pixel,
                  const double fdir[3],
                  const double sdir[3])
{
  char path[2 * NB_PANEL_NAME_MAX + 64];

  nx_ints (nx, module, "data_origin", origin, 2);
  nx_ints (nx, module, "data_size", size, 2);
  nx_axis (nx, module, "module_offset", offset, 0, "m", "translation", offset_dir,
           "/entry/instrument/detector/transformations/origin");
  snprintf (path, sizeof path, "/entry/instrument/detector/%s/module_offset", name);
  nx_axis (nx, module, "fast_pixel_direction", pixel, 0, "m", "translation", fdir, path);
  nx_axis (nx, module, "slow_pixel_direction", pixel, 0, "m", "translation", sdir, path);
}

/* /entry/instrument and /entry/sample for @g, omega at @omega (@n values,
 * rad). */
static void
nx_geometry (nx_file *nx, hid_t entry, const nb_frame_geometry *g, const double *omega, int n)
{
  hid_t instrument = nx_group (nx, entry, "instrument", "NXinstrument");
  hid_t beam = nx_group (nx, instrument, "beam", "NXbeam");
  hid_t detector = nx_group (nx, instrument, "detector", "NXdetector");
  hid_t dt = nx_group (nx, detector, "transformations", "NXtransformations");
  hid_t module = nx_group (nx, detector, "module", "NXdetector_module");
  hid_t sample = nx_group (nx, entry, "sample", "NXsample");
  hid_t st = nx_group (nx, sample, "transformations", "NXtransformations");
  static const double z[3] = { 0.0, 0.0, 1.0 };
  double v[3], f[3], sd[3], len, pixel = g->pixel_size, zero = 0.0;
  double *deg = malloc ((size_t) (n > 0 ? n : 1) * sizeof *deg);
  long long origin[2] = { 0, 0 }, size[2] = { g->spixels, g->fpixels };
  long long cutoff = g->count_cutoff;

  nx_string (nx, instrument, "name", "Braggscope nanobragg-series (simulated)");
  nx_number (nx, beam, "incident_wavelength", g->wavelength * 1e10, "angstrom");
  if (g->flux > 0)
    nx_number (nx, beam, "total_flux", g->flux, "Hz");
  {
    /* Stokes parameters of the beam frame (x: the E-vector's part across the
     * beam): nanoBragg's Kahn factor is the degree of linear polarization */
    double stokes[4] = { 1.0, g->polarization, 0.0, 0.0 };
    hid_t d = nx_numbers (nx, beam, "incident_polarisation_stokes", stokes, 4, NULL);

    if (d >= 0)
      H5Dclose (d);
  }

  nx_string (nx, detector, "description",
             g->sensor_thickness > 0
                 ? "Braggscope simulated pixel-array detector"
                 : "Braggscope simulated pixel-array detector; no sensor simulated (every photon "
                   "counted at the surface): sensor_thickness 1 nm stands for none");
  nx_string (nx, detector, "depends_on", "/entry/instrument/detector/transformations/origin");
  /* NXmx requires a sensor, and dxtbx 3.12 needs a thickness > 0 (its
   * parallax correction asserts it): without one (-detector_thick 0, every
   * photon counted at the surface) the file says so and gives the thinnest
   * sensor whose parallax is nothing (below 1e-5 pixel) */
  nx_string (nx, detector, "sensor_material", "Silicon");
  if (g->sensor_thickness > 0)
    nx_number (nx, detector, "sensor_thickness", g->sensor_thickness, "m");
  else
    {
      nx_number (nx, detector, "sensor_thickness", NB_NO_SENSOR_THICKNESS, "m");
    }
  nx_number (nx, detector, "x_pixel_size", g->pixel_size, "m");
  nx_number (nx, detector, "y_pixel_size", g->pixel_size, "m");
  nx_number (nx, detector, "beam_center_x", g->close_f, "pixel");
  nx_number (nx, detector, "beam_center_y", g->close_s, "pixel");
  nx_number (nx, detector, "distance", g->distance, "m");
  nx_number (nx, detector, "count_time", g->exposure, "s");
  /* one frame per exposure, no dead time: DIALS takes the exposure from here */
  nx_number (nx, detector, "frame_time", g->exposure, "s");
  nx_ints (nx, detector, "saturation_value", &cutoff, 0);

  /* one module: the detector's origin is pix0, the module's offset nothing */
  to_nexus (g, g->pix0, v);
  len = nx_unit (v);
  nx_axis (nx, dt, "origin", &len, 0, "m", "translation", v, ".");
  to_nexus (g, g->fdet, f);
  to_nexus (g, g->sdet, sd);
  nx_module_fields (nx, module, "module", origin, size, &zero, z, &pixel, f, sd);

  nx_string (nx, sample, "name", "simulated crystal");
  nx_string (nx, sample, "depends_on", "/entry/sample/transformations/omega");
  if (deg == NULL)
    nx->failed = 1;
  else
    {
      for (int i = 0; i < (n > 0 ? n : 1); i++)
        deg[i] = omega[i] * RTD;
      to_nexus (g, g->spindle, v);
      nx_axis (nx, st, "omega", deg, n, "deg", "rotation", v, ".");
      for (int i = 0; i < (n > 0 ? n : 1); i++)
        deg[i] = (omega[i] + g->angle_increment) * RTD;
      /* where each frame's rotation ends, as Dectris files give it */
      {
        hid_t d = nx_numbers (nx, st, "omega_end", deg, n, "deg");

        if (d >= 0)
          H5Dclose (d);
      }
      nx_number (nx, st, "omega_increment_set", g->angle_increment * RTD, "deg");
    }
  free (deg);
  nx_close_group (st);
  nx_close_group (sample);
  nx_close_group (module);
  nx_close_group (dt);
  nx_close_group (detector);
  nx_close_group (beam);
  nx_close_group (instrument);
}

/* A file in memory (the core driver, no backing store). */
static int
nx_open (nx_file *nx, const char *name)
{
  hid_t fapl = H5Pcreate (H5P_FILE_ACCESS);

  memset (nx, 0, sizeof *nx);
  nx->file = nx->gcpl = nx->dcpl = -1;
  if (fapl < 0 || H5Pset_fapl_core (fapl, 1 << 20, 0) < 0)
    {
      if (fapl >= 0)
        H5Pclose (fapl);
      return -1;
    }
  nx->file = H5Fcreate (name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose (fapl);
  nx->gcpl = H5Pcreate (H5P_GROUP_CREATE);
  nx->dcpl = H5Pcreate (H5P_DATASET_CREATE);
  if (nx->file < 0 || nx->gcpl < 0 || nx->dcpl < 0 || H5Pset_obj_track_times (nx->gcpl, 0) < 0 ||
      H5Pset_obj_track_times (nx->dcpl, 0) < 0)
    return -1;
  return 0;
}

/* Closes @nx; when nothing failed, writes its bytes to @path. */
static nb_status
nx_finish (nx_file *nx, const char *path, const nb_sha256 *fingerprint, nb_status st, nb_error *err)
{
  void *image = NULL;
  ssize_t size = -1;

  if (st == NB_OK && !nx->failed && nx->file >= 0 && H5Fflush (nx->file, H5F_SCOPE_GLOBAL) >= 0)
    size = H5Fget_file_image (nx->file, NULL, 0);
  if (size > 0 && (image = malloc ((size_t) size)) != NULL &&
      H5Fget_file_image (nx->file, image, (size_t) size) != size)
    size = -1;
  if (nx->dcpl >= 0)
    H5Pclose (nx->dcpl);
  if (nx->gcpl >= 0)
    H5Pclose (nx->gcpl);
  if (nx->file >= 0)
    H5Fclose (nx->file);
  if (st != NB_OK)
    ;
  else if (size > 0 && image == NULL)
    st = nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for the HDF5 file", path);
  else if (size <= 0)
    st = nb_error_set (err, NB_ERR_IO, "%s: libhdf5 failed to build the file", path);
  /* the attribute's value is stored as it is in the (uncompressed) object
   * header: its zeros are replaced in the file's bytes */
  else if (fingerprint != NULL &&
           (st = nb_fingerprint_seal (fingerprint, image, (size_t) size, "", path, err)) != NB_OK)
    ;
  else
    {
      const void *chunks[1] = { image };
      size_t sizes[1] = { (size_t) size };

      st = nb_write_file_atomic (path, chunks, sizes, 1, err);
    }
  free (image);
  return st;
}

static nb_status
write_frame (const char *path,
             const nb_frame_geometry *g,
             const int32_t *pixels,
             const char *const *keys,
             const char *const *values,
             int n_attrs,
             const nb_sha256 *fingerprint,
             nb_error *err)
{
  static const char zeros[NB_FINGERPRINT_DIGITS + 1] =
      "0000000000000000000000000000000000000000000000000000000000000000";
  nx_file nx;
  hid_t entry, data, space = -1, dcpl = -1, dset = -1;
  hsize_t dims[3] = { 1, (hsize_t) g->spixels, (hsize_t) g->fpixels };

  if (nx_open (&nx, path) < 0)
    return nx_finish (&nx, path, NULL,
                      nb_error_set (err, NB_ERR_IO, "%s: libhdf5 failed to start", path), err);
  entry = nx_group (&nx, nx.file, "entry", "NXentry");
  nx_attr_string (&nx, entry, "default", "data");
  for (int i = 0; i < n_attrs; i++)
    nx_attr_string (&nx, entry, keys[i], values[i]);
  /* zeros until the file's bytes are known (nx_finish) */
  if (fingerprint != NULL)
    nx_attr_string (&nx, entry, FINGERPRINT_ATTR, zeros);
  nx_string (&nx, entry, "definition", "NXmx");
  nx_geometry (&nx, entry, g, &g->start_angle, 1);
  data = nx_group (&nx, entry, "data", "NXdata");
  nx_attr_string (&nx, data, "signal", "data");

  space = H5Screate_simple (3, dims, NULL);
  dcpl = H5Pcopy (nx.dcpl);
  if (space < 0 || dcpl < 0 || H5Pset_chunk (dcpl, 3, dims) < 0 || H5Pset_shuffle (dcpl) < 0 ||
      H5Pset_deflate (dcpl, 1) < 0 || H5Pset_fletcher32 (dcpl) < 0)
    nx.failed = 1;
  else if ((dset = H5Dcreate2 (data, "data", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT)) < 0 ||
           H5Dwrite (dset, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, pixels) < 0)
    nx.failed = 1;
  if (dset >= 0)
    H5Dclose (dset);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (space >= 0)
    H5Sclose (space);
  nx_close_group (data);
  nx_close_group (entry);
  return nx_finish (&nx, path, fingerprint, NB_OK, err);
}

nb_status
nb_write_nexus_frame (const char *path,
                      const nb_frame_geometry *g,
                      const int32_t *pixels,
                      const char *const *keys,
                      const char *const *values,
                      int n_attrs,
                      const nb_sha256 *fingerprint,
                      nb_error *err)
{
  nb_status st = NB_OK;

  /* libhdf5 prints its error stack unless told not to; the engine never prints */
  H5E_BEGIN_TRY
  {
    st = write_frame (path, g, pixels, keys, values, n_attrs, fingerprint, err);
  }
  H5E_END_TRY;
  return st;
}

/* The /entry attribute @key as text (malloc'd), or NULL. */
static char *
read_entry_attribute (hid_t file, const char *key)
{
  hid_t a = H5Aopen_by_name (file, "/entry", key, H5P_DEFAULT, H5P_DEFAULT);
  hid_t t = a >= 0 ? H5Aget_type (a) : -1;
  size_t len = t >= 0 ? H5Tget_size (t) : 0;
  /* a fixed-length string of no more than a fingerprint */
  char *text = len > 0 && len <= NB_FINGERPRINT_DIGITS ? calloc (1, len + 1) : NULL;

  if (t < 0 || H5Tget_class (t) != H5T_STRING || H5Tis_variable_str (t) > 0 || text == NULL ||
      H5Aread (a, t, text) < 0)
    {
      free (text);
      text = NULL;
    }
  if (t >= 0)
    H5Tclose (t);
  if (a >= 0)
    H5Aclose (a);
  return text;
}

/* The fingerprint of the file's bytes: its value (the attribute), found once
 * in @bytes, must be the fingerprint of the rest. */
static nb_status
check_fingerprint (hid_t file,
                   const nb_sha256 *fingerprint,
                   const char *name,
                   const void *bytes,
                   size_t size,
                   nb_error *err)
{
  char *value = read_entry_attribute (file, FINGERPRINT_ATTR);
  long long at = -1;

  if (value != NULL && strlen (value) == NB_FINGERPRINT_DIGITS)
    at = nb_fingerprint_find (bytes, size, value, NB_FINGERPRINT_DIGITS);
  free (value);
  if (at < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: no fingerprint (/entry@%s)", name,
                         FINGERPRINT_ATTR);
  return nb_fingerprint_check (fingerprint, bytes, size, (size_t) at, name, err);
}

/* @bytes as an HDF5 file, read-only, or < 0. */
static hid_t
open_image (const void *bytes, size_t size)
{
  hid_t fapl = H5Pcreate (H5P_FILE_ACCESS), file = -1;

  /* the core driver holds a copy of the image, no backing store */
  if (fapl >= 0 && H5Pset_fapl_core (fapl, 1 << 20, 0) >= 0 &&
      H5Pset_file_image (fapl, (void *) bytes, size) >= 0)
    file = H5Fopen ("frame image", H5F_ACC_RDONLY, fapl);
  if (fapl >= 0)
    H5Pclose (fapl);
  return file;
}

static nb_status
verify_frame (const char *name,
              const void *bytes,
              size_t size,
              int fpixels,
              int spixels,
              const nb_sha256 *fingerprint,
              nb_error *err)
{
  hid_t file = size > 0 ? open_image (bytes, size) : -1;
  hid_t dset = -1, space = -1;
  hsize_t dims[3] = { 0, 0, 0 };
  int32_t *pixels = NULL;
  nb_status st = NB_OK;

  if (file < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: not an HDF5 file libhdf5 can open", name);
  if (fingerprint != NULL)
    st = check_fingerprint (file, fingerprint, name, bytes, size, err);
  if (st == NB_OK)
    {
      dset = H5Dopen2 (file, "/entry/data/data", H5P_DEFAULT);
      space = dset >= 0 ? H5Dget_space (dset) : -1;
      if (space < 0 || H5Sget_simple_extent_ndims (space) != 3 ||
          H5Sget_simple_extent_dims (space, dims, NULL) < 0 || dims[0] != 1 ||
          dims[1] != (hsize_t) spixels || dims[2] != (hsize_t) fpixels)
        st = nb_error_set (err, NB_ERR_PARSE, "%s: /entry/data/data is not 1 x %d x %d", name,
                           spixels, fpixels);
      else if ((pixels = malloc ((size_t) fpixels * (size_t) spixels * sizeof *pixels)) == NULL)
        st = nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", name);
      else if (H5Dread (dset, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, pixels) < 0)
        st = nb_error_set (err, NB_ERR_PARSE,
                           "%s: /entry/data/data does not read back (a checksum or the "
                           "compressed data is wrong)",
                           name);
    }
  free (pixels);
  if (space >= 0)
    H5Sclose (space);
  if (dset >= 0)
    H5Dclose (dset);
  H5Fclose (file);
  return st;
}

nb_status
nb_nexus_verify_frame (const char *name,
                       const void *bytes,
                       size_t size,
                       int fpixels,
                       int spixels,
                       const nb_sha256 *fingerprint,
                       nb_error *err)
{
  nb_status st = NB_OK;

  H5E_BEGIN_TRY
  {
    st = verify_frame (name, bytes, size, fpixels, spixels, fingerprint, err);
  }
  H5E_END_TRY;
  return st;
}

static nb_status
write_master (const char *path,
              const nb_frame_geometry *g,
              int n_frames,
              const double *omega,
              const char *const *frame_files,
              nb_error *err)
{
  nx_file nx;
  hid_t entry, data, vspace = -1, sspace = -1, dcpl = -1, dset = -1;
  hsize_t vdims[3] = { (hsize_t) n_frames, (hsize_t) g->spixels, (hsize_t) g->fpixels };
  hsize_t sdims[3] = { 1, (hsize_t) g->spixels, (hsize_t) g->fpixels };

  if (nx_open (&nx, path) < 0)
    return nx_finish (&nx, path, NULL,
                      nb_error_set (err, NB_ERR_IO, "%s: libhdf5 failed to start", path), err);
  entry = nx_group (&nx, nx.file, "entry", "NXentry");
  nx_attr_string (&nx, entry, "default", "data");
  nx_string (&nx, entry, "definition", "NXmx");
  nx_geometry (&nx, entry, g, omega, n_frames);
  data = nx_group (&nx, entry, "data", "NXdata");
  nx_attr_string (&nx, data, "signal", "data");
  for (int i = 0; i < n_frames && !nx.failed; i++)
    {
      char name[32];

      snprintf (name, sizeof name, "data_%06d", i + 1);
      nx_check (&nx, H5Lcreate_external (frame_files[i], "/entry/data/data", data, name,
                                         H5P_DEFAULT, H5P_DEFAULT));
    }

  vspace = H5Screate_simple (3, vdims, NULL);
  sspace = H5Screate_simple (3, sdims, NULL);
  dcpl = H5Pcopy (nx.dcpl);
  if (vspace < 0 || sspace < 0 || dcpl < 0)
    nx.failed = 1;
  for (int i = 0; i < n_frames && !nx.failed; i++)
    {
      hsize_t start[3] = { (hsize_t) i, 0, 0 };

      if (H5Sselect_hyperslab (vspace, H5S_SELECT_SET, start, NULL, sdims, NULL) < 0 ||
          H5Pset_virtual (dcpl, vspace, frame_files[i], "/entry/data/data", sspace) < 0)
        nx.failed = 1;
    }
  if (!nx.failed && vspace >= 0)
    {
      H5Sselect_all (vspace);
      dset = H5Dcreate2 (data, "data", H5T_STD_I32LE, vspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (dset < 0)
        nx.failed = 1;
      else
        H5Dclose (dset);
    }
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (sspace >= 0)
    H5Sclose (sspace);
  if (vspace >= 0)
    H5Sclose (vspace);
  nx_close_group (data);
  nx_close_group (entry);
  return nx_finish (&nx, path, NULL, NB_OK, err);
}

nb_status
nb_write_nexus_master (const char *path,
                       const nb_frame_geometry *g,
                       int n_frames,
                       const double *omega,
                       const char *const *frame_files,
                       nb_error *err)
{
  nb_status st = NB_OK;

  if (n_frames < 1)
    return nb_error_set (err, NB_ERR_INVALID, "%s: a master file needs at least one frame", path);
  H5E_BEGIN_TRY
  {
    st = write_master (path, g, n_frames, omega, frame_files, err);
  }
  H5E_END_TRY;
  return st;
}

/* ---- a multi-panel detector: one NXdetector_module per panel ---- */

/* The rotation @r that takes @model's beam to the lab's +x, so that the
 * McStas +z written is the beam (identity when it already is). */
static void
beam_rotation (const nb_detector_model *model, double r[3][3])
{
  const double *a = model->beam;
  double n = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  double u[3] = { a[0] / n, a[1] / n, a[2] / n };
  /* v = u x (1, 0, 0), c = u . (1, 0, 0): Rodrigues' rotation by v */
  double v[3] = { 0.0, u[2], -u[1] }, c = u[0];
  double k[3][3] = { { 0, -v[2], v[1] }, { v[2], 0, -v[0] }, { -v[1], v[0], 0 } };

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[i][j] = i == j ? 1.0 : 0.0;
  if (c < -1.0 + 1e-12)
    {
      /* against the axis: half a turn about z */
      r[0][0] = r[1][1] = -1.0;
      return;
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        double kk = 0.0;

        for (int m = 0; m < 3; m++)
          kk += k[i][m] * k[m][j];
        r[i][j] += k[i][j] + kk / (1.0 + c);
      }
}

/* Lab vector @v turned by @r, in McStas: nanoBragg = (z_m, y_m, -x_m). */
static void
to_mcstas (const double r[3][3], const double v[3], double out[3])
{
  double t[3];

  for (int i = 0; i < 3; i++)
    t[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
  out[0] = -t[2];
  out[1] = t[1];
  out[2] = t[0];
}

/* The panels' places in the data array: the model's own (data_origin_f/s in
 * data_fpixels x data_spixels) when every panel has one, inside and without
 * overlap; else stacked along slow.  @origin holds 2 per panel (f, s). */
static void
detector_layout (const nb_detector_model *m, int *origin, long long *width, long long *height)
{
  int own = m->data_fpixels > 0 && m->data_spixels > 0;

  for (int p = 0; p < m->n_panels && own; p++)
    {
      const nb_panel *a = &m->panels[p];

      own = a->data_origin_f >= 0 && a->data_origin_s >= 0 &&
            (long long) a->data_origin_f + a->fpixels <= m->data_fpixels &&
            (long long) a->data_origin_s + a->spixels <= m->data_spixels;
      for (int q = 0; q < p && own; q++)
        {
          const nb_panel *b = &m->panels[q];

          own = a->data_origin_f >= b->data_origin_f + b->fpixels ||
                b->data_origin_f >= a->data_origin_f + a->fpixels ||
                a->data_origin_s >= b->data_origin_s + b->spixels ||
                b->data_origin_s >= a->data_origin_s + a->spixels;
        }
    }
  *width = *height = 0;
  for (int p = 0; p < m->n_panels; p++)
    {
      origin[2 * p] = own ? m->panels[p].data_origin_f : 0;
      origin[2 * p + 1] = own ? m->panels[p].data_origin_s : (int) *height;
      if (!own)
        {
          *height += m->panels[p].spixels;
          if (m->panels[p].fpixels > *width)
            *width = m->panels[p].fpixels;
        }
    }
  if (own)
    {
      *width = m->data_fpixels;
      *height = m->data_spixels;
    }
}

/* A panel's name as an HDF5 link name when it is one (printable ASCII, no
 * '/', not a field of the detector group, not taken by an earlier panel, not
 * module_...), else "module_%04d". */
static void
module_name (const nb_detector_model *m, int p, char *out, size_t size)
{
  /* the names of the detector group's own fields */
  static const char *const taken[] = {
    ".",           "..",         "transformations", "pixel_mask",
    "description", "depends_on", "sensor_material", "sensor_thickness"
  };
  const char *name = m->panels[p].name;
  int plain = name[0] != '\0' && strncmp (name, "module_", 7) != 0;

  for (size_t k = 0; k < sizeof taken / sizeof taken[0] && plain; k++)
    plain = strcmp (name, taken[k]) != 0;

  for (const char *c = name; *c != '\0' && plain; c++)
    plain = *c > ' ' && *c < 0x7f && *c != '/';
  for (int q = 0; q < p && plain; q++)
    plain = strcmp (m->panels[q].name, name) != 0;
  if (plain)
    snprintf (out, size, "%s", name);
  else
    snprintf (out, size, "module_%04d", p);
}

/* The NXdetector_module of panel @p at @origin (f, s) in the data array. */
static void
nx_module (nx_file *nx,
           hid_t detector,
           const nb_detector_model *m,
           const double r[3][3],
           int p,
           const int *origin)
{
  const nb_panel *a = &m->panels[p];
  char name[NB_PANEL_NAME_MAX + 16];
  long long data_origin[2] = { origin[1], origin[0] }, size[2] = { a->spixels, a->fpixels };
  double v[3], f[3], sd[3], len;
  hid_t module;

  module_name (m, p, name, sizeof name);
  module = nx_group (nx, detector, name, "NXdetector_module");
  if (module < 0)
    return;
  /* many modules: each offset by its own pix0 from the detector's origin */
  to_mcstas (r, a->pix0, v);
  len = nx_unit (v);
  to_mcstas (r, a->fdet, f);
  to_mcstas (r, a->sdet, sd);
  nx_module_fields (nx, module, name, data_origin, size, &len, v, &a->pixel_size, f, sd);
  nx_close_group (module);
}

/* A 2-D (@rank 2) or 1 x H x W (@rank 3) dataset @name of 4-byte @type from
 * @values, deflated in chunks of rows. */
#define NX_CHUNK_BYTES ((hsize_t) 4 << 20)
static void
nx_array (nx_file *nx,
          hid_t parent,
          const char *name,
          int rank,
          const hsize_t *dims,
          hid_t file_type,
          hid_t mem_type,
          const void *values)
{
  hid_t space = H5Screate_simple (rank, dims, NULL), dcpl = H5Pcopy (nx->dcpl), d = -1;
  hsize_t chunk[3] = { dims[0], dims[1], rank == 3 ? dims[2] : 0 };
  hsize_t row = dims[rank - 1] * 4, rows = row < NX_CHUNK_BYTES ? NX_CHUNK_BYTES / row : 1;

  /* chunks of whole rows, about NX_CHUNK_BYTES each: a reader decodes no more
   * than it must */
  if (chunk[rank - 2] > rows)
    chunk[rank - 2] = rows;
  if (space < 0 || dcpl < 0 || H5Pset_chunk (dcpl, rank, chunk) < 0 || H5Pset_shuffle (dcpl) < 0 ||
      H5Pset_deflate (dcpl, 1) < 0 ||
      (d = H5Dcreate2 (parent, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0 ||
      H5Dwrite (d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    nx->failed = 1;
  if (d >= 0)
    H5Dclose (d);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (space >= 0)
    H5Sclose (space);
}

/* The image and mask laid out at @origin in @width x @height; the array's
 * pixels of no panel are gaps. */
static void
layout_pixels (const nb_detector_model *m,
               const int32_t *pixels,
               const int *origin,
               long long width,
               int32_t *data,
               int32_t *mask)
{
  size_t k = 0;

  for (int p = 0; p < m->n_panels; p++)
    {
      const nb_panel *a = &m->panels[p];

      for (int s = 0; s < a->spixels; s++)
        for (int f = 0; f < a->fpixels; f++, k++)
          {
            size_t at =
                (size_t) (origin[2 * p + 1] + s) * (size_t) width + (size_t) (origin[2 * p] + f);

            data[at] = pixels[k];
            mask[at] = a->mask != NULL && a->mask[(size_t) s * a->fpixels + f] ? 1 : 0;
          }
    }
}

/* The checks of nb_write_nexus_detector(): NB_OK or NB_ERR_INVALID. */
static nb_status
detector_writable (const char *path, const nb_detector_model *m, nb_error *err)
{
  if (m->n_panels < 1)
    return nb_error_set (err, NB_ERR_INVALID, "%s: a detector of no panels", path);
  if (!(m->wavelength > 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "%s: the detector model has no wavelength", path);
  for (int p = 1; p < m->n_panels; p++)
    if (m->panels[p].thick != m->panels[0].thick ||
        strcmp (m->panels[p].material, m->panels[0].material) != 0)
      return nb_error_set (err, NB_ERR_INVALID,
                           "%s: panels %s and %s have different sensors; NXmx holds one "
                           "sensor_material and sensor_thickness",
                           path, m->panels[0].name, m->panels[p].name);
  for (int p = 0; p < m->n_panels; p++)
    if (!(m->panels[p].pixel_size > 0.0) || m->panels[p].fpixels < 1 || m->panels[p].spixels < 1)
      return nb_error_set (err, NB_ERR_INVALID, "%s: panel %s has no pixels", path,
                           m->panels[p].name);
  return NB_OK;
}

static nb_status
write_detector (const char *path, const nb_detector_model *m, const int32_t *pixels, nb_error *err)
{
  nx_file nx;
  hid_t entry, instrument, beam, detector, dt, sample, data;
  int *origin = malloc ((size_t) m->n_panels * 2 * sizeof *origin);
  long long width, height;
  int32_t *array = NULL, *mask = NULL;
  double r[3][3], v[3] = { 0.0, 0.0, 1.0 }, zero = 0.0;
  const char *material = m->panels[0].material;

  if (origin == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", path);
  detector_layout (m, origin, &width, &height);
  if (width * height > ((long long) 1 << 28) ||
      (array = calloc ((size_t) (width * height), sizeof *array)) == NULL ||
      (mask = malloc ((size_t) (width * height) * sizeof *mask)) == NULL)
    {
      free (origin);
      free (array);
      return nb_error_set (err,
                           width * height > ((long long) 1 << 28) ? NB_ERR_INVALID : NB_ERR_NOMEM,
                           "%s: no room for a %lld x %lld data array", path, width, height);
    }
  for (long long k = 0; k < width * height; k++)
    mask[k] = 1;
  layout_pixels (m, pixels, origin, width, array, mask);
  beam_rotation (m, r);

  if (nx_open (&nx, path) < 0)
    {
      free (origin);
      free (array);
      free (mask);
      return nx_finish (&nx, path, NULL,
                        nb_error_set (err, NB_ERR_IO, "%s: libhdf5 failed to start", path), err);
    }
  entry = nx_group (&nx, nx.file, "entry", "NXentry");
  nx_attr_string (&nx, entry, "default", "data");
  nx_string (&nx, entry, "definition", "NXmx");
  instrument = nx_group (&nx, entry, "instrument", "NXinstrument");
  nx_string (&nx, instrument, "name", "Braggscope (simulated)");
  beam = nx_group (&nx, instrument, "beam", "NXbeam");
  nx_number (&nx, beam, "incident_wavelength", m->wavelength * 1e10, "angstrom");
  detector = nx_group (&nx, instrument, "detector", "NXdetector");
  nx_string (&nx, detector, "description", "Braggscope simulated multi-panel detector");
  nx_string (&nx, detector, "depends_on", "/entry/instrument/detector/transformations/origin");
  /* NXmx requires a sensor, dxtbx a known material and a thickness > 0 */
  nx_string (&nx, detector, "sensor_material",
             strcmp (material, "CdTe") == 0 || strcmp (material, "GaAs") == 0 ? material
                                                                              : "Silicon");
  nx_number (&nx, detector, "sensor_thickness",
             m->panels[0].thick > 0 ? m->panels[0].thick : NB_NO_SENSOR_THICKNESS, "m");
  dt = nx_group (&nx, detector, "transformations", "NXtransformations");
  nx_axis (&nx, dt, "origin", &zero, 0, "m", "translation", v, ".");
  nx_close_group (dt);
  for (int p = 0; p < m->n_panels; p++)
    nx_module (&nx, detector, m, r, p, origin + 2 * p);
  {
    hsize_t dims[2] = { (hsize_t) height, (hsize_t) width };

    nx_array (&nx, detector, "pixel_mask", 2, dims, H5T_STD_I32LE, H5T_NATIVE_INT32, mask);
  }
  sample = nx_group (&nx, entry, "sample", "NXsample");
  nx_string (&nx, sample, "name", "simulated crystal");
  data = nx_group (&nx, entry, "data", "NXdata");
  nx_attr_string (&nx, data, "signal", "data");
  {
    hsize_t dims[3] = { 1, (hsize_t) height, (hsize_t) width };

    nx_array (&nx, data, "data", 3, dims, H5T_STD_I32LE, H5T_NATIVE_INT32, array);
  }
  nx_close_group (data);
  nx_close_group (sample);
  nx_close_group (detector);
  nx_close_group (beam);
  nx_close_group (instrument);
  nx_close_group (entry);
  free (origin);
  free (array);
  free (mask);
  return nx_finish (&nx, path, NULL, NB_OK, err);
}

nb_status
nb_write_nexus_detector (const char *path,
                         const nb_detector_model *model,
                         const int32_t *pixels,
                         nb_error *err)
{
  nb_status st = detector_writable (path, model, err);

  if (st != NB_OK)
    return st;
  H5E_BEGIN_TRY
  {
    st = write_detector (path, model, pixels, err);
  }
  H5E_END_TRY;
  return st;
}
