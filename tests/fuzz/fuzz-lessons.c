/* fuzz-lessons: the viewer's lesson files (ui/braggscope-lesson.c).
 *
 * Each input is a lesson file, in a lessons folder of its own beside another,
 * valid lesson: braggscope_lessons_load() reads both (GKeyFile, the numbers,
 * the arguments split as a shell splits them), every lesson that loads sets
 * up its simulation as the viewer does (braggscope_lesson_create_simulation:
 * the scene rule, the parser, validation), and its reciprocal view is drawn
 * from a small frame made once, with the lesson's zoom and resolution limit
 * (where a zoom of 1e300 once made cairo_arc spin).
 *
 * Invariants: no crash and no hang; the valid lesson always loads (a bad file
 * costs only its own lesson), and a skipped file's message is one line
 * naming it; a lesson's numbers are finite and its arguments name no file to
 * write; every error a one-line message. */
#include "fuzz-util.h"

#include "nb-param.h"

#include "braggscope-lesson.h"

#include <braggscope-gtk.h>
#include <glib/gstdio.h>

static char lessons_dir[4300], input_path[4400], good_path[4400];
static BraggscopeFrame *frame;
static guint skipped;

static void
check_error (GError *error)
{
  if (error == NULL || error->message == NULL || strchr (error->message, '\n') != NULL)
    abort ();
}

/* A skipped lesson's message: one line, naming the file. */
static void
on_message (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (!g_str_has_prefix (message, "Skipping a lesson: "))
    {
      g_log_default_handler (domain, level, message, data);
      return;
    }
  if (strchr (message, '\n') != NULL || strstr (message, "fuzz.desktop") == NULL)
    {
      fprintf (stderr, "bad message: %s\n", message);
      abort ();
    }
  skipped++;
}

static void
on_frame (BraggscopeSimulation *sim, BraggscopeFrame *f, gpointer data)
{
  if (!braggscope_frame_get_is_preview (f))
    g_set_object (&frame, f);
}

static void
remove_lessons (void)
{
  g_unlink (input_path);
  g_unlink (good_path);
  g_rmdir (lessons_dir);
}

/* A frame of a small scene, for the reciprocal drawings. */
static void
make_frame (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  const char *const args[] = { "-cell",     "50",         "50",         "50",     "90",
                               "90",        "90",         "-default_F", "10",     "-N",
                               "3",         "-detpixels", "16",         "-pixel", "2",
                               "-distance", "100",        "-backend",   "cpu",    NULL };
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  if (!braggscope_simulation_set_from_args (sim, args, NULL))
    abort ();
  g_signal_connect (sim, "frame-ready", G_CALLBACK (on_frame), NULL);
  braggscope_simulation_render (sim);
  while (frame == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (frame == NULL)
    abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  static const char good[] =
      "[Lesson]\nId=good\nName=Good\nComment=A valid lesson.\nTry=misset-x\nScene=empty\n"
      "Arguments=-cell 40 40 40 90 90 90 -default_F 100 -N 4 -detpixels 16\n";
  static gboolean ready;

  /* libFuzzer calls it, replay.c does not: the first input does then */
  if (ready)
    return 0;
  ready = TRUE;
  snprintf (lessons_dir, sizeof lessons_dir, "%s/lessons", fuzz_scratch_dir ());
  snprintf (input_path, sizeof input_path, "%s/fuzz.desktop", lessons_dir);
  snprintf (good_path, sizeof good_path, "%s/good.desktop", lessons_dir);
  if (g_mkdir (lessons_dir, 0700) != 0 || !g_file_set_contents (good_path, good, -1, NULL))
    abort ();
  /* runs before fuzz_util's cleanup (atexit is last in, first out) */
  atexit (remove_lessons);
  setenv ("BRAGGSCOPE_LESSONSDIR", lessons_dir, 1);
  /* file names in a lesson's arguments are looked for here, not elsewhere */
  if (chdir (fuzz_scratch_dir ()) != 0)
    abort ();
  g_log_set_handler ("Braggscope", G_LOG_LEVEL_MESSAGE, on_message, NULL);
  make_frame ();
  return 0;
}

static void
check_lesson (const BraggscopeLesson *lesson)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GBytes) drawn = NULL;
  int argc = (int) g_strv_length (lesson->args);

  if (!isfinite (lesson->reciprocal_zoom) || !isfinite (lesson->reciprocal_resolution) ||
      !isfinite (lesson->play_start) || !isfinite (lesson->play_range) ||
      !isfinite (lesson->play_speed))
    abort ();
  for (int i = 0; i < argc; i++)
    if (nb_argv_output_words (argc, (const char *const *) lesson->args, i) > 0)
      abort ();
  /* the default scene's structure factors are read only when it renders */
  sim = braggscope_lesson_create_simulation (lesson, NULL, &error);
  if (sim == NULL)
    check_error (error);
  drawn = braggscope_render_reciprocal_bytes (frame, 25.0, 20.0, lesson->reciprocal_zoom,
                                              lesson->reciprocal_resolution, 24, 24);
  if (drawn == NULL)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) lessons = NULL;
  g_autoptr (GError) error = NULL;
  gboolean good = FALSE;

  LLVMFuzzerInitialize (NULL, NULL);
  /* arguments naming a path are not followed out of the scratch folder */
  if (size > 4096 || memchr (data, '/', size) != NULL)
    return 0;
  if (!g_file_set_contents (input_path, (const char *) data, (gssize) size, NULL))
    abort ();
  skipped = 0;
  lessons = braggscope_lessons_load (&error);
  if (lessons == NULL)
    abort (); /* the folder is there: never every lesson lost */
  for (guint i = 0; i < lessons->len; i++)
    {
      const BraggscopeLesson *lesson = g_ptr_array_index (lessons, i);

      good |= g_strcmp0 (lesson->path, good_path) == 0;
      check_lesson (lesson);
    }
  if (!good || lessons->len + skipped != 2)
    abort ();
  return 0;
}
