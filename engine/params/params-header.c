/* params-header.c: the headers of -frame, -img and -mask as parameter
 * defaults.
 *
 * Source: nanoBragg.c header ingestion; physics.md §19.7; cli.md (-img,
 * -mask).  The headers are read before every other flag, whatever their
 * position, as the reference does; a measured frame's (-frame, Braggscope's
 * own: nb-frame.h) before those two.
 */
#include "nb-frame.h"
#include "nb-io.h"
#include "nb-param-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One header key for apply_smv_header(): absent (0), or present with a
 * finite number (1) that must also be positive when @positive; any other value
 * is an error naming the file, the line and the key. */
static nb_status
smv_key (const nb_smv_file *f,
         const char *path,
         const char *key,
         int positive,
         double *out,
         int *found,
         nb_error *err)
{
  char raw[48];
  long line;
  int r = nb_smv_lookup (f, key, out, &line, raw, sizeof raw);

  *found = r != 0;
  if (r < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: %s='%s' is not a number", path, line, key,
                         raw);
  if (r > 0 && positive && !(*out > 0.0))
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: %s=%s (allowed: > 0)", path, line, key, raw);
  return NB_OK;
}

/* Whether @f's header is the one nb_smv_header_for_dials() writes
 * (nanobragg-series, nanobragg -physical): DIALS_ORIGIN ended by its ';',
 * which the reference leaves out, and an ADC_OFFSET, which it never writes. */
static int
written_for_dials (const nb_smv_file *f)
{
  const char *line = strstr (f->text, "\nDIALS_ORIGIN=");
  size_t len;

  if (line == NULL || strstr (f->text, "\nADC_OFFSET=") == NULL)
    return 0;
  line++;
  len = strcspn (line, "\r\n");
  while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
    len--;
  return len > 0 && line[len - 1] == ';';
}

/* Applies the keys of an SMV header (-img / -mask) as defaults.  Source:
 * nanoBragg.c header ingestion; physics.md §19.7.  Unlike the reference
 * (atof), a key whose value is not a number, or an impossible value (a
 * pixel size, distance or wavelength <= 0), is an error naming the file and
 * line.  nanoBragg's BEAM_CENTER_X/Y are the writer's Xbeam/Ybeam; a header
 * written for DIALS has dxtbx's instead (FormatSMVJHSim: mm from the first
 * pixel's outer corner less one pixel, Y from the far edge of the slow axis),
 * which go to @beam as the point on the detector they name. */
static nb_status
apply_smv_header (nb_params *p, const char *path, int is_mask, nb_header_beam *beam, nb_error *err)
{
  static const struct
  {
    const char *key;
    int positive;
  } keys[] = {
    { "PIXEL_SIZE", 1 },    { "DISTANCE", 1 },      { "CLOSE_DISTANCE", 1 }, { "WAVELENGTH", 1 },
    { "BEAM_CENTER_X", 0 }, { "BEAM_CENTER_Y", 0 }, { "ORGX", 0 },           { "ORGY", 0 },
    { "PHI", 0 },           { "OSC_RANGE", 0 },
  };
  enum
  {
    K_PIXEL,
    K_DISTANCE,
    K_CLOSE,
    K_WAVE,
    K_BCX,
    K_BCY,
    K_ORGX,
    K_ORGY,
    K_PHI,
    K_OSC,
    K_N
  };
  double v[K_N];
  int found[K_N];
  nb_smv_file f;
  nb_status st = nb_read_smv (path, &f, err);

  if (st != NB_OK)
    return st;
  for (int k = 0; k < K_N; k++)
    if ((st = smv_key (&f, path, keys[k].key, keys[k].positive, &v[k], &found[k], err)) != NB_OK)
      {
        nb_smv_file_clear (&f);
        return st;
      }
  if (f.size1 > NB_MAX_PIXELS || f.size2 > NB_MAX_PIXELS)
    {
      nb_error_set (err, NB_ERR_PARSE,
                    "%s: SIZE1=%d x SIZE2=%d pixels (allowed: up to %d per axis)", path, f.size1,
                    f.size2, NB_MAX_PIXELS);
      nb_smv_file_clear (&f);
      return NB_ERR_PARSE;
    }
  if (found[K_OSC] && v[K_OSC] < 0.0)
    {
      long line;
      char raw[48];

      nb_smv_lookup (&f, "OSC_RANGE", &v[K_OSC], &line, raw, sizeof raw);
      nb_error_set (err, NB_ERR_PARSE, "%s:%ld: OSC_RANGE=%s (allowed: >= 0)", path, line, raw);
      nb_smv_file_clear (&f);
      return NB_ERR_PARSE;
    }

  if (f.size1 > 0)
    p->fpixels = f.size1;
  if (f.size2 > 0)
    p->spixels = f.size2;
  if (found[K_PIXEL])
    p->pixel_size = v[K_PIXEL] / 1000.0;
  p->detsize_f = p->pixel_size * p->fpixels;
  p->detsize_s = p->pixel_size * p->spixels;
  if (found[K_DISTANCE])
    p->distance = v[K_DISTANCE] / 1000.0;
  if (found[K_CLOSE])
    p->close_distance = v[K_CLOSE] / 1000.0;
  if (found[K_WAVE])
    p->lambda0 = v[K_WAVE] / 1e10;
  if (found[K_BCX] && found[K_BCY] && written_for_dials (&f))
    {
      /* the inverse of nb_smv_header_for_dials() */
      beam->have = 1;
      beam->fbeam = v[K_BCX] / 1000.0 + p->pixel_size;
      beam->sbeam = p->detsize_s + p->pixel_size - v[K_BCY] / 1000.0;
    }
  else
    {
      if (found[K_BCX])
        p->Xbeam = v[K_BCX] / 1000.0;
      if (found[K_BCY])
        p->Ybeam = is_mask ? p->detsize_s - v[K_BCY] / 1000.0 : v[K_BCY] / 1000.0;
      if (found[K_BCX] || found[K_BCY])
        beam->have = 0;
    }
  if (found[K_ORGX])
    p->ORGX = v[K_ORGX];
  if (found[K_ORGY])
    p->ORGY = v[K_ORGY];
  if (found[K_PHI])
    p->phi0 = nb_unit_to_field (&nb_unit_deg, v[K_PHI]);
  if (found[K_OSC])
    p->osc = nb_unit_to_field (&nb_unit_deg, v[K_OSC]);
  /* TWOTHETA is read but never applied by the reference. */
  nb_smv_file_clear (&f);
  return NB_OK;
}

/* The -frame_index of @argv (0 when not given), checked against its row's
 * range: the frame is read before the flags are. */
static nb_status
frame_index (nb_params *p, int argc, const char *const *argv, int *index, nb_error *err)
{
  const nb_param *row = nb_param_find ("-frame_index");
  nb_status st;
  double x;

  *index = 0;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp (argv[i], row->flag) == 0)
      {
        if ((st = nb_parse_whole (argv[i], argv[i + 1], &x, err)) != NB_OK)
          return st;
        nb_param_store (row, p, 0, x);
        if ((st = nb_param_check_range (row, p, 0, err)) != NB_OK)
          return st;
        *index = p->frame_index;
      }
  return NB_OK;
}

/* A frame of several modules whose geometry was read (an NXmx file's
 * NXdetector_module groups) is its own -detector file, unless one is given
 * (@detector_flag): its panels replace any model @p had. */
static nb_status
adopt_frame_modules (nb_params *p,
                     const nb_frame *frame,
                     const char *path,
                     int detector_flag,
                     const nb_parse_options *opts,
                     nb_error *err)
{
  char line[NB_ERROR_MESSAGE_MAX];
  char *own;

  if (frame->modules == NULL || detector_flag)
    return NB_OK;
  if ((own = strdup (path)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
  free (p->detector_file);
  p->detector_file = own;
  if (opts != NULL && opts->report != NULL)
    {
      snprintf (line, sizeof line,
                "detector: the frame's %d NXdetector_module groups, adopted as -detector %s",
                frame->modules->n_panels, path);
      opts->report (opts->user, line);
    }
  return NB_OK;
}

/* Applies the header of the measured frame @path as defaults
 * (nb_frame_apply_geometry()), its report line by line to @opts->report:
 * with a -detector model (@detector_flag, one @p has, or the frame's own
 * modules) only the beam's items. */
static nb_status
apply_frame_header (nb_params *p,
                    const char *path,
                    int index,
                    int detector_flag,
                    const nb_parse_options *opts,
                    nb_error *err)
{
  nb_frame frame;
  char *report = NULL;
  unsigned flags;
  nb_status st = nb_frame_read (path, index, NB_FRAME_HEADER_ONLY, &frame, err);

  if (st != NB_OK)
    return st;
  if ((st = adopt_frame_modules (p, &frame, path, detector_flag, opts, err)) != NB_OK)
    {
      nb_frame_clear (&frame);
      return st;
    }
  flags = detector_flag || p->detector_file != NULL ? NB_FRAME_APPLY_PANELS : 0;
  st = nb_frame_apply_geometry_flags (&frame, p, flags,
                                      opts != NULL && opts->report != NULL ? &report : NULL, err);
  nb_frame_clear (&frame);
  for (char *line = report, *end; st == NB_OK && line != NULL && *line != '\0'; line = end + 1)
    {
      if ((end = strchr (line, '\n')) == NULL)
        end = line + strlen (line) - 1;
      else
        *end = '\0';
      opts->report (opts->user, line);
    }
  free (report);
  return st;
}

nb_status
nb_params_apply_headers (nb_params *p,
                         int argc,
                         const char *const *argv,
                         const nb_parse_options *opts,
                         nb_header_beam *beam,
                         nb_error *err)
{
  const char *img = NULL, *mask = NULL, *frame = NULL;
  nb_status st;
  int index, detector_flag = 0;

  for (int i = 1; i + 1 < argc; i++)
    {
      if (strcmp (argv[i], "-img") == 0)
        img = argv[i + 1];
      else if (strcmp (argv[i], "-mask") == 0)
        mask = argv[i + 1];
      else if (strcmp (argv[i], "-frame") == 0)
        frame = argv[i + 1];
      else if (strcmp (argv[i], "-detector") == 0)
        detector_flag = 1;
    }
  /* A measured frame first: -img and -mask, which nanoBragg reads before
   * every flag, come on top of it, as the flags do. */
  if (frame != NULL &&
      ((st = frame_index (p, argc, argv, &index, err)) != NB_OK ||
       (st = apply_frame_header (p, frame, index, detector_flag, opts, err)) != NB_OK))
    return st;
  /* The mask is read first, so the image's keys win. */
  beam->have = 0;
  if (mask != NULL && (st = apply_smv_header (p, mask, 1, beam, err)) != NB_OK)
    return st;
  if (img != NULL && (st = apply_smv_header (p, img, 0, beam, err)) != NB_OK)
    return st;
  beam->kept[0] = p->Xbeam;
  beam->kept[1] = p->Ybeam;
  beam->kept[2] = p->ORGX;
  beam->kept[3] = p->ORGY;
  beam->kept[4] = p->Xclose;
  beam->kept[5] = p->Yclose;
  return NB_OK;
}

void
nb_params_finish_headers (nb_params *p, const nb_header_beam *beam)
{
  const double now[6] = { p->Xbeam, p->Ybeam, p->ORGX, p->ORGY, p->Xclose, p->Yclose };

  if (!beam->have)
    return;
  for (int k = 0; k < 6; k++)
    if (!(now[k] == beam->kept[k] || (isnan (now[k]) && isnan (beam->kept[k]))))
      return;
  nb_params_set_beam_centre (p, beam->fbeam, beam->sbeam);
}
