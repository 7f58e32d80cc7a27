/* frame-nexus.c: NeXus/HDF5 (NXmx) frames through libhdf5.
 *
 * The frames are /entry/data/data ([frames, slow, fast] or [slow, fast]) or,
 * as the Eiger file writer makes them, /entry/data/data_000001,
 * data_000002... in order, each usually an external link to a data file
 * beside the master (resolved from the master's folder).  Frame @index counts
 * across them.  Every filter of the dataset must be available to this
 * libhdf5: Eiger data use bitshuffle/LZ4 (filter 32008), a plugin that
 * Debian's libhdf5 does not ship (package hdf5-filter-plugin, found through
 * HDF5_PLUGIN_PATH); without it the frame is refused as of unknown
 * compression, naming the filter.
 *
 * Geometry, each dataset with its "units" attribute honoured:
 *   /entry/instrument/beam/incident_wavelength
 *   /entry/instrument/detector/detector_distance, x_pixel_size, y_pixel_size,
 *     beam_center_x, beam_center_y (pixels along fast and slow from pixel
 *     (0, 0)'s corner, as the Eiger file writer records them), count_time,
 *     sensor_thickness, saturation_value, pixel_mask (nonzero = masked; also
 *     under detectorSpecific/)
 *   the scan axis: /entry/sample/goniometer/<axis> or
 *     /entry/sample/transformations/<axis> for omega, phi, chi, kappa: the
 *     first whose angle changes during the scan (<axis>_range_average,
 *     <axis>_increment_set, or successive values), its value at @index
 * libhdf5's automatic error printing is switched off for the calls (on this
 * thread), and its innermost message ends ours.
 */
#include "nb-frame-private.h"
#include "nb-detector-read.h"
#include "nb-nexus.h"
#include "base/nb-input.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define RTD (180.0 / M_PI)

#include <hdf5.h>

typedef struct
{
  const char *path;
  hid_t file;
  hid_t dapl; /* dataset (and link) access: external links and virtual datasets resolved
                from the master's folder */
  char entry[64];
  nb_frame *frame;
  nb_error *err;
  const char *dir;                    /* the master's folder, with its '/' */
  char refused[NB_ERROR_MESSAGE_MAX]; /* why a link's file was refused, or "" */
} nx_ctx;

/* Whether @candidate, a name libhdf5 may open, is absent or a regular file;
 * else says so in c->refused. */
static int
nx_candidate_ok (nx_ctx *c, const char *candidate)
{
  struct stat st;

  if (stat (candidate, &st) != 0 || S_ISREG (st.st_mode))
    return 1;
  snprintf (c->refused, sizeof c->refused, "%.200s: links to %.200s: %s, not a regular file",
            c->path, candidate, nb_input_kind (st.st_mode));
  return 0;
}

/* Whether the file @name that an external link or a virtual dataset of
 * @parent names may be opened: libhdf5 opens it itself, blocking, trying it
 * as given, beside the master (the prefix we set), beside @parent and in
 * HDF5_EXT_PREFIX's folders, the absolute names also without their folders;
 * none of those may be a FIFO, a terminal or a device. */
static int
nx_target_ok (nx_ctx *c, const char *parent, const char *name)
{
  const char *slash = strrchr (name, '/');
  const char *names[2] = { name, slash != NULL ? slash + 1 : NULL };
  const char *env = getenv ("HDF5_EXT_PREFIX");
  char candidate[4096];
  int parent_dir = parent != NULL && strrchr (parent, '/') != NULL
                       ? (int) (strrchr (parent, '/') - parent) + 1
                       : 0;

  if (!nx_candidate_ok (c, name))
    return 0;
  for (int k = 0; k < 2 && names[k] != NULL; k++)
    {
      snprintf (candidate, sizeof candidate, "%s%s", c->dir, names[k]);
      if (!nx_candidate_ok (c, candidate))
        return 0;
      snprintf (candidate, sizeof candidate, "%.*s%s", parent_dir, parent, names[k]);
      if (parent_dir > 0 && !nx_candidate_ok (c, candidate))
        return 0;
      for (const char *e = env; e != NULL && *e != '\0'; e += strcspn (e, ":"), e += *e == ':')
        {
          snprintf (candidate, sizeof candidate, "%.*s/%s", (int) strcspn (e, ":"), e, names[k]);
          if (!nx_candidate_ok (c, candidate))
            return 0;
        }
    }
  return 1;
}

/* libhdf5's call before it follows an external link (H5Pset_elink_cb). */
static herr_t
nx_elink_check (const char *parent_file,
                const char *parent_group,
                const char *child_file,
                const char *child_object,
                unsigned *acc_flags,
                hid_t fapl,
                void *data)
{
  (void) parent_group;
  (void) child_object;
  (void) acc_flags;
  (void) fapl;
  return nx_target_ok (data, parent_file, child_file) ? 0 : -1;
}

/* Opens dataset @name through the links the master's folder resolves,
 * refusing a virtual dataset one of whose source files is not a regular file
 * (libhdf5 opens them when it reads). */
static hid_t
nx_dopen (nx_ctx *c, const char *name)
{
  hid_t d = H5Dopen2 (c->file, name, c->dapl), dcpl;
  size_t count = 0;

  if (d < 0 || (dcpl = H5Dget_create_plist (d)) < 0)
    return d;
  if (H5Pget_layout (dcpl) == H5D_VIRTUAL && H5Pget_virtual_count (dcpl, &count) >= 0)
    for (size_t i = 0; i < count; i++)
      {
        char file[4096];
        ssize_t n = H5Pget_virtual_filename (dcpl, i, file, sizeof file);

        if (n < 0 || (size_t) n >= sizeof file ||
            (strcmp (file, ".") != 0 && !nx_target_ok (c, c->path, file)))
          {
            if (c->refused[0] == '\0')
              snprintf (c->refused, sizeof c->refused,
                        "%s: %s: a virtual dataset's source file "
                        "name is too long",
                        c->path, name);
            H5Pclose (dcpl);
            H5Dclose (d);
            return -1;
          }
      }
  H5Pclose (dcpl);
  return d;
}

/* The innermost message of libhdf5's error stack, for the end of ours. */
static herr_t
walk_error (unsigned n, const H5E_error2_t *e, void *data)
{
  char *out = data;

  if (n == 0 && e->desc != NULL)
    nb_frame_quote (e->desc, strlen (e->desc), out, 160);
  return 0;
}

static const char *
h5_message (char *buf)
{
  buf[0] = '\0';
  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, walk_error, buf);
  return buf[0] != '\0' ? buf : "no details";
}

/* Whether every link of "/"-separated @name exists (H5Lexists on each
 * prefix, as HDF5 asks). */
static int
nx_exists (const nx_ctx *c, const char *name)
{
  char prefix[256];
  size_t n = strlen (name);

  if (n >= sizeof prefix)
    return 0;
  for (size_t i = 1; i <= n; i++)
    if (name[i] == '/' || name[i] == '\0')
      {
        memcpy (prefix, name, i);
        prefix[i] = '\0';
        if (H5Lexists (c->file, prefix, c->dapl) <= 0)
          return 0;
      }
  return 1;
}

/* The scalar string of type @type in attribute (@attribute non-zero) or
 * dataset @obj, fixed or variable length, made printable into @out; 0 when
 * it cannot be read (nb-nexus.h). */
int
nx_read_string (hid_t obj, hid_t type, int attribute, char *out, size_t size)
{
  hid_t mem;
  int ok = 0;

  if ((!attribute && nx_storage_problem (obj) != NULL) || (mem = H5Tcopy (H5T_C_S1)) < 0)
    return 0;
  /* libhdf5 converts no string between character sets (ASCII, UTF-8) */
  H5Tset_cset (mem, H5Tget_cset (type));
  if (H5Tis_variable_str (type) > 0)
    {
      char *s = NULL;

      H5Tset_size (mem, H5T_VARIABLE);
      if ((attribute ? H5Aread (obj, mem, &s)
                     : H5Dread (obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s)) >= 0 &&
          s != NULL)
        {
          nb_frame_quote (s, strlen (s), out, size);
          ok = 1;
        }
      if (s != NULL)
        H5free_memory (s);
    }
  else
    {
      size_t len = H5Tget_size (type);
      char *s = len > 0 && len < 4096 ? calloc (1, len + 1) : NULL;

      /* room for the NUL: a null-padded string may fill its size */
      H5Tset_size (mem, len + 1);
      if (s != NULL && (attribute ? H5Aread (obj, mem, s)
                                  : H5Dread (obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, s)) >= 0)
        {
          nb_frame_quote (s, len, out, size);
          ok = 1;
        }
      free (s);
    }
  H5Tclose (mem);
  return ok;
}

/* A string attribute (fixed or variable length) into @out; 0 when absent
 * (nb-nexus.h). */
int
nx_string_attr (hid_t obj, const char *attr, char *out, size_t size)
{
  hid_t a, type;
  int ok = 0;

  out[0] = '\0';
  if (H5Aexists (obj, attr) <= 0 || (a = H5Aopen (obj, attr, H5P_DEFAULT)) < 0)
    return 0;
  type = H5Aget_type (a);
  if (type >= 0 && H5Tget_class (type) == H5T_STRING)
    {
      hid_t space = H5Aget_space (a);

      if (space >= 0 && H5Sget_simple_extent_npoints (space) == 1)
        ok = nx_read_string (a, type, 1, out, size);
      if (space >= 0)
        H5Sclose (space);
    }
  if (type >= 0)
    H5Tclose (type);
  H5Aclose (a);
  return ok;
}

/* Element @index (clamped to the last) of numeric dataset @d, a scalar or
 * one-dimensional, as a finite double into @v, and its units attribute into
 * @units; 0 when it is not that (nb-nexus.h). */
int
nx_dataset_number (hid_t d, hsize_t index, double *v, char *units, size_t usize)
{
  hid_t type = H5Dget_type (d), space = H5Dget_space (d);
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints (space) : -1;
  int ok = 0;

  units[0] = '\0';
  if (type >= 0 && (H5Tget_class (type) == H5T_FLOAT || H5Tget_class (type) == H5T_INTEGER) &&
      H5Tget_size (type) <= 16 && n >= 1 && H5Sget_simple_extent_ndims (space) <= 1 &&
      nx_storage_problem (d) == NULL)
    {
      hsize_t at = index < (hsize_t) n ? index : (hsize_t) n - 1, one = 1;
      hid_t mem = H5Screate_simple (1, &one, NULL);

      if (H5Sget_simple_extent_ndims (space) == 1)
        H5Sselect_elements (space, H5S_SELECT_SET, 1, &at);
      ok = mem >= 0 && H5Dread (d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, v) >= 0 &&
           isfinite (*v);
      if (mem >= 0)
        H5Sclose (mem);
    }
  nx_string_attr (d, "units", units, usize);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  return ok;
}

/* A chunk may be this large whatever it holds, and otherwise at most this
 * many times the frame (a dataset's last two dimensions): reading decodes
 * whole chunks, and a 64 x 64 frame stored in one 16384 x 16384 chunk would
 * cost 1 GB (issue 23). */
#define NX_CHUNK_FREE_BYTES ((hsize_t) 64 << 20)
#define NX_CHUNK_FRAMES     16

/* What is wrong with the storage of dataset @d, or NULL.  A compact dataset
 * keeps its data in its header, and libhdf5 1.10 copies the dataspace's worth
 * out of a shorter buffer without checking (found by fuzzing); contiguous
 * data are checked by the library.  A chunked one must not make us decode
 * chunks far larger than what we read of them (NX_CHUNK_FRAMES). */
const char *
nx_storage_problem (hid_t d)
{
  hid_t dcpl = H5Dget_create_plist (d), space = H5Dget_space (d), type = H5Dget_type (d);
  int rank = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  size_t size = type >= 0 ? H5Tget_size (type) : 0;
  const char *problem = NULL;

  if (dcpl < 0 || rank < 0 || rank > 8 || size == 0)
    problem = "unreadable storage";
  else if (H5Pget_layout (dcpl) == H5D_COMPACT)
    {
      hssize_t n = H5Sget_simple_extent_npoints (space);

      if (!(n >= 0 && (hsize_t) n <= H5Dget_storage_size (d) / size))
        problem = "its compact storage is smaller than its dimensions";
    }
  else if (H5Pget_layout (dcpl) == H5D_CHUNKED)
    {
      hsize_t dims[8], cdims[8], chunk = size, frame = size;

      if (H5Sget_simple_extent_dims (space, dims, NULL) != rank ||
          H5Pget_chunk (dcpl, rank, cdims) != rank)
        problem = "unreadable chunk dimensions";
      for (int i = 0; problem == NULL && i < rank; i++)
        {
          /* saturating: a damaged file may claim any dimensions */
          chunk =
              cdims[i] != 0 && chunk > (hsize_t) -1 / cdims[i] ? (hsize_t) -1 : chunk * cdims[i];
          if (i >= rank - 2)
            frame = dims[i] != 0 && frame > (hsize_t) -1 / dims[i] ? (hsize_t) -1 : frame * dims[i];
        }
      if (problem == NULL && chunk > NX_CHUNK_FREE_BYTES &&
          chunk / NX_CHUNK_FRAMES > (frame > 0 ? frame : 1))
        problem = "its chunks are more than 16 times the size of its frames and more than 64 MB "
                  "(decoding one would cost more than the data read)";
    }
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  return problem;
}

static int
nx_storage_ok (hid_t d)
{
  return nx_storage_problem (d) == NULL;
}

/* Whether every stored chunk of unfiltered, chunked dataset @d that holds
 * frame @at (of a rank-3 stack, or the rank-2 frame) has its chunk's size
 * and lies inside the file after its start: libhdf5 1.10 copies a whole
 * chunk out of a shorter stored one without checking (found by fuzzing).  Filtered chunks are sized by their filter.
 * Unallocated chunks read as the fill value. */
static int
nx_chunks_ok (hid_t d, hid_t dcpl, const hsize_t *dims, int rank, hsize_t at)
{
  hsize_t cdims[3], bytes, off[3] = { 0 }, fsize = 0;
  hid_t type;
  size_t size;

  if (H5Pget_layout (dcpl) != H5D_CHUNKED || H5Pget_nfilters (dcpl) != 0)
    return 1;
  if (H5Pget_chunk (dcpl, rank, cdims) != rank || (type = H5Dget_type (d)) < 0)
    return 0;
  size = H5Tget_size (type);
  H5Tclose (type);
  {
    hid_t file = H5Iget_file_id (d);
    herr_t got = file >= 0 ? H5Fget_filesize (file, &fsize) : -1;

    if (file >= 0)
      H5Fclose (file);
    if (got < 0)
      return 0;
  }
  bytes = size;
  for (int i = 0; i < rank; i++)
    {
      if (cdims[i] == 0)
        return 0;
      bytes *= cdims[i];
    }
  /* every entry of a small index, which a damaged file can fill with
   * duplicates the read finds instead of the chunk asked for */
  {
    hid_t space = H5Dget_space (d);
    hsize_t n = 0;

    if (space < 0 || H5Dget_num_chunks (d, space, &n) < 0)
      n = 0, bytes = 0;
    for (hsize_t k = 0; k < n && k < 4096 && bytes != 0; k++)
      {
        hsize_t o[3] = { 0 }, stored = 0;
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;

        if (H5Dget_chunk_info (d, space, k, o, &mask, &addr, &stored) < 0 || stored != bytes ||
            addr == HADDR_UNDEF || addr == 0 || addr > fsize - stored)
          bytes = 0;
        for (int i = 0; i < rank && bytes != 0; i++)
          if (o[i] % cdims[i] != 0 || o[i] >= dims[i])
            bytes = 0;
      }
    if (space >= 0)
      H5Sclose (space);
    if (bytes == 0)
      return 0;
  }
  if (rank == 3)
    off[0] = at / cdims[0] * cdims[0];
  for (off[rank - 2] = 0; off[rank - 2] < dims[rank - 2]; off[rank - 2] += cdims[rank - 2])
    for (off[rank - 1] = 0; off[rank - 1] < dims[rank - 1]; off[rank - 1] += cdims[rank - 1])
      {
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t stored = 0;

        if (H5Dget_chunk_info_by_coord (d, off, &mask, &addr, &stored) < 0)
          return 0;
        if (addr != HADDR_UNDEF && (stored != bytes || addr == 0 || addr > fsize - stored))
          return 0;
      }
  return 1;
}

/* Whether dataset @d (@rank dimensions @dims) holds integers of 1 to 8
 * bytes in storage the library reads safely (nx_storage_ok, nx_chunks_ok
 * for its first frame). */
static int
nx_integers_ok (hid_t d, const hsize_t *dims, int rank)
{
  hid_t type = H5Dget_type (d), dcpl;
  int ok = type >= 0 && H5Tget_class (type) == H5T_INTEGER && H5Tget_size (type) >= 1 &&
           H5Tget_size (type) <= 8;

  if (type >= 0)
    H5Tclose (type);
  if (!ok || !nx_storage_ok (d) || (dcpl = H5Dget_create_plist (d)) < 0)
    return 0;
  ok = nx_chunks_ok (d, dcpl, dims, rank, 0);
  H5Pclose (dcpl);
  return ok;
}

/* Element @index (clamped to the last) of a numeric dataset @name as a double,
 * with its units attribute; 0 when absent, -1 (and an error) when it is not
 * numeric, of a type wider than 16 bytes, in storage libhdf5 would over-read
 * (nx_storage_problem) or cannot be read. */
static int
nx_number (nx_ctx *c, const char *name, hsize_t index, double *v, char *units, size_t usize)
{
  hid_t d;
  int ok;

  units[0] = '\0';
  if (!nx_exists (c, name) || (d = nx_dopen (c, name)) < 0)
    return 0;
  ok = nx_dataset_number (d, index, v, units, usize) ? 1 : -1;
  H5Dclose (d);
  return ok;
}

/* Metres, radians, seconds per @units for @kind (0 length, 1 angle, 2 time,
 * 3 wavelength); 0 when unknown.  No units: the NXmx default for the kind
 * (nb-nexus.h). */
double
nx_scale (const char *units, int kind)
{
  static const struct
  {
    int kind;
    const char *name;
    double scale;
  } table[] = {
    { 0, "m", 1.0 },
    { 0, "mm", 1e-3 },
    { 0, "um", 1e-6 },
    { 0, "micron", 1e-6 },
    { 0, "microns", 1e-6 },
    { 0, "cm", 1e-2 },
    { 1, "deg", 1.0 / RTD },
    { 1, "degree", 1.0 / RTD },
    { 1, "degrees", 1.0 / RTD },
    { 1, "rad", 1.0 },
    { 1, "radian", 1.0 },
    { 1, "radians", 1.0 },
    { 2, "s", 1.0 },
    { 2, "sec", 1.0 },
    { 2, "ms", 1e-3 },
    { 3, "angstrom", 1e-10 },
    { 3, "A", 1e-10 },
    { 3, "Angstrom", 1e-10 },
    { 3, "nm", 1e-9 },
    { 3, "m", 1.0 },
  };

  if (units[0] == '\0')
    return kind == 0 ? 1.0 : kind == 1 ? 1.0 / RTD : kind == 2 ? 1.0 : 1e-10;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].kind == kind && strcasecmp (units, table[i].name) == 0)
      return table[i].scale;
  return 0.0;
}

/* A geometry item from dataset @name of @kind, into @item (when given).
 * NB_OK when absent or recorded; NB_ERR_PARSE for an unreadable value or
 * unknown units. */
static nb_status
nx_item (nx_ctx *c,
         const char *name,
         int kind,
         int positive,
         hsize_t index,
         nb_frame_item item,
         double *out,
         int *found)
{
  char units[32], shown[40];
  double v, scale;
  int r = nx_number (c, name, index, &v, units, sizeof units);

  *found = 0;
  if (r == 0)
    return NB_OK;
  if (r < 0)
    return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s is not a readable number", c->path, name);
  scale = nx_scale (units, kind);
  if (scale == 0.0)
    return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s has unknown units '%s'", c->path, name,
                         units);
  if ((positive && !(v > 0)) || (!positive && kind != 1 && v < 0))
    return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s = %g %s %s", c->path, name, v, units,
                         positive ? "(allowed: > 0)" : "(allowed: >= 0)");
  snprintf (shown, sizeof shown, "%s%s", units[0] ? " " : "", units);
  if (item != NB_FRAME_N_ITEMS)
    nb_frame_set_item (c->frame, item, v * scale, "the NeXus dataset %s (%.10g%s)", name, v, shown);
  *out = v * scale;
  *found = 1;
  return NB_OK;
}

/* H5Literate over the detector group: counts its NXdetector_module groups
 * (*@data), stopping at 10000. */
static herr_t
count_module (hid_t g, const char *name, const H5L_info_t *info, void *data)
{
  int *n = data;
  char cls[32];
  hid_t o;

  if (info->type != H5L_TYPE_HARD || (o = H5Oopen (g, name, H5P_DEFAULT)) < 0)
    return 0;
  if (H5Iget_type (o) == H5I_GROUP && nx_string_attr (o, "NX_class", cls, sizeof cls) &&
      strcmp (cls, "NXdetector_module") == 0)
    (*n)++;
  H5Oclose (o);
  return *n >= 10000;
}

/* The detector's modules into frame->n_modules (nb_frame_detector_problem()
 * refuses more than one). */
static void
nx_modules (nx_ctx *c, const char *det)
{
  hid_t g;
  int n = 0;

  if (H5Lexists (c->file, det, H5P_DEFAULT) <= 0 || (g = H5Gopen2 (c->file, det, H5P_DEFAULT)) < 0)
    return;
  H5Literate (g, H5_INDEX_NAME, H5_ITER_INC, NULL, count_module, &n);
  H5Gclose (g);
  c->frame->n_modules = n;
}

/* The scan axis: the first of omega, phi, chi and kappa (in the sample's
 * goniometer or transformations) that moves gives the start angle of frame
 * @index and the oscillation; without one that moves, the first found gives
 * the start angle. */
static nb_status
nx_scan_axis (nx_ctx *c, hsize_t index)
{
  char name[256];
  double v;
  int found;
  nb_status st;
  static const char *const axes[] = { "omega", "phi", "chi", "kappa" };
  static const char *const groups[] = { "goniometer", "transformations" };
  double first_start = NAN;
  char first_name[256] = "";

  for (size_t a = 0; a < 4; a++)
    for (size_t g = 0; g < 2; g++)
      {
        double start, next, step = NAN;
        char base[200];

        snprintf (base, sizeof base, "%s/sample/%s/%s", c->entry, groups[g], axes[a]);
        if ((st = nx_item (c, base, 1, 0, index, NB_FRAME_N_ITEMS, &start, &found)) != NB_OK)
          return st;
        if (!found)
          continue;
        if (isnan (first_start))
          {
            first_start = start;
            snprintf (first_name, sizeof first_name, "%s", base);
          }
        {
          static const char *const suffixes[] = { "_range_average", "_increment_set" };

          for (size_t k = 0; k < 2 && isnan (step); k++)
            {
              snprintf (name, sizeof name, "%s%s", base, suffixes[k]);
              if ((st = nx_item (c, name, 1, 0, 0, NB_FRAME_N_ITEMS, &v, &found)) != NB_OK)
                return st;
              if (found)
                step = v;
            }
        }
        if (isnan (step))
          {
            /* successive values: the step to the next frame, or from the previous */
            hsize_t other = index + 1;

            if ((st = nx_item (c, base, 1, 0, other, NB_FRAME_N_ITEMS, &next, &found)) != NB_OK)
              return st;
            if (next == start && index > 0)
              {
                if ((st = nx_item (c, base, 1, 0, index - 1, NB_FRAME_N_ITEMS, &next, &found)) !=
                    NB_OK)
                  return st;
                next = 2 * start - next;
              }
            step = next - start;
          }
        if (step != 0.0)
          {
            nb_frame_set_item (c->frame, NB_FRAME_PHI_START, start,
                               "the NeXus dataset %s[%llu] (%.10g deg)", base,
                               (unsigned long long) index, start * RTD);
            nb_frame_set_item (c->frame, NB_FRAME_OSCILLATION, fabs (step),
                               "the NeXus scan axis %s (%.10g deg per frame)", base, step * RTD);
            return NB_OK;
          }
      }
  if (!isnan (first_start))
    nb_frame_set_item (c->frame, NB_FRAME_PHI_START, first_start,
                       "the NeXus dataset %s[%llu] (%.10g deg; no axis moves)", first_name,
                       (unsigned long long) index, first_start * RTD);
  return NB_OK;
}

static nb_status
nx_geometry (nx_ctx *c, hsize_t index)
{
  char name[256], det[128];
  double v, px = NAN, bx, by;
  int found, fx, fy;
  nb_status st;

  snprintf (name, sizeof name, "%s/instrument/beam/incident_wavelength", c->entry);
  if ((st = nx_item (c, name, 3, 1, index, NB_FRAME_WAVELENGTH, &v, &found)) != NB_OK)
    return st;
  snprintf (det, sizeof det, "%s/instrument/detector", c->entry);
  {
    static const struct
    {
      const char *leaf;
      int kind, positive;
      nb_frame_item item;
    } items[] = {
      { "detector_distance", 0, 1, NB_FRAME_DISTANCE },
      { "x_pixel_size", 0, 1, NB_FRAME_PIXEL_SIZE },
      { "count_time", 2, 0, NB_FRAME_EXPOSURE },
      { "sensor_thickness", 0, 0, NB_FRAME_THICKNESS },
    };

    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
      {
        snprintf (name, sizeof name, "%s/%s", det, items[i].leaf);
        if ((st = nx_item (c, name, items[i].kind, items[i].positive, index, items[i].item, &v,
                           &found)) != NB_OK)
          return st;
      }
  }
  if (c->frame->item[NB_FRAME_PIXEL_SIZE].have)
    {
      double py;

      px = c->frame->item[NB_FRAME_PIXEL_SIZE].value;
      snprintf (name, sizeof name, "%s/y_pixel_size", det);
      if ((st = nx_item (c, name, 0, 1, index, NB_FRAME_N_ITEMS, &py, &found)) != NB_OK)
        return st;
      if (found && fabs (py - px) > 1e-6 * px)
        return nb_error_set (c->err, NB_ERR_PARSE,
                             "%s: pixels of %g x %g m: rectangular pixels are not supported",
                             c->path, px, py);
    }

  {
    char units_x[32], units_y[32];
    char nx_name[256], ny_name[256];
    int rx, ry;

    snprintf (nx_name, sizeof nx_name, "%s/beam_center_x", det);
    snprintf (ny_name, sizeof ny_name, "%s/beam_center_y", det);
    rx = nx_number (c, nx_name, index, &bx, units_x, sizeof units_x);
    ry = nx_number (c, ny_name, index, &by, units_y, sizeof units_y);
    fx = rx > 0;
    fy = ry > 0;
    if (rx < 0 || ry < 0)
      return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s is not a readable number", c->path,
                           rx < 0 ? nx_name : ny_name);
    if (fx && fy)
      {
        /* pixels (the Eiger writer's unit, and the default), else a length */
        int pixels_x = units_x[0] == '\0' || strncasecmp (units_x, "pixel", 5) == 0;
        int pixels_y = units_y[0] == '\0' || strncasecmp (units_y, "pixel", 5) == 0;
        double sx = pixels_x ? px : nx_scale (units_x, 0);
        double sy = pixels_y ? px : nx_scale (units_y, 0);

        if (!(sx > 0) || !(sy > 0))
          return nb_error_set (c->err, NB_ERR_PARSE,
                               "%s: %s in '%s' and %s in '%s': pixels need x_pixel_size, other "
                               "units must be lengths",
                               c->path, nx_name, units_x, ny_name, units_y);
        nb_frame_set_item (c->frame, NB_FRAME_BEAM_F, bx * sx,
                           "the NeXus datasets %s/beam_center_x,_y (%.10g, %.10g %s)", det, bx, by,
                           pixels_x ? "pixels" : units_x);
        nb_frame_set_item (c->frame, NB_FRAME_BEAM_S, by * sy, "%s",
                           c->frame->item[NB_FRAME_BEAM_F].source);
      }
  }

  /* the count cutoff */
  {
    static const char *const leaves[] = { "saturation_value",
                                          "detectorSpecific/countrate_correction_count_cutoff" };
    char units[32];

    for (size_t i = 0; i < 2; i++)
      {
        snprintf (name, sizeof name, "%s/%s", det, leaves[i]);
        if (nx_number (c, name, 0, &v, units, sizeof units) > 0 && v >= 1)
          {
            c->frame->count_cutoff = v > INT32_MAX ? 0 : (int64_t) ceil (v);
            break;
          }
      }
  }

  nx_modules (c, det);
  return nx_scan_axis (c, index);
}

/* Every filter of @dcpl must be available; NB_ERR_PARSE naming the first
 * that is not. */
static nb_status
nx_filters (nx_ctx *c, hid_t dcpl, const char *name)
{
  int n = H5Pget_nfilters (dcpl);

  for (int i = 0; i < n; i++)
    {
      unsigned flags = 0, config = 0;
      size_t nelem = 0;
      char fname[64] = "";
      H5Z_filter_t id =
          H5Pget_filter2 (dcpl, (unsigned) i, &flags, &nelem, NULL, sizeof fname, fname, &config);

      if (id < 0)
        return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: unreadable filter pipeline", c->path,
                             name);
      if (H5Zfilter_avail (id) <= 0)
        return nb_error_set (c->err, NB_ERR_PARSE,
                             "%s: %s: unknown compression: HDF5 filter %d%s%s%s is not available "
                             "to this libhdf5 (%s)",
                             c->path, name, (int) id, fname[0] ? " (" : "", fname,
                             fname[0] ? ")" : "",
                             id == 32008 ? "bitshuffle/LZ4: install hdf5-filter-plugin or set "
                                           "HDF5_PLUGIN_PATH"
                                         : "a plugin filter: set HDF5_PLUGIN_PATH");
    }
  return NB_OK;
}

/* The target of @link when it is an external link, "file:/object", else "". */
static void
nx_link_target (const nx_ctx *c, const char *link, char *out, size_t size)
{
  H5L_info_t info;

  out[0] = '\0';
  if (H5Lget_info (c->file, link, &info, c->dapl) < 0 || info.type != H5L_TYPE_EXTERNAL ||
      info.u.val_size == 0 || info.u.val_size > 4096)
    return;
  {
    char *buf = malloc (info.u.val_size);
    const char *file = NULL, *obj = NULL;
    unsigned flags = 0;

    if (buf != NULL && H5Lget_val (c->file, link, buf, info.u.val_size, c->dapl) >= 0 &&
        H5Lunpack_elink_val (buf, info.u.val_size, &flags, &file, &obj) >= 0)
      snprintf (out, size, " (external link to %s:%s)", file != NULL ? file : "?",
                obj != NULL ? obj : "?");
    free (buf);
  }
}

/* Opens the dataset of frame @index: *@d, its frame *@at in that dataset,
 * and its name for messages.  /entry/data/data holds every frame; without
 * it data_000001, data_000002... hold them in turn. */
static nb_status
nx_open_frame (nx_ctx *c, int index, hid_t *d, hsize_t *at, char *name, size_t nsize)
{
  char why[200], target[600];
  long first = 0;
  int single;

  *d = -1;
  snprintf (name, nsize, "%s/data/data", c->entry);
  single = nx_exists (c, name);
  for (int k = 1;; k++)
    {
      hid_t space;
      hsize_t dims[3];
      int rank;
      long frames;

      if (!single)
        {
          snprintf (name, nsize, "%s/data/data_%06d", c->entry, k);
          if (!nx_exists (c, name))
            break;
        }
      *d = nx_dopen (c, name);
      if (*d < 0 && c->refused[0] != '\0')
        return nb_error_set (c->err, NB_ERR_IO, "%s", c->refused);
      if (*d < 0)
        {
          /* libhdf5's message first: the next call clears its error stack */
          h5_message (why);
          nx_link_target (c, name, target, sizeof target);
          return nb_error_set (c->err, NB_ERR_PARSE, "%s: cannot open %s%s: %s", c->path, name,
                               target, why);
        }
      space = H5Dget_space (*d);
      rank = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
      if (rank < 2 || rank > 3 || H5Sget_simple_extent_dims (space, dims, NULL) < 0)
        {
          if (space >= 0)
            H5Sclose (space);
          return nb_error_set (c->err, NB_ERR_PARSE,
                               "%s: %s has %d dimensions (frames x slow x fast, or slow x fast)",
                               c->path, name, rank);
        }
      H5Sclose (space);
      frames = rank == 2 ? 1 : dims[0] < (hsize_t) INT_MAX ? (long) dims[0] : INT_MAX;
      c->frame->n_frames = (int) (first + frames > INT_MAX ? INT_MAX : first + frames);
      if (index < first + frames)
        {
          *at = (hsize_t) (index - first);
          return NB_OK;
        }
      first += frames;
      H5Dclose (*d);
      *d = -1;
      if (single)
        break;
    }
  if (first == 0)
    return nb_error_set (c->err, NB_ERR_PARSE,
                         "%s: no frames: neither %s/data/data nor %s/data/data_000001 exists",
                         c->path, c->entry, c->entry);
  return nb_error_set (c->err, NB_ERR_PARSE, "%s: frame %d asked for, the file holds %ld", c->path,
                       index, first);
}

/* A read of a chunked frame row by row (the 64-bit and unsigned 32-bit
 * pixels) would decode every chunk the row crosses once per row: libhdf5's
 * cache (1 MB by default) keeps no larger chunk.  *@d is closed and opened
 * again with a cache for the chunks of one row, counted in the budget (a
 * second open would share the first one's cache). */
static nb_status
nx_row_cache (nx_ctx *c, hid_t *d, const char *name, size_t elsize)
{
  nb_frame *f = c->frame;
  hid_t dcpl = H5Dget_create_plist (*d), dapl = -1;
  hsize_t cdims[3];
  int rank = dcpl >= 0 && H5Pget_layout (dcpl) == H5D_CHUNKED ? H5Pget_chunk (dcpl, 3, cdims) : 0;
  double chunk = (double) elsize, across, cache;
  nb_status st;

  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (rank < 2 || cdims[rank - 1] == 0)
    return NB_OK;
  for (int i = 0; i < rank; i++)
    chunk *= (double) cdims[i];
  across = ceil ((double) f->fpixels / (double) cdims[rank - 1]);
  cache = across * chunk;
  if (cache <= (double) (1 << 20))
    return NB_OK;
  if ((st = nb_frame_check_budget (f, cache, "decoded chunks of one row", c->err)) != NB_OK)
    return st;
  dapl = H5Pcopy (c->dapl);
  H5Dclose (*d);
  /* a prime number of slots well above the chunks held, as libhdf5 advises */
  if (dapl < 0 || H5Pset_chunk_cache (dapl, 10007, (size_t) cache + 1, 1.0) < 0 ||
      (*d = H5Dopen2 (c->file, name, dapl)) < 0)
    st = nb_error_set (c->err, NB_ERR_NOMEM, "%s: %s: cannot set a chunk cache", c->path, name);
  if (dapl >= 0)
    H5Pclose (dapl);
  return st;
}

static nb_status
nx_read_pixels (nx_ctx *c, hid_t *dp, hsize_t at, const char *name)
{
  hid_t d = *dp;
  nb_frame *f = c->frame;
  hid_t space = H5Dget_space (d), type = H5Dget_type (d), mem = -1;
  hsize_t dims[3], start[3] = { 0 }, count[3];
  int rank = H5Sget_simple_extent_ndims (space), is_signed;
  size_t elsize, n;
  nb_status st = NB_OK;
  const char *problem;
  char why[200];

  H5Sget_simple_extent_dims (space, dims, NULL);
  if (type < 0 || H5Tget_class (type) != H5T_INTEGER)
    {
      st = nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: pixels are not integers (counts)", c->path,
                         name);
      goto out;
    }
  elsize = H5Tget_size (type);
  is_signed = H5Tget_sign (type) == H5T_SGN_2;
  if (elsize != 1 && elsize != 2 && elsize != 4 && elsize != 8)
    {
      st = nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: %zu-byte integers", c->path, name, elsize);
      goto out;
    }
  snprintf (f->element_type, sizeof f->element_type, "%s %zu-bit",
            is_signed ? "signed" : "unsigned", elsize * 8);
  if (dims[rank - 1] > 65536 || dims[rank - 2] > 65536 || dims[rank - 1] == 0 ||
      dims[rank - 2] == 0)
    {
      st =
          nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: frames of %llu x %llu pixels", c->path, name,
                        (unsigned long long) dims[rank - 1], (unsigned long long) dims[rank - 2]);
      goto out;
    }
  f->fpixels = (int) dims[rank - 1];
  f->spixels = (int) dims[rank - 2];
  {
    hid_t dcpl = H5Dget_create_plist (d);

    st = dcpl >= 0 ? nx_filters (c, dcpl, name)
                   : nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: no creation properties: %s",
                                   c->path, name, h5_message (why));
    if (st == NB_OK && (problem = nx_storage_problem (d)) != NULL)
      st = nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: %s", c->path, name, problem);
    if (st == NB_OK && !nx_chunks_ok (d, dcpl, dims, rank, at))
      st = nb_error_set (c->err, NB_ERR_PARSE,
                         "%s: %s: a stored chunk of frame %llu is not its chunk's size", c->path,
                         name, (unsigned long long) at);
    if (dcpl >= 0)
      H5Pclose (dcpl);
    if (st != NB_OK)
      goto out;
  }
  if ((st = nb_frame_alloc_pixels (f, c->err)) != NB_OK)
    goto out;

  n = (size_t) f->fpixels * (size_t) f->spixels;
  if (rank == 3)
    {
      start[0] = at;
      count[0] = 1;
    }
  count[rank - 2] = dims[rank - 2];
  count[rank - 1] = dims[rank - 1];
  if (H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
      (mem = H5Screate_simple (2, count + rank - 2, NULL)) < 0)
    {
      st = nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: cannot select frame %llu: %s", c->path,
                         name, (unsigned long long) at, h5_message (why));
      goto out;
    }
  if (elsize == 8 || (elsize == 4 && !is_signed))
    {
      /* wider than int32: read as int64 in slices of rows, then clamp and mask */
      int64_t *row = malloc ((size_t) f->fpixels * sizeof *row);
      hsize_t rstart[3] = { 0 }, rcount[3], one_row[2] = { 1, (hsize_t) f->fpixels };
      hid_t rmem = H5Screate_simple (2, one_row, NULL);

      if (row == NULL || rmem < 0 || (st = nx_row_cache (c, dp, name, elsize)) != NB_OK)
        {
          free (row);
          if (rmem >= 0)
            H5Sclose (rmem);
          if (st == NB_OK)
            st = nb_error_set (c->err, NB_ERR_NOMEM, "out of memory reading %s", c->path);
          goto out;
        }
      memcpy (rcount, count, sizeof rcount);
      memcpy (rstart, start, sizeof rstart);
      rcount[rank - 2] = 1;
      for (int s = 0; s < f->spixels && st == NB_OK; s++)
        {
          rstart[rank - 2] = (hsize_t) s;
          if (H5Sselect_hyperslab (space, H5S_SELECT_SET, rstart, NULL, rcount, NULL) < 0 ||
              H5Dread (*dp, is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, rmem, space,
                       H5P_DEFAULT, row) < 0)
            {
              st = nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: cannot read frame %llu: %s",
                                 c->path, name, (unsigned long long) at, h5_message (why));
              break;
            }
          for (int i = 0; i < f->fpixels; i++)
            {
              size_t k = (size_t) s * (size_t) f->fpixels + (size_t) i;
              uint64_t u = (uint64_t) row[i];
              int64_t v = is_signed ? row[i] : u > INT64_MAX ? INT64_MAX : (int64_t) u;

              if (v > INT32_MAX || v < INT32_MIN)
                {
                  f->mask[k] = NB_PIXEL_MASKED;
                  v = v > 0 ? INT32_MAX : INT32_MIN;
                }
              f->counts[k] = (int32_t) v;
            }
        }
      free (row);
      H5Sclose (rmem);
      if (st != NB_OK)
        goto out;
    }
  else if (H5Dread (d, H5T_NATIVE_INT32, mem, space, H5P_DEFAULT, f->counts) < 0)
    {
      st = nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: cannot read frame %llu: %s", c->path, name,
                         (unsigned long long) at, h5_message (why));
      goto out;
    }
  (void) n;

out:
  if (mem >= 0)
    H5Sclose (mem);
  if (type >= 0)
    H5Tclose (type);
  if (space >= 0)
    H5Sclose (space);
  return st;
}

/* The detector's pixel mask, when there is one of the frame's shape. */
static nb_status
nx_pixel_mask (nx_ctx *c)
{
  static const char *const leaves[] = { "pixel_mask", "detectorSpecific/pixel_mask" };
  nb_frame *f = c->frame;

  for (size_t i = 0; i < 2; i++)
    {
      char name[256], why[200];
      hid_t d, space;
      hsize_t dims[2];
      uint32_t *m;
      size_t n = (size_t) f->fpixels * (size_t) f->spixels;

      snprintf (name, sizeof name, "%s/instrument/detector/%s", c->entry, leaves[i]);
      if (!nx_exists (c, name) || (d = nx_dopen (c, name)) < 0)
        continue;
      space = H5Dget_space (d);
      if (H5Sget_simple_extent_ndims (space) != 2 ||
          H5Sget_simple_extent_dims (space, dims, NULL) < 0 || dims[0] != (hsize_t) f->spixels ||
          dims[1] != (hsize_t) f->fpixels || !nx_integers_ok (d, dims, 2))
        {
          H5Sclose (space);
          H5Dclose (d);
          return nb_error_set (c->err, NB_ERR_PARSE,
                               "%s: %s is not a %d x %d (slow x fast) array of integers like the "
                               "frames",
                               c->path, name, f->spixels, f->fpixels);
        }
      if (nb_frame_check_budget (f, (double) n * sizeof *m, "its pixel mask", c->err) != NB_OK)
        {
          H5Sclose (space);
          H5Dclose (d);
          return NB_ERR_NOMEM;
        }
      m = malloc (n * sizeof *m);
      if (m == NULL || H5Dread (d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, m) < 0)
        {
          free (m);
          H5Sclose (space);
          H5Dclose (d);
          return m == NULL
                     ? nb_error_set (c->err, NB_ERR_NOMEM, "out of memory reading %s", c->path)
                     : nb_error_set (c->err, NB_ERR_PARSE, "%s: cannot read %s: %s", c->path, name,
                                     h5_message (why));
        }
      for (size_t k = 0; k < n; k++)
        if (m[k] != 0)
          f->mask[k] = NB_PIXEL_MASKED;
      free (m);
      H5Sclose (space);
      H5Dclose (d);
      return NB_OK;
    }
  return NB_OK;
}

/* The NXentry: /entry, else the first top-level group whose NX_class is
 * NXentry. */
static herr_t
find_entry (hid_t g, const char *name, const H5L_info_t *info, void *data)
{
  nx_ctx *c = data;
  hid_t obj;
  char cls[32];
  int found = 0;

  (void) info;
  if (strlen (name) + 2 > sizeof c->entry)
    return 0;
  obj = H5Oopen (g, name, c->dapl);
  if (obj < 0)
    return 0;
  if (H5Iget_type (obj) == H5I_GROUP && nx_string_attr (obj, "NX_class", cls, sizeof cls) &&
      strcmp (cls, "NXentry") == 0)
    {
      snprintf (c->entry, sizeof c->entry, "/%s", name);
      found = 1;
    }
  H5Oclose (obj);
  return found;
}

/* Opens c->path (a regular file: nb-input.h) and the access properties that
 * resolve and check its links.  @dir receives the master's folder (free()). */
static nb_status
nx_open_file (nx_ctx *c, char **dir)
{
  const char *slash = strrchr (c->path, '/');
  char why[200], by_fd[64];
  int fd;
  nb_status st;

  /* libhdf5 opens by name, blocking: the name is checked first, and where
   * /proc is mounted libhdf5 opens the very file checked */
  if ((st = nb_input_open (c->path, &fd, NULL, c->err)) != NB_OK)
    return st;
  snprintf (by_fd, sizeof by_fd, "/proc/self/fd/%d", fd);
  c->file = H5Fopen (access (by_fd, R_OK) == 0 ? by_fd : c->path, H5F_ACC_RDONLY, H5P_DEFAULT);
  close (fd);
  if (c->file < 0)
    return nb_error_set (c->err, NB_ERR_PARSE, "%s: not a readable HDF5 file: %s", c->path,
                         h5_message (why));
  /* external links are found beside the master, wherever the program runs */
  *dir = slash != NULL ? strndup (c->path, (size_t) (slash - c->path) + 1) : strdup ("./");
  c->dir = *dir;
  c->dapl = H5Pcreate (H5P_DATASET_ACCESS);
  if (*dir == NULL || c->dapl < 0 || H5Pset_elink_prefix (c->dapl, *dir) < 0 ||
      H5Pset_virtual_prefix (c->dapl, *dir) < 0 || H5Pset_elink_cb (c->dapl, nx_elink_check, c) < 0)
    return nb_error_set (c->err, NB_ERR_NOMEM, "out of memory reading %s", c->path);
  return NB_OK;
}

/* Several modules: their geometry in frame->modules, where it can be read
 * (a frame's pixels stay readable whatever its geometry; with one flat panel
 * nb_frame_detector_problem() says why it cannot be used). */
static void
nx_module_geometry (nx_ctx *c)
{
  nb_detector_model *model;
  nb_error ignored = { 0 };

  if (c->frame->n_modules <= 1 || (model = malloc (sizeof *model)) == NULL)
    return;
  if (nb_detector_read_nxmx (c->path, model, &ignored) == NB_OK)
    c->frame->modules = model;
  else
    free (model);
}

nb_status
nb_frame_read_nexus (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err)
{
  nx_ctx c = { path, -1, -1, "", frame, err, "", "" };
  char *dir = NULL;
  H5E_auto2_t old_func = NULL;
  void *old_data = NULL;
  hid_t d = -1;
  hsize_t at = 0;
  char name[256];
  nb_status st = NB_OK;

  frame->format = NB_FRAME_NEXUS;
  frame->frame_index = index;
  H5Eget_auto2 (H5E_DEFAULT, &old_func, &old_data);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);

  if ((st = nx_open_file (&c, &dir)) != NB_OK)
    goto out;
  if (H5Lexists (c.file, "entry", c.dapl) > 0)
    snprintf (c.entry, sizeof c.entry, "/entry");
  else
    H5Literate (c.file, H5_INDEX_NAME, H5_ITER_INC, NULL, find_entry, &c);
  if (c.entry[0] == '\0')
    {
      st = nb_error_set (err, NB_ERR_PARSE, "%s: an HDF5 file without a NeXus NXentry (/entry)",
                         path);
      goto out;
    }

  if ((st = nx_open_frame (&c, index, &d, &at, name, sizeof name)) != NB_OK)
    goto out;
  if ((st = nx_geometry (&c, (hsize_t) index)) != NB_OK)
    goto out;
  nx_module_geometry (&c);
  if (flags & NB_FRAME_HEADER_ONLY)
    {
      hid_t space = H5Dget_space (d);
      hsize_t dims[3];
      int rank = H5Sget_simple_extent_ndims (space);

      H5Sget_simple_extent_dims (space, dims, NULL);
      H5Sclose (space);
      if (dims[rank - 1] < 1 || dims[rank - 2] < 1 || dims[rank - 1] > 65536 ||
          dims[rank - 2] > 65536)
        st =
            nb_error_set (err, NB_ERR_PARSE, "%s: %s: frames of %llu x %llu pixels", path, name,
                          (unsigned long long) dims[rank - 1], (unsigned long long) dims[rank - 2]);
      frame->fpixels = (int) dims[rank - 1];
      frame->spixels = (int) dims[rank - 2];
      goto out;
    }
  if ((st = nx_read_pixels (&c, &d, at, name)) != NB_OK)
    goto out;
  if ((st = nx_pixel_mask (&c)) != NB_OK)
    goto out;
  nb_frame_classify (frame);

out:
  /* a link refused on the way is the reason, whatever failed after it */
  if (c.refused[0] != '\0')
    st = nb_error_set (err, NB_ERR_IO, "%s", c.refused);
  if (d >= 0)
    H5Dclose (d);
  if (c.dapl >= 0)
    H5Pclose (c.dapl);
  if (c.file >= 0)
    H5Fclose (c.file);
  free (dir);
  H5Eset_auto2 (H5E_DEFAULT, old_func, old_data);
  return st;
}
