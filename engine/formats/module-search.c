/* module-search.c: where the engine finds its loadable modules
 * (nb-module-search.h). */
#include "nb-module-search.h"

#include <stdio.h>

#ifdef NB_HAVE_MODULES

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder of the file that holds this code, in @dir (@size bytes): the
 * shared library, or the program (dladdr gives argv[0] for the main program,
 * which may be a bare name found on PATH: /proc/self/exe then). */
static int
engine_folder (char *dir, size_t size)
{
  Dl_info info;
  char path[PATH_MAX];
  char *slash;

  if (dladdr ((void *) engine_folder, &info) == 0 || info.dli_fname == NULL)
    return 0;
  if (strchr (info.dli_fname, '/') == NULL || realpath (info.dli_fname, path) == NULL)
    {
      ssize_t n = readlink ("/proc/self/exe", path, sizeof path - 1);

      if (n <= 0)
        return 0;
      path[n] = '\0';
    }
  if ((slash = strrchr (path, '/')) == NULL || (size_t) (slash - path) >= size)
    return 0;
  memcpy (dir, path, (size_t) (slash - path));
  dir[slash - path] = '\0';
  return 1;
}

typedef struct
{
  const char *name;
  char *shown;
  size_t shown_size;
  char *problem;
  size_t problem_size;
  char looked[512];
  void *handle;
} search;

static void
open_module (search *s, const char *path)
{
  if ((s->handle = dlopen (path, RTLD_NOW | RTLD_LOCAL)) == NULL)
    snprintf (s->problem, s->problem_size, "cannot load %s: %s", s->shown, dlerror ());
}

/* Tries @dir/@rel/name (@rel may be ""): 1 when it was there (loaded or not:
 * handle or problem set), 0 when absent (added to looked). */
static int
try_module (search *s, const char *dir, const char *rel)
{
  char path[PATH_MAX + 64], resolved[PATH_MAX];
  size_t used = strlen (s->looked);

  if (rel[0] != '\0')
    snprintf (path, sizeof path, "%s/%s/%s", dir, rel, s->name);
  else
    snprintf (path, sizeof path, "%s/%s", dir, s->name);
  if (access (path, F_OK) != 0)
    {
      snprintf (s->looked + used, sizeof s->looked - used, "%s%s", used > 0 ? ", " : "", path);
      return 0;
    }
  /* bin/../lib/... as lib/...: the name the loader and any message show */
  if (realpath (path, resolved) != NULL)
    snprintf (path, sizeof path, "%s", resolved);
  snprintf (s->shown, s->shown_size, "%s", path);
  open_module (s, path);
  return 1;
}

/* A path is in the build tree when it starts with the build root and '/'. */
static int
in_build_tree (const char *dir)
{
  size_t n = strlen (NB_BUILD_ROOT);

  return strncmp (dir, NB_BUILD_ROOT, n) == 0 && (dir[n] == '/' || dir[n] == '\0');
}

void *
nb_module_search (const char *name,
                  const char *env,
                  const char *what,
                  char *shown,
                  size_t shown_size,
                  char *problem,
                  size_t problem_size)
{
  const char *env_path = getenv (env);
  search s = { name, shown, shown_size, problem, problem_size, "", NULL };
  char dir[PATH_MAX];
  int have_dir, build_first;

  if (env_path != NULL && env_path[0] != '\0')
    {
      snprintf (shown, shown_size, "%s=%s", env, env_path);
      open_module (&s, env_path);
      return s.handle;
    }

  have_dir = engine_folder (dir, sizeof dir);
  build_first = have_dir && in_build_tree (dir);
  if (have_dir && (try_module (&s, dir, NB_FORMATS_FROM_BINDIR) ||
                   try_module (&s, dir, NB_FORMATS_FROM_LIBDIR)))
    return s.handle;
  if (build_first && try_module (&s, NB_FORMATS_BUILD_DIR, ""))
    return s.handle;
  if (try_module (&s, NB_FORMATS_INSTALL_DIR, "") ||
      (!build_first && try_module (&s, NB_FORMATS_BUILD_DIR, "")))
    return s.handle;
  snprintf (problem, problem_size, "%s %s is not installed (looked for %s; %s names it elsewhere)",
            what, name, s.looked, env);
  return NULL;
}

#else

void *
nb_module_search (const char *name,
                  const char *env,
                  const char *what,
                  char *shown,
                  size_t shown_size,
                  char *problem,
                  size_t problem_size)
{
  (void) name;
  (void) env;
  (void) shown;
  (void) shown_size;
  snprintf (problem, problem_size, "this build loads no modules (%s)", what);
  return NULL;
}

#endif
