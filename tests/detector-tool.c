/* detector-tool.c: the multi-panel geometry readers and the NXmx writer as a
 * small program, for the tests that hold them against dxtbx (tests/dials) and
 * feed them files (test-detector-read.c).
 *
 *   detector-tool print expt|nxmx|geom FILE
 *     the model as one JSON object: beam, wavelength (m), data array size and
 *     per panel name, fpixels, spixels, pixel_size (m), fdet, sdet, pix0 (m,
 *     nanoBragg's laboratory frame), thick, mu, material, data origin and the
 *     number of masked pixels;
 *   detector-tool write-nxmx expt|nxmx|geom FILE OUT.nxs
 *     the model and a made-up image (pixel (f, s) of panel p counts
 *     1000 p + 7 f + 3 s, mod 65521) written as a multi-module NXmx file.
 *
 * Errors: the reader's one-line message on stderr, exit status 1.
 */
#include "formats/nb-detector-read.h"
#include "nb-frame-write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
print_string (const char *s)
{
  putchar ('"');
  for (; *s != '\0'; s++)
    if (*s == '"' || *s == '\\')
      printf ("\\%c", *s);
    else if ((unsigned char) *s < 0x20)
      printf ("\\u%04x", (unsigned char) *s);
    else
      putchar (*s);
  putchar ('"');
}

static void
print_vector (const char *key, const double v[3])
{
  printf ("\"%s\": [%.17g, %.17g, %.17g]", key, v[0], v[1], v[2]);
}

static void
print_model (const nb_detector_model *m)
{
  printf ("{");
  print_vector ("beam", m->beam);
  printf (", \"wavelength\": %.17g, \"data_fpixels\": %d, \"data_spixels\": %d, \"panels\": [\n",
          m->wavelength, m->data_fpixels, m->data_spixels);
  for (int i = 0; i < m->n_panels; i++)
    {
      const nb_panel *p = &m->panels[i];
      long masked = 0;

      if (p->mask != NULL)
        for (long k = 0; k < (long) p->fpixels * p->spixels; k++)
          masked += p->mask[k] != 0;
      printf ("  {\"name\": ");
      print_string (p->name);
      printf (", \"fpixels\": %d, \"spixels\": %d, \"pixel_size\": %.17g, ", p->fpixels, p->spixels,
              p->pixel_size);
      print_vector ("fdet", p->fdet);
      printf (", ");
      print_vector ("sdet", p->sdet);
      printf (", ");
      print_vector ("pix0", p->pix0);
      printf (", \"thick\": %.17g, \"mu\": %.17g, \"material\": ", p->thick, p->mu);
      print_string (p->material);
      printf (", \"data_origin\": [%d, %d], \"masked\": %ld}%s\n", p->data_origin_f,
              p->data_origin_s, masked, i + 1 < m->n_panels ? "," : "");
    }
  printf ("]}\n");
}

static int
write_nxmx (const nb_detector_model *m, const char *out)
{
  long long n = nb_detector_model_pixels (m);
  int32_t *pixels;
  nb_error err = { 0 };
  size_t k = 0;

  if (n <= 0 || (pixels = malloc ((size_t) n * sizeof *pixels)) == NULL)
    {
      fprintf (stderr, "detector-tool: no room for %lld pixels\n", n);
      return 1;
    }
  for (int p = 0; p < m->n_panels; p++)
    for (int s = 0; s < m->panels[p].spixels; s++)
      for (int f = 0; f < m->panels[p].fpixels; f++)
        pixels[k++] = (int32_t) ((1000LL * p + 7LL * f + 3LL * s) % 65521);
  if (nb_write_nexus_detector (out, m, pixels, &err) != NB_OK)
    {
      fprintf (stderr, "detector-tool: %s\n", err.message);
      free (pixels);
      return 1;
    }
  free (pixels);
  return 0;
}

int
main (int argc, char **argv)
{
  nb_detector_model model;
  nb_error err = { 0 };
  nb_status st;
  int rc = 0;

  if (argc < 4 || (strcmp (argv[1], "print") != 0 && strcmp (argv[1], "write-nxmx") != 0) ||
      (strcmp (argv[1], "write-nxmx") == 0) != (argc == 5) || argc > 5)
    {
      fprintf (stderr, "usage: detector-tool print expt|nxmx|geom FILE\n"
                       "       detector-tool write-nxmx expt|nxmx|geom FILE OUT.nxs\n");
      return 2;
    }
  if (strcmp (argv[2], "expt") == 0)
    st = nb_detector_read_expt (argv[3], &model, &err);
  else if (strcmp (argv[2], "nxmx") == 0)
    st = nb_detector_read_nxmx (argv[3], &model, &err);
  else if (strcmp (argv[2], "geom") == 0)
    st = nb_detector_model_read (argv[3], &model, &err);
  else
    {
      fprintf (stderr, "detector-tool: %s: not expt, nxmx or geom\n", argv[2]);
      return 2;
    }
  if (st != NB_OK)
    {
      fprintf (stderr, "detector-tool: %s\n", err.message);
      return 1;
    }
  if (strcmp (argv[1], "print") == 0)
    print_model (&model);
  else
    rc = write_nxmx (&model, argv[4]);
  nb_detector_model_clear (&model);
  return rc;
}
