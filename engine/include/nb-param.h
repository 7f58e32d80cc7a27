/* nb-param.h: the parameter table, where each of nanoBragg's parameters is
 * described once.
 *
 * A row is one parameter as the command line knows it: a flag (with its other
 * spellings) and the fields of nb_params it sets.  The row says, for those
 * fields, everything the programs need to know about them: the type, the
 * flag's unit and its conversion to the field's, the allowed range, the plan
 * stages a change invalidates, the side effects on other fields, a line of
 * help, and, where a host may edit the parameter, its GObject property name,
 * a short label and the range worth dragging a slider through.  Every use is
 * driven by the table:
 *
 *   nb_params_parse_argv()   spellings, values, units, side effects
 *   nb_params_validate()     ranges, and the message naming flag, value, range
 *   nb_params_to_argv()      the flags that reproduce a set, in table order
 *   nb_plan_update()         the stages a change invalidates
 *   nanobragg --help         the help lines
 *   libbraggscope            one GObject property per row with a property
 *                            name, read and written through nb_param_get_*()
 *                            and nb_param_set_*()
 *   BraggscopeControls       labels, units and slider ranges of those
 *
 * Rows without a flag describe a field no flag sets alone (the convention,
 * the crystal shape: switches set them) or one the command line cannot reach
 * (the dispersion step); component rows give one value of a multi-value flag
 * its own property ("misset-x" is the first value of -misset).
 *
 * Units: a property takes its flag's unit (distance in mm, misset in
 * degrees), so that a parameter has one name and one unit from the flag to
 * the slider.  The one exception is a property of a derived quantity shown
 * in another unit (the photon energy: -energy in eV, its property in keV),
 * which scales by prop_scale.
 *
 * The table is constant and shared; every function here is thread-safe.
 */
#pragma once

#include <stddef.h>

#include "nanobragg.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* How a flag's number becomes its field's (x: the number on the command
 * line, v: the field).  Written out, not as a factor, so that the parser's
 * arithmetic, and so its bits, stay nanoBragg's: "mm" is v = x / 1000. */
  typedef enum
  {
    NB_UNIT_SAME,       /* v = x */
    NB_UNIT_DIVIDE,     /* v = x / k */
    NB_UNIT_MULTIPLY,   /* v = x * k */
    NB_UNIT_INVERSE,    /* v = 1 / (x * k): an attenuation depth as mu */
    NB_UNIT_INVERSE_K2, /* v = (k2 / x) / k: a photon energy as a wavelength */
    NB_UNIT_NEGATE,     /* v = -x: the seeds, stored negated as the reference does */
  } nb_unit_kind;

  typedef struct
  {
    const char *name;   /* as --help and messages write it: "mm", "deg", "" */
    const char *symbol; /* as a control shows it (UTF-8, marked for translation) */
    nb_unit_kind kind;
    double k, k2;
  } nb_unit;

  /* What the values after a flag are. */
  typedef enum
  {
    NB_PARAM_NUMBER,  /* decimal numbers in the flag's unit */
    NB_PARAM_WHOLE,   /* whole numbers */
    NB_PARAM_TEXT,    /* a file name */
    NB_PARAM_CHOICE,  /* one of the words of .choices (-precision single) */
    NB_PARAM_SWITCH,  /* no value: the flag stores .value in its field */
    NB_PARAM_IGNORED, /* accepted and dropped, as the reference does */
    NB_PARAM_SECTION, /* not a parameter: the title (.help) of the rows that follow */
  } nb_param_kind;

  /* The C type of the fields a row sets (an enum field is an int). */
  typedef enum
  {
    NB_FIELD_DOUBLE,
    NB_FIELD_INT,
    NB_FIELD_LONG,
    NB_FIELD_STRING, /* char *, owned by nb_params */
  } nb_field_type;

  /* Row flags. */
  enum
  {
    /* matching */
    NB_PARAM_PREFIX = 1u << 0, /* the flag also matches longer spellings, as the
                                  reference's substring test does (-pixel_size) */
    /* the range (.min, .max in the flag's unit) */
    NB_PARAM_MIN_OPEN = 1u << 1,  /* > min (else >= min) */
    NB_PARAM_MAX_OPEN = 1u << 2,  /* < max (else <= max) */
    NB_PARAM_UNSET_OK = 1u << 3,  /* .unset ("not given") is allowed too */
    NB_PARAM_NO_RANGE = 1u << 4,  /* not checked by the table (a relation or .check does) */
    NB_PARAM_NONNEG = 1u << 5,    /* the parser refuses a negative value, which would read
                                     as "not given" or "automatic" */
    NB_PARAM_POSITIVE = 1u << 6,  /* the parser refuses a value <= 0 */
    NB_PARAM_NONZERO = 1u << 7,   /* the parser refuses 0 */
    NB_PARAM_NAMES_ALL = 1u << 8, /* a flag setting several fields with one value: messages
                                     name it when the fields are equal (-N, not -Na) */
    /* formatting */
    NB_PARAM_NO_ARGV = 1u << 9, /* nb_params_to_argv() writes its fields with other flags */
    /* properties */
    NB_PARAM_UNSET_READS_ZERO = 1u << 10, /* the property reads 0 while "not given" */
    NB_PARAM_ZERO_SETS_UNSET = 1u << 11,  /* setting the property to 0 means "not given" */
    NB_PARAM_UNSET_SETTABLE = 1u << 12,   /* setting .unset (NaN, -1) means "not given" */
    NB_PARAM_INPUT_FILE = 1u << 13,       /* a file read when the plan is built */
    NB_PARAM_UNSUPPORTED = 1u << 14,      /* an unknown word is NB_ERR_UNSUPPORTED (a
                                             backend this build lacks), not a usage error */
    NB_PARAM_COMPONENT = 1u << 15,        /* one value (.component) of the flag .name */
    /* nanoBragg's own matching, which acts on every flag whose name occurs in a
     * word (strstr), for what -lenient skips and what messages name: */
    NB_PARAM_NANOBRAGG_EXACT = 1u << 16, /* nanoBragg takes the flag only as the whole word */
    NB_PARAM_BRAGGSCOPE = 1u << 17,      /* not one of nanoBragg's flags */
    /* frames: */
    NB_PARAM_REPORTED = 1u << 18, /* a frame reports the value its plan used (.reported) */
    /* what a row is for: without this flag a row describes the scene; with it,
     * its value names an output, a file the program writes (-dump, -floatfile,
     * -stolout...), which a scene (a snapshot, a saved scene, a lesson) may
     * not hold: nb_params_parse_scene_argv() refuses it and
     * nb_params_to_scene_argv() leaves it out */
    NB_PARAM_OUTPUT = 1u << 19,
  };

  /* Side effects: what a flag sets besides its fields, in nanoBragg's own
 * order of precedence (as nanoBragg.c applies them). */
  enum
  {
    NB_SETS_PIVOT_BEAM = 1u << 0,   /* pivot = beam (-distance, -Xbeam, ...) */
    NB_SETS_PIVOT_SAMPLE = 1u << 1, /* pivot = sample (-twotheta, -Xclose, ...) */
    NB_SETS_CUSTOM = 1u << 2,       /* convention = CUSTOM (a detector vector) */
    NB_SETS_TWOTHETA = 1u << 3,     /* two-theta = the vector's x (degrees) and pivot =
                                       sample, unless -physical */
    NB_SETS_POLAR = 1u << 4,        /* nopolar = 0 */
    NB_SETS_PGM = 1u << 5,          /* write_pgm = 1 */
    NB_SETS_NOISE = 1u << 6,        /* calculate_noise = 1 */
    NB_SETS_PRINTOUT = 1u << 7,     /* printout = 1 */
    NB_SETS_MISSET = 1u << 8,       /* misset_random = 0: angles, not a random orientation */
    NB_SETS_STOL_KIND = 1u << 9,    /* stol_kind = .value */
  };

  typedef struct
  {
    const char *word;
    int value;
  } nb_choice;

  typedef struct nb_param nb_param;
  typedef struct nb_argv_builder nb_argv_builder;

  /* The rows the generic rules do not cover (-cell's one to six values,
   * -misset random, the quirks...).  The table is data: such a
   * row says which it is, and the parser, the formatter and the checks
   * (params-parse.c, params-format.c, params-validate.c) each switch on it. */
  typedef enum
  {
    NB_PARAM_GENERIC = 0,          /* the generic rules alone */
    NB_PARAM_SPECIAL_CELL,         /* -cell a [b c [alpha beta gamma]]: parse, format, check */
    NB_PARAM_SPECIAL_MISSET,       /* -misset rx ry rz|random: parse, format */
    NB_PARAM_SPECIAL_MISSET_SEED,  /* -misset_seed and its Q-29 angles: parse */
    NB_PARAM_SPECIAL_DETECTOR_ABS, /* -detector_abs depth|0|inf: parse, format, check */
    NB_PARAM_SPECIAL_PIVOT,        /* -pivot, its words found in the value: parse */
    NB_PARAM_SPECIAL_STOL,         /* -stol, -4stol, -Q: one file, its kind's flag: format */
    NB_PARAM_SPECIAL_HEADER,       /* -img, -mask: their header's defaults: format */
    NB_PARAM_SPECIAL_FRAME,        /* -frame: as a header, and the exposure: format */
    NB_PARAM_SPECIAL_MOSAIC_SEED,  /* -mosaic_seed, written where it counts: format */
    NB_PARAM_SPECIAL_NOISE_SEED,   /* -seed, written with a noise image: format */
    NB_PARAM_SPECIAL_CONVENTION,   /* a CUSTOM convention restated by a vector: format */
    NB_PARAM_SPECIAL_DISTANCE,     /* -distance, decided by -close_distance: check */
    NB_PARAM_SPECIAL_DETSIZE,      /* -detsize_f/_s, counted without pixel counts: check */
    NB_PARAM_N_SPECIAL
  } nb_param_special;

  typedef double (*nb_param_derive_fn) (const nb_params *p, const nb_plan_info *info);

  struct nb_param
  {
    const char *flag;    /* "-distance", the spelling messages and argv use; NULL: none */
    const char *aliases; /* other spellings, space-separated; "-wave*": longer too;
                            "-MW=": nanoBragg takes it only as the whole word */
    const char *name;    /* a flagless row's name in messages; a component row's flag */
    nb_param_kind kind;
    nb_field_type type;
    signed char nargs;         /* values after the flag; -1: the parser's special case counts */
    unsigned char n_field;     /* fields set: one value each, or one value for all */
    unsigned short field[6];   /* offsetof (nb_params, ...) */
    unsigned char component;   /* a component row: its value's place in the flag's */
    const nb_unit *unit;       /* the flag's unit (NULL: none) */
    double min, max;           /* allowed, in the flag's unit */
    double unset;              /* "not given", in the field's unit */
    const char *note;          /* what a message adds to the range ("0 = automatic") */
    int value;                 /* SWITCH, and NB_SETS_STOL_KIND: the value stored */
    unsigned flags;            /* NB_PARAM_* */
    unsigned effects;          /* NB_SETS_* */
    unsigned stages;           /* 1 << nb_stage of every stage a change invalidates */
    const nb_choice *choices;  /* CHOICE: the words, NULL-terminated */
    const char *property;      /* the GObject property, or NULL */
    const char *label;         /* a control's label (English, marked N_) */
    const char *help;          /* one line: --help and the property's blurb */
    const char *synopsis;      /* the values as --help shows them, when not their units */
    const char *more;          /* what --help adds after the help line, which alone is the blurb */
    double ui_lower, ui_upper; /* the range a slider spans (property unit) */
    double ui_step;            /* its step; 0: not a number */
    int ui_digits;             /* decimals shown */
    double prop_scale;         /* property = flag value * prop_scale; 0 means 1 */
    const char *prop_unit;     /* the property's unit symbol when it differs */
    nb_param_special special;  /* a row the generic rules do not cover, or NB_PARAM_GENERIC */
    nb_param_derive_fn derive; /* the value a "not given" property reads */
    size_t reported;           /* NB_PARAM_REPORTED: offsetof (nb_plan_info, ...) */
  };

  /* nb_param_table: the rows, in the order nb_params_to_argv() writes them
 * (crystal, beam, detector, sampling, output, Braggscope's own); *@n gets
 * their number. */
  NB_API const nb_param *nb_param_table (size_t *n);

  /* nb_param_find: the row of a flag spelling (the reference's matching,
 * aliases included), or NULL. */
  NB_API const nb_param *nb_param_find (const char *flag);

  /* nb_argv_output_words: 0 unless @argv[@i] is a flag whose value names an
 * output (a row with NB_PARAM_OUTPUT, matched as nb_params_parse_argv()
 * matches flags, so "-dumpfile" is -dump); then the number of words, from
 * @i, that the flag and the values the parser would give it take (1 when
 * its value is missing).  @argv has @argc words. */
  NB_API int nb_argv_output_words (int argc, const char *const *argv, int i);

  /* nb_param_find_property: the row of a property name, or NULL. */
  NB_API const nb_param *nb_param_find_property (const char *property);

  /* nb_param_find_field: the row of the flag that sets the field at @offset
 * (offsetof (nb_params, misset): -misset), its first field; or NULL.  For a
 * program that writes a flag for a value it computed, without spelling the
 * flag or its unit. */
  NB_API const nb_param *nb_param_find_field (size_t offset);

  /* nb_unit_to_field, nb_unit_from_field: a flag's number @x as the field
 * stores it, and back (degrees to radians for -misset, and back). */
  NB_API double nb_unit_to_field (const nb_unit *u, double x);
  NB_API double nb_unit_from_field (const nb_unit *u, double v);

  /* nb_param_owner: the row whose flag a component row belongs to (-misset
 * for misset-x); @row itself otherwise. */
  NB_API const nb_param *nb_param_owner (const nb_param *row);

  /* nb_param_unit_symbol: the unit a property of @row is shown in ("" for
 * none); "keV" for the photon energy. */
  NB_API const char *nb_param_unit_symbol (const nb_param *row);

  /* nb_param_get_number: @row's property value (NUMBER, WHOLE, SWITCH) of
 * @p, in the property's unit.  A "not given" value reads as 0 for rows with
 * NB_PARAM_UNSET_READS_ZERO, or as the row's derived value (the beam centre
 * the last plan used, @info, NULL before there is one; the pixel count a
 * detector size gives) where it has one. */
  NB_API double
  nb_param_get_number (const nb_param *row, const nb_params *p, const nb_plan_info *info);

  /* nb_param_set_number: sets @row's property to @v (property unit) in @p as
 * its flag would (same conversion, same side effects: distance pivots about
 * the beam, polarization clears -nopolar), refusing what the parser refuses
 * (NB_ERR_INVALID, naming the flag and the value).  Ranges are
 * nb_params_validate()'s business: run it on the result. */
  NB_API nb_status nb_param_set_number (const nb_param *row, nb_params *p, double v, nb_error *err);

  /* nb_param_get_reported: the value of @row (NB_PARAM_REPORTED) that a plan
 * whose derived values are @info used, in the property's unit: the
 * oversampling it chose when none was given. */
  NB_API double nb_param_get_reported (const nb_param *row, const nb_plan_info *info);

  /* nb_param_get_text: TEXT: the file name (NULL for none); CHOICE: the word
 * of the field's value. */
  NB_API const char *nb_param_get_text (const nb_param *row, const nb_params *p);

  /* nb_param_set_text: TEXT: a copy of @text ("" or NULL: none); CHOICE: the
 * value of the word @text (NULL: the default), else NB_ERR_INVALID "flag:
 * 'word' is not one of ...".  Side effects as the flag's.  NB_ERR_NOMEM. */
  NB_API nb_status nb_param_set_text (const nb_param *row,
                                      nb_params *p,
                                      const char *text,
                                      nb_error *err);

  /* nb_param_describe_range: what @row allows, in its flag's unit, as
 * messages say it ("1 to 65536", "> 0, up to 1000 mm", ">= 0 (0 =
 * automatic)"); "a finite number" without bounds. */
  NB_API void nb_param_describe_range (const nb_param *row, char *buf, size_t size);

  /* nb_param_property_range: the closed range of the values @row's property
 * (NUMBER or WHOLE, in the property's unit) may hold, for a host's slider or
 * an inspector: the ranges of every row that checks a field @row sets,
 * converted to @row's unit, narrowed by what @row's own parser refuses (a
 * negative or zero value), widened to the value that means "not given" where
 * the property may be set to it (-1 mosaic domains, 0 oversampling).  An open
 * bound becomes the nearest double inside it (distance > 0: the smallest
 * positive double); an unbounded side is -DBL_MAX or DBL_MAX (finite
 * numbers).  A value inside may still be refused: by a relation between
 * parameters (a cell that does not close), or in a gap the range cannot show
 * (mosaic domains 0, a cell length between 0 and 0.1 Angstrom). */
  NB_API void nb_param_property_range (const nb_param *row, double *min, double *max);

  /* nb_param_changed: the stages (1 << nb_stage) a change from @a to @b
 * invalidates: the union of the stages of every row whose fields differ. */
  NB_API unsigned nb_param_changed (const nb_params *a, const nb_params *b);

  /* nb_params_help: the help lines of every flag, one per row, grouped as
 * the table is, for --help (malloc'ed, NULL when out of memory). */
  NB_API char *nb_params_help (void);

#ifdef __cplusplus
}
#endif
