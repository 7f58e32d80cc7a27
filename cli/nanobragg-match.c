/* nanobragg-match: a measured frame against the simulation.
 *
 * Reads a detector frame (SMV, CBF, NeXus), takes its header's geometry,
 * applies nanoBragg flags on top (the crystal's -cell, -N, -mosaic; any
 * geometry the header got wrong), finds the frame's strongest peaks, searches
 * all orientations of the cell for the one that predicts them (or refines the
 * -misset given), and prints the misset, the match score beside what chance
 * gives for the same predictions and its significance (a result no better
 * than chance is no orientation: exit status 3) and, with --simulate, the
 * correlation of a full simulation with the frame in resolution shells.
 * --json prints the result as one JSON object.  --overlay writes a PNG of the
 * frame in grey with the predicted spots as circles (a multi-panel frame as
 * its file holds the panels, each spot where its panel's pixel lies).  A header whose detector
 * one flat panel cannot represent is refused (--flat-detector with -distance
 * goes on).
 */
#include "nanobragg.h"
#include "nb-detector.h"
#include "nb-frame.h"
#include "nb-io.h"
#include "nb-match.h"
#include "nb-param.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
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
    "predicted reflection, beside the fraction chance gives (the share of the frame's\n"
    "unmasked area within the peaks' resolution range that lies within --radius of a\n"
    "predicted reflection) and the binomial p-value of the count against it.  It is called\n"
    "a match only when p times the orientations the fit chose among (the search: all of\n"
    "them; a refinement: those within 3 deg; each told apart at --radius) is below\n"
    "--alpha; otherwise the result is no better than chance and no orientation is reported.\n"
    "A header whose detector one flat panel cannot represent (a Pilatus 12M, several CBF\n"
    "elements or NXmx modules, a distance too short for the array) is refused, unless the\n"
    "flags give the detector's panels (-detector FILE: CrystFEL .geom, DIALS .expt, NXmx)\n"
    "or the frame is NXmx with its own modules: then each panel's pixels are cut from the\n"
    "frame at their data origins (min_fs/min_ss, data_origin), searched for peaks panel by\n"
    "panel, matched on their own panel, and chance counted over every panel's unmasked\n"
    "pixels; the matched peaks of each panel are listed by its name.\n"
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
    "\t--refine-detector\talso refine the distance and the beam centre (several\n"
    "\t\t\t\tpanels: the whole detector's shift and turn, printed as\n"
    "\t\t\t\t-detector_shift and -detector_rotation; the -detector file\n"
    "\t\t\t\tis not changed)\n"
    "\t--simulate\t\trender the simulation of the result (the flags' -hkl or\n"
    "\t\t\t\t-default_F) and print its correlation with the frame in\n"
    "\t\t\t\tresolution shells (every panel's pixels at their own\n"
    "\t\t\t\tresolution); -floatfile FILE writes it\n"
    "\t--overlay FILE.png\tthe frame in grey (masked pixels blue), predicted spots\n"
    "\t\t\t\tas red circles, the peaks as green marks (several panels:\n"
    "\t\t\t\tthe frame's pixels as its file holds them, pixels of no\n"
    "\t\t\t\tpanel blue)\n"
    "\t--overlay-bin B\t\tB x B pixels per overlay pixel (default: to fit 1600)\n"
    "\t--overlay-crop F0 S0 W H\tonly this part of the frame\n"
    "\t--threads N\t\tOpenMP threads (default: all)\n"
    "\t--alpha A\t\tsignificance level of a match (default 0.001)\n"
    "\t--json\t\t\tprint one JSON object on stdout (the report goes to stderr):\n"
    "\t\t\t\tframe, peaks, matched, fraction, chance_fraction, p_value,\n"
    "\t\t\t\tlog10_p_value, trials, alpha, significant, rms_px, misset_deg,\n"
    "\t\t\t\tdistance_mm, beam_centre_px, beam_centre_mm, d_max, d_min,\n"
    "\t\t\t\tpredicted, search, seconds\n"
    "\t--flat-detector\t\tmatch a frame whose detector is refused as one flat panel\n"
    "\t\t\t\tanyway, with the distance the flags give (-distance needed)\n"
    "\n"
    "Exit status: 0 a match, 1 failure (files, a refused detector, no peaks, no candidate\n"
    "orientation), 2 bad command line, 3 no match: the best result is no better than chance.\n";

typedef struct
{
  const char *frame;
  int frame_index;
  int n_peaks;
  double d_min, d_max, radius, step;
  int candidates, search, refine_detector, simulate, threads;
  const char *overlay;
  int bin, crop[4];
  double alpha;
  int json, flat_detector;
} options;

/* The result of a fit, for the report. */
typedef struct
{
  nb_match_result score;
  int n_found;      /* peaks found before the resolution limits */
  double seconds;   /* wall time of the search or refinement */
  long grid_points; /* the search's */
  int informative, grid_best;
} outcome;

/* The report's stream: stdout, or stderr with --json (stdout has the object). */
static FILE *out;

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
      else if (strcmp (a, "--alpha") == 0)
        {
          NUM (1e-300, 0.5);
          o->alpha = v;
        }
      else if (strcmp (a, "--json") == 0)
        o->json = 1;
      else if (strcmp (a, "--flat-detector") == 0)
        o->flat_detector = 1;
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

/* Where a multi-panel detector's panels lie in the frame's pixel array
 * (nb_detector_frame_layout()), and which of the array's pixels no panel
 * measures (outside every panel, or masked by its panel: @dead, 1 byte per
 * frame pixel).  One panel: all NULL. */
typedef struct
{
  size_t *base;
  int *stride;
  uint8_t *dead;
} frame_panels;

static void
frame_panels_clear (frame_panels *fp)
{
  free (fp->base);
  free (fp->stride);
  free (fp->dead);
}

static nb_status
frame_panels_init (frame_panels *fp,
                   const nb_detector_model *detector,
                   const nb_frame *frame,
                   nb_error *err)
{
  size_t total = (size_t) frame->fpixels * (size_t) frame->spixels;
  nb_status st;

  memset (fp, 0, sizeof *fp);
  if (detector->n_panels < 1)
    return NB_OK;
  fp->base = malloc ((size_t) detector->n_panels * sizeof *fp->base);
  fp->stride = malloc ((size_t) detector->n_panels * sizeof *fp->stride);
  fp->dead = malloc (total);
  if (fp->base == NULL || fp->stride == NULL || fp->dead == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the overlay");
  if ((st = nb_detector_frame_layout (detector, frame, fp->base, fp->stride, err)) != NB_OK)
    return st;
  memset (fp->dead, 1, total);
  for (int p = 0; p < detector->n_panels; p++)
    {
      const nb_panel *pan = &detector->panels[p];

      for (int s = 0; s < pan->spixels; s++)
        for (int f = 0; f < pan->fpixels; f++)
          fp->dead[fp->base[p] + (size_t) s * fp->stride[p] + f] =
              pan->mask != NULL && pan->mask[(size_t) s * pan->fpixels + f] != 0;
    }
  return NB_OK;
}

/* Where point (@f, @s) of panel @panel (its pixels) lies in the frame's
 * pixels (*@x, *@y): FALSE for a point on no panel (@panel -1). */
static int
frame_point (const frame_panels *fp,
             const nb_frame *frame,
             int panel,
             double f,
             double s,
             double *x,
             double *y)
{
  double fl = floor (f), sl = floor (s);
  size_t i;

  if (fp->base == NULL)
    {
      *x = f;
      *y = s;
      return 1;
    }
  if (panel < 0 || !isfinite (f) || !isfinite (s) || fl < 0 || sl < 0)
    return 0;
  i = fp->base[panel] + (size_t) sl * fp->stride[panel] + (size_t) fl;
  *x = (double) (i % (size_t) frame->fpixels) + (f - fl);
  *y = (double) (i / (size_t) frame->fpixels) + (s - sl);
  return 1;
}

/* The overlay: the frame's pixel array as the file holds it (a multi-panel
 * frame's panels at their data origins, or one after another), each
 * panel's predictions and peaks drawn where its pixels lie in it. */
static int
write_overlay (const options *o,
               const nb_frame *frame,
               const nb_params *p,
               const nb_detector_model *detector,
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
  frame_panels fp;

  if (f0 + fw > frame->fpixels)
    fw = frame->fpixels - f0;
  if (s0 + sh > frame->spixels)
    sh = frame->spixels - s0;
  if (fw < 1 || sh < 1)
    return nb_error_set (err, NB_ERR_INVALID, "--overlay-crop lies outside the %d x %d frame",
                         frame->fpixels, frame->spixels);
  if ((st = frame_panels_init (&fp, detector, frame, err)) != NB_OK)
    {
      frame_panels_clear (&fp);
      return st;
    }
  c.bin = o->bin > 0 ? o->bin : (int) ceil (fmax (fw, sh) / 1600.0);
  c.f0 = f0;
  c.s0 = s0;
  c.w = (fw + c.bin - 1) / c.bin;
  c.h = (sh + c.bin - 1) / c.bin;
  c.rgb = malloc ((size_t) c.w * c.h * 3);
  if (c.rgb == NULL)
    {
      frame_panels_clear (&fp);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the overlay");
    }

  /* the grey scale saturates at the 99.95th percentile of the valid counts (at least 5): a
   * weak frame's spots stand out, a strong one's are not all white */
  {
    long hist[1025] = { 0 }, total = 0, seen = 0;

    for (int s = s0; s < s0 + sh; s++)
      for (int f = f0; f < f0 + fw; f++)
        {
          size_t i = (size_t) s * frame->fpixels + f;

          if (frame->mask[i] == NB_PIXEL_MASKED || (fp.dead != NULL && fp.dead[i]))
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
              if (frame->mask[i] == NB_PIXEL_MASKED || (fp.dead != NULL && fp.dead[i]))
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
      frame_panels_clear (&fp);
      return st;
    }
  for (size_t i = 0; i < n_refl; i++)
    {
      double x, y;

      if (frame_point (&fp, frame, refl[i].panel, refl[i].f, refl[i].s, &x, &y))
        circle (&c, x, y, o->radius, red);
    }
  for (int i = 0; i < n_peaks; i++)
    {
      double x, y;

      if (!frame_point (&fp, frame, peaks[i].panel, peaks[i].f, peaks[i].s, &x, &y))
        continue;
      for (int d = -2 * c.bin; d <= 2 * c.bin; d++)
        {
          plot (&c, x + d, y, green);
          plot (&c, x, y + d, green);
        }
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
  fprintf (out,
           "overlay: %s, %d x %d pixels (%d x %d frame pixels each), %zu predicted reflections\n",
           o->overlay, c.w, c.h, c.bin, c.bin, n_refl);
  free (refl);
  free (c.rgb);
  frame_panels_clear (&fp);
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
    st = nb_plan_shell_correlation (plan, image, frame, 10, &shells, err);
  if (st == NB_OK)
    {
      fprintf (out, "correlation of the simulation with the frame: %.4f over all valid pixels\n",
               shells.cc);
      fprintf (out, "  d_max (A)  d_min (A)    pixels        CC\n");
      for (int j = 0; j < shells.n_shells; j++)
        fprintf (out, "  %9.2f  %9.2f  %8ld  %8.4f\n", shells.shell_d_max[j], shells.shell_d_min[j],
                 shells.shell_pixels[j], shells.shell_cc[j]);
    }
  if (st == NB_OK && p->floatfile != NULL)
    {
      st = nb_write_float_image (p->floatfile, image, in->fpixels, in->spixels, err);
      if (st == NB_OK)
        fprintf (out, "simulated image: %s (%d x %d floats)\n", p->floatfile, in->fpixels,
                 in->spixels);
    }
  free (image);
  nb_plan_destroy (plan);
  return st;
}

static double
seconds_now (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The orientation search (--search) or the refinement of @p against @peaks
 * (@n) found on @frame, its score (against chance, corrected for the
 * orientations the fit chose among) and time in @r. */
/* The whole-detector motion the refinement left in @p, as the flags that
 * reproduce it (named by the parameter table). */
static void
print_detector_motion (const nb_params *p)
{
  const nb_param *shift = nb_param_find_field (offsetof (nb_params, detector_shift));
  const nb_param *turn = nb_param_find_field (offsetof (nb_params, detector_rotation));

  fprintf (out,
           "detector: the panels of %s moved as one body: %s %.4f %.4f %.4f (mm) %s %.5f %.5f "
           "%.5f (deg, a rotation vector about the sample) reproduce it; the file is unchanged\n",
           p->detector_file, shift->flag, p->detector_shift[0] * 1e3, p->detector_shift[1] * 1e3,
           p->detector_shift[2] * 1e3, turn->flag, p->detector_rotation[0] * RTD,
           p->detector_rotation[1] * RTD, p->detector_rotation[2] * RTD);
}

static nb_status
fit (const options *o,
     nb_params *p,
     const nb_frame *frame,
     const nb_peak *peaks,
     int n,
     int *last,
     outcome *r,
     nb_error *err)
{
  double t0 = seconds_now ();
  clock_t c0 = clock ();
  nb_refine_options ro;

  nb_refine_options_init (&ro);
  ro.match.radius = o->radius;
  ro.match.alpha = o->alpha;
  ro.match.frame = frame;
  ro.refine_distance = ro.refine_beam = o->refine_detector;
  /* a -detector model moves and turns as one body (nb_refine_result holds the motion) */
  ro.refine_detector_rotation = o->refine_detector && p->detector_file != NULL;
  ro.progress = progress;
  ro.user = last;
  if (o->search)
    {
      nb_search_options so;
      nb_search_result sr;

      nb_search_options_init (&so);
      so.step = o->step / RTD;
      so.candidates = o->candidates;
      so.threads = o->threads;
      so.refine = ro;
      if (nb_orientation_search (p, peaks, n, &so, &sr, err) != NB_OK)
        return err->code;
      r->score = sr.score;
      r->grid_points = sr.grid_points;
      r->informative = sr.informative;
      r->grid_best = sr.grid_best;
      r->seconds = seconds_now () - t0;
      fprintf (out,
               "orientation search: %ld grid orientations, %d of %d peaks sharp enough for "
               "the grid; best candidate matched %d in reciprocal space; %.1f s search, %.1f "
               "s refinement, %.1f s in all (%.1f s processor time)\n",
               sr.grid_points, sr.informative, n, sr.grid_best, sr.grid_seconds, sr.refine_seconds,
               r->seconds, (double) (clock () - c0) / CLOCKS_PER_SEC);
    }
  else
    {
      nb_refine_result rr;

      if (nb_refine (p, peaks, n, &ro, &rr, err) != NB_OK)
        return err->code;
      r->score = rr.score;
      r->seconds = seconds_now () - t0;
      fprintf (out, "refinement: %d evaluations, the orientation turned %.4f deg, %.1f s\n",
               rr.evaluations, rr.rotation * RTD, r->seconds);
    }
  if (ro.refine_detector_rotation)
    print_detector_motion (p);
  return NB_OK;
}

/* The score against chance, and the verdict, in words. */
static void
print_score (const options *o, const nb_match_result *s)
{
  fprintf (out,
           "score: %d of %d peaks (%.1f%%) within %g pixels of a predicted reflection, rms %.2f "
           "pixels\n",
           s->n_matched, s->n_peaks, 100 * s->fraction, o->radius, s->rms_distance);
  fprintf (out,
           "chance: %.1f%% of the area the peaks lie in (%ld unmasked pixels from %.2f to %.2f "
           "A) is within %g pixels of one of the %ld predicted reflections: %.1f of %d peaks "
           "would match by chance\n",
           100 * s->chance_fraction, s->chance_pixels, s->chance_d_max, s->chance_d_min, o->radius,
           s->n_predicted, s->chance_fraction * s->n_peaks, s->n_peaks);
  fprintf (out,
           "significance: p = %.3g (log10 %.2f) for %d or more of %d by chance; times %.3g "
           "orientations %s, %s %g: %s\n",
           s->p_value, s->log10_p, s->n_matched, s->n_peaks, s->trials,
           o->search ? "the search told apart" : "the refinement told apart",
           s->significant ? "below" : "not below", s->alpha,
           s->significant ? "a match" : "no better than chance");
}

/* A JSON number, or null when not finite. */
static void
json_number (const char *key, double v, const char *sep)
{
  if (isfinite (v))
    printf ("\"%s\": %.10g%s", key, v, sep);
  else
    printf ("\"%s\": null%s", key, sep);
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void
json_string (const char *key, const char *v, const char *sep)
{
  printf ("\"%s\": \"", key);
  for (const unsigned char *c = (const unsigned char *) v; *c != '\0'; c++)
    if (*c == '"' || *c == '\\')
      printf ("\\%c", *c);
    else if (*c < 0x20 || *c == 0x7f)
      printf ("\\u%04x", *c);
    else
      putchar (*c);
  printf ("\"%s", sep);
}

/* --json: the result as one object on stdout. */
static void
print_json (const options *o, const nb_params *p, const outcome *r)
{
  const nb_match_result *s = &r->score;
  double px = p->pixel_size;

  printf ("{");
  json_string ("frame", o->frame, ", ");
  printf ("\"peaks\": %d, \"peaks_found\": %d, \"matched\": %d, ", s->n_peaks, r->n_found,
          s->n_matched);
  json_number ("fraction", s->fraction, ", ");
  json_number ("chance_fraction", s->chance_fraction, ", ");
  json_number ("p_value", s->p_value, ", ");
  json_number ("log10_p_value", s->log10_p, ", ");
  json_number ("trials", s->trials, ", ");
  json_number ("alpha", s->alpha, ", ");
  printf ("\"significant\": %s, ", s->significant ? "true" : "false");
  json_number ("rms_px", s->n_matched > 0 ? s->rms_distance : NAN, ", ");
  printf ("\"misset_deg\": [%.10g, %.10g, %.10g], ", p->misset[0] * RTD, p->misset[1] * RTD,
          p->misset[2] * RTD);
  json_number ("distance_mm", s->distance * 1e3, ", ");
  printf ("\"beam_centre_px\": [%.10g, %.10g], ", s->beam_f / px, s->beam_s / px);
  printf ("\"beam_centre_mm\": [%.10g, %.10g], ", s->beam_f * 1e3, s->beam_s * 1e3);
  json_number ("d_max", s->chance_d_max, ", ");
  json_number ("d_min", s->chance_d_min, ", ");
  printf ("\"predicted\": %ld, \"search\": %s, ", s->n_predicted, o->search ? "true" : "false");
  if (o->search)
    printf ("\"grid_orientations\": %ld, ", r->grid_points);
  json_number ("seconds", r->seconds, "}\n");
}

/* The result: the orientation (and detector) when it is a match, the score,
 * the command line that simulates it. */
static void
print_result (const options *o, const nb_params *p, const outcome *r)
{
  const nb_match_result *s = &r->score;

  if (!s->significant)
    fprintf (out,
             "%s: the best orientation %s, misset %.4f %.4f %.4f deg, is no better "
             "than chance\n",
             o->search ? "no orientation found" : "no match",
             o->search ? "the search tried" : "refined", p->misset[0] * RTD, p->misset[1] * RTD,
             p->misset[2] * RTD);
  else
    fprintf (out, "misset %.4f %.4f %.4f deg\n", p->misset[0] * RTD, p->misset[1] * RTD,
             p->misset[2] * RTD);
  if (o->refine_detector)
    fprintf (out, "%sdistance %.4f mm, beam centre %.3f %.3f pixels (fast, slow)\n",
             s->significant ? "" : "(not a match) ", s->distance * 1e3, s->beam_f / p->pixel_size,
             s->beam_s / p->pixel_size);
  print_score (o, s);
  if (s->significant)
    {
      int argc_out = 0;
      char **argv_out = nb_params_to_argv (p, &argc_out);

      if (argv_out != NULL)
        {
          fprintf (out, "command line:");
          for (int i = 0; i < argc_out; i++)
            fprintf (out, " %s", argv_out[i]);
          fprintf (out, "\n");
          nb_argv_free (argv_out);
        }
    }
  if (o->json)
    print_json (o, p, r);
}

/* The frame's peaks: the strongest o->n_peaks within the resolution range, and their real
 * range printed.  Returns how many, -1 with @err set. */
static int
frame_peaks (const options *o,
             const nb_frame *frame,
             const nb_detector_model *detector,
             const nb_params *p,
             nb_peak **peaks,
             int *n_all,
             nb_error *err)
{
  nb_peak_options popt;
  double d_max, d_min;
  int n;

  nb_peak_options_init (&popt);
  popt.max_peaks = 20 * o->n_peaks;
  if (nb_find_panel_peaks (frame, detector->n_panels > 0 ? detector : NULL, &popt, peaks, n_all,
                           err) != NB_OK)
    return -1;
  n = nb_peaks_in_resolution (p, *peaks, *n_all, o->d_min, o->d_max, err);
  if (n < 0)
    return -1;
  if (n > o->n_peaks)
    n = o->n_peaks;
  if (n < 3)
    {
      nb_error_set (err, NB_ERR_INVALID, "%s: only %d peaks between %g and %g A: nothing to match",
                    o->frame, n, o->d_max > 0 ? o->d_max : INFINITY, o->d_min);
      return -1;
    }
  if (nb_peaks_resolution_range (p, *peaks, n, &d_max, &d_min, err) != NB_OK)
    return -1;
  fprintf (out,
           "peaks: the %d strongest of %d found, from %.2f to %.2f A (--d-max %g, --d-min "
           "%g)\n",
           n, *n_all, d_max, d_min, o->d_max, o->d_min);
  return n;
}

/* Whether @flags (@n) set the field at @offset (or at @offset2 when >= 0),
 * as the parameter table spells it. */
static int
gives_field (const char **flags, int n, size_t offset, long offset2)
{
  const nb_param *rows[2] = { nb_param_find_field (offset),
                              offset2 >= 0 ? nb_param_find_field ((size_t) offset2) : NULL };

  for (int i = 1; i < n; i++)
    for (int r = 0; r < 2; r++)
      if (rows[r] != NULL && nb_param_find (flags[i]) == rows[r])
        return 1;
  return 0;
}

/* Whether @flags (@n) give the detector distance (its own flag or the
 * distance to the detector's nearest point). */
static int
gives_distance (const char **flags, int n)
{
  return gives_field (flags, n, offsetof (nb_params, distance),
                      (long) offsetof (nb_params, close_distance));
}

/* The panels of a multi-panel detector: those of -detector FILE, or of the
 * frame's own NXmx modules (the frame then names its geometry file), into
 * @detector (empty for one panel); the report says so.  0, or 1 with @err
 * set. */
static int
read_panels (const char *frame_path,
             const nb_frame *frame,
             nb_params *p,
             nb_detector_model *detector,
             nb_error *err)
{
  nb_detector_model_init (detector);
  if (p->detector_file == NULL && frame->modules != NULL)
    {
      p->detector_file = strdup (frame_path);
      if (p->detector_file == NULL)
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory"), 1;
    }
  if (p->detector_file == NULL)
    return 0;
  if (nb_detector_model_read (p->detector_file, detector, err) != NB_OK)
    return 1;
  fprintf (out,
           "detector: %d panel%s from %s, matched panel by panel (the header's flat geometry "
           "is replaced)\n",
           detector->n_panels, detector->n_panels == 1 ? "" : "s", p->detector_file);
  return 0;
}

/* The matched peaks of each panel that has peaks, by the panel's name. */
static nb_status
print_panels (const options *o,
              const nb_params *p,
              const nb_detector_model *detector,
              const nb_peak *peaks,
              int n,
              nb_error *err)
{
  nb_match_options mo;
  nb_match_result res;
  nb_peak_match *detail;
  nb_status st;

  if (detector->n_panels < 2 || n < 1)
    return NB_OK;
  detail = calloc ((size_t) n, sizeof *detail);
  if (detail == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  nb_match_options_init (&mo);
  mo.radius = o->radius;
  if ((st = nb_match_peaks (p, peaks, n, &mo, &res, detail, err)) == NB_OK)
    {
      fprintf (out, "matched peaks by panel:");
      for (int k = 0; k < detector->n_panels; k++)
        {
          int found = 0, matched = 0;

          for (int i = 0; i < n; i++)
            if (peaks[i].panel == k)
              {
                found++;
                matched += detail[i].distance <= o->radius;
              }
          if (found > 0)
            fprintf (out, " %s %d/%d", detector->panels[k].name, matched, found);
        }
      fprintf (out, "\n");
    }
  free (detail);
  return st;
}

int
main (int argc, char **argv)
{
  options o = { NULL, 0, 50, 0, 100, 3, 1.5, 12, 1, 0, 0, 0, NULL, 0, { 0, 0, 0, 0 }, 1e-3, 0, 0 };
  const char **flags = calloc ((size_t) argc + 2, sizeof *flags);
  int n_flags, rc, n, last = -1, float_given = 0, multi;
  nb_frame frame;
  nb_params p;
  nb_detector_model detector;
  nb_error err;
  nb_peak *peaks = NULL;
  char *report = NULL;
  outcome result;
  nb_status st;

  out = stdout;
  memset (&result, 0, sizeof result);
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
  if (o.json)
    out = stderr;
  for (int i = 1; i < n_flags; i++)
    float_given |= strcmp (flags[i], "-floatfile") == 0;

  if (nb_frame_read (o.frame, o.frame_index, 0, &frame, &err) != NB_OK)
    {
      fprintf (stderr, "nanobragg-match: %s\n", err.message);
      free (flags);
      return 1;
    }
  nb_params_init (&p);
  nb_detector_model_init (&detector);
  rc = 1;
  /* a multi-panel detector: the panels replace the header's flat geometry (which may be
   * refused as one panel, an I23 Pilatus 12M's), its wavelength and exposure still count */
  multi = frame.modules != NULL ||
          gives_field (flags, n_flags, offsetof (nb_params, detector_file), -1);
  if (o.flat_detector && nb_frame_detector_problem (&frame, NULL, 0) &&
      !gives_distance (flags, n_flags))
    {
      nb_error_set (&err, NB_ERR_USAGE,
                    "%s: --flat-detector needs the distance from the flags (-distance MM): the "
                    "header's is the one at fault",
                    o.frame);
      rc = 2;
      goto fail;
    }
  if (nb_frame_apply_geometry_flags (&frame, &p,
                                     o.flat_detector || multi ? NB_FRAME_APPLY_AS_FLAT : 0, &report,
                                     &err) != NB_OK)
    {
      if (err.code == NB_ERR_UNSUPPORTED)
        fprintf (stderr,
                 "nanobragg-match: %s (--flat-detector with -distance matches it as one flat "
                 "panel anyway)\n",
                 err.message);
      else
        fprintf (stderr, "nanobragg-match: %s\n", err.message);
      goto out;
    }
  fputs (report, out);
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
  if (read_panels (o.frame, &frame, &p, &detector, &err) != 0)
    goto fail;
  if (o.flat_detector && !multi && nb_frame_detector_problem (&frame, NULL, 0))
    fprintf (out, "taken as one flat panel: distance %.10g mm from the flags\n", p.distance * 1e3);
  if (!multi && (p.fpixels != frame.fpixels || p.spixels != frame.spixels))
    {
      nb_error_set (&err, NB_ERR_USAGE,
                    "the flags make a %d x %d detector, the frame is %d x %d: leave the "
                    "detector size to the frame",
                    p.fpixels, p.spixels, frame.fpixels, frame.spixels);
      rc = 2;
      goto fail;
    }

  if ((n = frame_peaks (&o, &frame, &detector, &p, &peaks, &result.n_found, &err)) < 0)
    goto fail;
  if (fit (&o, &p, &frame, peaks, n, &last, &result, &err) != NB_OK)
    goto fail;
  print_result (&o, &p, &result);
  if (print_panels (&o, &p, &detector, peaks, n, &err) != NB_OK)
    goto fail;
  if (o.simulate && simulate (&p, &frame, &err) != NB_OK)
    goto fail;
  if (o.overlay != NULL && write_overlay (&o, &frame, &p, &detector, peaks, n, &err) != NB_OK)
    goto fail;
  rc = result.score.significant ? 0 : 3;
  goto out;

fail:
  fprintf (stderr, "nanobragg-match: %s\n",
           err.message[0] ? err.message : nb_status_name (err.code));
out:
  free (report);
  free (peaks);
  free (flags);
  nb_params_clear (&p);
  nb_detector_model_clear (&detector);
  nb_frame_clear (&frame);
  return rc;
}
