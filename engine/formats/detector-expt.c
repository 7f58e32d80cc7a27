/* detector-expt.c: a DIALS/dxtbx experiment list's detector (nb-detector-read.h),
 * through jansson; part of the CBF/NeXus module.
 *
 * dxtbx stores each panel's and each hierarchy group's fast axis, slow axis
 * and origin relative to its parent group (Panel.to_dict() writes the local
 * frame).  Its VirtualPanelFrame composes them from the root down:
 *   global axis   = [pf | ps | pn] * local axis
 *   global origin = [pf | ps | pn] * local origin + po
 * where pf and ps are the parent's global axes normalised and pn = pf x ps;
 * the root's parent is the laboratory frame.  Read without the hierarchy,
 * CSPAD's 64 sensors would stack on top of each other.
 *
 * Units: dxtbx's millimetres (origins, pixel sizes, thickness), 1/mm (mu) and
 * angstroms (wavelength); its frame has the beam along -z and stores the beam's
 * "direction" from the sample to the source.
 */
#include "nb-detector-read.h"

#include "base/nb-textfile.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON path for messages: "detector[0].panels[3].fast_axis". */
#define WHERE_MAX 192

typedef struct
{
  const char *path;
  nb_error *err;
  nb_detector_model *model;
  json_t *panels;          /* the detector's "panels" list */
  unsigned char *attached; /* per panel: reached through the hierarchy */
} expt_ctx;

static nb_status
bad (expt_ctx *c, const char *where, const char *what)
{
  return nb_error_set (c->err, NB_ERR_PARSE, "%s: %s: %s", c->path, where, what);
}

/* @obj's member @key (an object's), or NULL with an error naming @where.key. */
static json_t *
member (expt_ctx *c, json_t *obj, const char *where, const char *key, char *at)
{
  json_t *v = json_object_get (obj, key);

  snprintf (at, WHERE_MAX, "%s.%s", where, key);
  if (v == NULL)
    bad (c, at, "missing");
  return v;
}

/* @n finite numbers from the member @key of @obj. */
static nb_status
numbers (expt_ctx *c, json_t *obj, const char *where, const char *key, double *out, int n)
{
  char at[WHERE_MAX], what[48];
  json_t *v = member (c, obj, where, key, at);

  if (v == NULL)
    return NB_ERR_PARSE;
  snprintf (what, sizeof what, "expected %d numbers", n);
  if (!json_is_array (v) || json_array_size (v) != (size_t) n)
    return bad (c, at, what);
  for (int i = 0; i < n; i++)
    {
      json_t *x = json_array_get (v, (size_t) i);

      if (!json_is_number (x) || !isfinite (json_number_value (x)))
        return bad (c, at, what);
      out[i] = json_number_value (x);
    }
  return NB_OK;
}

/* One finite number, where given: @out keeps its value when @key is absent. */
static nb_status
optional_number (expt_ctx *c, json_t *obj, const char *where, const char *key, double *out)
{
  json_t *v = json_object_get (obj, key);
  char at[WHERE_MAX];

  if (v == NULL || json_is_null (v))
    return NB_OK;
  snprintf (at, WHERE_MAX, "%s.%s", where, key);
  if (!json_is_number (v) || !isfinite (json_number_value (v)))
    return bad (c, at, "expected a number");
  *out = json_number_value (v);
  return NB_OK;
}

/* A string member of at most @size - 1 bytes into @out ("" when absent). */
static nb_status
optional_string (
    expt_ctx *c, json_t *obj, const char *where, const char *key, char *out, size_t size)
{
  json_t *v = json_object_get (obj, key);
  char at[WHERE_MAX], what[64];

  out[0] = '\0';
  if (v == NULL || json_is_null (v))
    return NB_OK;
  snprintf (at, WHERE_MAX, "%s.%s", where, key);
  if (!json_is_string (v))
    return bad (c, at, "expected a string");
  if (json_string_length (v) >= size)
    {
      snprintf (what, sizeof what, "longer than %zu bytes", size - 1);
      return bad (c, at, what);
    }
  memcpy (out, json_string_value (v), json_string_length (v) + 1);
  return NB_OK;
}

static double
norm (const double v[3])
{
  return sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static void
cross (const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A frame in dxtbx's laboratory frame: fast, slow, origin (mm). */
typedef struct
{
  double f[3], s[3], o[3];
} frame3;

/* The local frame of a panel or group (@obj at @where) composed with its
 * parent's global frame @parent into @out (VirtualPanelFrame's
 * update_global_frame). */
static nb_status
compose (expt_ctx *c, json_t *obj, const char *where, const frame3 *parent, frame3 *out)
{
  double lf[3], ls[3], lo[3], pf[3], ps[3], pn[3], n;
  char at[WHERE_MAX];

  if (numbers (c, obj, where, "fast_axis", lf, 3) != NB_OK ||
      numbers (c, obj, where, "slow_axis", ls, 3) != NB_OK ||
      numbers (c, obj, where, "origin", lo, 3) != NB_OK)
    return NB_ERR_PARSE;
  if ((n = norm (lf)) == 0.0)
    return bad (c, (snprintf (at, sizeof at, "%s.fast_axis", where), at), "a zero vector");
  for (int i = 0; i < 3; i++)
    lf[i] /= n;
  if ((n = norm (ls)) == 0.0)
    return bad (c, (snprintf (at, sizeof at, "%s.slow_axis", where), at), "a zero vector");
  for (int i = 0; i < 3; i++)
    ls[i] /= n;
  {
    double ln[3];

    cross (lf, ls, ln);
    if (norm (ln) < 1e-6)
      return bad (c, where, "fast_axis and slow_axis are parallel");
  }
  /* the parent's axes, normalised as set_parent_frame() does */
  n = norm (parent->f);
  for (int i = 0; i < 3; i++)
    pf[i] = parent->f[i] / n;
  n = norm (parent->s);
  for (int i = 0; i < 3; i++)
    ps[i] = parent->s[i] / n;
  cross (pf, ps, pn);
  for (int i = 0; i < 3; i++)
    {
      out->f[i] = pf[i] * lf[0] + ps[i] * lf[1] + pn[i] * lf[2];
      out->s[i] = pf[i] * ls[0] + ps[i] * ls[1] + pn[i] * ls[2];
      out->o[i] = pf[i] * lo[0] + ps[i] * lo[1] + pn[i] * lo[2] + parent->o[i];
    }
  return NB_OK;
}

/* dxtbx (x, y, z), beam along -z, to nanoBragg's (beam along +x): (-z, y, x). */
static void
to_lab (const double d[3], double scale, double out[3])
{
  out[0] = -d[2] * scale;
  out[1] = d[1] * scale;
  out[2] = d[0] * scale;
}

/* The "mask" rectangles of a panel ([x0, y0, x1, y1), clipped to the panel
 * as dxtbx's apply_untrusted_rectangle_mask() does) into its mask. */
static nb_status
read_mask (expt_ctx *c, json_t *obj, const char *where, nb_panel *p)
{
  json_t *list = json_object_get (obj, "mask");
  char at[WHERE_MAX + 32];

  if (list == NULL || json_is_null (list))
    return NB_OK;
  if (!json_is_array (list))
    return bad (c, (snprintf (at, sizeof at, "%s.mask", where), at), "expected a list");
  for (size_t r = 0; r < json_array_size (list); r++)
    {
      json_t *rect = json_array_get (list, r);
      long long v[4];

      snprintf (at, sizeof at, "%s.mask[%zu]", where, r);
      if (!json_is_array (rect) || json_array_size (rect) != 4)
        return bad (c, at, "expected 4 integers [f0, s0, f1, s1]");
      for (int i = 0; i < 4; i++)
        {
          json_t *x = json_array_get (rect, (size_t) i);

          if (!json_is_integer (x))
            return bad (c, at, "expected 4 integers [f0, s0, f1, s1]");
          v[i] = json_integer_value (x);
        }
      v[0] = v[0] < 0 ? 0 : v[0];
      v[1] = v[1] < 0 ? 0 : v[1];
      v[2] = v[2] > p->fpixels ? p->fpixels : v[2];
      v[3] = v[3] > p->spixels ? p->spixels : v[3];
      if (v[0] >= v[2] || v[1] >= v[3])
        return bad (c, at, "an empty rectangle on the panel");
      if (p->mask == NULL &&
          (p->mask = calloc ((size_t) p->fpixels * (size_t) p->spixels, 1)) == NULL)
        return nb_error_set (c->err, NB_ERR_NOMEM, "%s: %s: out of memory", c->path, at);
      for (long long s = v[1]; s < v[3]; s++)
        memset (p->mask + s * p->fpixels + v[0], 1, (size_t) (v[2] - v[0]));
    }
  return NB_OK;
}

/* Panel @index of the detector, composed with its parent's global frame. */
static nb_status
read_panel (expt_ctx *c, const char *det, size_t index, const frame3 *parent)
{
  json_t *obj = json_array_get (c->panels, index);
  nb_panel *p = &c->model->panels[index];
  char where[WHERE_MAX], at[WHERE_MAX + 32];
  double size[2], pixel[2], thick = 0.0, mu = 0.0;
  frame3 g;
  long long total;

  snprintf (where, sizeof where, "%s.panels[%zu]", det, index);
  if (!json_is_object (obj))
    return bad (c, where, "expected an object");
  if (compose (c, obj, where, parent, &g) != NB_OK ||
      numbers (c, obj, where, "image_size", size, 2) != NB_OK ||
      numbers (c, obj, where, "pixel_size", pixel, 2) != NB_OK)
    return NB_ERR_PARSE;
  snprintf (at, sizeof at, "%s.image_size", where);
  for (int i = 0; i < 2; i++)
    if (size[i] != floor (size[i]) || size[i] < 1 || size[i] > NB_DETECTOR_MAX_AXIS)
      return bad (c, at, "expected 2 whole numbers from 1 to 65536");
  snprintf (at, sizeof at, "%s.pixel_size", where);
  if (!(pixel[0] > 0.0) || !(pixel[1] > 0.0))
    return bad (c, at, "expected 2 positive sizes (mm)");
  if (fabs (pixel[0] - pixel[1]) > 1e-12 * pixel[0])
    {
      char what[128];

      snprintf (what, sizeof what, "%g x %g mm pixels: only square pixels are supported", pixel[0],
                pixel[1]);
      return bad (c, at, what);
    }
  if (optional_number (c, obj, where, "thickness", &thick) != NB_OK ||
      optional_number (c, obj, where, "mu", &mu) != NB_OK ||
      optional_string (c, obj, where, "name", p->name, sizeof p->name) != NB_OK ||
      optional_string (c, obj, where, "material", p->material, sizeof p->material) != NB_OK)
    return NB_ERR_PARSE;
  if (thick < 0.0 || mu < 0.0)
    return bad (c, where, "a negative thickness or mu");
  if (p->name[0] == '\0')
    snprintf (p->name, sizeof p->name, "%zu", index);
  p->fpixels = (int) size[0];
  p->spixels = (int) size[1];
  p->pixel_size = pixel[0] * 1e-3;
  p->thick = thick * 1e-3;
  p->mu = mu * 1e3;
  to_lab (g.f, 1.0, p->fdet);
  to_lab (g.s, 1.0, p->sdet);
  to_lab (g.o, 1e-3, p->pix0);
  if ((total = nb_detector_model_pixels (c->model)) < 0 || total > NB_DETECTOR_MAX_PIXELS)
    return nb_error_set (c->err, NB_ERR_NOMEM, "%s: %s: more than %lld pixels in all panels",
                         c->path, where, NB_DETECTOR_MAX_PIXELS);
  return read_mask (c, obj, where, p);
}

/* A hierarchy node (@obj at @where) under the group whose global frame is
 * @parent: a panel reference {"panel": i} or a group with "children". */
static nb_status
walk (expt_ctx *c, json_t *obj, const char *det, const char *where, const frame3 *parent, int depth)
{
  json_t *ref, *children;
  frame3 g;
  char at[WHERE_MAX];

  if (!json_is_object (obj))
    return bad (c, where, "expected an object");
  if ((ref = json_object_get (obj, "panel")) != NULL)
    {
      json_int_t i;

      snprintf (at, sizeof at, "%s.panel", where);
      if (!json_is_integer (ref) || (i = json_integer_value (ref)) < 0 ||
          (size_t) i >= json_array_size (c->panels))
        return bad (c, at, "not the index of a panel");
      if (c->attached[i])
        return bad (c, at, "a panel placed twice");
      c->attached[i] = 1;
      return read_panel (c, det, (size_t) i, parent);
    }
  if (depth >= NB_DETECTOR_MAX_DEPTH)
    return bad (c, where, "hierarchy deeper than 64 groups");
  if (compose (c, obj, where, parent, &g) != NB_OK)
    return NB_ERR_PARSE;
  if ((children = member (c, obj, where, "children", at)) == NULL)
    return NB_ERR_PARSE;
  if (!json_is_array (children))
    return bad (c, at, "expected a list");
  for (size_t k = 0; k < json_array_size (children); k++)
    {
      char child[WHERE_MAX];

      if (snprintf (child, sizeof child, "%s.children[%zu]", where, k) >= (int) sizeof child)
        snprintf (child, sizeof child, "%s...children[%zu]", det, k);
      nb_status st = walk (c, json_array_get (children, k), det, child, &g, depth + 1);

      if (st != NB_OK)
        return st;
    }
  return NB_OK;
}

static const frame3 laboratory = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 0 } };

/* The panels of detector @d (at "detector[0]"). */
static nb_status
read_detector (expt_ctx *c, json_t *d)
{
  const char *det = "detector[0]";
  json_t *hierarchy;
  char at[WHERE_MAX];
  size_t n;
  nb_status st = NB_OK;

  if (!json_is_object (d))
    return bad (c, det, "expected an object");
  if ((c->panels = member (c, d, det, "panels", at)) == NULL)
    return NB_ERR_PARSE;
  if (!json_is_array (c->panels) || (n = json_array_size (c->panels)) == 0)
    return bad (c, at, "expected a list of panels");
  if (n > NB_DETECTOR_MAX_PANELS)
    return nb_error_set (c->err, NB_ERR_NOMEM, "%s: %s: %zu panels, more than %d", c->path, at, n,
                         NB_DETECTOR_MAX_PANELS);
  c->model->panels = calloc (n, sizeof (nb_panel));
  c->attached = calloc (n, 1);
  if (c->model->panels == NULL || c->attached == NULL)
    return nb_error_set (c->err, NB_ERR_NOMEM, "%s: out of memory", c->path);
  c->model->n_panels = (int) n;
  for (size_t i = 0; i < n; i++)
    c->model->panels[i].data_origin_f = c->model->panels[i].data_origin_s = -1;

  hierarchy = json_object_get (d, "hierarchy");
  if (hierarchy == NULL || json_is_null (hierarchy))
    {
      /* an old file: every panel in the laboratory frame */
      for (size_t i = 0; i < n && st == NB_OK; i++)
        st = read_panel (c, det, i, &laboratory);
      return st;
    }
  snprintf (at, sizeof at, "%s.hierarchy", det);
  if (json_is_object (hierarchy) && json_object_get (hierarchy, "panel") != NULL)
    return bad (c, at, "the root is a panel, not a group");
  if ((st = walk (c, hierarchy, det, at, &laboratory, 0)) != NB_OK)
    return st;
  for (size_t i = 0; i < n; i++)
    if (!c->attached[i])
      {
        snprintf (at, sizeof at, "%s.panels[%zu]", det, i);
        return bad (c, at, "not placed in the hierarchy");
      }
  return NB_OK;
}

/* The beam: experiment[0]'s, or the only one; direction (sample to source)
 * reversed into the lab frame, wavelength in metres. */
static nb_status
read_beam (expt_ctx *c, json_t *root)
{
  json_t *beams = json_object_get (root, "beam"), *experiments, *b;
  size_t index = 0;
  double dir[3], n, wavelength = 0.0;
  char where[WHERE_MAX];

  if (beams == NULL || json_is_null (beams))
    return NB_OK; /* a detector without a beam: the model's default, along +x */
  if (!json_is_array (beams))
    return bad (c, "beam", "expected a list");
  if (json_array_size (beams) == 0)
    return NB_OK;
  experiments = json_object_get (root, "experiment");
  if (json_is_array (experiments) && json_array_size (experiments) > 0)
    {
      json_t *ref = json_object_get (json_array_get (experiments, 0), "beam");

      if (json_is_integer (ref))
        {
          if (json_integer_value (ref) < 0 ||
              (size_t) json_integer_value (ref) >= json_array_size (beams))
            return bad (c, "experiment[0].beam", "not the index of a beam");
          index = (size_t) json_integer_value (ref);
        }
    }
  snprintf (where, sizeof where, "beam[%zu]", index);
  b = json_array_get (beams, index);
  if (!json_is_object (b))
    return bad (c, where, "expected an object");
  if (numbers (c, b, where, "direction", dir, 3) != NB_OK ||
      optional_number (c, b, where, "wavelength", &wavelength) != NB_OK)
    return NB_ERR_PARSE;
  if ((n = norm (dir)) == 0.0)
    return bad (
        c, (snprintf (where + strlen (where), sizeof where - strlen (where), ".direction"), where),
        "a zero vector");
  if (!(wavelength >= 0.0))
    return bad (
        c, (snprintf (where + strlen (where), sizeof where - strlen (where), ".wavelength"), where),
        "a negative wavelength");
  for (int i = 0; i < 3; i++)
    dir[i] = -dir[i] / n;
  to_lab (dir, 1.0, c->model->beam);
  c->model->wavelength = wavelength * 1e-10;
  return NB_OK;
}

static nb_status
read_root (expt_ctx *c, json_t *root)
{
  json_t *dets;
  nb_status st;

  if (!json_is_object (root))
    return nb_error_set (c->err, NB_ERR_PARSE, "%s: not a DIALS experiment list (a JSON object)",
                         c->path);
  dets = json_object_get (root, "detector");
  if (dets == NULL)
    return nb_error_set (c->err, NB_ERR_PARSE,
                         "%s: no \"detector\" list: not a DIALS experiment list", c->path);
  if (!json_is_array (dets) || json_array_size (dets) == 0)
    return bad (c, "detector", "expected a list of detectors");
  if (json_array_size (dets) > 1)
    return nb_error_set (c->err, NB_ERR_PARSE,
                         "%s: detector: %zu detectors; only a file of one detector is read",
                         c->path, json_array_size (dets));
  st = read_detector (c, json_array_get (dets, 0));
  return st != NB_OK ? st : read_beam (c, root);
}

nb_status
nb_detector_read_expt (const char *path, nb_detector_model *model, nb_error *err)
{
  expt_ctx c = { .path = path, .err = err, .model = model };
  json_error_t jerr;
  json_t *root;
  char *text;
  size_t len;
  nb_status st;

  nb_detector_model_init (model);
  if ((st = nb_read_text (path, NB_DETECTOR_FILE_MAX_BYTES, 0, "allowed for a detector file", &text,
                          &len, err)) != NB_OK)
    return st;
  root = json_loadb (text, len, JSON_REJECT_DUPLICATES, &jerr);
  free (text);
  if (root == NULL)
    return nb_error_set (err, NB_ERR_PARSE, "%s:%d:%d: not valid JSON: %s", path, jerr.line,
                         jerr.column, jerr.text);
  st = read_root (&c, root);
  json_decref (root);
  free (c.attached);
  if (st != NB_OK)
    {
      nb_detector_model_clear (model);
      return st;
    }
  model->kind = NB_DETECTOR_FILE_EXPT;
  return NB_OK;
}
