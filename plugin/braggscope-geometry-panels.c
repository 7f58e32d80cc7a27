/* braggscope-geometry-panels.c: BraggscopeGeometry's panels: a multi-panel
 * detector (-detector, nb-detector.h) as the plan rendered it, queries per
 * panel, and the detector seen from the sample.
 *
 * A frame of several panels holds them one after another (panel p's pixel
 * (f, s) at offset_p + s * width_p + f), which is no picture of the
 * detector.  A projection is: each panel's points are carried along their
 * ray from the sample onto a picture about the beam, so the panels lie as
 * the sample sees them, their gaps open, and a cone of one scattering angle
 * (a resolution ring) is a circle about the beam, whatever each panel's
 * tilt.  Two pictures (BraggscopeProjection): the plane normal to the beam
 * at the panels' mean distance (gnomonic), where a flat detector looks as it
 * is; or, for panels curved round the sample to high angles, which that
 * plane stretches many-fold (1 / cos^3 two-theta in area) or cannot hold
 * past 90 degrees, the azimuthal equidistant picture (radius proportional to
 * two-theta, azimuth kept).  The projection's geometry answers a point of
 * the picture with the panel its ray meets (the same ray, so the same angles
 * and h k l as the panel's own query), and between panels with the ray's
 * answer on the plane (gnomonic) or on the plane of the panel it meets most
 * squarely (equal-angle).
 */
#include "braggscope-geometry.h"
#include "braggscope-private.h"

#include "nb-detector.h"

#include <math.h>
#include <string.h>

/* The most pixels a projection's picture holds: a plane wider than that
 * (panels far apart, or nearly edge-on) is drawn with larger pixels. */
#define PROJECTION_MAX_PIXELS (24u << 20)

/* A picture pixel between the panels (picture_map) */
#define PICTURE_NONE G_MAXUINT32

/* The equal-angle picture is chosen for panels reaching past this two-theta
 * (degrees)... At 60 degrees the gnomonic plane stretches a module facing
 * the sample 4-fold radially, 8-fold in area, and it cannot hold a ray at 90. */
#define EQUAL_ANGLE_FROM_DEG 60.0
/* ...whose areas on the gnomonic plane, relative to their own, differ by
 * more than this factor: a flat detector (CSPAD, Jungfrau, Eiger, whatever
 * its reach) is shown by that plane as it is, and keeps the gnomonic one. */
#define EQUAL_ANGLE_UNEVEN 2.0
/* Points traced along each panel edge for its bounds in an equal-angle
 * picture, whose edges are curves (1 for the plane: straight lines) */
#define EQUAL_ANGLE_EDGE_POINTS 32

static double
dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void
cross (const double a[3], const double b[3], double out[3])
{
  double c[3] = { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };

  memcpy (out, c, sizeof c);
}

static gboolean
unitize (double v[3])
{
  double m = sqrt (dot (v, v));

  if (!(m > 0.0) || !isfinite (m))
    return FALSE;
  for (int k = 0; k < 3; k++)
    v[k] /= m;
  return TRUE;
}

void
_braggscope_geometry_panels_free (BraggscopeGeometry *self)
{
  for (int p = 0; p < self->n_panels; p++)
    {
      g_free (self->panels[p].name);
      nb_geometry_unref (self->panels[p].geom);
    }
  g_clear_pointer (&self->panels, g_free);
  self->n_panels = 0;
  g_clear_pointer (&self->projection, braggscope_geometry_unref);
  g_clear_pointer (&self->picture_map, g_bytes_unref);
}

BraggscopeGeometry *
_braggscope_geometry_new_plan (nb_geometry *geom, nb_plan *plan)
{
  const nb_detector_model *model = nb_plan_get_detector_model (plan);
  const nb_plan_info *whole = nb_plan_get_info (plan);
  BraggscopeGeometry *self = _braggscope_geometry_new_take (geom, nb_plan_get_info (plan));
  gboolean same_width = TRUE;
  int row = 0;

  memcpy (self->beam, whole->beam, sizeof self->beam);
  if (!unitize (self->beam))
    self->beam[0] = 1.0, self->beam[1] = self->beam[2] = 0.0;
  if (model == NULL || model->n_panels < 1)
    return self;

  self->width = whole->fpixels;
  self->height = whole->spixels;
  self->panels = g_new0 (BraggscopeGeometryPanel, model->n_panels);
  self->n_panels = model->n_panels;
  for (int p = 0; p < model->n_panels; p++)
    same_width = same_width && model->panels[p].fpixels == model->panels[0].fpixels;
  for (int p = 0; p < model->n_panels; p++)
    {
      BraggscopeGeometryPanel *pn = &self->panels[p];
      nb_plan_info info;

      pn->name = g_strdup (model->panels[p].name);
      if (nb_plan_get_panel_info (plan, p, &info, NULL) != NB_OK)
        goto fail;
      pn->width = info.fpixels;
      pn->height = info.spixels;
      pn->offset = nb_detector_model_panel_offset (model, p);
      pn->row = same_width ? row : -1;
      row += pn->height;
      pn->pixel_size = info.pixel_size;
      memcpy (pn->pix0, info.pix0, sizeof pn->pix0);
      memcpy (pn->fdet, info.fdet, sizeof pn->fdet);
      memcpy (pn->sdet, info.sdet, sizeof pn->sdet);
      cross (pn->fdet, pn->sdet, pn->normal);
      pn->data_origin_f = model->panels[p].data_origin_f;
      pn->data_origin_s = model->panels[p].data_origin_s;
      pn->geom = nb_geometry_new_plane (geom, pn->width, pn->height, pn->pixel_size, pn->pix0,
                                        pn->fdet, pn->sdet);
      if (pn->geom == NULL || !unitize (pn->normal))
        goto fail;
    }
  return self;

fail:
  braggscope_geometry_unref (self);
  return NULL;
}

/* Where the ray from the sample along @dir meets panel @pn's plane, in its
 * pixels; FALSE when it misses the plane (parallel, or behind the sample). */
static gboolean
ray_on_plane (const BraggscopeGeometryPanel *pn, const double dir[3], double *f, double *s)
{
  double den = dot (dir, pn->normal), t, pos[3];

  if (!(fabs (den) > 1e-300))
    return FALSE;
  t = dot (pn->pix0, pn->normal) / den;
  if (!(t > 0.0))
    return FALSE;
  for (int k = 0; k < 3; k++)
    pos[k] = t * dir[k] - pn->pix0[k];
  {
    /* pos = f fdet + s sdet (times the pixel size): the axes of a file may
     * be a little off square (CrystFEL's fs = x +0.002y) */
    double ff = dot (pn->fdet, pn->fdet), fs = dot (pn->fdet, pn->sdet);
    double ss = dot (pn->sdet, pn->sdet), pf = dot (pos, pn->fdet), ps = dot (pos, pn->sdet);
    double det = ff * ss - fs * fs;

    if (!(det > 0.0))
      return FALSE;
    *f = (ss * pf - fs * ps) / det / pn->pixel_size;
    *s = (ff * ps - fs * pf) / det / pn->pixel_size;
  }
  return TRUE;
}

/* Where the ray from the sample along @dir meets panel @pn, in its pixels;
 * FALSE when it misses the panel. */
static gboolean
ray_on_panel (const BraggscopeGeometryPanel *pn, const double dir[3], double *f, double *s)
{
  return ray_on_plane (pn, dir, f, s) && *f >= 0.0 && *f < pn->width && *s >= 0.0 &&
         *s < pn->height;
}

/* The ray from the sample through the point (@x, @y) of a projection: on
 * the plane, or, equal-angle, at two-theta = (distance from the beam on the
 * picture) / layout_distance, at the point's azimuth about the beam (a unit
 * vector). */
static void
projection_ray (const BraggscopeGeometry *self, double x, double y, double dir[3])
{
  if (self->layout == BRAGGSCOPE_PROJECTION_EQUAL_ANGLE)
    {
      double a = self->layout_x0 + x * self->layout_pixel;
      double b = self->layout_y0 + y * self->layout_pixel;
      double rho = hypot (a, b), t = rho / self->layout_distance;
      double along = cos (t), across = rho > 0.0 ? sin (t) / rho : 0.0;

      for (int k = 0; k < 3; k++)
        dir[k] = along * self->beam[k] + across * (a * self->layout_u[k] + b * self->layout_v[k]);
      return;
    }
  for (int k = 0; k < 3; k++)
    dir[k] =
        self->layout_pix0[k] + self->layout_pixel * (x * self->layout_u[k] + y * self->layout_v[k]);
}

/* Where the ray along @dir lies on the equal-angle picture of (@beam, @u,
 * @v) at @distance: (*@a, *@b), m from the beam along @u and @v; FALSE for
 * a null ray or one straight back to the source (no azimuth). */
static gboolean
equal_angle_point (const double beam[3],
                   const double u[3],
                   const double v[3],
                   double distance,
                   const double dir[3],
                   double *a,
                   double *b)
{
  double c = dot (dir, beam), pu = dot (dir, u), pv = dot (dir, v);
  double sine = hypot (pu, pv), t = atan2 (sine, c);

  if (!(sine > 0.0))
    {
      *a = *b = 0.0;
      return c > 0.0;
    }
  *a = distance * t * pu / sine;
  *b = distance * t * pv / sine;
  return isfinite (*a) && isfinite (*b);
}

gboolean
_braggscope_geometry_layout_point (BraggscopeGeometry *proj,
                                   const double dir[3],
                                   double *x,
                                   double *y)
{
  double a, b;

  if (proj->layout != BRAGGSCOPE_PROJECTION_EQUAL_ANGLE)
    return nb_geometry_direction_to_pixel (proj->geom, dir, x, y);
  if (!equal_angle_point (proj->beam, proj->layout_u, proj->layout_v, proj->layout_distance, dir,
                          &a, &b))
    return FALSE;
  *x = (a - proj->layout_x0) / proj->layout_pixel;
  *y = (b - proj->layout_y0) / proj->layout_pixel;
  return isfinite (*x) && isfinite (*y);
}

nb_status
_braggscope_geometry_query_layout (
    BraggscopeGeometry *proj, double x, double y, nb_pixel_query *q, nb_error *err)
{
  double dir[3], best = 0.0, f = 0.0, s = 0.0;
  int found = -1;

  projection_ray (proj, x, y, dir);
  for (int p = 0; p < proj->n_panels; p++)
    {
      double square = fabs (dot (dir, proj->panels[p].normal)), pf, ps;

      if (square > best && ray_on_plane (&proj->panels[p], dir, &pf, &ps))
        best = square, found = p, f = pf, s = ps;
    }
  if (found < 0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "the point (%g, %g) of the projection sees no panel's plane", x, y);
  return nb_geometry_query (proj->panels[found].geom, f, s, q, err);
}

gboolean
_braggscope_geometry_locate (
    BraggscopeGeometry *self, double x, double y, int *panel, double *f, double *s)
{
  if (self->projected)
    {
      double dir[3];

      projection_ray (self, x, y, dir);
      for (int p = 0; p < self->n_panels; p++)
        if (ray_on_panel (&self->panels[p], dir, f, s))
          {
            *panel = p;
            return TRUE;
          }
      return FALSE;
    }
  if (self->n_panels > 0 && self->panels[0].row >= 0)
    {
      /* stacked slow-wise: the panel whose rows hold y */
      for (int p = 0; p < self->n_panels; p++)
        {
          const BraggscopeGeometryPanel *pn = &self->panels[p];

          if (x >= 0.0 && x < pn->width && y >= pn->row && y < pn->row + pn->height)
            {
              *panel = p;
              *f = x;
              *s = y - pn->row;
              return TRUE;
            }
        }
      return FALSE;
    }
  if (self->n_panels > 0 && y >= 0.0 && y < 1.0 && x >= 0.0)
    {
      /* one row of every panel's pixels */
      gsize i = (gsize) x;

      for (int p = 0; p < self->n_panels; p++)
        {
          const BraggscopeGeometryPanel *pn = &self->panels[p];
          gsize n = (gsize) pn->width * (gsize) pn->height;

          if (i >= pn->offset && i < pn->offset + n)
            {
              *panel = p;
              *f = (double) ((i - pn->offset) % pn->width) + (x - floor (x));
              *s = (double) ((i - pn->offset) / pn->width) + 0.5;
              return TRUE;
            }
        }
    }
  return FALSE;
}

/**
 * braggscope_geometry_get_n_panels:
 * @self: a geometry
 *
 * The detector's panels: 1 for a detector of one panel, the geometry file's
 * count for a multi-panel one ([property@Braggscope.Simulation:detector-file]).
 *
 * Returns: the number of panels (at least 1)
 *
 * Since: 0.2
 */
int
braggscope_geometry_get_n_panels (BraggscopeGeometry *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_panels > 0 ? self->n_panels : 1;
}

/**
 * braggscope_geometry_get_panel:
 * @self: a geometry
 * @panel: a panel, 0-based, below [method@Braggscope.Geometry.get_n_panels]
 * @out: (out caller-allocates): the panel
 *
 * Panel @panel's pixel counts, its place in the frame's data and its
 * geometry ([struct@Braggscope.Panel]).  For a detector of one panel, panel
 * 0 is the whole detector.  Thread-safe.
 *
 * Returns: %TRUE, or %FALSE for a panel the detector does not have
 *
 * Since: 0.2
 */
gboolean
braggscope_geometry_get_panel (BraggscopeGeometry *self, int panel, BraggscopePanel *out)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (panel < 0 || panel >= braggscope_geometry_get_n_panels (self))
    return FALSE;
  if (self->n_panels == 0)
    {
      nb_pixel_query q0, qf, qs;

      /* the one detector's vectors, from the points its queries place */
      nb_geometry_size (self->geom, &out->width, &out->height);
      if (nb_geometry_query (self->geom, 0.0, 0.0, &q0, NULL) != NB_OK ||
          nb_geometry_query (self->geom, 1.0, 0.0, &qf, NULL) != NB_OK ||
          nb_geometry_query (self->geom, 0.0, 1.0, &qs, NULL) != NB_OK)
        return FALSE;
      for (int k = 0; k < 3; k++)
        {
          out->origin[k] = q0.lab[k] * 1e3;
          out->fdet[k] = qf.lab[k] - q0.lab[k];
          out->sdet[k] = qs.lab[k] - q0.lab[k];
        }
      out->pixel_size = qf.fdet * 1e3;
      unitize (out->fdet);
      unitize (out->sdet);
      out->data_origin_x = out->data_origin_y = -1;
      return TRUE;
    }
  {
    const BraggscopeGeometryPanel *pn = &self->panels[panel];

    out->width = pn->width;
    out->height = pn->height;
    out->offset = pn->offset;
    out->row = pn->row;
    out->pixel_size = pn->pixel_size * 1e3;
    for (int k = 0; k < 3; k++)
      {
        out->origin[k] = pn->pix0[k] * 1e3;
        out->fdet[k] = pn->fdet[k];
        out->sdet[k] = pn->sdet[k];
      }
    out->data_origin_x = pn->data_origin_f;
    out->data_origin_y = pn->data_origin_s;
  }
  return TRUE;
}

/**
 * braggscope_geometry_get_panel_name:
 * @self: a geometry
 * @panel: a panel, 0-based
 *
 * The geometry file's name for panel @panel ("q0a0", "p3a1", "module_07").
 *
 * Returns: (nullable): the name (owned by @self), "" for the one panel of a
 *   detector without a geometry file, or %NULL for a panel it does not have
 *
 * Since: 0.2
 */
const char *
braggscope_geometry_get_panel_name (BraggscopeGeometry *self, int panel)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (panel < 0 || panel >= braggscope_geometry_get_n_panels (self))
    return NULL;
  return self->n_panels == 0 ? "" : self->panels[panel].name;
}

/**
 * braggscope_geometry_query_panel:
 * @self: a geometry
 * @panel: a panel, 0-based
 * @f: position along the panel's fast axis in its pixels (pixel i spans
 *   [i, i + 1)); points off the panel are allowed
 * @s: along its slow axis
 * @info: (out caller-allocates): what that point sees
 * @error: the error, if any
 *
 * [method@Braggscope.Geometry.query] at a point of one panel, in that
 * panel's own pixels, whatever the image or projection @self's coordinates
 * are.  Thread-safe.
 *
 * Fails with %BRAGGSCOPE_ERROR_INVALID for a panel the detector does not
 * have or a coordinate that is not finite.
 *
 * Returns: (skip): %TRUE on success
 *
 * Since: 0.2
 */
gboolean
braggscope_geometry_query_panel (BraggscopeGeometry *self,
                                 int panel,
                                 double f,
                                 double s,
                                 BraggscopePixelInfo *info,
                                 GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (panel < 0 || panel >= braggscope_geometry_get_n_panels (self))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "panel %d: the detector has %d", panel, braggscope_geometry_get_n_panels (self));
      return FALSE;
    }
  if (self->n_panels == 0)
    return braggscope_geometry_query (self, f, s, info, error);
  {
    const BraggscopeGeometryPanel *pn = &self->panels[panel];
    nb_pixel_query q;
    nb_error err = { 0 };

    if (nb_geometry_query (pn->geom, f, s, &q, &err) != NB_OK)
      {
        _braggscope_propagate_nb (error, &err);
        return FALSE;
      }
    info->d_spacing = q.d;
    info->two_theta = q.two_theta * (180.0 / G_PI);
    info->q = q.q;
    info->azimuth = q.azimuth * (180.0 / G_PI);
    info->h = q.hkl[0];
    info->k = q.hkl[1];
    info->l = q.hkl[2];
    info->nearest_h = q.h;
    info->nearest_k = q.k;
    info->nearest_l = q.l;
    info->structure_factor = q.F;
    info->from_file = q.F_from_file != 0;
    info->on_detector = f >= 0.0 && f < pn->width && s >= 0.0 && s < pn->height;
    info->panel = info->on_detector ? panel : -1;
    info->panel_x = f;
    info->panel_y = s;
  }
  return TRUE;
}

/**
 * braggscope_geometry_panel_to_point:
 * @self: a geometry
 * @panel: a panel, 0-based
 * @f: a point of the panel along its fast axis, its pixels
 * @s: along its slow axis
 * @x: (out) (optional): where that point lies in @self's coordinates (those
 *   of [method@Braggscope.Geometry.query]), along the fast axis
 * @y: (out) (optional): along the slow axis
 *
 * Where a point of a panel lies in the image of @self's frame (its row of
 * panels), or, for a projection ([method@Braggscope.Frame.project]), on its
 * picture ([method@Braggscope.Geometry.get_projection]): where the viewer
 * draws it.  Thread-safe.
 *
 * Returns: %TRUE, or %FALSE for a panel the detector does not have, a
 *   point that does not lie in the image (the panels' widths differ), or
 *   one whose ray misses a gnomonic projection's plane (behind the sample)
 *
 * Since: 0.2
 */
gboolean
braggscope_geometry_panel_to_point (
    BraggscopeGeometry *self, int panel, double f, double s, double *x, double *y)
{
  const BraggscopeGeometryPanel *pn;
  double px = f, py = s;

  g_return_val_if_fail (self != NULL, FALSE);

  if (panel < 0 || panel >= braggscope_geometry_get_n_panels (self))
    return FALSE;
  if (self->n_panels > 0)
    {
      pn = &self->panels[panel];
      if (self->projected)
        {
          double dir[3];

          for (int k = 0; k < 3; k++)
            dir[k] = pn->pix0[k] + pn->pixel_size * (f * pn->fdet[k] + s * pn->sdet[k]);
          if (!_braggscope_geometry_layout_point (self, dir, &px, &py))
            return FALSE;
        }
      else if (pn->row >= 0)
        py = s + pn->row;
      else
        return FALSE;
    }
  if (x != NULL)
    *x = px;
  if (y != NULL)
    *y = py;
  return TRUE;
}

/**
 * braggscope_geometry_get_is_projection:
 * @self: a geometry
 *
 * Whether @self's coordinates are a projection's
 * ([method@Braggscope.Frame.project]): a picture of the panels as the sample
 * sees them ([method@Braggscope.Geometry.get_projection] says which), rather
 * than the frame's image.
 *
 * Returns: %TRUE for a projection
 *
 * Since: 0.2
 */
gboolean
braggscope_geometry_get_is_projection (BraggscopeGeometry *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->projected;
}

/**
 * braggscope_geometry_get_projection:
 * @self: a geometry
 *
 * How @self's coordinates show the detector: the frame's own image
 * (%BRAGGSCOPE_PROJECTION_NONE), or a projection's picture
 * ([method@Braggscope.Frame.project]): the plane normal to the beam
 * (%BRAGGSCOPE_PROJECTION_GNOMONIC), or, for panels reaching past 60
 * degrees two-theta that the plane would show unevenly (a detector curved
 * round the sample), the azimuthal equidistant picture about the beam
 * (%BRAGGSCOPE_PROJECTION_EQUAL_ANGLE: radius proportional to two-theta).
 * In both a resolution ring is a circle about the beam, and
 * [method@Braggscope.Geometry.direction_to_pixel],
 * [method@Braggscope.Geometry.panel_to_point] and
 * [method@Braggscope.Geometry.query] are one mapping and its inverse.
 * Thread-safe.
 *
 * Returns: the projection
 *
 * Since: 0.2
 */
BraggscopeProjection
braggscope_geometry_get_projection (BraggscopeGeometry *self)
{
  g_return_val_if_fail (self != NULL, BRAGGSCOPE_PROJECTION_NONE);

  return self->projected ? self->layout : BRAGGSCOPE_PROJECTION_NONE;
}

/* The projection's axes on the plane normal to @beam: u along panel 0's
 * fast axis as seen down the beam, v along its slow axis (so that a
 * detector of panels normal to the beam keeps their look). */
static void
projection_axes (const BraggscopeGeometry *self, double u[3], double v[3])
{
  const double *b = self->beam;
  const BraggscopeGeometryPanel *p0 = &self->panels[0];
  double w[3];

  for (int k = 0; k < 3; k++)
    u[k] = p0->fdet[k] - dot (p0->fdet, b) * b[k];
  if (!unitize (u))
    {
      double any[3] = { 0.0, 0.0, 1.0 };

      cross (b, any, u);
      if (!unitize (u))
        u[0] = 0.0, u[1] = 1.0, u[2] = 0.0;
    }
  cross (b, u, v);
  unitize (v);
  for (int k = 0; k < 3; k++)
    w[k] = p0->sdet[k];
  if (dot (w, v) < 0.0)
    for (int k = 0; k < 3; k++)
      v[k] = -v[k];
}

static BraggscopeGeometry *project (BraggscopeGeometry *self, const BraggscopeGeometry *donor);
static gboolean map_picture (BraggscopeGeometry *proj, const BraggscopeGeometry *donor);

/* guards every geometry's projection and projection_tried */
static GMutex projection_lock;

BraggscopeGeometry *
_braggscope_geometry_project_after (BraggscopeGeometry *self, BraggscopeGeometry *previous)
{
  BraggscopeGeometry *proj;

  g_mutex_lock (&projection_lock);
  if (!self->projection_tried)
    {
      self->projection = project (self, previous != NULL ? previous->projection : NULL);
      self->projection_tried = TRUE;
    }
  proj = self->projection;
  g_mutex_unlock (&projection_lock);
  return proj;
}

BraggscopeGeometry *
_braggscope_geometry_project (BraggscopeGeometry *self)
{
  return _braggscope_geometry_project_after (self, NULL);
}

/* Panel @pn's point (@f, @s) in the lab frame (m from the sample). */
static void
panel_point (const BraggscopeGeometryPanel *pn, double f, double s, double r[3])
{
  for (int k = 0; k < 3; k++)
    r[k] = pn->pix0[k] + pn->pixel_size * (f * pn->fdet[k] + s * pn->sdet[k]);
}

/* The point a fraction @t along edge @e (0 to 3, round the panel from
 * pixel (0, 0)'s corner: t = 0 is a corner) of panel @pn, lab frame (m). */
static void
edge_point (const BraggscopeGeometryPanel *pn, int e, double t, double r[3])
{
  double f[4] = { t * pn->width, pn->width, (1.0 - t) * pn->width, 0.0 };
  double s[4] = { 0.0, t * pn->height, pn->height, (1.0 - t) * pn->height };

  panel_point (pn, f[e], s[e], r);
}

/* Panel @pn's centre (m from the sample). */
static void
panel_centre (const BraggscopeGeometryPanel *pn, double c[3])
{
  for (int k = 0; k < 3; k++)
    c[k] =
        pn->pix0[k] + 0.5 * pn->pixel_size * (pn->width * pn->fdet[k] + pn->height * pn->sdet[k]);
}

/* The picture @self's panels are best seen on (BraggscopeProjection): the
 * gnomonic plane unless they reach past EQUAL_ANGLE_FROM_DEG two-theta and
 * either past 90 degrees or with areas on that plane, relative to their own
 * at their centres, more than EQUAL_ANGLE_UNEVEN apart.  A panel element at
 * r with normal n, on the plane at distance D along the beam b, covers D^2
 * |r.n| / (r.b)^3 times its own area: 1 for a flat detector normal to the
 * beam, 1 / cos^3 two-theta for a module facing the sample. */
static BraggscopeProjection
choose_layout (const BraggscopeGeometry *self)
{
  double widest = 0.0, least = INFINITY, most = 0.0;

  for (int p = 0; p < self->n_panels; p++)
    {
      const BraggscopeGeometryPanel *pn = &self->panels[p];
      double c[3], along;

      panel_centre (pn, c);
      along = dot (c, self->beam);
      if (along > 0.0)
        {
          double area = fabs (dot (c, pn->normal)) / (along * along * along);

          least = MIN (least, area);
          most = MAX (most, area);
        }
      for (int k = 0; k < 4; k++)
        {
          double r[3], norm;

          panel_point (pn, (k & 1) ? pn->width : 0.0, (k & 2) ? pn->height : 0.0, r);
          norm = sqrt (dot (r, r));
          if (norm > 0.0)
            widest = MAX (widest, acos (CLAMP (dot (r, self->beam) / norm, -1.0, 1.0)));
        }
    }
  widest *= 180.0 / G_PI;
  if (widest > EQUAL_ANGLE_FROM_DEG && (widest >= 90.0 || !(most <= EQUAL_ANGLE_UNEVEN * least)))
    return BRAGGSCOPE_PROJECTION_EQUAL_ANGLE;
  return BRAGGSCOPE_PROJECTION_GNOMONIC;
}

/* The picture's pixel (m), @pixel made larger where the picture of
 * (@xmax - @xmin) x (@ymax - @ymin) m, or the rays its map traces (@spans,
 * the panels' boxes on it, m^2), would exceed their bounds, whatever a file
 * places where. */
static double
bounded_pixel (double pixel, double xmin, double xmax, double ymin, double ymax, double spans)
{
  double area = (xmax - xmin) / pixel * ((ymax - ymin) / pixel), rays = spans / pixel / pixel;
  double scale = MAX (area / PROJECTION_MAX_PIXELS, rays / (4.0 * PROJECTION_MAX_PIXELS));

  if (scale > 1.0)
    pixel *= sqrt (scale);
  return pixel;
}

/* A projection of @self of @layout, on axes @u, @v, its pixel @pixel (m),
 * with @self's cell and a copy of its panels; its size, corner and geom to
 * be set. */
static BraggscopeGeometry *
new_projection (BraggscopeGeometry *self,
                BraggscopeProjection layout,
                const double u[3],
                const double v[3],
                double pixel)
{
  BraggscopeGeometry *proj = g_new0 (BraggscopeGeometry, 1);

  g_atomic_ref_count_init (&proj->ref_count);
  proj->projected = TRUE;
  proj->layout = layout;
  proj->layout_pixel = pixel;
  memcpy (proj->beam, self->beam, sizeof proj->beam);
  memcpy (proj->a_star, self->a_star, sizeof proj->a_star);
  memcpy (proj->b_star, self->b_star, sizeof proj->b_star);
  memcpy (proj->c_star, self->c_star, sizeof proj->c_star);
  proj->computed_to = self->computed_to;
  memcpy (proj->layout_u, u, 3 * sizeof (double));
  memcpy (proj->layout_v, v, 3 * sizeof (double));
  proj->panels = g_new0 (BraggscopeGeometryPanel, self->n_panels);
  proj->n_panels = self->n_panels;
  for (int p = 0; p < self->n_panels; p++)
    {
      proj->panels[p] = self->panels[p];
      proj->panels[p].name = g_strdup (self->panels[p].name);
      proj->panels[p].geom = nb_geometry_ref (self->panels[p].geom);
    }
  return proj;
}

/* @self's panels on the equal-angle picture about the beam: two-theta times
 * the panels' mean distance from the sample is the radius (m), the pixel
 * the angle of the finest panel pixel seen from the sample. */
static BraggscopeGeometry *
project_equal_angle (BraggscopeGeometry *self,
                     const double u[3],
                     const double v[3],
                     const BraggscopeGeometry *donor)
{
  BraggscopeGeometry *proj;
  double distance = 0.0, pixel = INFINITY, spans = 0.0;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;

  for (int p = 0; p < self->n_panels; p++)
    {
      double c[3];

      panel_centre (&self->panels[p], c);
      distance += sqrt (dot (c, c)) / self->n_panels;
    }
  for (int p = 0; p < self->n_panels; p++)
    {
      const BraggscopeGeometryPanel *pn = &self->panels[p];
      double c[3], x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;

      panel_centre (pn, c);
      pixel = MIN (pixel, pn->pixel_size * distance / sqrt (dot (c, c)));
      /* the panel's edges, traced: they are curves on this picture */
      for (int e = 0; e < 4; e++)
        for (int i = 0; i < EQUAL_ANGLE_EDGE_POINTS; i++)
          {
            double r[3], a, b;

            edge_point (pn, e, (double) i / EQUAL_ANGLE_EDGE_POINTS, r);
            if (!equal_angle_point (self->beam, u, v, distance, r, &a, &b))
              continue;
            x0 = MIN (x0, a), x1 = MAX (x1, a), y0 = MIN (y0, b), y1 = MAX (y1, b);
          }
      if (x1 >= x0 && y1 >= y0)
        {
          xmin = MIN (xmin, x0), xmax = MAX (xmax, x1);
          ymin = MIN (ymin, y0), ymax = MAX (ymax, y1);
          spans += (x1 - x0) * (y1 - y0);
        }
    }
  if (!(distance > 0.0) || !isfinite (pixel) || !isfinite (xmax - xmin) ||
      !isfinite (ymax - ymin) || !isfinite (spans))
    return NULL;
  pixel = bounded_pixel (pixel, xmin, xmax, ymin, ymax, spans);
  proj = new_projection (self, BRAGGSCOPE_PROJECTION_EQUAL_ANGLE, u, v, pixel);
  proj->width = MAX (1, (int) ceil ((xmax - xmin) / pixel));
  proj->height = MAX (1, (int) ceil ((ymax - ymin) / pixel));
  proj->layout_distance = distance;
  proj->layout_x0 = xmin;
  proj->layout_y0 = ymin;
  /* off the panels, a point is answered on a panel's plane: this one is for
   * the structure factors */
  proj->geom = nb_geometry_ref (self->panels[0].geom);
  if (!map_picture (proj, donor))
    {
      braggscope_geometry_unref (proj);
      return NULL;
    }
  return proj;
}

static BraggscopeGeometry *
project (BraggscopeGeometry *self, const BraggscopeGeometry *donor)
{
  BraggscopeGeometry *proj;
  double u[3], v[3], distance = 0.0, pixel = INFINITY;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, spans = 0.0;
  int seen = 0;
  nb_geometry *plane;

  if (self->n_panels == 0 || self->projected)
    return NULL;
  projection_axes (self, u, v);
  if (choose_layout (self) == BRAGGSCOPE_PROJECTION_EQUAL_ANGLE)
    return project_equal_angle (self, u, v, donor);
  /* the plane at the mean distance of the panels' centres along the beam */
  for (int p = 0; p < self->n_panels; p++)
    {
      const BraggscopeGeometryPanel *pn = &self->panels[p];
      double c[3];

      panel_centre (pn, c);
      distance += dot (c, self->beam) / self->n_panels;
      pixel = MIN (pixel, pn->pixel_size);
    }
  if (!(distance > 0.0))
    return NULL; /* the detector is not downstream of the sample */
  /* the corners of the panels ahead of the sample, on that plane (m) */
  for (int p = 0; p < self->n_panels; p++)
    {
      const BraggscopeGeometryPanel *pn = &self->panels[p];
      double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;

      for (int c = 0; c < 4; c++)
        {
          double r[3], along;

          panel_point (pn, (c & 1) ? pn->width : 0.0, (c & 2) ? pn->height : 0.0, r);
          along = dot (r, self->beam);
          if (!(along > 0.0))
            continue;
          seen++;
          x0 = MIN (x0, distance * dot (r, u) / along);
          x1 = MAX (x1, distance * dot (r, u) / along);
          y0 = MIN (y0, distance * dot (r, v) / along);
          y1 = MAX (y1, distance * dot (r, v) / along);
        }
      if (x1 >= x0 && y1 >= y0)
        {
          xmin = MIN (xmin, x0), xmax = MAX (xmax, x1);
          ymin = MIN (ymin, y0), ymax = MAX (ymax, y1);
          spans += (x1 - x0) * (y1 - y0);
        }
    }
  if (seen == 0 || !isfinite (xmax - xmin) || !isfinite (ymax - ymin) || !isfinite (spans))
    return NULL;
  pixel = bounded_pixel (pixel, xmin, xmax, ymin, ymax, spans);

  proj = new_projection (self, BRAGGSCOPE_PROJECTION_GNOMONIC, u, v, pixel);
  proj->width = MAX (1, (int) ceil ((xmax - xmin) / pixel));
  proj->height = MAX (1, (int) ceil ((ymax - ymin) / pixel));
  for (int k = 0; k < 3; k++)
    proj->layout_pix0[k] = distance * self->beam[k] + xmin * u[k] + ymin * v[k];
  plane =
      nb_geometry_new_plane (self->geom, proj->width, proj->height, pixel, proj->layout_pix0, u, v);
  proj->geom = plane;
  if (plane == NULL || !map_picture (proj, donor))
    {
      braggscope_geometry_unref (proj);
      return NULL;
    }
  return proj;
}

/* Panel @pn's place in the projection @proj's picture: every picture pixel
 * whose centre's ray meets the panel shows the panel pixel it meets
 * (nearest), whose index in the frame's data goes into proj->picture_map.
 * Its box is that of its corners on the plane, of its edges traced on an
 * equal-angle picture (and a pixel more, for the curves between the points
 * traced). */
static void
map_panel (BraggscopeGeometry *proj, const BraggscopeGeometryPanel *pn, guint32 *map)
{
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  gboolean curved = proj->layout == BRAGGSCOPE_PROJECTION_EQUAL_ANGLE;
  int points = curved ? EQUAL_ANGLE_EDGE_POINTS : 1, margin = curved ? 1 : 0;

  for (int e = 0; e < 4; e++)
    for (int i = 0; i < points; i++)
      {
        double r[3], x, y;

        edge_point (pn, e, (double) i / points, r);
        if (!_braggscope_geometry_layout_point (proj, r, &x, &y))
          return; /* a panel reaching behind the sample is not drawn */
        x0 = MIN (x0, x), x1 = MAX (x1, x), y0 = MIN (y0, y), y1 = MAX (y1, y);
      }
  x0 = CLAMP (floor (x0) - margin, 0, proj->width);
  x1 = CLAMP (ceil (x1) + margin, 0, proj->width);
  y0 = CLAMP (floor (y0) - margin, 0, proj->height);
  y1 = CLAMP (ceil (y1) + margin, 0, proj->height);
  for (int y = (int) y0; y < (int) y1; y++)
    for (int x = (int) x0; x < (int) x1; x++)
      {
        double dir[3], f, s;

        projection_ray (proj, x + 0.5, y + 0.5, dir);
        if (ray_on_panel (pn, dir, &f, &s))
          map[(gsize) y * proj->width + x] =
              (guint32) (pn->offset + (gsize) s * (gsize) pn->width + (gsize) f);
      }
}

/* Whether projection @a's picture map is @b's: the same picture (layout,
 * size, plane or equal-angle frame) of the same panels, bit for bit in
 * everything map_panel() reads; the crystal may differ. */
static gboolean
same_picture (const BraggscopeGeometry *a, const BraggscopeGeometry *b)
{
  if (a->layout != b->layout || a->width != b->width || a->height != b->height ||
      a->n_panels != b->n_panels || memcmp (a->beam, b->beam, sizeof a->beam) != 0 ||
      memcmp (a->layout_pix0, b->layout_pix0, sizeof a->layout_pix0) != 0 ||
      memcmp (a->layout_u, b->layout_u, sizeof a->layout_u) != 0 ||
      memcmp (a->layout_v, b->layout_v, sizeof a->layout_v) != 0 ||
      memcmp (&a->layout_pixel, &b->layout_pixel, sizeof (double)) != 0 ||
      memcmp (&a->layout_distance, &b->layout_distance, sizeof (double)) != 0 ||
      memcmp (&a->layout_x0, &b->layout_x0, sizeof (double)) != 0 ||
      memcmp (&a->layout_y0, &b->layout_y0, sizeof (double)) != 0)
    return FALSE;
  for (int p = 0; p < a->n_panels; p++)
    {
      const BraggscopeGeometryPanel *x = &a->panels[p], *y = &b->panels[p];

      if (x->width != y->width || x->height != y->height || x->offset != y->offset ||
          memcmp (&x->pixel_size, &y->pixel_size, sizeof (double)) != 0 ||
          memcmp (x->pix0, y->pix0, sizeof x->pix0) != 0 ||
          memcmp (x->fdet, y->fdet, sizeof x->fdet) != 0 ||
          memcmp (x->sdet, y->sdet, sizeof x->sdet) != 0 ||
          memcmp (x->normal, y->normal, sizeof x->normal) != 0)
        return FALSE;
    }
  return TRUE;
}

/* The projection's picture map (every pixel's data index, or
 * PICTURE_NONE): the projection @donor's (NULL: none) where it is the same
 * picture of the same panels (a new orientation of the crystal: seconds
 * saved on a 16-Mpixel detector), else traced; FALSE when out of memory or
 * when the frame's data are too long for its indices. */
static gboolean
map_picture (BraggscopeGeometry *proj, const BraggscopeGeometry *donor)
{
  const BraggscopeGeometryPanel *last = &proj->panels[proj->n_panels - 1];
  gsize n = (gsize) proj->width * (gsize) proj->height;
  guint32 *map;

  if (donor != NULL && donor->picture_map != NULL && same_picture (proj, donor))
    {
      proj->picture_map = g_bytes_ref (donor->picture_map);
      return TRUE;
    }
  if (last->offset + (gsize) last->width * (gsize) last->height >= PICTURE_NONE ||
      (map = g_try_new (guint32, n)) == NULL)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    map[i] = PICTURE_NONE;
  for (int p = 0; p < proj->n_panels; p++)
    map_panel (proj, &proj->panels[p], map);
  proj->picture_map = g_bytes_new_take (map, n * sizeof *map);
  return TRUE;
}

void
_braggscope_geometry_project_data (BraggscopeGeometry *proj,
                                   const float *data,
                                   float *out,
                                   float gap)
{
  gsize n = (gsize) proj->width * (gsize) proj->height;
  const guint32 *map = g_bytes_get_data (proj->picture_map, NULL);

  for (gsize i = 0; i < n; i++)
    out[i] = map[i] != PICTURE_NONE ? data[map[i]] : gap;
}
