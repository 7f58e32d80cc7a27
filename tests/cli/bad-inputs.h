/* bad-inputs.h: the table of bad inputs every entry point must refuse
 * clearly (issue 7): nanoBragg argument lists and the input files they name.
 *
 * Each entry is an argument list (split as a shell would, run in a folder
 * holding the fixtures of bad_inputs_write_fixtures()), the status the
 * nanobragg CLI must exit with (2: the command line is wrong, 1: a failure:
 * files, memory, output) and a string the one-line message must contain: the
 * flag, or FILE:LINE, that is at fault.
 *
 * Users: tests/cli/test-cli-errors.c runs every entry through the CLI.  The
 * plugin's set_from_args() takes the same argument lists: entries without
 * BAD_CLI_ONLY apply to it unchanged (a GError naming the same input); the
 * plugin-only rows (property values) go in the marked block at the end of
 * the table.
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../mtz-fixtures.h"

typedef enum
{
  BAD_NO_SCENE = 1 << 0, /* do not prepend the small valid scene (the case is about it) */
  BAD_CLI_ONLY = 1 << 1, /* about the CLI's own outputs or exit path, not parameters */
  BAD_FSIZE = 1 << 2,    /* run with RLIMIT_FSIZE = fsize bytes and SIGXFSZ ignored: writes
                            fail as on a full disk */
} bad_input_flags;

typedef struct
{
  const char *id;    /* unique, a test path component */
  const char *args;  /* the case's arguments, after the scene (last on the line) */
  int status;        /* the CLI's exit status: 1 or 2 */
  const char *names; /* the message must contain this */
  unsigned flags;
  long fsize; /* with BAD_FSIZE */
} bad_input;

/* A valid, fast scene that every case starts from unless BAD_NO_SCENE. */
#define BAD_SCENE "-default_F 100 -cell 100 100 100 90 90 90 -detpixels 16 -distance 100 -N 2 "

static const bad_input bad_inputs[] = {
  /* ---- the command line: flags and their syntax (exit 2) ---- */
  { "unknown-flag", "-frobnicate", 2, "-frobnicate" },
  { "unknown-double-dash", "--distance 100", 2, "--distance" },
  { "not-a-reference-flag", "-detector_twotheta 10", 2, "-detector_twotheta" },
  { "stray-argument", "stray", 2, "stray" },
  { "stray-number", "-N 5 7", 2, "7" },
  { "missing-value-last", "-distance", 2, "-distance" },
  { "missing-value-flag-follows", "-lambda -N 5", 2, "-lambda" },
  { "missing-value-crash-in-reference", "-detector_thick", 2, "-detector_thick" },
  { "not-a-number", "-distance abc", 2, "abc" },
  { "number-with-junk", "-lambda 1.0x", 2, "1.0x" },
  { "infinite", "-lambda inf", 2, "-lambda" },
  { "nan", "-pixel nan", 2, "-pixel" },
  { "not-whole", "-N 2.5", 2, "2.5" },
  { "int-overflow", "-detpixels 1e12", 2, "-detpixels" },
  { "bad-pivot", "-pivot middle", 2, "middle" },
  { "bad-precision", "-precision quad", 2, "quad" },
  { "too-few-misset", "-misset 1 2", 2, "-misset" },
  { "too-few-roi", "-roi 0 10 0", 2, "-roi" },
  { "too-few-vector", "-fdet_vector 1 0", 2, "-fdet_vector" },
  { "cell-no-values", "-cell", 2, "-cell" },
  { "energy-zero", "-energy 0", 2, "-energy" },
  { "detpixels-zero", "-detpixels 0", 2, "-detpixels" },
  { "negative-mosaic", "-mosaic -1", 2, "-mosaic" },
  { "negative-osc", "-osc -5", 2, "-osc" },
  { "negative-domains", "-mosaic_domains -4", 2, "-mosaic_domains" },
  { "negative-absorption-depth", "-detector_abs -50", 2, "-detector_abs" },
  { "memory-budget-zero", "-memory_budget 0", 2, "-memory_budget" },
  /* words nanoBragg ignores: refused with the nearest flags and the way to run the line as
   * nanoBragg would; what it reads or what is malformed stays refused with -lenient */
  { "typo-suggests-flag", "-lamda 1.2", 2, "unknown flag '-lamda' (did you mean -lambda?)" },
  { "ignored-flags-hint-lenient", "-hdiv 0 -vdiv 0", 2,
    "(did you mean -hdivrange, -hdivstep or -hdivsteps?); nanoBragg ignores it: add -lenient (or "
    "set NANOBRAGG_LENIENT=1)" },
  { "value-after-flag-without-value", "-oversample_thick 0", 2,
    "'0' (-oversample_thick takes no value)" },
  { "flag-read-as-another", "-distance_mm 100", 2, "nanoBragg reads it as -distance" },
  { "lenient-keeps-flag-read-as-another", "-lenient -distance_mm 100", 2, "-distance_mm" },
  { "lenient-keeps-bad-value", "-lenient -distance abc", 2, "abc" },
  { "lenient-keeps-missing-value", "-oversample_thick -lenient -lambda", 2, "-lambda" },
  { "no-cell", "-default_F 100 -detpixels 16", 2, "-cell", BAD_NO_SCENE },
  { "no-structure-factors", "-cell 100 100 100 90 90 90 -detpixels 16", 2, "-default_F",
    BAD_NO_SCENE },

  /* ---- values outside what the physics allows (exit 2) ---- */
  { "lambda-zero", "-lambda 0", 2, "-lambda" },
  { "lambda-negative", "-lambda -1", 2, "-lambda" },
  { "energy-negative", "-energy -12398", 2, "-lambda" },
  { "distance-zero", "-distance 0", 2, "-distance" },
  { "distance-negative", "-distance -100", 2, "-distance" },
  { "close-distance-negative", "-close_distance -50", 2, "-close_distance" },
  { "pixel-zero", "-pixel 0", 2, "-pixel" },
  { "detpixels-negative", "-detpixels -5", 2, "-detpixels" },
  { "detpixels-too-many", "-detpixels 100000", 2, "-detpixels" },
  { "detsize-zero", "-default_F 100 -cell 100 100 100 90 90 90 -detsize 0", 2, "-detsize_f",
    BAD_NO_SCENE },
  { "N-negative", "-N -3", 2, "-N" },
  { "N-too-many", "-N 2000000", 2, "-N" },
  { "cell-flat", "-cell 100 100 100 120 60 60", 2, "-cell" },
  { "cell-impossible-angles", "-cell 100 100 100 150 30 30", 2, "-cell" },
  { "cell-angle-180", "-cell 100 100 100 190 90 90", 2, "alpha" },
  { "cell-negative-a", "-cell -100 100 100", 2, "-cell" },
  /* below any physical wavelength or cell edge every pixel got the same maximum (issue 23) */
  { "lambda-tiny", "-lambda 1e-15", 2, "-lambda 1e-15 Angstrom: allowed >= 0.001" },
  { "energy-huge", "-energy 1e30", 2, "-lambda 1.23984e-26 Angstrom: allowed >= 0.001" },
  { "cell-tiny-a", "-cell 1e-15 100 100 90 90 90", 2, "a = 1e-15 Angstrom (allowed: 0.1 to" },
  { "cell-tiny-c", "-cell 100 100 1e-16 90 90 90", 2, "c = 1e-16 Angstrom (allowed: 0.1 to" },
  { "cell-negative-b", "-cell 100 -60 70", 2, "b = -60" },
  { "crystal-size-negative", "-xtalsize -0.1", 2, "-xtalsize" },
  { "domains-zero", "-mosaic_domains 0", 2, "-mosaic_domains" },
  { "mosaic-over-180", "-mosaic 200", 2, "-mosaic" },
  { "oversample-too-many", "-oversample 5000", 2, "-oversample" },
  { "phisteps-too-many", "-phisteps 200000", 2, "-phisteps" },
  { "phistep-zero", "-phistep 0", 2, "-phistep" },
  { "phi-grid-too-fine", "-osc 10 -phistep 1e-9", 2, "-phistep" },
  { "dispersion-300", "-dispersion 300", 2, "-dispersion" },
  { "dispsteps-zero", "-dispsteps 0", 2, "-dispsteps" },
  { "divergence-grid-too-fine", "-divergence 1 -hdivstep 1e-9", 2, "-hdivstep" },
  { "divergence-over-pi", "-hdivrange 4000", 2, "-hdivrange" },
  { "hdivsteps-zero", "-hdivsteps 0", 2, "-hdivsteps" },
  { "water-negative", "-water -5", 2, "-water" },
  { "fluence-negative", "-fluence -1", 2, "-fluence" },
  { "flux-without-beam", "-flux 1e12 -beamsize 0", 2, "-flux" },
  { "exposure-negative", "-exposure -1", 2, "-exposure" },
  { "polar-out-of-range", "-polar 2", 2, "-polar" },
  { "fudge-zero", "-round_xtal -fudge 0", 2, "-fudge" },
  { "thickness-negative", "-detector_thick -100", 2, "-detector_thick" },
  { "thicksteps-too-many", "-detector_thick 100 -thicksteps 5000", 2, "-detector_thicksteps" },
  { "roi-reversed", "-roi 10 5 0 10", 2, "-roi" },
  { "roi-outside", "-roi 500 600 0 10", 2, "-roi" },
  { "roi-negative", "-roi -5 10 0 10", 2, "-roi" },
  { "beam-vector-zero", "-beam_vector 0 0 0", 2, "-beam_vector" },
  { "spindle-zero", "-spindle_axis 0 0 0", 2, "-spindle_axis" },
  { "detector-axes-parallel", "-fdet_vector 0 0 1 -sdet_vector 0 0 2", 2, "-sdet_vector" },
  { "dmin-negative", "-dmin -2", 2, "-dmin" },
  { "scale-negative", "-scale -1", 2, "-scale" },
  { "empty-hkl-name", "-hkl ''", 2, "-hkl" },

  /* ---- input files: the file, and the line where there is one (exit 1) ---- */
  { "hkl-missing", "-hkl missing.hkl", 1, "missing.hkl" },
  { "hkl-folder", "-hkl adir", 1, "adir" },
  { "hkl-bad-line", "-hkl bad-line.hkl", 1, "bad-line.hkl:3" },
  { "hkl-short-line", "-hkl short-line.hkl", 1, "short-line.hkl:2" },
  { "hkl-huge-index", "-hkl huge-index.hkl", 1, "huge-index.hkl:2" },
  { "hkl-nan", "-hkl nan.hkl", 1, "nan.hkl:1" },
  { "hkl-binary", "-hkl binary.hkl", 1, "binary.hkl:2" },
  { "hkl-empty", "-hkl empty.hkl", 1, "empty.hkl" },
  { "hkl-grid-over-budget", "-hkl wide-range.hkl -memory_budget 20", 1, "wide-range.hkl" },
  /* atomic models and -sf.cif (issue 30; the plugin's side of models comes later) */
  { "model-cut", "-model cut.pdb", 1, "cut.pdb", BAD_CLI_ONLY },
  { "model-binary", "-model junk.pdb", 1, "junk.pdb", BAD_CLI_ONLY },
  { "model-no-cell", "-model nocell.pdb", 1, "nocell.pdb", BAD_CLI_ONLY },
  { "model-unknown-element", "-model unknown.pdb", 1, "unknown.pdb", BAD_CLI_ONLY },
  { "model-cif-cut", "-hkl cut.cif", 1, "cut.cif", BAD_CLI_ONLY },
  { "model-cif-empty", "-hkl nothing.cif", 1, "nothing.cif", BAD_CLI_ONLY },
  { "mat-short", "-mat short.mat", 1, "short.mat" },
  { "mat-junk", "-mat junk.mat", 1, "junk.mat:2" },
  { "mat-singular", "-mat zero.mat", 1, "zero.mat" },
  { "mat-tiny-cell", "-default_F 100 -mat tiny.mat -detpixels 16 -distance 100 -N 2", 1,
    "tiny.mat: a cell edge of 1e-15 Angstrom", BAD_NO_SCENE },
  { "sourcefile-bad-field", "-sourcefile bad.src", 1, "bad.src:2" },
  { "sourcefile-too-many-columns", "-sourcefile wide.src", 1, "wide.src:1" },
  { "sourcefile-negative-wavelength", "-sourcefile negwave.src", 1, "negwave.src:1" },
  { "sourcefile-error-names-file-line", "-sourcefile negwave4.src", 1, "negwave4.src:4" },
  { "sourcefile-source-at-sample", "-sourcefile origin.src", 1, "origin.src:2" },
  /* with -physical: nanoBragg reads its '#' line as a source */
  { "sourcefile-empty", "-physical -sourcefile empty.src", 1, "empty.src: no data" },
  /* nanoBragg reads '#' lines as sources of wavelength 0: a NaN image with -N 2 */
  { "sourcefile-comments-nan-image", "-sourcefile commented.src", 1,
    "2 of the sources are '#' lines of commented.src" },
  { "stol-bad-field", "-stol bad.stol", 1, "bad.stol:2" },
  { "stol-empty", "-stol empty.stol", 1, "empty.stol" },
  { "stol-over-budget", "-stol big.stol -memory_budget 5", 1, "big.stol" },
  { "img-not-smv", "-img notsmv.img", 1, "notsmv.img" },
  { "img-bad-pixel-size", "-img badpix.img", 1, "badpix.img:8" },
  { "img-negative-distance", "-img negdist.img", 1, "negdist.img:9" },
  { "img-truncated", "-img trunc.img", 1, "trunc.img" },
  { "mask-wrong-size", "-mask mask32.img", 1, "mask32.img" },
  { "dump-bad-header", "-dump badhead.dump", 1, "badhead.dump" },
  { "dump-short", "-dump short.dump", 1, "short.dump" },
  /* MTZ files damaged as those that crashed or hung libccp4's reader (issue 18) */
  { "mtz-end-record", "-hkl end-record.mtz", 1, "end-record.mtz" },
  { "mtz-symm-record", "-hkl symm-record.mtz", 1, "symm-record.mtz" },
  { "mtz-header-pointer", "-hkl header-pointer.mtz", 1, "header-pointer.mtz" },
  { "mtz-truncated", "-hkl truncated.mtz", 1, "truncated.mtz" },
  /* a named pipe or a device blocked open() or the first read for ever (issue 23): refused at
   * once, as anything but a regular file */
  { "hkl-fifo", "-hkl pipe.in", 1, "pipe.in: a named pipe (FIFO), not a regular file" },
  { "sourcefile-fifo", "-sourcefile pipe.in", 1, "pipe.in: a named pipe (FIFO)" },
  { "mat-fifo", "-mat pipe.in", 1, "pipe.in: a named pipe (FIFO)" },
  { "stol-fifo", "-stol pipe.in", 1, "pipe.in: a named pipe (FIFO)" },
  { "dump-fifo", "-dump pipe.in", 1, "pipe.in: a named pipe (FIFO)" },
  { "mask-fifo", "-mask pipe.in", 1, "pipe.in: a named pipe (FIFO)" },
  { "img-fifo", "-img pipe.in", 1, "pipe.in: a named pipe (FIFO)" },
  { "hkl-stdin", "-hkl /dev/stdin", 1, "/dev/stdin: a character device, not a regular file" },

  /* ---- resources (exit 1) ---- */
  { "memory-huge-detector", "-detpixels 20000 -memory_budget 100", 1, "20000 x 20000" },
  { "memory-orientations", "-mosaic 1 -mosaic_domains 1000000 -phisteps 100000", 1,
    "mosaic domains" },
  { "memory-tiny-budget", "-detpixels 1024 -memory_budget 1", 1, "-memory_budget" },
  { "no-sources-in-round-cut", "-hdivrange 1 -hdivstep 1 -vdivrange 1 -vdivstep 1", 1,
    "-hdivrange" },

  /* ---- outputs (CLI only) ---- */
  { "output-folder-missing", "-floatfile nodir/x.bin", 1, "nodir", BAD_CLI_ONLY },
  { "output-is-folder", "-intfile adir", 1, "adir", BAD_CLI_ONLY },
  { "output-twice", "-pgmfile existing.bin", 2, "existing.bin", BAD_CLI_ONLY },
  { "output-twice-spelled-differently", "-pngfile ./new.png -floatfile new.png", 2, "new.png",
    BAD_CLI_ONLY },
  { "output-is-input", "-hkl good.hkl -noisefile good.hkl", 2, "good.hkl", BAD_CLI_ONLY },
  { "output-empty-name", "-floatfile ''", 2, "-floatfile", BAD_CLI_ONLY },
  /* the -dump cache is written with the images, so a failed run leaves it alone too */
  { "dump-written-only-on-success", "-nopgm -hkl good.hkl -dump existing.pgm -mask mask32.img", 1,
    "mask32.img", BAD_CLI_ONLY },
  /* the float image is staged, the SMV write fails: neither may appear */
  { "disk-full-second-file", "-detpixels_f 100 -detpixels_s 1", 1, "existing.img",
    BAD_CLI_ONLY | BAD_FSIZE, 600 },
  { "disk-full-first-file", "-detpixels 64", 1, "existing.bin", BAD_CLI_ONLY | BAD_FSIZE, 2000 },
  /* -frame: a measured frame's geometry (the CLI's flag; the plugin reads frames itself) */
  { "frame-missing", "-frame nothere.cbf", 1, "nothere.cbf", BAD_CLI_ONLY },
  { "frame-not-a-frame", "-frame notsmv.img", 1, "notsmv.img", BAD_CLI_ONLY },
  { "frame-truncated", "-frame trunc.img", 1, "trunc.img", BAD_CLI_ONLY },
  { "frame-bad-header-value", "-frame badpix.img", 1, "badpix.img", BAD_CLI_ONLY },
  { "frame-index-beyond", "-frame mask32.img -frame_index 1", 1, "mask32.img", BAD_CLI_ONLY },
  { "frame-no-value", "-frame", 2, "-frame", BAD_CLI_ONLY },
  { "frame-index-junk", "-frame mask32.img -frame_index x", 2, "-frame_index", BAD_CLI_ONLY },
  { "frame-index-alone", "-frame_index 2", 2, "-frame_index", BAD_CLI_ONLY },
  { "frame-is-output", "-frame mask32.img -intfile mask32.img", 2, "mask32.img", BAD_CLI_ONLY },
  { "frame-fifo", "-frame pipe.in", 1, "pipe.in: a named pipe (FIFO)", BAD_CLI_ONLY },
  { "frame-folder", "-frame adir", 1, "adir: a directory, not a regular file", BAD_CLI_ONLY },

  /* ---- plugin-only rows (property values, set_from_args specifics) go here ---- */
};

/* The fixtures the table names, written into @dir. */
static inline void
bad_inputs_write_fixtures (const char *dir)
{
  static const struct
  {
    const char *name;
    const char *contents;
    gssize len; /* -1: NUL-terminated */
  } files[] = {
    { "good.hkl", "0 0 1 100\n1 0 0 50\n", -1 },
#define CRYST1 "CRYST1   63.400   63.400   83.800  90.00  90.00 120.00 P 61\n"
#define ATOM1  "ATOM      1  N   PRO A   1      13.120  39.003   5.159  1.00 55.41           N\n"
    { "cut.pdb", CRYST1 ATOM1 "ATOM      2  CA  PRO A   1      12.941  39.4", -1 },
    { "junk.pdb", CRYST1 ATOM1 "\0\x01\xff", sizeof (CRYST1 ATOM1) + 2 },
    { "nocell.pdb", ATOM1 "END\n", -1 },
    { "unknown.pdb",
      CRYST1
      "ATOM      1  XX  UNK A   1      13.120  39.003   5.159  1.00 55.41          XX\nEND\n",
      -1 },
    { "cut.cif",
      "data_x\n_cell.length_a 10\n_cell.length_b 10\n_cell.length_c 10\nloop_\n_refln.index_h\n"
      "_refln.index_k\n_refln.index_l\n_refln.F_meas_au\n1 0 0 5.0\n1 1\n",
      -1 },
    { "nothing.cif", "data_x\n_cell.length_a 10\n", -1 },
#undef CRYST1
#undef ATOM1
    { "bad-line.hkl", "1 2 3 4\n# comment\n1 2 x 4\n", -1 },
    { "short-line.hkl", "1 2 3 4\n1 2 3\n", -1 },
    { "huge-index.hkl", "0 0 1 1\n0 0 5000 1\n", -1 },
    { "nan.hkl", "1 2 3 nan\n", -1 },
    { "binary.hkl", "1 2 3 4\n\0\0\0\x01", 12 },
    { "empty.hkl", "", -1 },
    { "wide-range.hkl", "-1000 -1000 -1000 1\n1000 1000 1000 1\n", -1 },
    { "short.mat", "0.01 0 0\n0 0.01 0\n0 0\n", -1 },
    { "junk.mat", "0.01 0 0\n0 abc 0\n0 0 0.01\n", -1 },
    { "zero.mat", "0 0 0\n0 0 0\n0 0 0\n", -1 },
    { "tiny.mat", "1e15 0 0\n0 1e15 0\n0 0 1e15\n", -1 },
    { "bad.src", "-10 0 0 1 1e-10\n-10 0 zz 1 1e-10\n", -1 },
    { "wide.src", "-10 0 0 1 1e-10 7\n", -1 },
    { "negwave.src", "-10 0 0 1 -1e-10\n", -1 },
    { "negwave4.src", "# x y z weight lambda\n-10 0 0 1 1e-10\n\n0 -10 0 1 -1e-10\n", -1 },
    { "origin.src", "# the sample itself\n0 0 0 1 1e-10\n", -1 },
    { "empty.src", "# nothing\n\n", -1 },
    { "commented.src", "# x y z weight lambda\n#\n-10 0 0 1 1e-10\n", -1 },
    { "bad.stol", "0.1 2\n0.2 x\n", -1 },
    { "empty.stol", "", -1 },
    { "notsmv.img", "hello, not an image\n", -1 },
  };
  /* SMV headers: line 8 is PIXEL_SIZE, line 9 DISTANCE */
  static const char smv_head[] = "{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\n"
                                 "TYPE=unsigned_short;\nSIZE1=%d;\nSIZE2=%d;\nPIXEL_SIZE=%s;\n"
                                 "DISTANCE=%s;\n}\f";
  static const struct
  {
    const char *name;
    int size;
    const char *pixel, *distance;
    int pixels; /* write the pixel data */
  } smv[] = {
    { "badpix.img", 16, "abc", "100", 1 },
    { "negdist.img", 16, "0.1", "-5", 1 },
    { "trunc.img", 16, "0.1", "100", 0 },
    { "mask32.img", 32, "0.1", "100", 1 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i].name, NULL);
      g_autoptr (GError) error = NULL;

      g_file_set_contents (path, files[i].contents, files[i].len, &error);
      g_assert_no_error (error);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (smv); i++)
    {
      g_autofree char *path = g_build_filename (dir, smv[i].name, NULL);
      g_autoptr (GError) error = NULL;
      GString *s = g_string_new (NULL);
      char header[512];
      int n = g_snprintf (header, sizeof header, smv_head, smv[i].size, smv[i].size, smv[i].pixel,
                          smv[i].distance);

      memset (header + n, ' ', sizeof header - (gsize) n);
      g_string_append_len (s, header, sizeof header);
      if (smv[i].pixels)
        for (int k = 0; k < smv[i].size * smv[i].size; k++)
          g_string_append_len (s, "\x01\x00", 2);
      g_file_set_contents (path, s->str, (gssize) s->len, &error);
      g_assert_no_error (error);
      g_string_free (s, TRUE);
    }
  {
    /* an Fdump header announcing 2 x 2 x 2 cells of a 3 x 3 x 3 padded grid, and 2 doubles */
    static const char short_dump[] = "0 1 0 1 0 1\n\f0123456789abcdef";
    g_autofree char *path = g_build_filename (dir, "short.dump", NULL);
    g_autofree char *bad = g_build_filename (dir, "badhead.dump", NULL);
    g_autofree char *sub = g_build_filename (dir, "adir", NULL);
    g_autoptr (GError) error = NULL;

    g_file_set_contents (path, short_dump, sizeof short_dump - 1, &error);
    g_assert_no_error (error);
    g_file_set_contents (bad, "not a dump\n", -1, &error);
    g_assert_no_error (error);
    g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  }
  {
    /* a named pipe nobody writes to */
    g_autofree char *fifo = g_build_filename (dir, "pipe.in", NULL);

    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  }
  {
    /* the 1HPV MTZ file cut to 200 reflections, damaged */
    static const char *const damages[] = { "end-record", "symm-record", "header-pointer",
                                           "truncated" };

    for (gsize i = 0; i < G_N_ELEMENTS (damages); i++)
      {
        g_autofree char *name = g_strconcat (damages[i], ".mtz", NULL);
        g_autofree char *path = g_build_filename (dir, name, NULL);

        mtz_fixture_write_damaged (path, damages[i], 200);
      }
  }
  {
    /* a valid 2.4 MB stol table: its rows would need about 10 MB more than the text */
    g_autofree char *path = g_build_filename (dir, "big.stol", NULL);
    g_autoptr (GError) error = NULL;
    GString *s = g_string_new (NULL);

    for (int k = 0; k < 400000; k++)
      g_string_append (s, "0.1 2\n");
    g_file_set_contents (path, s->str, (gssize) s->len, &error);
    g_assert_no_error (error);
    g_string_free (s, TRUE);
  }
}
