/* nb-test-util.h: helpers shared by the engine tests. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include "nanobragg.h"

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

/* nb_test_remove_dir: removes the files directly inside @dir, then @dir (a
 * test's scratch folder; one level, as the tests make them). */
static inline void
nb_test_remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_remove (path);
    }
  g_rmdir (dir);
}
