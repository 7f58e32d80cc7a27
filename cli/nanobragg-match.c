/* nanobragg-match: a measured frame against the simulation.
 *
 * Reads a detector frame (SMV, CBF, NeXus), takes its header's geometry,
 * applies nanoBragg flags on top (the crystal's -cell, -N, -mosaic; any
 * geometry the header got wrong), finds the frame's strongest peaks, searches
 * all orientations of the cell for the one that predicts them (or refines the
 * -misset given), and prints the misset, the match score and, with
 * --simulate, the correlation of a full simulation with the frame in
 * resolution shells.  --overlay writes a PNG of the frame in grey with the
 * predicted spots as circles.
 */
#include "nanobragg.h"
#include "nb-frame.h"
#include "nb-io.h"
#include "nb-match.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RTD (180.0 / M_PI)

static const char usage_text[] =
    "usage: nanobragg-match FRAME [options] [nanoBragg flags]\n"
    "\n"
    "Matches the crystal of the nanoBragg flags to a measured detector frame (SMV, CBF or\n"
    "NeXus/HDF5): the frame's header gives the geometry (wavelength, distance, beam centre,\n"
    "pixels, phi, oscillation; each printed with where it came from), the flags after it\n"
    "give the crystal (-cell, -N, -mosaic, -misset...) and override the header.  The\n"
    "frame's strongest peaks are found, the orientation of the cell that predicts them is\n"
    "searched (or, with --no-search, the -misset given is refined), and the misset and the\n"
    "match score are printed: the fraction of the peaks within --radius pixels of a\n"
    "predicted reflection.\n"
    "\n"
    "options:\n"
    "\t--frame-index N\t\tthe frame of a NeXus series (0-based; default 0)\n"
    "\t--peaks N\t\tthe strongest N peaks (default 50)\n"
    "\t--d-min A, --d-max A\tthe peaks' resolution range (default: all but the\n"
    "\t\t\t\tbeam's neighbourhood, d_max 100 A)\n"
    "\t--radius PX\t\tmatch radius in pixels (default 3)\n"
    "\t--step DEG\t\tthe orientation grid's spacing (default 1.5)\n"
    "\t--candidates N\t\tgrid orientations refined (default 12)\n"
    "\t--no-search\t\trefine the -misset given instead of searching\n"
    "\t--refine-detector\talso refine the distance and the beam centre\n"
    "\t--simulate\t\trender the simulation of the result (the flags' -hkl or\n"
    "\t\t\t\t-default_F) and print its correlation with the frame in\n"
    "\t\t\t\tresolution shells; -floatfile FILE writes it\n"
    "\t--overlay FILE.png\tthe frame in grey (masked pixels blue), predicted spots\n"
    "\t\t\t\tas red circles, the peaks as green marks\n"
    "\t--overlay-bin B\t\tB x B pixels per overlay pixel (default: to fit 1600)\n"
    "\t--overlay-crop F0 S0 W H\tonly this part of the frame\n"
    "\t--threads N\t\tOpenMP threads (default: all)\n"
    "\n"
    "Exit status: 0 success, 1 failure (files, no peaks, no orientation), 2 bad command line.\n";

typedef struct
{
  const char *frame;
  int frame_index;
  int n_peaks;
  double d_min, d_max, radius, step;
  int candidates, search, refine_detector, simulate, threads;
  const char *overlay;
  int bin, crop[4];
} options;

static int
usage_error (const char *fmt, const char *what)
{
  fputs ("nanobragg-match: ", stderr);
  fprintf (stderr, fmt, what);
  fputs (" (--help lists the options)\n", stderr);
  return 2;
}

/* The value after argv[*i] of option @what ("--peaks", "--overlay-crop W":
 * named by the caller, since an option of several values advances *@i). */
static int
number_arg (int argc, char **argv, int *i, const char *what, double lo, double hi, double *out)
{
  char *end;

  if (*i + 1 >= argc)
    return usage_error ("%s needs a value", what);
  errno = 0;
  *out = strtod (argv[*i + 1], &end);
  if (end == argv[*i + 1] || *end != '\0' || errno != 0 || !(*out >= lo && *out <= hi))
    {
      fprintf (stderr, "nanobragg-match: %s %s: not a number from %g to %g\n", what, argv[*i + 1],
               lo, hi);
      return 2;
    }
  (*i)++;
  return 0;
}

/* Our options out of argv; the rest (nanoBragg flags) into @flags (argv[0]
 * first).  Returns 0, or the exit status of a usage error. */
static int
parse_options (int argc, char **argv, options *o, const char **flags, int *n_flags)
{
  double v;
  int rc;

  *n_flags = 0;
  flags[(*n_flags)++] = "nanobragg";
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];

#define NUM_OF(what, lo, hi)                                                                       \
  do                                                                                               \
    {                                                                                              \
      if ((rc = number_arg (argc, argv, &i, what, lo, hi, &v)) != 0)                               \
        return rc;                                                                                 \
    }                                                                                              \
  while (0)
#define NUM(lo, hi) NUM_OF (a, lo, hi)
      if (strcmp (a, "--frame-index") == 0)
        {
          NUM (0, 1e9);
          o->frame_index = (int) v;
        }
      else if (strcmp (a, "--peaks") == 0)
        {
          NUM (3, 100000);
          o->n_peaks = (int) v;
        }
      else if (strcmp (a, "--d-min") == 0)
        {
          NUM (0, 1e6);
          o->d_min = v;
        }
      else if (strcmp (a, "--d-max") == 0)
        {
          NUM (0, 1e6);
          o->d_max = v;
        }
      else if (strcmp (a, "--radius") == 0)
        {
          NUM (0.1, 1000);
          o->radius = v;
        }
      else if (strcmp (a, "--step") == 0)
        {
          NUM (0.1, 30);
          o->step = v;
        }
      else if (strcmp (a, "--candidates") == 0)
        {
          NUM (1, 1000);
          o->candidates = (int) v;
        }
      else if (strcmp (a, "--threads") == 0)
        {
          NUM (1, 1024);
          o->threads = (int) v;
        }
      else if (strcmp (a, "--overlay-bin") == 0)
        {
          NUM (1, 64);
          o->bin = (int) v;
        }
      else if (strcmp (a, "--overlay-crop") == 0)
        {
          static const char *const crop_values[4] = { "--overlay-crop F0", "--overlay-crop S0",
                                                      "--overlay-crop W", "--overlay-crop H" };

          for (int k = 0; k < 4; k++)
            {
              NUM_OF (crop_values[k], k < 2 ? 0 : 1, 65536);
              o->crop[k] = (int) v;
            }
        }
      else if (strcmp (a, "--no-search") == 0)
        o->search = 0;
      else if (strcmp (a, "--refine-detector") == 0)
        o->refine_detector = 1;
      else if (strcmp (a, "--simulate") == 0)
        o->simulate = 1;
      else if (strcmp (a, "--overlay") == 0)
        {
          if (i + 1 >= argc)
            return usage_error ("%s needs a file name", a);
          o->overlay = argv[++i];
        }
      else if (strncmp (a, "--", 2) == 0)
        return usage_error ("unknown option %s", a);
      else if (o->frame == NULL && a[0] != '-')
        o->frame = a;
      else
        flags[(*n_flags)++] = a;
#undef NUM
#undef NUM_OF
    }
  flags[*n_flags] = NULL;
  if (o->frame == NULL)
    return usage_error ("%s", "no FRAME given");
  return 0;
}

static void
progress (void *user, double fraction, const char *stage, double score)
{
  int *last = user;
  int tenth = (int) (fraction * 10);

  (void) score;
  if (tenth != *last)
    {
      *last = tenth;
      fprintf (stderr, "\r%s %3.0f%%", stage, fraction * 100);
      if (tenth >= 10)
        fputc ('\n', stderr);
    }
}

/* ---- the overlay ---- */

typedef struct
{
  uint8_t *rgb;
  int w, h, bin, f0, s0;
} canvas;

static void
plot (canvas *c, double f, double s, const uint8_t colour[3])
{
  int x = (int) floor ((f - c->f0) / c->bin), y = (int) floor ((s - c->s0) / c->bin);

  if (x < 0 || y < 0 || x >= c->w || y >= c->h)
    return;
  memcpy (c->rgb + 3 * ((size_t) y * c->w + x), colour, 3);
}

/* A circle of @radius frame pixels (at least 3 canvas pixels) around (f, s). */
static void
circle (canvas *c, double f, double s, double radius, const uint8_t colour[3])
{
  double r = fmax (radius, 3.0 * c->bin);
  int steps = (int) (2 * M_PI * r / c->bin * 2) + 8;

  for (int i = 0; i < steps; i++)
    {
      double a = 2 * M_PI * i / steps;

      plot (c, f + r * cos (a), s + r * sin (a), colour);
    }
}

static int
write_overlay (const options *o,
               const nb_frame *frame,
               const nb_params *p,
               const nb_peak *peaks,
               int n_peaks,
               nb_error *err)
{
  static const uint8_t red[3] = { 220, 30, 30 }, green[3] = { 0, 170, 0 },
                       masked[3] = { 150, 170, 215 };
  int f0 = o->crop[2] > 0 ? o->crop[0] : 0, s0 = o->crop[2] > 0 ? o->crop[1] : 0;
  int fw = o->crop[2] > 0 ? o->crop[2] : frame->fpixels,
      sh = o->crop[2] > 0 ? o->crop[3] : frame->spixels;
  canvas c;
  double cap = 1;
  nb_reflection *refl = NULL;
  size_t n_refl = 0;
  nb_predict_options po;
  nb_status st;

  if (f0 + fw > frame->fpixels)
    fw = frame->fpixels - f0;
  if (s0 + sh > frame->spixels)
    sh = frame->spixels - s0;
  if (fw < 1 || sh < 1)
    return nb_error_set (err, NB_ERR_INVALID, "--overlay-crop lies outside the %d x %d frame",
                         frame->fpixels, frame->spixels);
  c.bin = o->bin > 0 ? o->bin : (int) ceil (fmax (fw, sh) / 1600.0);
  c.f0 = f0;
  c.s0 = s0;
  c.w = (fw + c.bin - 1) / c.bin;
  c.h = (sh + c.bin - 1) / c.bin;
  c.rgb = malloc ((size_t) c.w * c.h * 3);
  if (c.rgb == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the overlay");

  /* the grey scale saturates at the 99.95th percentile of the valid counts (at least 5): a
   * weak frame's spots stand out, a strong one's are not all white */
  {
    long hist[1025] = { 0 }, total = 0, seen = 0;

    for (int s = s0; s < s0 + sh; s++)
      for (int f = f0; f < f0 + fw; f++)
        {
          size_t i = (size_t) s * frame->fpixels + f;

          if (frame->mask[i] == NB_PIXEL_MASKED)
            continue;
          hist[frame->counts[i] < 0 ? 0 : frame->counts[i] > 1024 ? 1024 : frame->counts[i]]++;
          total++;
        }
    for (int v = 0; v <= 1024; v++)
      {
        seen += hist[v];
        if (seen >= 0.9995 * total)
          {
            cap = v;
            break;
          }
      }
    cap = fmax (cap, 5);
  }
  /* binned by the maximum, so a one-pixel spot survives; film-like: dark on light */
  for (int y = 0; y < c.h; y++)
    for (int x = 0; x < c.w; x++)
      {
        double best = -1;
        int any_valid = 0;
        uint8_t *px = c.rgb + 3 * ((size_t) y * c.w + x);

        for (int dy = 0; dy < c.bin; dy++)
          for (int dx = 0; dx < c.bin; dx++)
            {
              int f = f0 + x * c.bin + dx, s = s0 + y * c.bin + dy;
              size_t i;

              if (f >= f0 + fw || s >= s0 + sh)
                continue;
              i = (size_t) s * frame->fpixels + f;
              if (frame->mask[i] == NB_PIXEL_MASKED)
                continue;
              any_valid = 1;
              if (frame->counts[i] > best)
                best = frame->counts[i];
            }
        if (!any_valid)
          memcpy (px, masked, 3);
        else
          {
            double v = sqrt (fmin (1.0, fmax (0.0, best) / cap));
            uint8_t g = (uint8_t) (255.0 - 235.0 * v);

            px[0] = px[1] = px[2] = g;
          }
      }

  nb_predict_options_init (&po);
  st = nb_predict_reflections (p, &po, &refl, &n_refl, err);
  if (st != NB_OK)
    {
      free (c.rgb);
      return st;
    }
  for (size_t i = 0; i < n_refl; i++)
    circle (&c, refl[i].f, refl[i].s, o->radius, red);
  for (int i = 0; i < n_peaks; i++)
    for (int d = -2 * c.bin; d <= 2 * c.bin; d++)
      {
        plot (&c, peaks[i].f + d, peaks[i].s, green);
        plot (&c, peaks[i].f, peaks[i].s + d, green);
      }
  {
    char what[256];
    const char *keys[] = { "Software", "Title" };
    const char *values[] = { "Braggscope nanobragg-match", what };

    snprintf (what, sizeof what,
              "%s: measured counts (grey), predicted reflections (red), peaks (green); "
              "%d x %d frame pixels per image pixel",
              frame->path, c.bin, c.bin);
    st = nb_write_png_rgb8 (o->overlay, c.rgb, c.w, c.h, keys, values, 2, err);
  }
  printf ("overlay: %s, %d x %d pixels (%d x %d frame pixels each), %zu predicted reflections\n",
          o->overlay, c.w, c.h, c.bin, c.bin, n_refl);
  free (refl);
  free (c.rgb);
  return st;
}

/* ---- the simulation ---- */

static nb_status
simulate (const nb_params *p, const nb_frame *frame, nb_error *err)
{
  nb_plan *plan = NULL;
  nb_match_result shells;
  float *image;
  const nb_plan_info *in;
  nb_status st = nb_plan_create (p, &plan, err);

  if (st != NB_OK)
    return st;
  in = nb_plan_get_info (plan);
  image = nb_alloc_large ((size_t) in->fpixels * in->spixels * sizeof *image);
  if (image == NULL)
    {
      nb_plan_destroy (plan);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the simulated image");
    }
  st = nb_plan_execute (plan, image, NULL, err);
  if (st == NB_OK)
    st = nb_shell_correlation (in, image, frame, 10, &shells, err);
  if (st == NB_OK)
    {
      printf ("correlation of the simulation with the frame: %.4f over all valid pixels\n",
              shells.cc);
      printf ("  d_max (A)  d_min (A)    pixels        CC\n");
      for (int j = 0; j < shells.n_shells; j++)
        printf ("  %9.2f  %9.2f  %8ld  %8.4f\n", shells.shell_d_max[j], shells.shell_d_min[j],
                shells.shell_pixels[j], shells.shell_cc[j]);
    }
  if (st == NB_OK && p->floatfile != NULL)
    {
      st = nb_write_float_image (p->floatfile, image, in->fpixels, in->spixels, err);
      if (st == NB_OK)
        printf ("simulated image: %s (%d x %d floats)\n", p->floatfile, in->fpixels, in->spixels);
    }
  free (image);
  nb_plan_destroy (plan);
  return st;
}

/* The orientation search (--search) or the refinement of @p against @peaks
 * (@n), with their progress and timing on stdout. */
static nb_status
fit (const options *o, nb_params *p, const nb_peak *peaks, int n, int *last, nb_error *err)
{
  clock_t c0 = clock ();
  time_t t0 = time (NULL);

  if (o->search)
    {
      nb_search_options so;
      nb_search_result sr;

      nb_search_options_init (&so);
      so.step = o->step / RTD;
      so.candidates = o->candidates;
      so.threads = o->threads;
      so.refine.match.radius = o->radius;
      so.refine.refine_distance = so.refine.refine_beam = o->refine_detector;
      so.refine.progress = progress;
      so.refine.user = last;
      if (nb_orientation_search (p, peaks, n, &so, &sr, err) != NB_OK)
        return err->code;
      printf ("orientation search: %ld grid orientations, %d of %d peaks sharp enough for "
              "the grid; best candidate matched %d in reciprocal space; %.1f s search, %.1f "
              "s refinement (%.1f s processor time)\n",
              sr.grid_points, sr.informative, n, sr.grid_best, sr.grid_seconds, sr.refine_seconds,
              (double) (clock () - c0) / CLOCKS_PER_SEC);
    }
  else
    {
      nb_refine_options ro;
      nb_refine_result rr;

      nb_refine_options_init (&ro);
      ro.match.radius = o->radius;
      ro.refine_distance = ro.refine_beam = o->refine_detector;
      ro.progress = progress;
      ro.user = last;
      if (nb_refine (p, peaks, n, &ro, &rr, err) != NB_OK)
        return err->code;
      printf ("refinement: %d evaluations, the orientation turned %.4f deg, %ld s\n",
              rr.evaluations, rr.rotation * RTD, (long) (time (NULL) - t0));
    }
  return NB_OK;
}

int
main (int argc, char **argv)
{
  options o = { NULL, 0, 50, 0, 100, 3, 1.5, 12, 1, 0, 0, 0, NULL, 0, { 0, 0, 0, 0 } };
  const char **flags = calloc ((size_t) argc + 2, sizeof *flags);
  int n_flags, rc, n_all = 0, n, last = -1, float_given = 0;
  nb_frame frame;
  nb_params p;
  nb_error err;
  nb_peak *peaks = NULL;
  char *report = NULL;
  nb_peak_options popt;
  nb_match_result score;
  nb_status st;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      {
        fputs (usage_text, stdout);
        free (flags);
        return 0;
      }
  if (flags == NULL)
    return 1;
  if ((rc = parse_options (argc, argv, &o, flags, &n_flags)) != 0)
    {
      free (flags);
      return rc;
    }
  for (int i = 1; i < n_flags; i++)
    float_given |= strcmp (flags[i], "-floatfile") == 0;

  if (nb_frame_read (o.frame, o.frame_index, 0, &frame, &err) != NB_OK)
    {
      fprintf (stderr, "nanobragg-match: %s\n", err.message);
      free (flags);
      return 1;
    }
  nb_params_init (&p);
  rc = 1;
  if (nb_frame_apply_geometry (&frame, &p, &report, &err) != NB_OK)
    goto fail;
  fputs (report, stdout);
  if ((st = nb_params_parse_argv (&p, n_flags, flags, &err)) != NB_OK ||
      (st = nb_params_validate (&p, &err)) != NB_OK)
    {
      rc = st == NB_ERR_USAGE || st == NB_ERR_INVALID ? 2 : 1;
      goto fail;
    }
  if (!float_given)
    {
      free (p.floatfile);
      p.floatfile = NULL;
    }
  if (p.fpixels != frame.fpixels || p.spixels != frame.spixels)
    {
      nb_error_set (&err, NB_ERR_USAGE,
                    "the flags make a %d x %d detector, the frame is %d x %d: leave the "
                    "detector size to the frame",
                    p.fpixels, p.spixels, frame.fpixels, frame.spixels);
      rc = 2;
      goto fail;
    }

  /* the strongest peaks in the resolution range */
  nb_peak_options_init (&popt);
  popt.max_peaks = 20 * o.n_peaks;
  if (nb_find_peaks (&frame, &popt, &peaks, &n_all, &err) != NB_OK)
    goto fail;
  n = nb_peaks_in_resolution (&p, peaks, n_all, o.d_min, o.d_max, &err);
  if (n < 0)
    goto fail;
  if (n > o.n_peaks)
    n = o.n_peaks;
  printf ("peaks: the %d strongest of %d found between %g and %g A\n", n, n_all, o.d_max, o.d_min);
  if (n < 3)
    {
      nb_error_set (&err, NB_ERR_INVALID, "%s: only %d peaks: nothing to match", o.frame, n);
      goto fail;
    }

  if (fit (&o, &p, peaks, n, &last, &err) != NB_OK)
    goto fail;

  {
    nb_match_options mo;

    nb_match_options_init (&mo);
    mo.radius = o.radius;
    if (nb_match_peaks (&p, peaks, n, &mo, &score, NULL, &err) != NB_OK)
      goto fail;
  }
  printf ("misset %.4f %.4f %.4f deg\n", p.misset[0] * RTD, p.misset[1] * RTD, p.misset[2] * RTD);
  if (o.refine_detector &&
      (p.convention == NB_CONVENTION_XDS || p.convention == NB_CONVENTION_DIALS))
    printf ("distance %.4f mm, beam centre -ORGX %.3f -ORGY %.3f pixels\n", p.distance * 1e3,
            p.ORGX, p.ORGY);
  else if (o.refine_detector)
    printf ("distance %.4f mm, beam centre -Xbeam %.4f -Ybeam %.4f mm\n", p.distance * 1e3,
            p.Xbeam * 1e3, p.Ybeam * 1e3);
  printf ("score: %d of %d peaks (%.1f%%) within %g pixels of a predicted reflection, rms "
          "%.2f pixels\n",
          score.n_matched, score.n_peaks, 100 * score.fraction, o.radius, score.rms_distance);
  {
    int argc_out = 0;
    char **out = nb_params_to_argv (&p, &argc_out);

    if (out != NULL)
      {
        printf ("command line:");
        for (int i = 0; i < argc_out; i++)
          printf (" %s", out[i]);
        printf ("\n");
        nb_argv_free (out);
      }
  }

  if (o.simulate && simulate (&p, &frame, &err) != NB_OK)
    goto fail;
  if (o.overlay != NULL && write_overlay (&o, &frame, &p, peaks, n, &err) != NB_OK)
    goto fail;
  rc = 0;
  goto out;

fail:
  fprintf (stderr, "nanobragg-match: %s\n",
           err.message[0] ? err.message : nb_status_name (err.code));
out:
  free (report);
  free (peaks);
  free (flags);
  nb_params_clear (&p);
  nb_frame_clear (&frame);
  return rc;
}
