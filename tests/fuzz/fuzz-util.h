/* fuzz-util.h: what the fuzz targets share.  Each target defines
 * LLVMFuzzerTestOneInput() (and may define LLVMFuzzerInitialize()); libFuzzer
 * calls it in the clang build (build-aux/fuzz.sh), and replay.c calls it on
 * the seed corpus and the regression inputs in every build, so a crash found
 * once stays fixed.
 *
 * The engine's readers take file names, so each input is written to a scratch
 * file first: the real reading code runs, not a copy made for fuzzing. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanobragg.h"

/* a budget small enough that no input makes a target slow or large */
#define FUZZ_MEMORY_BUDGET (64.0 * 1024 * 1024)
/* the structure-factor readers: a grid of up to 4 MB keeps them at thousands of runs a second */
#define FUZZ_GRID_BUDGET ((size_t) 4 << 20)

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static char fuzz_dir[4096];

static inline void
fuzz_cleanup (void)
{
  static const char *const names[] = { "in-0", "in-1", "out-0", "out-1" };

  if (fuzz_dir[0] == '\0')
    return;
  /* only what the targets write: these files directly inside the folder */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      char path[4200];

      snprintf (path, sizeof path, "%s/%s", fuzz_dir, names[i]);
      unlink (path);
    }
  rmdir (fuzz_dir);
}

/* A private empty folder for this process (made on first use). */
static inline const char *
fuzz_scratch_dir (void)
{
  if (fuzz_dir[0] == '\0')
    {
      const char *tmp = getenv ("TMPDIR");

      snprintf (fuzz_dir, sizeof fuzz_dir, "%s/nb-fuzz-XXXXXX",
                tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
      if (mkdtemp (fuzz_dir) == NULL)
        {
          perror ("mkdtemp");
          abort ();
        }
      atexit (fuzz_cleanup);
    }
  return fuzz_dir;
}

/* The path of scratch file "in-@slot" or "out-@slot" (@slot 0 or 1). */
static inline const char *
fuzz_path (const char *kind, int slot)
{
  static char paths[4][4200];
  char *p = paths[(kind[0] == 'o') * 2 + (slot != 0)];

  snprintf (p, 4200, "%s/%s-%d", fuzz_scratch_dir (), kind, slot != 0);
  return p;
}

/* Writes @size bytes to scratch input @slot and returns its path. */
static inline const char *
fuzz_write (int slot, const uint8_t *data, size_t size)
{
  const char *path = fuzz_path ("in", slot);
  FILE *f = fopen (path, "wb");

  if (f == NULL || (size > 0 && fwrite (data, 1, size, f) != size) || fclose (f) != 0)
    {
      perror (path);
      abort ();
    }
  return path;
}

/* A small valid scene to hang a fuzzed file on: the plan runs the same code
 * as the CLI would, on the CPU, within FUZZ_MEMORY_BUDGET. */
static inline void
fuzz_scene (nb_params *p)
{
  nb_params_init (p);
  p->cell[0] = p->cell[1] = p->cell[2] = 50.0;
  p->default_F = 10.0;
  p->fpixels = p->spixels = 8;
  p->backend = NB_BACKEND_CPU;
  p->memory_budget = FUZZ_MEMORY_BUDGET;
}

/* Creates and destroys a plan of @p; any error is fine, a crash is not. */
static inline void
fuzz_plan (const nb_params *p)
{
  nb_plan *plan = NULL;
  nb_error err;

  if (nb_plan_create (p, &plan, &err) == NB_OK)
    nb_plan_destroy (plan);
  else if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL)
    {
      fprintf (stderr, "error without a one-line message: '%s'\n", err.message);
      abort ();
    }
}

/* fuzz_argv: splits @data (at most 4096 bytes) at newlines into a nanoBragg
 * argument list: argv[0] "nanobragg", then one argument per line, at most
 * @max in all, NULL-terminated.  Inputs naming a path ('/') are skipped so
 * that no target reads or writes outside its scratch folder.  Returns the
 * text the arguments point into (free it after use), or NULL to skip the
 * input. */
static inline char *
fuzz_argv (const uint8_t *data, size_t size, const char **argv, int max, int *argc)
{
  char *text, *line, *save = NULL;

  if (size > 4096)
    return NULL;
  text = malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  *argc = 0;
  argv[(*argc)++] = "nanobragg";
  for (line = strtok_r (text, "\n", &save); line != NULL && *argc < max;
       line = strtok_r (NULL, "\n", &save))
    {
      if (strchr (line, '/') != NULL)
        {
          free (text);
          return NULL;
        }
      argv[(*argc)++] = line;
    }
  argv[*argc] = NULL;
  return text;
}
