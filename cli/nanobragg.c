/* nanobragg: nanoBragg's command line on the Braggscope engine.
 *
 * Takes the reference program's flags and writes the same files (float image,
 * SMV integer and noise images, PGM) plus -pngfile.  Differences, all on the
 * side of safety, are listed in the --help text.
 */
#include "nanobragg.h"
#include "nb-frame.h"
#include "nb-io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char usage_text[] =
    "usage: nanobragg -cell a b c alpha beta gamma (or -mat FILE) -hkl FILE (or -default_F F) "
    "[options]\n"
    "\n"
    "Simulates the diffraction image of a small crystal, as James Holton's nanoBragg does, and\n"
    "takes nanoBragg's flags (see its documentation for all of them).  The most used:\n"
    "\t-cell a b c al be ga\tunit cell (Angstrom, degrees)\n"
    "\t-mat FILE\t\tMOSFLM orientation matrix instead of / with -cell\n"
    "\t-misset rx ry rz\tcrystal rotation about X, Y, Z (degrees), or 'random' with -misset_seed\n"
    "\t-hkl FILE\t\tstructure factors: lines of h k l F (more columns are ignored), or an\n"
    "\t\t\tMTZ file (recognised by its contents; its first amplitude column, expanded\n"
    "\t\t\tfrom its space group to P1)\n"
    "\t-default_F F\t\tF of reflections not in the file\n"
    "\t-N n, -Na/-Nb/-Nc n\tunit cells per crystal axis; -xtalsize mm instead\n"
    "\t-mosaic deg -mosaic_domains n -mosaic_seed s\tmosaic spread\n"
    "\t-lambda A | -energy eV, -dispersion %, -dispsteps n\tspectrum\n"
    "\t-divergence mrad, -hdivrange/-vdivrange mrad, -hdivstep/-vdivstep mrad, -divsteps n\n"
    "\t-distance mm -pixel mm -detpixels n (-detpixels_x/_y) -detsize mm\tdetector\n"
    "\t-Xbeam -Ybeam mm, -ORGX -ORGY px, -mosflm -xds -adxv -denzo -dials\tconventions\n"
    "\t-detector_rotx/y/z deg -twotheta deg -pivot beam|sample\tdetector orientation\n"
    "\t-fdet_vector -sdet_vector -odet_vector -beam_vector -polar_vector -spindle_axis\n"
    "\t-phi deg -osc deg -phisteps n\tspindle rotation\n"
    "\t-oversample n (-oversample_thick/_polar/_omega), -roi x0 x1 y0 y1, -dmin A\n"
    "\t-fluence ph/m^2 | -flux ph/s -exposure s -beamsize mm, -water um, -polar K, -nopolar\n"
    "\t-floatfile F -intfile F -noisefile F -pgmfile F -pngfile F, -nonoise -nopgm\n"
    "\t-scale s -pgmscale s -adc counts -seed n\n"
    "\n"
    "Braggscope additions:\n"
    "\t-pngfile FILE\t8-bit PNG scaled like the PGM, with the parameters and the command line\n"
    "\t\t\tin its text chunks\n"
    "\t-precision double|single|exact\tthe kernel: double (default) and single are the fast\n"
    "\t\t\tvectorised kernels (double matches nanoBragg to 1e-12, most images bit for\n"
    "\t\t\tbit; single to ~1e-4); exact is nanoBragg's own arithmetic and loop order\n"
    "\t-backend auto|cpu|cuda\twhere the image is computed (default auto: the GPU when this\n"
    "\t\t\tbuild has CUDA and a device and driver are present, else the CPU, with one line\n"
    "\t\t\tsaying why); cuda without a device is an error (exit 1).  -precision exact,\n"
    "\t\t\ttricubic interpolation and -curved_det always run on the CPU\n"
    "\t-physical\tcorrect the reference's bugs instead of reproducing them: the phi = 0\n"
    "\t\t\tcarry-over of the previous orientation (Q-3), the triclinic c* formula (Q-5),\n"
    "\t\t\tthe water background scaled by r_e^2*fluence twice (Q-14), two-theta left out\n"
    "\t\t\tof the detector's distance ratio (Q-2), and -misset_seed/-twotheta_axis also\n"
    "\t\t\tsetting misset angles/two-theta (Q-29/Q-30)\n"
    "\t-stats\t\tprint the plan's cache counters\n"
    "\t-frame FILE\tadopt a measured frame's geometry (SMV, CBF or NeXus/HDF5 header:\n"
    "\t\t\twavelength, distance, beam centre, pixel size and count, phi, oscillation),\n"
    "\t\t\tprinting where each value came from; the other flags apply on top (and\n"
    "\t\t\t-img after it); -frame_index N picks a frame of a NeXus series\n"
    "\t-memory_budget MB\tmost memory one run may plan for (default: half of the physical\n"
    "\t\t\tmemory); a detector, structure-factor grid or sampling that needs more is\n"
    "\t\t\trefused before anything is allocated (exit 1)\n"
    "\n"
    "Where nanoBragg is dangerous, this program is safe:\n"
    "\t- an unknown flag, a stray argument or a missing or non-numeric value is an error\n"
    "\t  naming it (exit 2); nanoBragg ignores them silently\n"
    "\t- values outside what the physics allows are errors naming the flag, the value and the\n"
    "\t  allowed range (exit 2): a wavelength <= 0, negative sizes, counts or distances, an\n"
    "\t  impossible cell, an ROI outside the detector, grids of more than 100000 steps...\n"
    "\t- settings that leave no divergence sources are errors, not NaN images (exit 1); an\n"
    "\t  image with a non-finite pixel is never written (exit 1)\n"
    "\t- malformed input files (-hkl, -mat, -sourcefile, -stol, -img/-mask headers, -dump)\n"
    "\t  are errors naming the file and line (exit 1); Miller indices beyond +-1024 are refused\n"
    "\t- an output that is also an input, or two outputs of the same name, is an error (exit 2)\n"
    "\t- Fdump.bin is neither written nor read unless -dump FILE is given (nanoBragg reads a\n"
    "\t  leftover cache silently)\n"
    "\t- HKL files are read line by line: extra columns are ignored, '#' lines are comments,\n"
    "\t  a malformed line is an error naming the file and line\n"
    "\t- every output is written under a temporary name, flushed and checked (a full disk is\n"
    "\t  an error), and all are renamed together once every one is complete: a failed run\n"
    "\t  leaves no partial file and every existing file untouched\n"
    "\n"
    "Exit status: 0 success, 1 failure (files, memory, output), 2 bad command line.\n"
    "\t- the image does not depend on the number of threads\n";

/* Prints @err as one line on stderr; returns the exit status: 2 when the
 * command line is wrong (@usage_codes: NB_ERR_USAGE, and NB_ERR_INVALID while the
 * flags are checked), 1 for failures. */
static int
report (const nb_error *err, int invalid_is_usage)
{
  fprintf (stderr, "nanobragg: %s\n", err->message[0] ? err->message : nb_status_name (err->code));
  return err->code == NB_ERR_USAGE || (invalid_is_usage && err->code == NB_ERR_INVALID) ? 2 : 1;
}

/* A -frame file that cannot be read is a failure (exit 1), as -img's. */
static int
report_error (const nb_error *err)
{
  return report (err, 0);
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

/* -frame's file, an input like -img's (its geometry is already in the parameters). */
static const char *frame_input;

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
  in[n_in++] = (named_file){ "-frame", frame_input };

  for (int i = 0; i < n_out; i++)
    {
      const char *path = out[i].path, *slash;
      struct stat st;

      if (path == NULL || path[0] == '\0')
        {
          nb_error_set (err, NB_ERR_USAGE, "%s: no file name", out[i].flag);
          return 2;
        }
      for (int j = 0; j < i; j++)
        if (same_file (path, out[j].path))
          {
            nb_error_set (err, NB_ERR_USAGE, "%s %s: the same file as %s %s", out[i].flag, path,
                          out[j].flag, out[j].path);
            return 2;
          }
      for (int j = 0; j < n_in; j++)
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

/* The first non-finite pixel, or -1: such an image is an error, never an
 * output. */
static long
first_non_finite (const float *image, size_t n, size_t *count)
{
  long first = -1;

  *count = 0;
  for (size_t i = 0; i < n; i++)
    if (!isfinite (image[i]))
      {
        if (first < 0)
          first = (long) i;
        (*count)++;
      }
  return first;
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

int
main (int argc, char **argv)
{
  nb_params params;
  nb_error err;
  nb_plan *plan = NULL;
  nb_status st;
  float *image = NULL;
  uint16_t *intimage = NULL;
  uint8_t *bytes = NULL;
  const nb_plan_info *in;
  nb_image_stats stats;
  double intfile_scale, pgm_scale = 0.0;
  size_t npix;
  int rc = 1;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0 ||
        strcmp (argv[i], "-help") == 0)
      {
        fputs (usage_text, stdout);
        return 0;
      }
  if (argc < 2)
    {
      fputs (usage_text, stdout);
      fputs ("nanobragg: no arguments: give at least -cell (or -mat) and -hkl (or -default_F)\n",
             stderr);
      return 2;
    }

  nb_params_init (&params);
  /* -frame: the measured frame's geometry first, every other flag on top */
  {
    const char *frame_path = NULL, **rest = calloc ((size_t) argc + 1, sizeof *rest);
    long frame_index = 0;
    int n_rest = 0;

    if (rest == NULL)
      {
        fputs ("nanobragg: out of memory\n", stderr);
        nb_params_clear (&params);
        return 1;
      }
    for (int i = 0; i < argc; i++)
      {
        if (i > 0 && (strcmp (argv[i], "-frame") == 0 || strcmp (argv[i], "-frame_index") == 0))
          {
            char *end;

            if (i + 1 >= argc)
              {
                fprintf (stderr, "nanobragg: %s needs a value\n", argv[i]);
                free (rest);
                nb_params_clear (&params);
                return 2;
              }
            if (argv[i][6] == '\0')
              frame_path = argv[++i];
            else
              {
                errno = 0;
                frame_index = strtol (argv[i + 1], &end, 10);
                if (end == argv[i + 1] || *end != '\0' || errno != 0 || frame_index < 0 ||
                    frame_index > 1000000000L)
                  {
                    fprintf (stderr, "nanobragg: -frame_index %s: not a frame number (0 or more)\n",
                             argv[i + 1]);
                    free (rest);
                    nb_params_clear (&params);
                    return 2;
                  }
                i++;
              }
            continue;
          }
        rest[n_rest++] = argv[i];
      }
    frame_input = frame_path;
    if (frame_path != NULL)
      {
        nb_frame frame;
        char *report = NULL;

        if ((st = nb_frame_read (frame_path, (int) frame_index, NB_FRAME_HEADER_ONLY, &frame,
                                 &err)) == NB_OK)
          {
            st = nb_frame_apply_geometry (&frame, &params, &report, &err);
            nb_frame_clear (&frame);
          }
        if (st != NB_OK)
          {
            free (rest);
            nb_params_clear (&params);
            return report_error (&err);
          }
        fputs (report, stdout);
        free (report);
      }
    else if (frame_index != 0)
      {
        fputs ("nanobragg: -frame_index without -frame\n", stderr);
        free (rest);
        nb_params_clear (&params);
        return 2;
      }
    st = nb_params_parse_argv (&params, n_rest, rest, &err);
    free (rest);
  }
  if (st == NB_OK)
    st = nb_params_validate (&params, &err);
  if (st != NB_OK)
    {
      /* -img/-mask files are read while parsing: their errors are failures */
      rc = report (&err, 1);
      nb_params_clear (&params);
      return rc;
    }
  if ((rc = check_outputs (&params, &err)) != 0)
    {
      report (&err, 0);
      nb_params_clear (&params);
      return rc;
    }
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
  in = nb_plan_get_info (plan);

  /* the plan's memory budget counted these (7 bytes per pixel) */
  npix = (size_t) in->fpixels * (size_t) in->spixels;
  image = nb_alloc_large (npix * sizeof (float));
  intimage = nb_alloc_large (npix * sizeof (uint16_t));
  bytes = nb_alloc_large (npix);
  if (image == NULL || intimage == NULL || bytes == NULL)
    {
      fprintf (stderr, "nanobragg: out of memory for a %dx%d image\n", in->fpixels, in->spixels);
      goto out;
    }

  {
    size_t before = strlen (nb_plan_get_log (plan));

    st = nb_plan_execute (plan, image, NULL, &err);
    if (st != NB_OK)
      {
        rc = report (&err, 0);
        goto out;
      }
    fputs (nb_plan_get_log (plan) + before, stdout);
  }
  {
    size_t bad;
    long first = first_non_finite (image, npix, &bad);

    if (first >= 0)
      {
        fprintf (stderr,
                 "nanobragg: the image has %zu non-finite pixels (the first at fast %ld, slow %ld "
                 "is %g): nothing written; check the flags that scale intensities (-fluence, "
                 "-flux, -water, -default_F)\n",
                 bad, first % in->fpixels, first / in->fpixels, (double) image[first]);
        goto out;
      }
  }
  if (params.stats)
    {
      nb_plan_stats ps;

      nb_plan_get_stats (plan, &ps);
      printf ("plan stages (rebuilds/hits):");
      for (int s = 0; s < NB_N_STAGES; s++)
        printf ("%s %s %ld/%ld", s ? "," : "", nb_stage_name (s), ps.rebuilds[s], ps.hits[s]);
      printf ("\nkernel: %s precision%s%s\n",
              params.precision == NB_PRECISION_SINGLE ? "single" : "double",
              params.precision == NB_PRECISION_SINGLE ? ", " : "",
              params.precision == NB_PRECISION_SINGLE ? nb_kernel_variant () : "");
      printf ("backend: %s\n", nb_plan_get_backend (plan));
    }
  printf ("\n");

  nb_image_statistics (plan, image, &stats);
  {
    double omega = nb_plan_get_omega_sum (plan) / in->steps;
    printf ("solid angle subtended by detector = %g steradian ( %g%% sphere)\n", omega,
            100 * omega / 4 / M_PI);
  }

  printf ("writing %s as %zu %zu-byte floats\n", params.floatfile, npix, sizeof (float));
  if ((st = nb_write_float_image (params.floatfile, image, in->fpixels, in->spixels, &err)) !=
      NB_OK)
    {
      rc = report (&err, 0);
      goto out;
    }
  printf ("max_I = %g  at %g %g\n", stats.max_I, stats.max_I_x, stats.max_I_y);
  printf ("mean= %g rms= %g rmsd= %g\n", stats.mean, stats.rms, stats.rmsd);

  {
    nb_smv_header h;

    intfile_scale =
        nb_image_to_smv (plan, image, &stats, params.intfile_scale, params.adc, intimage);
    printf ("intfile_scale = %g\n", intfile_scale);
    nb_smv_header_from_info (in, &h);
    printf ("writing %s as %zu-byte integers\n", params.intfile, sizeof (uint16_t));
    if ((st = nb_write_smv (params.intfile, &h, intimage, &err)) != NB_OK)
      {
        rc = report (&err, 0);
        goto out;
      }

    if (params.write_pgm || params.pngfile != NULL)
      pgm_scale = nb_image_to_pgm (plan, image, &stats, params.pgm_scale, intfile_scale, bytes);
    if (params.write_pgm)
      {
        printf ("pgm_scale = %g\n", pgm_scale);
        printf ("writing %s as %zu-byte integers\n", params.pgmfile, sizeof (unsigned char));
        if ((st = nb_write_pgm (params.pgmfile, bytes, in->fpixels, in->spixels, pgm_scale,
                                &err)) != NB_OK)
          {
            rc = report (&err, 0);
            goto out;
          }
      }
    if (params.pngfile != NULL)
      {
        printf ("writing %s as 8-bit PNG (scale %g)\n", params.pngfile, pgm_scale);
        if ((st = write_png (plan, params.pngfile, bytes, pgm_scale, argc, argv, &err)) != NB_OK)
          {
            rc = report (&err, 0);
            goto out;
          }
      }

    if (params.calculate_noise)
      {
        int overloads;
        double photons =
            nb_image_to_noise (plan, image, params.seed, params.adc, intimage, &overloads);

        printf ("%.0f photons on noise image (%d overloads)\n", photons, overloads);
        printf ("writing %s as %zu-byte integers\n", params.noisefile, sizeof (uint16_t));
        if ((st = nb_write_smv (params.noisefile, &h, intimage, &err)) != NB_OK)
          {
            rc = report (&err, 0);
            goto out;
          }
      }
  }
  if ((st = nb_output_commit (&err)) != NB_OK)
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
  free (image);
  free (intimage);
  free (bytes);
  nb_plan_destroy (plan);
  nb_params_clear (&params);
  return rc;
}
