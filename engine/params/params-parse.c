/* params-parse.c: nanoBragg's command line into nb_params, driven by the
 * parameter table (param-table.c).
 *
 * Source: nanoBragg.c main(), its argument loop; cli.md.  Unlike the
 * reference, an unknown flag, a stray argument or a missing or non-numeric
 * value is an error naming it, the nearest known flags and what nanoBragg
 * does with the word; with -lenient (nb_parse_options) a word nanoBragg
 * ignores is skipped with a warning, as nanoBragg skips it.
 */
#include "nb-argv.h"
#include "nb-param-private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

/* ---- the special rows (nb_param_special) ---- */

#define PARSE_HOOK(name)                                                                           \
  static nb_status name (const nb_param *row, nb_params *p, const char *arg,                       \
                         const char *const *args, int left, int have, int *consumed,               \
                         nb_error *err)

/* -cell a [b c [alpha beta gamma]]: missing values are 0 (b, c: as a; angles:
 * 90), lengths in Angstrom, angles in degrees. */
PARSE_HOOK (parse_cell)
{
  double v[6] = { 0 };
  nb_status st;

  if (have < 1)
    return nb_error_set (err, NB_ERR_USAGE, "-cell needs a b c alpha beta gamma");
  for (int k = 0; k < have; k++)
    if ((st = nb_parse_number (arg, args[k], &v[k], err)) != NB_OK)
      return st;
  for (int k = 0; k < 6; k++)
    p->cell[k] = k < 3 ? v[k] : k < have ? nb_unit_to_field (&nb_unit_deg, v[k]) : 0.0;
  *consumed = have;
  return NB_OK;
}

/* -misset rx ry rz (degrees), or -misset random (drawn from -misset_seed). */
PARSE_HOOK (parse_misset)
{
  double v[3];
  nb_status st;

  if (left >= 1 && strstr (args[0], "rand") != NULL)
    {
      p->misset_random = 1;
      *consumed = 1;
      return NB_OK;
    }
  if (have < 3)
    return nb_error_set (err, NB_ERR_USAGE, "-misset needs three angles (degrees) or 'random'");
  for (int k = 0; k < 3; k++)
    if ((st = nb_parse_number (arg, args[k], &v[k], err)) != NB_OK)
      return st;
  for (int k = 0; k < 3; k++)
    p->misset[k] = nb_unit_to_field (&nb_unit_deg, v[k]);
  nb_param_apply_effects (row, p);
  *consumed = 3;
  return NB_OK;
}

/* -misset_seed N.  Q-29: unless -physical, the reference's -misset handler
 * fires too, reading the seed and the next two tokens as angles (atof) when
 * three tokens follow; numbers among them were stray tokens to it. */
PARSE_HOOK (parse_misset_seed)
{
  double seed;
  nb_status st;

  if ((st = nb_parse_whole (arg, args[0], &seed, err)) != NB_OK)
    return st;
  p->misset_seed = (long) nb_unit_to_field (row->unit, seed);
  *consumed = 1;
  if (!p->physical && left >= 3)
    {
      p->misset_random = 0;
      for (int k = 0; k < 3; k++)
        p->misset[k] = nb_unit_to_field (&nb_unit_deg, nb_c_strtod (args[k], NULL));
      if (nb_is_number_token (args[1]) && nb_is_number_token (args[2]))
        *consumed = 3;
    }
  return NB_OK;
}

/* -detector_abs depth (um), or 0 or inf: no absorption, which also zeroes the
 * thickness given so far. */
PARSE_HOOK (parse_detector_abs)
{
  double depth = 0.0;
  nb_status st;

  if (strstr (args[0], "inf") == NULL &&
      (st = nb_parse_number (arg, args[0], &depth, err)) != NB_OK)
    return st;
  if (depth < 0.0)
    return nb_error_set (err, NB_ERR_USAGE,
                         "%s: '%s' is not an attenuation depth (um > 0, or 0 or inf for none)", arg,
                         args[0]);
  if (depth == 0.0)
    {
      p->detector_mu = 0.0;
      p->detector_thick = 0.0;
    }
  else
    p->detector_mu = nb_unit_to_field (row->unit, depth);
  *consumed = 1;
  return NB_OK;
}

/* -pivot: the reference looks for the words in the value. */
PARSE_HOOK (parse_pivot)
{
  for (const nb_choice *c = row->choices; c->word != NULL; c++)
    if (strstr (args[0], c->word) != NULL)
      {
        p->pivot = (nb_pivot) c->value;
        *consumed = 1;
        return NB_OK;
      }
  return nb_error_set (err, NB_ERR_USAGE, "-pivot: '%s' is neither 'beam' nor 'sample'", args[0]);
}

/* A special row's parse: it gets the flag as typed (@arg), the @left tokens
 * after it (@args), how many of them look like values (@have), and says how
 * many it took (*@consumed). */
typedef nb_status (*special_parse_fn) (const nb_param *row,
                                       nb_params *p,
                                       const char *arg,
                                       const char *const *args,
                                       int left,
                                       int have,
                                       int *consumed,
                                       nb_error *err);

static special_parse_fn
special_parse (const nb_param *row)
{
  static const special_parse_fn parsers[NB_PARAM_N_SPECIAL] = {
    [NB_PARAM_SPECIAL_CELL] = parse_cell,
    [NB_PARAM_SPECIAL_MISSET] = parse_misset,
    [NB_PARAM_SPECIAL_MISSET_SEED] = parse_misset_seed,
    [NB_PARAM_SPECIAL_DETECTOR_ABS] = parse_detector_abs,
    [NB_PARAM_SPECIAL_PIVOT] = parse_pivot,
  };

  return row->special < NB_PARAM_N_SPECIAL ? parsers[row->special] : NULL;
}

/* ------------------------------------------------------------------------- */
/* Words the parser does not take */

#define LENIENT_HINT "add -lenient (or set NANOBRAGG_LENIENT=1) to do the same"

/* Calls @fn with every spelling of every flag (without its marker), in table
 * order. */
static void
each_spelling (void (*fn) (const char *spelling, void *data), void *data)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  char word[64];

  for (size_t i = 0; i < n; i++)
    {
      const char *s = rows[i].aliases;

      if (rows[i].flag == NULL)
        continue;
      fn (rows[i].flag, data);
      while (s != NULL && *s != '\0')
        {
          size_t len = strcspn (s, " ");

          if (len > 0 && (s[len - 1] == '*' || s[len - 1] == '='))
            len--;
          if (len < sizeof word)
            {
              memcpy (word, s, len);
              word[len] = '\0';
              fn (word, data);
            }
          s += strcspn (s, " ");
          s += strspn (s, " ");
        }
    }
}

typedef struct
{
  const char *word;
  size_t len, cap, best;
  int count;
  char found[3][64];
} suggestion;

static void
suggest_add (suggestion *g, const char *flag)
{
  for (int k = 0; k < g->count; k++)
    if (strcmp (g->found[k], flag) == 0)
      return;
  snprintf (g->found[g->count++], sizeof g->found[0], "%s", flag);
}

/* the flags that begin with the word (-hdiv) */
static void
suggest_longer (const char *flag, void *data)
{
  suggestion *g = data;

  if (g->count < 3 && strlen (flag) > g->len && strncmp (flag, g->word, g->len) == 0)
    suggest_add (g, flag);
}

/* the longest flag that begins the word (-polarization) */
static void
suggest_shorter (const char *flag, void *data)
{
  suggestion *g = data;
  size_t len = strlen (flag);

  if (len >= 3 && len < g->len && strncmp (g->word, flag, len) == 0 &&
      (g->count == 0 || len > strlen (g->found[0])))
    {
      snprintf (g->found[0], sizeof g->found[0], "%s", flag);
      g->count = 1;
    }
}

/* those at the smallest edit distance (-lamda) */
static void
suggest_near (const char *flag, void *data)
{
  suggestion *g = data;
  size_t d = nb_argv_edit_distance (g->word, flag, g->cap);

  if (d < g->best)
    {
      g->best = d;
      g->count = 0;
    }
  if (d == g->best && d <= g->cap && g->count < 3)
    suggest_add (g, flag);
}

/* Up to three known flags near @word as " (did you mean -a, -b or -c?)" in
 * @out, or "": the flags that begin with @word (-hdiv), else the longest flag
 * that begins @word (-polarization), else those at the smallest edit distance
 * (-lamda), if it is at most a third of its letters (at least 1). */
static void
suggest_flags (const char *word, char *out, size_t n)
{
  suggestion g = { word, strlen (word), 0, 0, 0, { "" } };
  size_t used;

  g.cap = (g.len > 1 ? g.len - 1 : 0) / 3;
  if (g.cap < 1)
    g.cap = 1;
  g.best = g.cap + 1;
  if (g.len >= 3)
    each_spelling (suggest_longer, &g);
  if (g.count == 0)
    each_spelling (suggest_shorter, &g);
  if (g.count == 0)
    each_spelling (suggest_near, &g);
  out[0] = '\0';
  if (g.count == 0)
    return;
  used = (size_t) snprintf (out, n, " (did you mean %s", g.found[0]);
  for (int k = 1; k < g.count && used < n; k++)
    used += (size_t) snprintf (out + used, n - used, "%s%s", k + 1 < g.count ? ", " : " or ",
                               g.found[k]);
  if (used < n)
    snprintf (out + used, n - used, "?)");
}

/* How the parse treats words it does not take. */
typedef struct
{
  int lenient;
  const nb_parse_options *opts;
  const char *prev_flag; /* the last word read as a flag, known or not */
  const nb_param *prev;  /* its row, NULL if unknown */
} word_policy;

static void
warn (const word_policy *w, const char *fmt, ...)
{
  char line[NB_ERROR_MESSAGE_MAX];
  va_list ap;

  if (w->opts == NULL || w->opts->warn == NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  w->opts->warn (w->opts->user, line);
}

/* @word starts with '-', is no number and no known flag. */
static nb_status
unknown_flag (const word_policy *w, const char *word, nb_error *err)
{
  const char *theirs = nb_argv_reference_flag (word);
  char near[200];

  if (theirs != NULL)
    return nb_error_set (err, NB_ERR_USAGE,
                         "unknown flag '%.80s': nanoBragg reads it as %s (its name is part of "
                         "the word); write %s",
                         word, theirs, theirs);
  suggest_flags (word, near, sizeof near);
  if (!w->lenient)
    return nb_error_set (err, NB_ERR_USAGE, "unknown flag '%.80s'%s; nanoBragg ignores it: %s",
                         word, near, LENIENT_HINT);
  warn (w, "ignoring unknown flag '%.80s' as nanoBragg does%s", word, near);
  return NB_OK;
}

/* @word is no flag and no value of the flag before it. */
static nb_status
stray_word (const word_policy *w, const char *word, nb_error *err)
{
  const char *theirs;
  char why[160];

  if (w->prev_flag != NULL && w->prev == NULL)
    snprintf (why, sizeof why, "after %.80s, which nanoBragg does not know", w->prev_flag);
  else if (w->prev != NULL && w->prev->nargs == 0)
    snprintf (why, sizeof why, "%.80s takes no value", w->prev_flag);
  else
    snprintf (why, sizeof why, "not after a flag that takes it");
  /* nanoBragg only looks at words starting with '-': here numbers, of which
   * only "-NaN" (as -Na) holds one of its flags' names */
  theirs = nb_argv_reference_flag (word);
  if (theirs != NULL)
    return nb_error_set (err, NB_ERR_USAGE,
                         "unexpected argument '%.80s' (%s); nanoBragg reads it as %s", word, why,
                         theirs);
  if (!w->lenient)
    return nb_error_set (err, NB_ERR_USAGE,
                         "unexpected argument '%.80s' (%s); nanoBragg ignores it: %s", word, why,
                         LENIENT_HINT);
  warn (w, "ignoring '%.80s' as nanoBragg does (%s)", word, why);
  return NB_OK;
}

/* ------------------------------------------------------------------------- */

nb_status
nb_params_parse_argv (nb_params *p, int argc, const char *const *argv, nb_error *err)
{
  return nb_params_parse_argv_with (p, argc, argv, NULL, err);
}

nb_status
nb_params_parse_argv_with (
    nb_params *p, int argc, const char *const *argv, const nb_parse_options *opts, nb_error *err)
{
  word_policy words = { opts != NULL && opts->lenient, opts, NULL, NULL };
  nb_header_beam beam;
  nb_status st;

  nb_error_clear (err);
  if ((st = nb_params_apply_headers (p, argc, argv, opts, &beam, err)) != NB_OK)
    return st;

  /* -physical changes how other flags act and -lenient what is
   * refused, so they are seen first. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-physical") == 0)
      p->physical = 1;
    else if (strcmp (argv[i], "-lenient") == 0)
      words.lenient = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const nb_param *row;
      special_parse_fn parse;
      int have = 0, consumed;

      if (nb_is_value_token (arg))
        {
          if ((st = stray_word (&words, arg, err)) != NB_OK)
            return st;
          continue;
        }
      row = nb_param_find (arg);
      words.prev_flag = arg;
      words.prev = row;
      if (row == NULL)
        {
          if ((st = unknown_flag (&words, arg, err)) != NB_OK)
            return st;
          continue;
        }

      while (i + 1 + have < argc && have < 6 && nb_is_value_token (argv[i + 1 + have]))
        have++;
      if (row->nargs > 0 && have < row->nargs)
        return nb_error_set (err, NB_ERR_USAGE, "%s needs %d value%s, got %d", arg, row->nargs,
                             row->nargs > 1 ? "s" : "", have);
      consumed = row->nargs > 0 ? row->nargs : 0;
      if ((parse = special_parse (row)) != NULL)
        st = parse (row, p, arg, argv + i + 1, argc - i - 1, have, &consumed, err);
      else
        st = parse_row (row, p, arg, argv + i + 1, err);
      if (st != NB_OK)
        return st;
      i += consumed;
    }
  nb_params_finish_headers (p, &beam);
  return NB_OK;
}

/* ------------------------------------------------------------------------- */
/* Scenes */

int
nb_argv_output_words (int argc, const char *const *argv, int i)
{
  const nb_param *row;
  int words = 1;

  if (i < 0 || i >= argc || argv[i] == NULL || nb_is_value_token (argv[i]))
    return 0;
  row = nb_param_find (argv[i]);
  if (row == NULL || !(row->flags & NB_PARAM_OUTPUT))
    return 0;
  /* the values the parser would take: those that look like values, up to
   * the row's count */
  while (words <= row->nargs && i + words < argc && argv[i + words] != NULL &&
         nb_is_value_token (argv[i + words]))
    words++;
  return words;
}

nb_status
nb_params_parse_scene_argv (
    nb_params *p, int argc, const char *const *argv, const char *source, nb_error *err)
{
  nb_error_clear (err);
  /* every word is looked at, not only those the loop would reach as flags:
   * values never start with '-' (nb_is_value_token), so a word that finds an
   * output row is that flag wherever it stands */
  for (int i = 1; i < argc; i++)
    if (nb_argv_output_words (argc, argv, i) > 0)
      return nb_error_set (err, NB_ERR_USAGE,
                           "%.200s: %.80s names a file to write, which a scene may not hold",
                           source != NULL ? source : "arguments", argv[i]);
  return nb_params_parse_argv (p, argc, argv, err);
}
