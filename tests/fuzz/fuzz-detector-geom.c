/* fuzz-detector-geom: the -detector reader (nb_detector_model_read: CrystFEL
 * geometry, and the refusals of NXmx and .expt by their first bytes), then a
 * plan over the panels read. */
#include "fuzz-util.h"
#include "nb-detector.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_detector_model m;
  nb_params p;
  nb_error err;

  if (nb_detector_model_read (path, &m, &err) != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || m.n_panels != 0)
        abort ();
      return 0;
    }
  if (m.n_panels < 1 || nb_detector_model_pixels (&m) < 1)
    abort ();
  for (int i = 0; i < m.n_panels; i++)
    if (m.panels[i].fpixels < 1 || m.panels[i].spixels < 1 || !(m.panels[i].pixel_size > 0.0))
      abort ();
  nb_detector_model_clear (&m);
  fuzz_scene (&p);
  p.detector_file = strdup (path);
  p.roi[0] = p.roi[2] = 0; /* a pixel of each panel */
  p.roi[1] = p.roi[3] = 0;
  fuzz_plan (&p);
  nb_params_clear (&p);
  return 0;
}
