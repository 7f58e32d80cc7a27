/* param.c: the generic rules of the parameter table (nb-param.h): fields,
 * units, numbers on the command line, side effects, look-up, properties,
 * stages and help.  They read the table; the parser, the formatter and the
 * checks use them. */
#include "nb-param-private.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- fields ---- */

double
nb_param_field (const nb_param *row, const nb_params *p, int k)
{
  nb_params *q = (nb_params *) p;

  switch (row->type)
    {
      case NB_FIELD_DOUBLE:
        return *nb_param_double (q, row, k);
      case NB_FIELD_INT:
        return *nb_param_int (q, row, k);
      case NB_FIELD_LONG:
        return (double) *nb_param_long (q, row, k);
      case NB_FIELD_STRING:
        break;
    }
  return NAN;
}

void
nb_param_store (const nb_param *row, nb_params *p, int k, double v)
{
  switch (row->type)
    {
      case NB_FIELD_DOUBLE:
        *nb_param_double (p, row, k) = v;
        break;
      case NB_FIELD_INT:
        *nb_param_int (p, row, k) = (int) v;
        break;
      case NB_FIELD_LONG:
        *nb_param_long (p, row, k) = (long) v;
        break;
      case NB_FIELD_STRING:
        break;
    }
}

int
nb_param_same (const nb_param *row, const nb_params *a, const nb_params *b, int k)
{
  nb_params *x = (nb_params *) a, *y = (nb_params *) b;

  switch (row->type)
    {
      case NB_FIELD_DOUBLE:
        {
          double u = *nb_param_double (x, row, k), v = *nb_param_double (y, row, k);

          if (isnan (u) || isnan (v))
            return isnan (u) && isnan (v);
          return u == v && signbit (u) == signbit (v);
        }
      case NB_FIELD_INT:
        return *nb_param_int (x, row, k) == *nb_param_int (y, row, k);
      case NB_FIELD_LONG:
        return *nb_param_long (x, row, k) == *nb_param_long (y, row, k);
      case NB_FIELD_STRING:
        {
          const char *s = *nb_param_string (x, row, k), *t = *nb_param_string (y, row, k);

          return s == t || (s != NULL && t != NULL && strcmp (s, t) == 0);
        }
    }
  return 1;
}

/* ---- units ---- */

double
nb_unit_to_field (const nb_unit *u, double x)
{
  if (u == NULL)
    return x;
  switch (u->kind)
    {
      case NB_UNIT_SAME:
        return x;
      case NB_UNIT_DIVIDE:
        return x / u->k;
      case NB_UNIT_MULTIPLY:
        return x * u->k;
      case NB_UNIT_INVERSE:
        return 1.0 / (x * u->k);
      case NB_UNIT_INVERSE_K2:
        return (u->k2 / x) / u->k;
      case NB_UNIT_NEGATE:
        return -x;
    }
  return x;
}

double
nb_unit_from_field (const nb_unit *u, double v)
{
  if (u == NULL)
    return v;
  switch (u->kind)
    {
      case NB_UNIT_SAME:
        return v;
      case NB_UNIT_DIVIDE:
        return v * u->k;
      case NB_UNIT_MULTIPLY:
        return v / u->k;
      case NB_UNIT_INVERSE:
        return 1.0 / (v * u->k);
      case NB_UNIT_INVERSE_K2:
        return u->k2 / (v * u->k);
      case NB_UNIT_NEGATE:
        return -v;
    }
  return v;
}

const char *
nb_unit_suffix (const nb_unit *u, char buf[32])
{
  if (u == NULL || u->name[0] == '\0')
    return "";
  snprintf (buf, 32, "%s%s", strcmp (u->name, "%") == 0 ? "" : " ", u->name);
  return buf;
}

/* ---- numbers on the command line ---- */

/* strtod() with '.' as the decimal point whatever locale the host chose (a
 * GTK or Python program in a comma-decimal locale), as hkl.c reads files:
 * strtod_l() in the C locale, made once and kept for the process.  Without
 * it (out of memory) plain strtod(), right in the C locale the CLI runs in. */
double
nb_c_strtod (const char *s, char **end)
{
  static _Atomic (locale_t) shared;
  locale_t c = atomic_load (&shared), expected = (locale_t) 0;

  if (c == (locale_t) 0)
    {
      c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
      if (c == (locale_t) 0)
        return strtod (s, end);
      if (!atomic_compare_exchange_strong (&shared, &expected, c))
        {
          freelocale (c);
          c = expected;
        }
    }
  return strtod_l (s, end, c);
}

int
nb_is_number_token (const char *s)
{
  char *end;

  if (s == NULL || *s == '\0')
    return 0;
  errno = 0;
  nb_c_strtod (s, &end);
  return end != s && *end == '\0';
}

int
nb_is_value_token (const char *s)
{
  return s[0] != '-' || nb_is_number_token (s);
}

nb_status
nb_parse_number (const char *flag, const char *value, double *out, nb_error *err)
{
  char *end;
  double v;

  errno = 0;
  v = nb_c_strtod (value, &end);
  if (end == value || *end != '\0')
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a number", flag, value);
  if (!isfinite (v))
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a finite number", flag, value);
  *out = v;
  return NB_OK;
}

nb_status
nb_parse_whole (const char *flag, const char *value, double *out, nb_error *err)
{
  double v = 0.0;
  nb_status st = nb_parse_number (flag, value, &v, err);

  if (st != NB_OK)
    return st;
  if (v != floor (v) || fabs (v) > 2147483647.0)
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a whole number", flag, value);
  *out = v;
  return NB_OK;
}

/* ---- side effects ---- */

void
nb_param_apply_effects (const nb_param *row, nb_params *p)
{
  unsigned e = row->effects;

  if (e & NB_SETS_CUSTOM)
    p->convention = NB_CONVENTION_CUSTOM;
  if (e & NB_SETS_PIVOT_BEAM)
    p->pivot = NB_PIVOT_BEAM;
  if (e & NB_SETS_PIVOT_SAMPLE)
    p->pivot = NB_PIVOT_SAMPLE;
  if ((e & NB_SETS_TWOTHETA) && !p->physical)
    {
      /* the reference's -twotheta handler also fires on the axis */
      p->twotheta = nb_unit_to_field (&nb_unit_deg, p->twotheta_axis[0]);
      p->pivot = NB_PIVOT_SAMPLE;
    }
  if (e & NB_SETS_POLAR)
    p->nopolar = 0;
  if (e & NB_SETS_PGM)
    p->write_pgm = 1;
  if (e & NB_SETS_NOISE)
    p->calculate_noise = 1;
  if (e & NB_SETS_PRINTOUT)
    p->printout = 1;
  if (e & NB_SETS_MISSET)
    p->misset_random = 0;
  if (e & NB_SETS_STOL_KIND)
    p->stol_kind = (nb_stol_kind) row->value;
}

/* ---- look-up ---- */

/* Does @arg match the spelling @s (@len bytes; "x*": any spelling starting
 * with x)?  Returns the length matched, 0 for none. */
static size_t
spelling_match (const char *arg, const char *s, size_t len, int prefix)
{
  if (len > 0 && s[len - 1] == '*')
    {
      len--;
      prefix = 1;
    }
  else if (len > 0 && s[len - 1] == '=')
    len--;
  if (prefix ? strncmp (arg, s, len) == 0 : strlen (arg) == len && strncmp (arg, s, len) == 0)
    return len;
  return 0;
}

const nb_param *
nb_param_find (const char *flag)
{
  size_t n, best_len = 0;
  const nb_param *rows = nb_param_table (&n), *best = NULL;

  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      const char *s = row->aliases;
      size_t len;

      if (row->flag == NULL)
        continue;
      len =
          spelling_match (flag, row->flag, strlen (row->flag), (row->flags & NB_PARAM_PREFIX) != 0);
      if (len > best_len)
        {
          best = row;
          best_len = len;
        }
      while (s != NULL && *s != '\0')
        {
          size_t word = strcspn (s, " ");

          len = spelling_match (flag, s, word, 0);
          if (len > best_len)
            {
              best = row;
              best_len = len;
            }
          s += word;
          s += strspn (s, " ");
        }
    }
  return best;
}

const nb_param *
nb_param_find_property (const char *property)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  for (size_t i = 0; i < n; i++)
    if (rows[i].property != NULL && strcmp (rows[i].property, property) == 0)
      return &rows[i];
  return NULL;
}

const nb_param *
nb_param_find_field (size_t offset)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  for (size_t i = 0; i < n; i++)
    if (rows[i].flag != NULL && !(rows[i].flags & NB_PARAM_COMPONENT) && rows[i].n_field > 0 &&
        rows[i].field[0] == offset)
      return &rows[i];
  return NULL;
}

const nb_param *
nb_param_owner (const nb_param *row)
{
  const nb_param *owner;

  if (!(row->flags & NB_PARAM_COMPONENT))
    return row;
  owner = nb_param_find (row->name);
  return owner != NULL ? owner : row;
}

const char *
nb_param_unit_symbol (const nb_param *row)
{
  if (row->prop_unit != NULL)
    return row->prop_unit;
  return row->unit != NULL ? row->unit->symbol : "";
}

/* ---- properties ---- */

/* Whether @a and @b set a field in common. */
static int
shares_field (const nb_param *a, const nb_param *b)
{
  if (a->type != b->type)
    return 0;
  for (int i = 0; i < a->n_field; i++)
    for (int j = 0; j < b->n_field; j++)
      if (a->field[i] == b->field[j])
        return 1;
  return 0;
}

/* @x in @to's property unit of the value @v has in @from's flag unit; an
 * infinite end of @from's range that converts to a finite value is a limit
 * never reached (*@open). */
static double
convert_bound (const nb_param *from, double v, const nb_param *to, int *open)
{
  double x = nb_unit_from_field (to->unit, nb_unit_to_field (from->unit, v));

  if (to->prop_scale != 0.0)
    x *= to->prop_scale;
  if (isinf (v) && isfinite (x))
    *open = 1;
  return x;
}

/* Narrows [*lo, *hi] (with their openness) to @checker's range in @row's unit. */
static void
narrow_range (const nb_param *row,
              const nb_param *checker,
              double *lo,
              int *lo_open,
              double *hi,
              int *hi_open)
{
  int open_a = (checker->flags & NB_PARAM_MIN_OPEN) != 0;
  int open_b = (checker->flags & NB_PARAM_MAX_OPEN) != 0;
  double a = convert_bound (checker, checker->min, row, &open_a);
  double b = convert_bound (checker, checker->max, row, &open_b);

  if (a > b)
    {
      double t = a;
      int o = open_a;

      a = b, b = t;
      open_a = open_b, open_b = o;
    }
  if (a > *lo || (a == *lo && open_a))
    *lo = a, *lo_open = open_a;
  if (b < *hi || (b == *hi && open_b))
    *hi = b, *hi_open = open_b;
}

void
nb_param_property_range (const nb_param *row, double *min, double *max)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  double lo = -INFINITY, hi = INFINITY;
  int lo_open = 0, hi_open = 0;

  /* the rows nb_params_validate() checks the fields with, and the row itself */
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *r = &rows[i];

      if ((r == row || (!(r->flags & (NB_PARAM_COMPONENT | NB_PARAM_NO_RANGE)) &&
                        (r->kind == NB_PARAM_NUMBER || r->kind == NB_PARAM_WHOLE))) &&
          shares_field (r, row))
        narrow_range (row, r, &lo, &lo_open, &hi, &hi_open);
    }
  /* what the row's own parser refuses */
  if ((row->flags & (NB_PARAM_NONNEG | NB_PARAM_POSITIVE)) && lo < 0.0)
    lo = 0.0, lo_open = 0;
  if ((row->flags & (NB_PARAM_POSITIVE | NB_PARAM_NONZERO)) && lo == 0.0)
    lo_open = 1;
  /* a "not given" value the property may be set to */
  if (row->flags & (NB_PARAM_ZERO_SETS_UNSET | NB_PARAM_UNSET_READS_ZERO))
    {
      if (lo > 0.0 || (lo == 0.0 && lo_open))
        lo = 0.0, lo_open = 0;
    }
  if ((row->flags & NB_PARAM_UNSET_SETTABLE) && isfinite (row->unset))
    {
      double u = nb_unit_from_field (row->unit, row->unset);

      if (u < lo || (u == lo && lo_open))
        lo = u, lo_open = 0;
      if (u > hi || (u == hi && hi_open))
        hi = u, hi_open = 0;
    }
  if (row->kind == NB_PARAM_WHOLE)
    {
      lo = lo_open ? floor (lo) + 1.0 : ceil (lo);
      hi = hi_open ? ceil (hi) - 1.0 : floor (hi);
      lo_open = hi_open = 0;
    }
  *min = isinf (lo) ? -DBL_MAX : lo_open ? nextafter (lo, INFINITY) : lo;
  *max = isinf (hi) ? DBL_MAX : hi_open ? nextafter (hi, -INFINITY) : hi;
}

double
nb_param_get_number (const nb_param *row, const nb_params *p, const nb_plan_info *info)
{
  double v = nb_param_field (row, p, 0);
  double x;

  if ((row->derive != NULL || (row->flags & NB_PARAM_UNSET_READS_ZERO)) &&
      nb_param_is_unset (row, v))
    {
      if (row->derive == NULL)
        return 0.0;
      v = row->derive (p, info);
    }
  x = nb_unit_from_field (row->unit, v);
  return row->prop_scale != 0.0 ? x * row->prop_scale : x;
}

double
nb_param_get_reported (const nb_param *row, const nb_plan_info *info)
{
  const char *at = (const char *) info + row->reported;
  double v = row->kind == NB_PARAM_WHOLE ? *(const int *) (const void *) at
                                         : *(const double *) (const void *) at;

  return nb_unit_from_field (row->unit, v);
}

/* What the parser refuses of a value it converted: a sign that would read as
 * "not given", a zero it cannot convert. */
nb_status
nb_param_check_sign (
    const nb_param *row, const char *flag, const char *text, double x, nb_error *err)
{
  if ((row->flags & NB_PARAM_NONNEG) && x < 0.0)
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' must not be negative", flag, text);
  if ((row->flags & NB_PARAM_POSITIVE) && !(x > 0.0))
    {
      if (row->kind == NB_PARAM_WHOLE)
        return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' must be at least 1", flag, text);
      return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a positive number of %s", flag, text,
                           row->unit != NULL ? row->unit->name : "");
    }
  if ((row->flags & NB_PARAM_NONZERO) && x == 0.0)
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' must not be 0", flag, text);
  return NB_OK;
}

nb_status
nb_param_set_number (const nb_param *row, nb_params *p, double v, nb_error *err)
{
  const nb_param *owner = nb_param_owner (row);
  double x = row->prop_scale != 0.0 ? v / row->prop_scale : v;
  double field = nb_unit_to_field (row->unit, x);
  nb_status st;

  if ((row->flags & NB_PARAM_ZERO_SETS_UNSET) && x == 0.0)
    field = row->unset;
  else if (!((row->flags & NB_PARAM_UNSET_SETTABLE) && nb_param_is_unset (row, field)))
    {
      char text[32];

      snprintf (text, sizeof text, "%g", x);
      if ((st = nb_param_check_sign (row, owner->flag, text, x, err)) != NB_OK)
        {
          /* a property value, not a command line */
          if (err != NULL)
            err->code = NB_ERR_INVALID;
          return NB_ERR_INVALID;
        }
      if (row->kind == NB_PARAM_WHOLE && isfinite (x) && x != floor (x))
        return nb_error_set (err, NB_ERR_INVALID, "%s: '%s' is not a whole number", owner->flag,
                             text);
    }
  /* a component sets its own field; a flag with one value for several
   * fields sets them all */
  for (int k = 0; k < (row->nargs == 1 ? row->n_field : 1); k++)
    nb_param_store (row, p, k, field);
  nb_param_apply_effects (owner, p);
  return NB_OK;
}

const char *
nb_param_get_text (const nb_param *row, const nb_params *p)
{
  if (row->type == NB_FIELD_STRING)
    return *nb_param_string ((nb_params *) p, row, 0);
  if (row->choices != NULL)
    {
      int v = *nb_param_int ((nb_params *) p, row, 0);

      for (const nb_choice *c = row->choices; c->word != NULL; c++)
        if (c->value == v)
          return c->word;
    }
  return NULL;
}

void
nb_param_choice_list (const nb_param *row, const char *separator, char *buf, size_t size)
{
  size_t len = 0;

  buf[0] = '\0';
  for (const nb_choice *c = row->choices; c != NULL && c->word != NULL && len < size; c++)
    len += (size_t) snprintf (buf + len, size - len, "%s%s", c == row->choices ? "" : separator,
                              c->word);
}

int
nb_param_choice_value (const nb_param *row, const char *word, int *value)
{
  for (const nb_choice *c = row->choices; c != NULL && c->word != NULL; c++)
    if (strcmp (c->word, word) == 0)
      {
        *value = c->value;
        return 1;
      }
  return 0;
}

/* A CHOICE field set through a property follows the switch flag that sets
 * the same value, side effects included (convention "xds" as -xds). */
static void
apply_switch_effects (const nb_param *row, nb_params *p, int value)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  for (size_t i = 0; i < n; i++)
    if (rows[i].kind == NB_PARAM_SWITCH && rows[i].field[0] == row->field[0] &&
        rows[i].value == value)
      {
        nb_param_apply_effects (&rows[i], p);
        return;
      }
}

nb_status
nb_param_set_text (const nb_param *row, nb_params *p, const char *text, nb_error *err)
{
  if (row->type == NB_FIELD_STRING)
    {
      char **slot = nb_param_string (p, row, 0);
      char *copy = NULL;

      if (text != NULL && text[0] != '\0' && (copy = strdup (text)) == NULL)
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
      free (*slot);
      *slot = copy;
      nb_param_apply_effects (row, p);
      return NB_OK;
    }
  if (row->choices != NULL)
    {
      int value;

      if (text == NULL)
        {
          nb_params d;

          nb_params_init (&d);
          value = *nb_param_int (&d, row, 0);
          nb_params_clear (&d);
        }
      else if (!nb_param_choice_value (row, text, &value))
        {
          char list[128];

          nb_param_choice_list (row, ", ", list, sizeof list);
          return nb_error_set (err, NB_ERR_INVALID, "%s: '%s' is not one of %s",
                               row->flag != NULL ? row->flag : row->name, text, list);
        }
      *nb_param_int (p, row, 0) = value;
      nb_param_apply_effects (row, p);
      apply_switch_effects (row, p, value);
      return NB_OK;
    }
  return nb_error_set (err, NB_ERR_INVALID, "%s: not a text parameter",
                       row->flag != NULL ? row->flag : row->name);
}

/* ---- stages ---- */

unsigned
nb_param_changed (const nb_params *a, const nb_params *b)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  unsigned changed = 0;

  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];

      if ((row->stages & ~changed) == 0)
        continue;
      for (int k = 0; k < row->n_field; k++)
        if (!nb_param_same (row, a, b, k))
          {
            changed |= row->stages;
            break;
          }
    }
  return changed;
}

/* ---- help ---- */

/* "-distance mm", "-cell a b c alpha beta gamma": the flag and its values. */
static void
synopsis (const nb_param *row, char *buf, size_t size)
{
  const char *value = row->unit != NULL && row->unit->name[0] != '\0' ? row->unit->name : "x";
  size_t len = (size_t) snprintf (buf, size, "%s", row->flag);

  if (row->synopsis != NULL)
    {
      snprintf (buf + len, size - len, " %s", row->synopsis);
      return;
    }
  switch (row->kind)
    {
      case NB_PARAM_TEXT:
        snprintf (buf + len, size - len, " FILE");
        return;
      case NB_PARAM_CHOICE:
        buf[len++] = ' ';
        nb_param_choice_list (row, "|", buf + len, size - len);
        return;
      case NB_PARAM_WHOLE:
        value = "n";
        break;
      case NB_PARAM_SWITCH:
      case NB_PARAM_SECTION:
        return;
      case NB_PARAM_NUMBER:
      case NB_PARAM_IGNORED:
        break;
    }
  for (int k = 0; k < (row->nargs < 0 ? row->n_field : row->nargs) && len < size; k++)
    len += (size_t) snprintf (buf + len, size - len, " %s", value);
}

/* Appends the words of @text to @out (@len bytes long, ending at @column),
 * each after a space or, past @width, on a new line indented by @indent. */
static size_t
wrap (char *out, size_t len, const char *text, int column, int indent, int width)
{
  while (*text != '\0')
    {
      size_t word = strcspn (text, " ");

      if (column + 1 + (int) word > width && column > indent)
        {
          out[len++] = '\n';
          memset (out + len, ' ', (size_t) indent);
          len += (size_t) indent;
          column = indent;
        }
      else
        {
          out[len++] = ' ';
          column++;
        }
      memcpy (out + len, text, word);
      len += word;
      column += (int) word;
      text += word;
      text += strspn (text, " ");
    }
  out[len++] = '\n';
  out[len] = '\0';
  return len;
}

char *
nb_params_help (void)
{
  size_t n, len = 0, cap = 16384;
  const nb_param *rows = nb_param_table (&n);
  char *text = malloc (cap);

  if (text == NULL)
    return NULL;
  text[0] = '\0';
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      char flag[128], line[4096];
      int w;

      if (row->kind == NB_PARAM_SECTION)
        w = snprintf (line, sizeof line, "%s%s:\n", len > 0 ? "\n" : "", row->help);
      else if (row->flag != NULL)
        {
          char help[1536];

          synopsis (row, flag, sizeof flag);
          snprintf (help, sizeof help, "%s%s%s%s%s%s", row->help,
                    row->aliases != NULL ? " (also " : "", row->aliases != NULL ? row->aliases : "",
                    row->aliases != NULL ? ")" : "", row->more != NULL ? ". " : "",
                    row->more != NULL ? row->more : "");
          w = snprintf (line, sizeof line, "  %-29s", flag);
          if (w < 0 || (size_t) w >= sizeof line / 2)
            continue;
          w = (int) wrap (line, (size_t) w, help, w, 32, 100);
        }
      else
        continue;
      if (w < 0)
        continue;
      if (len + (size_t) w + 1 > cap)
        {
          char *bigger;

          cap = 2 * (len + (size_t) w + 1);
          if ((bigger = realloc (text, cap)) == NULL)
            {
              free (text);
              return NULL;
            }
          text = bigger;
        }
      memcpy (text + len, line, (size_t) w + 1);
      len += (size_t) w;
    }
  return text;
}
