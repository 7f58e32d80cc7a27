/* frame.c: measured frames: format detection, names, and the header's
 * geometry applied to a plan's parameters. */
#include "formats/nb-frame-private.h"
#include "base/nb-input.h"
#include "base/nb-log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RTD (180.0 / M_PI)

static const char hdf5_signature[8] = { '\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n' };

const char *
nb_frame_format_name (nb_frame_format format)
{
  switch (format)
    {
      case NB_FRAME_SMV:
        return "SMV";
      case NB_FRAME_MINICBF:
        return "miniCBF";
      case NB_FRAME_CBF:
        return "CBF";
      case NB_FRAME_NEXUS:
        return "NeXus";
    }
  return "unknown";
}

const char *
nb_frame_item_name (nb_frame_item item)
{
  static const char *const names[NB_FRAME_N_ITEMS] = {
    "wavelength", "distance",    "beam centre (fast)", "beam centre (slow)", "pixel size",
    "phi start",  "oscillation", "exposure",           "two-theta",          "sensor thickness",
  };

  return (unsigned) item < NB_FRAME_N_ITEMS ? names[item] : "unknown";
}

static int
is_hdf5 (FILE *fp)
{
  /* the signature sits at 0 or after a user block of 512, 1024, 2048... bytes */
  for (long at = 0; at <= 65536; at = at ? at * 2 : 512)
    {
      char sig[8];

      if (fseek (fp, at, SEEK_SET) != 0 || fread (sig, 1, 8, fp) != 8)
        return 0;
      if (memcmp (sig, hdf5_signature, 8) == 0)
        return 1;
    }
  return 0;
}

/* A CBF file starts with its magic comment or, without one, with a data block
 * after comments and blank lines. */
static int
is_cbf (const char *head, size_t n)
{
  size_t i = 0;

  if (n >= 6 && memcmp (head, "###CBF", 6) == 0)
    return 1;
  while (i < n)
    {
      while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
      if (i < n && head[i] == '#')
        {
          while (i < n && head[i] != '\n')
            i++;
          continue;
        }
      return n - i >= 5 && strncmp (head + i, "data_", 5) == 0;
    }
  return 0;
}

static nb_status
read_frame (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err);

nb_status
nb_frame_read (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err)
{
  return nb_frame_read_budget (path, index, flags, 0.0, 0, frame, err);
}

nb_status
nb_frame_read_budget (const char *path,
                      int index,
                      unsigned flags,
                      double budget,
                      size_t caller_bytes,
                      nb_frame *frame,
                      nb_error *err)
{
  nb_frame_limits limits = { NB_FRAME_MAX_PIXELS, nb_memory_budget (budget), budget > 0.0,
                             caller_bytes };

  nb_frame_set_limits (&limits);
  return read_frame (path, index, flags, frame, err);
}

nb_status
nb_frame_read_limited (
    const char *path, int index, unsigned flags, size_t max_pixels, nb_frame *frame, nb_error *err)
{
  nb_frame_limits limits = { max_pixels, nb_memory_budget (0.0), 0, 0 };

  nb_frame_set_limits (&limits);
  return read_frame (path, index, flags, frame, err);
}

static nb_status
read_frame (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err)
{
  char head[256], shown[40];
  FILE *fp;
  size_t n;
  nb_status st;

  nb_error_clear (err);
  if (frame == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "nb_frame_read: no frame to fill");
  memset (frame, 0, sizeof *frame);
  if (path == NULL || path[0] == '\0')
    return nb_error_set (err, NB_ERR_IO, "cannot open a frame with no file name");
  if (index < 0)
    return nb_error_set (err, NB_ERR_INVALID, "%s: frame index %d is negative", path, index);
  if ((frame->path = strdup (path)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  frame->n_frames = 1;

  if ((st = nb_input_fopen (path, &fp, NULL, err)) != NB_OK)
    {
      nb_frame_clear (frame);
      return st;
    }
  n = fread (head, 1, sizeof head - 1, fp);
  if (ferror (fp))
    {
      int e = errno;

      fclose (fp);
      nb_frame_clear (frame);
      return nb_error_set (err, NB_ERR_IO, "cannot read %s: %s", path, strerror (e));
    }
  head[n] = '\0';

  if (n >= 15 && memcmp (head, "{\nHEADER_BYTES=", 15) == 0)
    {
      rewind (fp);
      st = nb_frame_read_smv (path, fp, flags, frame, err);
    }
  else if (is_cbf (head, n))
    st = nb_frame_read_cbf (path, flags, frame, err);
  else if (is_hdf5 (fp))
    st = nb_frame_read_nexus (path, index, flags, frame, err);
  else if (n >= 2 && (unsigned char) head[0] == 0x1f && (unsigned char) head[1] == 0x8b)
    st =
        nb_error_set (err, NB_ERR_PARSE, "%s: gzip-compressed: decompress it first (gunzip)", path);
  else if (n == 0)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: empty file, not a detector frame", path);
  else
    {
      nb_frame_quote (head, 24, shown, sizeof shown);
      st = nb_error_set (err, NB_ERR_PARSE,
                         "%s: not a detector frame this program reads (SMV, CBF, NeXus/HDF5): "
                         "it starts with '%s'",
                         path, shown);
    }
  fclose (fp);
  if (st == NB_OK && index != 0 && frame->format != NB_FRAME_NEXUS)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: frame %d asked for, but a %s file holds one frame",
                       path, index, nb_frame_format_name (frame->format));
  if (st != NB_OK)
    nb_frame_clear (frame);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Geometry into parameters                                                  */

void
nb_params_set_beam_centre (nb_params *p, double fbeam, double sbeam)
{
  double px = p->pixel_size;
  double detsize_s = p->spixels > 0 ? px * p->spixels : p->detsize_s;

  switch (p->convention)
    {
      case NB_CONVENTION_ADXV:
        p->Xbeam = fbeam;
        p->Ybeam = detsize_s - sbeam;
        break;
      case NB_CONVENTION_MOSFLM:
        p->Xbeam = sbeam - 0.5 * px;
        p->Ybeam = fbeam - 0.5 * px;
        break;
      case NB_CONVENTION_DENZO:
        p->Xbeam = sbeam;
        p->Ybeam = fbeam;
        break;
      case NB_CONVENTION_XDS:
      case NB_CONVENTION_DIALS:
        /* these pivot about the sample: the detector is placed by its origin */
        p->ORGX = fbeam / px + 0.5;
        p->ORGY = sbeam / px + 0.5;
        p->Xbeam = fbeam;
        p->Ybeam = sbeam;
        break;
      case NB_CONVENTION_CUSTOM:
        p->Xbeam = fbeam;
        p->Ybeam = sbeam;
        break;
    }
}

static const char *
convention_label (nb_convention c)
{
  switch (c)
    {
      case NB_CONVENTION_ADXV:
        return "ADXV";
      case NB_CONVENTION_MOSFLM:
        return "MOSFLM";
      case NB_CONVENTION_XDS:
        return "XDS";
      case NB_CONVENTION_DIALS:
        return "DIALS";
      case NB_CONVENTION_DENZO:
        return "DENZO";
      case NB_CONVENTION_CUSTOM:
        return "custom";
    }
  return "custom";
}

/* "<item> <value> from <source>" or "<item>: not in the header, keeps <value>" */
static void
report_item (nb_log *b,
             const nb_frame *f,
             nb_frame_item item,
             double shown_value,
             double kept_value,
             const char *unit)
{
  const nb_frame_value *v = &f->item[item];
  const char *name = nb_frame_item_name (item);

  if (v->have)
    nb_log_printf (b, "%s %.10g %s from %s\n", name, shown_value, unit, v->source);
  else
    nb_log_printf (b, "%s: not in the header, keeps %.10g %s\n", name, kept_value, unit);
}

nb_status
nb_frame_apply_geometry (const nb_frame *f, nb_params *p, char **report, nb_error *err)
{
  return nb_frame_apply_geometry_flags (f, p, 0, report, err);
}

/* The report of nb_frame_apply_geometry_flags(): @q is @p with the header
 * applied; @panels, the detector is a -detector model (only the beam's items
 * applied). */
static void
report_geometry (nb_log *b, const nb_frame *f, const nb_params *p, const nb_params *q, int panels)
{
  const nb_frame_value *it = f->item;
  const char *what = f->path != NULL ? f->path : "the frame";

  nb_log_printf (b, "%s: %s frame %d x %d pixels (%s)", what, nb_frame_format_name (f->format),
                 f->fpixels, f->spixels, f->element_type);
  if (f->n_frames > 1)
    nb_log_printf (b, ", frame %d of %d", f->frame_index, f->n_frames);
  nb_log_printf (b, "\n");
  report_item (b, f, NB_FRAME_WAVELENGTH, q->lambda0 * 1e10, p->lambda0 * 1e10, "A");
  if (panels)
    nb_log_printf (b,
                   "detector: the panels of -detector %s; the header's one-panel geometry "
                   "(pixel size and count, distance, beam centre) is not applied\n",
                   q->detector_file != NULL ? q->detector_file : "");
  else
    {
      report_item (b, f, NB_FRAME_DISTANCE, q->distance * 1e3, p->distance * 1e3, "mm");
      report_item (b, f, NB_FRAME_PIXEL_SIZE, q->pixel_size * 1e3, p->pixel_size * 1e3, "mm");
      nb_log_printf (b, "detector %d x %d pixels from the frame's dimensions\n", q->fpixels,
                     q->spixels);
    }
  if (!panels && it[NB_FRAME_BEAM_F].have && it[NB_FRAME_BEAM_S].have)
    {
      double fb = it[NB_FRAME_BEAM_F].value, sb = it[NB_FRAME_BEAM_S].value;

      nb_log_printf (b, "beam centre %.10g mm fast, %.10g mm slow (%.10g, %.10g pixels) ", fb * 1e3,
                     sb * 1e3, fb / q->pixel_size, sb / q->pixel_size);
      if (q->convention == NB_CONVENTION_XDS || q->convention == NB_CONVENTION_DIALS)
        nb_log_printf (b, "= -ORGX %.10g -ORGY %.10g", q->ORGX, q->ORGY);
      else
        nb_log_printf (b, "= -Xbeam %.10g -Ybeam %.10g", q->Xbeam * 1e3, q->Ybeam * 1e3);
      nb_log_printf (b, " in the %s convention, from %s", convention_label (q->convention),
                     it[NB_FRAME_BEAM_F].source);
      if (strcmp (it[NB_FRAME_BEAM_F].source, it[NB_FRAME_BEAM_S].source) != 0)
        nb_log_printf (b, " and %s", it[NB_FRAME_BEAM_S].source);
      nb_log_printf (b, "\n");
      if (fb < 0 || sb < 0 || fb > q->detsize_f || sb > q->detsize_s)
        nb_log_printf (b, "note: the beam centre lies outside the detector\n");
    }
  else if (!panels)
    nb_log_printf (b, "beam centre: not in the header, keeps the plan's\n");
  report_item (b, f, NB_FRAME_PHI_START, q->phi0 * RTD, p->phi0 * RTD, "deg");
  if (it[NB_FRAME_OSCILLATION].have || p->osc >= 0)
    report_item (b, f, NB_FRAME_OSCILLATION, q->osc * RTD, p->osc * RTD, "deg");
  else
    nb_log_printf (b, "oscillation: not in the header, keeps none\n");
  report_item (b, f, NB_FRAME_EXPOSURE, q->exposure, p->exposure, "s");
  if (it[NB_FRAME_TWOTHETA].have)
    {
      double tt = it[NB_FRAME_TWOTHETA].value;

      if (tt != 0.0)
        nb_log_printf (b,
                       "two-theta %.10g deg from %s: NOT applied (set -twotheta and "
                       "-twotheta_axis for this detector by hand)\n",
                       tt * RTD, it[NB_FRAME_TWOTHETA].source);
      else
        nb_log_printf (b, "two-theta 0 deg from %s (as the plan)\n", it[NB_FRAME_TWOTHETA].source);
    }
  if (it[NB_FRAME_THICKNESS].have)
    nb_log_printf (b, "sensor thickness %.10g mm from %s: not applied\n",
                   it[NB_FRAME_THICKNESS].value * 1e3, it[NB_FRAME_THICKNESS].source);
  if (f->count_cutoff > 0)
    nb_log_printf (b, "count cutoff %lld", (long long) f->count_cutoff);
  else
    nb_log_printf (b, "count cutoff: none given");
  if (f->mask != NULL)
    nb_log_printf (b, "; %ld pixels overloaded, %ld masked\n", f->n_overload, f->n_masked);
  else
    nb_log_printf (b, " (pixels not read)\n");
}

nb_status
nb_frame_apply_geometry_flags (
    const nb_frame *f, nb_params *p, unsigned flags, char **report, nb_error *err)
{
  const nb_frame_value *it = f->item;
  nb_params q = *p; /* shallow: only numbers change, the strings stay p's */
  nb_log b = { 0 };
  const char *what = f->path != NULL ? f->path : "the frame";
  char why[NB_ERROR_MESSAGE_MAX - 80];
  const int panels = (flags & NB_FRAME_APPLY_PANELS) != 0;
  int problem = !panels && nb_frame_detector_problem (f, why, sizeof why);

  if (report != NULL)
    *report = NULL;
  if (problem && !(flags & NB_FRAME_APPLY_AS_FLAT))
    return nb_error_set (err, NB_ERR_UNSUPPORTED, "%s: %s", what, why);
  if (problem && report != NULL)
    nb_log_printf (&b, "note: %s; taken as one flat panel, the geometry the flags give\n", why);

  /* a -detector model places every panel: the header's one panel is not it */
  if (!panels)
    {
      q.fpixels = f->fpixels;
      q.spixels = f->spixels;
      if (it[NB_FRAME_PIXEL_SIZE].have)
        q.pixel_size = it[NB_FRAME_PIXEL_SIZE].value;
      q.detsize_f = q.pixel_size * q.fpixels;
      q.detsize_s = q.pixel_size * q.spixels;
      if (it[NB_FRAME_DISTANCE].have)
        {
          q.distance = it[NB_FRAME_DISTANCE].value;
          q.close_distance = NAN;
        }
      if (it[NB_FRAME_BEAM_F].have && it[NB_FRAME_BEAM_S].have)
        nb_params_set_beam_centre (&q, it[NB_FRAME_BEAM_F].value, it[NB_FRAME_BEAM_S].value);
    }
  if (it[NB_FRAME_WAVELENGTH].have)
    q.lambda0 = it[NB_FRAME_WAVELENGTH].value;
  if (it[NB_FRAME_PHI_START].have)
    q.phi0 = it[NB_FRAME_PHI_START].value;
  if (it[NB_FRAME_OSCILLATION].have)
    q.osc = it[NB_FRAME_OSCILLATION].value;
  if (it[NB_FRAME_EXPOSURE].have)
    q.exposure = it[NB_FRAME_EXPOSURE].value;

  if (report != NULL)
    {
      report_geometry (&b, f, p, &q, panels);
      if (b.nomem)
        {
          free (b.text);
          return nb_error_set (err, NB_ERR_NOMEM, "out of memory reporting %s", what);
        }
      *report = b.text;
    }
  *p = q;
  return NB_OK;
}
