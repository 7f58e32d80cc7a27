/* panels.c: a detector of several panels (-detector FILE) in one plan.
 *
 * Each panel is the detector nanoBragg's CUSTOM convention describes: its
 * fdet, sdet, odet = +-fdet x sdet (the sign that points away from the
 * sample), pix0 (-pix0_vector) and pixel counts, with
 * the other detector parameters (rotations, two-theta, -roi, the sensor, the
 * sampling) as given.  The detector-dependent stages (nb_detector_setup,
 * nb_sampling_setup's sensor layers, nb_detector_orient, the oversampling
 * and the step count) run once per panel with those parameters in place, by
 * the same code as a one-panel plan, so each panel's block of the image is
 * the image of that one-panel run, bit for bit; the crystal, the sources,
 * the orientations and the structure factors are built once.
 */
#include "model/nb-model.h"
#include "base/nb-memory.h"
#include "nb-panels.h"
#include "nb-param.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* @v as a unit vector whose magnitude is exactly 1.0 in double, so that
 * nb_detector_setup() keeps it rather than generating fdet x sdet (which
 * points the wrong way for a mirrored panel): the largest component is
 * moved an ulp at a time until it is. */
static void
unit_exactly (double v[3])
{
  int big = 0;

  nb_unitize (v, v);
  for (int k = 1; k < 3; k++)
    if (fabs (v[k]) > fabs (v[big]))
      big = k;
  for (int i = 0; i < 64; i++)
    {
      double m = nb_magnitude (v);

      if (m == 1.0)
        return;
      v[big] = nextafter (v[big], (m > 1.0) == (v[big] > 0.0) ? 0.0 : 2.0 * v[big]);
    }
}

/* @user's parameters with panel @i of @m in place of the detector. */
static void
panel_params (const nb_params *user, const nb_detector_model *m, int i, nb_params *out)
{
  const nb_panel *pn = &m->panels[i];

  *out = *user; /* the strings are @user's: never freed through @out */
  out->convention = NB_CONVENTION_CUSTOM;
  memcpy (out->fdet, pn->fdet, sizeof out->fdet);
  memcpy (out->sdet, pn->sdet, sizeof out->sdet);
  /* the normal away from the sample: a panel whose data are read mirrored
   * (CrystFEL fs = -y, ss = -x) has fdet x sdet towards it */
  nb_cross (pn->fdet, pn->sdet, out->odet);
  if (nb_dot (out->odet, pn->pix0) < 0.0)
    for (int k = 0; k < 3; k++)
      out->odet[k] = -out->odet[k];
  unit_exactly (out->odet);
  memcpy (out->pix0, pn->pix0, sizeof out->pix0);
  memcpy (out->beam, m->beam, sizeof out->beam);
  out->fpixels = pn->fpixels;
  out->spixels = pn->spixels;
  out->pixel_size = pn->pixel_size;
  if (pn->thick > 0.0)
    out->detector_thick = pn->thick;
  if (pn->mu > 0.0)
    out->detector_mu = pn->mu;
}

/* The -detector file, read when its name changed; the panels' bookkeeping. */
nb_status
nb_panels_read_model (nb_plan *plan, nb_error *err)
{
  const char *path = plan->params.detector_file;
  double motion[6];
  nb_detector_model m;
  nb_plan_panel *panels;
  nb_status st;

  if (path == NULL)
    {
      nb_panels_release (plan);
      return NB_OK;
    }
  memcpy (motion, plan->params.detector_shift, sizeof plan->params.detector_shift);
  memcpy (motion + 3, plan->params.detector_rotation, sizeof plan->params.detector_rotation);
  if (plan->detector_path != NULL && strcmp (plan->detector_path, path) == 0 &&
      memcmp (plan->detector_motion, motion, sizeof motion) == 0)
    return NB_OK;
  if ((st = nb_detector_model_read (path, &m, err)) != NB_OK)
    return st;
  nb_detector_model_move (&m, motion, motion + 3);
  for (int i = 0; i < m.n_panels; i++)
    if (m.panels[i].pix0[0] == 0.0 && m.panels[i].pix0[1] == 0.0 && m.panels[i].pix0[2] == 0.0)
      {
        nb_error_set (err, NB_ERR_INVALID, "-detector %s: panel %s has its corner at the sample",
                      path, m.panels[i].name);
        nb_detector_model_clear (&m);
        return NB_ERR_INVALID;
      }
  if ((panels = calloc ((size_t) m.n_panels, sizeof *panels)) == NULL ||
      (path = strdup (path)) == NULL)
    {
      free (panels);
      nb_detector_model_clear (&m);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the detector's panels");
    }
  nb_detector_model_clear (&plan->detector);
  free (plan->detector_path);
  free (plan->panels);
  plan->detector = m;
  plan->detector_path = (char *) path;
  memcpy (plan->detector_motion, motion, sizeof motion);
  plan->panels = panels;
  plan->n_panels = m.n_panels;
  for (int i = 0; i < m.n_panels; i++)
    panels[i].offset = nb_detector_model_panel_offset (&m, i);
  return NB_OK;
}

nb_status
nb_panels_each (nb_plan *plan, nb_panel_fn fn, void *data, nb_error *err)
{
  nb_params user;
  const int quiet = plan->log.quiet;
  nb_status st = NB_OK;

  if (plan->n_panels == 0)
    return fn (plan, data, err);
  user = plan->params;
  for (int i = 0; i < plan->n_panels && st == NB_OK; i++)
    {
      panel_params (&user, &plan->detector, i, &plan->params);
      plan->det = plan->panels[i].det;
      plan->steps = plan->panels[i].steps;
      plan->log.quiet = quiet || i > 0; /* the log describes panel 0 */
      st = fn (plan, data, err);
      plan->panels[i].det = plan->det;
      plan->panels[i].steps = plan->steps;
      if (st != NB_OK && err != NULL)
        {
          char message[sizeof err->message];

          snprintf (message, sizeof message, "-detector panel %s: %.400s",
                    plan->detector.panels[i].name, err->message);
          memcpy (err->message, message, sizeof message);
        }
    }
  plan->params = user;
  plan->log.quiet = quiet;
  plan->det = plan->panels[0].det;
  plan->steps = plan->panels[0].steps;
  return st;
}

size_t
nb_plan_pixels (const nb_plan *plan)
{
  if (plan->n_panels == 0)
    return (size_t) plan->det.fpixels * (size_t) plan->det.spixels;
  return plan->panels[plan->n_panels - 1].offset +
         (size_t) plan->panels[plan->n_panels - 1].det.fpixels *
             (size_t) plan->panels[plan->n_panels - 1].det.spixels;
}

int
nb_panels_max_spixels (const nb_plan *plan)
{
  int most = plan->det.spixels;

  for (int i = 0; i < plan->n_panels; i++)
    if (plan->panels[i].det.spixels > most)
      most = plan->panels[i].det.spixels;
  return most;
}

/* The panels' masks (bad regions: non-zero in the model) as the plan's
 * (non-zero keeps), in image layout; NULL where no panel has one. */
nb_status
nb_panels_load_masks (nb_plan *plan, nb_error *err)
{
  size_t n = nb_plan_pixels (plan);
  int any = 0;

  free (plan->panel_mask);
  plan->panel_mask = NULL;
  for (int i = 0; i < plan->n_panels; i++)
    any |= plan->detector.panels[i].mask != NULL;
  if (!any)
    return NB_OK;
  if ((plan->panel_mask = nb_alloc_large (n * sizeof (uint16_t))) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the panels' masks");
  for (int i = 0; i < plan->n_panels; i++)
    {
      const nb_panel *pn = &plan->detector.panels[i];
      uint16_t *out = plan->panel_mask + plan->panels[i].offset;
      size_t count = (size_t) pn->fpixels * (size_t) pn->spixels;

      for (size_t k = 0; k < count; k++)
        out[k] = pn->mask == NULL || pn->mask[k] == 0;
    }
  return NB_OK;
}

/* The flags whose values the file replaces, those given in @p, into @out
 * (named through the parameter table). */
static void
replaced_flags (const nb_params *p, char *out, size_t n)
{
  nb_params d;

  nb_params_init (&d);
  const struct
  {
    size_t field;
    int given;
  } * f, fields[] = {
    { offsetof (nb_params, pixel_size), p->pixel_size != d.pixel_size },
    { offsetof (nb_params, fpixels), p->fpixels != d.fpixels || p->spixels != d.spixels },
    { offsetof (nb_params, detsize_f), p->detsize_f != d.detsize_f || p->detsize_s != d.detsize_s },
    { offsetof (nb_params, distance), p->distance != d.distance },
    { offsetof (nb_params, close_distance), !isnan (p->close_distance) },
    { offsetof (nb_params, Xbeam), !isnan (p->Xbeam) || !isnan (p->Ybeam) },
    { offsetof (nb_params, ORGX), !isnan (p->ORGX) || !isnan (p->ORGY) },
    { offsetof (nb_params, Xclose), !isnan (p->Xclose) || !isnan (p->Yclose) },
    { offsetof (nb_params, fdet), memcmp (p->fdet, d.fdet, sizeof d.fdet) != 0 },
    { offsetof (nb_params, sdet), memcmp (p->sdet, d.sdet, sizeof d.sdet) != 0 },
    { offsetof (nb_params, odet), memcmp (p->odet, d.odet, sizeof d.odet) != 0 },
    { offsetof (nb_params, beam), memcmp (p->beam, d.beam, sizeof d.beam) != 0 },
    { offsetof (nb_params, pix0), p->pix0[0] != 0.0 || p->pix0[1] != 0.0 || p->pix0[2] != 0.0 },
  };

  out[0] = '\0';
  for (f = fields; f < fields + sizeof fields / sizeof fields[0]; f++)
    {
      const nb_param *row = f->given ? nb_param_find_field (f->field) : NULL;

      if (row != NULL && row->flag != NULL && strlen (out) + strlen (row->flag) + 2 < n)
        strcat (strcat (out, " "), row->flag);
    }
  nb_params_clear (&d);
}

void
nb_panels_log (nb_plan *plan)
{
  nb_log *log = &plan->log;
  int shown = plan->n_panels < 4 ? plan->n_panels : 4;

  if (plan->n_panels == 0)
    return;
  nb_log_printf (log, "  detector %s: %d panel%s (", plan->detector_path, plan->n_panels,
                 plan->n_panels == 1 ? "" : "s");
  for (int i = 0; i < shown; i++)
    nb_log_printf (log, "%s%s %dx%d", i ? ", " : "", plan->detector.panels[i].name,
                   plan->panels[i].det.fpixels, plan->panels[i].det.spixels);
  nb_log_printf (log,
                 "%s), rendered one after another: %zu pixels; the geometry above is "
                 "panel %s's\n",
                 plan->n_panels > shown ? ", ..." : "", nb_plan_pixels (plan),
                 plan->detector.panels[0].name);
  if (plan->detector.note[0] != '\0')
    nb_log_printf (log, "  %s\n", plan->detector.note);
  {
    char given[160];

    replaced_flags (&plan->params, given, sizeof given);
    if (given[0] != '\0')
      nb_log_printf (log, "WARNING: -detector %s places the panels; not used:%s\n",
                     plan->detector_path, given);
  }
}

void
nb_panels_release (nb_plan *plan)
{
  nb_detector_model_clear (&plan->detector);
  free (plan->detector_path);
  free (plan->panels);
  free (plan->panel_mask);
  plan->detector_path = NULL;
  plan->panels = NULL;
  plan->panel_mask = NULL;
  plan->n_panels = 0;
}

/* The image's shape as nb_plan_info reports it (nanobragg.h). */
void
nb_panels_image_shape (const nb_plan *plan, int *fpixels, int *spixels)
{
  size_t rows = 0;

  if (plan->n_panels == 0)
    return;
  for (int i = 0; i < plan->n_panels; i++)
    {
      if (plan->panels[i].det.fpixels != plan->panels[0].det.fpixels)
        {
          *fpixels = (int) nb_plan_pixels (plan);
          *spixels = 1;
          return;
        }
      rows += (size_t) plan->panels[i].det.spixels;
    }
  *fpixels = plan->panels[0].det.fpixels;
  *spixels = (int) rows;
}

const nb_detector_model *
nb_plan_get_detector_model (const nb_plan *plan)
{
  return plan->n_panels > 0 ? &plan->detector : NULL;
}

nb_status
nb_plan_get_panel_params (const nb_plan *plan, int panel, nb_params *out, nb_error *err)
{
  nb_params one;

  if (plan->n_panels == 0 || panel < 0 || panel >= plan->n_panels)
    return nb_error_set (err, NB_ERR_INVALID, "panel %d of a detector of %d panels", panel,
                         plan->n_panels > 0 ? plan->n_panels : 1);
  panel_params (&plan->params, &plan->detector, panel, &one);
  one.detector_file = NULL; /* not copied: the panel is in place of the file's detector */
  memset (one.detector_shift, 0, sizeof one.detector_shift);
  memset (one.detector_rotation, 0, sizeof one.detector_rotation);
  return nb_params_copy (out, &one, err);
}
