/* braggscope-measured.c: BraggscopeMeasuredFrame, a measured detector frame
 * read by the engine's readers (nb-frame.h), as GBytes a view can draw and
 * header values in the units of nanoBragg's flags. */
#include "braggscope-measured.h"
#include "braggscope-private.h"

#include <math.h>
#include <string.h>

struct _BraggscopeMeasuredFrame
{
  GObject parent_instance;

  nb_frame frame; /* counts, mask, header items; never changed after loading */
  GBytes *pixels; /* float32, NaN where the mask says no measurement */
  double total_counts;
  char *detector_problem; /* nb_frame_detector_problem()'s reason, or NULL */
};

G_DEFINE_FINAL_TYPE (BraggscopeMeasuredFrame, braggscope_measured_frame, G_TYPE_OBJECT)

/* From the engine's SI units to those of nanoBragg's flags, in
 * nb_frame_item's order (BraggscopeHeaderItem follows it). */
static const double item_scale[NB_FRAME_N_ITEMS] = {
  [NB_FRAME_WAVELENGTH] = 1e10,
  [NB_FRAME_DISTANCE] = 1e3,
  [NB_FRAME_BEAM_F] = 1e3,
  [NB_FRAME_BEAM_S] = 1e3,
  [NB_FRAME_PIXEL_SIZE] = 1e3,
  [NB_FRAME_PHI_START] = 180.0 / G_PI,
  [NB_FRAME_OSCILLATION] = 180.0 / G_PI,
  [NB_FRAME_EXPOSURE] = 1.0,
  [NB_FRAME_TWOTHETA] = 180.0 / G_PI,
  [NB_FRAME_THICKNESS] = 1e3,
};
static const char *const item_unit[NB_FRAME_N_ITEMS] = {
  "A", "mm", "mm", "mm", "mm", "deg", "deg", "s", "deg", "mm",
};

G_STATIC_ASSERT (BRAGGSCOPE_HEADER_THICKNESS + 1 == NB_FRAME_N_ITEMS);
G_STATIC_ASSERT ((int) BRAGGSCOPE_HEADER_BEAM_CENTER_SLOW == (int) NB_FRAME_BEAM_S);
G_STATIC_ASSERT ((int) BRAGGSCOPE_HEADER_EXPOSURE == (int) NB_FRAME_EXPOSURE);

static void
measured_frame_finalize (GObject *object)
{
  BraggscopeMeasuredFrame *self = BRAGGSCOPE_MEASURED_FRAME (object);

  g_clear_pointer (&self->pixels, g_bytes_unref);
  g_clear_pointer (&self->detector_problem, g_free);
  nb_frame_clear (&self->frame);
  G_OBJECT_CLASS (braggscope_measured_frame_parent_class)->finalize (object);
}

static void
braggscope_measured_frame_class_init (BraggscopeMeasuredFrameClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = measured_frame_finalize;
}

static void
braggscope_measured_frame_init (BraggscopeMeasuredFrame *self)
{
}

/* The display pixels of @self's frame: counts as floats, NaN where the mask
 * says the count is no measurement (a gap, a bad pixel, an overload). */
static gboolean
measured_frame_make_pixels (BraggscopeMeasuredFrame *self, GError **error)
{
  const nb_frame *f = &self->frame;
  gsize n = (gsize) f->fpixels * (gsize) f->spixels;
  float *data = g_try_new (float, n);
  double total = 0.0;

  if (data == NULL)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM,
                   "%s: out of memory for %d x %d pixels", f->path, f->fpixels, f->spixels);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    if (f->mask[i] == NB_PIXEL_VALID)
      {
        data[i] = (float) f->counts[i];
        total += f->counts[i];
      }
    else
      data[i] = NAN;
  self->pixels = g_bytes_new_take (data, n * sizeof *data);
  self->total_counts = total;
  return TRUE;
}

/**
 * braggscope_measured_frame_new_from_file:
 * @path: (type filename): an SMV, CBF or NeXus/HDF5 file
 * @index: the frame of a NeXus series (0-based); 0 for SMV and CBF files
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Reads frame @index of @path, whole, on the calling thread (a 16-million
 * pixel CBF takes a second or so: hosts with a user interface use
 * [func@Braggscope.MeasuredFrame.load_async]).  The whole file is checked:
 * an SMV file must be exactly its header and its pixels, a CBF binary
 * section must decode to the size it declares, a NeXus dataset must use
 * filters this libhdf5 has.
 *
 * Fails with `BRAGGSCOPE_ERROR_IO` when the file cannot be opened or read
 * or is not a regular file (a named pipe, a terminal: never waited on),
 * `BRAGGSCOPE_ERROR_PARSE` when it is no frame format, its header is
 * malformed or inconsistent, its pixel data is truncated or of an unknown
 * type or compression, or @index is out of range,
 * `BRAGGSCOPE_ERROR_NOMEM` when the frame (its counts, mask and the float
 * copy the view draws) would need more than the engine's memory budget, half
 * of what the process may use (the physical memory, or less under a `ulimit
 * -v` or a cgroup limit), checked before anything is allocated, and
 * `BRAGGSCOPE_ERROR_UNSUPPORTED` for a CBF or NeXus file in a build without
 * CBFlib or libhdf5.  The message is one line naming @path and the reason.
 *
 * A frame whose header describes a detector one flat panel cannot represent
 * is read all the same: [method@Braggscope.MeasuredFrame.get_detector_problem]
 * says so, and its geometry is not adopted, unless the file places its
 * modules itself (an NXmx file of several `NXdetector_module` groups:
 * [method@Braggscope.MeasuredFrame.get_n_panels]), which are then adopted
 * as the simulation's panels.
 *
 * Returns: (transfer full): the frame, or %NULL with @error set
 *
 * Since: 0.1
 */
BraggscopeMeasuredFrame *
braggscope_measured_frame_new_from_file (const char *path, int index, GError **error)
{
  g_autoptr (BraggscopeMeasuredFrame) self = NULL;
  nb_error err = { 0 };

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (index < 0)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "%s: frame index %d (0-based, at least 0)", path, index);
      return NULL;
    }
  self = g_object_new (BRAGGSCOPE_TYPE_MEASURED_FRAME, NULL);
  /* the engine's one budget, counting the float copy made below */
  if (nb_frame_read_budget (path, index, 0, 0.0, sizeof (float), &self->frame, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return NULL;
    }
  if (!measured_frame_make_pixels (self, error))
    return NULL;
  {
    char why[NB_ERROR_MESSAGE_MAX];

    /* a frame of several modules whose geometry was read is adopted as
     * those panels (braggscope_simulation_adopt_geometry) */
    if (self->frame.modules == NULL && nb_frame_detector_problem (&self->frame, why, sizeof why))
      self->detector_problem = g_strdup (why);
  }
  return g_steal_pointer (&self);
}

typedef struct
{
  char *path;
  int index;
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *d = data;

  g_free (d->path);
  g_free (d);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadData *d = task_data;
  GError *error = NULL;
  BraggscopeMeasuredFrame *frame;

  if (g_task_return_error_if_cancelled (task))
    return;
  frame = braggscope_measured_frame_new_from_file (d->path, d->index, &error);
  if (frame == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, frame, g_object_unref);
}

/**
 * braggscope_measured_frame_load_async:
 * @path: (type filename): an SMV, CBF or NeXus/HDF5 file
 * @index: the frame of a NeXus series (0-based); 0 for SMV and CBF files
 * @cancellable: (nullable): a [class@Gio.Cancellable], or %NULL
 * @callback: (scope async): called on the thread-default main context of
 *   the calling thread when the frame is read
 * @user_data: data for @callback
 *
 * [ctor@Braggscope.MeasuredFrame.new_from_file] on a thread of GIO's pool;
 * @callback calls [func@Braggscope.MeasuredFrame.load_finish].  A read that
 * has begun runs to its end; cancelling before it begins, or while it runs,
 * makes the finish fail with `BRAGGSCOPE_ERROR_CANCELLED`.
 *
 * Since: 0.1
 */
void
braggscope_measured_frame_load_async (const char *path,
                                      int index,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  LoadData *d;

  g_return_if_fail (path != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, braggscope_measured_frame_load_async);
  d = g_new0 (LoadData, 1);
  d->path = g_strdup (path);
  d->index = index;
  g_task_set_task_data (task, d, load_data_free);
  g_task_run_in_thread (task, load_thread);
}

/**
 * braggscope_measured_frame_load_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * The frame [func@Braggscope.MeasuredFrame.load_async] read.  Fails as
 * [ctor@Braggscope.MeasuredFrame.new_from_file] does
 * (`BRAGGSCOPE_ERROR_IO`, `BRAGGSCOPE_ERROR_PARSE`,
 * `BRAGGSCOPE_ERROR_NOMEM`, `BRAGGSCOPE_ERROR_UNSUPPORTED`), and with
 * `BRAGGSCOPE_ERROR_CANCELLED` when the load was cancelled.
 *
 * Returns: (transfer full): the frame, or %NULL with @error set
 *
 * Since: 0.1
 */
BraggscopeMeasuredFrame *
braggscope_measured_frame_load_finish (GAsyncResult *result, GError **error)
{
  GTask *task = G_TASK (result);
  g_autoptr (GError) failed = NULL;
  BraggscopeMeasuredFrame *frame;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  /* a cancelled task returns GIO's error, whatever the thread returned */
  frame = g_task_propagate_pointer (task, &failed);
  if (frame != NULL)
    return frame;
  if (g_error_matches (failed, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED, "loading %s cancelled",
                 ((LoadData *) g_task_get_task_data (task))->path);
  else
    g_propagate_error (error, g_steal_pointer (&failed));
  return NULL;
}

/**
 * braggscope_measured_frame_get_path:
 * @self: a measured frame
 *
 * The file the frame was read from, as given.
 *
 * Returns: (type filename): the path, owned by @self
 *
 * Since: 0.1
 */
const char *
braggscope_measured_frame_get_path (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  return self->frame.path;
}

/**
 * braggscope_measured_frame_get_index:
 * @self: a measured frame
 *
 * The frame of the file this is (0-based; 0 but for NeXus series).
 *
 * Returns: the index
 *
 * Since: 0.1
 */
int
braggscope_measured_frame_get_index (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.frame_index;
}

/**
 * braggscope_measured_frame_get_n_frames:
 * @self: a measured frame
 *
 * The number of frames the file holds (1 for SMV and CBF files).
 *
 * Returns: the count of frames
 *
 * Since: 0.1
 */
int
braggscope_measured_frame_get_n_frames (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.n_frames;
}

/**
 * braggscope_measured_frame_get_format:
 * @self: a measured frame
 *
 * The file's format: `SMV`, `miniCBF` (a CBF whose geometry is its
 * Pilatus header), `CBF` (full imgCIF, geometry from its axis categories)
 * or `NeXus`.
 *
 * Returns: the format's name, a static string
 *
 * Since: 0.1
 */
const char *
braggscope_measured_frame_get_format (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  return nb_frame_format_name (self->frame.format);
}

/**
 * braggscope_measured_frame_get_element_type:
 * @self: a measured frame
 *
 * The file's pixel type, such as `unsigned 16-bit` or `signed 32-bit`.
 *
 * Returns: the type, owned by @self
 *
 * Since: 0.1
 */
const char *
braggscope_measured_frame_get_element_type (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  return self->frame.element_type;
}

/**
 * braggscope_measured_frame_get_width:
 * @self: a measured frame
 *
 * The frame's width: pixels along the fast axis.
 *
 * Returns: the width in pixels
 *
 * Since: 0.1
 */
int
braggscope_measured_frame_get_width (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.fpixels;
}

/**
 * braggscope_measured_frame_get_height:
 * @self: a measured frame
 *
 * The frame's height: pixels along the slow axis.
 *
 * Returns: the height in pixels
 *
 * Since: 0.1
 */
int
braggscope_measured_frame_get_height (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.spixels;
}

/**
 * braggscope_measured_frame_get_pixels:
 * @self: a measured frame
 *
 * The counts as 32-bit floats, width x height of them, slow-major rows
 * (pixel (f, s) at s * width + f, as [method@Braggscope.Frame.get_data]),
 * with NaN where a pixel is no measurement: a negative count (Pilatus and
 * Eiger mark module gaps and bad pixels so), a pixel of the file's mask, and
 * a count at or above the count cutoff (saturated: the true count is
 * larger).  This is the layer a view draws beside a simulated frame.
 *
 * Returns: (transfer full): the pixels (native byte order)
 *
 * Since: 0.1
 */
GBytes *
braggscope_measured_frame_get_pixels (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  return g_bytes_ref (self->pixels);
}

/**
 * braggscope_measured_frame_get_counts:
 * @self: a measured frame
 *
 * The counts as the file gave them, as signed 32-bit integers (whatever the
 * file's pixel type; unsigned values above 2147483647 are clamped to it),
 * width x height of them in the order of
 * [method@Braggscope.MeasuredFrame.get_pixels], gaps, bad pixels and
 * overloads kept as their values.
 *
 * Returns: (transfer full): the counts (native byte order); they share
 *   @self's memory and keep @self alive
 *
 * Since: 0.1
 */
GBytes *
braggscope_measured_frame_get_counts (BraggscopeMeasuredFrame *self)
{
  gsize n;

  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  n = (gsize) self->frame.fpixels * (gsize) self->frame.spixels;
  return g_bytes_new_with_free_func (self->frame.counts, n * sizeof (gint32), g_object_unref,
                                     g_object_ref (self));
}

/**
 * braggscope_measured_frame_get_count_cutoff:
 * @self: a measured frame
 *
 * The count at and above which a pixel is saturated, as the file gives it
 * (a number of counts; 65535 for unsigned 16-bit SMV files without one).
 *
 * Returns: the cutoff in counts, or 0 when the file gives none
 *
 * Since: 0.1
 */
gint64
braggscope_measured_frame_get_count_cutoff (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.count_cutoff;
}

/**
 * braggscope_measured_frame_get_n_masked:
 * @self: a measured frame
 *
 * The number of pixels that are no measurement (gaps, bad pixels, the file's
 * mask), NaN in [method@Braggscope.MeasuredFrame.get_pixels].
 *
 * Returns: the count of masked pixels
 *
 * Since: 0.1
 */
gint64
braggscope_measured_frame_get_n_masked (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.n_masked;
}

/**
 * braggscope_measured_frame_get_n_overloaded:
 * @self: a measured frame
 *
 * The number of pixels at or above the count cutoff, NaN in
 * [method@Braggscope.MeasuredFrame.get_pixels].
 *
 * Returns: the count of overloaded pixels
 *
 * Since: 0.1
 */
gint64
braggscope_measured_frame_get_n_overloaded (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0);
  return self->frame.n_overload;
}

/**
 * braggscope_measured_frame_get_total_counts:
 * @self: a measured frame
 *
 * The sum of the counts of the pixels that are measurements (neither masked
 * nor overloaded).
 *
 * Returns: the total in counts
 *
 * Since: 0.1
 */
double
braggscope_measured_frame_get_total_counts (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 0.0);
  return self->total_counts;
}

/**
 * braggscope_measured_frame_get_header_value:
 * @self: a measured frame
 * @item: the geometry item
 * @value: (out) (optional): the value, in the unit of
 *   [enum@Braggscope.HeaderItem] (Å, mm, degrees, seconds); NaN when the
 *   header lacks it
 *
 * A geometry value of the frame's header, converted to the unit of the
 * `nanobragg` flag that takes it: the beam centre from each header's own
 * convention to millimetres along the fast and slow axes from the outer
 * corner of pixel (0, 0), as nanoBragg's Fbeam and Sbeam.
 *
 * Returns: %TRUE when the header gave @item
 *
 * Since: 0.1
 */
gboolean
braggscope_measured_frame_get_header_value (BraggscopeMeasuredFrame *self,
                                            BraggscopeHeaderItem item,
                                            double *value)
{
  const nb_frame_value *v;

  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), FALSE);
  g_return_val_if_fail ((guint) item < NB_FRAME_N_ITEMS, FALSE);

  v = &self->frame.item[item];
  if (value != NULL)
    *value = v->have ? v->value * item_scale[item] : NAN;
  return v->have;
}

/**
 * braggscope_measured_frame_get_header_source:
 * @self: a measured frame
 * @item: the geometry item
 *
 * Where @item's value came from: the header line or dataset and its text,
 * such as `the miniCBF header '# Detector_distance 0.21396 m'`.
 *
 * Returns: (nullable): the source, owned by @self, or %NULL when the header
 *   lacks @item
 *
 * Since: 0.1
 */
const char *
braggscope_measured_frame_get_header_source (BraggscopeMeasuredFrame *self,
                                             BraggscopeHeaderItem item)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  g_return_val_if_fail ((guint) item < NB_FRAME_N_ITEMS, NULL);
  return self->frame.item[item].have ? self->frame.item[item].source : NULL;
}

/**
 * braggscope_measured_frame_get_detector_problem:
 * @self: a measured frame
 *
 * Whether the frame's header describes a detector that the simulation's
 * single flat panel cannot represent, and why, naming the header line: a
 * model known to be curved or made of separate panels (Diamond I23's
 * Pilatus 12M, whose miniCBF header says `# Detector: PILATUS 12M`), a full
 * CBF with several detector elements, an NXmx detector with several
 * modules whose geometry cannot be read, or a distance at which a flat
 * array of the frame's size would reach beyond 80° two-theta (an NXmx
 * file's own modules are no problem: they are adopted as panels).  With a
 * multi-panel geometry file ([property@Braggscope.Simulation:detector-file])
 * set, even such a frame's beam is adopted.  Such a frame's geometry is never adopted
 * ([method@Braggscope.Simulation.adopt_geometry] fails with
 * `BRAGGSCOPE_ERROR_UNSUPPORTED`), it is not scored, and fits refuse it: the
 * numbers would be those of a detector that does not exist.  Its pixels can
 * still be shown.
 *
 * Returns: (nullable): one line in English, or %NULL when nothing in the
 *   header says so; owned by @self
 *
 * Since: 0.1
 */
const char *
braggscope_measured_frame_get_detector_problem (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  return self->detector_problem;
}

/**
 * braggscope_measured_frame_get_report:
 * @self: a measured frame
 *
 * What the frame is and where each geometry value came from, one line each:
 * the file, its format, size and pixel type, then every
 * [enum@Braggscope.HeaderItem] with its value and source, or "not in the
 * header", and last, for a detector one flat panel cannot represent,
 * "not adopted: " and the reason
 * ([method@Braggscope.MeasuredFrame.get_detector_problem]).  English, for
 * logs and tooltips.
 *
 * Returns: (transfer full): the report; free with [func@GLib.free]
 *
 * Since: 0.1
 */
char *
braggscope_measured_frame_get_report (BraggscopeMeasuredFrame *self)
{
  const nb_frame *f;
  GString *s;

  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);

  f = &self->frame;
  s = g_string_new (NULL);
  g_string_append_printf (s, "%s: %s, frame %d of %d, %d x %d pixels, %s", f->path,
                          nb_frame_format_name (f->format), f->frame_index + 1, f->n_frames,
                          f->fpixels, f->spixels, f->element_type);
  g_string_append_printf (s, ", %ld masked, %ld overloaded\n", f->n_masked, f->n_overload);
  for (int i = 0; i < NB_FRAME_N_ITEMS; i++)
    if (f->item[i].have)
      g_string_append_printf (s, "%s %.6g %s from %s\n", nb_frame_item_name (i),
                              f->item[i].value * item_scale[i], item_unit[i], f->item[i].source);
    else
      g_string_append_printf (s, "%s: not in the header\n", nb_frame_item_name (i));
  if (f->modules != NULL)
    g_string_append_printf (s,
                            "detector: %d NXdetector_module groups, adopted as the detector's "
                            "panels (-detector %s)\n",
                            f->modules->n_panels, f->path);
  if (self->detector_problem != NULL)
    g_string_append_printf (s, "not adopted: %s\n", self->detector_problem);
  return g_string_free (s, FALSE);
}

/**
 * braggscope_measured_frame_get_n_panels:
 * @self: a measured frame
 *
 * The panels of the frame's own detector geometry: the `NXdetector_module`
 * groups of an NXmx file that has several and places each through its
 * `depends_on` chain ([method@Braggscope.Simulation.adopt_geometry] makes
 * them the simulation's [property@Braggscope.Simulation:detector-file]), or
 * 1 for a frame of one flat panel.
 *
 * Returns: the number of panels, at least 1
 *
 * Since: 0.2
 */
int
braggscope_measured_frame_get_n_panels (BraggscopeMeasuredFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), 1);
  return self->frame.modules != NULL ? MAX (1, self->frame.modules->n_panels) : 1;
}

/* Panel @p of @geometry cut from @self's pixels into @stacked (the panels
 * one after another, as a frame's data); FALSE with @error when the panel
 * has no place in the frame's array or does not lie within it. */
static gboolean
cut_panel (BraggscopeMeasuredFrame *self,
           BraggscopeGeometry *geometry,
           int p,
           float *stacked,
           GError **error)
{
  const nb_frame *f = &self->frame;
  const float *pixels = g_bytes_get_data (self->pixels, NULL);
  BraggscopePanel pn;

  braggscope_geometry_get_panel (geometry, p, &pn);
  if (pn.data_origin_x < 0 || pn.data_origin_y < 0 || pn.width > f->fpixels - pn.data_origin_x ||
      pn.height > f->spixels - pn.data_origin_y)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "%s: panel %s (%d x %d pixels from %d, %d of the data) is not within the "
                   "frame's %d x %d pixels",
                   f->path, braggscope_geometry_get_panel_name (geometry, p), pn.width, pn.height,
                   pn.data_origin_x, pn.data_origin_y, f->fpixels, f->spixels);
      return FALSE;
    }
  for (int s = 0; s < pn.height; s++)
    memcpy (stacked + pn.offset + (gsize) s * pn.width,
            pixels + (gsize) (pn.data_origin_y + s) * f->fpixels + pn.data_origin_x,
            (gsize) pn.width * sizeof (float));
  return TRUE;
}

/**
 * braggscope_measured_frame_lay_out:
 * @self: a measured frame
 * @frame: a frame of the simulation whose detector @self was recorded with
 *   (its panels, [property@Braggscope.Simulation:detector-file]), or its
 *   projection ([method@Braggscope.Frame.project])
 * @width: (out): the width of the result in pixels
 * @height: (out): its height
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * The measured pixels where @frame is drawn, so that the two lie over each
 * other pixel for pixel.  For a detector of one panel these are the
 * frame's own pixels ([method@Braggscope.MeasuredFrame.get_pixels], its
 * size).  For a multi-panel detector each panel's pixels are cut from the
 * measured array at the panel's data origin (NXmx `data_origin`, CrystFEL
 * `min_fs`/`min_ss`) and carried along the rays from the sample onto the
 * plane normal to the beam, as [method@Braggscope.Frame.project] carries
 * the simulated ones: pixel (x, y) of the result is the measured pixel of
 * the panel pixel that pixel (x, y) of the projection shows, NaN between
 * the panels (gaps) and where the measured pixel is no measurement.
 *
 * Fails with `BRAGGSCOPE_ERROR_INVALID` when a panel has no data origin
 * or does not lie within the measured array (the message names the panel),
 * `BRAGGSCOPE_ERROR_UNSUPPORTED` when the panels cannot be seen from the
 * sample, `BRAGGSCOPE_ERROR_NOMEM`.
 *
 * Returns: (transfer full): width * height float32 values, slow-major, or
 *   %NULL with @error set
 *
 * Since: 0.2
 */
GBytes *
braggscope_measured_frame_lay_out (
    BraggscopeMeasuredFrame *self, BraggscopeFrame *frame, int *width, int *height, GError **error)
{
  BraggscopeGeometry *geometry, *proj;
  g_autofree float *stacked = NULL;
  float *out;
  gsize n = 0, size;
  int n_panels;

  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (self), NULL);
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (frame), NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  geometry = braggscope_frame_get_geometry (frame);
  n_panels = geometry != NULL ? braggscope_geometry_get_n_panels (geometry) : 1;
  if (n_panels < 2)
    {
      *width = self->frame.fpixels;
      *height = self->frame.spixels;
      return g_bytes_ref (self->pixels);
    }
  proj = braggscope_geometry_get_is_projection (geometry) ? geometry
                                                          : _braggscope_geometry_project (geometry);
  if (proj == NULL)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_UNSUPPORTED,
                   "%s: the detector's panels cannot be seen from the sample", self->frame.path);
      return NULL;
    }
  for (int p = 0; p < n_panels; p++)
    {
      BraggscopePanel pn;

      braggscope_geometry_get_panel (geometry, p, &pn);
      n = MAX (n, pn.offset + (gsize) pn.width * (gsize) pn.height);
    }
  braggscope_geometry_get_size (proj, width, height);
  size = (gsize) *width * (gsize) *height;
  if ((stacked = g_try_new (float, n)) == NULL || (out = g_try_new (float, size)) == NULL)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM,
                   "%s: out of memory for the panels' pixels", self->frame.path);
      return NULL;
    }
  for (int p = 0; p < n_panels; p++)
    if (!cut_panel (self, geometry, p, stacked, error))
      {
        g_free (out);
        return NULL;
      }
  _braggscope_geometry_project_data (proj, stacked, out, NAN);
  return g_bytes_new_take (out, size * sizeof *out);
}

const nb_frame *
_braggscope_measured_frame_peek (BraggscopeMeasuredFrame *self)
{
  return &self->frame;
}
