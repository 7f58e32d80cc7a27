/* panels.c: a measured frame of several panels: where each panel's pixels lie
 * in the frame's pixel array, and the peaks of each panel.
 *
 * A frame's pixels are one 2-D array.  A multi-panel detector's file places
 * each panel at its data origin in it (CrystFEL min_fs/min_ss, NXmx
 * data_origin); a simulated image (nb_plan_execute() with a -detector model)
 * holds the panels one after another.  Both are accepted: the data origins
 * when every panel has one and fits the frame, else the panels' order when
 * the frame holds exactly their pixels.  (nb_find_panel_peaks(), which
 * cuts the panels out, is match.c's, beside nb_find_peaks().)
 */
#include "nb-match-private.h"

#include <stdlib.h>

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
nb_detector_frame_layout (const nb_detector_model *detector,
                          const nb_frame *frame,
                          size_t *base,
                          int *stride,
                          nb_error *err)
{
  int (*geom)[4];
  nb_status st;

  if (detector == NULL || detector->n_panels < 1 || frame == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "panel layout: no detector panels or no frame");
  geom = malloc ((size_t) detector->n_panels * sizeof *geom);
  if (geom == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  for (int p = 0; p < detector->n_panels; p++)
    {
      geom[p][0] = detector->panels[p].fpixels;
      geom[p][1] = detector->panels[p].spixels;
      geom[p][2] = detector->panels[p].data_origin_f;
      geom[p][3] = detector->panels[p].data_origin_s;
    }
  st = nb_panels_layout (detector->n_panels, (const int (*)[4]) geom, frame, base, stride, err);
  free (geom);
  return st;
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
