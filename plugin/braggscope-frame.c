/* braggscope-frame.c: BraggscopeFrame, immutable, with its image buffer from a recycling pool.
 *
 * A frame is made on the simulation's worker thread and read on any thread
 * after; nothing in it changes after construction.  Its float buffer comes
 * from a BraggscopeFramePool and goes back there when the frame is finalized,
 * so a simulation delivering frames at 60 Hz allocates no image memory in
 * steady state.
 */
#include "braggscope-frame.h"
#include "braggscope-private.h"
#include "braggscope-enums.h"
#include "braggscope-lattice.h"
#include "nb-param.h"

#include "nb-io.h"
#include "nb-predict.h"

#include <stdlib.h>

/* ---- buffer pool ---- */

#define POOL_KEEP 4 /* free buffers kept: the last frame, the one in flight, a host's two */

struct _BraggscopeFramePool
{
  gatomicrefcount ref_count;
  GMutex lock;
  gsize n_floats;  /* size of every pooled buffer */
  gboolean pinned; /* page-locked buffers (nb_image_alloc) for a plan on the GPU */
  GPtrArray *free; /* float[n_floats] each */
  guint allocated; /* buffers ever allocated: a test of steady state reads it */
};

BraggscopeFramePool *
_braggscope_frame_pool_new (void)
{
  BraggscopeFramePool *pool = g_new0 (BraggscopeFramePool, 1);

  g_atomic_ref_count_init (&pool->ref_count);
  g_mutex_init (&pool->lock);
  pool->free = g_ptr_array_sized_new (POOL_KEEP);
  g_ptr_array_set_free_func (pool->free, nb_image_free);
  return pool;
}

BraggscopeFramePool *
_braggscope_frame_pool_ref (BraggscopeFramePool *pool)
{
  g_atomic_ref_count_inc (&pool->ref_count);
  return pool;
}

void
_braggscope_frame_pool_unref (BraggscopeFramePool *pool)
{
  if (pool != NULL && g_atomic_ref_count_dec (&pool->ref_count))
    {
      g_ptr_array_unref (pool->free);
      g_mutex_clear (&pool->lock);
      g_free (pool);
    }
}

/* A buffer of @n_floats, page-locked with @pinned (a plan on the GPU copies
 * into it directly); the pool's size and kind follow the latest request, so a
 * resized detector or a change of backend drops the buffers of the old ones. */
float *
_braggscope_frame_pool_acquire (BraggscopeFramePool *pool, gsize n_floats, gboolean pinned)
{
  float *buffer = NULL;

  pinned = !!pinned;
  g_mutex_lock (&pool->lock);
  if (n_floats != pool->n_floats || pinned != pool->pinned)
    {
      g_ptr_array_set_size (pool->free, 0);
      pool->n_floats = n_floats;
      pool->pinned = pinned;
    }
  if (pool->free->len > 0)
    buffer = g_ptr_array_steal_index_fast (pool->free, pool->free->len - 1);
  else
    pool->allocated++;
  g_mutex_unlock (&pool->lock);
  /* page-locked, or on huge pages: the first frames of a 1024^2 detector
   * fault twice, not a thousand times */
  if (buffer == NULL && (buffer = nb_image_alloc (n_floats * sizeof (float), pinned)) == NULL)
    g_error ("%s: failed to allocate %" G_GSIZE_FORMAT " bytes", G_STRLOC,
             n_floats * sizeof (float));
  return buffer;
}

void
_braggscope_frame_pool_release (BraggscopeFramePool *pool,
                                float *buffer,
                                gsize n_floats,
                                gboolean pinned)
{
  g_mutex_lock (&pool->lock);
  if (n_floats == pool->n_floats && !!pinned == pool->pinned && pool->free->len < POOL_KEEP)
    {
      g_ptr_array_add (pool->free, buffer);
      buffer = NULL;
    }
  g_mutex_unlock (&pool->lock);
  nb_image_free (buffer);
}

guint
_braggscope_frame_pool_get_allocated (BraggscopeFramePool *pool)
{
  guint n;

  g_mutex_lock (&pool->lock);
  n = pool->allocated;
  g_mutex_unlock (&pool->lock);
  return n;
}

/* ---- what the plan knew, shared by a plan update's preview and full frame ---- */

struct _BraggscopeFrameSource
{
  gatomicrefcount ref_count;
  nb_plan_info info;
  nb_params params;
  GBytes *mask;
  char **warnings; /* the plan's reproduced quirks, one a line (never NULL) */
  char **args;     /* made from params when first asked for (g_once) */
  GMutex predict_lock;
  GArray *predicted;        /* BraggscopeReflection, when first asked for */
  GArray *predicted_panels; /* int: each one's panel (its x, y that panel's pixels), -1 off */
  GError *predict_error;
};

BraggscopeFrameSource *
_braggscope_frame_source_new (const nb_plan_info *info,
                              const nb_params *params,
                              GBytes *mask,
                              const char *warnings)
{
  BraggscopeFrameSource *self = g_new0 (BraggscopeFrameSource, 1);
  nb_error err = { 0 };

  if (nb_params_copy (&self->params, params, &err) != NB_OK)
    {
      g_free (self);
      return NULL;
    }
  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->predict_lock);
  self->info = *info;
  self->mask = mask != NULL ? g_bytes_ref (mask) : NULL;
  {
    GPtrArray *lines = g_ptr_array_new ();

    for (const char *w = warnings != NULL ? warnings : ""; *w != '\0';)
      {
        size_t n = strcspn (w, "\n");

        g_ptr_array_add (lines, g_strndup (w, n));
        w += n + (w[n] == '\n');
      }
    g_ptr_array_add (lines, NULL);
    self->warnings = (char **) g_ptr_array_free (lines, FALSE);
  }
  return self;
}

BraggscopeFrameSource *
_braggscope_frame_source_ref (BraggscopeFrameSource *self)
{
  if (self != NULL)
    g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
_braggscope_frame_source_unref (BraggscopeFrameSource *self)
{
  if (self != NULL && g_atomic_ref_count_dec (&self->ref_count))
    {
      nb_params_clear (&self->params);
      g_clear_pointer (&self->mask, g_bytes_unref);
      g_clear_pointer (&self->predicted, g_array_unref);
      g_clear_pointer (&self->predicted_panels, g_array_unref);
      g_clear_error (&self->predict_error);
      g_mutex_clear (&self->predict_lock);
      g_strfreev (self->warnings);
      g_strfreev (self->args);
      g_free (self);
    }
}

char **
_braggscope_params_to_strv (const nb_params *params)
{
  int argc = 0;
  char **argv = nb_params_to_scene_argv (params, &argc);
  char **strv;

  if (argv == NULL)
    return NULL;
  strv = g_new (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    strv[i] = g_strdup (argv[i]);
  strv[argc] = NULL;
  nb_argv_free (argv);
  return strv;
}

/* nb_predict_reflections() for @params as an array of BraggscopeReflection
 * (pixels, degrees).  A crystal whose cell is an atomic model's (no -cell,
 * no -mat) is predicted with the cell the plan read from the model (@info),
 * as the prediction reads no structure-factor file. */
static GArray *
predict_reflections (const nb_params *params,
                     const nb_plan_info *info,
                     GArray **panels,
                     GError **error)
{
  nb_predict_options opt;
  nb_reflection *list = NULL;
  size_t n = 0;
  nb_error err = { 0 };
  nb_params with_cell;
  nb_status st;
  GArray *out;

  nb_predict_options_init (&opt);
  if (params->cell[0] == 0.0 && params->mat_file == NULL && info->cell[0] > 0.0)
    {
      if ((st = nb_params_copy (&with_cell, params, &err)) == NB_OK)
        {
          for (int i = 0; i < 6; i++)
            with_cell.cell[i] = i < 3 ? info->cell[i] : info->cell[i] * (G_PI / 180.0);
          st = nb_predict_reflections (&with_cell, &opt, &list, &n, &err);
          nb_params_clear (&with_cell);
        }
    }
  else
    st = nb_predict_reflections (params, &opt, &list, &n, &err);
  if (st != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return NULL;
    }
  out = g_array_sized_new (FALSE, FALSE, sizeof (BraggscopeReflection), n);
  *panels = g_array_sized_new (FALSE, FALSE, sizeof (int), n);
  for (size_t i = 0; i < n; i++)
    {
      BraggscopeReflection r = { list[i].h,
                                 list[i].k,
                                 list[i].l,
                                 list[i].f,
                                 list[i].s,
                                 list[i].d,
                                 list[i].phi * (180.0 / G_PI) };

      g_array_append_val (out, r);
      g_array_append_val (*panels, list[i].panel);
    }
  free (list);
  return out;
}

/* The flags are formatted when a host first asks for them, not for every
 * plan update of a drag: most frames are drawn and dropped unasked. */
char **
_braggscope_frame_source_peek_args (BraggscopeFrameSource *self)
{
  if (self == NULL)
    return NULL;
  if (g_once_init_enter (&self->args))
    {
      char **args = _braggscope_params_to_strv (&self->params);

      if (args == NULL)
        g_error ("out of memory formatting a frame's parameters");
      g_once_init_leave (&self->args, args);
    }
  return self->args;
}

GBytes *
_braggscope_frame_source_peek_mask (BraggscopeFrameSource *self)
{
  return self != NULL ? self->mask : NULL;
}

const nb_plan_info *
_braggscope_frame_source_peek_info (BraggscopeFrameSource *self)
{
  return self != NULL ? &self->info : NULL;
}

const nb_params *
_braggscope_frame_source_peek_params (BraggscopeFrameSource *self)
{
  return self != NULL ? &self->params : NULL;
}

/* Prediction builds a plan of its own (detector and crystal stages): once per
 * plan update, shared by its preview and full frame. */
GArray *
_braggscope_frame_source_predict (BraggscopeFrameSource *self, GArray **panels, GError **error)
{
  GArray *result = NULL;

  g_mutex_lock (&self->predict_lock);
  if (self->predicted == NULL && self->predict_error == NULL)
    self->predicted = predict_reflections (&self->params, &self->info, &self->predicted_panels,
                                           &self->predict_error);
  if (self->predicted != NULL)
    {
      result = g_array_ref (self->predicted);
      *panels = g_array_ref (self->predicted_panels);
    }
  else
    g_propagate_error (error, g_error_copy (self->predict_error));
  g_mutex_unlock (&self->predict_lock);
  return result;
}

/* ---- the frame ---- */

struct _BraggscopeFrame
{
  GObject parent_instance;

  BraggscopeFramePool *pool;
  float *data;
  gboolean pinned;
  int width, height;
  gboolean is_preview;
  guint64 sequence;
  double queue_ms, execute_ms, total_ms;
  const char *backend; /* static string */
  int cache_hits, cache_rebuilds;
  float max_value;
  gsize window_ready; /* g_once: auto_low and auto_high are set */
  double auto_low, auto_high;
  BraggscopeFrameSource *source;
  BraggscopeGeometry *geometry;
  gboolean adaptive;
  double samples_per_pixel;
};

G_DEFINE_FINAL_TYPE (BraggscopeFrame, braggscope_frame, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_IS_PREVIEW,
  PROP_SEQUENCE,
  PROP_QUEUE_MS,
  PROP_EXECUTE_MS,
  PROP_TOTAL_MS,
  PROP_BACKEND,
  PROP_CACHE_HITS,
  PROP_CACHE_REBUILDS,
  PROP_MAX_VALUE,
  PROP_OVERSAMPLE_AUTO,
  PROP_WARNINGS,
  PROP_INTEGRATION,
  PROP_SAMPLES_PER_PIXEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Takes over @data (from @pool); refs @pool, @source and @geometry. */
BraggscopeFrame *
_braggscope_frame_new (const BraggscopeFrameInit *init)
{
  BraggscopeFrame *self = g_object_new (BRAGGSCOPE_TYPE_FRAME, NULL);

  self->pool = _braggscope_frame_pool_ref (init->pool);
  self->data = init->data;
  self->pinned = init->pinned;
  self->width = init->width;
  self->height = init->height;
  self->is_preview = init->is_preview;
  self->sequence = init->sequence;
  self->queue_ms = init->queue_ms;
  self->execute_ms = init->execute_ms;
  self->total_ms = init->total_ms;
  self->backend = init->backend;
  self->cache_hits = init->cache_hits;
  self->cache_rebuilds = init->cache_rebuilds;
  self->max_value = init->max_value;
  if (init->has_auto_window)
    {
      /* computed where the frame was rendered (the GPU's statistics) */
      self->auto_low = init->auto_low;
      self->auto_high = init->auto_high;
      self->window_ready = 1;
    }
  self->source = _braggscope_frame_source_ref (init->source);
  self->geometry = braggscope_geometry_ref (init->geometry);
  self->adaptive = init->adaptive;
  self->samples_per_pixel = init->samples_per_pixel;
  return self;
}

static void
braggscope_frame_finalize (GObject *object)
{
  BraggscopeFrame *self = BRAGGSCOPE_FRAME (object);

  if (self->data != NULL)
    _braggscope_frame_pool_release (self->pool, self->data,
                                    (gsize) self->width * (gsize) self->height, self->pinned);
  _braggscope_frame_pool_unref (self->pool);
  _braggscope_frame_source_unref (self->source);
  if (self->geometry != NULL)
    braggscope_geometry_unref (self->geometry);
  G_OBJECT_CLASS (braggscope_frame_parent_class)->finalize (object);
}

/* The rows of the values a frame reports of its plan (install_reported). */
#define MAX_REPORTED 8
static const nb_param *reported_rows[MAX_REPORTED];
static guint n_reported;

static void
braggscope_frame_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeFrame *self = BRAGGSCOPE_FRAME (object);

  if (prop_id >= N_PROPS && prop_id < N_PROPS + n_reported)
    {
      double v = self->source != NULL
                     ? nb_param_get_reported (reported_rows[prop_id - N_PROPS], &self->source->info)
                     : 0.0;

      if (G_VALUE_HOLDS_INT (value))
        g_value_set_int (value, (int) v);
      else
        g_value_set_double (value, v);
      return;
    }
  switch (prop_id)
    {
      case PROP_WIDTH:
        g_value_set_int (value, self->width);
        break;
      case PROP_HEIGHT:
        g_value_set_int (value, self->height);
        break;
      case PROP_IS_PREVIEW:
        g_value_set_boolean (value, self->is_preview);
        break;
      case PROP_SEQUENCE:
        g_value_set_uint64 (value, self->sequence);
        break;
      case PROP_QUEUE_MS:
        g_value_set_double (value, self->queue_ms);
        break;
      case PROP_EXECUTE_MS:
        g_value_set_double (value, self->execute_ms);
        break;
      case PROP_TOTAL_MS:
        g_value_set_double (value, self->total_ms);
        break;
      case PROP_BACKEND:
        g_value_set_string (value, self->backend);
        break;
      case PROP_CACHE_HITS:
        g_value_set_int (value, self->cache_hits);
        break;
      case PROP_CACHE_REBUILDS:
        g_value_set_int (value, self->cache_rebuilds);
        break;
      case PROP_MAX_VALUE:
        g_value_set_float (value, self->max_value);
        break;
      case PROP_OVERSAMPLE_AUTO:
        g_value_set_boolean (value, braggscope_frame_get_oversample_auto (self));
        break;
      case PROP_WARNINGS:
        g_value_set_boxed (value, braggscope_frame_get_warnings (self));
        break;
      case PROP_INTEGRATION:
        g_value_set_enum (value, braggscope_frame_get_integration (self));
        break;
      case PROP_SAMPLES_PER_PIXEL:
        g_value_set_double (value, self->samples_per_pixel);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The values a frame reports of its plan: one read-only property per row of
 * the parameter table marked NB_PARAM_REPORTED, named as the simulation's
 * property of that parameter. */

static void
install_reported (GObjectClass *object_class, GParamFlags flags)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  for (size_t i = 0; i < n; i++)
    if (rows[i].flags & NB_PARAM_REPORTED)
      {
        const nb_param *row = &rows[i];
        GParamSpec *pspec = row->kind == NB_PARAM_WHOLE
                                ? g_param_spec_int (row->property, row->label, row->help, G_MININT,
                                                    G_MAXINT, 0, flags)
                                : g_param_spec_double (row->property, row->label, row->help,
                                                       -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, flags);

        g_assert (n_reported < MAX_REPORTED);
        reported_rows[n_reported] = row;
        g_object_class_install_property (object_class, N_PROPS + n_reported++, pspec);
      }
}

/* The properties of what the plan made of the frame: its brightest pixel,
 * the oversampling, the reproduced quirks. */
static void
frame_class_init_plan_values (GParamFlags flags)
{
  /**
   * BraggscopeFrame:max-value:
   *
   * The brightest pixel, photons: the largest finite pixel value (0 when
   * there is none), computed where the frame was rendered.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_VALUE] = g_param_spec_float (
      "max-value", NULL, "The brightest pixel (photons)", -G_MAXFLOAT, G_MAXFLOAT, 0, flags);
  /**
   * BraggscopeFrame:oversample:
   *
   * Sub-pixels per pixel axis the frame was simulated with (nanoBragg's
   * `-oversample`; a count, no unit): each pixel costs its square in samples.
   * 0 when unknown.  Made, as every value a frame reports of its plan, from
   * the engine's parameter table (NB_PARAM_REPORTED rows), after the frame's
   * own properties.
   *
   * Since: 0.1
   */
  /**
   * BraggscopeFrame:oversample-auto:
   *
   * Whether [property@Braggscope.Frame:oversample] was chosen automatically
   * ([property@Braggscope.Simulation:oversample] 0): nanoBragg's rule, three
   * samples across the reciprocal pixel for the crystal's largest dimension,
   * ceil (3 N a / (lambda distance / pixel)), grows as the wavelength
   * shrinks, the crystal grows or the pixels grow.
   *
   * Since: 0.1
   */
  properties[PROP_OVERSAMPLE_AUTO] = g_param_spec_boolean (
      "oversample-auto", NULL, "The oversampling was chosen automatically", FALSE, flags);
  /**
   * BraggscopeFrame:integration:
   *
   * How the frame's pixels were integrated: adaptive where
   * [property@Braggscope.Simulation:integration] asked for it and the plan
   * takes it, else exact (nanoBragg's method).  A preview is always exact:
   * one oversampled pixel per block.
   *
   * Since: 0.1
   */
  properties[PROP_INTEGRATION] =
      g_param_spec_enum ("integration", NULL, "How the pixels were integrated",
                         BRAGGSCOPE_TYPE_INTEGRATION, BRAGGSCOPE_INTEGRATION_EXACT, flags);
  /**
   * BraggscopeFrame:samples-per-pixel:
   *
   * The sub-pixel samples the frame spent per simulated pixel (each for
   * every sensor layer): oversample² × layers for exact integration; for
   * adaptive integration those its cells took, on average (about 1 where
   * the spots are few and sharp).  0 when unknown.
   *
   * Since: 0.1
   */
  properties[PROP_SAMPLES_PER_PIXEL] = g_param_spec_double (
      "samples-per-pixel", NULL, "Sub-pixel samples per simulated pixel", 0, G_MAXDOUBLE, 0, flags);
  /**
   * BraggscopeFrame:warnings:
   *
   * What nanoBragg gets wrong in this frame and the simulation reproduced,
   * because the parameters lack `-physical`: one line of
   * English per quirk of the reference that changes the image, naming it
   * and `-physical` (today quirk Q-2: a detector two-theta left out of the
   * distance ratio, which from 90 degrees on leaves the detector behind the
   * sample and every pixel at negative photons).  Empty when there is none.
   * The same lines `nanobragg` prints on stderr, from the engine
   * (`nb_plan_get_warnings` in the engine).
   *
   * Since: 0.1
   */
  properties[PROP_WARNINGS] = g_param_spec_boxed (
      "warnings", NULL, "The reference's quirks reproduced in this frame", G_TYPE_STRV, flags);
}

static void
braggscope_frame_class_init (BraggscopeFrameClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = braggscope_frame_finalize;
  object_class->get_property = braggscope_frame_get_property;

  /**
   * BraggscopeFrame:width:
   *
   * Width of the image in pixels, along the detector's fast axis.
   *
   * Since: 0.1
   */
  properties[PROP_WIDTH] =
      g_param_spec_int ("width", NULL, "Pixels along the fast axis", 0, G_MAXINT, 0, flags);
  /**
   * BraggscopeFrame:height:
   *
   * Height of the image in pixels, along the detector's slow axis.
   *
   * Since: 0.1
   */
  properties[PROP_HEIGHT] =
      g_param_spec_int ("height", NULL, "Pixels along the slow axis", 0, G_MAXINT, 0, flags);
  /**
   * BraggscopeFrame:is-preview:
   *
   * %TRUE for a preview: one pixel of each preview-stride x preview-stride
   * block simulated and copied to the block, rendered while parameters keep
   * changing.
   *
   * Since: 0.1
   */
  properties[PROP_IS_PREVIEW] = g_param_spec_boolean (
      "is-preview", NULL, "A coarse preview rendered while parameters change", FALSE, flags);
  /**
   * BraggscopeFrame:sequence:
   *
   * The [property@Braggscope.Simulation:sequence] of the parameter set this
   * frame answers (a count of accepted changes).
   *
   * Since: 0.1
   */
  properties[PROP_SEQUENCE] = g_param_spec_uint64 (
      "sequence", NULL, "The parameter change this frame answers", 0, G_MAXUINT64, 0, flags);
  /**
   * BraggscopeFrame:queue-ms:
   *
   * Milliseconds from the parameter change to the start of its rendering.
   *
   * Since: 0.1
   */
  properties[PROP_QUEUE_MS] = g_param_spec_double (
      "queue-ms", NULL, "Milliseconds from the change to the start of rendering", 0, G_MAXDOUBLE, 0,
      flags);
  /**
   * BraggscopeFrame:execute-ms:
   *
   * Milliseconds of plan update and execute.
   *
   * Since: 0.1
   */
  properties[PROP_EXECUTE_MS] = g_param_spec_double (
      "execute-ms", NULL, "Milliseconds of plan update and execute", 0, G_MAXDOUBLE, 0, flags);
  /**
   * BraggscopeFrame:total-ms:
   *
   * Milliseconds from the parameter change to the frame handed to the main
   * context.
   *
   * Since: 0.1
   */
  properties[PROP_TOTAL_MS] =
      g_param_spec_double ("total-ms", NULL, "Milliseconds from the change to the finished frame",
                           0, G_MAXDOUBLE, 0, flags);
  /**
   * BraggscopeFrame:backend:
   *
   * Where the frame was computed: "cpu" or "cuda".
   *
   * Since: 0.1
   */
  properties[PROP_BACKEND] =
      g_param_spec_string ("backend", NULL, "Where the frame was computed", NULL, flags);
  /**
   * BraggscopeFrame:cache-hits:
   *
   * The number of plan stages the update before this frame reused (a
   * count, 0 to 6).
   *
   * Since: 0.1
   */
  properties[PROP_CACHE_HITS] = g_param_spec_int (
      "cache-hits", NULL, "Plan stages reused by the update", 0, G_MAXINT, 0, flags);
  /**
   * BraggscopeFrame:cache-rebuilds:
   *
   * The number of plan stages the update before this frame recomputed (a
   * count, 0 to 6; all of them for a simulation's first frame).
   *
   * Since: 0.1
   */
  properties[PROP_CACHE_REBUILDS] = g_param_spec_int (
      "cache-rebuilds", NULL, "Plan stages recomputed by the update", 0, G_MAXINT, 0, flags);
  frame_class_init_plan_values (flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  install_reported (object_class, flags);
}

static void
braggscope_frame_init (BraggscopeFrame *self)
{
}

/**
 * braggscope_frame_get_width:
 * @self: a frame
 *
 * The frame's width, [property@Braggscope.Frame:width].
 *
 * Returns: pixels along the fast axis
 *
 * Since: 0.1
 */
int
braggscope_frame_get_width (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->width;
}

/**
 * braggscope_frame_get_height:
 * @self: a frame
 *
 * The frame's height, [property@Braggscope.Frame:height].
 *
 * Returns: pixels along the slow axis
 *
 * Since: 0.1
 */
int
braggscope_frame_get_height (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->height;
}

/**
 * braggscope_frame_get_is_preview:
 * @self: a frame
 *
 * Whether the frame is a preview, [property@Braggscope.Frame:is-preview].
 *
 * Returns: %TRUE for a preview frame
 *
 * Since: 0.1
 */
gboolean
braggscope_frame_get_is_preview (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), FALSE);
  return self->is_preview;
}

/**
 * braggscope_frame_get_sequence:
 * @self: a frame
 *
 * The parameter change the frame answers,
 * [property@Braggscope.Frame:sequence].
 *
 * Returns: the simulation sequence number of the parameters it answers
 *
 * Since: 0.1
 */
guint64
braggscope_frame_get_sequence (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->sequence;
}

/**
 * braggscope_frame_get_queue_ms:
 * @self: a frame
 *
 * How long the change waited for the worker,
 * [property@Braggscope.Frame:queue-ms].
 *
 * Returns: milliseconds from the parameter change to the start of rendering
 *
 * Since: 0.1
 */
double
braggscope_frame_get_queue_ms (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->queue_ms;
}

/**
 * braggscope_frame_get_execute_ms:
 * @self: a frame
 *
 * How long the worker simulated, [property@Braggscope.Frame:execute-ms].
 *
 * Returns: milliseconds of plan update and execute
 *
 * Since: 0.1
 */
double
braggscope_frame_get_execute_ms (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->execute_ms;
}

/**
 * braggscope_frame_get_total_ms:
 * @self: a frame
 *
 * How long the change took to become this frame,
 * [property@Braggscope.Frame:total-ms].
 *
 * Returns: milliseconds from the parameter change to the finished frame
 *
 * Since: 0.1
 */
double
braggscope_frame_get_total_ms (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->total_ms;
}

/**
 * braggscope_frame_get_backend:
 * @self: a frame
 *
 * Where the frame was computed, [property@Braggscope.Frame:backend].
 *
 * Returns: (transfer none): where the frame was computed: "cpu" or "cuda"
 *
 * Since: 0.1
 */
const char *
braggscope_frame_get_backend (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);
  return self->backend;
}

/**
 * braggscope_frame_get_warnings:
 * @self: a frame
 *
 * The reference's quirks that change this frame and were reproduced,
 * [property@Braggscope.Frame:warnings]: one line each (no newline), naming
 * the quirk and `-physical`.
 *
 * Returns: (transfer none) (array zero-terminated=1): the lines, owned by
 *   the frame; an empty array when there are none
 *
 * Since: 0.1
 */
const char *const *
braggscope_frame_get_warnings (BraggscopeFrame *self)
{
  static const char *const none[] = { NULL };

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), none);
  return self->source != NULL ? (const char *const *) self->source->warnings : none;
}

/**
 * braggscope_frame_get_cache_hits:
 * @self: a frame
 *
 * Plan stages reused for the frame, [property@Braggscope.Frame:cache-hits].
 *
 * Returns: plan stages reused by the update that produced the frame
 *
 * Since: 0.1
 */
int
braggscope_frame_get_cache_hits (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->cache_hits;
}

/**
 * braggscope_frame_get_cache_rebuilds:
 * @self: a frame
 *
 * Plan stages recomputed for the frame,
 * [property@Braggscope.Frame:cache-rebuilds].
 *
 * Returns: plan stages recomputed by the update that produced the frame
 *   (all of them for the first frame)
 *
 * Since: 0.1
 */
int
braggscope_frame_get_cache_rebuilds (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->cache_rebuilds;
}

/**
 * braggscope_frame_get_max_value:
 * @self: a frame
 *
 * The brightest pixel, [property@Braggscope.Frame:max-value].
 *
 * Returns: the brightest pixel, photons
 *
 * Since: 0.1
 */
float
braggscope_frame_get_max_value (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->max_value;
}

/**
 * braggscope_frame_get_auto_window:
 * @self: a frame
 * @low: (out): intensity (photons/pixel) for the first colour
 * @high: (out): intensity for the last colour
 *
 * The display window [property@BraggscopeGtk.View:auto-contrast] gives this
 * frame: the 1st and 99.5th percentiles of its pixels, as
 * [func@Braggscope.auto_contrast] computes them from
 * [method@Braggscope.Frame.get_data].  A full frame brings it along, computed
 * where it was rendered (on the GPU for a frame of the CUDA backend, so that a
 * viewer does not pass over 16 million pixels again); for a preview it is
 * computed at the first call.  Thread-safe.
 *
 * Since: 0.1
 */
void
braggscope_frame_get_auto_window (BraggscopeFrame *self, double *low, double *high)
{
  g_return_if_fail (BRAGGSCOPE_IS_FRAME (self));
  g_return_if_fail (low != NULL && high != NULL);

  if (g_once_init_enter (&self->window_ready))
    {
      nb_image_window (self->data, (gsize) self->width * (gsize) self->height,
                       _BRAGGSCOPE_AUTO_LOW_PERCENTILE, _BRAGGSCOPE_AUTO_HIGH_PERCENTILE,
                       &self->auto_low, &self->auto_high);
      g_once_init_leave (&self->window_ready, 1);
    }
  *low = self->auto_low;
  *high = self->auto_high;
}

/**
 * braggscope_frame_get_oversample:
 * @self: a frame
 *
 * The oversampling the frame was simulated with,
 * [property@Braggscope.Frame:oversample].
 *
 * Returns: sub-pixels per pixel axis, 0 when unknown
 *
 * Since: 0.1
 */
int
braggscope_frame_get_oversample (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);
  return self->source != NULL ? self->source->info.oversample : 0;
}

/**
 * braggscope_frame_get_integration:
 * @self: a frame
 *
 * How the frame's pixels were integrated,
 * [property@Braggscope.Frame:integration].
 *
 * Returns: %BRAGGSCOPE_INTEGRATION_ADAPTIVE or %BRAGGSCOPE_INTEGRATION_EXACT
 *
 * Since: 0.1
 */
BraggscopeIntegration
braggscope_frame_get_integration (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), BRAGGSCOPE_INTEGRATION_EXACT);
  return self->adaptive ? BRAGGSCOPE_INTEGRATION_ADAPTIVE : BRAGGSCOPE_INTEGRATION_EXACT;
}

/**
 * braggscope_frame_get_samples_per_pixel:
 * @self: a frame
 *
 * The sub-pixel samples spent per simulated pixel,
 * [property@Braggscope.Frame:samples-per-pixel].
 *
 * Returns: samples per pixel (a mean; no unit), 0 when unknown
 *
 * Since: 0.1
 */
double
braggscope_frame_get_samples_per_pixel (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0.0);
  return self->samples_per_pixel;
}

/**
 * braggscope_frame_get_oversample_auto:
 * @self: a frame
 *
 * Whether the oversampling was chosen automatically,
 * [property@Braggscope.Frame:oversample-auto].
 *
 * Returns: %TRUE when nanoBragg's rule chose it
 *
 * Since: 0.1
 */
gboolean
braggscope_frame_get_oversample_auto (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), FALSE);
  return self->source != NULL && self->source->params.oversample <= 0;
}

/**
 * braggscope_frame_get_data: (skip)
 * @self: a frame
 * @n_pixels: (out) (optional): width * height
 *
 * The image in photons per pixel, fast index first: pixel (x, y) is
 * data[y * width + x].  Valid while the frame lives; the frame never changes
 * it, and any thread may read it.
 *
 * Not for bindings, where it would be a list of a million numbers: Python
 * has `frame.to_numpy()` (the PyGObject override installed with the
 * typelib: a NumPy view of these pixels, no copy), every language
 * [method@Braggscope.Frame.get_bytes].
 *
 * Returns: (transfer none) (array length=n_pixels): the pixels
 *
 * Since: 0.1
 */
const float *
braggscope_frame_get_data (BraggscopeFrame *self, gsize *n_pixels)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);

  if (n_pixels != NULL)
    *n_pixels = (gsize) self->width * (gsize) self->height;
  return self->data;
}

/**
 * braggscope_frame_get_bytes:
 * @self: a frame
 *
 * The image as bytes for bindings: width * height native-endian 32-bit
 * floats, photons per pixel, fast index first.  Shares the frame's memory
 * (no copy) and keeps the frame alive.
 *
 * Returns: (transfer full): the pixels
 *
 * Since: 0.1
 */
GBytes *
braggscope_frame_get_bytes (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);

  return g_bytes_new_with_free_func (self->data,
                                     (gsize) self->width * (gsize) self->height * sizeof (float),
                                     g_object_unref, g_object_ref (self));
}

/**
 * braggscope_frame_get_args:
 * @self: a frame
 *
 * The parameters the frame was rendered from, as nanoBragg flags: the first
 * element is "nanobragg" (see [method@Braggscope.Simulation.to_args]).
 *
 * Returns: (transfer none) (array zero-terminated=1) (element-type filename):
 *   the flags (file names are the file system's bytes, which need not be
 *   UTF-8)
 *
 * Since: 0.1
 */
char **
braggscope_frame_get_args (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);
  return _braggscope_frame_source_peek_args (self->source);
}

/**
 * braggscope_frame_get_geometry:
 * @self: a frame
 *
 * The geometry the frame was rendered with, for pixel queries
 * ([method@Braggscope.Geometry.query]).
 *
 * Returns: (transfer none): the geometry
 *
 * Since: 0.1
 */
BraggscopeGeometry *
braggscope_frame_get_geometry (BraggscopeFrame *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);
  return self->geometry;
}

/**
 * braggscope_frame_get_panel_data:
 * @self: a frame
 * @panel: a panel, 0-based, below [method@Braggscope.Geometry.get_n_panels]
 *   of the frame's geometry
 * @width: (out) (optional): the panel's pixels along its fast axis
 * @height: (out) (optional): along its slow axis
 *
 * The pixels of one panel of a multi-panel detector
 * ([property@Braggscope.Simulation:detector-file]): a block of the frame's
 * data, slow-major rows (pixel (f, s) at s * width + f), photons per pixel.
 * For a detector of one panel, panel 0 is the whole image.  Valid while the
 * frame lives.
 *
 * Returns: (transfer none) (nullable): the panel's pixels, or %NULL for a
 *   panel the detector does not have, a frame without data or a projection
 *   ([method@Braggscope.Frame.project]: its panels' pixels are those of the
 *   frame it was made from)
 *
 * Since: 0.2
 */
const float *
braggscope_frame_get_panel_data (BraggscopeFrame *self, int panel, int *width, int *height)
{
  BraggscopePanel p;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);

  if (self->data == NULL || self->geometry == NULL ||
      braggscope_geometry_get_is_projection (self->geometry) ||
      !braggscope_geometry_get_panel (self->geometry, panel, &p) ||
      p.offset + (gsize) p.width * (gsize) p.height > (gsize) self->width * (gsize) self->height)
    return NULL;
  if (width != NULL)
    *width = p.width;
  if (height != NULL)
    *height = p.height;
  return self->data + p.offset;
}

/**
 * braggscope_frame_project:
 * @self: a frame
 *
 * The frame as the detector is seen from the sample: each panel of a
 * multi-panel detector carried, along the rays from the sample, onto a
 * picture about the beam, so that the panels lie as they are placed, with
 * their gaps (0 photons between them).  The picture
 * ([method@Braggscope.Geometry.get_projection]) is the plane normal to the
 * beam at the panels' mean distance (gnomonic), or, for panels curved round
 * the sample past 60 degrees two-theta, the azimuthal equidistant picture
 * (radius proportional to two-theta).  Pixels of the picture are the
 * smallest panel's, larger where it would exceed 24 million of them; each
 * takes the panel pixel its centre's ray meets.  The projection's geometry
 * ([method@Braggscope.Geometry.get_is_projection]) answers points of the
 * picture with the panel and panel pixel under them
 * ([struct@Braggscope.PixelInfo]), and a resolution ring is a circle about
 * the beam on it.  The new frame shares @self's flags, sequence and timings.
 * The picture's map is made once per geometry (by the simulation's worker,
 * before the frame is delivered); this copies the frame's values into it
 * (one pass over the picture).
 *
 * Returns: (transfer full) (nullable): the projection, a new reference to
 *   @self for a detector of one panel, or %NULL when the panels cannot be
 *   seen from the sample (behind it) or out of memory
 *
 * Since: 0.2
 */
BraggscopeFrame *
braggscope_frame_project (BraggscopeFrame *self)
{
  BraggscopeGeometry *proj;
  BraggscopeFrameInit init = { 0 };
  BraggscopeFrame *out;
  gsize n;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);

  if (self->geometry == NULL || braggscope_geometry_get_n_panels (self->geometry) < 2 ||
      braggscope_geometry_get_is_projection (self->geometry))
    return g_object_ref (self);
  if (self->data == NULL || (proj = _braggscope_geometry_project (self->geometry)) == NULL)
    return NULL;
  braggscope_geometry_get_size (proj, &init.width, &init.height);
  n = (gsize) init.width * (gsize) init.height;
  init.pool = _braggscope_frame_pool_new ();
  init.data = _braggscope_frame_pool_acquire (init.pool, n, FALSE);
  _braggscope_geometry_project_data (proj, self->data, init.data, 0.0f);
  init.is_preview = self->is_preview;
  init.sequence = self->sequence;
  init.queue_ms = self->queue_ms;
  init.execute_ms = self->execute_ms;
  init.total_ms = self->total_ms;
  init.backend = self->backend;
  init.cache_hits = self->cache_hits;
  init.cache_rebuilds = self->cache_rebuilds;
  init.max_value = self->max_value;
  init.source = self->source;
  init.geometry = proj;
  out = _braggscope_frame_new (&init);
  _braggscope_frame_pool_unref (init.pool);
  return out;
}

BraggscopeFrameSource *
_braggscope_frame_peek_source (BraggscopeFrame *frame)
{
  return frame->source;
}

/**
 * braggscope_frame_save_float:
 * @self: a frame
 * @path: (type filename): the file to write
 * @error: the error, if any
 *
 * Writes the image as `nanobragg -floatfile` does: width * height native
 * 32-bit floats, photons per pixel, fast index first, no header.  The file is
 * written under a temporary name in the target folder, flushed and checked,
 * then renamed over @path: on failure an existing file of that name is left
 * untouched.
 *
 * Fails with %BRAGGSCOPE_ERROR_IO, naming @path, when the file cannot be
 * written.
 *
 * Returns: %TRUE when the file was written
 *
 * Since: 0.1
 */
gboolean
braggscope_frame_save_float (BraggscopeFrame *self, const char *path, GError **error)
{
  nb_error err = { 0 };

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (nb_write_float_image (path, self->data, self->width, self->height, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  return TRUE;
}

/**
 * braggscope_frame_save_smv:
 * @self: a frame
 * @path: (type filename): the file to write
 * @error: the error, if any
 *
 * Writes the image as `nanobragg -intfile` does, byte for byte: an SMV (ADSC)
 * file with nanoBragg's 512-byte header (detector size, pixel size,
 * distance, wavelength, beam centre in every convention, XDS and DIALS
 * origins, phi, oscillation, two-theta: the values the simulation derived
 * for this frame) and little-endian unsigned 16-bit pixels, each
 * floor (photons * scale + adc + 0.5) clamped to 0..65535, where scale is
 * the frame's `-scale` flag or else 55000 / the brightest pixel, and adc its
 * `-adc` offset.  Written atomically as [method@Braggscope.Frame.save_float].
 * Cheap: no simulation runs and no input file is read.
 *
 * Fails with %BRAGGSCOPE_ERROR_IO, naming @path, when the file cannot be
 * written, and %BRAGGSCOPE_ERROR_NOMEM when the 16-bit image cannot be
 * allocated.
 *
 * Returns: %TRUE when the file was written
 *
 * Since: 0.1
 */
gboolean
braggscope_frame_save_smv (BraggscopeFrame *self, const char *path, GError **error)
{
  const nb_plan_info *info;
  const nb_params *params;
  GBytes *mask;
  nb_error err = { 0 };

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  info = &self->source->info;
  params = &self->source->params;
  mask = self->source->mask;
  if (nb_write_smv_image (path, info, mask != NULL ? g_bytes_get_data (mask, NULL) : NULL,
                          self->data, params->intfile_scale, params->adc, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  return TRUE;
}
