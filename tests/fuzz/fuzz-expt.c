/* fuzz-expt: DIALS experiment lists to the .expt detector reader
 * (nb_detector_read_expt, jansson): a refused file has a one-line message and
 * leaves the model empty; a read one has panels of bounded, finite geometry
 * whose masks can be walked. */
#include "fuzz-util.h"
#include "formats/nb-detector-read.h"

#include <math.h>

static int
finite3 (const double v[3])
{
  return isfinite (v[0]) && isfinite (v[1]) && isfinite (v[2]);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_detector_model m;
  nb_error err;
  long long total;
  volatile unsigned masked = 0;

  if (nb_detector_read_expt (path, &m, &err) != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || m.n_panels != 0 ||
          m.panels != NULL)
        abort ();
      return 0;
    }
  total = nb_detector_model_pixels (&m);
  if (m.n_panels < 1 || m.n_panels > NB_DETECTOR_MAX_PANELS || total < 1 ||
      total > NB_DETECTOR_MAX_PIXELS || !finite3 (m.beam) || !(m.wavelength >= 0))
    abort ();
  for (int p = 0; p < m.n_panels; p++)
    {
      const nb_panel *a = &m.panels[p];

      if (a->fpixels < 1 || a->spixels < 1 || a->fpixels > NB_DETECTOR_MAX_AXIS ||
          a->spixels > NB_DETECTOR_MAX_AXIS || !(a->pixel_size > 0) || !isfinite (a->pixel_size) ||
          !finite3 (a->fdet) || !finite3 (a->sdet) || !finite3 (a->pix0) ||
          fabs (a->fdet[0] * a->fdet[0] + a->fdet[1] * a->fdet[1] + a->fdet[2] * a->fdet[2] - 1) >
              1e-6 ||
          memchr (a->name, '\0', sizeof a->name) == NULL || a->name[0] == '\0')
        abort ();
      if (a->mask != NULL)
        for (size_t k = 0; k < (size_t) a->fpixels * a->spixels; k++)
          masked += a->mask[k];
    }
  nb_detector_model_clear (&m);
  return 0;
}
