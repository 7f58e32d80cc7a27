/* frame-cbf.c: CBF frames through CBFlib (libcbf).
 *
 * The pixels are the first row of _array_data.data, decoded by CBFlib
 * (byte-offset, packed, canonical, nibble-offset, predictor or none), and
 * checked against the element count and dimensions its MIME header declares.
 * The geometry comes from, in order:
 *   the axis categories of a full imgCIF file (axis, diffrn_detector_axis,
 *   array_structure_list_axis...), through CBFlib's detector and goniometer
 *   objects: beam centre (cbf_get_beam_center: displacements from the centre
 *   of pixel (0, 0), so half a pixel is added to reach its corner), distance,
 *   pixel size, wavelength, the scan's rotation start and increment,
 *   integration time and overload;
 *   else the Pilatus (miniCBF) header text in _array_data.header_contents:
 *   Pixel_size, Wavelength, Detector_distance, Beam_xy (pixels from pixel
 *   (0, 0)'s corner, as dxtbx reads them), Start_angle, Angle_increment,
 *   Exposure_time, Count_cutoff, Detector_2theta and the sensor thickness.
 */
#include "nb-frame-private.h"
#include "base/nb-input.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define RTD (180.0 / M_PI)

#include <cbflib/cbf.h>
#include <cbflib/cbf_simple.h>

static const char *
cbf_message (int code)
{
  const char *m = cbf_strerror (code);

  return m != NULL && m[0] != '\0' ? m : "unknown CBFlib error";
}

/* ---- the miniCBF header ---- */

/* The header line that starts with "# @key" (then a blank, or ':' for
 * Threshold_setting and friends); its text after the key in *@rest, the whole
 * line (without "# ") quoted in @line (@size bytes).  0 when absent. */
static int
mini_line (const char *text, const char *key, const char **rest, char *line, size_t size)
{
  size_t keylen = strlen (key);

  for (const char *p = text; p != NULL && *p != '\0'; p = strchr (p, '\n'), p = p ? p + 1 : NULL)
    {
      const char *q = p;

      while (*q == ' ' || *q == '\t')
        q++;
      if (*q != '#')
        continue;
      q++;
      while (*q == ' ' || *q == '\t')
        q++;
      if (strncasecmp (q, key, keylen) != 0)
        continue;
      if (q[keylen] != ' ' && q[keylen] != '\t' && q[keylen] != ':' && q[keylen] != '=')
        continue;
      *rest = q + keylen;
      while (**rest == ' ' || **rest == '\t' || **rest == ':' || **rest == '=')
        (*rest)++;
      nb_frame_quote (p, strcspn (p, "\r\n"), line, size);
      {
        /* "# Key ..." with its leading blanks trimmed */
        size_t lead = strspn (line, " \t");

        memmove (line, line + lead, strlen (line + lead) + 1);
      }
      return 1;
    }
  return 0;
}

/* A number and its unit from @s ("0.21396 m", "75e-6 m", "174.0000 deg.");
 * the unit word in @unit.  0 when @s does not start with a finite number. */
static int
mini_number (const char *s, double *v, char *unit, size_t size, const char **after)
{
  char *end;
  size_t n;

  while (*s == ' ' || *s == '\t' || *s == '(' || *s == ',')
    s++;
  *v = nb_frame_strtod (s, &end);
  if (end == s || !isfinite (*v))
    return 0;
  s = end;
  while (*s == ' ' || *s == '\t')
    s++;
  n = strcspn (s, " \t\r\n,()");
  nb_frame_quote (s, n < size - 1 ? n : size - 1, unit, size);
  if (after != NULL)
    *after = s + n;
  return 1;
}

/* Metres per @unit for a length ("m", "mm", "um", "micron"); 0 unknown. */
static double
length_unit (const char *unit)
{
  if (strcmp (unit, "m") == 0 || unit[0] == '\0')
    return 1.0;
  if (strcmp (unit, "mm") == 0)
    return 1e-3;
  if (strcmp (unit, "um") == 0 || strcmp (unit, "microns") == 0 || strcmp (unit, "micron") == 0)
    return 1e-6;
  return 0.0;
}

/* A header item "key number unit": NB_OK with *@found, or NB_ERR_PARSE
 * naming the line when the number is missing, the unit unknown or the value
 * out of range. */
static nb_status
mini_item (const nb_frame *frame,
           const char *text,
           const char *key,
           int kind, /* 0 length (m), 1 angle (deg), 2 time (s), 3 wavelength (A) */
           int positive,
           double *v,
           char *line,
           size_t size,
           int *found,
           nb_error *err)
{
  const char *rest;
  char unit[16];
  double scale = 1.0;

  *found = 0;
  if (!mini_line (text, key, &rest, line, size))
    return NB_OK;
  if (!mini_number (rest, v, unit, sizeof unit, NULL))
    return nb_error_set (err, NB_ERR_PARSE, "%s: miniCBF header '%s': no number after %s",
                         frame->path, line, key);
  switch (kind)
    {
      case 0:
        scale = length_unit (unit);
        break;
      case 1:
        scale = strncmp (unit, "deg", 3) == 0 || unit[0] == '\0' ? 1.0 / RTD
                : strcmp (unit, "rad") == 0                      ? 1.0
                                                                 : 0.0;
        break;
      case 2:
        scale = strcmp (unit, "s") == 0 || unit[0] == '\0' ? 1.0 : 0.0;
        break;
      case 3:
        scale = strcmp (unit, "A") == 0 || unit[0] == '\0' ? 1e-10
                : strcmp (unit, "nm") == 0                 ? 1e-9
                                                           : 0.0;
        break;
    }
  if (scale == 0.0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: miniCBF header '%s': unknown unit '%s'",
                         frame->path, line, unit);
  if ((positive && !(*v > 0)) || (!positive && kind != 1 && *v < 0))
    return nb_error_set (err, NB_ERR_PARSE, "%s: miniCBF header '%s': %s %s", frame->path, line,
                         key, positive ? "must be positive" : "must not be negative");
  *v *= scale;
  *found = 1;
  return NB_OK;
}

static nb_status
mini_geometry (nb_frame *frame, const char *text, nb_error *err)
{
  static const struct
  {
    const char *key;
    int kind, positive;
    nb_frame_item item;
  } items[] = {
    { "Wavelength", 3, 1, NB_FRAME_WAVELENGTH },  { "Detector_distance", 0, 1, NB_FRAME_DISTANCE },
    { "Start_angle", 1, 0, NB_FRAME_PHI_START },  { "Angle_increment", 1, 0, NB_FRAME_OSCILLATION },
    { "Exposure_time", 2, 0, NB_FRAME_EXPOSURE }, { "Detector_2theta", 1, 0, NB_FRAME_TWOTHETA },
  };
  char line[NB_FRAME_SOURCE_MAX - 32], unit[16];
  const char *rest;
  double v, px_f = NAN, px_s = NAN;
  int found;
  nb_status st;

  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
    {
      if ((st = mini_item (frame, text, items[i].key, items[i].kind, items[i].positive, &v, line,
                           sizeof line, &found, err)) != NB_OK)
        return st;
      if (found)
        nb_frame_set_item (frame, items[i].item, fabs (v) == 0.0 ? 0.0 : v,
                           "the miniCBF header '%s'", line);
    }
  if (frame->item[NB_FRAME_OSCILLATION].have && frame->item[NB_FRAME_OSCILLATION].value < 0)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: miniCBF header: Angle_increment %g deg (allowed: >= 0)", frame->path,
                         frame->item[NB_FRAME_OSCILLATION].value * RTD);

  /* "# Pixel_size 75e-6 m x 75e-6 m" */
  if (mini_line (text, "Pixel_size", &rest, line, sizeof line))
    {
      const char *after;
      double s1, s2;

      if (!mini_number (rest, &px_f, unit, sizeof unit, &after) || !(s1 = length_unit (unit)))
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: miniCBF header '%s': not a pixel size (number and unit)",
                             frame->path, line);
      while (*after == ' ' || *after == 'x' || *after == 'X' || *after == '*')
        after++;
      if (mini_number (after, &px_s, unit, sizeof unit, NULL) && (s2 = length_unit (unit)) > 0)
        px_s *= s2;
      else
        px_s = px_f * s1;
      px_f *= s1;
      if (!(px_f > 0) || !(px_s > 0) || px_f > 0.1 || px_s > 0.1)
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: miniCBF header '%s': pixel size out of range (0 to 0.1 m)",
                             frame->path, line);
      if (fabs (px_f - px_s) > 1e-6 * px_f)
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: miniCBF header '%s': rectangular pixels are not supported",
                             frame->path, line);
      nb_frame_set_item (frame, NB_FRAME_PIXEL_SIZE, px_f, "the miniCBF header '%s'", line);
    }

  /* "# Beam_xy (2216.06, 2300.41) pixels" */
  if (mini_line (text, "Beam_xy", &rest, line, sizeof line))
    {
      const char *after;
      char unit2[16];
      double x, y;

      if (!mini_number (rest, &x, unit, sizeof unit, &after) ||
          !mini_number (after, &y, unit2, sizeof unit2, NULL))
        return nb_error_set (err, NB_ERR_PARSE, "%s: miniCBF header '%s': not two numbers",
                             frame->path, line);
      if (!(px_f > 0))
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: miniCBF header '%s' is in pixels, but there is no Pixel_size",
                             frame->path, line);
      nb_frame_set_item (frame, NB_FRAME_BEAM_F, x * px_f, "the miniCBF header '%s'", line);
      nb_frame_set_item (frame, NB_FRAME_BEAM_S, y * px_s, "the miniCBF header '%s'", line);
    }

  /* "# Silicon sensor, thickness 0.000450 m" */
  for (const char *p = text; (p = strstr (p, "thickness")) != NULL; p++)
    {
      const char *start = p, *end;

      while (start > text && start[-1] != '\n')
        start--;
      end = p + strcspn (p, "\r\n");
      if (*start != '#' || strstr (start, "sensor") == NULL || strstr (start, "sensor") > end)
        continue;
      nb_frame_quote (start + 1, (size_t) (end - start - 1), line, sizeof line);
      memmove (line, line + strspn (line, " "), strlen (line + strspn (line, " ")) + 1);
      if (mini_number (p + 9, &v, unit, sizeof unit, NULL) && length_unit (unit) > 0 && v >= 0)
        nb_frame_set_item (frame, NB_FRAME_THICKNESS, v * length_unit (unit),
                           "the miniCBF header '%s'", line);
      break;
    }

  /* "# Count_cutoff 65535 counts" */
  if (mini_line (text, "Count_cutoff", &rest, line, sizeof line))
    {
      if (!mini_number (rest, &v, unit, sizeof unit, NULL) || !(v >= 1))
        return nb_error_set (err, NB_ERR_PARSE, "%s: miniCBF header '%s': not a positive count",
                             frame->path, line);
      frame->count_cutoff = v > INT32_MAX ? 0 : (int64_t) ceil (v);
    }
  return NB_OK;
}

/* ---- full imgCIF ---- */

static int
has_category (cbf_handle h, const char *name)
{
  return cbf_rewind_datablock (h) == 0 && cbf_find_category (h, name) == 0;
}

/* The value of column @column in the row of category @category whose column
 * @key_column holds @key; NULL when there is none. */
static const char *
cbf_lookup (
    cbf_handle h, const char *category, const char *key_column, const char *key, const char *column)
{
  unsigned int rows = 0;

  if (cbf_rewind_datablock (h) != 0 || cbf_find_category (h, category) != 0 ||
      cbf_count_rows (h, &rows) != 0)
    return NULL;
  for (unsigned int r = 0; r < rows; r++)
    {
      const char *v = NULL;

      /* CBFlib selects a row only once a column is current */
      if (cbf_find_column (h, key_column) != 0 || cbf_select_row (h, r) != 0 ||
          cbf_get_value (h, &v) != 0 || v == NULL || strcmp (v, key) != 0)
        continue;
      if (cbf_find_column (h, column) != 0 || cbf_get_value (h, &v) != 0)
        return NULL;
      return v;
    }
  return NULL;
}

/* Whether the axis category is a forest CBFlib can walk: every depends_on
 * names an axis of the category (or is '.'), and no chain comes back to where
 * it started.  CBFlib 0.9.7 walks a chain that leads to a missing axis
 * forever (found by fuzzing).  NB_ERR_PARSE naming the axis otherwise. */
#define CBF_AXES_MAX 256

static nb_status
check_axes (cbf_handle h, const char *path, nb_error *err)
{
  const char *id[CBF_AXES_MAX], *dep[CBF_AXES_MAX];
  int parent[CBF_AXES_MAX];
  unsigned int rows = 0;

  if (cbf_rewind_datablock (h) != 0 || cbf_find_category (h, "axis") != 0 ||
      cbf_count_rows (h, &rows) != 0)
    return NB_OK;
  if (rows > CBF_AXES_MAX)
    return nb_error_set (err, NB_ERR_PARSE, "%s: more than %d axes in the CBF axis category", path,
                         CBF_AXES_MAX);
  for (unsigned int r = 0; r < rows; r++)
    {
      id[r] = dep[r] = NULL;
      if (cbf_find_column (h, "id") != 0 || cbf_select_row (h, r) != 0 ||
          cbf_get_value (h, &id[r]) != 0 || id[r] == NULL)
        return nb_error_set (err, NB_ERR_PARSE, "%s: row %u of the CBF axis category has no id",
                             path, r + 1);
      if (cbf_find_column (h, "depends_on") == 0 && cbf_select_row (h, r) == 0 &&
          cbf_get_value (h, &dep[r]) == 0 && dep[r] != NULL &&
          (strcmp (dep[r], ".") == 0 || strcmp (dep[r], "?") == 0))
        dep[r] = NULL;
    }
  for (unsigned int r = 0; r < rows; r++)
    {
      parent[r] = -1;
      if (dep[r] == NULL)
        continue;
      for (unsigned int q = 0; q < rows && parent[r] < 0; q++)
        if (strcmp (dep[r], id[q]) == 0)
          parent[r] = (int) q;
      if (parent[r] < 0)
        {
          char a[64], b[64];

          nb_frame_quote (id[r], strlen (id[r]), a, sizeof a);
          nb_frame_quote (dep[r], strlen (dep[r]), b, sizeof b);
          return nb_error_set (err, NB_ERR_PARSE,
                               "%s: the CBF axis '%s' depends on '%s', which the axis category "
                               "does not define",
                               path, a, b);
        }
    }
  for (unsigned int r = 0; r < rows; r++)
    {
      int at = (int) r;

      for (unsigned int steps = 0; at >= 0; steps++)
        {
          if (steps > rows)
            {
              char a[64];

              nb_frame_quote (id[r], strlen (id[r]), a, sizeof a);
              return nb_error_set (err, NB_ERR_PARSE,
                                   "%s: the CBF axis '%s' depends on itself (a cycle of "
                                   "depends_on)",
                                   path, a);
            }
          at = parent[at];
        }
    }
  return NB_OK;
}

/* The scan's rotation from the categories themselves (CBFlib's goniometer
 * object, cbf_construct_goniometer, crashes on some malformed files): of the
 * measurement's axes (diffrn_measurement_axis) the first whose scan
 * (diffrn_scan_axis) has a nonzero angle_increment, else the first with an
 * angle_start; its start and increment in degrees, its name in @axis.
 * Returns 0 when there is none. */
static int
scan_rotation (cbf_handle h, char *axis, size_t size, double *start, double *increment)
{
  unsigned int rows = 0;
  int found = 0;

  if (cbf_rewind_datablock (h) != 0 || cbf_find_category (h, "diffrn_measurement_axis") != 0 ||
      cbf_count_rows (h, &rows) != 0)
    return 0;
  for (unsigned int r = 0; r < rows && r < 64; r++)
    {
      const char *id = NULL, *a, *b;
      char name[64];
      char *end;
      double s0, inc;

      if (cbf_rewind_datablock (h) != 0 || cbf_find_category (h, "diffrn_measurement_axis") != 0 ||
          cbf_find_column (h, "axis_id") != 0 || cbf_select_row (h, r) != 0 ||
          cbf_get_value (h, &id) != 0 || id == NULL)
        continue;
      nb_frame_quote (id, strlen (id), name, sizeof name);
      a = cbf_lookup (h, "diffrn_scan_axis", "axis_id", name, "angle_start");
      if (a == NULL)
        continue;
      s0 = nb_frame_strtod (a, &end);
      if (end == a || !isfinite (s0))
        continue;
      b = cbf_lookup (h, "diffrn_scan_axis", "axis_id", name, "angle_increment");
      inc = b != NULL ? nb_frame_strtod (b, &end) : 0.0;
      if (b == NULL || end == b || !isfinite (inc))
        inc = 0.0;
      if (!found || inc != 0.0)
        {
          *start = s0;
          *increment = inc;
          snprintf (axis, size, "%s", name);
          found = 1;
        }
      if (inc != 0.0)
        break;
    }
  return found;
}

static nb_status
full_geometry (nb_frame *frame, cbf_handle h, nb_error *err)
{
  cbf_detector det = NULL;
  double v, index_f, index_s, centre_f, centre_s, px_f, px_s, start, increment;
  unsigned int elements = 0;
  nb_status st;
  int e;

  if ((e = cbf_get_wavelength (h, &v)) == 0 && v > 0 && isfinite (v))
    nb_frame_set_item (frame, NB_FRAME_WAVELENGTH, v * 1e-10,
                       "the CBF category diffrn_radiation_wavelength (%.10g A)", v);
  if ((e = cbf_get_integration_time (h, 0, &v)) == 0 && v >= 0 && isfinite (v))
    nb_frame_set_item (frame, NB_FRAME_EXPOSURE, v,
                       "the CBF category diffrn_scan_frame (integration time %.10g s)", v);
  if ((st = check_axes (h, frame->path, err)) != NB_OK)
    return st;
  /* CBFlib 0.9.7 takes element numbers modulo the element count: none divides by zero */
  if ((e = cbf_count_elements (h, &elements)) != 0 || elements == 0)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: the CBF category diffrn_detector_element names no element of the "
                         "detector (CBFlib: %s)",
                         frame->path, e ? cbf_message (e) : "no rows");
  /* several elements, or a model known not to be flat: nb_frame_detector_problem() */
  frame->n_modules = elements > INT32_MAX ? INT32_MAX : (int) elements;
  {
    const char *type = NULL;

    if (cbf_find_category (h, "diffrn_detector") == 0 && cbf_find_column (h, "type") == 0 &&
        cbf_rewind_row (h) == 0 && cbf_get_value (h, &type) == 0 && type != NULL)
      nb_frame_quote (type, strlen (type), frame->detector, sizeof frame->detector);
  }
  {
    double overload = 0;

    if (cbf_get_overload (h, 0, &overload) == 0 && overload >= 1 && overload <= INT32_MAX)
      frame->count_cutoff = (int64_t) ceil (overload);
  }

  if ((e = cbf_construct_detector (h, &det, 0)) != 0)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: the CBF axis categories do not describe a detector (CBFlib: %s)",
                         frame->path, cbf_message (e));
  if ((e = cbf_get_pixel_size_fs (h, 0, 1, &px_f)) != 0 ||
      (e = cbf_get_pixel_size_fs (h, 0, 2, &px_s)) != 0)
    {
      /* array_element_size missing: the detector's own axis increments */
      if ((e = cbf_get_inferred_pixel_size_fs (det, 1, &px_f)) != 0 ||
          (e = cbf_get_inferred_pixel_size_fs (det, 2, &px_s)) != 0)
        {
          cbf_free_detector (det);
          return nb_error_set (err, NB_ERR_PARSE, "%s: CBF: no pixel size (CBFlib: %s)",
                               frame->path, cbf_message (e));
        }
    }
  /* both in mm: CBFlib converts array_element_size's metres */
  px_f = fabs (px_f);
  px_s = fabs (px_s);
  if (!(px_f > 0) || !(px_f < 100) || fabs (px_f - px_s) > 1e-6 * px_f)
    {
      cbf_free_detector (det);
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: CBF pixel size %g x %g mm (square pixels of up to 100 mm only)",
                           frame->path, px_f, px_s);
    }
  nb_frame_set_item (frame, NB_FRAME_PIXEL_SIZE, px_f * 1e-3,
                     "the CBF category array_element_size / detector axes (%.10g mm)", px_f);
  if ((e = cbf_get_detector_distance (det, &v)) == 0 && v > 0 && isfinite (v))
    nb_frame_set_item (frame, NB_FRAME_DISTANCE, v * 1e-3,
                       "the CBF detector axes (cbf_get_detector_distance %.10g mm)", v);
  if ((e = cbf_get_beam_center_fs (det, &index_f, &index_s, &centre_f, &centre_s)) == 0 &&
      isfinite (index_f) && isfinite (index_s))
    {
      nb_frame_set_item (frame, NB_FRAME_BEAM_F, (index_f + 0.5) * px_f * 1e-3,
                         "the CBF detector axes (cbf_get_beam_center: pixel index %.10g, %.10g "
                         "from pixel (0, 0)'s centre)",
                         index_f, index_s);
      nb_frame_set_item (frame, NB_FRAME_BEAM_S, (index_s + 0.5) * px_s * 1e-3, "%s",
                         frame->item[NB_FRAME_BEAM_F].source);
    }
  cbf_free_detector (det);

  {
    char axis[64];

    if (scan_rotation (h, axis, sizeof axis, &start, &increment))
      {
        nb_frame_set_item (frame, NB_FRAME_PHI_START, start / RTD,
                           "the CBF goniometer axis %s (diffrn_scan_axis.angle_start %.10g deg)",
                           axis, start);
        nb_frame_set_item (frame, NB_FRAME_OSCILLATION, fabs (increment) / RTD,
                           "the CBF goniometer axis %s (diffrn_scan_axis.angle_increment %.10g "
                           "deg)",
                           axis, increment);
      }
  }
  return NB_OK;
}

/* ---- what CBFlib cannot take ---- */

/* CBFlib 0.9.7 trusts its input further than a reader of files from anywhere
 * may: its validator formats item names into a fixed buffer on the stack (a
 * name of a thousand characters overflows it), and its byte-offset decoder
 * writes every element its binary section holds.  Before CBFlib sees a file
 * its text is checked here: CIF's own limits (data names of at most 75
 * characters, lines of at most 2048; a little more is allowed), and every
 * binary section must declare its size and byte order; *@binary_max receives
 * the largest X-Binary-Size, which bounds what the decoder can write. */
#define CIF_NAME_MAX 128
#define CIF_LINE_MAX 4096

/* What check_cbf_text() knows of the text field and MIME section it is in. */
typedef struct
{
  int in_text, mime; /* inside a ';' text field; it holds a MIME section */
  int byte_order;    /* the section declared X-Binary-Element-Byte-Order */
  long declared;     /* its X-Binary-Size, or -1 */
} cbf_scan;

/* Line @line of @path, @l of @n bytes (without its newline) in a file of
 * @len bytes: the text fields it opens or closes, and the MIME header's size
 * and byte order, which stand on lines of their own. */
static nb_status
scan_line (const char *path,
           long line,
           const unsigned char *l,
           size_t n,
           size_t len,
           cbf_scan *sc,
           nb_error *err)
{
  static const char key[] = "X-Binary-Size:", order[] = "X-Binary-Element-Byte-Order:",
                    boundary[] = "--CIF-BINARY-FORMAT-SECTION--";

  /* text fields: a ';' at the start of a line opens one; closes it when a blank
   * follows.  CBFlib turns to MIME at the first line of a field that starts with
   * the boundary */
  if (n >= 1 && l[0] == ';')
    {
      if (!sc->in_text)
        sc->in_text = 1;
      else if (n == 1 || l[1] == ' ' || l[1] == '\t' || l[1] == '\r')
        sc->in_text = 0;
      sc->mime = 0;
    }
  else if (sc->in_text && !sc->mime && n >= sizeof boundary - 1 &&
           strncasecmp ((const char *) l, boundary, sizeof boundary - 1) == 0)
    {
      sc->mime = 1;
      sc->declared = -1;
      sc->byte_order = 0;
    }

  if (n > sizeof order - 1 && strncasecmp ((const char *) l, order, sizeof order - 1) == 0)
    {
      const char *v = (const char *) l + sizeof order - 1;
      size_t m = n - (sizeof order - 1);

      while (m > 0 && (*v == ' ' || *v == '\t'))
        v++, m--;
      while (m > 0 && (v[m - 1] == ' ' || v[m - 1] == '\t' || v[m - 1] == '\r'))
        m--;
      sc->byte_order = (m == 13 && strncasecmp (v, "LITTLE_ENDIAN", 13) == 0) ||
                       (m == 10 && strncasecmp (v, "BIG_ENDIAN", 10) == 0);
    }

  if (n > sizeof key - 1 && strncasecmp ((const char *) l, key, sizeof key - 1) == 0)
    {
      char number[32];
      size_t k = sizeof key - 1, m = 0;
      char *end;
      double v;

      while (k < n && (l[k] == ' ' || l[k] == '\t'))
        k++;
      while (k < n && m + 1 < sizeof number && l[k] != '\r')
        number[m++] = (char) l[k++];
      number[m] = '\0';
      v = nb_frame_strtod (number, &end);
      if (end == number || !(v >= 0 && v <= (double) len))
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s:%ld: X-Binary-Size '%s' is not a size within the file", path, line,
                             number);
      sc->declared = (long) v;
    }
  return NB_OK;
}

static nb_status
check_cbf_text (const char *path, size_t *binary_max, nb_error *err)
{
  static const unsigned char marker[4] = { 0x0c, 0x1a, 0x04, 0xd5 };
  FILE *fp;
  unsigned char *data = NULL;
  struct stat st_file;
  size_t len, pos = 0, line_start = 0, token_start = 0, in_token = 0;
  long line = 1;
  cbf_scan sc = { 0, 0, 0, -1 };
  nb_status st = NB_OK;

  *binary_max = 0;
  if ((st = nb_input_fopen (path, &fp, &st_file, err)) != NB_OK)
    return st;
  len = (size_t) st_file.st_size;
  {
    nb_frame none = { .path = (char *) path };

    /* the whole text is checked in memory */
    if ((st = nb_frame_check_budget (&none, (double) len, "the file's text", err)) != NB_OK)
      {
        fclose (fp);
        return st;
      }
  }
  data = nb_alloc_large (len > 0 ? len : 1);
  if (data == NULL)
    {
      fclose (fp);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
    }
  if (fread (data, 1, len, fp) != len)
    {
      st = nb_error_set (err, NB_ERR_IO, "cannot read %s: %s", path, strerror (errno));
      goto out;
    }

  while (pos < len)
    {
      unsigned char c = data[pos];

      if (c == marker[0] && pos + 4 <= len && memcmp (data + pos, marker, 4) == 0)
        {
          /* a binary section: skip the size its MIME header declared.  CBFlib reads one
           * only in a ';' text field opened by a MIME boundary; elsewhere it takes the
           * bytes for its old "simple binary" and formats a byte order it never set */
          if (!sc.in_text || !sc.mime)
            {
              st = nb_error_set (err, NB_ERR_PARSE,
                                 "%s:%ld: binary data outside a MIME section (a ';' text field "
                                 "opened by --CIF-BINARY-FORMAT-SECTION--)",
                                 path, line);
              goto out;
            }
          if (sc.declared < 0)
            {
              st = nb_error_set (err, NB_ERR_PARSE,
                                 "%s:%ld: binary data without an X-Binary-Size header", path, line);
              goto out;
            }
          /* without one, CBFlib 0.9.7's lexer formats a byte order left from an earlier
           * parse (a freed string) */
          if (!sc.byte_order)
            {
              st = nb_error_set (err, NB_ERR_PARSE,
                                 "%s:%ld: binary data without an X-Binary-Element-Byte-Order "
                                 "header (LITTLE_ENDIAN or BIG_ENDIAN)",
                                 path, line);
              goto out;
            }
          if ((size_t) sc.declared > *binary_max)
            *binary_max = (size_t) sc.declared;
          /* the data, then the padding some writers add (X-Binary-Size-Padding) */
          pos += 4 + (size_t) sc.declared;
          while (pos < len && data[pos] == '\0')
            pos++;
          line_start = pos;
          in_token = 0;
          sc.declared = -1;
          sc.byte_order = 0;
          sc.mime = 0;
          continue;
        }
      if (c == 0x1a || c == 0x04)
        {
          st = nb_error_set (err, NB_ERR_PARSE,
                             "%s:%ld: control byte 0x%02x outside binary data (CBFlib would read "
                             "binary data there)",
                             path, line, c);
          goto out;
        }
      if (c == '\n')
        {
          if ((st = scan_line (path, line, data + line_start, pos - line_start, len, &sc, err)) !=
              NB_OK)
            goto out;
          line++;
          line_start = pos + 1;
        }
      else if (pos - line_start >= CIF_LINE_MAX)
        {
          st = nb_error_set (err, NB_ERR_PARSE,
                             "%s:%ld: a line of more than %d characters (not CIF; CBFlib would "
                             "overflow)",
                             path, line, CIF_LINE_MAX);
          goto out;
        }
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        in_token = 0;
      else
        {
          if (!in_token)
            {
              in_token = 1;
              token_start = pos;
            }
          else if (pos - token_start >= CIF_NAME_MAX &&
                   (data[token_start] == '_' ||
                    strncasecmp ((const char *) data + token_start, "data_", 5) == 0 ||
                    strncasecmp ((const char *) data + token_start, "save_", 5) == 0))
            {
              st = nb_error_set (err, NB_ERR_PARSE,
                                 "%s:%ld: a name of more than %d characters (CIF allows 75)", path,
                                 line, CIF_NAME_MAX);
              goto out;
            }
        }
      pos++;
    }

out:
  free (data);
  fclose (fp);
  return st;
}

/* ---- reading ---- */

static const char *
compression_name (unsigned int compression)
{
  switch (compression & CBF_COMPRESSION_MASK)
    {
      case CBF_NONE:
        return "none";
      case CBF_CANONICAL:
        return "canonical";
      case CBF_PACKED:
        return "packed";
      case CBF_PACKED_V2:
        return "packed v2";
      case CBF_BYTE_OFFSET:
        return "byte offset";
      case CBF_NIBBLE_OFFSET:
        return "nibble offset";
      case CBF_PREDICTOR:
        return "predictor";
      default:
        return "unknown";
    }
}

static nb_status
read_pixels (nb_frame *frame, cbf_handle h, unsigned flags, size_t binary_max, nb_error *err)
{
  unsigned int compression = 0;
  int id = 0, elsigned = 0, elunsigned = 0, minelem = 0, maxelem = 0, e;
  size_t elsize = 0, nelem = 0, dimf = 0, dimm = 0, dims = 0, padding = 0, nread = 0, n;
  const char *byteorder = NULL;

  if ((e = cbf_rewind_datablock (h)) != 0 || (e = cbf_find_category (h, "array_data")) != 0 ||
      (e = cbf_find_column (h, "data")) != 0 || (e = cbf_rewind_row (h)) != 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: CBF without _array_data.data (CBFlib: %s)",
                         frame->path, cbf_message (e));
  e = cbf_get_integerarrayparameters_wdims_fs (h, &compression, &id, &elsize, &elsigned,
                                               &elunsigned, &nelem, &minelem, &maxelem, &byteorder,
                                               &dimf, &dimm, &dims, &padding);
  if (e != 0)
    {
      double *ignored = NULL;
      int real = cbf_get_realarrayparameters (h, &compression, &id, &elsize, &nelem) == 0;

      (void) ignored;
      if (real)
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: CBF pixels are floating-point, not counts (%zu-byte reals)",
                             frame->path, elsize);
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: CBF binary section unreadable: unknown compression or a "
                           "malformed MIME header (CBFlib: %s)",
                           frame->path, cbf_message (e));
    }
  if (elsize != 1 && elsize != 2 && elsize != 4)
    return nb_error_set (err, NB_ERR_PARSE, "%s: CBF pixels of %zu bytes (1, 2 or 4 are read)",
                         frame->path, elsize);
  snprintf (frame->element_type, sizeof frame->element_type, "%s %zu-bit",
            elsigned ? "signed" : "unsigned", elsize * 8);
  /* a 2-D array has its slow dimension in the middle place */
  if (dims <= 1 && dimm > 0)
    {
      dims = dimm;
      dimm = 1;
    }
  if (dimm > 1)
    return nb_error_set (err, NB_ERR_PARSE, "%s: CBF array of %zu x %zu x %zu: not one 2-D frame",
                         frame->path, dimf, dimm, dims);
  if (dimf == 0 || dims == 0 || dimf > 65536 || dims > 65536)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: CBF dimensions %zu x %zu (fast x slow; 1 to 65536 each, both "
                         "given by X-Binary-Size-Fastest-Dimension and -Second-Dimension)",
                         frame->path, dimf, dims);
  n = dimf * dims;
  if (nelem != n)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: wrong size: X-Binary-Number-of-Elements %zu is not %zu x %zu",
                         frame->path, nelem, dimf, dims);
  frame->fpixels = (int) dimf;
  frame->spixels = (int) dims;
  if (flags & NB_FRAME_HEADER_ONLY)
    return NB_OK;
  {
    /* no compression CBFlib knows packs 64 elements into a byte: a header claiming more is
     * wrong, and is refused before its pixels are allocated */
    struct stat st_file;

    if (stat (frame->path, &st_file) == 0 && (double) n > 64.0 * (double) st_file.st_size + 4096)
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: wrong size: %zu x %zu pixels cannot fit in a file of %lld bytes",
                           frame->path, dimf, dims, (long long) st_file.st_size);
  }

  {
    /* CBFlib's byte-offset decoder (0.9.7) decodes every element its binary section holds,
     * however many were asked for: room for as many as the section has bytes, each element
     * taking at least one */
    nb_status st = nb_frame_alloc_pixels_capacity (frame, binary_max + 16, err);

    if (st != NB_OK)
      return st;
  }
  /* signed and 8/16-bit data come as int32; unsigned 32-bit as uint32, in the same buffer */
  e = cbf_get_integerarray (h, &id, frame->counts, 4, elsigned || elsize < 4, n, &nread);
  if (e != 0 || nread != n)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: CBF data could not be decoded: %zu of %zu pixels (compression %s; "
                         "CBFlib: %s): truncated or corrupt, or a compression CBFlib does not "
                         "know",
                         frame->path, nread, n, compression_name (compression),
                         e ? cbf_message (e) : "too few elements");
  if (!elsigned && elsize == 4)
    for (size_t i = 0; i < n; i++)
      if ((uint32_t) frame->counts[i] > INT32_MAX)
        {
          frame->mask[i] = NB_PIXEL_MASKED;
          frame->counts[i] = INT32_MAX;
        }
  nb_frame_classify (frame);
  return NB_OK;
}

nb_status
nb_frame_read_cbf (const char *path, unsigned flags, nb_frame *frame, nb_error *err)
{
  cbf_handle h = NULL;
  FILE *fp, *log;
  char *log_text = NULL;
  size_t log_len = 0, binary_max = 0;
  nb_status st = NB_OK;
  int e;

  frame->format = NB_FRAME_MINICBF;
  if ((st = check_cbf_text (path, &binary_max, err)) != NB_OK)
    return st;
  if ((e = cbf_make_handle (&h)) != 0)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: CBFlib: %s", path, cbf_message (e));
  /* CBFlib logs its parser's complaints to stderr; the engine never prints, so they go to
   * memory, and the first becomes part of the message */
  log = open_memstream (&log_text, &log_len);
  cbf_set_cbf_logfile (h, log);
  if ((st = nb_input_fopen (path, &fp, NULL, err)) != NB_OK)
    goto out;
  /* CBFlib owns the stream from here and closes it with the handle */
  e = cbf_read_widefile (h, fp, MSG_DIGEST);
  if (e != 0)
    {
      char said[160] = "";

      if (log != NULL && fflush (log) == 0 && log_text != NULL)
        {
          const char *t = log_text;

          if (strncmp (t, "CBFlib: ", 8) == 0)
            t += 8;
          nb_frame_quote (t, strcspn (t, "\n"), said, sizeof said);
        }
      st = nb_error_set (err, NB_ERR_PARSE, "%s: not a readable CBF file (CBFlib: %s%s%s)", path,
                         cbf_message (e), said[0] ? ": " : "", said);
      goto out;
    }

  if (has_category (h, "axis") && has_category (h, "diffrn_detector_element"))
    {
      frame->format = NB_FRAME_CBF;
      if ((st = full_geometry (frame, h, err)) != NB_OK)
        goto out;
    }
  else if (has_category (h, "array_data") && cbf_find_column (h, "header_contents") == 0 &&
           cbf_rewind_row (h) == 0)
    {
      const char *text = NULL;

      if ((e = cbf_get_value (h, &text)) != 0 || text == NULL)
        {
          st = nb_error_set (err, NB_ERR_PARSE,
                             "%s: unreadable _array_data.header_contents (CBFlib: %s)", path,
                             cbf_message (e));
          goto out;
        }
      if ((frame->header = strdup (text)) == NULL)
        {
          st = nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
          goto out;
        }
      if ((st = mini_geometry (frame, frame->header, err)) != NB_OK)
        goto out;
    }
  else
    frame->format = NB_FRAME_CBF; /* no geometry at all: the pixels alone */

  st = read_pixels (frame, h, flags, binary_max, err);

out:
  cbf_free_handle (h);
  if (log != NULL)
    fclose (log);
  free (log_text);
  return st;
}
