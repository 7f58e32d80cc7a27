/* detector-model.c: the multi-panel detector model's bookkeeping
 * (nb-detector.h); the readers of the geometry files that fill it live
 * beside it. */
#include "nb-detector.h"
#include "base/nb-input.h"
#include "base/nb-textfile.h"
#include "nb-geom.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void
nb_detector_model_init (nb_detector_model *model)
{
  memset (model, 0, sizeof *model);
  model->beam[0] = 1.0;
}

void
nb_detector_model_clear (nb_detector_model *model)
{
  if (model == NULL)
    return;
  for (int p = 0; p < model->n_panels; p++)
    free (model->panels[p].mask);
  free (model->panels);
  nb_detector_model_init (model);
}

long long
nb_detector_model_pixels (const nb_detector_model *model)
{
  long long total = 0;

  for (int p = 0; p < model->n_panels; p++)
    {
      long long n = (long long) model->panels[p].fpixels * model->panels[p].spixels;
      if (n < 0 || total > (long long) (SIZE_MAX / sizeof (float)) - n)
        return -1;
      total += n;
    }
  return total;
}

size_t
nb_detector_model_panel_offset (const nb_detector_model *model, int panel)
{
  size_t offset = 0;

  for (int p = 0; p < panel && p < model->n_panels; p++)
    offset += (size_t) model->panels[p].fpixels * (size_t) model->panels[p].spixels;
  return offset;
}

/* The kinds told apart by their first bytes. */
static nb_detector_file_kind
file_kind (const char *text, size_t len)
{
  static const char hdf5[8] = { '\211', 'H', 'D', 'F', '\r', '\n', '\032', '\n' };
  size_t i = 0;

  if (len >= sizeof hdf5 && memcmp (text, hdf5, sizeof hdf5) == 0)
    return NB_DETECTOR_FILE_NXMX;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
    i++;
  return i < len && text[i] == '{' ? NB_DETECTOR_FILE_EXPT : NB_DETECTOR_FILE_GEOM;
}

nb_status
nb_detector_model_read (const char *path, nb_detector_model *out, nb_error *err)
{
  char head[512], *text;
  size_t len;
  FILE *f;
  struct stat sb;
  nb_status st;

  nb_detector_model_init (out);
  /* the kind from the first bytes: an NXmx file may be far larger than a
   * text geometry is allowed to be */
  if ((st = nb_input_fopen (path, &f, &sb, err)) != NB_OK)
    return st;
  len = fread (head, 1, sizeof head, f);
  fclose (f);
  switch (file_kind (head, len))
    {
      case NB_DETECTOR_FILE_NXMX:
        return nb_error_set (err, NB_ERR_UNSUPPORTED,
                             "%s: a NeXus (HDF5) file: reading its NXdetector_modules needs the "
                             "formats module's NXmx reader",
                             path);
      case NB_DETECTOR_FILE_EXPT:
        return nb_error_set (err, NB_ERR_UNSUPPORTED,
                             "%s: a DIALS experiment list (JSON): reading it needs the formats "
                             "module's .expt reader",
                             path);
      default:
        break;
    }
  if ((st = nb_read_text (path, NB_DETECTOR_FILE_MAX, 0, "allowed for a detector geometry file",
                          &text, &len, err)) != NB_OK)
    return st;
  st = nb_detector_model_parse_geom (path, text, len, out, err);
  free (text);
  return st;
}
