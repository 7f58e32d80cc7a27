/* test-cli-wait-policy.c: nanobragg runs with OpenMP's passive wait policy
 * unless the user chose one (cli/wait-policy.c): libgomp's OMP_DISPLAY_ENV
 * report, which it prints as it starts, says which policy and spin count the
 * program's threads got.  Skipped where the OpenMP runtime is not libgomp (it
 * prints no GOMP_SPINCOUNT line). */
#define _GNU_SOURCE /* sched_getaffinity */
#include <glib.h>

#include <sched.h>
#include <string.h>
#include <sys/wait.h>

static const char *cli;

/* The value libgomp reports for @name ("GOMP_SPINCOUNT" ...) when nanobragg
 * -h runs with @set (NAME=VALUE, or NULL) in an environment that has none of
 * OMP_WAIT_POLICY, GOMP_SPINCOUNT and OMP_NUM_THREADS otherwise; NULL when it
 * reports none.
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
  env = g_environ_unsetenv (env, "OMP_NUM_THREADS");
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

/* The CPUs this process (and so the program it starts) may run on. */
static int
cpus_allowed (void)
{
  cpu_set_t set;

  return sched_getaffinity (0, sizeof set, &set) == 0 ? CPU_COUNT (&set) : 1;
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
  if (cpus_allowed () < 2)
    {
      g_test_skip ("one CPU: one thread, nobody waits");
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

/* One thread: nobody waits, so there is no second start (libgomp's default). */
static void
test_one_thread (void)
{
  int reports;
  g_autofree char *spin = reported ("OMP_NUM_THREADS=1", "GOMP_SPINCOUNT", &reports);

  if (spin == NULL)
    {
      g_test_skip ("the OpenMP runtime is not libgomp");
      return;
    }
  g_assert_cmpint (reports, ==, 1);
  g_assert_cmpstr (spin, !=, "0");
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
  g_test_add_func ("/cli/wait-policy/one-thread", test_one_thread);
  return g_test_run ();
}
