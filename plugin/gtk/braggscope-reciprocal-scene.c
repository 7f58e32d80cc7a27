/* braggscope-reciprocal-scene.c: the Ewald construction of a frame, drawn.
 *
 * The crystal sits at the centre C = -k s0 of the Ewald sphere (radius
 * k = 1/lambda, s0 the unit beam direction); the reciprocal lattice's origin
 * is where the beam leaves the sphere.  A lattice point r diffracts when it
 * lies on the sphere: its excitation error e = |r - C| - k is zero, and its
 * diffracted ray runs from C through r (k_out = k s0 + r).  Everything here
 * comes from the frame's BraggscopeLattice (its parameters) and geometry:
 * nothing is simulated.
 *
 * A point counts as diffracting within a tolerance that adds what widens the
 * contact (the same terms as the engine's predictor): the crystal's shape
 * transform (its main lobe, 1.43 / (N a) for the smallest crystal edge), the
 * mosaic spread (an arc of |r| * spread / 2 either side), the divergence (the
 * sphere turned about the origin by half of it) and the dispersion (spheres
 * of radius k (1 +- dispersion / 2): a point at |r| moves by
 * dispersion |r|^2 / (4 k) against them).  In a rotation exposure a point
 * crossing the sphere between the start and the end angle diffracts too, and
 * is drawn as crossing (green) even where its mid-exposure position also lies
 * within the tolerance: a small oscillation moves a point by less than its
 * spot's width, and the rotation method records every point that crosses.
 *
 * Drawing is a software splat into a cairo image surface (hundreds of
 * thousands of points cost a few milliseconds), then cairo for the sphere,
 * the beam, the axis and the labels: the same pixels on screen and headless.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-reciprocal-private.h"
#include "braggscope-gtk-i18n-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#define DEG (G_PI / 180.0)

/* Points beyond this many are not drawn (a finer resolution limit than the
 * screen can show): about 40 ms of building at most. */
#define MAX_POINTS 2000000

/* Without a resolution limit of its own the view draws the lattice to the
 * detector's corners, or as far as this many points reach (about 1.5 ms a
 * frame to place and draw, so that a drag keeps its pace). */
#define DRAWN_POINTS 40000

typedef enum
{
  POINT_AWAY = 0,
  POINT_SHELL,    /* within the tolerance of the sphere */
  POINT_CROSSING, /* crosses the sphere during the exposure's rotation */
} PointState;

typedef struct
{
  float r[3];      /* lab frame, 1/Angstrom, the crystal at the middle of the exposure */
  float weight;    /* exp (-(e / tolerance)^2): the shading of the lattice transform */
  float intensity; /* |F|^2 / the largest |F|^2 of the scene */
  gint16 h, k, l;
  guint8 state;
} Point;

struct _BraggscopeReciprocalScene
{
  BraggscopeLattice lattice;
  BraggscopeGeometry *geometry;
  double k, s0[3], C[3];
  double axis[3];
  double a_star[3], b_star[3], c_star[3]; /* at the middle of the exposure */
  double s_lim;                           /* 1/Angstrom */
  double spot_radius;                     /* 1/Angstrom */
  GArray *points;                         /* Point */
  guint n_diffracting;
};

static double
dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void
cross (const double a[3], const double b[3], double out[3])
{
  double t[3] = { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };

  memcpy (out, t, sizeof t);
}

static double
norm (const double a[3])
{
  return sqrt (dot (a, a));
}

/* @v turned by @angle (rad) about the unit @axis, right-handed, as the
 * engine turns the crystal by phi. */
static void
rotate (const double v[3], const double axis[3], double angle, double out[3])
{
  double c = cos (angle), s = sin (angle), along = dot (axis, v) * (1.0 - c), w[3];

  cross (axis, v, w);
  for (int i = 0; i < 3; i++)
    out[i] = axis[i] * along + v[i] * c + w[i] * s;
}

static void
lattice_vector (const BraggscopeReciprocalScene *scene, int h, int k, int l, double r[3])
{
  for (int i = 0; i < 3; i++)
    r[i] = h * scene->a_star[i] + k * scene->b_star[i] + l * scene->c_star[i];
}

static double
excitation (const BraggscopeReciprocalScene *scene, const double r[3])
{
  double d[3] = { r[0] - scene->C[0], r[1] - scene->C[1], r[2] - scene->C[2] };

  return norm (d) - scene->k;
}

/* How far from the sphere a point at |r| = @s still touches it (1/Angstrom). */
static double
tolerance (const BraggscopeReciprocalScene *scene, double s)
{
  const BraggscopeLattice *lat = &scene->lattice;

  return scene->spot_radius + s * 0.5 * (lat->mosaic_spread + lat->divergence) * DEG +
         lat->dispersion * s * s / (4.0 * scene->k);
}

/* The crystal's edges in Angstrom, from the reciprocal vectors: a = b* x c* / V*. */
static void
cell_edges (const BraggscopeReciprocalScene *scene, double edges[3])
{
  double bc[3], ca[3], ab[3], volume;

  cross (scene->b_star, scene->c_star, bc);
  cross (scene->c_star, scene->a_star, ca);
  cross (scene->a_star, scene->b_star, ab);
  volume = fabs (dot (scene->a_star, bc));
  edges[0] = volume > 0 ? norm (bc) / volume : 0;
  edges[1] = volume > 0 ? norm (ca) / volume : 0;
  edges[2] = volume > 0 ? norm (ab) / volume : 0;
}

/* ------------------------------------------------------------------------- */
/* The lattice points: which (h, k, l) lie within the limit, and their |F|^2,
 * depend on the cell's metric, the limit and the structure factors, not on
 * the orientation.  A drag of the misset or phi (or the wavelength) reuses
 * them; the last set built is kept for every view of the process. */

typedef struct
{
  gatomicrefcount refs;
  double metric[6]; /* a*.a*, b*.b*, c*.c*, a*.b*, a*.c*, b*.c* (1/Angstrom^2) */
  double s_lim;
  BraggscopeGeometry *geometry; /* whose structure factors */
  guint n;
  gint16 *hkl;      /* 3 n */
  float *intensity; /* |F|^2 / the largest */
} LatticePoints;

static GMutex points_lock;
static LatticePoints *points_cache;

static void
lattice_points_unref (LatticePoints *lp)
{
  if (lp == NULL || !g_atomic_ref_count_dec (&lp->refs))
    return;
  if (lp->geometry != NULL)
    braggscope_geometry_unref (lp->geometry);
  g_free (lp->hkl);
  g_free (lp->intensity);
  g_free (lp);
}

static void
metric_of (const BraggscopeReciprocalScene *scene, double metric[6])
{
  metric[0] = dot (scene->a_star, scene->a_star);
  metric[1] = dot (scene->b_star, scene->b_star);
  metric[2] = dot (scene->c_star, scene->c_star);
  metric[3] = dot (scene->a_star, scene->b_star);
  metric[4] = dot (scene->a_star, scene->c_star);
  metric[5] = dot (scene->b_star, scene->c_star);
}

static gboolean
same_points (const LatticePoints *lp, const double metric[6], double s_lim, BraggscopeGeometry *g)
{
  /* a turned cell's metric differs from the unturned one's in the last bits */
  for (int i = 0; i < 6; i++)
    if (fabs (lp->metric[i] - metric[i]) > 1e-9 * (fabs (metric[0]) + fabs (metric[2])))
      return FALSE;
  return fabs (lp->s_lim - s_lim) <= 1e-12 * s_lim &&
         (lp->geometry == g || (lp->geometry != NULL && g != NULL &&
                                braggscope_geometry_same_structure_factors (lp->geometry, g)));
}

static LatticePoints *
lattice_points_build (const BraggscopeReciprocalScene *scene, const double metric[6])
{
  LatticePoints *lp = g_new0 (LatticePoints, 1);
  g_autoptr (GArray) hkl = g_array_new (FALSE, FALSE, sizeof (gint16));
  g_autoptr (GArray) intensity = g_array_new (FALSE, FALSE, sizeof (float));
  double edges[3], s2 = scene->s_lim * scene->s_lim;
  int limit[3];
  float fmax = 0.0f;

  g_atomic_ref_count_init (&lp->refs);
  memcpy (lp->metric, metric, sizeof lp->metric);
  lp->s_lim = scene->s_lim;
  lp->geometry = scene->geometry != NULL ? braggscope_geometry_ref (scene->geometry) : NULL;
  cell_edges (scene, edges);
  for (int i = 0; i < 3; i++)
    {
      double n = edges[i] * scene->s_lim;

      if (!(n < 1000))
        return lp;
      limit[i] = (int) ceil (n);
    }
  for (int h = -limit[0]; h <= limit[0]; h++)
    for (int k = -limit[1]; k <= limit[1]; k++)
      for (int l = -limit[2]; l <= limit[2]; l++)
        {
          double r2 = h * h * metric[0] + k * k * metric[1] + l * l * metric[2] +
                      2.0 * (h * k * metric[3] + h * l * metric[4] + k * l * metric[5]);
          gint16 idx[3] = { h, k, l };
          float F2;

          if ((h == 0 && k == 0 && l == 0) || r2 > s2 || intensity->len >= MAX_POINTS)
            continue;
          F2 = scene->geometry != NULL ? (float) pow (braggscope_geometry_get_structure_factor (
                                                          scene->geometry, h, k, l, NULL),
                                                      2.0)
                                       : 1.0f;
          g_array_append_vals (hkl, idx, 3);
          g_array_append_val (intensity, F2);
          fmax = MAX (fmax, F2);
        }
  for (guint i = 0; i < intensity->len; i++)
    g_array_index (intensity, float, i) /= fmax > 0 ? fmax : 1.0f;
  lp->n = intensity->len;
  lp->hkl = (gint16 *) g_array_free (g_steal_pointer (&hkl), FALSE);
  lp->intensity = (float *) g_array_free (g_steal_pointer (&intensity), FALSE);
  return lp;
}

static LatticePoints *
lattice_points_get (const BraggscopeReciprocalScene *scene)
{
  double metric[6];
  LatticePoints *lp;

  metric_of (scene, metric);
  g_mutex_lock (&points_lock);
  if (points_cache != NULL && same_points (points_cache, metric, scene->s_lim, scene->geometry))
    {
      lp = points_cache;
      g_atomic_ref_count_inc (&lp->refs);
      g_mutex_unlock (&points_lock);
      return lp;
    }
  g_mutex_unlock (&points_lock);

  lp = lattice_points_build (scene, metric);
  g_mutex_lock (&points_lock);
  lattice_points_unref (points_cache);
  points_cache = lp;
  g_atomic_ref_count_inc (&lp->refs);
  g_mutex_unlock (&points_lock);
  return lp;
}

/* Where each lattice point is in this frame's orientation and how far from
 * the sphere. */
static void
place_points (BraggscopeReciprocalScene *scene)
{
  const BraggscopeLattice *lat = &scene->lattice;
  LatticePoints *lp = lattice_points_get (scene);
  double half = 0.5 * lat->phi_range * DEG;

  g_array_set_size (scene->points, lp->n);
  for (guint i = 0; i < lp->n; i++)
    {
      const gint16 *idx = lp->hkl + 3 * i;
      Point *p = &g_array_index (scene->points, Point, i);
      double r[3], s, e, tol;

      lattice_vector (scene, idx[0], idx[1], idx[2], r);
      s = norm (r);
      e = excitation (scene, r);
      tol = tolerance (scene, s);
      p->r[0] = (float) r[0];
      p->r[1] = (float) r[1];
      p->r[2] = (float) r[2];
      p->h = idx[0];
      p->k = idx[1];
      p->l = idx[2];
      p->intensity = lp->intensity[i];
      p->state = POINT_AWAY;
      if (half > 0)
        {
          double r0[3], r1[3];

          rotate (r, scene->axis, -half, r0);
          rotate (r, scene->axis, half, r1);
          if ((excitation (scene, r0) < 0) != (excitation (scene, r1) < 0))
            p->state = POINT_CROSSING;
        }
      if (p->state == POINT_AWAY && fabs (e) < tol)
        p->state = POINT_SHELL;
      /* the shading of a point away from the sphere is its |F| alone */
      p->weight = p->state == POINT_SHELL ? (float) exp (-(e / tol) * (e / tol)) : 1.0f;
      if (p->state != POINT_AWAY)
        scene->n_diffracting++;
    }
  lattice_points_unref (lp);
}

BraggscopeReciprocalScene *
_braggscope_reciprocal_scene_new (BraggscopeFrame *frame, double resolution_limit)
{
  BraggscopeReciprocalScene *scene;
  BraggscopeLattice lat;
  double phi_mid, edges[3], widest = 0.0;

  if (frame == NULL || !braggscope_frame_get_lattice (frame, &lat) || !(lat.wavelength > 0))
    return NULL;

  scene = g_new0 (BraggscopeReciprocalScene, 1);
  scene->lattice = lat;
  scene->geometry = braggscope_frame_get_geometry (frame);
  if (scene->geometry != NULL)
    braggscope_geometry_ref (scene->geometry);
  scene->k = 1.0 / lat.wavelength;
  memcpy (scene->s0, lat.beam, sizeof scene->s0);
  memcpy (scene->axis, lat.spindle, sizeof scene->axis);
  for (int i = 0; i < 3; i++)
    scene->C[i] = -scene->k * scene->s0[i];
  phi_mid = (lat.phi_start + 0.5 * lat.phi_range) * DEG;
  rotate (lat.a_star, scene->axis, phi_mid, scene->a_star);
  rotate (lat.b_star, scene->axis, phi_mid, scene->b_star);
  rotate (lat.c_star, scene->axis, phi_mid, scene->c_star);

  /* a point beyond 2k never reaches the sphere */
  scene->s_lim = resolution_limit > 0 ? 1.0 / resolution_limit
                 : lat.d_min > 0      ? 1.0 / lat.d_min
                                      : 2.0 * scene->k;
  scene->s_lim = MIN (scene->s_lim, 2.0 * scene->k);
  /* a limit of its own: no more points than the view can draw at a drag's pace */
  if (resolution_limit <= 0)
    {
      double b_c[3], v_star;

      cross (scene->b_star, scene->c_star, b_c);
      v_star = fabs (dot (scene->a_star, b_c));
      if (v_star > 0 && 4.0 / 3.0 * G_PI * pow (scene->s_lim, 3) / v_star > DRAWN_POINTS)
        scene->s_lim = cbrt (DRAWN_POINTS * v_star * 3.0 / (4.0 * G_PI));
    }

  cell_edges (scene, edges);
  for (int i = 0; i < 3; i++)
    {
      double size = edges[i] * MAX (lat.n_cells[i], 1.0);

      if (size > 0 && 1.0 / size > widest)
        widest = 1.0 / size;
    }
  scene->spot_radius = 1.43 * widest;

  scene->points = g_array_new (FALSE, FALSE, sizeof (Point));
  place_points (scene);
  return scene;
}

void
_braggscope_reciprocal_scene_free (BraggscopeReciprocalScene *scene)
{
  if (scene == NULL)
    return;
  g_clear_pointer (&scene->geometry, braggscope_geometry_unref);
  g_array_unref (scene->points);
  g_free (scene);
}

guint
_braggscope_reciprocal_scene_n_diffracting (const BraggscopeReciprocalScene *scene)
{
  return scene->n_diffracting;
}

guint
_braggscope_reciprocal_scene_n_points (const BraggscopeReciprocalScene *scene)
{
  return scene->points->len;
}

BraggscopeGeometry *
_braggscope_reciprocal_scene_get_geometry (BraggscopeReciprocalScene *scene)
{
  return scene->geometry;
}

void
_braggscope_reciprocal_scene_describe (const BraggscopeReciprocalScene *scene,
                                       const int hkl[3],
                                       double direction[3],
                                       double *d_spacing,
                                       gboolean *diffracting)
{
  double r[3], s, e;
  gboolean crossing = FALSE;

  lattice_vector (scene, hkl[0], hkl[1], hkl[2], r);
  for (int i = 0; i < 3; i++)
    direction[i] = r[i] - scene->C[i];
  s = norm (r);
  *d_spacing = s > 0 ? 1.0 / s : INFINITY;
  e = excitation (scene, r);
  if (scene->lattice.phi_range > 0)
    {
      double r0[3], r1[3];

      rotate (r, scene->axis, -0.5 * scene->lattice.phi_range * DEG, r0);
      rotate (r, scene->axis, 0.5 * scene->lattice.phi_range * DEG, r1);
      crossing = (excitation (scene, r0) < 0) != (excitation (scene, r1) < 0);
    }
  *diffracting = crossing || fabs (e) < tolerance (scene, s);
}

/* ------------------------------------------------------------------------- */
/* The camera */

gboolean
_braggscope_reciprocal_look_valid (double *zoom,
                                   double *yaw,
                                   double *pitch,
                                   double *resolution_limit)
{
  if (!isfinite (*zoom) || !isfinite (*yaw) || !isfinite (*pitch) || !isfinite (*resolution_limit))
    return FALSE;
  *zoom = CLAMP (*zoom, RECIPROCAL_MIN_ZOOM, RECIPROCAL_MAX_ZOOM);
  *yaw = remainder (*yaw, 360.0);
  *pitch = CLAMP (*pitch, -90.0, 90.0);
  *resolution_limit = CLAMP (*resolution_limit, 0.0, RECIPROCAL_MAX_RESOLUTION);
  return TRUE;
}

void
_braggscope_reciprocal_look_init (BraggscopeReciprocalLook *look)
{
  memset (look, 0, sizeof *look);
  look->yaw = 25.0;
  look->pitch = 20.0;
  look->zoom = 1.0;
  look->size_by_structure_factor = TRUE;
}

typedef struct
{
  double rows[3][3]; /* lab -> camera: x right, y up, z towards the viewer */
  double centre[3];  /* lab point at the drawing's centre */
  double scale;      /* pixels per 1/Angstrom */
  double cx, cy;     /* the drawing's centre, pixels */
  double k;          /* 1/Angstrom: the radius of the sphere the scale fits */
} Camera;

/* The beam runs left to right, the rotation axis (made normal to it) up, then
 * the camera turns by yaw and pitch. */
static void
camera_init (Camera *cam,
             const BraggscopeReciprocalScene *scene,
             const BraggscopeReciprocalLook *look,
             int width,
             int height)
{
  double x[3], y[3], z[3], along, extent, k;
  /* every caller keeps to the view's range; this keeps the circles drawn
   * within what cairo draws in finite time whatever a look holds */
  double zoom =
      isfinite (look->zoom) ? CLAMP (look->zoom, RECIPROCAL_MIN_ZOOM, RECIPROCAL_MAX_ZOOM) : 1.0;
  double cy = cos (look->yaw * DEG), sy = sin (look->yaw * DEG);
  double cp = cos (look->pitch * DEG), sp = sin (look->pitch * DEG);

  memcpy (x, scene->s0, sizeof x);
  along = dot (scene->axis, x);
  for (int i = 0; i < 3; i++)
    y[i] = scene->axis[i] - along * x[i];
  if (norm (y) < 1e-6)
    {
      double other[3] = { 0, 0, 1 };

      if (fabs (x[2]) > 0.9)
        other[0] = 1, other[2] = 0;
      cross (other, x, y);
    }
  along = norm (y);
  for (int i = 0; i < 3; i++)
    y[i] /= along;
  cross (x, y, z);

  /* yaw about y, then pitch about the new x */
  for (int i = 0; i < 3; i++)
    {
      double xi = cy * x[i] - sy * z[i], zi = sy * x[i] + cy * z[i];
      double yi = cp * y[i] - sp * zi, zi2 = sp * y[i] + cp * zi;

      cam->rows[0][i] = xi;
      cam->rows[1][i] = yi;
      cam->rows[2][i] = zi2;
    }

  /* between the sphere's centre and the origin; zooming in moves towards the
   * origin, where the lattice is.  At a fixed scale both come from the
   * scale's wavelength, so the lattice keeps its place and size. */
  k = look->scale_wavelength > 0 ? 1.0 / look->scale_wavelength : scene->k;
  cam->k = k;
  for (int i = 0; i < 3; i++)
    cam->centre[i] = -0.5 * k * scene->s0[i] / MAX (zoom, 1.0);
  extent = 0.5 * k + MAX (k, scene->s_lim);
  cam->scale = 0.46 * MIN (width, height) / extent * zoom;
  cam->cx = 0.5 * width;
  cam->cy = 0.5 * height;
}

static void
project (const Camera *cam, const double v[3], double *x, double *y, double *depth)
{
  double d[3] = { v[0] - cam->centre[0], v[1] - cam->centre[1], v[2] - cam->centre[2] };

  *x = cam->cx + cam->scale * dot (cam->rows[0], d);
  *y = cam->cy - cam->scale * dot (cam->rows[1], d);
  if (depth != NULL)
    *depth = dot (cam->rows[2], d);
}

/* ------------------------------------------------------------------------- */
/* Splats into the surface's xRGB words */

typedef struct
{
  guint32 *data;
  int stride; /* words */
  int width, height;
} Canvas;

static void
add_pixel (Canvas *cv, int x, int y, int r, int g, int b)
{
  guint32 *p, v;
  int nr, ng, nb;

  if (x < 0 || y < 0 || x >= cv->width || y >= cv->height)
    return;
  p = cv->data + (gsize) y * cv->stride + x;
  v = *p;
  nr = MIN (255, (int) (v >> 16 & 0xff) + r);
  ng = MIN (255, (int) (v >> 8 & 0xff) + g);
  nb = MIN (255, (int) (v & 0xff) + b);
  *p = 0xff000000u | (guint32) nr << 16 | (guint32) ng << 8 | (guint32) nb;
}

static void
blend_disc (Canvas *cv, double x, double y, double radius, const double rgb[3], double alpha)
{
  int x0 = (int) floor (x - radius - 1), x1 = (int) ceil (x + radius + 1);
  int y0 = (int) floor (y - radius - 1), y1 = (int) ceil (y + radius + 1);

  for (int j = MAX (y0, 0); j <= MIN (y1, cv->height - 1); j++)
    for (int i = MAX (x0, 0); i <= MIN (x1, cv->width - 1); i++)
      {
        double dist = hypot (i + 0.5 - x, j + 0.5 - y);
        double a = alpha * CLAMP (radius + 0.5 - dist, 0.0, 1.0);
        guint32 *p = cv->data + (gsize) j * cv->stride + i, v = *p;
        int c[3] = { v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff };

        if (a <= 0)
          continue;
        for (int n = 0; n < 3; n++)
          c[n] = (int) (c[n] * (1.0 - a) + 255.0 * rgb[n] * a + 0.5);
        *p = 0xff000000u | (guint32) c[0] << 16 | (guint32) c[1] << 8 | (guint32) c[2];
      }
}

/* The mosaic spread smears a point along an arc about the origin: here the
 * arc in the screen's plane (normal to the view), sampled every pixel. */
static int
smear_samples (const Camera *cam,
               const BraggscopeReciprocalScene *scene,
               const double r[3],
               double s,
               double *step,
               double axis[3])
{
  double view[3] = { cam->rows[2][0], cam->rows[2][1], cam->rows[2][2] }, a;
  double arc = s * scene->lattice.mosaic_spread * DEG * cam->scale;
  int n;

  if (!(arc > 1.0))
    return 1;
  cross (r, view, axis);
  a = norm (axis);
  if (!(a > 0))
    return 1;
  for (int i = 0; i < 3; i++)
    axis[i] /= a;
  n = MIN ((int) ceil (arc), 24);
  *step = scene->lattice.mosaic_spread * DEG / n;
  return n + 1;
}

/* Draws the points away from the sphere, or (@diffracting) those in
 * diffracting position, counting these by state into @counts. */
static void
splat_points (const BraggscopeReciprocalScene *scene,
              const BraggscopeReciprocalLook *look,
              const Camera *cam,
              Canvas *cv,
              gboolean diffracting,
              guint counts[3])
{
  static const double shell_rgb[3] = { 1.0, 0.78, 0.25 }, crossing_rgb[3] = { 0.45, 1.0, 0.55 };
  double depth_range = scene->k + scene->s_lim;
  /* diffracting points stay apart: at most under half the lattice's spacing on screen */
  double spacing = MIN (MIN (norm (scene->a_star), norm (scene->b_star)), norm (scene->c_star));
  double largest = CLAMP (0.45 * spacing * cam->scale, 1.2, 3.6);

  for (guint i = 0; i < scene->points->len; i++)
    {
      const Point *p = &g_array_index (scene->points, Point, i);
      double r[3] = { p->r[0], p->r[1], p->r[2] }, s = norm (r), axis[3], step = 0;
      double strength = look->size_by_structure_factor ? sqrt (p->intensity) : 0.5;
      int n;

      if ((p->state != POINT_AWAY) != diffracting)
        continue;
      counts[p->state]++;
      n = smear_samples (cam, scene, r, s, &step, axis);
      for (int j = 0; j < n; j++)
        {
          double q[3], x, y, depth;

          if (n > 1)
            rotate (r, axis, (j - 0.5 * (n - 1)) * step, q);
          else
            memcpy (q, r, sizeof q);
          project (cam, q, &x, &y, &depth);
          if (!diffracting)
            {
              /* nearer points brighter; the weak lattice a faint glow */
              double near = 0.65 + 0.35 * CLAMP (depth / depth_range, -1.0, 1.0);
              double v = (0.12 + 0.5 * strength) * near / n;

              add_pixel (cv, (int) floor (x), (int) floor (y), (int) (70 * v), (int) (110 * v),
                         (int) (190 * v));
            }
          else
            {
              double radius = look->size_by_structure_factor
                                  ? largest * (0.3 + 0.7 * pow (p->intensity, 0.25))
                                  : 0.6 * largest;

              blend_disc (cv, x, y, radius, p->state == POINT_CROSSING ? crossing_rgb : shell_rgb,
                          (0.3 + 0.7 * p->weight) / (n > 1 ? sqrt (n) : 1.0));
            }
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Lines and text */

static void
draw_text (cairo_t *cr, double x, double y, const char *text, double size, const double rgba[4])
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  cairo_save (cr);
  /* A dark halo of the text shifted by its outline's width, then the text:
   * glyphs come from cairo's cache, where stroking their outlines took a
   * third of a drawing, at every frame of a drag. */
  cairo_set_source_rgba (cr, 0, 0, 0, 0.45);
  for (int i = 0; i < 4; i++)
    {
      double halo = MAX (1.0, 0.1 * size);

      cairo_move_to (cr, x + (i & 1 ? halo : -halo), y + (i & 2 ? halo : -halo));
      pango_cairo_show_layout (cr, layout);
    }
  cairo_set_source_rgba (cr, rgba[0], rgba[1], rgba[2], rgba[3]);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  pango_font_description_free (font);
  g_object_unref (layout);
}

static void
line (cairo_t *cr, const Camera *cam, const double a[3], const double b[3])
{
  double x0, y0, x1, y1;

  project (cam, a, &x0, &y0, NULL);
  project (cam, b, &x1, &y1, NULL);
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
}

static void
arrow_head (cairo_t *cr, const Camera *cam, const double from[3], const double to[3], double size)
{
  double x0, y0, x1, y1, angle;

  project (cam, from, &x0, &y0, NULL);
  project (cam, to, &x1, &y1, NULL);
  angle = atan2 (y1 - y0, x1 - x0);
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - size * cos (angle - 0.4), y1 - size * sin (angle - 0.4));
  cairo_line_to (cr, x1 - size * cos (angle + 0.4), y1 - size * sin (angle + 0.4));
  cairo_close_path (cr);
  cairo_fill (cr);
}

/* The sphere of radius @k centred at -@k s0 turned by @tilt (rad) about
 * @about through the origin: an orthographic projection is a circle, whose
 * centre and radius (pixels) go into @circle. */
static void
sphere_outline (cairo_t *cr,
                const Camera *cam,
                const double s0[3],
                double k,
                const double about[3],
                double tilt,
                double circle[3])
{
  double c[3];

  for (int i = 0; i < 3; i++)
    c[i] = -k * s0[i];
  if (tilt != 0.0)
    rotate (c, about, tilt, c);
  project (cam, c, &circle[0], &circle[1], NULL);
  circle[2] = k * cam->scale;
  cairo_new_sub_path (cr);
  cairo_arc (cr, circle[0], circle[1], circle[2], 0, 2 * G_PI);
}

/* The Ewald sphere (its outline's centre and radius into @circle) and the
 * spread of spheres around it. */
static void
draw_spheres (cairo_t *cr,
              const BraggscopeReciprocalScene *scene,
              const Camera *cam,
              double unit,
              double circle[3])
{
  const BraggscopeLattice *lat = &scene->lattice;
  double perp1[3], perp2[3], none[3] = { 0, 0, 1 };
  double spread = 0.5 * lat->dispersion, half_div = 0.5 * lat->divergence * DEG;

  /* the spread of spheres: the wavelengths' and the divergent beams' */
  cairo_set_line_width (cr, unit);
  cairo_set_source_rgba (cr, 0.8, 0.8, 0.85, 0.35);
  if (spread > 0)
    {
      sphere_outline (cr, cam, scene->s0, scene->k / (1.0 - spread), none, 0.0, circle);
      sphere_outline (cr, cam, scene->s0, scene->k / (1.0 + spread), none, 0.0, circle);
    }
  if (half_div > 0)
    {
      cross (scene->s0, scene->axis, perp1);
      if (norm (perp1) < 1e-6)
        perp1[0] = 1, perp1[1] = perp1[2] = 0;
      cross (scene->s0, perp1, perp2);
      for (int sign = -1; sign <= 1; sign += 2)
        {
          sphere_outline (cr, cam, scene->s0, scene->k, perp1, sign * half_div, circle);
          sphere_outline (cr, cam, scene->s0, scene->k, perp2, sign * half_div, circle);
        }
    }
  cairo_stroke (cr);

  cairo_set_line_width (cr, 1.5 * unit);
  cairo_set_source_rgba (cr, 0.92, 0.92, 0.95, 0.85);
  sphere_outline (cr, cam, scene->s0, scene->k, none, 0.0, circle);
  cairo_stroke (cr);
}

static void
draw_beam_and_axis (cairo_t *cr,
                    const BraggscopeReciprocalScene *scene,
                    const Camera *cam,
                    double unit,
                    double font)
{
  static const double beam_rgba[4] = { 1.0, 0.4, 0.35, 1.0 }, axis_rgba[4] = { 0.5, 0.8, 1.0, 1.0 };
  double from[3], to[3], origin[3] = { 0, 0, 0 }, x, y;
  double dash[2] = { 6 * unit, 4 * unit };

  /* the beam: through the crystal at the sphere's centre to the origin */
  for (int i = 0; i < 3; i++)
    {
      from[i] = scene->C[i] - 0.9 * scene->k * scene->s0[i];
      to[i] = 0.25 * scene->k * scene->s0[i];
    }
  cairo_set_source_rgba (cr, beam_rgba[0], beam_rgba[1], beam_rgba[2], 0.9);
  cairo_set_line_width (cr, 2 * unit);
  line (cr, cam, from, to);
  cairo_stroke (cr);
  arrow_head (cr, cam, from, to, 9 * unit);
  project (cam, from, &x, &y, NULL);
  draw_text (cr, x, y + 4 * unit, _ ("beam"), font, beam_rgba);

  /* the rotation axis through the origin, as long on screen at any
   * wavelength */
  for (int i = 0; i < 3; i++)
    {
      from[i] = -0.8 * cam->k * scene->axis[i];
      to[i] = 0.8 * cam->k * scene->axis[i];
    }
  cairo_set_source_rgba (cr, axis_rgba[0], axis_rgba[1], axis_rgba[2], 0.8);
  cairo_set_line_width (cr, 1.2 * unit);
  cairo_set_dash (cr, dash, 2, 0);
  line (cr, cam, from, to);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  arrow_head (cr, cam, origin, to, 7 * unit);
  project (cam, to, &x, &y, NULL);
  /* below the caption's line */
  draw_text (cr, x + 4 * unit, MAX (y, 8 * unit + 1.5 * font), _ ("rotation axis φ"), font,
             axis_rgba);

  /* the crystal and the origin of the lattice */
  project (cam, scene->C, &x, &y, NULL);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.9);
  cairo_arc (cr, x, y, 2.5 * unit, 0, 2 * G_PI);
  cairo_fill (cr);
  project (cam, origin, &x, &y, NULL);
  cairo_arc (cr, x, y, 3 * unit, 0, 2 * G_PI);
  cairo_fill (cr);
  draw_text (cr, x + 4 * unit, y + 2 * unit, "000", font, (const double[4]){ 1, 1, 1, 0.9 });
}

static void
draw_highlight (cairo_t *cr,
                const BraggscopeReciprocalScene *scene,
                const BraggscopeReciprocalLook *look,
                const Camera *cam,
                double unit,
                double font)
{
  static const double rgba[4] = { 1, 1, 1, 1 };
  double r[3], dir[3], end[3], x, y, n, d;
  gboolean diffracting;
  g_autofree char *text = NULL;

  lattice_vector (scene, look->highlight[0], look->highlight[1], look->highlight[2], r);
  _braggscope_reciprocal_scene_describe (scene, look->highlight, dir, &d, &diffracting);
  n = norm (dir);
  for (int i = 0; i < 3; i++)
    end[i] = scene->C[i] + 1.35 * scene->k * dir[i] / n;

  /* the diffracted ray from the crystal through the point */
  cairo_set_source_rgba (cr, 1, 1, 1, diffracting ? 0.9 : 0.45);
  cairo_set_line_width (cr, 1.5 * unit);
  line (cr, cam, scene->C, end);
  cairo_stroke (cr);
  arrow_head (cr, cam, scene->C, end, 8 * unit);

  project (cam, r, &x, &y, NULL);
  cairo_set_line_width (cr, 2 * unit);
  cairo_arc (cr, x, y, 8 * unit, 0, 2 * G_PI);
  cairo_stroke (cr);
  text = g_strdup_printf ("%d %d %d", look->highlight[0], look->highlight[1], look->highlight[2]);
  draw_text (cr, x + 9 * unit, y - 9 * unit - font, text, font, rgba);
}

void
_braggscope_reciprocal_scene_draw (const BraggscopeReciprocalScene *scene,
                                   const BraggscopeReciprocalLook *look,
                                   cairo_surface_t *surface,
                                   BraggscopeReciprocalDrawn *drawn)
{
  int width = cairo_image_surface_get_width (surface);
  int height = cairo_image_surface_get_height (surface);
  double unit = MAX (1.0, MIN (width, height) / 600.0);
  /* never under GTK's body font, Sans 10 (13.3 pixels) */
  double font = MAX (10.0 * 96.0 / 72.0, 12.0 * unit);
  static const double text_rgba[4] = { 0.9, 0.9, 0.9, 1 };
  g_autofree char *header = NULL;
  Canvas cv;
  Camera cam;
  cairo_t *cr;
  guint counts[3] = { 0 };
  double circle[3];

  camera_init (&cam, scene, look, width, height);
  cairo_surface_flush (surface);
  cv.data = (guint32 *) cairo_image_surface_get_data (surface);
  cv.stride = cairo_image_surface_get_stride (surface) / 4;
  cv.width = width;
  cv.height = height;
  for (int j = 0; j < height; j++)
    for (int i = 0; i < width; i++)
      cv.data[(gsize) j * cv.stride + i] = 0xff18181cu;
  splat_points (scene, look, &cam, &cv, FALSE, counts);
  cairo_surface_mark_dirty (surface);

  cr = cairo_create (surface);
  draw_spheres (cr, scene, &cam, unit, circle);
  cairo_destroy (cr);

  cairo_surface_flush (surface);
  splat_points (scene, look, &cam, &cv, TRUE, counts);
  cairo_surface_mark_dirty (surface);

  cr = cairo_create (surface);
  draw_beam_and_axis (cr, scene, &cam, unit, font);
  if (look->has_highlight)
    draw_highlight (cr, scene, look, &cam, unit, font);

  /* Translators: the reciprocal view's caption: the wavelength, the resolution
   * limit of the lattice drawn, and the lattice points in diffracting position */
  header = g_strdup_printf (_ ("λ %.3g Å · lattice to %.3g Å · %u of %u points diffract"),
                            scene->lattice.wavelength, 1.0 / scene->s_lim, scene->n_diffracting,
                            scene->points->len);
  draw_text (cr, 8 * unit, 6 * unit, header, font, text_rgba);
  if (look->message != NULL && *look->message != '\0')
    draw_text (cr, 8 * unit, height - 8 * unit - 1.4 * font, look->message, font, text_rgba);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  if (drawn != NULL)
    {
      double origin[3] = { 0, 0, 0 };

      drawn->drawn = TRUE;
      drawn->sphere_x = circle[0];
      drawn->sphere_y = circle[1];
      drawn->sphere_radius = circle[2];
      project (&cam, origin, &drawn->origin_x, &drawn->origin_y, NULL);
      drawn->n_shell = counts[POINT_SHELL];
      drawn->n_crossing = counts[POINT_CROSSING];
    }
}

gboolean
_braggscope_reciprocal_scene_locate (const BraggscopeReciprocalScene *scene,
                                     const BraggscopeReciprocalLook *look,
                                     int width,
                                     int height,
                                     const int hkl[3],
                                     double *x,
                                     double *y,
                                     gboolean *diffracting,
                                     gboolean *crossing)
{
  Camera cam;

  camera_init (&cam, scene, look, width, height);
  for (guint i = 0; i < scene->points->len; i++)
    {
      const Point *p = &g_array_index (scene->points, Point, i);
      double r[3] = { p->r[0], p->r[1], p->r[2] };

      if (p->h != hkl[0] || p->k != hkl[1] || p->l != hkl[2])
        continue;
      project (&cam, r, x, y, NULL);
      *diffracting = p->state != POINT_AWAY;
      *crossing = p->state == POINT_CROSSING;
      return TRUE;
    }
  return FALSE;
}

gboolean
_braggscope_reciprocal_scene_pick (const BraggscopeReciprocalScene *scene,
                                   const BraggscopeReciprocalLook *look,
                                   int width,
                                   int height,
                                   double x,
                                   double y,
                                   int hkl[3])
{
  Camera cam;
  double best = INFINITY;
  const double reach[2] = { 5.0, 10.0 }; /* pixels: away, diffracting */
  gboolean found = FALSE;

  camera_init (&cam, scene, look, width, height);
  for (guint i = 0; i < scene->points->len; i++)
    {
      const Point *p = &g_array_index (scene->points, Point, i);
      double r[3] = { p->r[0], p->r[1], p->r[2] }, px, py, dist;
      gboolean diffracting = p->state != POINT_AWAY;

      project (&cam, r, &px, &py, NULL);
      dist = hypot (px - x, py - y);
      if (dist > reach[diffracting])
        continue;
      /* a diffracting point wins over any point away from the sphere */
      dist -= diffracting ? reach[1] : 0.0;
      if (dist < best)
        {
          best = dist;
          hkl[0] = p->h;
          hkl[1] = p->k;
          hkl[2] = p->l;
          found = TRUE;
        }
    }
  return found;
}
