/* detector-geom.c: CrystFEL geometry files (.geom) into a detector model
 * (nb-detector.h).
 *
 * The format (crystfel_geometry(5)): "key = value" lines, ';' starts a
 * comment; "panel/key = value" sets a panel's key, a key without a panel
 * sets the default of every panel mentioned after it.  A panel covers the
 * data array's pixels min_fs..max_fs x min_ss..max_ss (inclusive); fs and ss
 * are its fast and slow directions in the lab frame, in pixels
 * ("-0.0012x +0.999982y", "z" terms for a tilted sensor); corner_x/y place
 * the outer corner of its first pixel, in pixels; res is pixels per metre;
 * clen (m or mm) plus coffset (m) its distance along the beam (+z).  Bad
 * regions "bad.../min_fs..." (data-array pixels, with /panel where there are
 * several panels) or "bad.../min_x..." (lab x/y in pixels, every panel) mask
 * pixels.
 *
 * The file is untrusted: its size, line length, panel count and pixels are
 * bounded, and each error is one line naming the file and line.
 */
#include "nb-detector.h"
#include "base/nb-textfile.h"
#include "nb-geom.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEOM_MAX_BYTES        (16u << 20)
#define GEOM_MAX_LINE         4096
#define GEOM_MAX_PANELS       4096
#define GEOM_MAX_BAD          4096
#define GEOM_MAX_PANEL_PIXELS (1L << 26)
#define GEOM_MAX_PIXELS       (1LL << 28)
/* pixels visited by the bad regions together: a file of many large regions costs no more */
#define GEOM_MAX_BAD_WORK (1LL << 31)
#define GEOM_MAX_INDEX    (1 << 20)

static double
norm3 (const double v[3])
{
  return sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* A panel's keys as read: NAN = not given. */
typedef struct
{
  char name[NB_PANEL_NAME_MAX];
  double min_fs, max_fs, min_ss, max_ss;
  double fs[3], ss[3];
  double corner_x, corner_y;
  double res, clen, coffset;
  long clen_path_line; /* a clen naming a header field, or 0 */
  long line;           /* where the panel was first named */
} geom_panel;

typedef struct
{
  char name[NB_PANEL_NAME_MAX];
  double min_fs, max_fs, min_ss, max_ss;
  double min_x, max_x, min_y, max_y;
  char panel[NB_PANEL_NAME_MAX];
  long line;
} geom_bad;

typedef struct
{
  const char *path;
  long line;
  geom_panel defaults;
  geom_panel *panels;
  int n_panels;
  geom_bad *bad;
  int n_bad;
  int ignored; /* keys read and not used (mask, no_index...) */
  double photon_energy;
  nb_error *err;
} geom_reader;

static nb_status
fail (geom_reader *r, const char *fmt, const char *a, const char *b)
{
  char what[256];

  snprintf (what, sizeof what, fmt, a, b);
  return nb_error_set (r->err, NB_ERR_PARSE, "%s:%ld: %s", r->path, r->line, what);
}

static void
panel_unset (geom_panel *p)
{
  memset (p, 0, sizeof *p);
  p->min_fs = p->max_fs = p->min_ss = p->max_ss = NAN;
  p->corner_x = p->corner_y = NAN;
  p->res = p->clen = NAN;
  p->fs[0] = p->ss[0] = NAN;
  p->coffset = 0.0;
}

/* A whole finite number, nothing after it but blanks. */
static int
parse_number (const char *s, double *v)
{
  char *end;

  *v = strtod (s, &end);
  if (end == s || !isfinite (*v))
    return 0;
  while (isspace ((unsigned char) *end))
    end++;
  return *end == '\0';
}

/* "0.00034x -0.99993y +z": the direction in the file's (CrystFEL) frame. */
static int
parse_direction (const char *s, double v[3])
{
  int terms = 0;

  v[0] = v[1] = v[2] = 0.0;
  while (*s != '\0')
    {
      char *end;
      double c = 1.0;
      int k;

      while (isspace ((unsigned char) *s))
        s++;
      if (*s == '\0')
        break;
      if ((*s == '+' || *s == '-') && (s[1] == 'x' || s[1] == 'y' || s[1] == 'z'))
        c = *s++ == '-' ? -1.0 : 1.0;
      else if (*s != 'x' && *s != 'y' && *s != 'z')
        {
          c = strtod (s, &end);
          if (end == s || !isfinite (c))
            return 0;
          s = end;
        }
      k = *s == 'x' ? 0 : *s == 'y' ? 1 : *s == 'z' ? 2 : -1;
      if (k < 0)
        return 0;
      v[k] += c;
      s++;
      terms++;
    }
  return terms > 0 && isfinite (v[0]) && isfinite (v[1]) && isfinite (v[2]);
}

/* clen: "0.1", "95.3 mm", "0.1 m"; a header field ("/LCLS/detectorPosition")
 * sets *path. */
static int
parse_length (const char *s, double *v, int *path)
{
  char *end;

  *path = 0;
  if (*s == '/')
    {
      *path = 1;
      return 1;
    }
  *v = strtod (s, &end);
  if (end == s || !isfinite (*v))
    return 0;
  while (isspace ((unsigned char) *end))
    end++;
  if (strcmp (end, "mm") == 0)
    *v /= 1000.0;
  else if (*end != '\0' && strcmp (end, "m") != 0)
    return 0;
  return 1;
}

static nb_status
set_panel_key (geom_reader *r, geom_panel *p, const char *key, const char *value, int *known)
{
  static const char *ranges[] = { "min_fs", "max_fs", "min_ss", "max_ss" };
  double *range_field[] = { &p->min_fs, &p->max_fs, &p->min_ss, &p->max_ss };

  *known = 1;
  for (int i = 0; i < 4; i++)
    if (strcmp (key, ranges[i]) == 0)
      {
        if (!parse_number (value, range_field[i]) || *range_field[i] != floor (*range_field[i]) ||
            *range_field[i] < 0 || *range_field[i] >= GEOM_MAX_INDEX)
          return fail (r, "%s = %s: not a pixel index from 0 to 2^20", key, value);
        return NB_OK;
      }
  if (strcmp (key, "fs") == 0 || strcmp (key, "ss") == 0)
    {
      double *v = key[0] == 'f' ? p->fs : p->ss;

      if (!parse_direction (value, v) || norm3 (v) == 0.0)
        return fail (r, "%s = %s: not a direction such as \"-0.0012x +0.99y\"", key, value);
      return NB_OK;
    }
  if (strcmp (key, "corner_x") == 0 || strcmp (key, "corner_y") == 0)
    {
      if (!parse_number (value, key[7] == 'x' ? &p->corner_x : &p->corner_y))
        return fail (r, "%s = %s: not a number (pixels)", key, value);
      return NB_OK;
    }
  if (strcmp (key, "res") == 0)
    {
      if (!parse_number (value, &p->res) || !(p->res > 0.0))
        return fail (r, "res = %s: not a positive number of pixels per metre%s", value, "");
      return NB_OK;
    }
  if (strcmp (key, "coffset") == 0)
    {
      if (!parse_number (value, &p->coffset))
        return fail (r, "coffset = %s: not a number (metres)%s", value, "");
      return NB_OK;
    }
  if (strcmp (key, "clen") == 0)
    {
      int path;

      if (!parse_length (value, &p->clen, &path))
        return fail (r, "clen = %s: not a length (\"0.1 m\", \"95.3 mm\")%s", value, "");
      p->clen_path_line = path ? r->line : 0;
      if (path)
        p->clen = NAN;
      return NB_OK;
    }
  *known = 0;
  return NB_OK;
}

static nb_status
set_bad_key (geom_reader *r, geom_bad *b, const char *key, const char *value)
{
  static const char *keys[] = { "min_fs", "max_fs", "min_ss", "max_ss",
                                "min_x",  "max_x",  "min_y",  "max_y" };
  double *fields[] = { &b->min_fs, &b->max_fs, &b->min_ss, &b->max_ss,
                       &b->min_x,  &b->max_x,  &b->min_y,  &b->max_y };

  if (strcmp (key, "panel") == 0)
    {
      if (strlen (value) >= sizeof b->panel)
        return fail (r, "%s/panel: panel name longer than 63 bytes%s", b->name, "");
      strcpy (b->panel, value);
      return NB_OK;
    }
  for (int i = 0; i < 8; i++)
    if (strcmp (key, keys[i]) == 0)
      {
        if (!parse_number (value, fields[i]) || fabs (*fields[i]) > 1e9)
          return fail (r, "%s = %s: not a number of at most 1e9 pixels", key, value);
        return NB_OK;
      }
  return fail (r, "%s/%s: not a key of a bad region (min_fs... or min_x...)", b->name, key);
}

/* The panel or bad region named @name, added (from the defaults) when new. */
static void *
find_or_add (geom_reader *r, const char *name, int bad)
{
  if (bad)
    {
      geom_bad *b;

      for (int i = 0; i < r->n_bad; i++)
        if (strcmp (r->bad[i].name, name) == 0)
          return &r->bad[i];
      if (r->n_bad == GEOM_MAX_BAD)
        return NULL;
      b = &r->bad[r->n_bad++];
      memset (b, 0, sizeof *b);
      strcpy (b->name, name);
      b->min_fs = b->max_fs = b->min_ss = b->max_ss = NAN;
      b->min_x = b->max_x = b->min_y = b->max_y = NAN;
      b->line = r->line;
      return b;
    }
  for (int i = 0; i < r->n_panels; i++)
    if (strcmp (r->panels[i].name, name) == 0)
      return &r->panels[i];
  if (r->n_panels == GEOM_MAX_PANELS)
    return NULL;
  r->panels[r->n_panels] = r->defaults;
  strcpy (r->panels[r->n_panels].name, name);
  r->panels[r->n_panels].line = r->line;
  return &r->panels[r->n_panels++];
}

/* Keys CrystFEL reads that say nothing of where pixels are. */
static int
ignored_key (const char *key)
{
  static const char *prefixes[] = { "mask",
                                    "no_index",
                                    "adu_per",
                                    "max_adu",
                                    "data",
                                    "dim",
                                    "flag_",
                                    "saturation",
                                    "rigid_group",
                                    "peak_",
                                    "bandwidth",
                                    "detector_shift",
                                    "clen_for_centering",
                                    "rail_",
                                    "hdf5_" };

  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp (key, prefixes[i], strlen (prefixes[i])) == 0)
      return 1;
  return 0;
}

static nb_status
global_key (geom_reader *r, const char *key, const char *value)
{
  int known;
  nb_status st;

  if ((st = set_panel_key (r, &r->defaults, key, value, &known)) != NB_OK || known)
    return st;
  if (strcmp (key, "photon_energy") == 0)
    {
      char *end;
      double e = strtod (value, &end);

      if (end != value && isfinite (e) && e > 0)
        r->photon_energy = strstr (end, "keV") != NULL ? e * 1000.0 : e;
      return NB_OK;
    }
  r->ignored++;
  return NB_OK;
}

static nb_status
line_key (geom_reader *r, char *key, const char *value)
{
  char *slash = strchr (key, '/');
  int known;
  nb_status st;

  if (slash == NULL)
    return global_key (r, key, value);
  *slash = '\0';
  if (slash == key || strlen (key) >= NB_PANEL_NAME_MAX || strchr (slash + 1, '/') != NULL)
    return fail (r, "%s: a key is \"name/key\" with a name of 1 to 63 bytes%s", key, "");
  if (strncmp (key, "bad", 3) == 0)
    {
      geom_bad *b = find_or_add (r, key, 1);

      if (b == NULL)
        return fail (r, "more than 4096 bad regions%s%s", "", "");
      return set_bad_key (r, b, slash + 1, value);
    }
  {
    geom_panel *p;

    if (strncmp (key, "rigid_group", 11) == 0)
      {
        r->ignored++;
        return NB_OK;
      }
    if ((p = find_or_add (r, key, 0)) == NULL)
      return fail (r, "more than 4096 panels%s%s", "", "");
    if ((st = set_panel_key (r, p, slash + 1, value, &known)) != NB_OK)
      return st;
    if (!known)
      {
        if (!ignored_key (slash + 1))
          return fail (r, "%s/%s: not a panel key this reader knows", key, slash + 1);
        r->ignored++;
      }
  }
  return NB_OK;
}

static char *
trim (char *s)
{
  char *e;

  while (isspace ((unsigned char) *s))
    s++;
  e = s + strlen (s);
  while (e > s && isspace ((unsigned char) e[-1]))
    *--e = '\0';
  return s;
}

static nb_status
parse_lines (geom_reader *r, char *text, size_t len)
{
  char *p = text, *end = text + len;
  nb_status st;

  for (r->line = 1; p < end; r->line++)
    {
      char *nl = memchr (p, '\n', (size_t) (end - p)), *eq, *key;

      if (nl == NULL)
        nl = end;
      if (nl - p > GEOM_MAX_LINE)
        return fail (r, "line longer than 4096 bytes%s%s", "", "");
      *nl = '\0';
      if ((eq = strchr (p, ';')) != NULL)
        *eq = '\0';
      key = trim (p);
      p = nl + 1;
      if (*key == '\0')
        continue;
      if ((eq = strchr (key, '=')) == NULL)
        {
          char excerpt[NB_EXCERPT_SIZE];

          return fail (r, "'%s': not \"key = value\"%s",
                       nb_text_excerpt (key, strlen (key), excerpt), "");
        }
      *eq = '\0';
      if ((st = line_key (r, trim (key), trim (eq + 1))) != NB_OK)
        return st;
    }
  return NB_OK;
}

/* CrystFEL's frame (beam along +z) to nanoBragg's (beam along +x). */
static void
to_lab (const double c[3], double out[3])
{
  out[0] = c[2];
  out[1] = c[1];
  out[2] = -c[0];
}

static nb_status
check_panel (geom_reader *r, const geom_panel *g)
{
  static const char *what[] = { "min_fs", "max_fs",   "min_ss",   "max_ss", "fs",
                                "ss",     "corner_x", "corner_y", "res" };
  double given[] = { g->min_fs, g->max_fs,   g->min_ss,   g->max_ss, g->fs[0],
                     g->ss[0],  g->corner_x, g->corner_y, g->res };

  r->line = g->line;
  for (int i = 0; i < 9; i++)
    if (isnan (given[i]))
      return fail (r, "panel %s: no %s", g->name, what[i]);
  if (g->clen_path_line != 0 && isnan (g->clen))
    {
      r->line = g->clen_path_line;
      return fail (r,
                   "panel %s: clen is read from the data's header, which this reader does not "
                   "open: give clen as a length (\"0.1 m\")%s",
                   g->name, "");
    }
  if (isnan (g->clen))
    return fail (r, "panel %s: no clen (the detector's distance, \"clen = 0.1 m\")%s", g->name, "");
  if (g->max_fs < g->min_fs || g->max_ss < g->min_ss)
    return fail (r, "panel %s: max_fs/max_ss below min_fs/min_ss%s", g->name, "");
  if ((g->max_fs - g->min_fs + 1) * (g->max_ss - g->min_ss + 1) > (double) GEOM_MAX_PANEL_PIXELS)
    return fail (r, "panel %s: more than 2^26 pixels%s", g->name, "");
  {
    double n[3] = { g->fs[1] * g->ss[2] - g->fs[2] * g->ss[1],
                    g->fs[2] * g->ss[0] - g->fs[0] * g->ss[2],
                    g->fs[0] * g->ss[1] - g->fs[1] * g->ss[0] };

    if (norm3 (n) < 1e-6 * norm3 (g->fs) * norm3 (g->ss))
      return fail (r, "panel %s: fs and ss are parallel%s", g->name, "");
  }
  return NB_OK;
}

static void
panel_to_model (const geom_panel *g, nb_panel *out)
{
  double fs[3], ss[3], corner[3];
  double nf = norm3 (g->fs), ns = norm3 (g->ss);

  memset (out, 0, sizeof *out);
  strcpy (out->name, g->name);
  out->fpixels = (int) (g->max_fs - g->min_fs) + 1;
  out->spixels = (int) (g->max_ss - g->min_ss) + 1;
  out->pixel_size = 1.0 / g->res;
  for (int k = 0; k < 3; k++)
    {
      fs[k] = g->fs[k] / nf;
      ss[k] = g->ss[k] / ns;
    }
  corner[0] = g->corner_x / g->res;
  corner[1] = g->corner_y / g->res;
  corner[2] = g->clen + g->coffset;
  to_lab (fs, out->fdet);
  to_lab (ss, out->sdet);
  to_lab (corner, out->pix0);
  out->data_origin_f = (int) g->min_fs;
  out->data_origin_s = (int) g->min_ss;
}

static int
panel_index (const nb_detector_model *m, const char *name)
{
  for (int p = 0; p < m->n_panels; p++)
    if (strcmp (m->panels[p].name, name) == 0)
      return p;
  return -1;
}

static int
mask_pixel (nb_panel *p, int f, int s)
{
  if (p->mask == NULL && (p->mask = calloc ((size_t) p->fpixels * p->spixels, 1)) == NULL)
    return 0;
  p->mask[(size_t) s * p->fpixels + f] = 1;
  return 1;
}

/* A bad region in data-array pixels, inside one panel. */
static nb_status
bad_fsss (geom_reader *r, const geom_bad *b, nb_detector_model *m)
{
  int pn = b->panel[0] != '\0' ? panel_index (m, b->panel) : m->n_panels == 1 ? 0 : -2;
  nb_panel *p;

  r->line = b->line;
  if (pn == -2)
    return fail (r, "bad region %s: give %s/panel (there are several panels)", b->name, b->name);
  if (pn < 0)
    return fail (r, "bad region %s: no panel %s", b->name, b->panel);
  p = &m->panels[pn];
  if (isnan (b->min_fs) || isnan (b->max_fs) || isnan (b->min_ss) || isnan (b->max_ss) ||
      b->min_fs < p->data_origin_f || b->min_ss < p->data_origin_s ||
      b->max_fs >= p->data_origin_f + p->fpixels || b->max_ss >= p->data_origin_s + p->spixels)
    return fail (r, "bad region %s: min/max_fs and min/max_ss must all lie within panel %s",
                 b->name, p->name);
  for (int s = (int) b->min_ss; s <= (int) b->max_ss; s++)
    for (int f = (int) b->min_fs; f <= (int) b->max_fs; f++)
      if (!mask_pixel (p, f - p->data_origin_f, s - p->data_origin_s))
        return nb_error_set (r->err, NB_ERR_NOMEM, "%s: out of memory for a mask", r->path);
  return NB_OK;
}

/* A bad region in lab x/y (pixels, CrystFEL's frame), every panel: a pixel
 * whose corner lies strictly inside, as CrystFEL's draw_bad_region_xy(). */
static nb_status
bad_xy (geom_reader *r, const geom_bad *b, const geom_panel *g, nb_detector_model *m)
{
  for (int pn = 0; pn < m->n_panels; pn++)
    {
      nb_panel *p = &m->panels[pn];
      const geom_panel *q = &g[pn];
      double fx = q->fs[0] / norm3 (q->fs), fy = q->fs[1] / norm3 (q->fs);
      double sx = q->ss[0] / norm3 (q->ss), sy = q->ss[1] / norm3 (q->ss);

      for (int s = 0; s < p->spixels; s++)
        for (int f = 0; f < p->fpixels; f++)
          {
            double x = f * fx + s * sx + q->corner_x, y = f * fy + s * sy + q->corner_y;

            if (x > b->min_x && x < b->max_x && y > b->min_y && y < b->max_y &&
                !mask_pixel (p, f, s))
              return nb_error_set (r->err, NB_ERR_NOMEM, "%s: out of memory for a mask", r->path);
          }
    }
  return NB_OK;
}

static nb_status
apply_bad_regions (geom_reader *r, nb_detector_model *m)
{
  long long work = 0, pixels = nb_detector_model_pixels (m);
  nb_status st;

  for (int i = 0; i < r->n_bad; i++)
    {
      const geom_bad *b = &r->bad[i];
      int xy = !isnan (b->min_x) || !isnan (b->max_x) || !isnan (b->min_y) || !isnan (b->max_y);

      r->line = b->line;
      if (xy && (isnan (b->min_x) || isnan (b->max_x) || isnan (b->min_y) || isnan (b->max_y)))
        return fail (r, "bad region %s: give all of min_x, max_x, min_y and max_y%s", b->name, "");
      if (xy)
        work += pixels;
      else if (!isnan (b->min_fs + b->max_fs + b->min_ss + b->max_ss))
        work += (long long) (fabs (b->max_fs - b->min_fs) + 1) *
                (long long) (fabs (b->max_ss - b->min_ss) + 1);
      if (work > GEOM_MAX_BAD_WORK)
        return fail (r, "bad region %s: the bad regions together cover more than 2^31 pixels%s",
                     b->name, "");
      if ((st = xy ? bad_xy (r, b, r->panels, m) : bad_fsss (r, b, m)) != NB_OK)
        return st;
    }
  return NB_OK;
}

static nb_status
build_model (geom_reader *r, nb_detector_model *m)
{
  long long pixels = 0;
  nb_status st;

  if (r->n_panels == 0)
    {
      r->line = 1;
      return fail (r, "no panel (\"name/min_fs = 0\"...)%s%s", "", "");
    }
  for (int i = 0; i < r->n_panels; i++)
    {
      if ((st = check_panel (r, &r->panels[i])) != NB_OK)
        return st;
      pixels += (long long) (r->panels[i].max_fs - r->panels[i].min_fs + 1) *
                (long long) (r->panels[i].max_ss - r->panels[i].min_ss + 1);
    }
  if (pixels > GEOM_MAX_PIXELS)
    return nb_error_set (r->err, NB_ERR_PARSE, "%s: %lld pixels in all, more than 2^28", r->path,
                         pixels);
  if ((m->panels = calloc ((size_t) r->n_panels, sizeof *m->panels)) == NULL)
    return nb_error_set (r->err, NB_ERR_NOMEM, "%s: out of memory", r->path);
  m->n_panels = r->n_panels;
  m->kind = NB_DETECTOR_FILE_GEOM;
  for (int i = 0; i < r->n_panels; i++)
    {
      panel_to_model (&r->panels[i], &m->panels[i]);
      if (m->panels[i].data_origin_f + m->panels[i].fpixels > m->data_fpixels)
        m->data_fpixels = m->panels[i].data_origin_f + m->panels[i].fpixels;
      if (m->panels[i].data_origin_s + m->panels[i].spixels > m->data_spixels)
        m->data_spixels = m->panels[i].data_origin_s + m->panels[i].spixels;
    }
  if (r->photon_energy > 0.0)
    m->wavelength = 12398.42 / r->photon_energy * 1e-10;
  return apply_bad_regions (r, m);
}

nb_status
nb_detector_model_parse_geom (
    const char *path, char *text, size_t len, nb_detector_model *out, nb_error *err)
{
  geom_reader r = { .path = path, .err = err };
  nb_status st;

  nb_detector_model_init (out);
  panel_unset (&r.defaults);
  r.panels = calloc (GEOM_MAX_PANELS, sizeof *r.panels);
  r.bad = calloc (GEOM_MAX_BAD, sizeof *r.bad);
  if (r.panels == NULL || r.bad == NULL)
    st = nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", path);
  else if ((st = parse_lines (&r, text, len)) == NB_OK)
    st = build_model (&r, out);
  if (st == NB_OK && r.ignored > 0)
    snprintf (out->note, sizeof out->note,
              "%s: %d key%s not used (masks read from data files, no_index, rigid groups, "
              "data layout)",
              path, r.ignored, r.ignored == 1 ? "" : "s");
  free (r.panels);
  free (r.bad);
  if (st != NB_OK)
    nb_detector_model_clear (out);
  return st;
}
