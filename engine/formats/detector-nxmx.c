/* detector-nxmx.c: the detector of a NeXus NXmx file as panels
 * (nb-detector-read.h), through libhdf5; part of the CBF/NeXus module.
 *
 * Each NXdetector_module is a panel.  Its place follows dxtbx's reading of a
 * module (dxtbx.nexus.get_dxtbx_detector): the transformations reached from
 * fast_pixel_direction's depends_on, t1 -> t2 -> ... -> tn (tn depending on
 * "."), compose to A = A_tn ... A_t1, each A_t a translation by value x vector
 * or a rotation by value about vector, after its offset; the panel's pix0 is
 * A applied to the module's origin, fdet and sdet the pixel directions'
 * vectors turned by A (slow_pixel_direction through its own chain), the pixel
 * size their values.  data_origin and data_size ([slow, fast]) place the
 * module's pixels in the data array, whose pixel_mask (non-zero = masked) is
 * cut into the panels' masks.  Frame: McStas (z along the beam, y up), in
 * nanoBragg's (z_m, y_m, -x_m).
 *
 * The file is untrusted: only hard links are walked to find the groups,
 * external links are not followed, depends_on chains are at most
 * NB_DETECTOR_MAX_DEPTH links and a transformation met twice is a cycle,
 * modules are at most NB_DETECTOR_MAX_PANELS, the mask is read a row at a
 * time from chunks of bounded size.
 */
#include "nb-detector-read.h"
#include "nb-frame-private.h"
#include "nb-nexus.h"
#include "base/nb-input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#define NXR_PATH_MAX 512
/* the largest chunk of pixel_mask decoded to read a row of it */
#define NXR_CHUNK_MAX ((hsize_t) 64 << 20)

typedef struct
{
  const char *path;
  nb_error *err;
  hid_t file;
  hid_t lapl; /* link access: no external links, few soft ones */
  nb_detector_model *model;
} nxr;

static nb_status
bad (nxr *c, const char *object, const char *what)
{
  return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: %s", c->path, object, what);
}

/* Whether @name (absolute) is an object, each link on the way checked. */
static int
exists (nxr *c, const char *name)
{
  char prefix[NXR_PATH_MAX];
  size_t n = strlen (name);

  if (n >= sizeof prefix || name[0] != '/')
    return 0;
  for (size_t i = 1; i <= n; i++)
    if (name[i] == '/' || name[i] == '\0')
      {
        memcpy (prefix, name, i);
        prefix[i] = '\0';
        if (H5Lexists (c->file, prefix, c->lapl) <= 0)
          return 0;
      }
  return H5Oexists_by_name (c->file, name, c->lapl) > 0;
}

/* A scalar string dataset @name into @out; 0 when absent or not one. */
static int
string_dataset (nxr *c, const char *name, char *out, size_t size)
{
  hid_t d, type, space;
  int ok = 0;

  out[0] = '\0';
  if (!exists (c, name) || (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) < 0)
    return 0;
  type = H5Dget_type (d);
  space = H5Dget_space (d);
  if (type >= 0 && space >= 0 && H5Tget_class (type) == H5T_STRING &&
      H5Sget_simple_extent_npoints (space) == 1)
    ok = nx_read_string (d, type, 0, out, size);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Dclose (d);
  return ok;
}

/* @n finite numbers of attribute @attr of @obj; 0 when absent or not that. */
static int
numbers_attr (hid_t obj, const char *attr, double *out, int n)
{
  hid_t a, type, space;
  int ok = 0;

  if (H5Aexists (obj, attr) <= 0 || (a = H5Aopen (obj, attr, H5P_DEFAULT)) < 0)
    return 0;
  type = H5Aget_type (a);
  space = H5Aget_space (a);
  if (type >= 0 && space >= 0 &&
      (H5Tget_class (type) == H5T_FLOAT || H5Tget_class (type) == H5T_INTEGER) &&
      H5Sget_simple_extent_npoints (space) == n && H5Aread (a, H5T_NATIVE_DOUBLE, out) >= 0)
    {
      ok = 1;
      for (int i = 0; i < n; i++)
        ok = ok && isfinite (out[i]);
    }
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Aclose (a);
  return ok;
}

/* @n integers of dataset @name (1-D) into @out; 0 when absent or not that. */
static int
integers (nxr *c, const char *name, long long *out, int n)
{
  hid_t d, type, space;
  int ok = 0;

  if (!exists (c, name) || (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) < 0)
    return 0;
  type = H5Dget_type (d);
  space = H5Dget_space (d);
  ok = type >= 0 && space >= 0 && H5Tget_class (type) == H5T_INTEGER &&
       H5Sget_simple_extent_ndims (space) == 1 && H5Sget_simple_extent_npoints (space) == n &&
       nx_storage_problem (d) == NULL &&
       H5Dread (d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Dclose (d);
  return ok;
}

/* @rel resolved against the group of @from into @out (absolute, "." and
 * ".." segments removed); 0 when it does not fit. */
static int
resolve (const char *from, const char *rel, char *out, size_t size)
{
  char joined[2 * NXR_PATH_MAX];
  const char *p;
  size_t n = 0;

  if (rel[0] == '/')
    snprintf (joined, sizeof joined, "%s", rel);
  else
    {
      const char *slash = strrchr (from, '/');
      int base = slash != NULL ? (int) (slash - from) : 0;

      snprintf (joined, sizeof joined, "%.*s/%s", base, from, rel);
    }
  out[0] = '\0';
  for (p = joined; *p != '\0';)
    {
      size_t len;

      while (*p == '/')
        p++;
      len = strcspn (p, "/");
      if (len == 0 || (len == 1 && p[0] == '.'))
        ;
      else if (len == 2 && p[0] == '.' && p[1] == '.')
        {
          char *up = strrchr (out, '/');

          n = up != NULL ? (size_t) (up - out) : 0;
          out[n] = '\0';
        }
      else
        {
          if (n + 1 + len + 1 > size)
            return 0;
          out[n++] = '/';
          memcpy (out + n, p, len);
          n += len;
          out[n] = '\0';
        }
      p += len;
    }
  return n > 0;
}

static void
mat_identity (double a[4][4])
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      a[i][j] = i == j;
}

/* @a = @t @a */
static void
mat_premultiply (double a[4][4], const double t[4][4])
{
  double r[4][4];

  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      {
        r[i][j] = 0.0;
        for (int k = 0; k < 4; k++)
          r[i][j] += t[i][k] * a[k][j];
      }
  memcpy (a, r, sizeof r);
}

/* Transformation @name as a matrix @t (metres, radians), and its depends_on
 * in @next ("." at the end). */
static nb_status
transformation (nxr *c, const char *name, double t[4][4], char *next, size_t nsize)
{
  char type[32], units[32], ounits[32];
  double value, v[3], offset[3] = { 0, 0, 0 }, n, scale, oscale;
  hid_t d;
  int ok;

  if (!exists (c, name) || (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) < 0)
    return bad (c, name, "a depends_on names no dataset");
  ok = nx_dataset_number (d, 0, &value, units, sizeof units);
  nx_string_attr (d, "transformation_type", type, sizeof type);
  if (ok && !numbers_attr (d, "vector", v, 3))
    ok = -1;
  numbers_attr (d, "offset", offset, 3);
  if (!nx_string_attr (d, "offset_units", ounits, sizeof ounits))
    snprintf (ounits, sizeof ounits, "%s", strcmp (type, "translation") == 0 ? units : "m");
  if (!nx_string_attr (d, "depends_on", next, nsize))
    snprintf (next, nsize, ".");
  H5Dclose (d);
  if (ok == 0)
    return bad (c, name, "not a number");
  if (ok < 0)
    return bad (c, name, "no vector attribute of 3 numbers");
  if ((n = sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])) == 0.0)
    return bad (c, name, "a zero vector");
  for (int i = 0; i < 3; i++)
    v[i] /= n;
  oscale = nx_scale (ounits, 0);
  if (strcmp (type, "translation") == 0)
    scale = nx_scale (units, 0);
  else if (strcmp (type, "rotation") == 0)
    scale = nx_scale (units, 1);
  else
    return bad (c, name, "transformation_type is neither translation nor rotation");
  if (scale == 0.0 || oscale == 0.0)
    return bad (c, name, "unknown units");
  mat_identity (t);
  value *= scale;
  if (strcmp (type, "rotation") == 0)
    {
      /* right-handed about v (Rodrigues), as scipy's from_rotvec */
      double s = sin (value), k = 1.0 - cos (value);

      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          t[i][j] = (i == j ? 1.0 : 0.0) + k * (v[i] * v[j] - (i == j ? 1.0 : 0.0));
      t[0][1] -= s * v[2];
      t[0][2] += s * v[1];
      t[1][0] += s * v[2];
      t[1][2] -= s * v[0];
      t[2][0] -= s * v[1];
      t[2][1] += s * v[0];
    }
  else
    for (int i = 0; i < 3; i++)
      t[i][3] = value * v[i];
  for (int i = 0; i < 3; i++)
    t[i][3] += offset[i] * oscale;
  return NB_OK;
}

/* The composition A = A_tn ... A_t1 of the chain starting at @first (a
 * depends_on value read in @from). */
static nb_status
chain (nxr *c, const char *from, const char *first, double a[4][4])
{
  char seen[NB_DETECTOR_MAX_DEPTH][NXR_PATH_MAX], next[NXR_PATH_MAX];
  int n = 0;

  mat_identity (a);
  snprintf (next, sizeof next, "%s", first);
  while (strcmp (next, ".") != 0)
    {
      double t[4][4];
      nb_status st;

      if (n == NB_DETECTOR_MAX_DEPTH)
        return bad (c, from, "a depends_on chain of more than 64 links");
      if (!resolve (n > 0 ? seen[n - 1] : from, next, seen[n], sizeof seen[n]))
        return bad (c, from, "a depends_on path that is too long");
      for (int k = 0; k < n; k++)
        if (strcmp (seen[k], seen[n]) == 0)
          return bad (c, seen[n], "a depends_on cycle");
      if ((st = transformation (c, seen[n], t, next, sizeof next)) != NB_OK)
        return st;
      mat_premultiply (a, t);
      n++;
    }
  return NB_OK;
}

/* McStas to nanoBragg's frame: (z, y, -x). */
static void
to_lab (const double m[3], double out[3])
{
  out[0] = m[2];
  out[1] = m[1];
  out[2] = -m[0];
}

/* A pixel direction @name of @module: its unit vector turned by its chain
 * into @dir (lab), its step (m) into @step, its chain into @a. */
static nb_status
pixel_direction (nxr *c, const char *name, double dir[3], double *step, double a[4][4])
{
  char units[32], depends[NXR_PATH_MAX];
  double v[3], n, scale, m[3];
  hid_t d;
  int ok;
  nb_status st;

  if (!exists (c, name) || (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) < 0)
    return bad (c, name, "missing");
  ok = nx_dataset_number (d, 0, step, units, sizeof units) && numbers_attr (d, "vector", v, 3);
  if (!nx_string_attr (d, "depends_on", depends, sizeof depends))
    snprintf (depends, sizeof depends, ".");
  H5Dclose (d);
  if (!ok)
    return bad (c, name, "expected a pixel size with a vector attribute of 3 numbers");
  if ((scale = nx_scale (units, 0)) == 0.0 || !(*step * scale > 0.0))
    return bad (c, name, "not a pixel size (a positive length)");
  *step *= scale;
  if ((n = sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])) == 0.0)
    return bad (c, name, "a zero vector");
  if ((st = chain (c, name, depends, a)) != NB_OK)
    return st;
  for (int i = 0; i < 3; i++)
    m[i] = (a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2]) / n;
  to_lab (m, dir);
  return NB_OK;
}

/* The names of @group's hard-linked children of NX_class @cls. */
typedef struct
{
  const char *cls;
  char (*names)[NB_PANEL_NAME_MAX];
  int n, max, too_long;
  int first; /* stop at the first: a group may hold more than one */
} children;

static herr_t
find_child (hid_t g, const char *name, const H5L_info_t *info, void *data)
{
  children *ch = data;
  char cls[64];
  hid_t o;
  int match;

  if (info->type != H5L_TYPE_HARD || (o = H5Oopen (g, name, H5P_DEFAULT)) < 0)
    return 0;
  match = H5Iget_type (o) == H5I_GROUP && nx_string_attr (o, "NX_class", cls, sizeof cls) &&
          strcmp (cls, ch->cls) == 0;
  H5Oclose (o);
  if (!match)
    return 0;
  if (strlen (name) >= NB_PANEL_NAME_MAX)
    {
      ch->too_long = 1;
      return 1;
    }
  if (ch->n == ch->max)
    return 1; /* one more than allowed: the caller says so */
  snprintf (ch->names[ch->n++], NB_PANEL_NAME_MAX, "%s", name);
  return ch->first;
}

/* Up to @max children of @parent of class @cls into @names; the count, or
 * -1 for more than @max or a name too long.  @max 1: the first of them. */
static int
list_children (
    nxr *c, const char *parent, const char *cls, char (*names)[NB_PANEL_NAME_MAX], int max)
{
  children ch = { cls, names, 0, max, 0, max == 1 };
  hid_t g;
  herr_t r;

  if ((g = H5Gopen2 (c->file, parent, H5P_DEFAULT)) < 0)
    return 0;
  r = H5Literate (g, H5_INDEX_NAME, H5_ITER_INC, NULL, find_child, &ch);
  H5Gclose (g);
  return (r > 0 && !(ch.first && ch.n == 1)) || ch.too_long ? -1 : ch.n;
}

/* The first child of class @cls of @parent into @out (@parent/name). */
static int
first_child (nxr *c, const char *parent, const char *cls, char *out, size_t size)
{
  char name[1][NB_PANEL_NAME_MAX];

  if (list_children (c, parent, cls, name, 1) != 1)
    return 0;
  snprintf (out, size, "%s/%s", strcmp (parent, "/") == 0 ? "" : parent, name[0]);
  return 1;
}

/* Module @name of detector @det into panel @p. */
static nb_status
read_module (nxr *c, const char *det, const char *name, nb_panel *p)
{
  char g[NXR_PATH_MAX + NB_PANEL_NAME_MAX + 2], f[NXR_PATH_MAX + NB_PANEL_NAME_MAX + 34];
  long long origin[2], size[2];
  double a[4][4], b[4][4], step_s, m[3];
  nb_status st;

  snprintf (g, sizeof g, "%s/%s", det, name);
  snprintf (p->name, sizeof p->name, "%s", name);
  snprintf (f, sizeof f, "%s/data_size", g);
  if (!integers (c, f, size, 2))
    return bad (c, f, "expected 2 integers [slow, fast]");
  if (size[0] < 1 || size[1] < 1 || size[0] > NB_DETECTOR_MAX_AXIS ||
      size[1] > NB_DETECTOR_MAX_AXIS)
    return bad (c, f, "sizes from 1 to 65536 expected");
  snprintf (f, sizeof f, "%s/data_origin", g);
  if (!integers (c, f, origin, 2))
    origin[0] = origin[1] = 0;
  if (origin[0] < 0 || origin[1] < 0 || origin[0] > INT32_MAX / 2 || origin[1] > INT32_MAX / 2)
    return bad (c, f, "a negative or huge origin");
  p->spixels = (int) size[0];
  p->fpixels = (int) size[1];
  p->data_origin_s = (int) origin[0];
  p->data_origin_f = (int) origin[1];
  snprintf (f, sizeof f, "%s/fast_pixel_direction", g);
  if ((st = pixel_direction (c, f, p->fdet, &p->pixel_size, a)) != NB_OK)
    return st;
  snprintf (f, sizeof f, "%s/slow_pixel_direction", g);
  if ((st = pixel_direction (c, f, p->sdet, &step_s, b)) != NB_OK)
    return st;
  if (fabs (step_s - p->pixel_size) > 1e-9 * p->pixel_size)
    {
      char what[96];

      snprintf (what, sizeof what, "%g x %g m pixels: only square pixels are supported",
                p->pixel_size, step_s);
      return bad (c, g, what);
    }
  for (int i = 0; i < 3; i++)
    m[i] = a[i][3];
  to_lab (m, p->pix0);
  {
    double x[3] = { p->fdet[1] * p->sdet[2] - p->fdet[2] * p->sdet[1],
                    p->fdet[2] * p->sdet[0] - p->fdet[0] * p->sdet[2],
                    p->fdet[0] * p->sdet[1] - p->fdet[1] * p->sdet[0] };

    if (sqrt (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) < 1e-6)
      return bad (c, g, "fast and slow pixel directions are parallel");
  }
  return NB_OK;
}

/* The detector's pixel_mask (@dims: slow, fast) cut into the panels' masks,
 * a row at a time. */
static nb_status
read_mask (nxr *c, const char *name, hid_t d, const hsize_t *dims)
{
  hid_t space = H5Dget_space (d), dcpl = H5Dget_create_plist (d), type = H5Dget_type (d), mem = -1;
  long long *row = NULL;
  nb_status st = NB_OK;
  const char *problem = NULL;

  if (space < 0 || dcpl < 0 || type < 0 || H5Tget_class (type) != H5T_INTEGER)
    st = bad (c, name, "not an integer array");
  else if ((problem = nx_storage_problem (d)) != NULL)
    st = bad (c, name, problem);
  else if (H5Pget_layout (dcpl) == H5D_CHUNKED)
    {
      hsize_t chunk[2];

      if (H5Pget_chunk (dcpl, 2, chunk) != 2 ||
          chunk[0] * chunk[1] * H5Tget_size (type) > NXR_CHUNK_MAX)
        st = bad (c, name, "chunks of more than 64 MB");
    }
  for (int p = 0; p < c->model->n_panels && st == NB_OK; p++)
    {
      nb_panel *a = &c->model->panels[p];
      hsize_t count[2] = { 1, (hsize_t) a->fpixels };

      if ((hsize_t) a->data_origin_s + a->spixels > dims[0] ||
          (hsize_t) a->data_origin_f + a->fpixels > dims[1])
        {
          st = bad (c, name, "smaller than the modules it masks");
          break;
        }
      free (row);
      if (mem >= 0)
        H5Sclose (mem);
      row = malloc ((size_t) a->fpixels * sizeof *row);
      mem = H5Screate_simple (2, count, NULL);
      if (row == NULL || (a->mask = calloc ((size_t) a->fpixels * a->spixels, 1)) == NULL)
        st = nb_error_set (c->err, NB_ERR_NOMEM, "%s: %s: out of memory", c->path, name);
      for (int s = 0; s < a->spixels && st == NB_OK; s++)
        {
          hsize_t start[2] = { (hsize_t) a->data_origin_s + s, (hsize_t) a->data_origin_f };

          if (H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
              H5Dread (d, H5T_NATIVE_LLONG, mem, space, H5P_DEFAULT, row) < 0)
            st = bad (c, name, "cannot be read");
          for (int f = 0; f < a->fpixels && st == NB_OK; f++)
            a->mask[(size_t) s * a->fpixels + f] = row[f] != 0;
        }
    }
  free (row);
  if (mem >= 0)
    H5Sclose (mem);
  if (type >= 0)
    H5Tclose (type);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (space >= 0)
    H5Sclose (space);
  return st;
}

/* The data array's size (the pixel_mask's, else the modules' extent) and
 * the masks. */
static nb_status
read_layout (nxr *c, const char *det)
{
  char name[NXR_PATH_MAX + 16];
  hsize_t dims[2] = { 0, 0 };
  hid_t d, space, dapl;
  nb_status st = NB_OK;

  for (int p = 0; p < c->model->n_panels; p++)
    {
      const nb_panel *a = &c->model->panels[p];

      if (a->data_origin_f + a->fpixels > c->model->data_fpixels)
        c->model->data_fpixels = a->data_origin_f + a->fpixels;
      if (a->data_origin_s + a->spixels > c->model->data_spixels)
        c->model->data_spixels = a->data_origin_s + a->spixels;
    }
  snprintf (name, sizeof name, "%s/pixel_mask", det);
  if (!exists (c, name))
    return NB_OK;
  /* the mask is read a row at a time: a cache of the largest chunk allowed
   * decodes each chunk once */
  if ((dapl = H5Pcreate (H5P_DATASET_ACCESS)) < 0 ||
      H5Pset_chunk_cache (dapl, 521, (size_t) NXR_CHUNK_MAX + (1 << 20), 1.0) < 0)
    st = nb_error_set (c->err, NB_ERR_IO, "%s: libhdf5 failed to start", c->path);
  d = st == NB_OK ? H5Dopen2 (c->file, name, dapl) : -1;
  if (dapl >= 0)
    H5Pclose (dapl);
  if (d < 0)
    return st != NB_OK ? st : bad (c, name, "cannot be opened");
  space = H5Dget_space (d);
  if (space < 0 || H5Sget_simple_extent_ndims (space) != 2)
    st = bad (c, name, "not a 2-D array");
  else
    {
      H5Sget_simple_extent_dims (space, dims, NULL);
      if (dims[0] > INT32_MAX || dims[1] > INT32_MAX)
        st = bad (c, name, "too large");
      else if ((st = read_mask (c, name, d, dims)) == NB_OK)
        {
          c->model->data_spixels = (int) dims[0];
          c->model->data_fpixels = (int) dims[1];
        }
    }
  if (space >= 0)
    H5Sclose (space);
  H5Dclose (d);
  return st;
}

/* The sensor, the beam and the wavelength. */
static nb_status
read_sensor_beam (nxr *c, const char *instrument, const char *det)
{
  char name[NXR_PATH_MAX + 32], beam[NXR_PATH_MAX], material[16], units[32];
  double thick = 0.0, wavelength = 0.0, dir[3];
  hid_t d;

  snprintf (name, sizeof name, "%s/sensor_material", det);
  string_dataset (c, name, material, sizeof material);
  if (strcmp (material, "Silicon") == 0)
    snprintf (material, sizeof material, "Si");
  snprintf (name, sizeof name, "%s/sensor_thickness", det);
  if (exists (c, name) && (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) >= 0)
    {
      int ok = nx_dataset_number (d, 0, &thick, units, sizeof units);

      H5Dclose (d);
      if (!ok || nx_scale (units, 0) == 0.0 || thick < 0)
        return bad (c, name, "not a thickness");
      /* 1 nm: what our writer gives for no sensor */
      thick = thick * nx_scale (units, 0) > 1.5e-9 ? thick * nx_scale (units, 0) : 0.0;
    }
  for (int p = 0; p < c->model->n_panels; p++)
    {
      c->model->panels[p].thick = thick;
      snprintf (c->model->panels[p].material, sizeof material, "%s", material);
    }
  if (!first_child (c, instrument, "NXbeam", beam, sizeof beam))
    return NB_OK;
  snprintf (name, sizeof name, "%s/incident_wavelength", beam);
  if (exists (c, name) && (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) >= 0)
    {
      int ok = nx_dataset_number (d, 0, &wavelength, units, sizeof units);

      H5Dclose (d);
      if (!ok || nx_scale (units, 3) == 0.0 || !(wavelength > 0))
        return bad (c, name, "not a wavelength");
      c->model->wavelength = wavelength * nx_scale (units, 3);
    }
  snprintf (name, sizeof name, "%s/incident_beam_direction", beam);
  if (exists (c, name) && (d = H5Dopen2 (c->file, name, H5P_DEFAULT)) >= 0)
    {
      hid_t space = H5Dget_space (d);
      int ok = space >= 0 && H5Sget_simple_extent_npoints (space) == 3 &&
               nx_storage_problem (d) == NULL &&
               H5Dread (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, dir) >= 0;
      double n = ok ? sqrt (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]) : 0.0;

      if (space >= 0)
        H5Sclose (space);
      H5Dclose (d);
      if (!(n > 0) || !isfinite (n))
        return bad (c, name, "expected a direction of 3 numbers");
      for (int i = 0; i < 3; i++)
        dir[i] /= n;
      to_lab (dir, c->model->beam);
    }
  return NB_OK;
}

static nb_status
read_detector (nxr *c)
{
  char entry[NXR_PATH_MAX], instrument[NXR_PATH_MAX], det[NXR_PATH_MAX];
  char (*names)[NB_PANEL_NAME_MAX] = NULL;
  int n;
  long long total;
  nb_status st = NB_OK;

  if (!first_child (c, "/", "NXentry", entry, sizeof entry) ||
      !first_child (c, entry, "NXinstrument", instrument, sizeof instrument) ||
      !first_child (c, instrument, "NXdetector", det, sizeof det))
    return nb_error_set (c->err, NB_ERR_PARSE,
                         "%s: no NXentry/NXinstrument/NXdetector: not a NeXus NXmx file", c->path);
  if ((names = malloc ((size_t) NB_DETECTOR_MAX_PANELS * sizeof *names)) == NULL)
    return nb_error_set (c->err, NB_ERR_NOMEM, "%s: out of memory", c->path);
  n = list_children (c, det, "NXdetector_module", names, NB_DETECTOR_MAX_PANELS);
  if (n < 0)
    st = nb_error_set (c->err, NB_ERR_NOMEM,
                       "%s: %s: more than %d NXdetector_module groups, or a name over %d bytes",
                       c->path, det, NB_DETECTOR_MAX_PANELS, NB_PANEL_NAME_MAX - 1);
  else if (n == 0)
    st = bad (c, det, "no NXdetector_module");
  else if ((c->model->panels = calloc ((size_t) n, sizeof (nb_panel))) == NULL)
    st = nb_error_set (c->err, NB_ERR_NOMEM, "%s: out of memory", c->path);
  else
    c->model->n_panels = n;
  for (int p = 0; p < c->model->n_panels && st == NB_OK; p++)
    {
      st = read_module (c, det, names[p], &c->model->panels[p]);
      if (st == NB_OK &&
          ((total = nb_detector_model_pixels (c->model)) < 0 || total > NB_DETECTOR_MAX_PIXELS))
        st = nb_error_set (c->err, NB_ERR_NOMEM, "%s: %s: more than %lld pixels in all modules",
                           c->path, det, NB_DETECTOR_MAX_PIXELS);
    }
  free (names);
  if (st == NB_OK)
    st = read_layout (c, det);
  return st == NB_OK ? read_sensor_beam (c, instrument, det) : st;
}

/* External links are not followed: the geometry is the master's. */
static int
refuse_elink (const char *parent_file,
              const char *parent_group,
              const char *child_file,
              const char *child_object,
              unsigned *flags,
              hid_t fapl,
              void *data)
{
  (void) parent_file, (void) parent_group, (void) child_file, (void) child_object;
  (void) flags, (void) fapl, (void) data;
  return -1;
}

static nb_status
read_file (const char *path, nb_detector_model *model, nb_error *err)
{
  nxr c = { .path = path, .err = err, .model = model, .file = -1, .lapl = -1 };
  nb_status st;

  if ((st = nb_input_check (path, err)) != NB_OK)
    return st;
  if (H5Fis_hdf5 (path) <= 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: not an HDF5 file", path);
  c.lapl = H5Pcreate (H5P_LINK_ACCESS);
  if (c.lapl < 0 || H5Pset_nlinks (c.lapl, 16) < 0 ||
      H5Pset_elink_cb (c.lapl, refuse_elink, NULL) < 0)
    st = nb_error_set (err, NB_ERR_IO, "%s: libhdf5 failed to start", path);
  else if ((c.file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
    st = nb_error_set (err, NB_ERR_IO, "%s: libhdf5 cannot open it", path);
  else
    st = read_detector (&c);
  if (c.file >= 0)
    H5Fclose (c.file);
  if (c.lapl >= 0)
    H5Pclose (c.lapl);
  return st;
}

nb_status
nb_detector_read_nxmx (const char *path, nb_detector_model *model, nb_error *err)
{
  nb_status st = NB_OK;

  nb_detector_model_init (model);
  H5E_BEGIN_TRY
  {
    st = read_file (path, model, err);
  }
  H5E_END_TRY;
  if (st != NB_OK)
    {
      nb_detector_model_clear (model);
      return st;
    }
  model->kind = NB_DETECTOR_FILE_NXMX;
  return NB_OK;
}
