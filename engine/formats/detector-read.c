/* detector-read.c: nb_detector_model_read(), which tells a geometry file's
 * kind by its first bytes and hands it to its reader (CrystFEL's here,
 * detector-geom.c; DIALS .expt and NXmx in the formats module). */
#include "nb-detector.h"
#include "base/nb-input.h"
#include "base/nb-textfile.h"
#include "nb-detector-read.h"
#include "nb-geom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        return nb_detector_read_nxmx (path, out, err);
      case NB_DETECTOR_FILE_EXPT:
        return nb_detector_read_expt (path, out, err);
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
