/* braggscope-options.h: the viewer's command line.
 *
 *   braggscope [--snapshot FILE.png [display options]] [--] [nanoBragg flags]
 *
 * Options of the viewer start with two dashes; everything else (nanoBragg's
 * single-dash flags and their values, and all that follows "--") is passed on
 * untouched, so that `braggscope -hkl x.hkl -cell 63.4 63.4 83.8 90 90 120`
 * works as nanoBragg's command line does.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean help;
  gboolean version;
  char *snapshot;         /* --snapshot FILE: render headless to this PNG and exit; or NULL */
  char *colormap;         /* --colormap NAME (a BraggscopeColormap nick), or NULL */
  char *scale;            /* --scale NAME (a BraggscopeScale nick), or NULL */
  double gamma;           /* --gamma G; 0 = not given */
  int show_rings;         /* --rings / --no-rings: 1 / 0; -1 = not given */
  int show_beam_center;   /* --beam-center / --no-beam-center: 1 / 0; -1 = not given */
  char *view;             /* --view detector|reciprocal|both, or NULL */
  int labels;             /* --labels / --no-labels: 1 / 0; -1 = not given */
  char *ring_resolutions; /* --rings-at "3 2.5": rings at these d (Angstrom), or NULL */
  char *lesson;           /* --lesson NAME: start from a lesson, or NULL */
  char **compare;         /* --compare "FLAGS": B's nanoBragg flags on top of A's, or NULL */
  char *compare_mode;     /* --compare-mode side-by-side|blink|overlay|difference, or NULL */
  char *measured;         /* --measured FRAME: a measured frame to compare with, or NULL */
  char **nb_args;         /* the nanoBragg flags, NULL-terminated (never NULL) */
} BraggscopeOptions;

/* braggscope_options_parse: fills @opts (zeroed by the caller or cleared
 * before) from @argv[1..@argc-1] (argv[0], the program name, is skipped).
 * Errors: G_OPTION_ERROR_BAD_VALUE / _UNKNOWN_OPTION with a message naming
 * the option and its value, e.g. "--gamma: not a positive number: 'x'".
 * Display options are accepted only with --snapshot: the window has its own
 * controls for them. */
gboolean braggscope_options_parse (BraggscopeOptions *opts,
                                   int argc,
                                   const char *const *argv,
                                   GError **error);

/* braggscope_options_clear: frees what @opts holds and zeroes it. */
void braggscope_options_clear (BraggscopeOptions *opts);

/* braggscope_options_help: the --help text (translated), transfer full. */
char *braggscope_options_help (void);

G_END_DECLS
