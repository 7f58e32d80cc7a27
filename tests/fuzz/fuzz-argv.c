/* fuzz-argv: nb_params_parse_argv() and nb_params_validate() on argument
 * lists (one per input line), then, for a valid set, nb_plan_create() and the
 * round trip through nb_params_to_argv().
 *
 * Invariants: no crash or sanitizer report; every error has a one-line
 * message; parameters that validate give an argument list that parses and
 * validates again to the same values that matter. */
#include "fuzz-util.h"

#include <math.h>

#define MAX_ARGS 64

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* file names in the input then name nothing: the empty scratch folder is
   * the working directory, and inputs naming other folders are skipped */
  if (chdir (fuzz_scratch_dir ()) != 0)
    abort ();
  return 0;
}

static void
check_message (nb_status st, const nb_error *err)
{
  if (st != NB_OK && (err->message[0] == '\0' || strchr (err->message, '\n') != NULL))
    {
      fprintf (stderr, "status %d without a one-line message: '%s'\n", (int) st, err->message);
      abort ();
    }
}

static int
same_number (double a, double b)
{
  return a == b || (isnan (a) && isnan (b)) || fabs (a - b) <= 1e-9 * fmax (fabs (a), fabs (b));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int initialized;
  char *text;
  const char *argv[MAX_ARGS + 1];
  int argc = 0;
  nb_params p;
  nb_error err;
  nb_status st;

  if (!initialized)
    {
      LLVMFuzzerInitialize (NULL, NULL);
      initialized = 1;
    }
  if ((text = fuzz_argv (data, size, argv, MAX_ARGS, &argc)) == NULL)
    return 0;

  nb_params_init (&p);
  st = nb_params_parse_argv (&p, argc, argv, &err);
  check_message (st, &err);
  if (st == NB_OK)
    {
      st = nb_params_validate (&p, &err);
      check_message (st, &err);
    }
  if (st == NB_OK)
    {
      int n = 0;
      char **again = nb_params_to_argv (&p, &n);
      nb_params q;

      if (again == NULL)
        abort ();
      nb_params_init (&q);
      st = nb_params_parse_argv (&q, n, (const char *const *) again, &err);
      if (st == NB_OK)
        st = nb_params_validate (&q, &err);
      if (st != NB_OK)
        {
          fprintf (stderr, "valid parameters, but their argument list fails: %s\n", err.message);
          abort ();
        }
      if (!same_number (q.lambda0, p.lambda0) || !same_number (q.distance, p.distance) ||
          q.fpixels != p.fpixels || q.spixels != p.spixels || !same_number (q.Na, p.Na) ||
          q.mosaic_domains != p.mosaic_domains || q.phisteps != p.phisteps)
        {
          fprintf (stderr, "round trip through nb_params_to_argv changed the parameters\n");
          abort ();
        }
      nb_params_clear (&q);
      nb_argv_free (again);

      /* the plan: the engine must accept what validation let through, or
       * refuse it with a message; never write a file (-dump) */
      free (p.dump_file);
      p.dump_file = NULL;
      p.backend = NB_BACKEND_CPU;
      if (p.memory_budget == 0.0 || p.memory_budget > FUZZ_MEMORY_BUDGET)
        p.memory_budget = FUZZ_MEMORY_BUDGET;
      fuzz_plan (&p);
    }
  nb_params_clear (&p);
  free (text);
  return 0;
}
