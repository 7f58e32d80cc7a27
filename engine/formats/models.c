/* models.c: the engine's side of the models module (nb-models.h): opens
 * nanobragg-models.so on the first model read (where nb-module-search.h
 * finds it) and calls through its table; sniffs a structure-factor file's
 * kind. */
#include "base/nb-input.h"
#include "nb-models.h"
#include "nb-module-search.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_MODELS
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

static pthread_once_t module_once = PTHREAD_ONCE_INIT;
static const nb_models *module;
static char module_problem[NB_ERROR_MESSAGE_MAX + PATH_MAX];

static void
load_module (void)
{
  char shown[PATH_MAX + 32];
  void *handle = nb_module_search (NB_MODELS_MODULE_NAME, "NB_MODELS_MODULE", "the models module",
                                   shown, sizeof shown, module_problem, sizeof module_problem);
  nb_models_open_fn open_fn;
  const nb_models *table = NULL;

  if (handle == NULL)
    return;
  *(void **) &open_fn = dlsym (handle, NB_MODELS_SYMBOL);
  if (open_fn != NULL)
    table = open_fn (NB_MODELS_ABI);
  if (table == NULL || table->abi != NB_MODELS_ABI || table->size != sizeof (nb_models))
    {
      snprintf (module_problem, sizeof module_problem, "%s is not this build's models module (%s)",
                shown, open_fn == NULL ? "no " NB_MODELS_SYMBOL : "another version");
      dlclose (handle);
      return;
    }
  module = table;
}
#endif

int
nb_models_available (void)
{
#ifdef NB_HAVE_MODELS
  return 1;
#else
  return 0;
#endif
}

nb_status
nb_structure_read (const char *path, size_t max_bytes, nb_structure *out, nb_error *err)
{
  memset (out, 0, sizeof *out);
#ifdef NB_HAVE_MODELS
  pthread_once (&module_once, load_module);
  if (module == NULL)
    return nb_error_set (err, NB_ERR_IO, "%s: %s", path, module_problem);
  if (max_bytes > NB_MODEL_FILE_MAX)
    max_bytes = NB_MODEL_FILE_MAX;
  {
    int fd;
    nb_status st;

    /* a regular file only, opened without blocking (nb-input.h) */
    if ((st = nb_input_open (path, &fd, NULL, err)) != NB_OK)
      return st;
    st = module->read (path, fd, max_bytes, out, err);
    close (fd);
    return st;
  }
#else
  (void) max_bytes;
  return nb_error_set (err, NB_ERR_UNSUPPORTED,
                       "%s: an atomic model or mmCIF structure-factor file, but this build has no "
                       "gemmi (reconfigure with -Dmodels=enabled; Debian gemmi-dev)",
                       path);
#endif
}

void
nb_structure_clear (nb_structure *m)
{
  free (m->symops);
  free (m->forms);
  free (m->atoms);
  free (m->hkl);
  free (m->F);
  memset (m, 0, sizeof *m);
}

/* A PDB record or a CIF data block starts @line. */
static int
starts_model (const char *line)
{
  static const char *const records[] = {
    "HEADER", "TITLE ", "COMPND", "SOURCE", "KEYWDS", "EXPDTA", "AUTHOR", "REVDAT", "JRNL  ",
    "REMARK", "CRYST1", "SCALE",  "ORIGX",  "ATOM  ", "HETATM", "MODEL ", "SEQRES", "DBREF ",
    "OBSLTE", "SPRSDE", "CAVEAT", "SPLIT ", "NUMMDL", "MDLTYP", "HET   ", "HETNAM", "FORMUL",
    "HELIX ", "SHEET ", "SSBOND", "LINK  ", "CISPEP", "SITE  ", "MTRIX",  "ANISOU", "TER",
  };

  if (strncmp (line, "data_", 5) == 0 || strncmp (line, "DATA_", 5) == 0)
    return 1;
  for (size_t i = 0; i < sizeof records / sizeof records[0]; i++)
    if (strncmp (line, records[i], strlen (records[i])) == 0)
      return 1;
  return 0;
}

int
nb_file_is_model (const char *path)
{
  FILE *f;
  char line[256];
  int first = 1, model = 0;
  nb_error ignored;

  if (nb_input_fopen (path, &f, NULL, &ignored) != NB_OK)
    return 0;
  while (fgets (line, sizeof line, f) != NULL)
    {
      const char *c = line;

      if (first && (unsigned char) line[0] == 0x1f && (unsigned char) line[1] == 0x8b)
        {
          model = 1; /* gzip: only the module reads it */
          break;
        }
      first = 0;
      c += strspn (c, " \t\r\n");
      if (*c == '\0' || *c == '#' || *c == '!')
        {
          /* the rest of a long comment line */
          while (strchr (line, '\n') == NULL && fgets (line, sizeof line, f) != NULL)
            ;
          continue;
        }
      model = starts_model (c);
      break;
    }
  fclose (f);
  return model;
}
