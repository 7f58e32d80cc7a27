/* param-table.c: the parameter table (nb-param.h): one row per parameter.
 *
 * Source: nanoBragg.c main(), its argument loop (the spellings, units and
 * side effects of every flag) and declarations (nb_params_init() has the
 * defaults); cli.md.  The reference compares every token against every flag
 * by substring; here each row has one flag, chosen by the longest matching
 * spelling, and the spellings the substring test accepts on purpose are the
 * row's aliases ("-wave*": any spelling starting so).  The two places where
 * that test runs a second handler on command lines that look deliberate
 * (-misset_seed also setting misset angles, Q-29; -twotheta_axis also setting
 * two-theta, Q-30) are reproduced unless -physical is given.
 *
 * The rows are in the order nb_params_to_argv() writes them: a flag written
 * later may repair what an earlier one implied (-pivot after every flag that
 * sets the pivot, the convention after the detector vectors, -twotheta after
 * -twotheta_axis).  The table is data: the few rows the generic rules do not
 * cover say which they are (.special, nb_param_special), and the parser, the
 * formatter and the checks (params-parse.c, params-format.c,
 * params-validate.c) each handle them; the table calls none of them.
 *
 * Labels and help lines of the rows a host edits are marked for translation
 * (N_); libbraggscope-gtk translates them.
 */
#include "nb-param-private.h"

#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* gettext's no-op marker: xgettext collects these, the engine keeps English. */
#define N_(s) s

/* ---- limits ---- */

#define MAX_CELLS      1e6    /* unit cells along one axis */
#define MAX_OVERSAMPLE 1000   /* sub-pixels along one pixel axis */
#define MAX_STEPS      1e5    /* phi steps, wavelengths, divergence steps per axis */
#define MAX_DOMAINS    1e6    /* mosaic domains */
#define MAX_LAYERS     1000   /* sensor layers */
#define MAX_SAMPLE_MM  1000.0 /* crystal size */
#define MAX_PIXEL_MM   1000.0

/* ---- units ---- */

static const nb_unit none = { "", "", NB_UNIT_SAME, 1.0, 0.0 };
static const nb_unit mm = { "mm", "mm", NB_UNIT_DIVIDE, 1000.0, 0.0 };
const nb_unit nb_unit_deg = { "deg", "\u00b0", NB_UNIT_DIVIDE, NB_PARAM_RTD, 0.0 };
#define deg nb_unit_deg
static const nb_unit mrad = { "mrad", "mrad", NB_UNIT_DIVIDE, 1000.0, 0.0 };
static const nb_unit angstrom = { "Angstrom", "\u00c5", NB_UNIT_DIVIDE, 1.0e10, 0.0 };
static const nb_unit angstrom_mul = { "Angstrom", "\u00c5", NB_UNIT_MULTIPLY, 1e-10, 0.0 };
static const nb_unit cell_length = { "Angstrom", "\u00c5", NB_UNIT_SAME, 1.0, 0.0 };
static const nb_unit percent = { "%", "%", NB_UNIT_DIVIDE, 100.0, 0.0 };
static const nb_unit um_div = { "um", "\u00b5m", NB_UNIT_DIVIDE, 1e6, 0.0 };
static const nb_unit um_mul = { "um", "\u00b5m", NB_UNIT_MULTIPLY, 1e-6, 0.0 };
static const nb_unit um_depth = { "um", "\u00b5m", NB_UNIT_INVERSE, 1e-6, 0.0 };
/* -energy: nanoBragg's h c = 12398.42 eV Angstrom */
static const nb_unit ev = { "eV", "eV", NB_UNIT_INVERSE_K2, 1.0e10, 12398.42 };
static const nb_unit mb = { "MB", "MB", NB_UNIT_MULTIPLY, 1e6, 0.0 };
static const nb_unit seconds = { "s", "s", NB_UNIT_SAME, 1.0, 0.0 };
static const nb_unit fluence = { "photons/m^2", N_ ("photons/m\u00b2"), NB_UNIT_SAME, 1.0, 0.0 };
static const nb_unit flux = { "photons/s", "photons/s", NB_UNIT_SAME, 1.0, 0.0 };
static const nb_unit pixels = { "px", "px", NB_UNIT_SAME, 1.0, 0.0 };
static const nb_unit negated = { "", "", NB_UNIT_NEGATE, 1.0, 0.0 };

/* ---- choices ---- */

static const nb_choice shapes[] = {
  { "square", NB_SHAPE_SQUARE },
  { "round", NB_SHAPE_ROUND },
  { "gauss", NB_SHAPE_GAUSS },
  { "tophat", NB_SHAPE_TOPHAT },
  { NULL, 0 },
};
static const nb_choice conventions[] = {
  { "custom", NB_CONVENTION_CUSTOM },
  { "adxv", NB_CONVENTION_ADXV },
  { "mosflm", NB_CONVENTION_MOSFLM },
  { "xds", NB_CONVENTION_XDS },
  { "dials", NB_CONVENTION_DIALS },
  { "denzo", NB_CONVENTION_DENZO },
  { NULL, 0 },
};
static const nb_choice pivots[] = {
  { "sample", NB_PIVOT_SAMPLE },
  { "beam", NB_PIVOT_BEAM },
  { NULL, 0 },
};
static const nb_choice interpolations[] = {
  { "off", 0 },
  { "tricubic", 1 },
  { "auto", 2 },
  { NULL, 0 },
};
static const nb_choice stol_kinds[] = {
  { "none", NB_STOL_NONE },
  { "stol", NB_STOL_STOL },
  { "4stol", NB_STOL_4STOL },
  { "Q", NB_STOL_Q },
  { NULL, 0 },
};
static const nb_choice precisions[] = {
  { "double", NB_PRECISION_DOUBLE },
  { "single", NB_PRECISION_SINGLE },
  { "exact", NB_PRECISION_EXACT },
  { NULL, 0 },
};
static const nb_choice integrations[] = {
  { "exact", NB_INTEGRATION_EXACT },
  { "adaptive", NB_INTEGRATION_ADAPTIVE },
  { NULL, 0 },
};
static const nb_choice backends[] = {
  { "auto", NB_BACKEND_AUTO },
  { "cpu", NB_BACKEND_CPU },
  { "cuda", NB_BACKEND_CUDA },
  { NULL, 0 },
};

/* The pixels nb_detector_setup() derives from a size when no count is given. */
static double
derive_fpixels (const nb_params *p, const nb_plan_info *info)
{
  return ceil (p->detsize_f / p->pixel_size - 0.5);
}

static double
derive_spixels (const nb_params *p, const nb_plan_info *info)
{
  return ceil (p->detsize_s / p->pixel_size - 0.5);
}

/* The mosaic domains resolve_mosaic() (sources.c) takes when none are given (nanoBragg's
 * rule): 10 with a mosaic spread, else 1.  A control shows that count, never
 * the "not given" -1. */
static double
derive_mosaic_domains (const nb_params *p, const nb_plan_info *info)
{
  return p->mosaic_spread > 0.0 ? 10.0 : 1.0;
}

/* The beam centre the convention chose where none is given: known once a
 * plan was built. */
static double
derive_xbeam (const nb_params *p, const nb_plan_info *info)
{
  return info != NULL ? info->Xbeam : NAN;
}

static double
derive_ybeam (const nb_params *p, const nb_plan_info *info)
{
  return info != NULL ? info->Ybeam : NAN;
}

/* ------------------------------------------------------------------------- */
/* The rows */

#define F(f)             offsetof (nb_params, f)
#define STAGE(s)         (1u << NB_STAGE_##s)
#define DETECTOR         STAGE (DETECTOR)
#define CRYSTAL          STAGE (CRYSTAL)
#define SF               STAGE (STRUCTURE_FACTORS)
#define SOURCES          STAGE (SOURCES)
#define ORIENTATION      STAGE (ORIENTATION)
#define BUFFERS          STAGE (BUFFERS)
#define UI(lo, hi, s, d) .ui_lower = lo, .ui_upper = hi, .ui_step = s, .ui_digits = d

/* Every row starts unbounded; a row's own designators override these. */
#define ROW(...)                                                                                   \
  {                                                                                                \
    .min = -INFINITY, .max = INFINITY, .unset = NAN, __VA_ARGS__                                   \
  }
#define SECTION(title)                                                                             \
  {                                                                                                \
    .kind = NB_PARAM_SECTION, .help = title                                                        \
  }
/* a number of one field */
#define NUMBER(f)                                                                                  \
  .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .nargs = 1, .n_field = 1, .field = { F (f) }
/* a whole number of one int field */
#define COUNT(f)                                                                                   \
  .kind = NB_PARAM_WHOLE, .type = NB_FIELD_INT, .nargs = 1, .n_field = 1, .field = { F (f) }
#define SEED(f)                                                                                    \
  .kind = NB_PARAM_WHOLE, .type = NB_FIELD_LONG, .nargs = 1, .n_field = 1, .field = { F (f) },     \
  .unit = &negated, .flags = NB_PARAM_NO_RANGE
#define TEXT(f)                                                                                    \
  .kind = NB_PARAM_TEXT, .type = NB_FIELD_STRING, .nargs = 1, .n_field = 1, .field = { F (f) }
#define SWITCH(f, v)                                                                               \
  .kind = NB_PARAM_SWITCH, .type = NB_FIELD_INT, .nargs = 0, .n_field = 1, .field = { F (f) },     \
  .value = (v)
#define CHOICE(f, c)                                                                               \
  .kind = NB_PARAM_CHOICE, .type = NB_FIELD_INT, .nargs = 1, .n_field = 1, .field = { F (f) },     \
  .choices = (c)
/* a value several fields take (-N: Na, Nb, Nc) */
#define BOTH(kind_, type_, a, b)                                                                   \
  .kind = kind_, .type = type_, .nargs = 1, .n_field = 2, .field = { F (a), F (b) }
#define VECTOR(f)                                                                                  \
  .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .nargs = 3, .n_field = 3,                      \
  .field = { F (f[0]), F (f[1]), F (f[2]) }, .unit = &none, .stages = DETECTOR,                    \
  .effects = NB_SETS_CUSTOM
/* one value of a multi-value flag, as a property */
#define COMPONENT(flag_, k, f)                                                                     \
  .name = flag_, .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .n_field = 1,                   \
  .field = { F (f) }, .component = k, .flags = NB_PARAM_COMPONENT
#define IGNORED(n, t) .kind = NB_PARAM_IGNORED, .type = t, .nargs = n

#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

/* clang-format off */
static const nb_param rows[] = {
  SECTION ("Mode"),
  ROW (.flag = "-physical", .flags = NB_PARAM_BRAGGSCOPE, SWITCH (physical, 1), .stages = DETECTOR | CRYSTAL,
       .help = "correct the reference's bugs instead of reproducing them: phi = 0 carry-over (Q-3), "
               "triclinic c* (Q-5), water background (Q-14), two-theta distance ratio (Q-2), "
               "angles set by -misset_seed and -twotheta_axis (Q-29, Q-30), '#' lines of a -sourcefile "
               "read as sources (Q-19)"),

  SECTION ("Detector headers (read before every other flag: a measured frame, the mask, the image)"),
  ROW (.flag = "-frame", TEXT (frame_file), .flags = NB_PARAM_INPUT_FILE | NB_PARAM_BRAGGSCOPE,
       .special = NB_PARAM_SPECIAL_FRAME,
       .help = "measured frame (SMV, CBF or NeXus/HDF5) whose header gives the wavelength, distance, "
               "beam centre, pixel size and count, phi, oscillation and exposure, each printed with "
               "where it came from; an NXmx frame of several modules is its own -detector, and with "
               "a -detector model only the wavelength, phi, oscillation and exposure are taken"),
  ROW (.flag = "-frame_index", COUNT (frame_index), .unit = &none, .min = 0, .max = 1e9,
       .flags = NB_PARAM_BRAGGSCOPE | NB_PARAM_NONNEG,
       .help = "the frame of a NeXus series -frame reads (0-based)"),
  ROW (.flag = "-detector", TEXT (detector_file), .flags = NB_PARAM_INPUT_FILE | NB_PARAM_BRAGGSCOPE,
       .stages = DETECTOR | BUFFERS, .property = "detector-file", .label = N_ ("Detector geometry"),
       .help = "multi-panel detector geometry (CrystFEL .geom): each panel is rendered, one after "
               "another in the image, in place of the -detpixels/-pixel/vector detector"),
  ROW (.flag = "-detector_shift", .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .nargs = 3,
       .n_field = 3, .field = { F (detector_shift[0]), F (detector_shift[1]), F (detector_shift[2]) },
       .unit = &mm, .flags = NB_PARAM_BRAGGSCOPE, .stages = DETECTOR, .synopsis = "dx dy dz",
       .help = "moves the -detector model's panels by this lab vector (mm), after -detector_rotation: "
               "every panel corner x becomes R x + t (the whole detector as one rigid body)"),
  ROW (.flag = "-detector_rotation", .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .nargs = 3,
       .n_field = 3,
       .field = { F (detector_rotation[0]), F (detector_rotation[1]), F (detector_rotation[2]) },
       .unit = &deg, .flags = NB_PARAM_BRAGGSCOPE, .stages = DETECTOR, .synopsis = "rx ry rz",
       .help = "turns the -detector model's panels about the sample by this rotation vector (deg; "
               "a turn by its length about its direction): corners, fast and slow axes"),
  ROW (.flag = "-mask", TEXT (mask_file), .flags = NB_PARAM_INPUT_FILE, .stages = BUFFERS,
       .special = NB_PARAM_SPECIAL_HEADER,
       .help = "SMV file whose zero pixels are skipped; its header gives defaults"),
  ROW (.flag = "-img", TEXT (img_file), .flags = NB_PARAM_INPUT_FILE, .special = NB_PARAM_SPECIAL_HEADER,
       .help = "SMV file whose header gives the detector, wavelength and spindle defaults"),

  SECTION ("Crystal"),
  /* -cell's components: check_cell checks the cell; their ranges are what a
   * property may hold (0: no cell for a, the same as a for b and c, 90 for an
   * angle), for nb_param_property_range() */
  ROW (.flag = "-cell", .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .nargs = -1, .n_field = 6,
       .field = { F (cell[0]), F (cell[1]), F (cell[2]), F (cell[3]), F (cell[4]), F (cell[5]) },
       .stages = CRYSTAL, .special = NB_PARAM_SPECIAL_CELL,
       .synopsis = "a b c alpha beta gamma", .help = "unit cell a b c (Angstrom) alpha beta gamma (deg)"),
  ROW (COMPONENT ("-cell", 0, cell[0]), .flags = NB_PARAM_COMPONENT, .min = 0, .max = NB_CELL_LENGTH_MAX_A, .unit = &cell_length, .property = "cell-a",
       .label = N_ ("Cell a"), .help = N_ ("Unit cell a (Angstrom)"), UI (2, 500, 0.1, 2)),
  ROW (COMPONENT ("-cell", 1, cell[1]), .flags = NB_PARAM_COMPONENT, .min = 0, .max = NB_CELL_LENGTH_MAX_A, .unit = &cell_length, .property = "cell-b",
       .label = N_ ("Cell b"), .help = N_ ("Unit cell b (Angstrom)"), UI (2, 500, 0.1, 2)),
  ROW (COMPONENT ("-cell", 2, cell[2]), .flags = NB_PARAM_COMPONENT, .min = 0, .max = NB_CELL_LENGTH_MAX_A, .unit = &cell_length, .property = "cell-c",
       .label = N_ ("Cell c"), .help = N_ ("Unit cell c (Angstrom)"), UI (2, 500, 0.1, 2)),
  ROW (COMPONENT ("-cell", 3, cell[3]), .flags = NB_PARAM_COMPONENT | NB_PARAM_MAX_OPEN, .min = 0, .max = 180, .unit = &deg, .property = "cell-alpha",
       .label = N_ ("Cell \u03b1"), .help = N_ ("Unit cell alpha (degrees)"), UI (20, 160, 0.1, 2)),
  ROW (COMPONENT ("-cell", 4, cell[4]), .flags = NB_PARAM_COMPONENT | NB_PARAM_MAX_OPEN, .min = 0, .max = 180, .unit = &deg, .property = "cell-beta",
       .label = N_ ("Cell \u03b2"), .help = N_ ("Unit cell beta (degrees)"), UI (20, 160, 0.1, 2)),
  ROW (COMPONENT ("-cell", 5, cell[5]), .flags = NB_PARAM_COMPONENT | NB_PARAM_MAX_OPEN, .min = 0, .max = 180, .unit = &deg, .property = "cell-gamma",
       .label = N_ ("Cell \u03b3"), .help = N_ ("Unit cell gamma (degrees)"), UI (20, 160, 0.1, 2)),
  ROW (.flag = "-mat", TEXT (mat_file), .flags = NB_PARAM_PREFIX | NB_PARAM_INPUT_FILE,
       .stages = CRYSTAL, .help = "MOSFLM orientation matrix, instead of or with -cell"),
  ROW (.flag = "-misset", .kind = NB_PARAM_NUMBER, .type = NB_FIELD_DOUBLE, .nargs = -1,
       .n_field = 3, .field = { F (misset[0]), F (misset[1]), F (misset[2]) }, .unit = &deg,
       .effects = NB_SETS_MISSET, .stages = CRYSTAL, .special = NB_PARAM_SPECIAL_MISSET,
       .synopsis = "rx ry rz|random", .help = "crystal rotation about X, Y, Z (deg), or 'random' (drawn from -misset_seed)"),
  ROW (COMPONENT ("-misset", 0, misset[0]), .unit = &deg, .property = "misset-x",
       .label = N_ ("Misset x"), .help = N_ ("Misset about X (degrees)"), UI (-180, 180, 0.1, 2)),
  ROW (COMPONENT ("-misset", 1, misset[1]), .unit = &deg, .property = "misset-y",
       .label = N_ ("Misset y"), .help = N_ ("Misset about Y (degrees)"), UI (-180, 180, 0.1, 2)),
  ROW (COMPONENT ("-misset", 2, misset[2]), .unit = &deg, .property = "misset-z",
       .label = N_ ("Misset z"), .help = N_ ("Misset about Z (degrees)"), UI (-180, 180, 0.1, 2)),
  ROW (.name = "misset random", SWITCH (misset_random, 1), .nargs = 0, .stages = CRYSTAL,
       .flags = NB_PARAM_NO_RANGE),
  ROW (.flag = "-misset_seed", SEED (misset_seed), .stages = CRYSTAL,
       .flags = NB_PARAM_NO_RANGE | NB_PARAM_NO_ARGV, .special = NB_PARAM_SPECIAL_MISSET_SEED,
       .help = "seed of -misset random (also misset angles unless -physical: Q-29)"),
  ROW (.flag = "-N", .kind = NB_PARAM_WHOLE, .type = NB_FIELD_DOUBLE, .nargs = 1, .n_field = 3,
       .field = { F (Na), F (Nb), F (Nc) }, .unit = &none, .min = 0, .max = MAX_CELLS,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_NAMES_ALL, .stages = CRYSTAL, .property = "n-cells",
       .label = N_ ("Unit cells per edge"), .note = "0 and 1 are one cell", .help = N_ ("Unit cells along each axis (count)"),
       UI (1, 100, 1, 0)),
  ROW (.flag = "-Na", NUMBER (Na), .kind = NB_PARAM_WHOLE, .min = 0, .max = MAX_CELLS,
       .stages = CRYSTAL, .help = "unit cells along a"),
  ROW (.flag = "-Nb", NUMBER (Nb), .kind = NB_PARAM_WHOLE, .min = 0, .max = MAX_CELLS,
       .stages = CRYSTAL, .help = "unit cells along b"),
  ROW (.flag = "-Nc", NUMBER (Nc), .kind = NB_PARAM_WHOLE, .min = 0, .max = MAX_CELLS,
       .stages = CRYSTAL, .help = "unit cells along c"),
  ROW (.flag = "-xtalsize", .aliases = "-samplesize -sample_size -xtal_size", .kind = NB_PARAM_NUMBER,
       .type = NB_FIELD_DOUBLE, .nargs = 1, .n_field = 3,
       .field = { F (sample_x), F (sample_y), F (sample_z) }, .unit = &mm, .min = 0,
       .max = MAX_SAMPLE_MM, .flags = NB_PARAM_NAMES_ALL | NB_PARAM_NO_ARGV, .stages = CRYSTAL,
       .note = "0: from -N", .help = "crystal size along x, y, z (mm; 0: from -N)"),
  ROW (.flag = "-sample_x", .aliases = "-sample_thick -xtal_thick -xtal_x", NUMBER (sample_x),
       .unit = &mm, .min = 0, .max = MAX_SAMPLE_MM, .stages = CRYSTAL,
       .note = "0: from -N", .help = "crystal thickness along the beam (mm)"),
  ROW (.flag = "-sample_y", .aliases = "-sample_width -width -xtal_width -xtal_y",
       NUMBER (sample_y), .unit = &mm, .min = 0, .max = MAX_SAMPLE_MM, .stages = CRYSTAL,
       .note = "0: from -N", .help = "crystal width (mm; clipped by -beamsize)"),
  ROW (.flag = "-sample_z", .aliases = "-sample_heigh* -heigh* -xtal_heigh* -xtal_z",
       NUMBER (sample_z), .unit = &mm, .min = 0, .max = MAX_SAMPLE_MM, .stages = CRYSTAL,
       .note = "0: from -N", .help = "crystal height (mm; clipped by -beamsize)"),
  ROW (.flag = "-density", .aliases = "-sample_den* -MW= -molec*",
       IGNORED (1, NB_FIELD_DOUBLE), .help = "read and ignored, as by nanoBragg"),
  ROW (.name = "crystal shape", CHOICE (shape, shapes), .nargs = 0, .property = "crystal-shape",
       .label = N_ ("Crystal shape"), .help = N_ ("Crystal shape transform")),
  ROW (.flag = "-square_xtal", SWITCH (shape, NB_SHAPE_SQUARE),
       .help = "parallelepiped crystal: grating (sincg) spots (the default)"),
  ROW (.flag = "-round_xtal", SWITCH (shape, NB_SHAPE_ROUND), .help = "spherical crystal: sinc3 spots"),
  ROW (.flag = "-gauss_xtal", SWITCH (shape, NB_SHAPE_GAUSS), .help = "Gaussian spots"),
  ROW (.flag = "-tophat_spots", .aliases = "-binary_spots", SWITCH (shape, NB_SHAPE_TOPHAT),
       .help = "flat-top spots"),
  ROW (.flag = "-fudge", NUMBER (fudge), .unit = &none, .min = 0, .flags = NB_PARAM_MIN_OPEN,
       .help = "shape parameter of the round, Gaussian and flat-top spots"),
  ROW (.flag = "-mosaic", .aliases = "-mosaici* -mosaic_spr*", NUMBER (mosaic_spread), .unit = &deg,
       .min = 0, .max = 180, .unset = -1,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_UNSET_OK | NB_PARAM_NONNEG | NB_PARAM_UNSET_READS_ZERO,
       .stages = ORIENTATION, .property = "mosaic-spread", .label = N_ ("Mosaic spread"),
       .help = N_ ("Mosaic spread (degrees)"), UI (0, 5, 0.01, 3)),
  ROW (.flag = "-mosaic_domains", .aliases = "-mosaic_dom*", COUNT (mosaic_domains), .unit = &none,
       .min = 1, .max = MAX_DOMAINS, .unset = -1,
       .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG | NB_PARAM_UNSET_SETTABLE,
       .stages = ORIENTATION, .derive = derive_mosaic_domains, .property = "mosaic-domains",
       .label = N_ ("Mosaic domains"),
       .help = N_ ("Mosaic domains (count; 10 when a mosaic spread is given without one)"), UI (1, 200, 1, 0)),
  ROW (.flag = "-mosaic_seed", SEED (mosaic_seed), .stages = ORIENTATION,
       .special = NB_PARAM_SPECIAL_MOSAIC_SEED, .help = "seed of the mosaic domains' orientations"),
  ROW (.name = "interpolation", CHOICE (interpolate, interpolations), .nargs = 0),
  ROW (.flag = "-nointerpolate", SWITCH (interpolate, 0),
       .help = "structure factors of the nearest h k l (default with more than 2 cells)"),
  ROW (.flag = "-interpolate", SWITCH (interpolate, 1),
       .help = "tricubic interpolation of structure factors (default with -N <= 2)"),
  ROW (.flag = "-hkl", .aliases = "-model", TEXT (hkl_file), .flags = NB_PARAM_PREFIX | NB_PARAM_INPUT_FILE,
       .stages = SF, .property = "structure-factors", .label = N_ ("Structure factors"),
       .help = N_ ("Structure factor file (HKL text, MTZ, mmCIF -sf.cif) or atomic model to compute them from (PDB, mmCIF, small-molecule CIF; -model); path")),
  ROW (.flag = "-dump", TEXT (dump_file), .flags = NB_PARAM_PREFIX | NB_PARAM_OUTPUT, .stages = SF,
       .help = "Fdump cache of structure factors: written after -hkl, read without it"),
  ROW (.flag = "-default_F", NUMBER (default_F), .unit = &none, .stages = SF,
       .property = "default-f", .label = N_ ("Default F"),
       .help = N_ ("Structure factor of reflections not in the file"), UI (0, 10000, 1, 1)),
  ROW (.name = "stol table kind", CHOICE (stol_kind, stol_kinds), .nargs = 0),
  ROW (.flag = "-stol", TEXT (stol_file), .value = NB_STOL_STOL, .effects = NB_SETS_STOL_KIND,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_INPUT_FILE, .stages = SF, .special = NB_PARAM_SPECIAL_STOL,
       .help = "table of sin(theta)/lambda (1/Angstrom): read, not used by nanoBragg's model"),
  ROW (.flag = "-4stol", TEXT (stol_file), .value = NB_STOL_4STOL, .effects = NB_SETS_STOL_KIND,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_INPUT_FILE | NB_PARAM_NO_ARGV, .stages = SF,
       .help = "table of 4 sin(theta)/lambda: read, not used"),
  ROW (.flag = "-Q", TEXT (stol_file), .value = NB_STOL_Q, .effects = NB_SETS_STOL_KIND,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_INPUT_FILE | NB_PARAM_NO_ARGV, .stages = SF,
       .help = "table of Q = 4 pi sin(theta)/lambda: read, not used"),
  ROW (.flag = "-stolout", IGNORED (1, NB_FIELD_STRING), .flags = NB_PARAM_OUTPUT, .help = "never written, as by nanoBragg"),

  SECTION ("Beam"),
  ROW (.flag = "-lambda", .aliases = "-wave*", NUMBER (lambda0), .unit = &angstrom,
       .min = NB_LAMBDA_MIN_A, .stages = CRYSTAL | SOURCES, .property = "wavelength",
       .label = N_ ("Wavelength"), .note = "or -energy up to 12.4 MeV", .help = N_ ("Wavelength (Angstrom)"), UI (0.2, 4, 0.001, 4)),
  ROW (.flag = "-energy", NUMBER (lambda0), .unit = &ev,
       .flags = NB_PARAM_NO_RANGE | NB_PARAM_NONZERO | NB_PARAM_NO_ARGV,
       .stages = CRYSTAL | SOURCES, .property = "energy", .label = N_ ("Photon energy"),
       .help = N_ ("Photon energy of the beam; sets the wavelength"), .prop_scale = 1e-3,
       .prop_unit = "keV", UI (3.1, 62, 0.01, 4)),
  ROW (.flag = "-dispersion", NUMBER (dispersion), .unit = &percent, .min = 0, .max = 200,
       .flags = NB_PARAM_MAX_OPEN, .stages = SOURCES, .property = "dispersion",
       .label = N_ ("Dispersion"), .help = N_ ("Spectral dispersion (percent)"),
       UI (0, 10, 0.01, 2)),
  ROW (.flag = "-dispsteps", COUNT (dispsteps), .unit = &none, .min = 1, .max = MAX_STEPS,
       .unset = -1, .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .help = "wavelengths across the dispersion"),
  ROW (.name = "dispstep", NUMBER (dispstep), .unit = &percent, .min = 0, .unset = -1,
       .flags = NB_PARAM_MIN_OPEN | NB_PARAM_UNSET_OK, .stages = SOURCES),
  ROW (.flag = "-divergence", BOTH (NB_PARAM_NUMBER, NB_FIELD_DOUBLE, hdivrange, vdivrange),
       .unit = &mrad, .unset = -1, .flags = NB_PARAM_NONNEG | NB_PARAM_UNSET_READS_ZERO,
       .stages = SOURCES, .property = "divergence", .label = N_ ("Divergence"),
       .help = N_ ("Beam divergence (mrad)"), UI (0, 10, 0.01, 2)),
  ROW (.flag = "-hdivrange", NUMBER (hdivrange), .unit = &mrad, .min = 0, .max = M_PI * 1000.0,
       .unset = -1, .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .note = "pi", .help = "full horizontal divergence (mrad)"),
  ROW (.flag = "-vdivrange", NUMBER (vdivrange), .unit = &mrad, .min = 0, .max = M_PI * 1000.0,
       .unset = -1, .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .note = "pi", .help = "full vertical divergence (mrad)"),
  ROW (.flag = "-hdivstep", NUMBER (hdivstep), .unit = &mrad, .min = 0, .unset = -1,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_MIN_OPEN | NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .help = "horizontal divergence step (mrad)"),
  ROW (.flag = "-vdivstep", NUMBER (vdivstep), .unit = &mrad, .min = 0, .unset = -1,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_MIN_OPEN | NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .help = "vertical divergence step (mrad)"),
  ROW (.flag = "-divsteps", BOTH (NB_PARAM_WHOLE, NB_FIELD_INT, hdivsteps, vdivsteps),
       .unit = &none, .flags = NB_PARAM_NONNEG, .stages = SOURCES,
       .help = "divergence steps, horizontal and vertical"),
  ROW (.flag = "-hdivsteps", COUNT (hdivsteps), .unit = &none, .min = 1, .max = MAX_STEPS,
       .unset = -1, .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .help = "horizontal divergence steps"),
  ROW (.flag = "-vdivsteps", COUNT (vdivsteps), .unit = &none, .min = 1, .max = MAX_STEPS,
       .unset = -1, .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = SOURCES,
       .help = "vertical divergence steps"),
  ROW (.flag = "-round_div", SWITCH (round_div, 1), .stages = SOURCES,
       .help = "divergence grid cut to an ellipse (the default)"),
  ROW (.flag = "-square_div", SWITCH (round_div, 0), .stages = SOURCES,
       .help = "the whole divergence grid"),
  ROW (.flag = "-sourcefile", TEXT (source_file), .flags = NB_PARAM_INPUT_FILE, .stages = SOURCES,
       .help = "sources, one 'X Y Z weight lambda(m)' a line, instead of the grid"),
  ROW (.flag = "-fluence", NUMBER (fluence), .unit = &fluence, .min = 0, .property = "fluence",
       .label = N_ ("Fluence"), .help = N_ ("Fluence (photons/m^2)")),
  ROW (.flag = "-flux", NUMBER (flux), .unit = &flux, .min = 0,
       .help = "photons/s: fluence = flux * exposure / beamsize^2"),
  ROW (.flag = "-exposure", NUMBER (exposure), .unit = &seconds, .min = 0,
       .help = "exposure time with -flux"),
  ROW (.flag = "-beamsize", NUMBER (beamsize), .unit = &mm, .min = 0, .stages = CRYSTAL,
       .help = "beam size with -flux; also clips the crystal's width and height (Q-21)"),
  ROW (.flag = "-polar", .flags = NB_PARAM_NANOBRAGG_EXACT, NUMBER (polarization), .unit = &none, .min = -1, .max = 1,
       .effects = NB_SETS_POLAR, .property = "polarization", .label = N_ ("Polarization (Kahn)"),
       .note = "a Kahn factor", .help = N_ ("Kahn polarization factor"), UI (-1, 1, 0.01, 2)),
  ROW (.flag = "-nopolar", SWITCH (nopolar, 1), .help = "polarization factor 1"),
  ROW (.flag = "-water", NUMBER (water_size), .unit = &um_div, .min = 0, .property = "water",
       .label = N_ ("Water thickness"), .help = N_ ("Water background thickness (µm)"),
       UI (0, 200, 0.1, 1)),

  SECTION ("Detector"),
  ROW (.flag = "-fdet_vector", VECTOR (fdet), .synopsis = "x y z", .help = "detector fast axis (CUSTOM convention)"),
  ROW (.flag = "-sdet_vector", VECTOR (sdet), .synopsis = "x y z", .help = "detector slow axis"),
  ROW (.flag = "-odet_vector", VECTOR (odet), .synopsis = "x y z", .help = "detector normal"),
  ROW (.flag = "-beam_vector", VECTOR (beam), .synopsis = "x y z", .help = "beam direction, source to sample"),
  ROW (.flag = "-polar_vector", VECTOR (polar_vector), .synopsis = "x y z", .help = "polarization (E-vector) direction"),
  ROW (.flag = "-spindle_axis", VECTOR (spindle), .synopsis = "x y z", .help = "rotation axis"),
  ROW (.flag = "-pix0_vector", VECTOR (pix0), .flags = NB_PARAM_PREFIX,
       .synopsis = "x y z", .help = "m: outer corner of pixel (0, 0) from the sample; nanoBragg ignores "
       "it (Q-13), here a non-zero one places the detector (0 0 0: not given)"),
  ROW (.flag = "-twotheta_axis", VECTOR (twotheta_axis),
       .effects = NB_SETS_CUSTOM | NB_SETS_TWOTHETA,
       .synopsis = "x y z", .help = "two-theta axis, used as given (Q-10); also sets two-theta unless -physical (Q-30)"),
  ROW (.flag = "-mosflm", SWITCH (convention, NB_CONVENTION_MOSFLM), .effects = NB_SETS_PIVOT_BEAM,
       .stages = DETECTOR, .help = "MOSFLM convention (the default)"),
  ROW (.flag = "-xds", SWITCH (convention, NB_CONVENTION_XDS), .effects = NB_SETS_PIVOT_SAMPLE,
       .stages = DETECTOR, .help = "XDS convention, pivot about the sample"),
  ROW (.flag = "-adxv", SWITCH (convention, NB_CONVENTION_ADXV), .effects = NB_SETS_PIVOT_BEAM,
       .stages = DETECTOR, .help = "ADXV convention"),
  ROW (.flag = "-denzo", SWITCH (convention, NB_CONVENTION_DENZO), .effects = NB_SETS_PIVOT_BEAM,
       .stages = DETECTOR, .help = "DENZO convention"),
  ROW (.flag = "-dials", SWITCH (convention, NB_CONVENTION_DIALS), .effects = NB_SETS_PIVOT_BEAM,
       .stages = DETECTOR, .help = "DIALS convention"),
  ROW (.name = "convention", CHOICE (convention, conventions), .nargs = 0, .stages = DETECTOR,
       .special = NB_PARAM_SPECIAL_CONVENTION, .property = "convention", .label = N_ ("Convention"),
       .help = N_ ("Detector convention")),
  ROW (.flag = "-pixel", NUMBER (pixel_size), .unit = &mm, .min = 0, .max = MAX_PIXEL_MM,
       .flags = NB_PARAM_PREFIX | NB_PARAM_MIN_OPEN, .stages = DETECTOR | BUFFERS,
       .property = "pixel-size", .label = N_ ("Pixel size"), .help = N_ ("Pixel size (mm)"),
       UI (0.01, 1, 0.001, 4)),
  ROW (.flag = "-detpixels", BOTH (NB_PARAM_WHOLE, NB_FIELD_INT, fpixels, spixels), .unit = &none,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_POSITIVE, .stages = DETECTOR | BUFFERS,
       .help = "pixels along both axes (instead of -detsize)"),
  ROW (.flag = "-detpixels_f", .aliases = "-detpixels_x", COUNT (fpixels), .unit = &none, .min = 1,
       .max = NB_MAX_PIXELS, .unset = 0, .flags = NB_PARAM_UNSET_OK | NB_PARAM_POSITIVE,
       .stages = DETECTOR | BUFFERS, .derive = derive_fpixels, .property = "detector-pixels-fast",
       .label = N_ ("Pixels (fast)"), .help = N_ ("Detector pixels along the fast axis (count)"),
       UI (16, 4096, 1, 0)),
  ROW (.flag = "-detpixels_s", .aliases = "-detpixels_y", COUNT (spixels), .unit = &none, .min = 1,
       .max = NB_MAX_PIXELS, .unset = 0, .flags = NB_PARAM_UNSET_OK | NB_PARAM_POSITIVE,
       .stages = DETECTOR | BUFFERS, .derive = derive_spixels, .property = "detector-pixels-slow",
       .label = N_ ("Pixels (slow)"), .help = N_ ("Detector pixels along the slow axis (count)"),
       UI (16, 4096, 1, 0)),
  ROW (.flag = "-detsize", .flags = NB_PARAM_NANOBRAGG_EXACT, BOTH (NB_PARAM_NUMBER, NB_FIELD_DOUBLE, detsize_f, detsize_s),
       .unit = &mm, .stages = DETECTOR | BUFFERS, .help = "detector size along both axes (mm)"),
  ROW (.flag = "-detsize_f", NUMBER (detsize_f), .unit = &mm, .min = 0, .flags = NB_PARAM_MIN_OPEN,
       .stages = DETECTOR | BUFFERS, .special = NB_PARAM_SPECIAL_DETSIZE, .help = "detector size, fast axis (mm)"),
  ROW (.flag = "-detsize_s", NUMBER (detsize_s), .unit = &mm, .min = 0, .flags = NB_PARAM_MIN_OPEN,
       .stages = DETECTOR | BUFFERS, .special = NB_PARAM_SPECIAL_DETSIZE, .help = "detector size, slow axis (mm)"),
  ROW (.flag = "-distance", NUMBER (distance), .unit = &mm, .min = 0, .flags = NB_PARAM_MIN_OPEN,
       .effects = NB_SETS_PIVOT_BEAM, .stages = DETECTOR, .special = NB_PARAM_SPECIAL_DISTANCE,
       .property = "distance", .label = N_ ("Distance"), .help = N_ ("Detector distance (mm)"),
       UI (10, 1000, 0.1, 1)),
  ROW (.flag = "-close_distance", NUMBER (close_distance), .unit = &mm, .min = 0,
       .flags = NB_PARAM_MIN_OPEN | NB_PARAM_UNSET_OK, .effects = NB_SETS_PIVOT_SAMPLE,
       .stages = DETECTOR, .help = "sample to detector plane along its normal (mm)"),
  ROW (.flag = "-Xbeam", NUMBER (Xbeam), .unit = &mm,
       .flags = NB_PARAM_UNSET_OK | NB_PARAM_UNSET_SETTABLE, .effects = NB_SETS_PIVOT_BEAM,
       .stages = DETECTOR, .derive = derive_xbeam, .property = "beam-center-x",
       .label = N_ ("Beam centre x"), .help = N_ ("Beam centre X (mm)"), UI (0, 400, 0.01, 2)),
  ROW (.flag = "-Ybeam", NUMBER (Ybeam), .unit = &mm,
       .flags = NB_PARAM_UNSET_OK | NB_PARAM_UNSET_SETTABLE, .effects = NB_SETS_PIVOT_BEAM,
       .stages = DETECTOR, .derive = derive_ybeam, .property = "beam-center-y",
       .label = N_ ("Beam centre y"), .help = N_ ("Beam centre Y (mm)"), UI (0, 400, 0.01, 2)),
  ROW (.flag = "-Xclose", NUMBER (Xclose), .unit = &mm, .flags = NB_PARAM_UNSET_OK,
       .effects = NB_SETS_PIVOT_SAMPLE, .stages = DETECTOR, .help = "near point X (mm)"),
  ROW (.flag = "-Yclose", NUMBER (Yclose), .unit = &mm, .flags = NB_PARAM_UNSET_OK,
       .effects = NB_SETS_PIVOT_SAMPLE, .stages = DETECTOR, .help = "near point Y (mm)"),
  ROW (.flag = "-ORGX", NUMBER (ORGX), .unit = &pixels, .flags = NB_PARAM_UNSET_OK,
       .effects = NB_SETS_PIVOT_SAMPLE, .stages = DETECTOR, .help = "XDS origin X (pixels)"),
  ROW (.flag = "-ORGY", NUMBER (ORGY), .unit = &pixels, .flags = NB_PARAM_UNSET_OK,
       .effects = NB_SETS_PIVOT_SAMPLE, .stages = DETECTOR, .help = "XDS origin Y (pixels)"),
  ROW (.flag = "-detector_rotx", NUMBER (rotx), .unit = &deg, .stages = DETECTOR,
       .property = "detector-rotx", .label = N_ ("Rotation x"),
       .help = N_ ("Detector rotation X (degrees)"), UI (-90, 90, 0.1, 2)),
  ROW (.flag = "-detector_roty", NUMBER (roty), .unit = &deg, .stages = DETECTOR,
       .property = "detector-roty", .label = N_ ("Rotation y"),
       .help = N_ ("Detector rotation Y (degrees)"), UI (-90, 90, 0.1, 2)),
  ROW (.flag = "-detector_rotz", NUMBER (rotz), .unit = &deg, .stages = DETECTOR,
       .property = "detector-rotz", .label = N_ ("Rotation z"),
       .help = N_ ("Detector rotation Z (degrees)"), UI (-180, 180, 0.1, 2)),
  ROW (.flag = "-twotheta", NUMBER (twotheta), .unit = &deg, .effects = NB_SETS_PIVOT_SAMPLE,
       .stages = DETECTOR, .property = "two-theta", .label = N_ ("Detector 2\u03b8"),
       .help = N_ ("Detector two-theta (degrees)"), UI (-90, 90, 0.1, 2)),
  ROW (.flag = "-curved_det", SWITCH (curved_det, 1), .flags = NB_PARAM_PREFIX,
       .stages = DETECTOR, .help = "spherical detector: every pixel at the same distance"),
  ROW (.flag = "-point_pixel", SWITCH (point_pixel, 1), .stages = DETECTOR,
       .help = "solid angle 1/R^2, without obliquity"),
  ROW (.flag = "-detector_abs", NUMBER (detector_mu), .unit = &um_depth, .unset = -1,
       .flags = NB_PARAM_PREFIX, .stages = DETECTOR, .special = NB_PARAM_SPECIAL_DETECTOR_ABS,
       .synopsis = "um|inf", .help = "sensor attenuation depth (um), or 0 or inf for none (also zeroes the "
               "thickness: Q-18)"),
  ROW (.flag = "-detector_thick", .flags = NB_PARAM_NANOBRAGG_EXACT, NUMBER (detector_thick), .unit = &um_mul, .min = 0,
       .stages = DETECTOR, .help = "sensor thickness"),
  ROW (.flag = "-detector_thicksteps", .aliases = "-thicksteps", COUNT (detector_thicksteps),
       .unit = &none, .min = 1, .max = MAX_LAYERS, .unset = -1,
       .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = DETECTOR,
       .help = "sensor layers"),
  ROW (.name = "thickstep", NUMBER (detector_thickstep), .unit = &um_mul, .min = 0, .unset = -1,
       .flags = NB_PARAM_MIN_OPEN | NB_PARAM_UNSET_OK, .stages = DETECTOR),
  ROW (.flag = "-roi", .kind = NB_PARAM_WHOLE, .type = NB_FIELD_INT, .nargs = 4, .n_field = 4,
       .field = { F (roi[0]), F (roi[1]), F (roi[2]), F (roi[3]) }, .unit = &none,
       .flags = NB_PARAM_NO_RANGE, .stages = DETECTOR,
       .synopsis = "xmin xmax ymin ymax", .help = "pixels xmin xmax ymin ymax rendered, inclusive (-1: the detector's edge)"),
  ROW (.flag = "-pivot", CHOICE (pivot, pivots), .stages = DETECTOR, .special = NB_PARAM_SPECIAL_PIVOT,
       .help = "what the detector turns about: the beam spot or the sample's near point"),

  SECTION ("Sampling"),
  ROW (.flag = "-phi", .flags = NB_PARAM_NANOBRAGG_EXACT, NUMBER (phi0), .unit = &deg, .stages = ORIENTATION, .property = "phi",
       .label = N_ ("\u03c6 start"), .help = N_ ("Start spindle angle phi (degrees)"),
       UI (-360, 360, 0.1, 2)),
  ROW (.flag = "-osc", NUMBER (osc), .unit = &deg, .min = 0, .unset = -1,
       .flags = NB_PARAM_PREFIX | NB_PARAM_UNSET_OK | NB_PARAM_NONNEG | NB_PARAM_UNSET_READS_ZERO,
       .stages = ORIENTATION, .property = "osc", .label = N_ ("Oscillation"),
       .help = N_ ("Oscillation range (degrees)"), UI (0, 10, 0.01, 2)),
  ROW (.flag = "-phistep", NUMBER (phistep), .unit = &deg, .min = 0, .unset = -1,
       .flags = NB_PARAM_NANOBRAGG_EXACT | NB_PARAM_MIN_OPEN | NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = ORIENTATION,
       .help = "spindle step"),
  ROW (.flag = "-phisteps", COUNT (phisteps), .unit = &none, .min = 0, .max = MAX_STEPS,
       .unset = -1, .flags = NB_PARAM_UNSET_OK | NB_PARAM_NONNEG, .stages = ORIENTATION,
       .help = "spindle steps"),
  ROW (.flag = "-oversample", COUNT (oversample), .unit = &none, .min = 0, .max = MAX_OVERSAMPLE,
       .unset = -1,
       .flags = NB_PARAM_REPORTED | NB_PARAM_UNSET_OK | NB_PARAM_NONNEG | NB_PARAM_UNSET_READS_ZERO |
                NB_PARAM_ZERO_SETS_UNSET,
       .stages = DETECTOR, .reported = offsetof (nb_plan_info, oversample),
       .property = "oversample", .label = N_ ("Oversample (0 = auto)"),
       .note = "0 = automatic", .help = N_ ("Sub-pixels per pixel axis (count; 0 = automatic)"), UI (0, 16, 1, 0)),
  ROW (.flag = "-oversample_thick", SWITCH (oversample_thick, 1),
       .help = "absorption per sub-pixel"),
  ROW (.flag = "-oversample_polar", SWITCH (oversample_polar, 1),
       .help = "polarization per sub-pixel"),
  ROW (.flag = "-oversample_omega", SWITCH (oversample_omega, 1),
       .help = "solid angle per sub-pixel"),
  ROW (.flag = "-dmin", NUMBER (dmin), .unit = &angstrom_mul, .min = 0,
       .note = "0 = no cut-off", .help = "resolution cut-off (0: none); structure factors computed from a model (-model) go no further"),

  SECTION ("Output"),
  ROW (.flag = "-seed", SEED (seed), .special = NB_PARAM_SPECIAL_NOISE_SEED, .help = "seed of the noise image"),
  ROW (.flag = "-floatfile", .aliases = "-floatimage", TEXT (floatfile), .flags = NB_PARAM_OUTPUT,
       .help = "raw float image (photons/pixel)"),
  ROW (.flag = "-intfile", .aliases = "-intimage", TEXT (intfile), .flags = NB_PARAM_OUTPUT, .help = "SMV image"),
  ROW (.flag = "-pgmfile", .aliases = "-pgmimage", TEXT (pgmfile), .flags = NB_PARAM_OUTPUT, .effects = NB_SETS_PGM,
       .help = "8-bit PGM image"),
  ROW (.flag = "-noisefile", .aliases = "-noiseimage", TEXT (noisefile), .flags = NB_PARAM_OUTPUT, .effects = NB_SETS_NOISE,
       .help = "SMV image with Poisson noise"),
  ROW (.flag = "-pngfile", .flags = NB_PARAM_BRAGGSCOPE | NB_PARAM_OUTPUT, TEXT (pngfile),
       .help = "8-bit PNG scaled like the PGM, with the parameters in its text chunks"),
  ROW (.flag = "-scale", NUMBER (intfile_scale), .unit = &none, .min = 0,
       .note = "0 = automatic", .help = "SMV pixels per photon (0: 55000 / the brightest)"),
  ROW (.flag = "-pgmscale", NUMBER (pgm_scale), .unit = &none, .min = 0, .effects = NB_SETS_PGM,
       .note = "0 = automatic", .help = "PGM levels per photon (0: automatic)"),
  ROW (.flag = "-nopgm", SWITCH (write_pgm, 0), .help = "no PGM image"),
  ROW (.flag = "-nonoise", SWITCH (calculate_noise, 0), .help = "no noise image"),
  ROW (.flag = "-adc", NUMBER (adc), .unit = &none, .help = "offset added to SMV pixels"),
  ROW (.flag = "-printout_pixel", .kind = NB_PARAM_WHOLE, .type = NB_FIELD_INT, .nargs = 2,
       .n_field = 2, .field = { F (printout_fpixel), F (printout_spixel) }, .unit = &none,
       .min = 0, .unset = -1, .flags = NB_PARAM_UNSET_OK, .effects = NB_SETS_PRINTOUT,
       .note = "pixel indices", .synopsis = "fast slow", .help = "print the contributions to one pixel (fast, slow)"),
  ROW (.flag = "-printout", SWITCH (printout, 1), .help = "print pixel values"),
  ROW (.flag = "-noprogress", SWITCH (progress, 0), .help = "no progress meter"),
  ROW (.flag = "-progress", SWITCH (progress, 1), .help = "a progress meter (the default)"),
  ROW (.flag = "-coherent", IGNORED (0, NB_FIELD_INT), .help = "accepted, no effect in nanoBragg"),

  SECTION ("Braggscope"),
  ROW (.flag = "-precision", .flags = NB_PARAM_BRAGGSCOPE, CHOICE (precision, precisions), .stages = BUFFERS,
       .property = "precision", .label = N_ ("Precision"), .help = N_ ("Kernel arithmetic"),
       .more = "double (the default) and single are the fast vectorised kernels (double matches "
               "nanoBragg to 1e-12, most images bit for bit; single to ~1e-4); exact is "
               "nanoBragg's own arithmetic and loop order"),
  ROW (.flag = "-integration", .flags = NB_PARAM_BRAGGSCOPE, CHOICE (integration, integrations),
       .property = "integration", .label = N_ ("Integration"),
       .help = N_ ("How a pixel's lattice factor is integrated (exact, adaptive)"),
       .more = "exact (the default) is nanoBragg's: oversample^2 sub-pixels in every pixel.  "
               "adaptive bounds the lattice factor over each pixel from the shape transform's "
               "envelope and spends sub-pixels only where they change the pixel by more than "
               "-tolerance times the frame's brightest pixel; it converges to the image "
               "nanoBragg approaches as -oversample grows (docs/adaptive-integration.md).  Runs "
               "on the CPU; -precision exact, -curved_det and -oversample_thick/polar/omega keep "
               "exact"),
  ROW (.flag = "-tolerance", NUMBER (tolerance), .unit = &none, .min = 1e-9, .max = 1,
       .flags = NB_PARAM_BRAGGSCOPE, .property = "tolerance", .label = N_ ("Tolerance"),
       .help = N_ ("Adaptive integration's error bound per pixel, a fraction of the brightest "
                   "pixel (default 1e-3)"),
       UI (1e-6, 1e-1, 1e-4, 6)),
  ROW (.flag = "-memory_budget", NUMBER (memory_budget), .unit = &mb, .min = 0,
       .flags = NB_PARAM_BRAGGSCOPE | NB_PARAM_POSITIVE,
       .note = "0 = half of the memory this process may use", .help = "most memory one run may plan for or read a frame into (default: half of what the process may use: physical memory, or less under a ulimit or cgroup limit)"),
  ROW (.flag = "-backend", CHOICE (backend, backends), .flags = NB_PARAM_BRAGGSCOPE | NB_PARAM_UNSUPPORTED,
       .property = "backend", .label = N_ ("Backend"),
       .help = N_ ("Compute backend (auto, cpu, cuda)"),
       .more = "Where the image is computed (default auto, with one line saying which and why); "
               "cuda without a device is an error (exit 1).  -precision exact, tricubic "
               "interpolation and -curved_det always run on the CPU.  auto takes the GPU (this "
               "build has CUDA, a device and driver are present) only where it pays for its "
               "start-up: when the CPU would take longer than 0.3 s (creating the CUDA context) + "
               "4 bytes per pixel at 5 GB/s, the CPU's time estimated as samples / (rate x "
               "threads), samples = ROI pixels x oversample^2 x sensor layers x divergence and "
               "dispersion sources (a -sourcefile counts 1) x mosaic domains x phi steps, rate "
               "4e8/s per OpenMP thread in single precision and 1.5e8/s in double (faster than a "
               "fast core: the estimate errs towards the CPU).  Else the CPU, without starting the "
               "GPU's driver.  On the GPU the context is created on its own thread while the "
               "structure factors are read (also for cuda)"),
  ROW (.flag = "-stats", .flags = NB_PARAM_BRAGGSCOPE, SWITCH (stats, 1), .help = "print the plan's cache counters"),
  ROW (.flag = "-lenient", .flags = NB_PARAM_BRAGGSCOPE, IGNORED (0, NB_FIELD_INT),
       .help = "skip what nanoBragg ignores instead of refusing it: a word starting with '-' that "
               "no nanoBragg flag matches (-hdiv), a value after a flag that takes none "
               "(-oversample_thick 0), one warning each; also NANOBRAGG_LENIENT=1.  A word "
               "nanoBragg reads as one of its flags (-distance_mm) and a malformed value stay "
               "errors"),
};
/* clang-format on */

const nb_param *
nb_param_table (size_t *n)
{
  *n = sizeof rows / sizeof rows[0];
  return rows;
}
