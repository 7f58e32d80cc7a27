/* frame-write.c: the geometry the frame writers put in their headers (see
 * nb-frame-write.h). */
#include "nb-frame-write.h"

#include <string.h>

void
nb_frame_geometry_from_plan (const nb_plan_info *info,
                             const nb_params *p,
                             long count_cutoff,
                             nb_frame_geometry *g)
{
  memset (g, 0, sizeof *g);
  g->fpixels = info->fpixels;
  g->spixels = info->spixels;
  g->pixel_size = info->pixel_size;
  g->wavelength = info->lambda0;
  g->distance = info->close_distance;
  /* Fbeam, Sbeam and Fclose, Sclose are measured from pix0, the outer corner
   * of the first pixel (the kernel puts pixel i's centre at (i + 0.5) pixels) */
  g->beam_f = info->Fbeam / info->pixel_size;
  g->beam_s = info->Sbeam / info->pixel_size;
  g->close_f = info->Fclose / info->pixel_size;
  g->close_s = info->Sclose / info->pixel_size;
  g->start_angle = info->phi0;
  g->angle_increment = info->osc;
  g->exposure = p->exposure;
  g->flux = p->flux;
  g->polarization = p->polarization;
  g->count_cutoff = count_cutoff;
  g->sensor_thickness = p->detector_thick;
  memcpy (g->fdet, info->fdet, sizeof g->fdet);
  memcpy (g->sdet, info->sdet, sizeof g->sdet);
  memcpy (g->odet, info->odet, sizeof g->odet);
  memcpy (g->beam, info->beam, sizeof g->beam);
  memcpy (g->spindle, info->spindle, sizeof g->spindle);
  memcpy (g->polar_vector, info->polar_vector, sizeof g->polar_vector);
  memcpy (g->pix0, info->pix0, sizeof g->pix0);
}
