/* test-cli-wait-policy.c: nanobragg runs with OpenMP's passive wait policy
 * unless the user chose one (cli/wait-policy.c): libgomp's OMP_DISPLAY_ENV
 * report, which it prints as it starts, says which policy and spin count the
 * program's threads got.  Skipped where the OpenMP runtime is not libgomp (it
 * prints no GOMP_SPINCOUNT line). */
#include <glib.h>

#include <string.h>
#include <sys/wait.h>

static const char *cli;

/* The value libgomp reports for @name ("GOMP_SPINCOUNT" ...) when nanobragg
 * -h runs with @set (NAME=VALUE, or NULL) in an environment that has neither
 * OMP_WAIT_POLICY nor GOMP_SPINCOUNT otherwise; NULL when it reports none.
 * *@reports: how many OMP_DISPLAY_ENV reports the run printed. */
static char *
reported (const char *set, const char *name, int *reports)
{
  g_auto (GStrv) env = g_get_environ ();
  g_autofree char *out = NULL, *err = NULL, *key = g_strdup_printf ("  %s = '", name);
  const char *argv[] = { cli, "-h", NULL };
  g_autoptr (GError) error = NULL;
  const char *at, *p;
  int status = 0;

  env = g_environ_unsetenv (env, "OMP_WAIT_POLICY");
  env = g_environ_unsetenv (env, "GOMP_SPINCOUNT");
  env = g_environ_setenv (env, "OMP_DISPLAY_ENV", "verbose", TRUE);
  if (set != NULL)
    {
      g_auto (GStrv) kv = g_strsplit (set, "=", 2);

      env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  *reports = 0;
  for (p = err; (p = strstr (p, "OPENMP DISPLAY ENVIRONMENT BEGIN")) != NULL; p++)
    (*reports)++;
  if ((at = strstr (err, key)) == NULL)
    return NULL;
  at += strlen (key);
  return g_strndup (at, strcspn (at, "'"));
}

static void
test_passive_by_default (void)
{
  int reports;
  g_autofree char *spin = reported (NULL, "GOMP_SPINCOUNT", &reports);
  g_autofree char *policy = NULL;

  if (spin == NULL)
    {
      g_test_skip ("the OpenMP runtime is not libgomp");
      return;
    }
  /* one report: the first start executed the program again before libgomp started */
  g_assert_cmpint (reports, ==, 1);
  g_assert_cmpstr (spin, ==, "0");
  policy = reported (NULL, "OMP_WAIT_POLICY", &reports);
  g_assert_cmpstr (policy, ==, "PASSIVE");
}

static void
test_user_policy_kept (void)
{
  int reports;
  g_autofree char *spin = reported ("OMP_WAIT_POLICY=active", "GOMP_SPINCOUNT", &reports);
  g_autofree char *policy = NULL, *own = NULL;

  if (spin == NULL)
    {
      g_test_skip ("the OpenMP runtime is not libgomp");
      return;
    }
  g_assert_cmpint (reports, ==, 1);
  g_assert_cmpstr (spin, !=, "0");
  policy = reported ("OMP_WAIT_POLICY=active", "OMP_WAIT_POLICY", &reports);
  g_assert_cmpstr (policy, ==, "ACTIVE");
  /* a spin count of the user's own, with no policy: kept, and no passive policy added */
  own = reported ("GOMP_SPINCOUNT=12345", "GOMP_SPINCOUNT", &reports);
  g_assert_cmpstr (own, ==, "12345");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("NB_CLI");
  if (cli == NULL)
    {
      g_printerr ("NB_CLI is not set\n");
      return 1;
    }
  g_test_add_func ("/cli/wait-policy/passive-by-default", test_passive_by_default);
  g_test_add_func ("/cli/wait-policy/user-policy-kept", test_user_policy_kept);
  return g_test_run ();
}
