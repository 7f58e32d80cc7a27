/* kernel.c: the pixel loop (double precision, the reference's arithmetic).
 *
 * Source: nanoBragg.c main(), the OpenMP pixel loop, sincg(), sinc3(),
 * polarization_factor(); physics.md §6, §13, §14, §15.3.
 *
 * Two things make the reference's image depend on its thread count: the phi =
 * 0 carry-over and the global switch-off of interpolation at the first
 * out-of-range lookup.  Both are reproduced as the reference behaves
 * with one thread, so the image is the same whatever the number of threads:
 * the carry-over through two orientation tables (crystal.c) and a flag for the
 * first evaluated pixel; the interpolation switch by a second pass over the
 * pixels after the first one that hit it.
 */
#include "nb-kernel.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define R_E_SQR 7.94079248018965e-30

double
nb_polarization_factor (double kahn,
                        const double incident_in[3],
                        double diffracted[3],
                        const double axis[3])
{
  double incident[3], psi = 0.0, c2, c2sq, s2sq;

  nb_unitize (incident_in, incident);
  nb_unitize (diffracted, diffracted);
  c2 = nb_dot (incident, diffracted);
  c2sq = c2 * c2;
  s2sq = 1 - c2sq;
  if (kahn != 0.0)
    {
      double B_in[3], E_in[3];

      nb_cross (axis, incident, B_in);
      nb_unitize (B_in, B_in);
      nb_cross (incident, B_in, E_in);
      nb_unitize (E_in, E_in);
      psi = -atan2 (nb_dot (diffracted, B_in), nb_dot (diffracted, E_in));
    }
  return 0.5 * (1.0 + c2sq - kahn * cos (2 * psi) * s2sq);
}

static inline double
sincg (double x, double N)
{
  if (x == 0.0)
    return N;
  return sin (x * N) / sin (x);
}

static inline double
sinc3 (double x)
{
  if (x == 0.0)
    return 1.0;
  return 3.0 * (sin (x) / x - cos (x)) / (x * x);
}

/* The nearest whole index, ceil(x - 0.5) stored in an int as the reference
 * does; where x is NaN or beyond an int (a source of wavelength 0 read from a
 * '#' line, Q-19) the conversion is undefined in C and x86-64 gives INT_MIN,
 * which is kept here so that such a lookup falls back to default_F there too. */
static inline int
nearest_index (double x)
{
  double r = ceil (x - 0.5);

  return r >= -2147483648.0 && r < 2147483648.0 ? (int) r : INT_MIN;
}

/* The unit vector from the sample to a sub-pixel, and its distance (m).
 * @Odet: depth of the sensor layer (m). */
static inline double
subpixel_ray (const nb_detector *d,
              int fpixel,
              int spixel,
              int subF,
              int subS,
              double Odet,
              double diffracted[3])
{
  const int N = d->oversample;
  double Fdet = d->subpixel_size * (fpixel * N + subF) + d->subpixel_size / 2.0;
  double Sdet = d->subpixel_size * (spixel * N + subS) + d->subpixel_size / 2.0;
  double pos[3];

  for (int k = 0; k < 3; k++)
    pos[k] = Fdet * d->fdet[k] + Sdet * d->sdet[k] + Odet * d->odet[k] + d->pix0[k];
  if (d->curved)
    {
      double v[3], nv[3];

      for (int k = 0; k < 3; k++)
        v[k] = d->distance * d->beam[k];
      nb_rotate_axis (v, d->sdet, pos[1] / d->distance, nv);
      nb_rotate_axis (nv, d->fdet, pos[2] / d->distance, pos);
    }
  return nb_unitize (pos, diffracted);
}

/* The solid angle (sr) of a pixel seen over @airpath, as the reference takes it
 * for each of its sub-pixels. */
static inline double
subpixel_omega (const nb_detector *d, double airpath)
{
  if (d->point_pixel)
    return 1.0 / airpath / airpath;
  return d->pixel_size * d->pixel_size / airpath / airpath * d->close_distance / airpath;
}

/* What rendering one pixel reports back. */
typedef struct
{
  int reached_phi_loop; /* some source passed the dmin cut */
  int interp_off_at;    /* interpolation switched off in this pixel */
  double h, k, l;       /* where (for the warning) */
  int h0, k0, l0;
  double omega_sum;
} pixel_report;

/* One pixel, exactly as the reference's loop body.  @fresh: this is the first
 * pixel of the image to reach the phi loop.  @interp: start with tricubic
 * interpolation on. */
/* The crystal's shape transform at (h, k, l), nearest whole indices (h0,
 * k0, l0): nanoBragg's F_latt for the square (sincg), round (sinc3),
 * Gaussian and flat-top crystals, with its arithmetic. */
static inline double
lattice_factor (
    const nb_params *p, const nb_crystal *x, double h, double k, double l, int h0, int k0, int l0)
{
  const double Na = x->Na, Nb = x->Nb, Nc = x->Nc;
  double F_latt = 1.0;

  if (p->shape == NB_SHAPE_SQUARE)
    {
      if (Na > 1)
        F_latt *= sincg (M_PI * h, Na);
      if (Nb > 1)
        F_latt *= sincg (M_PI * k, Nb);
      if (Nc > 1)
        F_latt *= sincg (M_PI * l, Nc);
    }
  else
    {
      const double *as = x->a_star, *bs = x->b_star, *cs = x->c_star;
      double dx = (h - h0) * as[0] + (k - k0) * bs[0] + (l - l0) * cs[0];
      double dy = (h - h0) * as[1] + (k - k0) * bs[1] + (l - l0) * cs[1];
      double dz = (h - h0) * as[2] + (k - k0) * bs[2] + (l - l0) * cs[2];
      double rad_star_sqr = (dx * dx + dy * dy + dz * dz) * Na * Na * Nb * Nb * Nc * Nc;

      if (p->shape == NB_SHAPE_ROUND)
        {
          double hrad_sqr = (h - h0) * (h - h0) * Na * Na + (k - k0) * (k - k0) * Nb * Nb +
                            (l - l0) * (l - l0) * Nc * Nc;
          F_latt = Na * Nb * Nc * 0.723601254558268 * sinc3 (M_PI * sqrt (hrad_sqr * p->fudge));
        }
      else if (p->shape == NB_SHAPE_GAUSS)
        F_latt = Na * Nb * Nc * exp (-(rad_star_sqr / 0.63 * p->fudge));
      else
        F_latt = Na * Nb * Nc * (rad_star_sqr * p->fudge < 0.3969);
    }
  return F_latt;
}

static double
render_pixel (const nb_plan *plan, int fpixel, int spixel, int fresh, int interp, pixel_report *rep)
{
  const nb_params *p = &plan->params;
  const nb_detector *d = &plan->det;
  const nb_crystal *x = &plan->xtal;
  const nb_sources *src = &plan->src;
  const nb_hkl_grid *g = &plan->hkl;
  const int N = d->oversample;
  const int nsteps = plan->orient.n;
  const int os_thick = p->oversample_thick, os_polar = p->oversample_polar;
  const int os_omega = p->oversample_omega;
  const double water = p->water_size;
  const double *orient = fresh ? plan->orient.first : plan->orient.rest;
  double I = p->physical ? 0.0 : plan->I_bg;
  double polar = p->nopolar ? 1.0 : 0.0;
  double omega = 0.0, capture = 0.0;

  rep->reached_phi_loop = 0;
  rep->interp_off_at = 0;
  rep->omega_sum = 0.0;

  for (int t = 0; t < d->thicksteps; t++)
    {
      double Odet = t * d->thickstep;

      capture = d->thick == 0.0 ? 1.0 : 0.0;
      for (int subS = 0; subS < N; subS++)
        for (int subF = 0; subF < N; subF++)
          {
            double diffracted[3];
            double airpath = subpixel_ray (d, fpixel, spixel, subF, subS, Odet, diffracted);

            if (omega == 0.0 || os_omega)
              omega = subpixel_omega (d, airpath);
            rep->omega_sum += omega;

            if (capture == 0.0 || os_thick)
              {
                double parallax = nb_dot (diffracted, d->odet);

                capture = exp (-t * d->thickstep * d->mu / parallax) -
                          exp (-(t + 1) * d->thickstep * d->mu / parallax);
              }

            for (int s = 0; s < src->count; s++)
              {
                const double *dir = src->dir + 3 * s;
                double incident[3] = { -dir[0], -dir[1], -dir[2] };
                double lambda = src->lambda[s];
                double q[3];

                q[0] = (diffracted[0] - incident[0]) / lambda;
                q[1] = (diffracted[1] - incident[1]) / lambda;
                q[2] = (diffracted[2] - incident[2]) / lambda;
                if (p->dmin > 0.0)
                  {
                    double stol = 0.5 * nb_magnitude (q);
                    if (stol > 0.0 && p->dmin > 0.5 / stol)
                      continue;
                  }
                if (polar == 0.0 || os_polar)
                  polar = nb_polarization_factor (p->polarization, incident, diffracted,
                                                  d->polar_vector);

                for (int j = 0; j < nsteps; j++)
                  {
                    const double *a = orient + 9 * j, *b = a + 3, *c = a + 6;
                    double h = a[0] * q[0] + a[1] * q[1] + a[2] * q[2];
                    double k = b[0] * q[0] + b[1] * q[1] + b[2] * q[2];
                    double l = c[0] * q[0] + c[1] * q[1] + c[2] * q[2];
                    int h0 = nearest_index (h), k0 = nearest_index (k);
                    int l0 = nearest_index (l);
                    double F_latt = lattice_factor (p, x, h, k, l, h0, k0, l0), F_cell;

                    if (F_latt == 0.0 && water == 0.0)
                      continue;

                    if (interp && !nb_hkl_tricubic_in_range (g, h, k, l))
                      {
                        if (!rep->interp_off_at)
                          {
                            rep->interp_off_at = 1;
                            rep->h = h;
                            rep->k = k;
                            rep->l = l;
                            rep->h0 = h0;
                            rep->k0 = k0;
                            rep->l0 = l0;
                          }
                        interp = 0;
                      }
                    if (interp)
                      F_cell = nb_hkl_tricubic (g, h, k, l);
                    else
                      F_cell = nb_hkl_lookup_nearest (g, h0, k0, l0, plan->default_F);

                    I += F_cell * F_cell * F_latt * F_latt;
                    if (os_thick)
                      I *= capture;
                    if (os_polar)
                      I *= polar;
                    if (os_omega)
                      I *= omega;
                  }
                if (!rep->reached_phi_loop)
                  {
                    rep->reached_phi_loop = 1;
                    orient = plan->orient.rest;
                  }
              }
          }
    }

  {
    double test = R_E_SQR * plan->fluence * I / plan->steps;

    if (!os_thick)
      test *= capture;
    if (!os_polar)
      test *= polar;
    if (!os_omega)
      test *= omega;
    /* -physical: the background once, with the pixel's factors (Q-14 corrected) */
    if (p->physical)
      test += R_E_SQR * plan->fluence * plan->I_bg * capture * polar * omega;
    return test;
  }
}

/* The solid angles render_pixel() adds to the total for pixel (@f, @s). */
static double
pixel_omega_sum (const nb_plan *plan, int f, int s)
{
  const nb_detector *d = &plan->det;
  const int N = d->oversample, os_omega = plan->params.oversample_omega;
  double omega = 0.0, sum = 0.0;

  for (int t = 0; t < d->thicksteps; t++)
    for (int subS = 0; subS < N; subS++)
      for (int subF = 0; subF < N; subF++)
        {
          if (omega == 0.0 || os_omega)
            {
              double diffracted[3];

              omega = subpixel_omega (
                  d, subpixel_ray (d, f, s, subF, subS, t * d->thickstep, diffracted));
            }
          sum += omega;
        }
  return sum;
}

double
nb_kernel_masked_omega (const nb_plan *plan)
{
  const nb_detector *d = &plan->det;
  double sum = 0.0;

  if (plan->mask == NULL)
    return 0.0;
  for (int s = d->roi_ymin < 0 ? 0 : d->roi_ymin; s <= d->roi_ymax && s < d->spixels; s++)
    for (int f = d->roi_xmin < 0 ? 0 : d->roi_xmin; f <= d->roi_xmax && f < d->fpixels; f++)
      if (plan->mask[(size_t) s * d->fpixels + f] == 0)
        sum += pixel_omega_sum (plan, f, s);
  return sum;
}

static inline int
pixel_active (const nb_plan *plan, int f, int s)
{
  const nb_detector *d = &plan->det;

  if (f < d->roi_xmin || f > d->roi_xmax || s < d->roi_ymin || s > d->roi_ymax)
    return 0;
  if (plan->mask != NULL && plan->mask[(size_t) s * d->fpixels + f] == 0)
    return 0;
  return 1;
}

double
nb_kernel_render_pixel (const nb_plan *plan, int fpixel, int spixel, int fresh)
{
  pixel_report rep;

  return render_pixel (plan, fpixel, spixel, fresh, 0, &rep);
}

/* The first pixel, in the reference's row-major order, whose rendering
 * reaches the phi loop: it alone starts from the unrotated cell.
 * -1 when the carry-over makes no difference. */
long
nb_kernel_first_phi_pixel (const nb_plan *plan)
{
  const nb_detector *d = &plan->det;
  pixel_report rep;

  if (plan->orient.same)
    return -1;
  for (int s = 0; s < d->spixels; s++)
    for (int f = 0; f < d->fpixels; f++)
      {
        if (!pixel_active (plan, f, s))
          continue;
        if (plan->params.dmin <= 0.0)
          return (long) s * d->fpixels + f;
        render_pixel (plan, f, s, 1, 0, &rep);
        if (rep.reached_phi_loop)
          return (long) s * d->fpixels + f;
      }
  return -1;
}

#define ROW_TILE 8

/* Preview: the centre pixel of each k x k block (clipped to the detector)
 * fills its block; ROI, mask and interpolation as in the full image, without
 * the subtleties. */
static nb_status
execute_preview (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  const nb_detector *d = &plan->det;
  const int fpixels = d->fpixels, spixels = d->spixels, k = opts->preview_stride;
  const int tile = k * ((ROW_TILE + k - 1) / k);
  const int threads = opts->threads > 0 ? opts->threads : 0;

  for (int s0 = 0; s0 < spixels; s0 += tile)
    {
      int s1 = s0 + tile < spixels ? s0 + tile : spixels;

      if (nb_cancel_requested (opts))
        return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
#pragma omp parallel for schedule(dynamic, 1)                                                      \
    num_threads(threads > 0 ? threads : omp_get_max_threads()) if (s1 - s0 > k)
      for (int b = s0; b < s1; b += k)
        {
          int b1 = b + k < s1 ? b + k : s1;
          int sc = b + k / 2 < b1 ? b + k / 2 : b1 - 1;

          for (int f0 = 0; f0 < fpixels; f0 += k)
            {
              int f1 = f0 + k < fpixels ? f0 + k : fpixels;
              int fc = f0 + k / 2 < f1 ? f0 + k / 2 : f1 - 1;
              pixel_report rep;
              float v = (float) render_pixel (plan, fc, sc, 0, plan->interpolate, &rep);

              for (int s = b; s < b1; s++)
                for (int f = f0; f < f1; f++)
                  if (pixel_active (plan, f, s))
                    image[(size_t) s * fpixels + f] = v;
            }
        }
      if (opts->progress)
        opts->progress (opts->user, s1, spixels);
    }
  plan->omega_sum = 0.0;
  return NB_OK;
}

nb_status
nb_kernel_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  const nb_detector *d = &plan->det;
  const int fpixels = d->fpixels, spixels = d->spixels;
  const long first = nb_kernel_first_phi_pixel (plan);
  const int interp = plan->interpolate;
  long first_oor = -1;
  int threads = opts && opts->threads > 0 ? opts->threads : 0;

  memset (image, 0, (size_t) fpixels * spixels * sizeof (float));
  memset (plan->row_omega, 0, (size_t) spixels * sizeof (double));
  if (opts && opts->preview_stride > 1)
    return execute_preview (plan, image, opts, err);

  for (int s0 = 0; s0 < spixels; s0 += ROW_TILE)
    {
      int s1 = s0 + ROW_TILE < spixels ? s0 + ROW_TILE : spixels;
      long tile_oor = -1;

      if (nb_cancel_requested (opts))
        return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
      if (s0 > d->roi_ymax || s1 <= d->roi_ymin)
        continue;
#pragma omp parallel for schedule(dynamic, 1)                                                      \
    num_threads(threads > 0 ? threads : omp_get_max_threads()) if (s1 - s0 > 1)
      for (int s = s0; s < s1; s++)
        {
          double row_omega = 0.0;
          long row_oor = -1;

          for (int f = 0; f < fpixels; f++)
            {
              long idx = (long) s * fpixels + f;
              pixel_report rep;

              if (!pixel_active (plan, f, s))
                continue;
              image[idx] = (float) render_pixel (plan, f, s, idx == first, interp, &rep);
              row_omega += rep.omega_sum;
              if (rep.interp_off_at && row_oor < 0)
                row_oor = idx;
            }
          plan->row_omega[s] = row_omega;
          if (row_oor >= 0)
            {
#pragma omp critical(nb_oor)
              if (tile_oor < 0 || row_oor < tile_oor)
                tile_oor = row_oor;
            }
        }
      if (opts && opts->progress)
        opts->progress (opts->user, s1, spixels);
      if (tile_oor >= 0)
        {
          first_oor = tile_oor;
          break;
        }
    }

  if (first_oor >= 0)
    {
      /* from the first out-of-range lookup on, the reference uses nearest
       * neighbours everywhere.  Redo that pixel (for the warning's values) and
       * everything after it without interpolation. */
      pixel_report rep;
      int fs = (int) (first_oor / fpixels), ff = (int) (first_oor % fpixels);

      render_pixel (plan, ff, fs, first_oor == first, interp, &rep);
      if (!plan->interp_warned)
        {
          nb_log_printf (&plan->log,
                         "WARNING: out of range for three point interpolation: h,k,l,h0,k0,l0: "
                         "%g,%g,%g,%d,%d,%d \nWARNING: further warnings will not be printed! ",
                         rep.h, rep.k, rep.l, rep.h0, rep.k0, rep.l0);
          plan->interp_warned = 1;
        }
      for (int s0 = fs; s0 < spixels; s0 += ROW_TILE)
        {
          int s1 = s0 + ROW_TILE < spixels ? s0 + ROW_TILE : spixels;

          if (nb_cancel_requested (opts))
            return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
#pragma omp parallel for schedule(dynamic, 1)                                                      \
    num_threads(threads > 0 ? threads : omp_get_max_threads()) if (s1 - s0 > 1)
          for (int s = s0; s < s1; s++)
            {
              double row_omega = 0.0;

              for (int f = 0; f < fpixels; f++)
                {
                  long idx = (long) s * fpixels + f;
                  pixel_report r;

                  if (idx < first_oor || !pixel_active (plan, f, s))
                    {
                      if (idx < first_oor && s == fs && pixel_active (plan, f, s))
                        {
                          /* keep the first pass's value and its omega */
                          render_pixel (plan, f, s, idx == first, interp, &r);
                          row_omega += r.omega_sum;
                        }
                      continue;
                    }
                  image[idx] = (float) render_pixel (plan, f, s, idx == first,
                                                     idx == first_oor ? interp : 0, &r);
                  row_omega += r.omega_sum;
                }
              plan->row_omega[s] = row_omega;
            }
          if (opts && opts->progress)
            opts->progress (opts->user, s1, spixels);
        }
    }

  plan->omega_sum = 0.0;
  for (int s = 0; s < spixels; s++)
    plan->omega_sum += plan->row_omega[s];
  return NB_OK;
}
