/* fuzz-frame.h: what the three frame targets (fuzz-frame-smv.c,
 * fuzz-frame-cbf.c, fuzz-frame-nexus.c) do with an input of their format:
 * read it whole and header-only (nb_frame_read_limited, a megapixel at most),
 * check what came back, apply its geometry to parameters and validate them,
 * and find its peaks. */
#pragma once

#include "fuzz-util.h"
#include "nb-frame.h"
#include "nb-match.h"

#include <math.h>

/* 1 megapixel: a header claiming more is refused before allocating */
#define FUZZ_FRAME_PIXELS ((size_t) 1 << 20)

static inline void
fuzz_check_error (const nb_error *err, const nb_frame *f, const char *path)
{
  if (err->message[0] == '\0' || strchr (err->message, '\n') != NULL ||
      strstr (err->message, path) == NULL || f->counts != NULL || f->mask != NULL ||
      f->header != NULL || f->path != NULL)
    {
      fprintf (stderr, "bad failure: '%s'\n", err->message);
      abort ();
    }
}

static inline void
fuzz_frame_input (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_frame f, head;
  nb_error err;
  nb_status st_head;
  size_t n;
  long masked = 0, overload = 0;

  /* the header alone: fine or refused, never more */
  st_head = nb_frame_read_limited (path, 0, NB_FRAME_HEADER_ONLY, FUZZ_FRAME_PIXELS, &head, &err);
  if (st_head != NB_OK)
    fuzz_check_error (&err, &head, path);
  if (nb_frame_read_limited (path, 0, 0, FUZZ_FRAME_PIXELS, &f, &err) != NB_OK)
    {
      fuzz_check_error (&err, &f, path);
      nb_frame_clear (&head);
      return;
    }
  /* a whole frame read means its header was fine too, with the same dimensions */
  if (st_head != NB_OK || head.fpixels != f.fpixels || head.spixels != f.spixels ||
      head.counts != NULL)
    abort ();
  nb_frame_clear (&head);
  if (f.fpixels < 1 || f.spixels < 1 || f.fpixels > 65536 || f.spixels > 65536 ||
      f.counts == NULL || f.mask == NULL)
    abort ();
  n = (size_t) f.fpixels * f.spixels;
  if (n > FUZZ_FRAME_PIXELS)
    abort ();
  for (size_t i = 0; i < n; i++)
    {
      if (f.mask[i] > NB_PIXEL_OVERLOAD || (f.counts[i] < 0 && f.mask[i] != NB_PIXEL_MASKED))
        abort ();
      masked += f.mask[i] == NB_PIXEL_MASKED;
      overload += f.mask[i] == NB_PIXEL_OVERLOAD;
    }
  if (masked != f.n_masked || overload != f.n_overload)
    abort ();
  for (int k = 0; k < NB_FRAME_N_ITEMS; k++)
    if (f.item[k].have && (!isfinite (f.item[k].value) || f.item[k].source[0] == '\0' ||
                           strlen (f.item[k].source) >= NB_FRAME_SOURCE_MAX))
      abort ();

  {
    nb_params p;
    char *report = NULL;

    fuzz_scene (&p);
    if (nb_frame_apply_geometry (&f, &p, &report, &err) != NB_OK || report == NULL)
      abort ();
    free (report);
    if (nb_params_validate (&p, &err) != NB_OK &&
        (err.message[0] == '\0' || strchr (err.message, '\n') != NULL))
      abort ();
    nb_params_clear (&p);
  }
  {
    nb_peak *peaks = NULL;
    int n_peaks;

    if (nb_find_peaks (&f, NULL, &peaks, &n_peaks, &err) != NB_OK)
      abort ();
    for (int i = 0; i < n_peaks; i++)
      if (f.mask[(size_t) peaks[i].spixel * f.fpixels + peaks[i].fpixel] == NB_PIXEL_MASKED ||
          !isfinite (peaks[i].f) || !isfinite (peaks[i].s))
        abort ();
    free (peaks);
  }
  nb_frame_clear (&f);
}
