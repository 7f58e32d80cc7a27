/* test-lessons.c: each lesson's claim checked on what the viewer draws,
 * under Xvfb, in a 1600 x 1000 window with the detector and the reciprocal
 * view side by side: a test per lesson opens it, does what its "Try:" asks
 * and reads the drawn scene's own numbers (the sphere's radius in view
 * pixels, the points drawn crossing the sphere, the h k l labelled at the
 * named φ, the detector's contrast window); then the labels, on screen and
 * in the README's pictures, never overlap and are never smaller than the
 * body font.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-application.h"
#include "braggscope-headless.h"
#include "braggscope-lesson.h"
#include "braggscope-window.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static BraggscopeApplication *app;

static const char *const small_scene[] = { "-detpixels", "512", "-pixel", "0.2", NULL };

typedef struct
{
  BraggscopeWindow *window;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->window = ui_test_open_window (app, small_scene, 1600, 1000);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_object_unref (f->window);
}

static BraggscopeView *
view_of (Fixture *f)
{
  return braggscope_window_get_view (f->window);
}

static BraggscopeReciprocalView *
reciprocal_of (Fixture *f)
{
  return braggscope_window_get_reciprocal_view (f->window);
}

/* Both views have drawn the full frame of the current parameters (and no
 * other came while they drew). */
static BraggscopeFrame *
settle (Fixture *f)
{
  BraggscopeSimulation *sim = braggscope_window_get_simulation (f->window);

  for (int tries = 0; tries < 20; tries++)
    {
      BraggscopeFrame *frame = ui_test_wait_full_frame (f->window);

      gtk_test_widget_wait_for_draw (GTK_WIDGET (reciprocal_of (f)));
      if (frame == braggscope_simulation_get_last_frame (sim) &&
          frame == braggscope_view_get_frame (view_of (f)) &&
          frame == braggscope_reciprocal_view_get_frame (reciprocal_of (f)) &&
          braggscope_reciprocal_view_get_sphere (reciprocal_of (f), NULL, NULL, NULL))
        return frame;
    }
  g_assert_not_reached ();
  return NULL;
}

static gboolean
lesson_shown (gpointer data)
{
  Fixture *f = data;
  GtkWidget *panel = ui_test_find_widget (GTK_WIDGET (f->window), "lesson-panel");

  return panel != NULL && gtk_revealer_get_child_revealed (GTK_REVEALER (panel)) &&
         ui_test_full_frame_shown (f->window);
}

static BraggscopeFrame *
open_lesson (Fixture *f, const char *id)
{
  ui_test_activate (f->window, "lesson", g_variant_new_string (id));
  g_assert_true (ui_test_wait (lesson_shown, f, 120.0));
  return settle (f);
}

/* The lesson panel's slider, the one its text asks to try. */
static GtkRange *
try_slider (Fixture *f)
{
  GtkWidget *panel = ui_test_find_widget (GTK_WIDGET (f->window), "lesson-panel");
  GtkWidget *slider = ui_test_find_widget (panel, "lesson-try-scale");

  g_assert_nonnull (slider);
  return GTK_RANGE (slider);
}

/* Moves the lesson's slider to @value (it must get there) and waits for
 * the pictures of the new value. */
static BraggscopeFrame *
try_value (Fixture *f, double value)
{
  GtkRange *slider = try_slider (f);

  gtk_range_set_value (slider, value);
  g_assert_cmpfloat_with_epsilon (gtk_range_get_value (slider), value, 1e-9);
  return settle (f);
}

static gboolean
labelled (GArray *labels, int h, int k, int l)
{
  for (guint i = 0; labels != NULL && i < labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (labels, BraggscopeReflection, i);

      if (r->h == h && r->k == k && r->l == l)
        return TRUE;
    }
  return FALSE;
}

/* ---- the lessons ---- */

/* "A crystal diffracts when a point of its reciprocal lattice touches the
 * Ewald sphere ... Turn the crystal and watch points cross the sphere as
 * their spots flash": every spot labelled on the detector within the
 * lattice drawn is a point drawn in diffracting position, and turning the
 * misset brings other points and other spots. */
static void
check_spots_are_points_on_sphere (Fixture *f, GArray *labels)
{
  double limit = 0;
  guint checked = 0;

  g_object_get (reciprocal_of (f), "resolution-limit", &limit, NULL);
  g_assert_nonnull (labels);
  for (guint i = 0; i < labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (labels, BraggscopeReflection, i);
      gboolean diffracting = FALSE;

      if (r->d_spacing < limit)
        continue;
      checked++;

      g_assert_true (braggscope_reciprocal_view_get_point (reciprocal_of (f), r->h, r->k, r->l,
                                                           NULL, NULL, &diffracting, NULL));
      if (!diffracting)
        g_test_message ("%d %d %d labelled but not drawn on the sphere", r->h, r->k, r->l);
      g_assert_true (diffracting);
    }
  g_test_message ("%u labelled spots within %g Å drawn on the sphere", checked, limit);
  g_assert_cmpuint (checked, >=, 3);
}

static void
test_ewald_sphere (Fixture *f, gconstpointer data)
{
  g_autoptr (GArray) before = NULL;
  g_autoptr (GArray) after = NULL;
  guint arrived = 0;

  open_lesson (f, "ewald-sphere");
  before = braggscope_view_get_labels (view_of (f));
  check_spots_are_points_on_sphere (f, before);

  try_value (f, gtk_range_get_value (try_slider (f)) + 3.0);
  after = braggscope_view_get_labels (view_of (f));
  check_spots_are_points_on_sphere (f, after);
  for (guint i = 0; i < after->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (after, BraggscopeReflection, i);

      arrived += !labelled (before, r->h, r->k, r->l);
    }
  g_test_message ("spots labelled: %u, then %u of which %u new", before->len, after->len, arrived);
  g_assert_cmpuint (arrived, >, 0);
}

/* "The Ewald sphere's radius is 1/λ: a shorter wavelength makes a larger
 * sphere, which reaches lattice points further from the origin ... The
 * rings stay at 4, 3 and 2.5 Å": the sphere drawn grows as 1/λ while the
 * lattice stays where it is drawn. */
static void
test_wavelength (Fixture *f, gconstpointer data)
{
  BraggscopeReciprocalView *rv;
  double radius0, radius1, x0, y0, x1, y1;
  const int point[3] = { 0, 3, 2 };
  g_autoptr (GArray) boxes = NULL;
  guint rings = 0;

  open_lesson (f, "wavelength");
  rv = reciprocal_of (f);
  g_assert_cmpfloat (gtk_range_get_value (try_slider (f)), ==, 1.2);
  g_assert_true (braggscope_reciprocal_view_get_sphere (rv, NULL, NULL, &radius0));
  g_assert_true (braggscope_reciprocal_view_get_point (rv, point[0], point[1], point[2], &x0, &y0,
                                                       NULL, NULL));

  try_value (f, 0.9);
  g_assert_true (braggscope_reciprocal_view_get_sphere (rv, NULL, NULL, &radius1));
  g_assert_true (braggscope_reciprocal_view_get_point (rv, point[0], point[1], point[2], &x1, &y1,
                                                       NULL, NULL));
  g_test_message ("sphere radius %.1f px at 1.2 Å, %.1f px at 0.9 Å; point 0 3 2 at %.1f, %.1f "
                  "then %.1f, %.1f",
                  radius0, radius1, x0, y0, x1, y1);
  g_assert_cmpfloat_with_epsilon (radius1 / radius0, 1.2 / 0.9, 0.01);
  g_assert_cmpfloat (hypot (x1 - x0, y1 - y0), <, 0.5);

  boxes = braggscope_view_get_label_boxes (view_of (f));
  g_assert_nonnull (boxes);
  for (guint i = 0; i < boxes->len; i++)
    {
      const BraggscopeLabelBox *b = &g_array_index (boxes, BraggscopeLabelBox, i);

      if (!b->ring)
        continue;
      rings++;
      g_assert_true (b->d_spacing == 4.0 || b->d_spacing == 3.0 || b->d_spacing == 2.5);
    }
  g_assert_cmpuint (rings, ==, 3);
}

/* Pixels of the reciprocal view drawn in the crossing points' green. */
static guint
green_pixels (Fixture *f)
{
  g_autoptr (GdkTexture) texture = ui_test_screenshot (GTK_WIDGET (reciprocal_of (f)));
  g_autofree guint8 *rgba = ui_test_texture_rgba (texture);
  gsize n = (gsize) gdk_texture_get_width (texture) * gdk_texture_get_height (texture);
  guint count = 0;

  for (gsize i = 0; i < n; i++)
    count += rgba[4 * i + 1] > 200 && rgba[4 * i] < 160 && rgba[4 * i + 2] < 180;
  return count;
}

/* "every lattice point that crosses the Ewald sphere during the turn records
 * a spot: in the reciprocal view those points are green.  Play the rotation
 * (Ctrl+P)": green points at rest and in every frame drawn while playing. */
static void
test_rotation (Fixture *f, gconstpointer data)
{
  BraggscopeReciprocalView *rv;
  BraggscopeFrame *last = NULL;
  guint crossing, green, frames = 0, fewest = G_MAXUINT;
  double phi0 = 0, phi1 = 0;
  gint64 end;

  open_lesson (f, "rotation");
  rv = reciprocal_of (f);
  crossing = braggscope_reciprocal_view_get_n_crossing (rv);
  green = green_pixels (f);
  g_test_message ("at rest: %u points drawn crossing, %u green pixels", crossing, green);
  g_assert_cmpuint (crossing, >, 0);
  g_assert_cmpuint (green, >, 4 * crossing);

  g_object_get (braggscope_window_get_simulation (f->window), "phi", &phi0, NULL);
  ui_test_activate (f->window, "play", NULL);
  end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < end)
    {
      BraggscopeFrame *frame = braggscope_reciprocal_view_get_frame (rv);

      g_main_context_iteration (NULL, FALSE);
      if (frame == last || !braggscope_reciprocal_view_get_sphere (rv, NULL, NULL, NULL))
        continue;
      last = frame;
      frames++;
      fewest = MIN (fewest, braggscope_reciprocal_view_get_n_crossing (rv));
    }
  ui_test_activate (f->window, "play", NULL);
  g_object_get (braggscope_window_get_simulation (f->window), "phi", &phi1, NULL);
  g_test_message ("playing from φ %.1f° to %.1f°: %u frames drawn, at least %u crossing in each",
                  phi0, phi1, frames, fewest);
  g_assert_cmpfloat (phi1, >, phi0 + 1.0);
  g_assert_cmpuint (frames, >=, 3);
  g_assert_cmpuint (fewest, >, 0);
}

/* "spots grow into arcs and more of them light up at once.  Increase the
 * mosaic spread": more points drawn in diffracting position. */
static void
test_mosaicity (Fixture *f, gconstpointer data)
{
  guint before, after;

  open_lesson (f, "mosaicity");
  before = braggscope_reciprocal_view_get_n_diffracting (reciprocal_of (f));
  try_value (f, 2.0);
  after = braggscope_reciprocal_view_get_n_diffracting (reciprocal_of (f));
  g_test_message ("points drawn diffracting: %u at 1°, %u at 2°", before, after);
  g_assert_cmpuint (after, >, before + before / 4);
}

/* Pixels the detector view shows lit: grey (not the rings' red) and darker
 * than mid-grey on the inverted grey of its own window. */
static gsize
lit_pixels (Fixture *f)
{
  int width = 0, height = 0;
  g_autofree guint8 *rgba = braggscope_view_render_rgba (view_of (f), &width, &height);
  gsize n = 0;

  for (gsize i = 0; i < (gsize) width * height; i++)
    {
      const guint8 *p = rgba + 4 * i;

      n += p[1] < 128 && abs (p[0] - p[1]) < 8 && abs (p[2] - p[1]) < 8;
    }
  return n;
}

/* "Grow the crystal (cells per edge) and watch the spots sharpen and fewer
 * of them light up": with the lesson's contrast (its window's top the
 * 99.99th percentile, the brightest spots) the detector shows far fewer lit
 * pixels, and fewer points are drawn on the sphere. */
static void
test_shape_transform (Fixture *f, gconstpointer data)
{
  guint points0, points1;
  gsize lit0, lit1;
  double high0 = 0, high1 = 0;

  open_lesson (f, "shape-transform");
  g_assert_cmpfloat (braggscope_view_get_contrast_percentile (view_of (f)), ==, 99.99);
  points0 = braggscope_reciprocal_view_get_n_diffracting (reciprocal_of (f));
  lit0 = lit_pixels (f);
  g_object_get (view_of (f), "high", &high0, NULL);

  try_value (f, 10);
  points1 = braggscope_reciprocal_view_get_n_diffracting (reciprocal_of (f));
  lit1 = lit_pixels (f);
  g_object_get (view_of (f), "high", &high1, NULL);
  g_test_message ("N 3: %u points, %" G_GSIZE_FORMAT " lit pixels, window top %.3g; "
                  "N 10: %u points, %" G_GSIZE_FORMAT " lit pixels, window top %.3g",
                  points0, lit0, high0, points1, lit1, high1);
  g_assert_cmpuint (points1, <, points0 / 2);
  g_assert_cmpuint (lit1 * 10, <, lit0);
  g_assert_true (braggscope_view_get_auto_contrast (view_of (f)));
}

/* The frame's brightest value within a pixel of (@x, @y). */
static float
peak_near (BraggscopeFrame *frame, double x, double y)
{
  int width = braggscope_frame_get_width (frame), height = braggscope_frame_get_height (frame);
  const float *data = braggscope_frame_get_data (frame, NULL);
  float best = 0.0f;

  for (int j = MAX ((int) y - 1, 0); j <= MIN ((int) y + 1, height - 1); j++)
    for (int i = MAX ((int) x - 1, 0); i <= MIN ((int) x + 1, width - 1); i++)
      best = MAX (best, data[(gsize) j * width + i]);
  return best;
}

/* GtkLabels under @widget whose text starts with @prefix, every expander
 * opened (a collapsed one keeps its child out of the tree). */
static guint
count_labels (GtkWidget *widget, const char *prefix)
{
  guint n =
      GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), prefix);

  if (GTK_IS_EXPANDER (widget))
    gtk_expander_set_expanded (GTK_EXPANDER (widget), TRUE);

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_labels (child, prefix);
  return n;
}

/* "0 0 12 diffracts at φ = 4.1° and 0 0 6 at 2.1°, but nothing lights up
 * where 0 0 7 to 0 0 11 would, at 2.4° to 3.8°": labels at the named
 * angles, on the slider's steps, and the absent reflections' predicted
 * spots dark and unlabelled. */
static void
test_absences (Fixture *f, gconstpointer data)
{
  static const struct
  {
    double phi;
    int l;
  } named[] = { { 4.1, 12 }, { 2.1, 6 } }, absent[] = {
    { 2.4, 7 }, { 2.7, 8 }, { 3.1, 9 }, { 3.4, 10 }, { 3.8, 11 },
  };

  open_lesson (f, "absences");
  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    {
      g_autoptr (GArray) labels = NULL;

      try_value (f, named[i].phi);
      labels = braggscope_view_get_labels (view_of (f));
      g_test_message ("φ %.1f°: 0 0 %d labelled: %d", named[i].phi, named[i].l,
                      labelled (labels, 0, 0, named[i].l));
      g_assert_true (labelled (labels, 0, 0, named[i].l));
      g_assert_false (labelled (labels, 0, 0, -named[i].l));
    }
  for (guint i = 0; i < G_N_ELEMENTS (absent); i++)
    {
      BraggscopeFrame *frame = try_value (f, absent[i].phi);
      g_autoptr (GArray) labels = braggscope_view_get_labels (view_of (f));
      g_autoptr (GArray) predicted = braggscope_frame_predict_reflections (frame, NULL);
      gboolean found = FALSE;
      double low = 0, high = 0;

      g_object_get (view_of (f), "low", &low, "high", &high, NULL);
      for (int l = 7; l <= 11; l++)
        {
          g_assert_false (labelled (labels, 0, 0, l));
          g_assert_false (labelled (labels, 0, 0, -l));
        }
      for (guint j = 0; j < predicted->len; j++)
        {
          const BraggscopeReflection *r = &g_array_index (predicted, BraggscopeReflection, j);

          if (r->h != 0 || r->k != 0 || r->l != absent[i].l)
            continue;
          found = TRUE;
          g_test_message ("φ %.1f°: 0 0 %d predicted at %.1f, %.1f: %g photons (window %g to %g)",
                          absent[i].phi, r->l, r->x, r->y, peak_near (frame, r->x, r->y), low,
                          high);
          g_assert_cmpfloat (peak_near (frame, r->x, r->y), <=, low + 1e-3 * (high - low));
        }
      g_assert_true (found);
    }

  /* one "φ start" in the panel: the playback's own start is named apart */
  g_assert_cmpuint (count_labels (GTK_WIDGET (f->window), "φ start"), ==, 1);
}

/* The predicted spots of the lesson @id: h k l, place and the peak counts
 * there, and |F| of each. */
typedef struct
{
  GArray *spots;      /* BraggscopeReflection */
  GArray *peaks;      /* float, photons */
  GArray *amplitudes; /* double, |F| */
} LessonSpots;

static void
frame_spots (BraggscopeFrame *frame, LessonSpots *out)
{
  BraggscopeGeometry *geometry = braggscope_frame_get_geometry (frame);
  g_autoptr (GError) error = NULL;

  out->spots = braggscope_frame_predict_reflections (frame, &error);
  g_assert_no_error (error);
  out->peaks = g_array_new (FALSE, FALSE, sizeof (float));
  out->amplitudes = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < out->spots->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (out->spots, BraggscopeReflection, i);
      float peak = peak_near (frame, r->x, r->y);
      double amplitude =
          braggscope_geometry_get_structure_factor (geometry, r->h, r->k, r->l, NULL);

      g_array_append_val (out->peaks, peak);
      g_array_append_val (out->amplitudes, amplitude);
    }
}

static void
lesson_spots_clear (LessonSpots *spots)
{
  g_array_unref (spots->spots);
  g_array_unref (spots->peaks);
  g_array_unref (spots->amplitudes);
}

/* The simulation's structure-factor file is the data folder's @name. */
static void
assert_structure_factors (Fixture *f, const char *name)
{
  g_autofree char *file = NULL;
  g_autofree char *base = NULL;

  g_object_get (braggscope_window_get_simulation (f->window), "structure-factors", &file, NULL);
  g_assert_nonnull (file);
  base = g_path_get_basename (file);
  g_assert_cmpstr (base, ==, name);
}

/* "Switch the molecule to 1hpv-apo.pdb ... every spot stays at its pixel ...
 * about one spot in seven changes its |F| by more than a quarter, and
 * −7 2 17 loses a third of it": the lesson opens on 1hpv.pdb, its panel's
 * switch loads 1hpv-apo.pdb (and back); the two predict the same
 * reflections at the same pixels; |F| changes by more than 25 % for 10 % to
 * 20 % of them, and by −30 % to −40 % for −7 2 17, whose spot dims
 * accordingly. */
static void
test_same_lattice (Fixture *f, gconstpointer data)
{
  LessonSpots bound = { 0 }, apo = { 0 }, again = { 0 };
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, r, named[2] = { 0, 0 }, peaks[2] = { 0, 0 };
  guint n, changed = 0;
  GtkWidget *panel, *choice;

  frame_spots (open_lesson (f, "same-lattice"), &bound);
  assert_structure_factors (f, "1hpv.pdb");
  panel = ui_test_find_widget (GTK_WIDGET (f->window), "lesson-panel");
  choice = ui_test_find_widget (panel, "lesson-structure-factors");
  g_assert_nonnull (choice);
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (choice)), ==, 0);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (choice), 1);
  frame_spots (settle (f), &apo);
  assert_structure_factors (f, "1hpv-apo.pdb");
  n = bound.spots->len;
  g_test_message ("%u spots predicted with the drug, %u without", n, apo.spots->len);
  g_assert_cmpuint (n, >=, 100);
  g_assert_cmpuint (apo.spots->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const BraggscopeReflection *a = &g_array_index (bound.spots, BraggscopeReflection, i);
      const BraggscopeReflection *b = &g_array_index (apo.spots, BraggscopeReflection, i);
      double x = g_array_index (bound.peaks, float, i), y = g_array_index (apo.peaks, float, i);
      double fa = g_array_index (bound.amplitudes, double, i),
             fb = g_array_index (apo.amplitudes, double, i);

      g_assert_cmpint (a->h, ==, b->h);
      g_assert_cmpint (a->k, ==, b->k);
      g_assert_cmpint (a->l, ==, b->l);
      g_assert_cmpfloat_with_epsilon (a->x, b->x, 1e-9);
      g_assert_cmpfloat_with_epsilon (a->y, b->y, 1e-9);
      sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
      changed += fa > 0 && fabs (fb - fa) / fa > 0.25;
      if (a->h == -7 && a->k == 2 && a->l == 17)
        named[0] = fa, named[1] = fb, peaks[0] = x, peaks[1] = y;
    }
  r = (n * sxy - sx * sy) / sqrt ((n * sxx - sx * sx) * (n * syy - sy * sy));
  g_test_message ("correlation of the spots' peak counts: %.4f", r);
  g_test_message ("%u of %u spots change |F| by more than 25 %%", changed, n);
  g_test_message ("-7 2 17: |F| %.1f with the drug, %.1f without (%+.1f %%); peak %.3g -> %.3g",
                  named[0], named[1], 100.0 * (named[1] - named[0]) / named[0], peaks[0], peaks[1]);
  g_assert_cmpfloat (r, <, 0.999);
  g_assert_cmpuint (changed, >=, n / 10);
  g_assert_cmpuint (changed, <=, n / 5);
  g_assert_cmpfloat (named[0], >, 0.0);
  g_assert_cmpfloat ((named[1] - named[0]) / named[0], >, -0.40);
  g_assert_cmpfloat ((named[1] - named[0]) / named[0], <, -0.30);
  g_assert_cmpfloat (peaks[1], <, 0.8 * peaks[0]);

  /* and back: the drug's |F| again */
  gtk_drop_down_set_selected (GTK_DROP_DOWN (choice), 0);
  frame_spots (settle (f), &again);
  assert_structure_factors (f, "1hpv.pdb");
  g_assert_cmpuint (again.spots->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (g_array_index (again.amplitudes, double, i), ==,
                       g_array_index (bound.amplitudes, double, i));
  lesson_spots_clear (&bound);
  lesson_spots_clear (&apo);
  lesson_spots_clear (&again);
}

/* ---- labels ---- */

/* GTK's body font in pixels, as the window's settings give it. */
static double
body_font_size (void)
{
  g_autofree char *name = NULL;
  PangoFontDescription *font;
  double size;

  g_object_get (gtk_settings_get_default (), "gtk-font-name", &name, NULL);
  font = pango_font_description_from_string (name != NULL ? name : "Sans 10");
  size = (double) pango_font_description_get_size (font) / PANGO_SCALE;
  if (!pango_font_description_get_size_is_absolute (font))
    size *= 96.0 / 72.0;
  pango_font_description_free (font);
  return size;
}

static gboolean
is_round (double d)
{
  static const double mantissas[] = { 1, 1.2, 1.5, 1.8, 2, 2.5, 3, 3.5, 4, 5, 6, 8 };
  double m = d / pow (10.0, floor (log10 (d)));

  for (guint i = 0; i < G_N_ELEMENTS (mantissas); i++)
    if (fabs (m - mantissas[i]) < 1e-9)
      return TRUE;
  return FALSE;
}

/* No two of @boxes overlap, each lies within @width x @height and its text
 * is at least @font_size; ring labels are at round d unless @rings_fixed.
 * Returns how many labels there are. */
static guint
check_boxes (const char *what, GArray *boxes, double width, double height, double font_size)
{
  guint rings = 0;

  g_assert_nonnull (boxes);
  for (guint i = 0; i < boxes->len; i++)
    {
      const BraggscopeLabelBox *a = &g_array_index (boxes, BraggscopeLabelBox, i);

      rings += a->ring;
      g_assert_cmpfloat (a->font_size, >=, font_size - 0.01);
      g_assert_cmpfloat (a->x, >=, 0.0);
      g_assert_cmpfloat (a->y, >=, 0.0);
      g_assert_cmpfloat (a->x + a->width, <=, width);
      g_assert_cmpfloat (a->y + a->height, <=, height);
      for (guint j = 0; j < i; j++)
        {
          const BraggscopeLabelBox *b = &g_array_index (boxes, BraggscopeLabelBox, j);
          gboolean overlap = a->x < b->x + b->width && b->x < a->x + a->width &&
                             a->y < b->y + b->height && b->y < a->y + a->height;

          if (overlap)
            g_test_message ("%s: labels %u (%g Å, %d %d %d) and %u (%g Å, %d %d %d) overlap", what,
                            i, a->d_spacing, a->h, a->k, a->l, j, b->d_spacing, b->h, b->k, b->l);
          g_assert_false (overlap);
        }
    }
  g_test_message ("%s: %u labels (%u rings), text %.1f px", what, boxes->len, rings, font_size);
  return boxes->len;
}

/* A picture of the window in $BRAGGSCOPE_LESSON_SCREENSHOTS/@id.png, where
 * that is set: what the checks saw, to look at. */
static void
save_window (Fixture *f, const char *id)
{
  const char *dir = g_getenv ("BRAGGSCOPE_LESSON_SCREENSHOTS");
  g_autofree char *name = g_strconcat (id, ".png", NULL);
  g_autofree char *path = NULL;
  g_autoptr (GdkTexture) shot = NULL;

  if (dir == NULL)
    return;
  path = g_build_filename (dir, name, NULL);
  shot = ui_test_screenshot (GTK_WIDGET (f->window));
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (gdk_texture_save_to_png (shot, path));
}

/* Every lesson as the window shows it at 1600 x 1000, the detector beside
 * the reciprocal view: labels at the body font's size, none overlapping. */
static void
test_window_labels (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (NULL);
  double font_size = body_font_size ();

  g_assert_nonnull (lessons);
  for (guint i = 0; i < lessons->len; i++)
    {
      const BraggscopeLesson *lesson = g_ptr_array_index (lessons, i);
      GtkWidget *view;
      g_autoptr (GArray) boxes = NULL;
      guint rings = 0;

      open_lesson (f, lesson->id);
      view = GTK_WIDGET (view_of (f));
      g_test_message ("%s: detector view %d x %d", lesson->id, gtk_widget_get_width (view),
                      gtk_widget_get_height (view));
      g_assert_cmpint (gtk_widget_get_width (view), <, 800);
      boxes = braggscope_view_get_label_boxes (view_of (f));
      g_assert_cmpuint (check_boxes (lesson->id, boxes, gtk_widget_get_width (view),
                                     gtk_widget_get_height (view), font_size),
                        >, 0);
      for (guint j = 0; j < boxes->len; j++)
        {
          const BraggscopeLabelBox *b = &g_array_index (boxes, BraggscopeLabelBox, j);

          if (b->ring && lesson->rings == NULL)
            {
              g_assert_true (is_round (b->d_spacing));
              rings++;
            }
        }
      if (lesson->rings == NULL)
        g_assert_cmpuint (rings, >=, 3);
      save_window (f, lesson->id);
    }
}

/* The README's pictures (braggscope --snapshot --lesson NAME --view both):
 * the picture of the code that writes them, checked against the file the
 * program writes, with the same checks on its labels, at the size of the
 * body font of GTK's default, Sans 10, at least. */
static void
test_readme_labels (void)
{
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (NULL);
  g_autofree char *dir = g_dir_make_tmp ("braggscope-lessons-XXXXXX", NULL);

  g_assert_nonnull (lessons);
  for (guint i = 0; i < lessons->len; i++)
    {
      const BraggscopeLesson *lesson = g_ptr_array_index (lessons, i);
      g_autofree char *name = g_strconcat (lesson->id, ".png", NULL);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      const char *argv[] = { "braggscope", "--snapshot", path,   "--lesson",
                             lesson->id,   "--view",     "both", NULL };
      const char *exe = g_getenv ("BRAGGSCOPE_EXE");
      const char *run[] = {
        exe, "--snapshot", path, "--lesson", lesson->id, "--view", "both", NULL
      };
      g_autoptr (GArray) boxes = g_array_new (FALSE, FALSE, sizeof (BraggscopeLabelBox));
      g_autoptr (BraggscopeSimulation) sim = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree guint8 *rgba = NULL, *written = NULL;
      BraggscopeOptions opts = { 0 };
      int width = 0, height = 0, w2 = 0, h2 = 0, status = 0, side;

      g_assert_true (braggscope_options_parse (&opts, G_N_ELEMENTS (argv) - 1, argv, &error));
      rgba =
          braggscope_headless_render (&opts, NULL, boxes, &sim, &width, &height, &status, &error);
      g_assert_no_error (error);
      g_assert_nonnull (rgba);
      braggscope_options_clear (&opts);

      g_assert_nonnull (exe);
      g_assert_true (g_spawn_sync (NULL, (char **) run, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                   NULL, &status, &error));
      g_assert_no_error (error);
      g_assert_cmpint (status, ==, 0);
      written = ui_test_read_png (path, &w2, &h2, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (w2, ==, width);
      g_assert_cmpint (h2, ==, height);
      g_assert_cmpuint (ui_test_count_differences (rgba, written, (gsize) width * height, 0), ==,
                        0);

      /* the detector's half: the frame, as tall as the picture */
      side = height;
      check_boxes (lesson->id, boxes, width - side, height, 10.0 * 96.0 / 72.0);
      g_remove (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);

  app = braggscope_application_new (G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/lessons/ewald-sphere", test_ewald_sphere);
  ADD ("/lessons/wavelength", test_wavelength);
  ADD ("/lessons/rotation", test_rotation);
  ADD ("/lessons/mosaicity", test_mosaicity);
  ADD ("/lessons/shape-transform", test_shape_transform);
  ADD ("/lessons/absences", test_absences);
  ADD ("/lessons/same-lattice", test_same_lattice);
  ADD ("/lessons/labels/window", test_window_labels);
#undef ADD
  g_test_add_func ("/lessons/labels/readme-pictures", test_readme_labels);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
