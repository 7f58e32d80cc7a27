/* geometry.c: detector conventions, beam centres, pivots, rotations and pix0.
 *
 * Source: nanoBragg.c main(), "fill in blanks", the convention block, vector
 * normalisation and the detector-origin block; physics.md §4 and §5.
 */
#include "nb-model.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

void
nb_rotate_xyz (const double v[3], double phix, double phiy, double phiz, double out[3])
{
  double x = v[0], y = v[1], z = v[2];

  if (phix != 0)
    {
      double c = cos (phix), s = sin (phix);
      double ny = y * c + z * (-s);
      double nz = y * s + z * c;
      y = ny;
      z = nz;
    }
  if (phiy != 0)
    {
      double c = cos (phiy), s = sin (phiy);
      double nx = x * c + y * 0 + z * s;
      double nz = x * (-s) + y * 0 + z * c;
      x = nx;
      z = nz;
    }
  if (phiz != 0)
    {
      double c = cos (phiz), s = sin (phiz);
      double nx = x * c + y * (-s);
      double ny = x * s + y * c;
      x = nx;
      y = ny;
    }
  out[0] = x;
  out[1] = y;
  out[2] = z;
}

static void
set3 (double v[3], double x, double y, double z)
{
  v[0] = x;
  v[1] = y;
  v[2] = z;
}

static const char *
convention_name (nb_convention c)
{
  switch (c)
    {
      case NB_CONVENTION_ADXV:
        return "adxv";
      case NB_CONVENTION_MOSFLM:
        return "mosflm";
      case NB_CONVENTION_XDS:
        return "xds";
      case NB_CONVENTION_DIALS:
        return "dials";
      case NB_CONVENTION_DENZO:
        return "denzo";
      case NB_CONVENTION_CUSTOM:
        return "custom";
    }
  return "custom";
}

/* Pixel counts, beam-centre defaults, the convention's vectors (which also
 * force the pivot, Q-1) and normalisation.  physics.md §4. */
/* The named convention's vectors, pivot and default beam centre, and the
 * beam spot and near point on the detector (Fbeam, Sbeam, Fclose, Sclose,
 * m) it gives; CUSTOM keeps the given vectors.  Source: nanoBragg.c main(),
 * the convention block (physics.md §5). */
static void
set_convention (nb_plan *plan, double *Fbeam, double *Sbeam, double *Fclose, double *Sclose)
{
  const nb_params *p = &plan->params;
  nb_detector *d = &plan->det;

  switch (p->convention)
    {
      case NB_CONVENTION_ADXV:
        if (isnan (d->Xbeam))
          d->Xbeam = (d->detsize_f + d->pixel_size) / 2.0;
        if (isnan (d->Ybeam))
          d->Ybeam = (d->detsize_s - d->pixel_size) / 2.0;
        set3 (d->beam, 0, 0, 1);
        set3 (d->fdet, 1, 0, 0);
        set3 (d->sdet, 0, -1, 0);
        set3 (d->odet, 0, 0, 1);
        set3 (d->twotheta_axis, -1, 0, 0);
        set3 (d->polar_vector, 1, 0, 0);
        set3 (d->spindle, 1, 0, 0);
        *Fbeam = d->Xbeam;
        *Sbeam = d->detsize_s - d->Ybeam;
        d->pivot = NB_PIVOT_BEAM;
        break;
      case NB_CONVENTION_MOSFLM:
      case NB_CONVENTION_DENZO:
        /* X is the slow coordinate and Y the fast one in these conventions */
        if (isnan (d->Xbeam))
          d->Xbeam = (d->detsize_s + d->pixel_size) / 2.0;
        if (isnan (d->Ybeam))
          d->Ybeam = (d->detsize_f + d->pixel_size) / 2.0;
        set3 (d->beam, 1, 0, 0);
        set3 (d->odet, 1, 0, 0);
        set3 (d->fdet, 0, 0, 1);
        set3 (d->sdet, 0, -1, 0);
        set3 (d->twotheta_axis, 0, 0, -1);
        set3 (d->polar_vector, 0, 0, 1);
        set3 (d->spindle, 0, 0, 1);
        if (p->convention == NB_CONVENTION_MOSFLM)
          {
            *Fbeam = d->Ybeam + 0.5 * d->pixel_size;
            *Sbeam = d->Xbeam + 0.5 * d->pixel_size;
          }
        else
          {
            *Fbeam = d->Ybeam + 0.0 * d->pixel_size;
            *Sbeam = d->Xbeam + 0.0 * d->pixel_size;
          }
        d->pivot = NB_PIVOT_BEAM;
        break;
      case NB_CONVENTION_XDS:
      case NB_CONVENTION_DIALS:
        if (isnan (d->Xbeam))
          d->Xbeam = d->Xclose;
        if (isnan (d->Ybeam))
          d->Ybeam = d->Yclose;
        set3 (d->beam, 0, 0, 1);
        set3 (d->fdet, 1, 0, 0);
        set3 (d->sdet, 0, 1, 0);
        set3 (d->odet, 0, 0, 1);
        if (p->convention == NB_CONVENTION_XDS)
          {
            set3 (d->twotheta_axis, 1, 0, 0);
            set3 (d->polar_vector, 1, 0, 0);
            set3 (d->spindle, 1, 0, 0);
          }
        else
          {
            set3 (d->twotheta_axis, 0, 1, 0);
            set3 (d->polar_vector, 0, 1, 0);
            set3 (d->spindle, 0, 1, 0);
          }
        *Fbeam = d->Xbeam;
        *Sbeam = d->Ybeam;
        d->pivot = NB_PIVOT_SAMPLE;
        break;
      case NB_CONVENTION_CUSTOM:
        if (isnan (d->Xbeam))
          d->Xbeam = d->Xclose;
        if (isnan (d->Ybeam))
          d->Ybeam = d->Yclose;
        *Fbeam = d->Xbeam;
        *Sbeam = d->Ybeam;
        *Fclose = d->Xbeam;
        *Sclose = d->Ybeam;
        break;
    }
}

nb_status
nb_detector_setup (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_detector *d = &plan->det;
  double Fclose = NAN, Sclose = NAN, Fbeam = NAN, Sbeam = NAN;

  memset (d, 0, sizeof *d);
  if (!(p->pixel_size > 0.0) || !isfinite (p->pixel_size))
    return nb_error_set (err, NB_ERR_INVALID, "-pixel: pixel size %g mm must be positive",
                         p->pixel_size * 1000.0);
  d->pixel_size = p->pixel_size;
  d->detsize_f = p->detsize_f;
  d->detsize_s = p->detsize_s;
  if (p->fpixels)
    d->detsize_f = p->pixel_size * p->fpixels;
  if (p->spixels)
    d->detsize_s = p->pixel_size * p->spixels;
  {
    double nf = ceil (d->detsize_f / d->pixel_size - 0.5);
    double ns = ceil (d->detsize_s / d->pixel_size - 0.5);
    if (!(nf >= 1) || !(ns >= 1))
      return nb_error_set (err, NB_ERR_INVALID,
                           "detector has no pixels (%g x %g): check -detpixels/-detsize/-pixel", nf,
                           ns);
    if (nf > 65536 || ns > 65536)
      return nb_error_set (err, NB_ERR_INVALID,
                           "detector of %g x %g pixels is larger than 65536 x 65536", nf, ns);
    d->fpixels = (int) nf;
    d->spixels = (int) ns;
  }

  d->Xbeam = p->Xbeam;
  d->Ybeam = p->Ybeam;
  d->Xclose = p->Xclose;
  d->Yclose = p->Yclose;
  if (!isnan (p->ORGX))
    Fclose = (p->ORGX - 0.5) * d->pixel_size;
  if (!isnan (p->ORGY))
    Sclose = (p->ORGY - 0.5) * d->pixel_size;
  if (isnan (Fclose))
    Fclose = (d->detsize_f - 0 * d->pixel_size) / 2.0;
  if (isnan (Sclose))
    Sclose = (d->detsize_s + 0 * d->pixel_size) / 2.0;
  if (isnan (d->Xclose))
    d->Xclose = Fclose;
  if (isnan (d->Yclose))
    d->Yclose = Sclose;
  Fbeam = Fclose;
  Sbeam = Sclose;

  d->roi_xmin = p->roi[0] < 0 ? 0 : p->roi[0];
  d->roi_xmax = p->roi[1] < 0 ? d->fpixels : p->roi[1];
  d->roi_ymin = p->roi[2] < 0 ? 0 : p->roi[2];
  d->roi_ymax = p->roi[3] < 0 ? d->spixels : p->roi[3];

  memcpy (d->beam, p->beam, sizeof d->beam);
  memcpy (d->fdet, p->fdet, sizeof d->fdet);
  memcpy (d->sdet, p->sdet, sizeof d->sdet);
  memcpy (d->odet, p->odet, sizeof d->odet);
  memcpy (d->twotheta_axis, p->twotheta_axis, sizeof d->twotheta_axis);
  memcpy (d->polar_vector, p->polar_vector, sizeof d->polar_vector);
  memcpy (d->spindle, p->spindle, sizeof d->spindle);
  d->convention = p->convention;
  d->pivot = p->pivot;

  set_convention (plan, &Fbeam, &Sbeam, &Fclose, &Sclose);
  d->Fbeam = Fbeam;
  d->Sbeam = Sbeam;
  d->Fclose = Fclose;
  d->Sclose = Sclose;

  nb_unitize (d->beam, d->beam);
  nb_unitize (d->fdet, d->fdet);
  nb_unitize (d->sdet, d->sdet);
  if (nb_magnitude (d->beam) == 0.0 || nb_magnitude (d->fdet) == 0.0 ||
      nb_magnitude (d->sdet) == 0.0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-beam_vector/-fdet_vector/-sdet_vector: a zero vector has no direction");
  if (nb_unitize (d->odet, d->odet) != 1.0)
    {
      nb_log_printf (&plan->log, "WARNING: auto-generating odet_vector\n");
      nb_cross (d->fdet, d->sdet, d->odet);
      nb_unitize (d->odet, d->odet);
    }
  nb_unitize (d->polar_vector, d->polar_vector);
  nb_unitize (d->spindle, d->spindle);
  nb_cross (d->beam, d->polar_vector, d->vert);
  nb_unitize (d->vert, d->vert);

  d->curved = p->curved_det;
  d->point_pixel = p->point_pixel;
  return NB_OK;
}

/* Pivot, rotations, pix0 and the derived centres.  physics.md §5. */
nb_status
nb_detector_orient (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_detector *d = &plan->det;
  double v[3], ratio, distance = p->distance, close_distance = p->close_distance;

  nb_log_printf (&plan->log, "%s convention selected.\n", convention_name (d->convention));

  nb_rotate_xyz (d->odet, p->rotx, p->roty, p->rotz, v);
  if (p->physical)
    nb_rotate_axis (v, d->twotheta_axis, p->twotheta, v); /* Q-2 corrected */
  ratio = nb_dot (d->beam, v);
  if (ratio == 0.0)
    ratio = DBL_MIN;
  if (isnan (close_distance))
    close_distance = fabs (ratio * distance);
  distance = close_distance / ratio;

  if (d->pivot == NB_PIVOT_SAMPLE)
    {
      nb_log_printf (&plan->log, "pivoting detector around sample\n");
      for (int k = 0; k < 3; k++)
        d->pix0[k] = -d->Fclose * d->fdet[k] - d->Sclose * d->sdet[k] + close_distance * d->odet[k];
      nb_rotate_xyz (d->pix0, p->rotx, p->roty, p->rotz, d->pix0);
      nb_rotate_axis (d->pix0, d->twotheta_axis, p->twotheta, d->pix0);
    }
  nb_rotate_xyz (d->fdet, p->rotx, p->roty, p->rotz, d->fdet);
  nb_rotate_xyz (d->sdet, p->rotx, p->roty, p->rotz, d->sdet);
  nb_rotate_xyz (d->odet, p->rotx, p->roty, p->rotz, d->odet);
  nb_rotate_axis (d->fdet, d->twotheta_axis, p->twotheta, d->fdet);
  nb_rotate_axis (d->sdet, d->twotheta_axis, p->twotheta, d->sdet);
  nb_rotate_axis (d->odet, d->twotheta_axis, p->twotheta, d->odet);
  if (d->pivot == NB_PIVOT_BEAM)
    {
      nb_log_printf (&plan->log, "pivoting detector around direct beam spot\n");
      for (int k = 0; k < 3; k++)
        d->pix0[k] = -d->Fbeam * d->fdet[k] - d->Sbeam * d->sdet[k] + distance * d->beam[k];
    }
  /* the reference parses -pix0_vector and overwrites it above; a given
   * (non-zero) one places the detector, turned with its axes */
  if (p->pix0[0] != 0.0 || p->pix0[1] != 0.0 || p->pix0[2] != 0.0)
    {
      nb_log_printf (&plan->log, "detector corner from -pix0_vector\n");
      nb_rotate_xyz (p->pix0, p->rotx, p->roty, p->rotz, d->pix0);
      nb_rotate_axis (d->pix0, d->twotheta_axis, p->twotheta, d->pix0);
    }

  d->Fclose = -nb_dot (d->pix0, d->fdet);
  d->Sclose = -nb_dot (d->pix0, d->sdet);
  close_distance = nb_dot (d->pix0, d->odet);
  for (int k = 0; k < 3; k++)
    v[k] = close_distance / ratio * d->beam[k] - d->pix0[k];
  d->Fbeam = nb_dot (d->fdet, v);
  d->Sbeam = nb_dot (d->sdet, v);
  distance = close_distance / ratio;
  d->ORGX = d->Fclose / d->pixel_size + 0.5;
  d->ORGY = d->Sclose / d->pixel_size + 0.5;
  d->dials_origin[0] = 1000.0 * (d->pix0[0] * 0 + d->pix0[1] * 0 + d->pix0[2] * 1);
  d->dials_origin[1] = 1000.0 * (d->pix0[0] * 0 + d->pix0[1] * 1 + d->pix0[2] * 0);
  d->dials_origin[2] = 1000.0 * (d->pix0[0] * -1 + d->pix0[1] * 0 + d->pix0[2] * 0);
  d->distance = distance;
  d->close_distance = close_distance;
  d->quirk_warning[0] = '\0';
  /* from 90 degrees on the detector ends up edge-on or behind the sample */
  if (!p->physical && p->twotheta != 0.0)
    snprintf (d->quirk_warning, sizeof d->quirk_warning,
              "two-theta %g deg: nanoBragg leaves the two-theta rotation out of the detector's "
              "distance ratio (quirk Q-2), reproduced: the distance comes out as %g mm instead "
              "of %g mm%s; -physical includes it\n",
              p->twotheta * 180.0 / M_PI, distance * 1000.0, p->distance * 1000.0,
              distance <= 1e-9 * fabs (p->distance)
                  ? ", the detector not in front of the sample (pixels of negative or no photons)"
                  : "");
  if (!isfinite (distance) || !isfinite (close_distance) || close_distance == 0.0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "detector geometry: distance %g mm / close distance %g mm is degenerate",
                         distance * 1000, close_distance * 1000);
  nb_log_printf (&plan->log, "XDS incident beam: %g %g %g\n", nb_dot (d->beam, d->fdet),
                 nb_dot (d->beam, d->sdet), nb_dot (d->beam, d->odet));
  return NB_OK;
}
