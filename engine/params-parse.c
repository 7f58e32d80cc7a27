/* params-parse.c: nanoBragg's command line into nb_params, driven by the
 * parameter table (param-table.c).
 *
 * Source: nanoBragg.c main(), its argument loop; cli.md.  Unlike the
 * reference, an unknown flag, a stray argument or a missing or non-numeric
 * value is an error naming it.
 */
#include "nb-param-private.h"

#include <errno.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdlib.h>

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

static nb_status
set_string (char **slot, const char *value, nb_error *err)
{
  char *copy = strdup (value);

  if (copy == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  free (*slot);
  *slot = copy;
  return NB_OK;
}

/* The numbers after a flag, converted and stored: one value a field, or one
 * value for every field (-N, -detpixels). */
static nb_status
parse_numbers (
    const nb_param *row, nb_params *p, const char *arg, const char *const *args, nb_error *err)
{
  double x[6];
  nb_status st;

  for (int k = 0; k < row->nargs; k++)
    {
      st = row->kind == NB_PARAM_WHOLE ? nb_parse_whole (arg, args[k], &x[k], err)
                                       : nb_parse_number (arg, args[k], &x[k], err);
      if (st != NB_OK || (st = nb_param_check_sign (row, arg, args[k], x[k], err)) != NB_OK)
        return st;
    }
  for (int k = 0; k < row->n_field; k++)
    nb_param_store (row, p, k, nb_unit_to_field (row->unit, x[row->nargs == 1 ? 0 : k]));
  return NB_OK;
}

/* Applies @row, spelled @arg, with its values @args. */
static nb_status
parse_row (
    const nb_param *row, nb_params *p, const char *arg, const char *const *args, nb_error *err)
{
  nb_status st;
  double ignored;
  int value;

  switch (row->kind)
    {
      case NB_PARAM_NUMBER:
      case NB_PARAM_WHOLE:
        if ((st = parse_numbers (row, p, arg, args, err)) != NB_OK)
          return st;
        break;
      case NB_PARAM_TEXT:
        if ((st = set_string (nb_param_string (p, row, 0), args[0], err)) != NB_OK)
          return st;
        break;
      case NB_PARAM_CHOICE:
        if (!nb_param_choice_value (row, args[0], &value))
          {
            char list[128];

            nb_param_choice_list (row, ", ", list, sizeof list);
            return nb_error_set (
                err, (row->flags & NB_PARAM_UNSUPPORTED) ? NB_ERR_UNSUPPORTED : NB_ERR_USAGE,
                "%s: '%s' is not one of %s", arg, args[0], list);
          }
        *nb_param_int (p, row, 0) = value;
        break;
      case NB_PARAM_SWITCH:
        *nb_param_int (p, row, 0) = row->value;
        break;
      case NB_PARAM_IGNORED:
        /* the reference reads a number (atof) and drops it */
        if (row->nargs > 0 && row->type == NB_FIELD_DOUBLE &&
            (st = nb_parse_number (arg, args[0], &ignored, err)) != NB_OK)
          return st;
        return NB_OK;
      case NB_PARAM_SECTION:
        return NB_OK;
    }
  nb_param_apply_effects (row, p);
  return NB_OK;
}

nb_status
nb_params_parse_argv (nb_params *p, int argc, const char *const *argv, nb_error *err)
{
  nb_status st;

  nb_error_clear (err);
  if ((st = nb_params_apply_headers (p, argc, argv, err)) != NB_OK)
    return st;

  /* -physical changes how other flags act, so it is seen first. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-physical") == 0)
      p->physical = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const nb_param *row;
      int have = 0, consumed;

      if (nb_is_value_token (arg))
        return nb_error_set (err, NB_ERR_USAGE,
                             "unexpected argument '%s' (not after a flag that takes it)", arg);
      row = nb_param_find (arg);
      if (row == NULL)
        return nb_error_set (err, NB_ERR_USAGE, "unknown flag '%s' (see --help)", arg);

      while (i + 1 + have < argc && have < 6 && nb_is_value_token (argv[i + 1 + have]))
        have++;
      if (row->nargs > 0 && have < row->nargs)
        return nb_error_set (err, NB_ERR_USAGE, "%s needs %d value%s, got %d", arg, row->nargs,
                             row->nargs > 1 ? "s" : "", have);
      consumed = row->nargs > 0 ? row->nargs : 0;
      if (row->parse != NULL)
        st = row->parse (row, p, arg, argv + i + 1, argc - i - 1, have, &consumed, err);
      else
        st = parse_row (row, p, arg, argv + i + 1, err);
      if (st != NB_OK)
        return st;
      i += consumed;
    }
  return NB_OK;
}
