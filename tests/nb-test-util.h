/* nb-test-util.h: helpers shared by the engine tests. */
#pragma once

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "nanobragg.h"

/* nb_test_remove_tree: removes @path and, for a folder, what it holds,
 * without following links; a folder made read-only by a test is opened up
 * first. */
static inline void
nb_test_remove_tree (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr (GDir) dir = NULL;
      const char *entry;

      g_chmod (path, 0700);
      dir = g_dir_open (path, 0, NULL);
      while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, entry, NULL);

          nb_test_remove_tree (child);
        }
      if (g_rmdir (path) != 0)
        g_test_message ("could not remove %s: %s", path, g_strerror (errno));
    }
  else if (g_unlink (path) != 0)
    g_test_message ("could not remove %s: %s", path, g_strerror (errno));
}

/* plan_new: a plan from "nanobragg @cmdline"; any error aborts the test. */
static inline nb_plan *
plan_new (const char *cmdline)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  nb_params_init (&p);
  if (nb_params_parse_argv (&p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
  if (nb_plan_create (&p, &plan, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
  nb_params_clear (&p);
  return plan;
}
