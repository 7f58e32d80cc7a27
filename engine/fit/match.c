/* match.c: peaks on a measured frame, the match score of a prediction
 * (predict.c) against them, judged against chance (match-chance.c), and the
 * correlation in resolution shells.
 */
#include "nb-match-private.h"
#include "model/nb-model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Peaks                                                                     */

void
nb_peak_options_init (nb_peak_options *opt)
{
  opt->max_peaks = 50;
  opt->min_height = 3.0;
  opt->sigmas = 3.0;
  opt->min_pixels = 2;
  opt->separation = 4;
  opt->block = 32;
  opt->edge = 1;
  opt->box = 2;
  opt->shadow = 24;
}

/* The @k-th smallest of @v (@n values; reordered): Hoare's selection. */
static int32_t
select_kth (int32_t *v, size_t n, size_t k)
{
  size_t lo = 0, hi = n - 1;

  while (lo < hi)
    {
      int32_t pivot = v[lo + (hi - lo) / 2];
      size_t i = lo, j = hi;

      while (i <= j)
        {
          while (v[i] < pivot)
            i++;
          while (v[j] > pivot)
            j--;
          if (i <= j)
            {
              int32_t t = v[i];

              v[i] = v[j];
              v[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        break;
    }
  return v[k];
}

static int
by_intensity (const void *a, const void *b)
{
  const nb_peak *x = a, *y = b;

  if (x->intensity != y->intensity)
    return x->intensity > y->intensity ? -1 : 1;
  if (x->height != y->height)
    return x->height > y->height ? -1 : 1;
  if (x->spixel != y->spixel)
    return x->spixel < y->spixel ? -1 : 1;
  return x->fpixel < y->fpixel ? -1 : x->fpixel > y->fpixel;
}

/* The background of each block x block tile of @frame into @bg (nby x nbx):
 * the median of its valid pixels, 0 when it has none; @tmp holds a tile. */
static void
block_background (const nb_frame *frame, int block, int nbx, int nby, int32_t *tmp, double *bg)
{
  int W = frame->fpixels, H = frame->spixels;

  for (int by = 0; by < nby; by++)
    for (int bx = 0; bx < nbx; bx++)
      {
        size_t m = 0;

        for (int s = by * block; s < H && s < (by + 1) * block; s++)
          for (int f = bx * block; f < W && f < (bx + 1) * block; f++)
            {
              size_t i = (size_t) s * W + f;

              if (frame->mask[i] == NB_PIXEL_VALID)
                tmp[m++] = frame->counts[i];
            }
        bg[(size_t) by * nbx + bx] = m > 0 ? select_kth (tmp, m, m / 2) : 0.0;
      }
}

/* Whether pixel (@f, @s) of @frame, at least max(1, edge) pixels inside it,
 * is a peak over background @b by the tests of @opt; if so, fills @peak. */
static int
peak_at (const nb_frame *frame, const nb_peak_options *opt, int f, int s, double b, nb_peak *peak)
{
  int W = frame->fpixels, H = frame->spixels;
  size_t i = (size_t) s * W + f;
  double c, thr, floor_b, sum = 0, sf = 0, ss = 0, wsum = 0;
  int above = 0, overloaded = 0;

  if (frame->mask[i] == NB_PIXEL_MASKED)
    return 0;
  c = frame->counts[i];
  thr = opt->sigmas * sqrt (b > 1 ? b : 1);
  if (thr < opt->min_height)
    thr = opt->min_height;
  if (c - b < thr || c - b <= 0)
    return 0;
  /* nothing masked nearby: gaps and dead pixels make false maxima */
  for (int ds = -opt->edge; ds <= opt->edge; ds++)
    for (int df = -opt->edge; df <= opt->edge; df++)
      if (frame->mask[i + (ptrdiff_t) ds * W + df] == NB_PIXEL_MASKED)
        return 0;
  floor_b = sqrt (b) > 1 ? sqrt (b) : 1;
  for (int ds = -1; ds <= 1; ds++)
    for (int df = -1; df <= 1; df++)
      {
        size_t j = i + (ptrdiff_t) ds * W + df;
        double cj = frame->counts[j], w = cj - b;

        if (frame->mask[j] == NB_PIXEL_MASKED)
          continue;
        /* a plateau's first pixel in raster order is its maximum */
        if (j != i && (cj > c || (cj == c && j < i)))
          return 0;
        above += w >= floor_b;
      }
  if (above < opt->min_pixels)
    return 0;
  /* intensity and centroid over the box: a spot wider than 3 x 3 pixels, cut by a
   * small box, would have its centroid pulled to the maximum's pixel centre */
  for (int ds = -opt->box; ds <= opt->box; ds++)
    for (int df = -opt->box; df <= opt->box; df++)
      {
        size_t j;
        double w;

        if (s + ds < 0 || s + ds >= H || f + df < 0 || f + df >= W)
          continue;
        j = i + (ptrdiff_t) ds * W + df;
        if (frame->mask[j] == NB_PIXEL_MASKED)
          continue;
        w = frame->counts[j] - b;
        sum += w;
        if (w > 0)
          {
            sf += w * (f + df + 0.5);
            ss += w * (s + ds + 0.5);
            wsum += w;
          }
        overloaded |= frame->mask[j] == NB_PIXEL_OVERLOAD;
      }
  if (!(wsum > 0))
    return 0;
  *peak = (nb_peak){ .f = sf / wsum,
                     .s = ss / wsum,
                     .fpixel = f,
                     .spixel = s,
                     .intensity = sum,
                     .height = c - b,
                     .background = b,
                     .pixels = above,
                     .overloaded = overloaded };
  return 1;
}

nb_status
nb_find_peaks (
    const nb_frame *frame, const nb_peak_options *opt, nb_peak **peaks, int *n_out, nb_error *err)
{
  nb_peak_options defaults;
  int W, H, nbx, nby, e, sb = 0, snx = 0, sny = 0;
  double *bg = NULL;
  uint8_t *shadow = NULL;
  int32_t *tmp = NULL;
  nb_peak *cand = NULL;
  size_t n_cand = 0, cap = 0;
  int n_kept = 0;

  *peaks = NULL;
  *n_out = 0;
  if (opt == NULL)
    {
      nb_peak_options_init (&defaults);
      opt = &defaults;
    }
  if (frame == NULL || frame->counts == NULL || frame->mask == NULL || frame->fpixels < 1 ||
      frame->spixels < 1)
    return nb_error_set (err, NB_ERR_INVALID, "peak search: the frame holds no pixels");
  if (opt->max_peaks < 1 || opt->max_peaks > 1000000 || opt->block < 4 || opt->block > 4096 ||
      opt->edge < 0 || opt->edge > 64 || opt->separation < 0 || opt->separation > 1000 ||
      opt->min_pixels < 1 || opt->min_pixels > 9 || !(opt->min_height >= 0) ||
      !(opt->sigmas >= 0) || opt->box < 1 || opt->box > 16 || opt->shadow < 0 || opt->shadow > 4096)
    return nb_error_set (err, NB_ERR_INVALID,
                         "peak search: options out of range (max_peaks %d, block %d, edge %d, "
                         "separation %d, min_pixels %d, box %d, shadow %d)",
                         opt->max_peaks, opt->block, opt->edge, opt->separation, opt->min_pixels,
                         opt->box, opt->shadow);
  W = frame->fpixels;
  H = frame->spixels;
  e = opt->edge > 1 ? opt->edge : 1;
  nbx = (W + opt->block - 1) / opt->block;
  nby = (H + opt->block - 1) / opt->block;
  bg = malloc ((size_t) nbx * (size_t) nby * sizeof *bg);
  tmp = malloc ((size_t) opt->block * (size_t) opt->block * sizeof *tmp);
  if (bg == NULL || tmp == NULL)
    goto nomem;
  block_background (frame, opt->block, nbx, nby, tmp, bg);
  if (nb_shadow_map (frame, opt->shadow, &shadow, &sb, &snx, &sny) != 0)
    goto nomem;

  for (int s = e; s < H - e; s++)
    for (int f = e; f < W - e; f++)
      {
        nb_peak peak;

        if (shadow != NULL && shadow[(size_t) (s / sb) * snx + f / sb])
          continue;
        if (!peak_at (frame, opt, f, s, bg[(size_t) (s / opt->block) * nbx + f / opt->block],
                      &peak))
          continue;
        if (n_cand == cap)
          {
            size_t grown = cap ? cap * 2 : 1024;
            nb_peak *bigger = realloc (cand, grown * sizeof *bigger);

            if (bigger == NULL)
              goto nomem;
            cand = bigger;
            cap = grown;
          }
        cand[n_cand++] = peak;
      }
  free (bg);
  free (tmp);
  free (shadow);
  bg = NULL;
  tmp = NULL;
  shadow = NULL;

  if (n_cand > 0)
    qsort (cand, n_cand, sizeof *cand, by_intensity);
  /* greedy suppression, strongest first; survivors packed at the front */
  for (size_t i = 0; i < n_cand && n_kept < opt->max_peaks; i++)
    {
      int near = 0;

      for (int j = 0; j < n_kept; j++)
        if (abs (cand[j].fpixel - cand[i].fpixel) < opt->separation &&
            abs (cand[j].spixel - cand[i].spixel) < opt->separation)
          {
            near = 1;
            break;
          }
      if (!near)
        cand[n_kept++] = cand[i];
    }
  if (n_kept == 0)
    {
      free (cand);
      cand = NULL;
    }
  *peaks = cand;
  *n_out = n_kept;
  return NB_OK;

nomem:
  free (bg);
  free (tmp);
  free (shadow);
  free (cand);
  return nb_error_set (err, NB_ERR_NOMEM, "peak search: out of memory");
}

static int
by_panel_intensity (const void *a, const void *b)
{
  const nb_peak *x = a, *y = b;

  if (x->intensity != y->intensity)
    return x->intensity > y->intensity ? -1 : 1;
  if (x->panel != y->panel)
    return x->panel < y->panel ? -1 : 1;
  if (x->spixel != y->spixel)
    return x->spixel < y->spixel ? -1 : 1;
  return x->fpixel < y->fpixel ? -1 : x->fpixel > y->fpixel;
}

/* Panel @d's pixels of @frame (at @base, rows @stride apart) as a frame of
 * its own in @sub (its arrays malloc'ed), the panel's own mask applied. */
static nb_status
cut_panel (
    const nb_frame *frame, const nb_panel *d, size_t base, int stride, nb_frame *sub, nb_error *err)
{
  size_t size = (size_t) d->fpixels * (size_t) d->spixels;

  memset (sub, 0, sizeof *sub);
  sub->path = frame->path;
  sub->format = frame->format;
  sub->fpixels = d->fpixels;
  sub->spixels = d->spixels;
  sub->count_cutoff = frame->count_cutoff;
  sub->counts = malloc (size * sizeof *sub->counts);
  sub->mask = malloc (size);
  if (sub->counts == NULL || sub->mask == NULL)
    {
      free (sub->counts);
      free (sub->mask);
      return nb_error_set (err, NB_ERR_NOMEM, "peak search: out of memory");
    }
  for (int s = 0; s < d->spixels; s++)
    {
      size_t from = base + (size_t) s * (size_t) stride, to = (size_t) s * (size_t) d->fpixels;

      memcpy (sub->counts + to, frame->counts + from, (size_t) d->fpixels * sizeof *sub->counts);
      memcpy (sub->mask + to, frame->mask + from, (size_t) d->fpixels);
    }
  for (size_t i = 0; d->mask != NULL && i < size; i++)
    if (d->mask[i])
      sub->mask[i] = NB_PIXEL_MASKED;
  for (size_t i = 0; i < size; i++)
    sub->n_masked += sub->mask[i] == NB_PIXEL_MASKED;
  return NB_OK;
}

nb_status
nb_find_panel_peaks (const nb_frame *frame,
                     const nb_detector_model *detector,
                     const nb_peak_options *opt,
                     nb_peak **peaks,
                     int *n_out,
                     nb_error *err)
{
  nb_peak_options defaults;
  size_t *base = NULL;
  int *stride = NULL, n = 0;
  nb_peak *all = NULL;
  nb_status st = NB_OK;

  *peaks = NULL;
  *n_out = 0;
  if (detector == NULL || detector->n_panels < 1)
    return nb_find_peaks (frame, opt, peaks, n_out, err);
  if (opt == NULL)
    {
      nb_peak_options_init (&defaults);
      opt = &defaults;
    }
  if (frame == NULL || frame->counts == NULL || frame->mask == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "peak search: the frame holds no pixels");
  base = malloc ((size_t) detector->n_panels * sizeof *base);
  stride = malloc ((size_t) detector->n_panels * sizeof *stride);
  if (base == NULL || stride == NULL)
    {
      st = nb_error_set (err, NB_ERR_NOMEM, "peak search: out of memory");
      goto out;
    }
  st = nb_detector_frame_layout (detector, frame, base, stride, err);
  for (int p = 0; st == NB_OK && p < detector->n_panels; p++)
    {
      nb_frame sub;
      nb_peak *found = NULL, *bigger;
      int got = 0;

      if ((st = cut_panel (frame, &detector->panels[p], base[p], stride[p], &sub, err)) != NB_OK)
        break;
      st = nb_find_peaks (&sub, opt, &found, &got, err);
      free (sub.counts);
      free (sub.mask);
      if (st != NB_OK || got == 0)
        continue;
      bigger = realloc (all, (size_t) (n + got) * sizeof *bigger);
      if (bigger == NULL)
        {
          free (found);
          st = nb_error_set (err, NB_ERR_NOMEM, "peak search: out of memory");
          break;
        }
      all = bigger;
      for (int i = 0; i < got; i++)
        {
          found[i].panel = p;
          all[n++] = found[i];
        }
      free (found);
    }
  if (st == NB_OK && n > 0)
    {
      /* the strongest max_peaks of all panels (each panel's own already apart) */
      qsort (all, (size_t) n, sizeof *all, by_panel_intensity);
      if (n > opt->max_peaks)
        n = opt->max_peaks;
      *peaks = all;
      *n_out = n;
      all = NULL;
    }
out:
  free (all);
  free (base);
  free (stride);
  return st;
}

int
nb_peaks_in_resolution (
    const nb_params *p, nb_peak *peaks, int n, double d_min, double d_max, nb_error *err)
{
  nb_predict_options opt;
  nb_model m;
  int kept = 0;

  nb_predict_options_init (&opt);
  if (nb_model_init (&m, p, &opt, err) != NB_OK ||
      nb_model_check_peaks (&m, peaks, n, err) != NB_OK)
    return -1;
  for (int i = 0; i < n; i++)
    {
      double y[3], s;

      nb_model_peak_vector (&m, peaks[i].panel, peaks[i].f, peaks[i].s, 0.0, y, NULL);
      s = nb_magnitude (y);
      if (d_max > 0 && !(s * d_max >= 1.0))
        continue;
      if (d_min > 0 && !(s * d_min <= 1.0))
        continue;
      peaks[kept++] = peaks[i];
    }
  return kept;
}

nb_status
nb_peaks_resolution_range (
    const nb_params *p, const nb_peak *peaks, int n, double *d_max, double *d_min, nb_error *err)
{
  nb_predict_options opt;
  nb_model m;
  double lo = INFINITY, hi = 0;
  nb_status st;

  *d_max = *d_min = NAN;
  if (n < 1)
    return nb_error_set (err, NB_ERR_INVALID, "the resolution range of no peaks");
  nb_predict_options_init (&opt);
  if ((st = nb_model_init (&m, p, &opt, err)) != NB_OK ||
      (st = nb_model_check_peaks (&m, peaks, n, err)) != NB_OK)
    return st;
  for (int i = 0; i < n; i++)
    {
      double y[3], s;

      nb_model_peak_vector (&m, peaks[i].panel, peaks[i].f, peaks[i].s, 0.0, y, NULL);
      s = nb_magnitude (y);
      lo = s < lo ? s : lo;
      hi = s > hi ? s : hi;
    }
  *d_max = lo > 0 ? 1.0 / lo : INFINITY;
  *d_min = hi > 0 ? 1.0 / hi : INFINITY;
  return NB_OK;
}

/* ------------------------------------------------------------------------ */
/* Scores                                                                    */

nb_status
nb_match_peaks (const nb_params *p,
                const nb_peak *peaks,
                int n,
                const nb_match_options *opt,
                nb_match_result *res,
                nb_peak_match *detail,
                nb_error *err)
{
  nb_match_options defaults;
  nb_model m;
  double sum2 = 0, soft = 0, sigma;
  nb_spot_mask mask;
  uint8_t *masked = NULL;
  nb_status st;

  memset (res, 0, sizeof *res);
  if (opt == NULL)
    {
      nb_match_options_init (&defaults);
      opt = &defaults;
    }
  if (!(opt->radius > 0) || !(opt->alpha > 0 && opt->alpha < 1) || !(opt->trials >= 1))
    return nb_error_set (err, NB_ERR_INVALID,
                         "match options out of range: radius %g pixels (> 0), alpha %g (0 to 1), "
                         "trials %g (>= 1)",
                         opt->radius, opt->alpha, opt->trials);
  if ((st = nb_model_init_masked (&m, p, &opt->predict, &masked, err)) != NB_OK)
    return st;
  if ((st = nb_model_check_peaks (&m, peaks, n, err)) != NB_OK ||
      (st = nb_model_frame_check (&m, opt->frame, &mask, err)) != NB_OK)
    {
      free (masked);
      return st;
    }
  /* a spot on a pixel the panel's mask or the frame masks (a gap, a bad region) is not
   * matched, as the chance area leaves it out */
  mask.panels = masked;
  sigma = opt->radius / 2.0;
  res->n_peaks = n > 0 ? n : 0;
  for (int i = 0; i < n; i++)
    {
      int hkl[3] = { 0, 0, 0 };
      double spot[2] = { NAN, NAN };
      double d =
          nb_model_nearest_masked (&m, m.U0, peaks[i].panel, peaks[i].f, peaks[i].s, 1,
                                   masked != NULL || opt->frame != NULL ? &mask : NULL, hkl, spot);

      if (d <= opt->radius)
        {
          res->n_matched++;
          sum2 += d * d;
        }
      if (isfinite (d))
        soft += exp (-d * d / (2 * sigma * sigma));
      if (detail != NULL)
        {
          detail[i].distance = d;
          detail[i].h = hkl[0];
          detail[i].k = hkl[1];
          detail[i].l = hkl[2];
          detail[i].f = spot[0];
          detail[i].s = spot[1];
          detail[i].panel = peaks[i].panel;
        }
    }
  if (n > 0)
    {
      res->fraction = (double) res->n_matched / n;
      res->soft = soft / n;
    }
  res->rms_distance = res->n_matched > 0 ? sqrt (sum2 / res->n_matched) : 0.0;
  res->distance = m.distance;
  res->beam_f = m.Fbeam;
  res->beam_s = m.Sbeam;
  {
    nb_chance c;

    st = nb_model_chance_masked (&m, m.U0, opt->frame, masked, peaks, n, opt->radius, &c, err);
    free (masked);
    if (st != NB_OK)
      return st;
    nb_match_judge (res, &c, opt->trials, opt->alpha);
  }
  return NB_OK;
}

/* One panel of a shell correlation: its geometry (lengths in m), its own
 * mask (NULL: none), and where its pixels lie in the simulated image (the
 * panels one after another) and in the measured frame (@frame_base + s *
 * @frame_stride + f). */
typedef struct
{
  double pix0[3], fdet[3], sdet[3], pixel;
  int fpixels, spixels;
  const uint8_t *mask;
  size_t image_base, frame_base;
  int frame_stride;
} shell_panel;

/* nb_shell_correlation() over the @n panels @pan with the beam @beam and
 * wavelength @lambda0 (m): the one computation for one panel or many. */
static nb_status
shells_over_panels (const double beam[3],
                    double lambda0,
                    const shell_panel *pan,
                    int n,
                    const float *image,
                    const nb_frame *frame,
                    int n_shells,
                    nb_match_result *res,
                    nb_error *err)
{
  double s0[3], k, lo = INFINITY, hi = 0, v_lo, v_hi;
  double sx[NB_MAX_SHELLS + 1] = { 0 }, sy[NB_MAX_SHELLS + 1] = { 0 },
                            sxx[NB_MAX_SHELLS + 1] = { 0 }, syy[NB_MAX_SHELLS + 1] = { 0 },
                            sxy[NB_MAX_SHELLS + 1] = { 0 };
  long cnt[NB_MAX_SHELLS + 1] = { 0 };
  size_t total = 0;
  float *res_map = NULL;

  for (int p = 0; p < n; p++)
    total += (size_t) pan[p].fpixels * (size_t) pan[p].spixels;
  nb_unitize (beam, s0);
  k = 1.0 / (lambda0 * 1e10);
  res_map = nb_alloc_large (total * sizeof *res_map);
  if (res_map == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "shell correlation: out of memory");
  /* |x| = 2 sin(theta) / lambda at each pixel centre, on its own panel; a pixel counts when
   * the frame holds it as valid and its panel does not mask it */
  for (int p = 0; p < n; p++)
    {
      const shell_panel *d = &pan[p];

      for (int s = 0; s < d->spixels; s++)
        for (int f = 0; f < d->fpixels; f++)
          {
            size_t at = (size_t) s * d->fpixels + f;
            double pos[3], dir[3], x[3], q;

            for (int i = 0; i < 3; i++)
              pos[i] = d->pix0[i] + (f + 0.5) * d->pixel * d->fdet[i] +
                       (s + 0.5) * d->pixel * d->sdet[i];
            nb_unitize (pos, dir);
            for (int i = 0; i < 3; i++)
              x[i] = k * (dir[i] - s0[i]);
            q = nb_magnitude (x);
            res_map[d->image_base + at] = (float) q;
            if (frame->mask[d->frame_base + (size_t) s * d->frame_stride + f] == NB_PIXEL_VALID &&
                (d->mask == NULL || d->mask[at] == 0))
              {
                if (q < lo)
                  lo = q;
                if (q > hi)
                  hi = q;
              }
          }
    }
  res->n_shells = n_shells;
  if (!(hi > lo))
    {
      for (int j = 0; j < n_shells; j++)
        res->shell_cc[j] = NAN;
      res->cc = NAN;
      free (res_map);
      return NB_OK;
    }
  /* equal reciprocal volumes: edges at equal steps of |x|^3 */
  v_lo = lo * lo * lo;
  v_hi = hi * hi * hi;
  for (int p = 0; p < n; p++)
    for (int s = 0; s < pan[p].spixels; s++)
      for (int f = 0; f < pan[p].fpixels; f++)
        {
          const shell_panel *d = &pan[p];
          size_t at = (size_t) s * d->fpixels + f,
                 fi = d->frame_base + (size_t) s * d->frame_stride + f;
          double q, xv, yv;
          int j;

          if (frame->mask[fi] != NB_PIXEL_VALID || (d->mask != NULL && d->mask[at] != 0))
            continue;
          q = res_map[d->image_base + at];
          j = (int) ((q * q * q - v_lo) / (v_hi - v_lo) * n_shells);
          j = j < 0 ? 0 : j >= n_shells ? n_shells - 1 : j;
          xv = image[d->image_base + at];
          yv = frame->counts[fi];
          for (int t = 0; t < 2; t++)
            {
              int in = t ? NB_MAX_SHELLS : j;

              sx[in] += xv;
              sy[in] += yv;
              sxx[in] += xv * xv;
              syy[in] += yv * yv;
              sxy[in] += xv * yv;
              cnt[in]++;
            }
        }
  for (int j = 0; j <= n_shells; j++)
    {
      int at = j == n_shells ? NB_MAX_SHELLS : j;
      double nn = cnt[at], cov, vx, vy, cc = NAN;

      if (nn >= 3)
        {
          cov = sxy[at] - sx[at] * sy[at] / nn;
          vx = sxx[at] - sx[at] * sx[at] / nn;
          vy = syy[at] - sy[at] * sy[at] / nn;
          if (vx > 0 && vy > 0)
            cc = cov / sqrt (vx * vy);
        }
      if (j == n_shells)
        res->cc = cc;
      else
        {
          double a = cbrt (v_lo + (v_hi - v_lo) * j / n_shells);
          double b = cbrt (v_lo + (v_hi - v_lo) * (j + 1) / n_shells);

          res->shell_cc[j] = cc;
          res->shell_pixels[j] = cnt[at];
          res->shell_d_max[j] = a > 0 ? 1.0 / a : INFINITY;
          res->shell_d_min[j] = 1.0 / b;
        }
    }
  free (res_map);
  return NB_OK;
}

/* The shell panel of a one-panel plan's @info: the whole frame. */
static void
shell_panel_of_info (const nb_plan_info *info, shell_panel *d)
{
  memset (d, 0, sizeof *d);
  memcpy (d->pix0, info->pix0, sizeof d->pix0);
  memcpy (d->fdet, info->fdet, sizeof d->fdet);
  memcpy (d->sdet, info->sdet, sizeof d->sdet);
  d->pixel = info->pixel_size;
  d->fpixels = info->fpixels;
  d->spixels = info->spixels;
  d->frame_stride = info->fpixels;
}

/* The checks both entry points make. */
static nb_status
shell_arguments (
    const void *geometry, const float *image, const nb_frame *frame, int n_shells, nb_error *err)
{
  if (frame == NULL || frame->counts == NULL || frame->mask == NULL || image == NULL ||
      geometry == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "shell correlation: no image or frame pixels");
  if (n_shells < 1 || n_shells > NB_MAX_SHELLS)
    return nb_error_set (err, NB_ERR_INVALID, "shell correlation: %d shells (allowed: 1 to %d)",
                         n_shells, NB_MAX_SHELLS);
  return NB_OK;
}

nb_status
nb_shell_correlation (const nb_plan_info *info,
                      const float *image,
                      const nb_frame *frame,
                      int n_shells,
                      nb_match_result *res,
                      nb_error *err)
{
  shell_panel one;
  nb_status st;

  if ((st = shell_arguments (info, image, frame, n_shells, err)) != NB_OK)
    return st;
  if (info->n_panels > 0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "shell correlation: a plan of %d panels: its panels' geometry is the "
                         "plan's (nb_plan_shell_correlation)",
                         info->n_panels);
  if (info->fpixels != frame->fpixels || info->spixels != frame->spixels)
    return nb_error_set (err, NB_ERR_INVALID,
                         "shell correlation: the simulation is %d x %d pixels, the frame %s %d "
                         "x %d",
                         info->fpixels, info->spixels, frame->path ? frame->path : "",
                         frame->fpixels, frame->spixels);
  shell_panel_of_info (info, &one);
  return shells_over_panels (info->beam, info->lambda0, &one, 1, image, frame, n_shells, res, err);
}

nb_status
nb_plan_shell_correlation (const nb_plan *plan,
                           const float *image,
                           const nb_frame *frame,
                           int n_shells,
                           nb_match_result *res,
                           nb_error *err)
{
  const nb_plan_info *info = plan != NULL ? nb_plan_get_info (plan) : NULL;
  const nb_detector_model *det;
  shell_panel *pan = NULL;
  int *stride = NULL, n;
  size_t *base = NULL, offset = 0;
  nb_status st;

  if ((st = shell_arguments (info, image, frame, n_shells, err)) != NB_OK)
    return st;
  det = nb_plan_get_detector_model (plan);
  if (info->n_panels < 1 || det == NULL || det->n_panels != info->n_panels)
    return nb_shell_correlation (info, image, frame, n_shells, res, err);
  n = info->n_panels;
  pan = calloc ((size_t) n, sizeof *pan);
  base = malloc ((size_t) n * sizeof *base);
  stride = malloc ((size_t) n * sizeof *stride);
  if (pan == NULL || base == NULL || stride == NULL)
    {
      st = nb_error_set (err, NB_ERR_NOMEM, "shell correlation: out of memory");
      goto out;
    }
  /* the frame holds the panels at their data origins or one after another */
  if ((st = nb_detector_frame_layout (det, frame, base, stride, err)) != NB_OK)
    goto out;
  for (int p = 0; p < n; p++)
    {
      nb_plan_info pi;

      if ((st = nb_plan_get_panel_info (plan, p, &pi, err)) != NB_OK)
        goto out;
      shell_panel_of_info (&pi, &pan[p]);
      pan[p].mask = det->panels[p].mask;
      pan[p].image_base = offset;
      pan[p].frame_base = base[p];
      pan[p].frame_stride = stride[p];
      offset += (size_t) pi.fpixels * (size_t) pi.spixels;
    }
  st = shells_over_panels (info->beam, info->lambda0, pan, n, image, frame, n_shells, res, err);
out:
  free (pan);
  free (base);
  free (stride);
  return st;
}

nb_status
nb_match_frame (const nb_plan *plan,
                const float *image,
                const nb_frame *frame,
                const nb_peak *peaks,
                int n,
                const nb_match_options *opt,
                nb_match_result *res,
                nb_error *err)
{
  nb_match_result shells;
  nb_match_options with_frame;
  nb_status st;

  if (opt == NULL)
    nb_match_options_init (&with_frame);
  else
    with_frame = *opt;
  if (with_frame.frame == NULL)
    with_frame.frame = frame;
  st = nb_match_peaks (nb_plan_get_params (plan), peaks, n, &with_frame, res, NULL, err);
  if (st != NB_OK)
    return st;
  st = nb_plan_shell_correlation (plan, image, frame, 10, &shells, err);
  if (st != NB_OK)
    return st;
  res->n_shells = shells.n_shells;
  memcpy (res->shell_d_max, shells.shell_d_max, sizeof res->shell_d_max);
  memcpy (res->shell_d_min, shells.shell_d_min, sizeof res->shell_d_min);
  memcpy (res->shell_cc, shells.shell_cc, sizeof res->shell_cc);
  memcpy (res->shell_pixels, shells.shell_pixels, sizeof res->shell_pixels);
  res->cc = shells.cc;
  return NB_OK;
}
