/* frame-detector.c: whether a frame's header describes a detector that one
 * flat panel can stand for.
 *
 * nb_params holds one flat rectangular panel.  Most detectors are one (a
 * Pilatus 6M's modules are coplanar: its gaps are masked pixels), but some
 * are not: Diamond I23's Pilatus 12M has 24 modules on a cylinder around the
 * sample, and its miniCBF header gives a 2463 x 5071 array and
 * 'Detector_distance 0.01000 m', which as a flat panel puts most pixels
 * beyond 80 deg two-theta.  Adopting such a header silently gives wrong
 * resolutions, wrong simulations and wrong fits; this inspects the header as
 * parsed (no reader changes but the element and module counts) and names the
 * line that says so.
 */
#include "formats/nb-frame-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define RTD (180.0 / M_PI)

/* The farthest a flat array may reach from the beam (two-theta): beyond it
 * a flat detector would take rays at grazing incidence; the distance is a
 * curved detector's radius or a placeholder. */
#define FLAT_TWOTHETA_MAX 80.0

/* Detector models known to be curved or made of separately placed panels,
 * as headers name them (case-insensitive, every word present). */
static const struct
{
  const char *words[3];
  const char *what;
} unflat_models[] = {
  { { "PILATUS", "12M", NULL }, "24 modules on a cylinder around the sample (Diamond I23)" },
  { { "CSPAD", NULL, NULL }, "64 separately placed tiles" },
  { { "CS-PAD", NULL, NULL }, "64 separately placed tiles" },
};

/* Whether @text holds every word of model @m (case-insensitive). */
static int
names_model (const char *text, size_t m)
{
  for (int w = 0; w < 3 && unflat_models[m].words[w] != NULL; w++)
    {
      const char *word = unflat_models[m].words[w];
      size_t len = strlen (word);
      int found = 0;

      for (const char *p = text; *p != '\0' && !found; p++)
        found = strncasecmp (p, word, len) == 0;
      if (!found)
        return 0;
    }
  return 1;
}

/* The miniCBF header line "# Detector: ..." of @header into @line (quoted,
 * printable); 0 when there is none. */
static int
detector_line (const char *header, char *line, size_t size)
{
  for (const char *p = header; p != NULL && *p != '\0';
       p = strchr (p, '\n'), p = p != NULL ? p + 1 : NULL)
    {
      const char *start = p + strspn (p, " \t"), *q;

      if (*start != '#')
        continue;
      q = start + 1 + strspn (start + 1, " \t");
      if (strncasecmp (q, "Detector:", 9) == 0)
        {
          nb_frame_quote (start, strcspn (start, "\r\n"), line, size);
          return 1;
        }
    }
  return 0;
}

/* The model named by @frame's header, with where it was said; 0 when none of
 * unflat_models. */
static int
unflat_model (const nb_frame *frame, char *why, size_t size)
{
  char line[NB_FRAME_SOURCE_MAX];
  const char *text = NULL, *where = NULL;

  if (frame->header != NULL && detector_line (frame->header, line, sizeof line))
    {
      text = line;
      where = "the miniCBF header line";
    }
  else if (frame->detector[0] != '\0')
    {
      text = frame->detector;
      where = frame->format == NB_FRAME_NEXUS ? "the NeXus detector description"
                                              : "the CBF detector type";
    }
  if (text == NULL)
    return 0;
  for (size_t m = 0; m < sizeof unflat_models / sizeof unflat_models[0]; m++)
    if (names_model (text, m))
      {
        snprintf (why, size,
                  "%s '%s' names a detector of %s, which one flat panel cannot represent: its "
                  "geometry is not adopted",
                  where, text, unflat_models[m].what);
        return 1;
      }
  return 0;
}

/* A distance at which the frame's array, flat, would reach beyond
 * FLAT_TWOTHETA_MAX from the beam. */
static int
impossible_distance (const nb_frame *frame, char *why, size_t size)
{
  const nb_frame_value *d = &frame->item[NB_FRAME_DISTANCE],
                       *px = &frame->item[NB_FRAME_PIXEL_SIZE];
  double w, h, bf, bs, reach, tt;

  if (!d->have || !px->have || !(d->value > 0) || !(px->value > 0))
    return 0;
  w = frame->fpixels * px->value;
  h = frame->spixels * px->value;
  if (frame->item[NB_FRAME_BEAM_F].have && frame->item[NB_FRAME_BEAM_S].have)
    {
      bf = frame->item[NB_FRAME_BEAM_F].value;
      bs = frame->item[NB_FRAME_BEAM_S].value;
    }
  else
    {
      bf = w / 2;
      bs = h / 2;
    }
  reach = hypot (fmax (fabs (bf), fabs (w - bf)), fmax (fabs (bs), fabs (h - bs)));
  tt = atan2 (reach, d->value) * RTD;
  if (!(tt > FLAT_TWOTHETA_MAX))
    return 0;
  snprintf (why, size,
            "the distance %.6g mm (%s) for a %.1f x %.1f mm array puts its far corner at "
            "two-theta %.1f deg: no flat detector of that size is so close (a curved or "
            "multi-panel detector?), so its geometry is not adopted",
            d->value * 1e3, d->source, w * 1e3, h * 1e3, tt);
  return 1;
}

int
nb_frame_detector_problem (const nb_frame *frame, char *why, size_t size)
{
  char scratch[8];

  if (why == NULL || size == 0)
    {
      why = scratch;
      size = sizeof scratch;
    }
  why[0] = '\0';
  if (frame == NULL)
    return 0;
  if (unflat_model (frame, why, size))
    return 1;
  if (frame->n_modules > 1)
    {
      snprintf (why, size,
                "%s describes a detector of %d %s, which one flat panel cannot represent: its "
                "geometry is not adopted",
                frame->format == NB_FRAME_NEXUS ? "the NeXus file's NXdetector"
                                                : "the CBF category diffrn_detector_element",
                frame->n_modules,
                frame->format == NB_FRAME_NEXUS ? "NXdetector_module groups" : "elements");
      return 1;
    }
  return impossible_distance (frame, why, size);
}
