/* nb-param-private.h: what the parameter files share, in one direction: the
 * table is data (param-table.c, the rows; params.c, defaults and copies); the
 * rules read it (param.c: fields, units, effects, choices, numbers); the
 * programs driven by the table use the rules (params-validate.c,
 * params-format.c, params-header.c, then params-parse.c with
 * argv-reference.c).  No file calls one before it in that list. */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-param.h"

/* Physical lower bounds (Angstrom).  No diffraction has a shorter wavelength
 * (1e-3 A are 12.4 MeV photons; 300 kV electrons are 0.02 A) and no crystal a
 * shorter cell edge (atoms lie 1 A or more apart); far below them every
 * pixel gets the same maximum and the run looked like a success. */
#define NB_LAMBDA_MIN_A      1e-3
#define NB_CELL_LENGTH_MIN_A 0.1
#define NB_CELL_LENGTH_MAX_A 1e6 /* 0.1 mm, far beyond any crystal's cell */

#define NB_PARAM_RTD (180.0 * M_1_PI)

/* ---- fields ---- */

static inline double *
nb_param_double (nb_params *p, const nb_param *row, int k)
{
  return (double *) (void *) ((char *) p + row->field[k]);
}

static inline int *
nb_param_int (nb_params *p, const nb_param *row, int k)
{
  return (int *) (void *) ((char *) p + row->field[k]);
}

static inline long *
nb_param_long (nb_params *p, const nb_param *row, int k)
{
  return (long *) (void *) ((char *) p + row->field[k]);
}

static inline char **
nb_param_string (nb_params *p, const nb_param *row, int k)
{
  return (char **) (void *) ((char *) p + row->field[k]);
}

/* The strings nb_params owns (its file names), for copies and clean-up. */
#define NB_PARAMS_N_STRINGS 14
void nb_params_strings (nb_params *p, char **strings[NB_PARAMS_N_STRINGS]);

/* The field as a double (int and long fields converted). */
double nb_param_field (const nb_param *row, const nb_params *p, int k);

/* Stores @v (field units) into field @k, converted to the field's type. */
void nb_param_store (const nb_param *row, nb_params *p, int k, double v);

/* Field @k of @a and @b hold the same value (the same bits for doubles, NaN
 * equal to NaN; equal strings, or both NULL). */
int nb_param_same (const nb_param *row, const nb_params *a, const nb_params *b, int k);

/* The unset sentinel as a field value test. */
static inline int
nb_param_is_unset (const nb_param *row, double v)
{
  return isnan (row->unset) ? isnan (v) : v == row->unset;
}

/* ---- units ---- */

/* nb_unit_to_field and nb_unit_from_field: in nb-param.h. */

/* " mm", "%" or "": a unit as messages append it to a number. */
const char *nb_unit_suffix (const nb_unit *u, char buf[32]);

/* The degree (param-table.c), for the special rows. */
extern const nb_unit nb_unit_deg;

/* ---- side effects ---- */

/* Applies @row's NB_SETS_* effects to @p, after its fields were set. */
void nb_param_apply_effects (const nb_param *row, nb_params *p);

/* What the parser refuses of a number @x (typed as @text after @flag) that
 * it converted: a sign that would read as "not given" (NB_PARAM_NONNEG,
 * NB_PARAM_POSITIVE), a zero it cannot convert (NB_PARAM_NONZERO).
 * NB_ERR_USAGE. */
nb_status nb_param_check_sign (
    const nb_param *row, const char *flag, const char *text, double x, nb_error *err);

/* ---- choices ---- */

/* The words of @row's choices, joined by @separator. */
void nb_param_choice_list (const nb_param *row, const char *separator, char *buf, size_t size);

/* The value of @word among @row's choices: 1 and *@value, or 0. */
int nb_param_choice_value (const nb_param *row, const char *word, int *value);

/* ---- numbers on the command line (param.c: the parser's and the headers') ---- */

/* strtod() with '.' as the decimal point whatever the locale. */
double nb_c_strtod (const char *s, char **end);

/* The number @value of @flag (its spelling as typed): NB_ERR_USAGE "flag:
 * 'value' is not a (finite) number"; nb_parse_whole() also refuses a value
 * that is not a whole number of at most 2^31 - 1. */
nb_status nb_parse_number (const char *flag, const char *value, double *out, nb_error *err);
nb_status nb_parse_whole (const char *flag, const char *value, double *out, nb_error *err);

/* A number, all of the token: "5", "-.5", "-1e3". */
int nb_is_number_token (const char *s);

/* A token is a value, not a flag: it does not start with '-', or it is a
 * number. */
int nb_is_value_token (const char *s);

/* ---- nb_params_to_argv ---- */

struct nb_argv_builder
{
  char **v;
  int n, cap;
  int oom;
};

void nb_argv_push (nb_argv_builder *b, const char *s);

/* A number the parser turns into @v (field units) through @u. */
void nb_argv_push_number (nb_argv_builder *b, double v, const nb_unit *u);

void nb_argv_push_long (nb_argv_builder *b, long n);

/* Pushes @row's flag and the values of @p's fields (field @k only when
 * @one >= 0), then applies the row to @shadow as the parser would: its
 * fields take @p's values and its side effects follow. */
void nb_argv_push_row (
    nb_argv_builder *b, const nb_param *row, const nb_params *p, nb_params *shadow, int one);

/* ---- validation ---- */

/* The message of a value outside @row's range, naming the flag, @v (field
 * units) in the flag's unit, and the range. */
nb_status nb_param_range_error (const nb_param *row, double v, nb_error *err);

/* Checks field @k of @row in @p against the row's range. */
nb_status nb_param_check_range (const nb_param *row, const nb_params *p, int k, nb_error *err);

/* Relations between fields the rows cannot state alone (the cell, sampled
 * grids, the detector's axes and ROI...): params-validate.c. */
nb_status nb_params_check_relations (const nb_params *p, nb_error *err);

/* ---- header defaults (-frame, -img, -mask) ---- */

/* A beam centre a header gives as a point on the detector, whatever the
 * convention: the SMV header nanobragg-series and nanobragg -physical write
 * for DIALS (nb_smv_header_for_dials()), whose BEAM_CENTER_X/Y are not
 * nanoBragg's Xbeam/Ybeam.  It is put into the run's convention once the
 * flags have chosen it; the fields the flags could change are kept to see
 * whether they did. */
typedef struct
{
  int have;
  double fbeam, sbeam; /* m from pixel (0, 0)'s outer corner along fast, slow */
  double kept[6];      /* Xbeam, Ybeam, ORGX, ORGY, Xclose, Yclose after the headers */
} nb_header_beam;

/* params-header.c: applies the headers of the -frame, -mask and -img files of
 * @argv as defaults, in that order (the mask before the image, so the image's
 * keys win: Q-28); the lines of -frame's report go to @opts->report (@opts
 * may be NULL).  A header written for DIALS leaves its beam centre in @beam
 * for nb_params_finish_headers(). */
nb_status nb_params_apply_headers (nb_params *p,
                                   int argc,
                                   const char *const *argv,
                                   const nb_parse_options *opts,
                                   nb_header_beam *beam,
                                   nb_error *err);

/* params-header.c: once the flags are parsed, puts the beam centre @beam
 * holds (from nb_params_apply_headers()) into @p's convention as
 * nb_params_set_beam_centre() does, unless a flag gave a beam centre, a near
 * point or an origin (-Xbeam, -Ybeam, -ORGX, -ORGY, -Xclose, -Yclose...):
 * those win, as they do over every header key. */
void nb_params_finish_headers (nb_params *p, const nb_header_beam *beam);

/* The pixels one axis of an SMV header may have (params-header.c, and the
 * -detpixels range). */
#define NB_MAX_PIXELS 65536
