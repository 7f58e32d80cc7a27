/* braggscope-export.c: a frame to the float and SMV files of the field.
 *
 * The SMV header needs the derived geometry (beam centre in every
 * convention, close distance, XDS origin), which only an engine plan knows;
 * the plugin exposes frames, not plans, so a plan is built here from the
 * frame's flags, without executing it, and the frame's own pixels are
 * written.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-export.h"

#include "nanobragg.h"
#include "nb-io.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

gboolean
braggscope_export_float (BraggscopeFrame *frame, const char *path, GError **error)
{
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);

  return g_file_set_contents_full (path, (const char *) data, n * sizeof (float),
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
}

static int
error_code (nb_status status)
{
  switch (status)
    {
      case NB_ERR_IO:
        return BRAGGSCOPE_ERROR_IO;
      case NB_ERR_PARSE:
        return BRAGGSCOPE_ERROR_PARSE;
      case NB_ERR_NOMEM:
        return BRAGGSCOPE_ERROR_NOMEM;
      case NB_ERR_UNSUPPORTED:
        return BRAGGSCOPE_ERROR_UNSUPPORTED;
      case NB_ERR_USAGE:
      case NB_ERR_INVALID:
        return BRAGGSCOPE_ERROR_INVALID;
      default:
        return BRAGGSCOPE_ERROR_FAILED;
    }
}

/* The header values nanoBragg writes, in the header's units (mm, Angstrom,
 * degrees, pixels), from the plan's derived geometry. */
static void
smv_header_from_plan (const nb_plan *plan, nb_smv_header *h)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  const nb_params *p = nb_plan_get_params (plan);
  const double mm = 1000.0, deg = 180.0 / G_PI;

  memset (h, 0, sizeof *h);
  h->size1 = in->fpixels;
  h->size2 = in->spixels;
  h->pixel_size_mm = in->pixel_size * mm;
  h->distance_mm = in->distance * mm;
  h->wavelength_A = in->lambda0 * 1e10;
  h->beam_center_x_mm = in->Xbeam * mm;
  h->beam_center_y_mm = in->Ybeam * mm;
  /* ADXV counts slow pixels from the other edge; MOSFLM and DENZO swap the axes. */
  h->adxv_center_x_mm = in->Fbeam * mm;
  h->adxv_center_y_mm = (in->detsize_s - in->Sbeam) * mm;
  h->mosflm_center_x_mm = (in->Sbeam - 0.5 * in->pixel_size) * mm;
  h->mosflm_center_y_mm = (in->Fbeam - 0.5 * in->pixel_size) * mm;
  h->denzo_x_beam_mm = in->Sbeam * mm;
  h->denzo_y_beam_mm = in->Fbeam * mm;
  memcpy (h->dials_origin_mm, in->dials_origin, sizeof h->dials_origin_mm);
  h->xds_orgx_px = in->ORGX;
  h->xds_orgy_px = in->ORGY;
  h->close_distance_mm = in->close_distance * mm;
  h->phi_deg = in->phi0 * deg;
  h->osc_start_deg = in->phi0 * deg;
  h->osc_range_deg = in->osc * deg;
  h->twotheta_deg = p->twotheta * deg;
}

gboolean
braggscope_export_smv (BraggscopeFrame *frame, const char *path, GError **error)
{
  char **args = braggscope_frame_get_args (frame);
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);
  nb_params params;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  nb_status status;
  nb_image_stats stats;
  nb_smv_header header;
  g_autofree guint16 *pixels = NULL;

  if (args == NULL || args[0] == NULL)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   _ ("%s: the frame carries no parameters"), path);
      return FALSE;
    }

  nb_params_init (&params);
  /* args[0] is the program name, which the parser skips. */
  status = nb_params_parse_argv (&params, g_strv_length (args), (const char *const *) args, &err);
  if (status == NB_OK)
    status = nb_plan_create (&params, &plan, &err);
  nb_params_clear (&params);
  if (status != NB_OK)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, error_code (status), "%s: %s", path, err.message);
      return FALSE;
    }

  smv_header_from_plan (plan, &header);
  if ((gsize) header.size1 * (gsize) header.size2 != n)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                   _ ("%s: the frame has %lu pixels, its parameters %d × %d"), path,
                   (unsigned long) n, header.size1, header.size2);
      nb_plan_destroy (plan);
      return FALSE;
    }

  pixels = g_new (guint16, n);
  nb_image_statistics (plan, data, &stats);
  nb_image_to_smv (plan, data, &stats, nb_plan_get_params (plan)->intfile_scale,
                   nb_plan_get_params (plan)->adc, pixels);
  status = nb_write_smv (path, &header, pixels, &err);
  nb_plan_destroy (plan);
  if (status != NB_OK)
    {
      g_set_error_literal (error, BRAGGSCOPE_ERROR, error_code (status), err.message);
      return FALSE;
    }
  return TRUE;
}
