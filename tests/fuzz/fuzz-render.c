/* fuzz-render: argument lists that validate, through a plan to an image, on
 * detectors small enough to render in microseconds: the kernels (double,
 * single, the reference's exact order) on the extreme values validation lets
 * through.  Invariant: no crash, no undefined behaviour, no NaN pixel. */
#include "fuzz-util.h"

#include <math.h>

#define MAX_ARGS 64

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* file names in the input name nothing: see fuzz-argv.c */
  if (chdir (fuzz_scratch_dir ()) != 0)
    abort ();
  return 0;
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
  nb_plan *plan = NULL;

  if (!initialized)
    {
      LLVMFuzzerInitialize (NULL, NULL);
      initialized = 1;
    }
  if ((text = fuzz_argv (data, size, argv, MAX_ARGS, &argc)) == NULL)
    return 0;

  nb_params_init (&p);
  if (nb_params_parse_argv (&p, argc, argv, &err) == NB_OK &&
      nb_params_validate (&p, &err) == NB_OK)
    {
      free (p.dump_file);
      p.dump_file = NULL;
      p.backend = NB_BACKEND_CPU;
      p.memory_budget = FUZZ_MEMORY_BUDGET;
      if (nb_plan_create (&p, &plan, &err) == NB_OK)
        {
          const nb_plan_info *in = nb_plan_get_info (plan);
          double work = (double) in->fpixels * in->spixels * in->steps * in->thicksteps;

          if (work <= 20000)
            {
              size_t n = (size_t) in->fpixels * (size_t) in->spixels;
              float *image = malloc (n * sizeof (float));
              nb_exec_options opts = { 0 };

              opts.threads = 1;
              if (nb_plan_execute (plan, image, &opts, &err) == NB_OK)
                for (size_t i = 0; i < n; i++)
                  if (isnan (image[i]))
                    {
                      fprintf (stderr, "NaN at pixel %zu of a %d x %d image\n", i, in->fpixels,
                               in->spixels);
                      abort ();
                    }
              free (image);
            }
          nb_plan_destroy (plan);
        }
    }
  nb_params_clear (&p);
  free (text);
  return 0;
}
