/* params-format.c: nb_params back to nanoBragg command-line flags, driven by
 * the parameter table.
 *
 * The inverse of nb_params_parse_argv(): for every row whose fields differ,
 * the flag that sets them, in the units the parser reads.  Three things make
 * this more than a printf loop:
 *
 *  - Units.  The parser converts (mm -> m is "/ 1000", degrees -> rad is
 *    "/ RTD"), and a decimal string of value*1000 does not always divide back
 *    to the same double.  Each number is written as the shortest of %.15g,
 *    %.16g, %.17g that converts back to the same bits, searching the
 *    neighbouring doubles when none does.
 *  - Side effects.  Several flags set more than their fields (-distance and
 *    -Xbeam set the pivot, the vectors the CUSTOM convention, -polar clears
 *    -nopolar, -twotheta_axis also sets two-theta unless -physical: Q-30).
 *    The rows are written in table order against a shadow of what the flags
 *    written so far give, the parser's own effects applied to it, so a later
 *    flag repairs what an earlier one implied (-pivot, the convention).
 *  - Seeds.  A seed is written only where it changes the result (the rows'
 *    format hooks, param-table.c): their defaults depend on the time, so an
 *    omitted seed is one that does not matter.  -misset_seed is never the
 *    last flag: unless -physical, its handler also reads its value and the
 *    next two tokens as misset angles when two more follow, so a
 *    command line ending in it would change when flags are appended.  It is
 *    written just before "-misset random", which makes the angles irrelevant,
 *    and those angles are not written at all.
 *
 * Fields without a flag (dispstep, detector_thickstep) and values the parser
 * cannot produce (a fractional -N, a file name starting with '-') are not
 * represented.
 */
#include "nb-param-private.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

typedef nb_argv_builder argv_builder;

void
nb_argv_push (argv_builder *b, const char *s)
{
  char *copy;

  if (b->oom)
    return;
  if (b->n + 2 > b->cap)
    {
      int cap = b->cap ? b->cap * 2 : 64;
      char **v = realloc (b->v, (size_t) cap * sizeof (char *));

      if (v == NULL)
        {
          b->oom = 1;
          return;
        }
      b->v = v;
      b->cap = cap;
    }
  copy = strdup (s);
  if (copy == NULL)
    {
      b->oom = 1;
      return;
    }
  b->v[b->n++] = copy;
  b->v[b->n] = NULL;
}

static int
same_double (double a, double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  return a == b && signbit (a) == signbit (b);
}

/* Does the decimal @s, read as the parser reads it, give back exactly @v? */
static int
reads_back (const char *s, const nb_unit *u, double v)
{
  char *end;
  double x = strtod (s, &end);

  return *end == '\0' && isfinite (x) && same_double (nb_unit_to_field (u, x), v);
}

/* Writes into @buf (at least 32 bytes) a number the parser turns into @v. */
static void
format_exact (char *buf, size_t size, double v, const nb_unit *u)
{
  double x0 = nb_unit_from_field (u, v);
  double up = x0, down = x0;

  for (int digits = 15; digits <= 17; digits++)
    {
      snprintf (buf, size, "%.*g", digits, x0);
      if (reads_back (buf, u, v))
        return;
    }
  /* the conversion rounded: one of the neighbouring doubles converts exactly */
  for (int step = 0; step < 64; step++)
    {
      up = nextafter (up, INFINITY);
      snprintf (buf, size, "%.17g", up);
      if (reads_back (buf, u, v))
        return;
      down = nextafter (down, -INFINITY);
      snprintf (buf, size, "%.17g", down);
      if (reads_back (buf, u, v))
        return;
    }
  snprintf (buf, size, "%.17g", x0); /* not representable exactly: the nearest */
}

void
nb_argv_push_number (argv_builder *b, double v, const nb_unit *u)
{
  char buf[64];

  format_exact (buf, sizeof buf, v, u);
  nb_argv_push (b, buf);
}

void
nb_argv_push_long (argv_builder *b, long n)
{
  char buf[32];

  snprintf (buf, sizeof buf, "%ld", n);
  nb_argv_push (b, buf);
}

/* The value of field @k as the flag writes it. */
static void
push_field (argv_builder *b, const nb_param *row, const nb_params *p, int k)
{
  const char *word;

  switch (row->type)
    {
      case NB_FIELD_DOUBLE:
        nb_argv_push_number (b, nb_param_field (row, p, k), row->unit);
        break;
      case NB_FIELD_INT:
        if (row->kind == NB_PARAM_CHOICE && (word = nb_param_get_text (row, p)) != NULL)
          nb_argv_push (b, word);
        else
          nb_argv_push_long (b, *nb_param_int ((nb_params *) p, row, k));
        break;
      case NB_FIELD_LONG:
        nb_argv_push_long (b, (long) nb_unit_from_field (row->unit, nb_param_field (row, p, k)));
        break;
      case NB_FIELD_STRING:
        nb_argv_push (b, *nb_param_string ((nb_params *) p, row, k));
        break;
    }
}

void
nb_argv_push_row (
    argv_builder *b, const nb_param *row, const nb_params *p, nb_params *shadow, int one)
{
  nb_argv_push (b, row->flag);
  if (row->kind == NB_PARAM_SWITCH)
    *nb_param_int (shadow, row, 0) = row->value;
  for (int k = 0; k < row->n_field && row->kind != NB_PARAM_SWITCH; k++)
    {
      if (one < 0 || k == one)
        push_field (b, row, p, k);
      if (row->type == NB_FIELD_STRING)
        *nb_param_string (shadow, row, k) = *nb_param_string ((nb_params *) p, row, k);
      else
        nb_param_store (row, shadow, k, nb_param_field (row, p, k));
    }
  nb_param_apply_effects (row, shadow);
}

/* ---- the special rows (nb_param_special) ---- */

#define FORMAT_HOOK(name)                                                                          \
  static void name (const nb_param *row, const nb_params *p, nb_params *shadow, nb_argv_builder *b)

FORMAT_HOOK (format_cell)
{
  int differs = 0;

  for (int k = 0; k < 6; k++)
    differs |= !nb_param_same (row, p, shadow, k);
  if (!differs)
    return;
  nb_argv_push (b, row->flag);
  for (int k = 0; k < 6; k++)
    {
      nb_argv_push_number (b, p->cell[k], k < 3 ? NULL : &nb_unit_deg);
      shadow->cell[k] = p->cell[k];
    }
}

/* A random orientation is written as "-misset_seed S -misset random": never
 * with the seed last, whose Q-29 handler would read flags appended after it
 * as angles; the angles Q-29 sets before "random" are not used. */
FORMAT_HOOK (format_misset)
{
  if (p->misset_random)
    {
      nb_argv_push (b, "-misset_seed");
      nb_argv_push_long (b, -p->misset_seed);
      nb_argv_push (b, row->flag);
      nb_argv_push (b, "random");
      shadow->misset_random = 1;
      shadow->misset_seed = p->misset_seed;
    }
  else if (!nb_param_same (row, p, shadow, 0) || !nb_param_same (row, p, shadow, 1) ||
           !nb_param_same (row, p, shadow, 2))
    nb_argv_push_row (b, row, p, shadow, -1);
}

FORMAT_HOOK (format_detector_abs)
{
  if (nb_param_same (row, p, shadow, 0))
    return;
  if (p->detector_mu == 0.0)
    {
      nb_argv_push (b, row->flag);
      nb_argv_push (b, "inf");
      shadow->detector_mu = 0.0;
      shadow->detector_thick = 0.0;
    }
  else
    nb_argv_push_row (b, row, p, shadow, -1);
}

/* The -stol, -4stol and -Q tables are one file of one kind: the flag of its
 * kind is written. */
FORMAT_HOOK (format_stol)
{
  const char *flag = p->stol_kind == NB_STOL_4STOL ? "-4stol"
                     : p->stol_kind == NB_STOL_Q   ? "-Q"
                                                   : "-stol";

  if (p->stol_file == NULL ||
      (nb_param_same (row, p, shadow, 0) && p->stol_kind == shadow->stol_kind))
    return;
  nb_argv_push_row (b, nb_param_find (flag), p, shadow, -1);
}

/* -img and -mask headers set the detector's size, pixel, distance,
 * wavelength and spindle before every other flag: after them the format
 * knows none of these, and writes each. */
FORMAT_HOOK (format_header)
{
  if (*nb_param_string ((nb_params *) p, row, 0) == NULL || nb_param_same (row, p, shadow, 0))
    return;
  nb_argv_push_row (b, row, p, shadow, -1);
  shadow->fpixels = shadow->spixels = -1;
  shadow->pixel_size = shadow->detsize_f = shadow->detsize_s = NAN;
  shadow->distance = shadow->lambda0 = shadow->phi0 = shadow->osc = NAN;
}

/* A measured frame's header sets what an SMV header does and the exposure
 * (its beam centre and close distance have "not given" defaults, which no
 * flag restores, so the shadow's are right). */
FORMAT_HOOK (format_frame)
{
  if (*nb_param_string ((nb_params *) p, row, 0) == NULL || nb_param_same (row, p, shadow, 0))
    return;
  format_header (row, p, shadow, b);
  shadow->exposure = NAN;
}

/* The seeds' defaults depend on the time: a seed is written only where it
 * changes the result.  The mosaic seed draws the domains' orientations, which
 * matter with more than one domain and a spread (a spread without a domain
 * count means 10 domains); a noise image whose seed is positive (given
 * negative: -seed -N) continues the generator table the mosaic draws left. */
FORMAT_HOOK (format_mosaic_seed)
{
  if ((p->mosaic_spread > 0.0 && p->mosaic_domains != 1) || (p->calculate_noise && p->seed > 0))
    nb_argv_push_row (b, row, p, shadow, -1);
}

FORMAT_HOOK (format_noise_seed)
{
  if (p->calculate_noise)
    nb_argv_push_row (b, row, p, shadow, -1);
}

/* A CUSTOM convention that no vector flag selected: one restates a vector. */
FORMAT_HOOK (format_convention)
{
  if (p->convention == NB_CONVENTION_CUSTOM && shadow->convention != NB_CONVENTION_CUSTOM)
    nb_argv_push_row (b, nb_param_find ("-fdet_vector"), p, shadow, -1);
}

typedef void (*special_format_fn) (const nb_param *row,
                                   const nb_params *p,
                                   nb_params *shadow,
                                   nb_argv_builder *b);

static special_format_fn
special_format (const nb_param *row)
{
  static const special_format_fn formatters[NB_PARAM_N_SPECIAL] = {
    [NB_PARAM_SPECIAL_CELL] = format_cell,
    [NB_PARAM_SPECIAL_MISSET] = format_misset,
    [NB_PARAM_SPECIAL_DETECTOR_ABS] = format_detector_abs,
    [NB_PARAM_SPECIAL_STOL] = format_stol,
    [NB_PARAM_SPECIAL_HEADER] = format_header,
    [NB_PARAM_SPECIAL_FRAME] = format_frame,
    [NB_PARAM_SPECIAL_MOSAIC_SEED] = format_mosaic_seed,
    [NB_PARAM_SPECIAL_NOISE_SEED] = format_noise_seed,
    [NB_PARAM_SPECIAL_CONVENTION] = format_convention,
  };

  return row->special < NB_PARAM_N_SPECIAL ? formatters[row->special] : NULL;
}

/* The generic rule: a row is written when its fields differ from what the
 * flags before it give (a switch: when its value is the one wanted; a flag
 * of one value for several fields: when they all differ and are equal). */
static void
format_row (argv_builder *b, const nb_param *row, const nb_params *p, nb_params *shadow)
{
  int differ = 0, all_differ = 1;

  for (int k = 0; k < row->n_field; k++)
    {
      int d = !nb_param_same (row, p, shadow, k);

      differ |= d;
      all_differ &= d;
    }
  if (!differ)
    return;
  switch (row->kind)
    {
      case NB_PARAM_SWITCH:
        if (*nb_param_int ((nb_params *) p, row, 0) == row->value)
          nb_argv_push_row (b, row, p, shadow, -1);
        return;
      case NB_PARAM_TEXT:
        if (*nb_param_string ((nb_params *) p, row, 0) != NULL)
          nb_argv_push_row (b, row, p, shadow, -1);
        return;
      case NB_PARAM_NUMBER:
      case NB_PARAM_WHOLE:
        if (row->nargs == 1 && row->n_field > 1)
          {
            for (int k = 1; k < row->n_field; k++)
              if (nb_param_field (row, p, k) != nb_param_field (row, p, 0) ||
                  signbit (nb_param_field (row, p, k)) != signbit (nb_param_field (row, p, 0)))
                return;
            if (all_differ)
              nb_argv_push_row (b, row, p, shadow, 0);
            return;
          }
        nb_argv_push_row (b, row, p, shadow, -1);
        return;
      case NB_PARAM_CHOICE:
        nb_argv_push_row (b, row, p, shadow, -1);
        return;
      case NB_PARAM_IGNORED:
      case NB_PARAM_SECTION:
        return;
    }
}

static char **
format_argv (const nb_params *p, int *argc, int scene)
{
  argv_builder b = { 0 };
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  nb_params shadow;
  char *owned[16];
  int n_owned = 0;

  /* the shadow borrows @p's strings as flags are written: its own default
   * names are kept aside and freed at the end */
  nb_params_init (&shadow);
  for (size_t i = 0; i < n; i++)
    if (rows[i].type == NB_FIELD_STRING && rows[i].kind == NB_PARAM_TEXT && n_owned < 16)
      {
        char *s = *nb_param_string (&shadow, &rows[i], 0);

        if (s != NULL)
          owned[n_owned++] = s;
      }

  nb_argv_push (&b, "nanobragg");
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      special_format_fn format;

      if (scene && (row->flags & NB_PARAM_OUTPUT))
        continue;
      if ((format = special_format (row)) != NULL)
        format (row, p, &shadow, &b);
      else if (row->flag != NULL && !(row->flags & NB_PARAM_NO_ARGV))
        format_row (&b, row, p, &shadow);
    }

  for (int i = 0; i < n_owned; i++)
    free (owned[i]);
  if (b.oom)
    {
      nb_argv_free (b.v);
      return NULL;
    }
  if (argc != NULL)
    *argc = b.n;
  return b.v;
}

static char **
to_argv (const nb_params *p, int *argc, int scene)
{
  /* "1.5", never "1,5": snprintf() and strtod() follow the thread's locale,
   * which a GUI host may have set to one with a decimal comma; uselocale()
   * changes only this thread. */
  locale_t c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  locale_t old = c != (locale_t) 0 ? uselocale (c) : (locale_t) 0;
  char **argv = format_argv (p, argc, scene);

  if (c != (locale_t) 0)
    {
      uselocale (old);
      freelocale (c);
    }
  return argv;
}

char **
nb_params_to_argv (const nb_params *p, int *argc)
{
  return to_argv (p, argc, 0);
}

char **
nb_params_to_scene_argv (const nb_params *p, int *argc)
{
  return to_argv (p, argc, 1);
}

void
nb_argv_free (char **argv)
{
  if (argv == NULL)
    return;
  for (char **s = argv; *s != NULL; s++)
    free (*s);
  free (argv);
}
