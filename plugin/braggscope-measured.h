/* braggscope-measured.h: a measured detector frame (SMV, CBF, NeXus/HDF5). */
#pragma once

#include "braggscope-export.h"
#include "braggscope-frame.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * BraggscopeHeaderItem:
 * @BRAGGSCOPE_HEADER_WAVELENGTH: wavelength (Å)
 * @BRAGGSCOPE_HEADER_DISTANCE: sample to detector distance (mm)
 * @BRAGGSCOPE_HEADER_BEAM_CENTER_FAST: beam centre along the fast axis from
 *   the outer corner of pixel (0, 0) (mm)
 * @BRAGGSCOPE_HEADER_BEAM_CENTER_SLOW: the same along the slow axis (mm)
 * @BRAGGSCOPE_HEADER_PIXEL_SIZE: pixel size (mm; square pixels)
 * @BRAGGSCOPE_HEADER_PHI_START: spindle angle at the start of the exposure
 *   (degrees)
 * @BRAGGSCOPE_HEADER_OSCILLATION: spindle rotation during the exposure
 *   (degrees)
 * @BRAGGSCOPE_HEADER_EXPOSURE: exposure time (seconds)
 * @BRAGGSCOPE_HEADER_TWOTHETA: detector two-theta (degrees; read, never
 *   adopted)
 * @BRAGGSCOPE_HEADER_THICKNESS: sensor thickness (mm; read, never adopted)
 *
 * The geometry items a measured frame's header can give, each in the unit
 * of the `nanobragg` flag that takes it.
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_HEADER_WAVELENGTH,
  BRAGGSCOPE_HEADER_DISTANCE,
  BRAGGSCOPE_HEADER_BEAM_CENTER_FAST,
  BRAGGSCOPE_HEADER_BEAM_CENTER_SLOW,
  BRAGGSCOPE_HEADER_PIXEL_SIZE,
  BRAGGSCOPE_HEADER_PHI_START,
  BRAGGSCOPE_HEADER_OSCILLATION,
  BRAGGSCOPE_HEADER_EXPOSURE,
  BRAGGSCOPE_HEADER_TWOTHETA,
  BRAGGSCOPE_HEADER_THICKNESS,
} BraggscopeHeaderItem;

/**
 * BraggscopeMeasuredFrame:
 *
 * A measured detector frame, read whole from an SMV file (ADSC, Rayonix,
 * Timepix, nanoBragg), a CBF file (miniCBF with its Pilatus/Eiger header, or
 * full imgCIF with its axis categories, through CBFlib) or a NeXus/HDF5 NXmx
 * master file (one frame of the series by index, through libhdf5).  The
 * reader is chosen by the file's first bytes, not its name.
 *
 * It holds the raw counts as the file gave them
 * ([method@Braggscope.MeasuredFrame.get_counts]), the same pixels as floats
 * for display and comparison with NaN where a pixel is no measurement
 * ([method@Braggscope.MeasuredFrame.get_pixels]), and the geometry its header
 * gave, each value with the header text it came from
 * ([method@Braggscope.MeasuredFrame.get_header_value],
 * [method@Braggscope.MeasuredFrame.get_report]).
 * [method@Braggscope.Simulation.adopt_geometry] makes a simulation's
 * detector that of the frame, and
 * [property@Braggscope.Simulation:measured-frame] scores every frame of a
 * simulation against it.
 *
 * A measured frame is immutable and may be read from any thread.
 *
 * Since: 0.1
 */
#define BRAGGSCOPE_TYPE_MEASURED_FRAME (braggscope_measured_frame_get_type ())

BRAGGSCOPE_EXPORT
G_DECLARE_FINAL_TYPE (
    BraggscopeMeasuredFrame, braggscope_measured_frame, BRAGGSCOPE, MEASURED_FRAME, GObject)

BRAGGSCOPE_EXPORT
BraggscopeMeasuredFrame *
braggscope_measured_frame_new_from_file (const char *path, int index, GError **error);
BRAGGSCOPE_EXPORT
void braggscope_measured_frame_load_async (const char *path,
                                           int index,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
BRAGGSCOPE_EXPORT
BraggscopeMeasuredFrame *braggscope_measured_frame_load_finish (GAsyncResult *result,
                                                                GError **error);

BRAGGSCOPE_EXPORT
const char *braggscope_measured_frame_get_path (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_measured_frame_get_index (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_measured_frame_get_n_frames (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
const char *braggscope_measured_frame_get_format (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
const char *braggscope_measured_frame_get_element_type (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_measured_frame_get_width (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_measured_frame_get_height (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
GBytes *braggscope_measured_frame_get_pixels (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
GBytes *braggscope_measured_frame_get_counts (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
gint64 braggscope_measured_frame_get_count_cutoff (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
gint64 braggscope_measured_frame_get_n_masked (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
gint64 braggscope_measured_frame_get_n_overloaded (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
double braggscope_measured_frame_get_total_counts (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_measured_frame_get_header_value (BraggscopeMeasuredFrame *self,
                                                     BraggscopeHeaderItem item,
                                                     double *value);
BRAGGSCOPE_EXPORT
const char *braggscope_measured_frame_get_header_source (BraggscopeMeasuredFrame *self,
                                                         BraggscopeHeaderItem item);
BRAGGSCOPE_EXPORT
const char *braggscope_measured_frame_get_detector_problem (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
char *braggscope_measured_frame_get_report (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_measured_frame_get_n_panels (BraggscopeMeasuredFrame *self);
BRAGGSCOPE_EXPORT
GBytes *braggscope_measured_frame_lay_out (
    BraggscopeMeasuredFrame *self, BraggscopeFrame *frame, int *width, int *height, GError **error);

G_END_DECLS
