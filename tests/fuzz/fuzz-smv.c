/* fuzz-smv: the SMV reader (nb_read_smv, nb_smv_lookup) and what the CLI
 * does with a header: -img (its keys as defaults, validated, then a plan) and
 * -mask (its pixels). */
#include "fuzz-util.h"
#include "nb-io.h"

#include <math.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_smv_file f;
  nb_error err;
  nb_params p;

  if (nb_read_smv (path, &f, &err) != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || f.text != NULL ||
          f.pixels != NULL)
        abort ();
      return 0;
    }
  if (f.size1 < 1 || f.size2 < 1 || f.pixels == NULL || strlen (f.text) > f.header_bytes)
    abort ();
  (void) f.pixels[(size_t) f.size1 * f.size2 - 1];
  {
    static const char *const keys[] = { "PIXEL_SIZE", "DISTANCE", "WAVELENGTH", "SIZE1", "=" };
    char raw[32];

    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      {
        double v, plain = nb_smv_value (&f, keys[i]);
        long line;
        int r = nb_smv_lookup (&f, keys[i], &v, &line, raw, sizeof raw);

        if ((r == 0) != isnan (plain) && r != -1)
          abort ();
        if (r == 1 && (!isfinite (v) || line < 1))
          abort ();
        if (strlen (raw) >= sizeof raw)
          abort ();
      }
  }
  nb_smv_file_clear (&f);

  {
    const char *argv[] = { "nanobragg",  "-img", path,    "-mask", path,
                           "-default_F", "10",   "-cell", "50",    NULL };
    nb_status st;

    nb_params_init (&p);
    st = nb_params_parse_argv (&p, 9, argv, &err);
    if (st == NB_OK)
      st = nb_params_validate (&p, &err);
    if (st == NB_OK)
      {
        p.backend = NB_BACKEND_CPU;
        p.memory_budget = FUZZ_MEMORY_BUDGET;
        fuzz_plan (&p);
      }
    else if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL)
      abort ();
    nb_params_clear (&p);
  }
  return 0;
}
