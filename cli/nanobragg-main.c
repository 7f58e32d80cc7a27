/* nanobragg-main.c: the nanobragg program: nanoBragg's command line on the Braggscope engine.
 *
 * Takes the reference program's flags and writes the same files (float image,
 * SMV integer and noise images, PGM) plus -pngfile.  Differences, all on the
 * side of safety, are listed in the --help text.
 */
#include "nanobragg.h"
#include "nb-io.h"
#include "nb-param.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char usage_head[] =
    "usage: nanobragg -cell a b c alpha beta gamma (or -mat FILE) -hkl FILE (or -default_F F) "
    "[flags]\n"
    "       nanobragg -model MODEL [flags]\n"
    "\n"
    "Simulates the diffraction image of a small crystal, as James Holton's nanoBragg does, and\n"
    "takes nanoBragg's flags, with its spellings, units and precedence.  -hkl also reads an MTZ\n"
    "file (its first amplitude column, expanded from its space group to P1) and a deposited\n"
    "mmCIF structure-factor file (-sf.cif).  -model (or -hkl) computes the structure factors\n"
    "of an atomic model (PDB, mmCIF or a small-molecule CIF, gzip or not) to -dmin, or to what\n"
    "the furthest panel's corners reach; the model's cell and space group are the crystal's\n"
    "unless -cell or -mat is given.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "Where nanoBragg is dangerous, this program is safe:\n"
    "\t- an unknown flag, a stray argument or a missing or non-numeric value is an error\n"
    "\t  naming it and the nearest known flags (exit 2); nanoBragg ignores them silently\n"
    "\t  (-lenient: skipped with a warning, as nanoBragg does)\n"
    "\t- values outside what the physics allows are errors naming the flag, the value and the\n"
    "\t  allowed range (exit 2): a wavelength below 0.001 A, a cell edge below 0.1 A, negative\n"
    "\t  sizes, counts or distances, an impossible cell, an ROI outside the detector, grids of\n"
    "\t  more than 100000 steps...\n"
    "\t- settings that leave no divergence sources are errors, not NaN images (exit 1); an\n"
    "\t  image with a non-finite pixel is never written (exit 1)\n"
    "\t- malformed input files (-hkl, -mat, -sourcefile, -stol, -img/-mask headers, -dump)\n"
    "\t  are errors naming the file and line (exit 1); Miller indices beyond +-1024 are refused;\n"
    "\t  an input that is not a regular file (a FIFO, /dev/stdin, a terminal) is refused at\n"
    "\t  once (nanoBragg waits on it for ever)\n"
    "\t- an output that is also an input, or two outputs of the same name, is an error (exit 2)\n"
    "\t- Fdump.bin is neither written nor read unless -dump FILE is given (nanoBragg reads a\n"
    "\t  leftover cache silently)\n"
    "\t- HKL files are read line by line: extra columns are ignored, '#' lines are comments,\n"
    "\t  a malformed line is an error naming the file and line\n"
    "\t- every output is written under a temporary name, flushed and checked (a full disk is\n"
    "\t  an error), and all are renamed together once every one is complete: a failed run\n"
    "\t  leaves no partial file and every existing file untouched\n"
    "\t- the image does not depend on the number of threads\n"
    "\t- a quirk of nanoBragg that changes the image (Q-2: a two-theta without -physical) is\n"
    "\t  reproduced, with one warning line on stderr naming it and -physical\n"
    "\n"
    "Environment: NANOBRAGG_LENIENT=1 is -lenient; NB_BACKEND=cpu keeps -backend auto on the\n"
    "CPU.  OpenMP's threads sleep when they wait (OMP_WAIT_POLICY=passive): unless\n"
    "OMP_WAIT_POLICY or GOMP_SPINCOUNT is exported or one thread runs (OMP_NUM_THREADS=1, one\n"
    "CPU), the program starts itself once more, before any library starts, with the policy\n"
    "added (GCC's libgomp reads it only then).\n"
    "\n"
    "Exit status: 0 success, 1 failure (files, memory, output), 2 bad command line.\n";

/* The usage: its head, the flags of the parameter table, its tail. */
static void
print_usage (FILE *out)
{
  char *flags = nb_params_help ();

  fputs (usage_head, out);
  if (flags != NULL)
    fputs (flags, out);
  fputs (usage_tail, out);
  free (flags);
}

/* Prints @err as one line on stderr; returns the exit status: 2 when the
 * command line is wrong (@usage_codes: NB_ERR_USAGE, and NB_ERR_INVALID while the
 * flags are checked), 1 for failures. */
static int
report (const nb_error *err, int invalid_is_usage)
{
  fprintf (stderr, "nanobragg: %s\n", err->message[0] ? err->message : nb_status_name (err->code));
  return err->code == NB_ERR_USAGE || (invalid_is_usage && err->code == NB_ERR_INVALID) ? 2 : 1;
}

static void
warn_line (void *user, const char *message)
{
  (void) user;
  fprintf (stderr, "nanobragg: warning: %s\n", message);
}

/* What a -frame header set, with where each value came from, before the
 * plan's log. */
static void
report_line (void *user, const char *message)
{
  (void) user;
  printf ("%s\n", message);
}

/* NANOBRAGG_LENIENT=1 is -lenient for scripts that cannot be edited; any
 * other value than 1 or 0 is refused rather than guessed. */
static nb_status
lenient_from_environment (nb_parse_options *parse, nb_error *err)
{
  const char *v = getenv ("NANOBRAGG_LENIENT");

  if (v == NULL || v[0] == '\0' || strcmp (v, "0") == 0)
    return NB_OK;
  if (strcmp (v, "1") == 0)
    {
      parse->lenient = 1;
      return NB_OK;
    }
  return nb_error_set (err, NB_ERR_USAGE, "NANOBRAGG_LENIENT='%.40s': allowed 1 (as -lenient) or 0",
                       v);
}

typedef struct
{
  const char *flag;
  const char *path;
} named_file;

/* @path with its folder resolved ("./x.bin" and "x.bin" are one file even
 * before it exists); malloc'd, or NULL. */
static char *
canonical_path (const char *path)
{
  const char *slash = strrchr (path, '/');
  char *dir = slash == NULL ? strdup (".") : strndup (path, (size_t) (slash - path) + 1);
  char *real = dir != NULL ? realpath (dir, NULL) : NULL;
  char *out = NULL;

  if (real != NULL)
    {
      const char *base = slash == NULL ? path : slash + 1;

      out = malloc (strlen (real) + strlen (base) + 2);
      if (out != NULL)
        sprintf (out, "%s/%s", real, base);
    }
  free (dir);
  free (real);
  return out;
}

static int
same_file (const char *a, const char *b)
{
  struct stat sa, sb;
  char *ca, *cb;
  int same;

  if (strcmp (a, b) == 0)
    return 1;
  if (stat (a, &sa) == 0 && stat (b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  ca = canonical_path (a);
  cb = canonical_path (b);
  same = ca != NULL && cb != NULL && strcmp (ca, cb) == 0;
  free (ca);
  free (cb);
  return same;
}

/* A character device (/dev/null for an unwanted output, a terminal) is
 * written through, never replaced: several outputs, or an input, may be it. */
static int
is_char_device (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISCHR (st.st_mode);
}

/* The outputs this run will write must be distinct files, none of them an
 * input (nanoBragg would overwrite an HKL file given as -intfile), each in an
 * existing folder; checked before anything is computed.  Returns the exit
 * status, 0 when fine. */
static int
check_outputs (const nb_params *p, nb_error *err)
{
  named_file out[5], in[8];
  int n_out = 0, n_in = 0;

  out[n_out++] = (named_file){ "-floatfile", p->floatfile };
  out[n_out++] = (named_file){ "-intfile", p->intfile };
  if (p->write_pgm)
    out[n_out++] = (named_file){ "-pgmfile", p->pgmfile };
  if (p->calculate_noise)
    out[n_out++] = (named_file){ "-noisefile", p->noisefile };
  if (p->pngfile != NULL)
    out[n_out++] = (named_file){ "-pngfile", p->pngfile };
  in[n_in++] = (named_file){ "-hkl", p->hkl_file };
  in[n_in++] = (named_file){ "-mat", p->mat_file };
  in[n_in++] = (named_file){ "-dump", p->dump_file };
  in[n_in++] = (named_file){ "-stol", p->stol_file };
  in[n_in++] = (named_file){ "-sourcefile", p->source_file };
  in[n_in++] = (named_file){ "-img", p->img_file };
  in[n_in++] = (named_file){ "-mask", p->mask_file };
  in[n_in++] = (named_file){ "-frame", p->frame_file };

  for (int i = 0; i < n_out; i++)
    {
      const char *path = out[i].path, *slash;
      struct stat st;

      if (path == NULL || path[0] == '\0')
        {
          nb_error_set (err, NB_ERR_USAGE, "%s: no file name", out[i].flag);
          return 2;
        }
      for (int j = 0; j < i && !is_char_device (path); j++)
        if (same_file (path, out[j].path))
          {
            nb_error_set (err, NB_ERR_USAGE, "%s %s: the same file as %s %s", out[i].flag, path,
                          out[j].flag, out[j].path);
            return 2;
          }
      for (int j = 0; j < n_in && !is_char_device (path); j++)
        if (in[j].path != NULL && same_file (path, in[j].path))
          {
            nb_error_set (err, NB_ERR_USAGE, "%s %s: is the %s input and would be overwritten",
                          out[i].flag, path, in[j].flag);
            return 2;
          }
      slash = strrchr (path, '/');
      if (slash != NULL && slash != path)
        {
          char *dir = strndup (path, (size_t) (slash - path));
          const char *why = NULL;

          if (dir == NULL)
            why = strerror (ENOMEM);
          else if (stat (dir, &st) != 0)
            why = strerror (errno);
          else if (!S_ISDIR (st.st_mode))
            why = strerror (ENOTDIR);
          if (why != NULL)
            {
              nb_error_set (err, NB_ERR_IO, "%s %s: folder %s: %s", out[i].flag, path,
                            dir ? dir : "", why);
              free (dir);
              return 1;
            }
          free (dir);
        }
      if (stat (path, &st) == 0 && S_ISDIR (st.st_mode))
        {
          nb_error_set (err, NB_ERR_IO, "%s %s: is a folder", out[i].flag, path);
          return 1;
        }
    }
  return 0;
}

static char *
join_command_line (int argc, char **argv)
{
  size_t len = 1;
  char *s;

  for (int i = 0; i < argc; i++)
    len += strlen (argv[i]) * 4 + 3;
  s = malloc (len);
  if (s == NULL)
    return NULL;
  s[0] = '\0';
  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i];
      int plain = *a != '\0' && strspn (a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_.,/+=:") == strlen (a);
      if (i)
        strcat (s, " ");
      if (plain)
        strcat (s, a);
      else
        {
          char *o = s + strlen (s);
          *o++ = '\'';
          for (; *a; a++)
            if (*a == '\'')
              {
                memcpy (o, "'\\''", 4);
                o += 4;
              }
            else
              *o++ = *a;
          *o++ = '\'';
          *o = '\0';
        }
    }
  return s;
}

static int
write_png (const nb_plan *plan,
           const char *path,
           const uint8_t *bytes,
           double pgm_scale,
           int argc,
           char **argv,
           nb_error *err)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  char params[1024];
  char *cmd = join_command_line (argc, argv);
  const char *keys[] = { "Software", "Title", "nanobragg-command", "braggscope-parameters" };
  const char *values[4];
  nb_status st;

  snprintf (params, sizeof params,
            "lambda_A=%.9g distance_mm=%.9g pixel_mm=%.9g fpixels=%d spixels=%d "
            "Fbeam_mm=%.9g Sbeam_mm=%.9g Na=%g Nb=%g Nc=%g oversample=%d sources=%d "
            "mosaic_domains=%d phisteps=%d fluence=%.9g pgm_scale=%.9g",
            in->lambda0 * 1e10, in->distance * 1000, in->pixel_size * 1000, in->fpixels,
            in->spixels, in->Fbeam * 1000, in->Sbeam * 1000, in->Na, in->Nb, in->Nc, in->oversample,
            in->sources, in->mosaic_domains, in->phisteps, in->fluence, pgm_scale);
  values[0] = "Braggscope nanobragg";
  values[1] = "simulated diffraction image";
  values[2] = cmd ? cmd : "";
  values[3] = params;
  st = nb_write_png_gray8 (path, bytes, in->fpixels, in->spixels, keys, values, 4, err);
  free (cmd);
  return st;
}

/* Reads the command line into @params (initialised here).  Returns -1 to go
 * on, else the exit status (help, bad flags, bad outputs), with @params
 * cleared. */
static int
read_command_line (int argc, char **argv, nb_params *params)
{
  nb_parse_options parse = { 0, warn_line, NULL, report_line };
  nb_error err;
  nb_status st;
  int rc;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0 ||
        strcmp (argv[i], "-help") == 0)
      {
        print_usage (stdout);
        return 0;
      }
  if (argc < 2)
    {
      print_usage (stdout);
      fputs ("nanobragg: no arguments: give at least -cell (or -mat) and -hkl (or -default_F)\n",
             stderr);
      return 2;
    }

  nb_params_init (params);
  if (lenient_from_environment (&parse, &err) != NB_OK)
    {
      nb_params_clear (params);
      return report (&err, 1);
    }
  st = nb_params_parse_argv_with (params, argc, (const char *const *) argv, &parse, &err);
  if (st == NB_OK)
    st = nb_params_validate (params, &err);
  if (st != NB_OK)
    {
      /* -frame/-img/-mask files are read while parsing: their errors are failures */
      rc = report (&err, 1);
      nb_params_clear (params);
      return rc;
    }
  if ((rc = check_outputs (params, &err)) != 0)
    {
      report (&err, 0);
      nb_params_clear (params);
      return rc;
    }
  return -1;
}

/* The reference's quirks that change this image (nb_plan_get_warnings()):
 * reproduced, as nanoBragg computes them, but said on stderr, one
 * "nanobragg: warning:" line each. */
static void
warn_quirks (const nb_plan *plan)
{
  for (const char *w = nb_plan_get_warnings (plan); *w != '\0';)
    {
      size_t n = strcspn (w, "\n");

      fprintf (stderr, "nanobragg: warning: %.*s\n", (int) n, w);
      w += n + (w[n] == '\n');
    }
}

/* An image with a non-finite pixel is never written: 0 when @image is
 * finite, else 1 after saying why it might not be. */
static int
check_finite (const nb_plan *plan, const float *image)
{
  nb_error err = { 0 };

  if (nb_image_check_finite (plan, image, &err) == NB_OK)
    return 0;
  fprintf (stderr, "nanobragg: %s; nothing written\n", err.message);
  return 1;
}

/* -stats: the plan's cache counters, kernel and backend. */
static void
print_stats (nb_plan *plan, const nb_params *params)
{
  nb_plan_stats ps;

  nb_plan_get_stats (plan, &ps);
  printf ("plan stages (rebuilds/hits):");
  for (int s = 0; s < NB_N_STAGES; s++)
    printf ("%s %s %ld/%ld", s ? "," : "", nb_stage_name (s), ps.rebuilds[s], ps.hits[s]);
  printf ("\nkernel: %s precision%s%s\n",
          params->precision == NB_PRECISION_SINGLE ? "single" : "double",
          params->precision == NB_PRECISION_SINGLE ? ", " : "",
          params->precision == NB_PRECISION_SINGLE ? nb_kernel_variant () : "");
  printf ("backend: %s\n", nb_plan_get_backend (plan));
}

/* The buffers of one run's outputs (the plan's memory budget counted them:
 * 7 bytes per pixel). */
typedef struct
{
  float *image;
  uint16_t *intimage;
  uint8_t *bytes;
  size_t npix;
} images;

/* 1 when the image of @plan's panels is no rectangle (panels of different
 * widths: nb_plan_info's spixels is 1), so only the float image holds it.
 * An image of another kind asked for by name is then refused (-1, said on
 * stderr) before anything is rendered; the default names are skipped. */
static int
flat_panels (const nb_plan *plan, const nb_params *params)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  nb_params defaults;
  const char *asked = NULL;

  if (in->n_panels < 2 || in->spixels != 1)
    return 0;
  nb_params_init (&defaults);
  if (strcmp (params->intfile, defaults.intfile) != 0)
    asked = "-intfile";
  else if (params->write_pgm && strcmp (params->pgmfile, defaults.pgmfile) != 0)
    asked = "-pgmfile";
  else if (params->calculate_noise && strcmp (params->noisefile, defaults.noisefile) != 0)
    asked = "-noisefile";
  else if (params->pngfile != NULL)
    asked = "-pngfile";
  nb_params_clear (&defaults);
  if (asked == NULL)
    return 1;
  fprintf (stderr,
           "nanobragg: %s: the panels of -detector %s differ in width and cannot be stacked into "
           "one image; -floatfile holds them, one after another\n",
           asked, params->detector_file);
  return -1;
}

/* Writes the SMV, PGM, PNG and noise images of @im, as the reference prints
 * them; the float image and the statistics before.  @flat: panels that
 * cannot be stacked (flat_panels), the float image alone. */
static nb_status
write_images (nb_plan *plan,
              const nb_params *params,
              images *im,
              int flat,
              int argc,
              char **argv,
              nb_error *err)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  nb_image_stats stats;
  nb_smv_header h;
  double intfile_scale, pgm_scale = 0.0, omega;
  nb_status st;

  nb_image_statistics (plan, im->image, &stats);
  omega = nb_plan_get_omega_sum (plan) / in->steps;
  printf ("solid angle subtended by detector = %g steradian ( %g%% sphere)\n", omega,
          100 * omega / 4 / M_PI);
  if (in->integration == NB_INTEGRATION_ADAPTIVE)
    {
      nb_plan_timing t;
      double roi = (double) (in->roi[1] - in->roi[0] + 1) * (in->roi[3] - in->roi[2] + 1);
      nb_plan_get_timing (plan, &t);
      printf ("adaptive integration: %.0f sub-pixel samples (%.3g per pixel) in %.0f ms\n",
              t.samples, t.samples / (roi > 0 ? roi : 1.0), t.execute_ms);
    }

  printf ("writing %s as %zu %zu-byte floats\n", params->floatfile, im->npix, sizeof (float));
  if ((st = nb_write_float_image (params->floatfile, im->image, in->fpixels, in->spixels, err)) !=
      NB_OK)
    return st;
  if (in->n_panels > 0)
    printf ("  %d panels one after another, each fast index first (%s: its panels in file "
            "order)%s\n",
            in->n_panels, params->detector_file,
            flat ? "" : "; the other images stack them slow-wise");
  printf ("max_I = %g  at %g %g\n", stats.max_I, stats.max_I_x, stats.max_I_y);
  printf ("mean= %g rms= %g rmsd= %g\n", stats.mean, stats.rms, stats.rmsd);
  if (flat)
    {
      printf ("not writing %s, %s or %s: the panels differ in width, so only %s holds them\n",
              params->intfile, params->pgmfile, params->noisefile, params->floatfile);
      return NB_OK;
    }

  intfile_scale =
      nb_image_to_smv (plan, im->image, &stats, params->intfile_scale, params->adc, im->intimage);
  printf ("intfile_scale = %g\n", intfile_scale);
  nb_smv_header_from_info (in, &h);
  if (params->physical)
    nb_smv_header_for_dials (in, params->adc, &h);
  printf ("writing %s as %zu-byte integers\n", params->intfile, sizeof (uint16_t));
  if ((st = nb_write_smv (params->intfile, &h, im->intimage, err)) != NB_OK)
    return st;

  if (params->write_pgm || params->pngfile != NULL)
    pgm_scale =
        nb_image_to_pgm (plan, im->image, &stats, params->pgm_scale, intfile_scale, im->bytes);
  if (params->write_pgm)
    {
      printf ("pgm_scale = %g\n", pgm_scale);
      printf ("writing %s as %zu-byte integers\n", params->pgmfile, sizeof (unsigned char));
      if ((st = nb_write_pgm (params->pgmfile, im->bytes, in->fpixels, in->spixels, pgm_scale,
                              err)) != NB_OK)
        return st;
    }
  if (params->pngfile != NULL)
    {
      printf ("writing %s as 8-bit PNG (scale %g)\n", params->pngfile, pgm_scale);
      if ((st = write_png (plan, params->pngfile, im->bytes, pgm_scale, argc, argv, err)) != NB_OK)
        return st;
    }

  if (params->calculate_noise)
    {
      int overloads;
      double photons =
          nb_image_to_noise (plan, im->image, params->seed, params->adc, im->intimage, &overloads);

      printf ("%.0f photons on noise image (%d overloads)\n", photons, overloads);
      printf ("writing %s as %zu-byte integers\n", params->noisefile, sizeof (uint16_t));
      if ((st = nb_write_smv (params->noisefile, &h, im->intimage, err)) != NB_OK)
        return st;
    }
  return NB_OK;
}

int
main (int argc, char **argv)
{
  nb_params params;
  nb_error err;
  nb_plan *plan = NULL;
  nb_status st;
  images im = { 0 };
  const nb_plan_info *in;
  int rc, flat;

  if ((rc = read_command_line (argc, argv, &params)) >= 0)
    return rc;
  rc = 1;

  /* every output appears together at the end, or none does: the images and
   * the -dump cache the plan writes after reading -hkl */
  nb_output_begin ();
  st = nb_plan_create (&params, &plan, &err);
  if (st != NB_OK)
    {
      nb_output_abort ();
      rc = report (&err, 0);
      nb_params_clear (&params);
      return rc;
    }
  fputs (nb_plan_get_log (plan), stdout);
  fflush (stdout);
  warn_quirks (plan);
  in = nb_plan_get_info (plan);
  if ((flat = flat_panels (plan, &params)) < 0)
    goto out;

  im.npix = (size_t) in->fpixels * (size_t) in->spixels;
  /* page-locked where the GPU renders it: its bands are copied straight in */
  im.image =
      nb_image_alloc (im.npix * sizeof (float), strcmp (nb_plan_get_backend (plan), "cuda") == 0);
  im.intimage = nb_alloc_large (im.npix * sizeof (uint16_t));
  im.bytes = nb_alloc_large (im.npix);
  if (im.image == NULL || im.intimage == NULL || im.bytes == NULL)
    {
      fprintf (stderr, "nanobragg: out of memory for a %dx%d image\n", in->fpixels, in->spixels);
      goto out;
    }

  {
    size_t before = strlen (nb_plan_get_log (plan));

    st = nb_plan_execute (plan, im.image, NULL, &err);
    if (st != NB_OK)
      {
        rc = report (&err, 0);
        goto out;
      }
    fputs (nb_plan_get_log (plan) + before, stdout);
  }
  if (check_finite (plan, im.image) != 0)
    goto out;
  if (params.stats)
    print_stats (plan, &params);
  printf ("\n");

  if ((st = write_images (plan, &params, &im, flat, argc, argv, &err)) != NB_OK ||
      (st = nb_output_commit (&err)) != NB_OK)
    {
      rc = report (&err, 0);
      goto out;
    }
  rc = 0;

out:
  nb_output_abort ();
  /* the log is an output too: a full disk or a closed file behind stdout is reported */
  if ((fflush (stdout) != 0 || ferror (stdout)) && rc == 0)
    {
      fprintf (stderr, "nanobragg: cannot write the log to standard output: %s\n",
               strerror (errno ? errno : EIO));
      rc = 1;
    }
  nb_image_free (im.image);
  free (im.intimage);
  free (im.bytes);
  nb_plan_destroy (plan);
  nb_params_clear (&params);
  return rc;
}
