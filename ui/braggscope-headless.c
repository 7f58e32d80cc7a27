/* braggscope-headless.c: `braggscope --snapshot FILE.png [flags]`: the
 * window's picture without a window.
 *
 * The full frame is rendered by libbraggscope-gtk's display-free
 * braggscope_render_rgba() (colormap, scale, the view's automatic contrast
 * window, resolution rings and beam centre), which gives the same pixels as
 * a BraggscopeView showing the frame (its Ctrl+S picture) and needs no
 * display, so the result does not depend on whether one is present;
 * tests/ui/test-snapshot-cli.c checks that.
 *
 * With --compare "FLAGS" the scene is A, the window's held frame, and the
 * scene with FLAGS on top is B, the frame after the change; the picture is
 * braggscope_render_compare_rgba() of the two in --compare-mode, each with
 * its own automatic window and its own overlays, as the window's Compare
 * shows them.  With
 * --measured FRAME, A is the measured frame: the scene takes its header's
 * geometry first (the flags then apply on top), is scored against it (the
 * score goes to stdout) and is shown with it as the window shows a measured
 * frame (its difference scaled: counts against photons).
 *
 * A full frame expected to take more than a couple of seconds says so on
 * stderr before it renders (its expected time and what makes it slow),
 * then its progress once a second.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-headless.h"
#include "braggscope-lesson.h"
#include "braggscope-progress.h"

#include <braggscope-gtk.h>
#include <braggscope.h>
#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  BraggscopeDisplay display;
  gboolean auto_contrast;
  gboolean show_rings;
  gboolean show_beam_center;
  const char *view;              /* detector, reciprocal or both */
  guint labels;                  /* how many spots to label; 0: none */
  const char *ring_resolutions;  /* or NULL */
  const char *label_reflections; /* labelled first, or NULL */
  double contrast_percentile;    /* the automatic window's top */
  double reciprocal_resolution, reciprocal_zoom, scale_wavelength;
} Look;

/* The automatic window's percentiles, as the view's */
#define AUTO_LOW_PERCENTILE  1.0
#define AUTO_HIGH_PERCENTILE 99.5

/* As the window's full frames (BRAGGSCOPE_VIEWER_ARC_DOMAINS). */
#define BRAGGSCOPE_HEADLESS_ARC_DOMAINS 96

typedef struct
{
  BraggscopeSimulation *sim;
  GMainLoop *loop;
  BraggscopeFrame *frame; /* the full frame of the final parameters */
  GError *error;
  /* a slow frame's progress on stderr */
  gboolean announced;
  gint64 last_print_us;
  gboolean on_terminal; /* one line rewritten in place, else a line each */
} Wait;

/* A slow frame's progress, at most once a second. */
#define PROGRESS_PRINT_INTERVAL_US 1000000

static int
enum_from_nick (GType type, const char *nick, int fallback)
{
  g_autoptr (GEnumClass) klass = g_type_class_ref (type);
  /* no --compare-mode: the fallback, without a critical warning on stderr */
  GEnumValue *value = nick != NULL ? g_enum_get_value_by_nick (klass, nick) : NULL;

  return value != NULL ? value->value : fallback;
}

/* The look of the window: the settings (or the schema's defaults), then the
 * command line's display options. */
static void
look_init (Look *look, const BraggscopeOptions *opts, GSettings *settings)
{
  braggscope_display_init (&look->display);
  look->display.colormap = BRAGGSCOPE_COLORMAP_INVERTED_GREY;
  look->display.scale = BRAGGSCOPE_SCALE_LINEAR;
  look->display.gamma = 2.0;
  look->auto_contrast = TRUE;
  look->show_rings = TRUE;
  look->show_beam_center = TRUE;

  if (settings != NULL)
    {
      g_autofree char *colormap = g_settings_get_string (settings, "colormap");
      g_autofree char *scale = g_settings_get_string (settings, "scale");

      look->display.colormap =
          enum_from_nick (BRAGGSCOPE_TYPE_COLORMAP, colormap, look->display.colormap);
      look->display.scale = enum_from_nick (BRAGGSCOPE_TYPE_SCALE, scale, look->display.scale);
      look->display.gamma = g_settings_get_double (settings, "gamma");
      look->auto_contrast = g_settings_get_boolean (settings, "auto-contrast");
      look->show_rings = g_settings_get_boolean (settings, "show-rings");
      look->show_beam_center = g_settings_get_boolean (settings, "show-beam-center");
    }

  if (opts->colormap != NULL)
    look->display.colormap =
        enum_from_nick (BRAGGSCOPE_TYPE_COLORMAP, opts->colormap, look->display.colormap);
  if (opts->scale != NULL)
    look->display.scale = enum_from_nick (BRAGGSCOPE_TYPE_SCALE, opts->scale, look->display.scale);
  if (opts->gamma > 0.0)
    look->display.gamma = opts->gamma;
  if (opts->show_rings >= 0)
    look->show_rings = opts->show_rings;
  if (opts->show_beam_center >= 0)
    look->show_beam_center = opts->show_beam_center;
}

/* What a lesson shows, then the command line's choices. */
static void
look_teaching (Look *look, const BraggscopeOptions *opts, const BraggscopeLesson *lesson)
{
  look->view = "detector";
  look->labels = 0;
  look->ring_resolutions = NULL;
  look->label_reflections = NULL;
  look->contrast_percentile = AUTO_HIGH_PERCENTILE;
  look->reciprocal_resolution = 0.0;
  look->reciprocal_zoom = 1.0;
  look->scale_wavelength = 0.0;
  if (lesson != NULL)
    {
      look->view = lesson->view;
      look->labels = lesson->labels ? lesson->label_count : 0;
      look->ring_resolutions = lesson->rings;
      look->label_reflections = lesson->label_reflections;
      if (lesson->contrast_percentile > 0)
        look->contrast_percentile = lesson->contrast_percentile;
      look->reciprocal_resolution = lesson->reciprocal_resolution;
      look->reciprocal_zoom = lesson->reciprocal_zoom;
      look->scale_wavelength = lesson->scale_wavelength;
    }
  if (opts->view != NULL)
    look->view = opts->view;
  if (opts->labels >= 0)
    look->labels = opts->labels ? (lesson != NULL ? MAX (lesson->label_count, 1) : 20) : 0;
  if (opts->ring_resolutions != NULL)
    look->ring_resolutions = opts->ring_resolutions;
}

/* @frame in @display with the overlays of @look; the labels drawn into
 * @label_boxes when not NULL. */
static guint8 *
annotate (BraggscopeFrame *frame,
          const BraggscopeDisplay *display,
          const Look *look,
          GArray *label_boxes,
          int *width,
          int *height)
{
  BraggscopeAnnotations annotations = { look->show_rings, look->show_beam_center,
                                        look->ring_resolutions, look->labels,
                                        look->label_reflections };

  return braggscope_render_annotations_rgba (frame, display, &annotations, label_boxes, width,
                                             height);
}

/* @display's window as the view's automatic contrast sets it for @frame,
 * with the top @look asks for. */
static void
auto_window (BraggscopeFrame *frame, const Look *look, BraggscopeDisplay *display)
{
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);

  if (look->contrast_percentile == AUTO_HIGH_PERCENTILE || data == NULL)
    braggscope_render_auto_window (frame, display);
  else
    braggscope_auto_contrast (data, n, AUTO_LOW_PERCENTILE, look->contrast_percentile,
                              &display->low, &display->high);
}

/* The detector picture, the reciprocal one (square, as tall as the frame), or
 * both side by side, as the window's views would show them. */
static guint8 *
render_views (
    BraggscopeFrame *frame, const Look *look, GArray *label_boxes, int *width, int *height)
{
  gboolean detector = g_strcmp0 (look->view, "reciprocal") != 0;
  gboolean reciprocal = g_strcmp0 (look->view, "detector") != 0;
  int w = braggscope_frame_get_width (frame), h = braggscope_frame_get_height (frame);
  int side = MAX (h, 240);
  g_autofree guint8 *image = NULL;
  g_autoptr (GBytes) space = NULL;

  if (detector)
    image = annotate (frame, &look->display, look, label_boxes, &w, &h);
  if (!reciprocal)
    {
      *width = w;
      *height = h;
      return g_steal_pointer (&image);
    }
  space = braggscope_render_reciprocal_scaled_bytes (frame, 25.0, 20.0, look->reciprocal_zoom,
                                                     look->reciprocal_resolution,
                                                     look->scale_wavelength, side, side);
  return braggscope_join_side_by_side (detector ? image : NULL, w, h,
                                       space != NULL ? g_bytes_get_data (space, NULL) : NULL, side,
                                       width, height);
}

/* The percentiles of a reference layer's automatic window, as the view's
 * (braggscope-view-compare.c). */
#define REFERENCE_LOW_PERCENTILE  1.0
#define REFERENCE_HIGH_PERCENTILE 99.5

/* A, the reference layer (@reference, @rw x @rh floats, NaN masked, in the
 * window @reference_display; @reference_picture, when not NULL, it with its
 * own overlays) and B (@frame) as the window's Compare shows them in the
 * mode named @mode_name (side by side when NULL), the difference scaled when
 * @reference_scale. */
static guint8 *
render_compare (const float *reference,
                int rw,
                int rh,
                const BraggscopeDisplay *reference_display,
                const guint8 *reference_picture,
                gboolean reference_scale,
                BraggscopeFrame *frame,
                const Look *look,
                const char *mode_name,
                int *width,
                int *height)
{
  BraggscopeDisplay display = look->display;
  BraggscopeCompareMode mode =
      enum_from_nick (BRAGGSCOPE_TYPE_COMPARE_MODE, mode_name, BRAGGSCOPE_COMPARE_SIDE_BY_SIDE);
  g_autofree guint8 *picture = NULL;
  const char *fallback = NULL;
  guint8 *rgba;
  int w, h;

  if (look->auto_contrast)
    auto_window (frame, look, &display);
  picture = annotate (frame, &display, look, NULL, &w, &h);
  rgba = braggscope_render_compare_rgba (frame, picture, &display, reference, rw, rh,
                                         reference_display, reference_picture, mode,
                                         reference_scale, width, height, &fallback);
  if (fallback != NULL)
    g_printerr ("braggscope: %s\n", fallback);
  return rgba;
}

guint8 *
braggscope_join_side_by_side (
    const guint8 *left, int lw, int lh, const guint8 *right, int side, int *width, int *height)
{
  int out_w = (left != NULL ? lw : 0) + (right != NULL ? side : 0);
  int out_h = MAX (left != NULL ? lh : 0, right != NULL ? side : 0);
  guint8 *out = g_malloc0 ((gsize) MAX (out_w, 1) * MAX (out_h, 1) * 4);

  for (int j = 0; j < out_h; j++)
    {
      guint8 *row = out + (gsize) j * out_w * 4;

      if (left != NULL && j < lh)
        memcpy (row, left + (gsize) j * lw * 4, (gsize) lw * 4);
      if (right != NULL && j < side)
        memcpy (row + (left != NULL ? (gsize) lw * 4 : 0), right + (gsize) j * side * 4,
                (gsize) side * 4);
    }
  *width = out_w;
  *height = out_h;
  return out;
}

static void
on_frame_ready (BraggscopeSimulation *sim, BraggscopeFrame *frame, Wait *wait)
{
  if (braggscope_frame_get_is_preview (frame) ||
      braggscope_frame_get_sequence (frame) < braggscope_simulation_get_sequence (sim))
    return;
  g_set_object (&wait->frame, frame);
  g_main_loop_quit (wait->loop);
}

/* A slow full frame says what it will cost, then how far it is. */
static void
on_render_progress (BraggscopeSimulation *sim, BraggscopeRenderProgress *progress, Wait *wait)
{
  gint64 now = g_get_monotonic_time ();
  g_autofree char *text = NULL;

  if (!wait->announced)
    {
      if (!braggscope_progress_is_slow (progress))
        return;
      text = braggscope_progress_describe_cost (progress);
      g_printerr ("braggscope: %s\n", text);
      wait->announced = TRUE;
      wait->last_print_us = now;
      return;
    }
  if (progress->fraction < 1.0 && now - wait->last_print_us < PROGRESS_PRINT_INTERVAL_US)
    return;
  wait->last_print_us = now;
  text = braggscope_progress_describe (progress);
  if (wait->on_terminal)
    g_printerr ("\rbraggscope: %s\033[K%s", text, progress->fraction < 1.0 ? "" : "\n");
  else
    g_printerr ("braggscope: %s\n", text);
}

static void
on_error (BraggscopeSimulation *sim, GError *error, Wait *wait)
{
  if (wait->error == NULL)
    wait->error = g_error_copy (error);
  g_main_loop_quit (wait->loop);
}

/* The full frame of @sim's current parameters. */
static BraggscopeFrame *
render_full_frame (BraggscopeSimulation *sim, GError **error)
{
  Wait wait = { sim, g_main_loop_new (NULL, FALSE), NULL, NULL };
  gulong ready = g_signal_connect (sim, "frame-ready", G_CALLBACK (on_frame_ready), &wait);
  gulong failed = g_signal_connect (sim, "error", G_CALLBACK (on_error), &wait);
  gulong progress =
      g_signal_connect (sim, "render-progress", G_CALLBACK (on_render_progress), &wait);

  wait.on_terminal = isatty (STDERR_FILENO);
  braggscope_simulation_render (sim);
  g_main_loop_run (wait.loop);
  g_signal_handler_disconnect (sim, ready);
  g_signal_handler_disconnect (sim, failed);
  g_signal_handler_disconnect (sim, progress);
  g_main_loop_unref (wait.loop);

  if (wait.error != NULL)
    {
      g_propagate_error (error, wait.error);
      g_clear_object (&wait.frame);
      return NULL;
    }
  return wait.frame;
}

/* --measured: the frame, its header's geometry adopted by @sim with the
 * flags applied again on top (they win, as after nanoBragg's -frame), and
 * the frame set for the score. */
static BraggscopeMeasuredFrame *
adopt_measured (BraggscopeSimulation *sim, const BraggscopeOptions *opts, GError **error)
{
  g_autoptr (BraggscopeMeasuredFrame) frame =
      braggscope_measured_frame_new_from_file (opts->measured, 0, error);

  if (frame == NULL || !braggscope_simulation_adopt_geometry (sim, frame, error) ||
      (opts->nb_args[0] != NULL &&
       !braggscope_simulation_set_from_args (sim, (const char *const *) opts->nb_args, error)))
    {
      g_prefix_error (error, "--measured: ");
      return NULL;
    }
  braggscope_simulation_set_measured_frame (sim, frame);
  return g_steal_pointer (&frame);
}

/* The score of the full frame against the measured frame, one line; the
 * same without the newline, for the picture's caption, in @caption.  (A
 * frame whose detector one flat panel cannot represent never gets here:
 * its geometry is refused.) */
static void
print_score (BraggscopeSimulation *sim, char **caption)
{
  double fraction, radius, rms, cc, chance, p;
  int peaks, matched;
  gboolean significant;

  g_object_get (sim, "match-fraction", &fraction, "match-peaks", &peaks, "match-matched", &matched,
                "match-radius", &radius, "match-rms-distance", &rms, "match-correlation", &cc,
                "match-chance-fraction", &chance, "match-p-value", &p, "match-significant",
                &significant, NULL);
  /* Translators: the match score printed by --measured: peaks matched of
   * all, the percentage, the radius and RMS distance (pixels), the
   * correlation coefficient of the pixels, the percentage peaks at random
   * places would match, the probability of the score by chance, and "a
   * match" or "no better than chance". */
  if (isnan (cc))
    /* Translators: the same without the pixels' correlation, which a frame
     * of several panels or of another size than the simulation's lacks */
    *caption = g_strdup_printf (_ ("match: %d of %d peaks (%.0f %%) within %g px, rms %.2f px, "
                                   "chance %.1f %%, p %.2g: %s"),
                                matched, peaks, 100.0 * fraction, radius, rms, 100.0 * chance, p,
                                significant ? _ ("a match") : _ ("no better than chance"));
  else
    *caption = g_strdup_printf (_ ("match: %d of %d peaks (%.0f %%) within %g px, rms %.2f px, "
                                   "correlation %.3f, chance %.1f %%, p %.2g: %s"),
                                matched, peaks, 100.0 * fraction, radius, rms, cc, 100.0 * chance,
                                p, significant ? _ ("a match") : _ ("no better than chance"));
  g_print ("%s\n", *caption);
}

/* @text in white on a dark box at (@x, @y) of @cr, @size pixels high. */
static void
caption_at (cairo_t *cr, double x, double y, double size, const char *text)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  int w, h;

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.7);
  cairo_rectangle (cr, x, y, w + 0.5 * size, h + 0.25 * size);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_move_to (cr, x + 0.25 * size, y + 0.125 * size);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
}

void
braggscope_caption_phi (guint8 *rgba, int width, int height, double phi)
{
  cairo_surface_t *surface =
      cairo_image_surface_create_for_data (rgba, CAIRO_FORMAT_ARGB32, width, height, width * 4);
  cairo_t *cr = cairo_create (surface);
  double size = CLAMP (height / 40.0, 11.0, 48.0), pad = 0.5 * size;
  /* Translators: the spindle angle in a corner of each exported frame of a rotation */
  g_autofree char *text = g_strdup_printf (_ ("φ %.1f°"), phi);

  caption_at (cr, pad, height - 1.5 * size - pad, size, text);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  cairo_surface_destroy (surface);
}

/* Captions on the --measured picture (@rgba, @width x @height, opaque):
 * which layer is which, as @mode shows them (@rw: the measured layer's width,
 * left of the simulation side by side), and the score along the bottom.
 * White on grey boxes, so cairo's byte order (BGRA where RGBA is stored)
 * changes nothing. */
static void
caption_measured (guint8 *rgba,
                  int width,
                  int height,
                  int rw,
                  const char *mode,
                  const char *name,
                  const char *score)
{
  cairo_surface_t *surface =
      cairo_image_surface_create_for_data (rgba, CAIRO_FORMAT_ARGB32, width, height, width * 4);
  cairo_t *cr = cairo_create (surface);
  double size = CLAMP (height / 40.0, 11.0, 48.0), pad = 0.5 * size;
  g_autofree char *measured = NULL;

  /* Translators: the measured layer's caption in a snapshot: its file. */
  measured = g_strdup_printf (_ ("measured: %s"), name);
  if (width > rw && g_strcmp0 (mode, "side-by-side") == 0)
    {
      caption_at (cr, pad, pad, size, measured);
      caption_at (cr, rw + pad, pad, size, _ ("simulated"));
    }
  else if (g_strcmp0 (mode, "blink") == 0)
    caption_at (cr, pad, pad, size, measured);
  else if (g_strcmp0 (mode, "difference") == 0)
    caption_at (cr, pad, pad, size, _ ("simulated − measured (scaled): red above, blue below"));
  else
    {
      g_autofree char *both = g_strdup_printf (_ ("%s (grey), simulated spots (orange)"), measured);

      caption_at (cr, pad, pad, size, both);
    }
  caption_at (cr, pad, height - 1.5 * size - pad, size, score);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  cairo_surface_destroy (surface);
}

/* @code as the exit status, and no picture. */
static guint8 *
fail (int *status, int code)
{
  *status = code;
  return NULL;
}

guint8 *
braggscope_headless_render (const BraggscopeOptions *opts,
                            GSettings *settings,
                            GArray *label_boxes,
                            BraggscopeSimulation **simulation,
                            int *width,
                            int *height,
                            int *status,
                            GError **error)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeFrame) frame = NULL;
  g_autoptr (BraggscopeLesson) lesson = NULL;
  g_autoptr (BraggscopeMeasuredFrame) measured = NULL;
  g_autofree guint8 *rgba = NULL;
  BraggscopeDisplay reference_display;
  Look look;

  *status = 1;

  look_init (&look, opts, settings);
  if (opts->lesson != NULL)
    {
      if ((lesson = braggscope_lesson_find (opts->lesson, error)) == NULL)
        return fail (status, 2);
      if ((sim = braggscope_lesson_create_simulation (lesson, (const char *const *) opts->nb_args,
                                                      error)) == NULL)
        return fail (status, 2);
    }
  else
    {
      sim = braggscope_simulation_new_default_scene (error);
      if (sim == NULL)
        return fail (status, 1);
      if (opts->nb_args[0] != NULL &&
          !braggscope_simulation_set_from_args (sim, (const char *const *) opts->nb_args, error))
        return fail (status, 2);
    }
  look_teaching (&look, opts, lesson);
  /* a frame that cannot be read is a bad --measured, as a bad flag is */
  if (opts->measured != NULL && (measured = adopt_measured (sim, opts, error)) == NULL)
    return fail (status, 2);
  /* the window's full frames draw a large mosaic spread as arcs */
  g_object_set (sim, "max-arc-domains", BRAGGSCOPE_HEADLESS_ARC_DOMAINS, NULL);

  frame = render_full_frame (sim, error);
  if (frame == NULL)
    return fail (status, 1);
  /* what nanoBragg gets wrong and was reproduced, as nanobragg says it */
  for (const char *const *w = braggscope_frame_get_warnings (frame); *w != NULL; w++)
    g_printerr ("braggscope: warning: %s\n", *w);
  if (braggscope_frame_get_width (frame) < 1 || braggscope_frame_get_height (frame) < 1)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                   _ ("%s: the simulation gave no image"), opts->snapshot);
      return fail (status, 1);
    }

  if (opts->compare != NULL)
    {
      g_autoptr (BraggscopeFrame) held = g_steal_pointer (&frame);

      if (!braggscope_simulation_set_from_args (sim, (const char *const *) opts->compare, error))
        {
          g_prefix_error (error, "--compare: ");
          return fail (status, 2);
        }
      if ((frame = render_full_frame (sim, error)) == NULL)
        return fail (status, 1);
      g_autofree guint8 *held_picture = NULL;
      int hw, hh;

      reference_display = look.display;
      if (look.auto_contrast)
        auto_window (held, &look, &reference_display);
      /* A with its own rings, beam centre and labels */
      held_picture = annotate (held, &reference_display, &look, NULL, &hw, &hh);
      rgba = render_compare (braggscope_frame_get_data (held, NULL), hw, hh, &reference_display,
                             held_picture, FALSE, frame, &look, opts->compare_mode, width, height);
    }
  else if (measured != NULL)
    {
      /* on a multi-panel detector, each panel's pixels where the simulation's are drawn */
      g_autoptr (GBytes) pixels = NULL;
      int rw, rh;

      g_autofree char *score = NULL;
      g_autofree char *name = g_path_get_basename (opts->measured);
      const char *mode = opts->compare_mode != NULL ? opts->compare_mode : "side-by-side";

      if ((pixels = braggscope_measured_frame_lay_out (measured, frame, &rw, &rh, error)) == NULL)
        {
          g_prefix_error (error, "--measured: ");
          return fail (status, 2);
        }
      print_score (sim, &score);
      reference_display = look.display;
      if (look.auto_contrast)
        braggscope_auto_contrast_counts (g_bytes_get_data (pixels, NULL), (gsize) rw * rh,
                                         REFERENCE_LOW_PERCENTILE, REFERENCE_HIGH_PERCENTILE,
                                         &reference_display.low, &reference_display.high);
      rgba = render_compare (g_bytes_get_data (pixels, NULL), rw, rh, &reference_display, NULL,
                             TRUE, frame, &look, opts->compare_mode, width, height);
      caption_measured (rgba, *width, *height, rw, mode, name, score);
    }
  else
    {
      if (look.auto_contrast)
        auto_window (frame, &look, &look.display);
      rgba = render_views (frame, &look, label_boxes, width, height);
    }

  *status = 0;
  *simulation = g_steal_pointer (&sim);
  return g_steal_pointer (&rgba);
}

int
braggscope_headless_snapshot (const BraggscopeOptions *opts, GSettings *settings, GError **error)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autofree guint8 *rgba = NULL;
  int width = 0, height = 0, status = 1;

  rgba = braggscope_headless_render (opts, settings, NULL, &sim, &width, &height, &status, error);
  if (rgba == NULL)
    return status;
  if (!braggscope_snapshot_save (opts->snapshot, rgba, width, height, sim, error))
    return 1;
  return 0;
}
