/* braggscope-lesson.c: reading the lessons (see braggscope-lesson.h).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
/* O_CLOEXEC, O_NOCTTY (POSIX 2008) under -std=c11 */
#define _POSIX_C_SOURCE 200809L

#include "braggscope-config.h"

#include "braggscope-lesson.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A lesson is a few kilobytes of text; anything larger is not one. */
#define LESSON_MAX_BYTES (64 * 1024)

void
braggscope_lesson_free (BraggscopeLesson *lesson)
{
  if (lesson == NULL)
    return;
  g_free (lesson->id);
  g_free (lesson->title);
  g_free (lesson->text);
  g_free (lesson->try_property);
  g_strfreev (lesson->args);
  g_free (lesson->view);
  g_free (lesson->rings);
  g_free (lesson->label_reflections);
  g_free (lesson->path);
  g_free (lesson->structure_factors);
  g_strfreev (lesson->structure_factor_choices);
  g_free (lesson);
}

const char *
braggscope_lessons_dir (void)
{
  const char *env = g_getenv ("BRAGGSCOPE_LESSONSDIR");

  if (env != NULL && *env != '\0')
    return env;
  if (g_file_test (BRAGGSCOPE_INSTALLED_LESSONSDIR, G_FILE_TEST_IS_DIR))
    return BRAGGSCOPE_INSTALLED_LESSONSDIR;
  return BRAGGSCOPE_SOURCE_LESSONSDIR;
}

const char *
braggscope_lesson_data_dir (void)
{
  const char *env = g_getenv ("BRAGGSCOPE_DATADIR");

  if (env != NULL && *env != '\0')
    return env;
  if (g_strcmp0 (braggscope_lessons_dir (), BRAGGSCOPE_INSTALLED_LESSONSDIR) == 0)
    return BRAGGSCOPE_INSTALLED_LESSON_DATADIR;
  return BRAGGSCOPE_SOURCE_LESSON_DATADIR;
}

/* Whether @name is a bare file name: a lesson file is untrusted, and may
 * name only a file of the data folder, never a path out of it. */
static gboolean
is_bare_file_name (const char *name)
{
  return *name != '\0' && strchr (name, '/') == NULL && strchr (name, '\\') == NULL &&
         strcmp (name, ".") != 0 && strcmp (name, "..") != 0 && g_utf8_validate (name, -1, NULL);
}

/* The number of @key, or @fallback when the file has none.  A lesson file is
 * data: a value that is not a finite number (inf, nan, "far") is an error
 * naming the key, where GKeyFile would give inf or nan; the range is the
 * receiver's (the widgets clamp, as they clamp what a user types). */
static gboolean
get_number (
    GKeyFile *file, const char *path, const char *key, double fallback, double *out, GError **error)
{
  g_autofree char *text = g_key_file_get_value (file, "Lesson", key, NULL);
  char *end = NULL;
  double v;

  *out = fallback;
  if (text == NULL)
    return TRUE;
  v = g_ascii_strtod (g_strstrip (text), &end);
  if (end == text || *end != '\0' || !isfinite (v))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: %s: '%s' is not a finite number", path, key, text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* The keys that make a lesson's claim visible: the reflections it names,
 * the contrast and the reciprocal-space scale it needs.  A value out of
 * range fails with the key's name. */
static gboolean
lesson_load_claim_keys (GKeyFile *file, BraggscopeLesson *lesson, const char *path, GError **error)
{
  g_auto (GStrv) reflections = NULL;

  reflections = g_key_file_get_string_list (file, "Lesson", "LabelReflections", NULL, NULL);
  if (reflections != NULL && reflections[0] != NULL)
    lesson->label_reflections = g_strjoinv ("; ", reflections);
  if (!get_number (file, path, "ContrastPercentile", 0.0, &lesson->contrast_percentile, error) ||
      !get_number (file, path, "ReciprocalScaleWavelength", 0.0, &lesson->scale_wavelength, error))
    return FALSE;
  if (lesson->contrast_percentile != 0.0 &&
      !(lesson->contrast_percentile >= 50.0 && lesson->contrast_percentile <= 100.0))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: ContrastPercentile: %g is not within 50 to 100", path,
                   lesson->contrast_percentile);
      return FALSE;
    }
  if (lesson->scale_wavelength != 0.0 &&
      !(lesson->scale_wavelength > 0.0 && lesson->scale_wavelength <= 100.0))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: ReciprocalScaleWavelength: %g Å is not above 0 and at most 100 Å", path,
                   lesson->scale_wavelength);
      return FALSE;
    }
  return TRUE;
}

/* The text of the lesson file @path: a regular file of at most
 * LESSON_MAX_BYTES, opened without blocking, so that a FIFO or a device put
 * in the lessons' folder is refused instead of hanging the viewer. */
static char *
lesson_read (const char *path, gsize *length, GError **error)
{
  g_autofree char *text = NULL;
  struct stat st;
  gsize got = 0;
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > LESSON_MAX_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "not a regular file of at most %d bytes", LESSON_MAX_BYTES);
      close (fd);
      return NULL;
    }
  text = g_malloc (LESSON_MAX_BYTES + 1);
  while (got <= LESSON_MAX_BYTES)
    {
      gssize n = read (fd, text + got, LESSON_MAX_BYTES + 1 - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (gsize) n;
    }
  close (fd);
  if (got > LESSON_MAX_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "longer than %d bytes",
                   LESSON_MAX_BYTES);
      return NULL;
    }
  *length = got;
  return g_steal_pointer (&text);
}

/* StructureFactors: one bare file name, or a list of them ("a.pdb;b.pdb;")
 * that the lesson's panel switches between, the first loaded at the start. */
static gboolean
lesson_load_structure_factors (GKeyFile *file,
                               BraggscopeLesson *lesson,
                               const char *path,
                               GError **error)
{
  gsize n = 0;
  g_auto (GStrv) names = g_key_file_get_string_list (file, "Lesson", "StructureFactors", &n, NULL);

  if (names == NULL || n == 0)
    return TRUE;
  if (n > BRAGGSCOPE_LESSON_CHOICES_MAX)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: StructureFactors: %" G_GSIZE_FORMAT " files, more than %d", path, n,
                   BRAGGSCOPE_LESSON_CHOICES_MAX);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    if (!is_bare_file_name (names[i]))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: StructureFactors: '%s' is not the bare name of a file in the data "
                     "folder",
                     path, names[i]);
        return FALSE;
      }
  lesson->structure_factors = g_strdup (names[0]);
  lesson->structure_factor_choices = g_steal_pointer (&names);
  return TRUE;
}

static BraggscopeLesson *
lesson_load (const char *path, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (BraggscopeLesson) lesson = g_new0 (BraggscopeLesson, 1);
  g_autofree char *name = NULL, *comment = NULL, *scene = NULL, *args = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  double label_count;

  if ((text = lesson_read (path, &length, &local)) == NULL ||
      !g_key_file_load_from_data (file, text, length, G_KEY_FILE_NONE, &local) ||
      (lesson->id = g_key_file_get_string (file, "Lesson", "Id", &local)) == NULL ||
      (name = g_key_file_get_string (file, "Lesson", "Name", &local)) == NULL ||
      (comment = g_key_file_get_string (file, "Lesson", "Comment", &local)) == NULL ||
      (lesson->try_property = g_key_file_get_string (file, "Lesson", "Try", &local)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path, local->message);
      return NULL;
    }
  lesson->title = g_strdup (_ (name));
  lesson->text = g_strdup (_ (comment));
  scene = g_key_file_get_string (file, "Lesson", "Scene", NULL);
  lesson->from_default_scene = g_strcmp0 (scene, "empty") != 0;
  args = g_key_file_get_string (file, "Lesson", "Arguments", NULL);
  if (args != NULL && *args != '\0')
    {
      if (!g_shell_parse_argv (args, NULL, &lesson->args, &local))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: Arguments: %s", path,
                       local->message);
          return NULL;
        }
    }
  else
    lesson->args = g_new0 (char *, 1);
  {
    /* a lesson shows a scene: it never makes the viewer write a file */
    g_autofree char *dropped = NULL;
    g_auto (GStrv) kept =
        braggscope_scene_args_drop_outputs ((const char *const *) lesson->args, &dropped);

    if (dropped != NULL)
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: Arguments: %s names a file to write, which a lesson may not", path,
                     dropped);
        return NULL;
      }
  }
  lesson->path = g_strdup (path);
  lesson->view = g_key_file_get_string (file, "Lesson", "View", NULL);
  if (lesson->view == NULL)
    lesson->view = g_strdup ("both");
  if (!g_strv_contains ((const char *const[]){ "detector", "reciprocal", "both", NULL },
                        lesson->view))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: View: '%s' is not detector, reciprocal or both", path, lesson->view);
      return NULL;
    }
  lesson->labels = g_key_file_get_boolean (file, "Lesson", "Labels", NULL);
  lesson->rings = g_key_file_get_string (file, "Lesson", "Rings", NULL);
  lesson->playback = g_key_file_has_key (file, "Lesson", "PlayRange", NULL);
  if (!get_number (file, path, "LabelCount", 20, &label_count, error) ||
      !get_number (file, path, "ReciprocalResolution", 0.0, &lesson->reciprocal_resolution,
                   error) ||
      !get_number (file, path, "ReciprocalZoom", 1.0, &lesson->reciprocal_zoom, error) ||
      !get_number (file, path, "PlayStart", 0.0, &lesson->play_start, error) ||
      !get_number (file, path, "PlayRange", 90.0, &lesson->play_range, error) ||
      !get_number (file, path, "PlaySpeed", 10.0, &lesson->play_speed, error))
    return NULL;
  /* a count: the view takes 1 to 500 */
  lesson->label_count = (guint) CLAMP (label_count, 0.0, (double) G_MAXUINT);
  if (!lesson_load_claim_keys (file, lesson, path, error))
    return NULL;
  if (!lesson_load_structure_factors (file, lesson, path, error))
    return NULL;
  return g_steal_pointer (&lesson);
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
braggscope_lessons_load (GError **error)
{
  const char *dir = braggscope_lessons_dir ();
  g_autoptr (GDir) handle = g_dir_open (dir, 0, error);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) lessons =
      g_ptr_array_new_with_free_func ((GDestroyNotify) braggscope_lesson_free);
  const char *name;

  if (handle == NULL)
    return NULL;
  while ((name = g_dir_read_name (handle)) != NULL)
    if (g_str_has_suffix (name, ".desktop"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      g_autoptr (GError) local = NULL;
      BraggscopeLesson *lesson = lesson_load (path, &local);

      /* one bad file costs its own lesson, not every other */
      if (lesson == NULL)
        {
          g_message (_ ("Skipping a lesson: %s"), local->message);
          continue;
        }
      g_ptr_array_add (lessons, lesson);
    }
  return g_steal_pointer (&lessons);
}

BraggscopeLesson *
braggscope_lesson_find (const char *id, GError **error)
{
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (error);
  g_autoptr (GString) ids = g_string_new (NULL);

  if (lessons == NULL)
    return NULL;
  for (guint i = 0; i < lessons->len; i++)
    {
      BraggscopeLesson *lesson = g_ptr_array_index (lessons, i);

      if (g_strcmp0 (lesson->id, id) == 0)
        return g_ptr_array_steal_index (lessons, i);
      g_string_append_printf (ids, "%s%s", i ? ", " : "", lesson->id);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("--lesson: no lesson '%s' (one of %s)"),
               id, ids->str);
  return NULL;
}

BraggscopeSimulation *
braggscope_lesson_create_simulation (const BraggscopeLesson *lesson,
                                     const char *const *extra_args,
                                     GError **error)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;

  sim = lesson->from_default_scene ? braggscope_simulation_new_default_scene (error)
                                   : braggscope_simulation_new ();
  if (sim == NULL)
    return NULL;
  if (lesson->args[0] != NULL && !braggscope_simulation_set_scene_from_args (
                                     sim, (const char *const *) lesson->args, lesson->path, error))
    return NULL;
  if (lesson->structure_factors != NULL &&
      !braggscope_lesson_choose_structure_factors (lesson, sim, 0, error))
    return NULL;
  if (extra_args != NULL && extra_args[0] != NULL &&
      !braggscope_simulation_set_from_args (sim, extra_args, error))
    return NULL;
  return g_steal_pointer (&sim);
}

guint
braggscope_lesson_n_structure_factors (const BraggscopeLesson *lesson)
{
  return lesson->structure_factor_choices != NULL ? g_strv_length (lesson->structure_factor_choices)
                                                  : 0;
}

gboolean
braggscope_lesson_choose_structure_factors (const BraggscopeLesson *lesson,
                                            BraggscopeSimulation *sim,
                                            guint index,
                                            GError **error)
{
  g_autofree char *file = NULL;
  const char *model_args[] = { "-model", NULL, NULL };

  g_return_val_if_fail (index < braggscope_lesson_n_structure_factors (lesson), FALSE);
  file = g_build_filename (braggscope_lesson_data_dir (), lesson->structure_factor_choices[index],
                           NULL);
  if (!g_file_test (file, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "%s: StructureFactors: %s is not a file", lesson->path, file);
      return FALSE;
    }
  model_args[1] = file;
  return braggscope_simulation_set_from_args (sim, model_args, error);
}
