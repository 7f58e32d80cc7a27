/* panels.c: a measured frame of several panels: where each panel's pixels lie
 * in the frame's pixel array, and the peaks of each panel.
 *
 * A frame's pixels are one 2-D array.  A multi-panel detector's file places
 * each panel at its data origin in it (CrystFEL min_fs/min_ss, NXmx
 * data_origin); a simulated image (nb_plan_execute() with a -detector model)
 * holds the panels one after another.  Both are accepted: the data origins
 * when every panel has one and fits the frame, else the panels' order when
 * the frame holds exactly their pixels.
 */
#include "nb-match-private.h"

#include <stdlib.h>
#include <string.h>

nb_status
nb_panels_layout (
    int n, const int (*geom)[4], const nb_frame *frame, size_t *base, int *stride, nb_error *err)
{
  int W = frame->fpixels, H = frame->spixels, by_origin = 1;
  unsigned long long total = 0;

  for (int p = 0; p < n; p++)
    {
      total += (unsigned long long) geom[p][0] * (unsigned long long) geom[p][1];
      if (geom[p][2] < 0 || geom[p][3] < 0 || geom[p][2] > W - geom[p][0] ||
          geom[p][3] > H - geom[p][1])
        by_origin = 0;
    }
  if (n == 1 && W == geom[0][0] && H == geom[0][1])
    by_origin = 0;
  for (int p = 0, offset = 0; p < n; p++)
    {
      if (by_origin)
        {
          base[p] = (size_t) geom[p][3] * (size_t) W + (size_t) geom[p][2];
          stride[p] = W;
        }
      else
        {
          base[p] = (size_t) offset;
          stride[p] = geom[p][0];
          offset += geom[p][0] * geom[p][1];
        }
    }
  if (!by_origin && total != (unsigned long long) W * (unsigned long long) H)
    return nb_error_set (err, NB_ERR_INVALID,
                         "the frame %s is %d x %d pixels: it neither holds the detector's %d "
                         "panel%s at their data origins nor their %llu pixels one after another",
                         frame->path != NULL ? frame->path : "", W, H, n, n == 1 ? "" : "s", total);
  return NB_OK;
}

nb_status
nb_model_frame_layout (
    const nb_model *m, const nb_frame *frame, size_t *base, int *stride, nb_error *err)
{
  int (*geom)[4] = malloc ((size_t) m->n_panels * sizeof *geom);
  nb_status st;

  if (geom == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  for (int p = 0; p < m->n_panels; p++)
    {
      geom[p][0] = m->panels[p].fpixels;
      geom[p][1] = m->panels[p].spixels;
      geom[p][2] = m->panels[p].data_origin_f;
      geom[p][3] = m->panels[p].data_origin_s;
    }
  st = nb_panels_layout (m->n_panels, (const int (*)[4]) geom, frame, base, stride, err);
  free (geom);
  return st;
}

nb_status
nb_model_check_peaks (const nb_model *m, const nb_peak *peaks, int n, nb_error *err)
{
  for (int i = 0; i < n; i++)
    if (peaks[i].panel < 0 || peaks[i].panel >= m->n_panels)
      return nb_error_set (err, NB_ERR_INVALID, "peak %d is on panel %d; the detector has %d", i,
                           peaks[i].panel, m->n_panels);
  return NB_OK;
}

static int
by_intensity (const void *a, const void *b)
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
  int (*geom)[4] = NULL;
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
  geom = malloc ((size_t) detector->n_panels * sizeof *geom);
  base = malloc ((size_t) detector->n_panels * sizeof *base);
  stride = malloc ((size_t) detector->n_panels * sizeof *stride);
  if (geom == NULL || base == NULL || stride == NULL)
    {
      st = nb_error_set (err, NB_ERR_NOMEM, "peak search: out of memory");
      goto out;
    }
  for (int p = 0; p < detector->n_panels; p++)
    {
      geom[p][0] = detector->panels[p].fpixels;
      geom[p][1] = detector->panels[p].spixels;
      geom[p][2] = detector->panels[p].data_origin_f;
      geom[p][3] = detector->panels[p].data_origin_s;
    }
  st = nb_panels_layout (detector->n_panels, (const int (*)[4]) geom, frame, base, stride, err);
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
      qsort (all, (size_t) n, sizeof *all, by_intensity);
      if (n > opt->max_peaks)
        n = opt->max_peaks;
      *peaks = all;
      *n_out = n;
      all = NULL;
    }
out:
  free (all);
  free (geom);
  free (base);
  free (stride);
  return st;
}
