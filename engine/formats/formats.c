/* formats.c: the engine's side of the CBF and NeXus module (see nb-formats.h):
 * the public writers of nb-frame-write.h and frame.c's two readers, each
 * opening the module on first use and calling through its table.
 *
 * Where the module is looked for, first found wins:
 *   1. $NB_FORMATS_MODULE, the module's full path (for unusual setups): only
 *      that file is tried;
 *   2. beside the object that holds the engine (the program, or
 *      libbraggscope), by the install's own layout: bindir's and libdir's way
 *      to libdir/nanobragg, so a relocated or DESTDIR install finds its own;
 *   3. the build tree's engine folder, when that object lies in the build tree
 *      (a program run from the build, with an older install present);
 *   4. the installed libdir/nanobragg;
 *   5. the build tree's engine folder.
 * A module that exists but cannot be loaded (a library of its own missing,
 * another build's table) is the error; none found is an error naming where it
 * was looked for.
 */
#include "nb-formats.h"
#include "nb-detector-read.h"
#include "nb-frame-private.h"
#include "nb-io.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_FORMATS_MODULE
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#endif

int
nb_cbf_available (void)
{
#ifdef NB_HAVE_CBF
  return 1;
#else
  return 0;
#endif
}

int
nb_nexus_available (void)
{
#ifdef NB_HAVE_HDF5
  return 1;
#else
  return 0;
#endif
}

#ifdef NB_HAVE_FORMATS_MODULE

static pthread_once_t module_once = PTHREAD_ONCE_INIT;
static const nb_formats *module;
static char module_problem[NB_ERROR_MESSAGE_MAX + PATH_MAX];

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

/* Opens the module at @path (@shown, the name messages give it), hands it the
 * engine's parts and takes its table: module, or module_problem. */
static void
open_module (const char *path, const char *shown)
{
  static const nb_formats_engine engine = { .write_file_atomic = nb_write_file_atomic };
  void *handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  nb_formats_open_fn open_fn;
  const nb_formats *table = NULL;

  if (handle == NULL)
    {
      snprintf (module_problem, sizeof module_problem, "cannot load %s: %s", shown, dlerror ());
      return;
    }
  /* POSIX's way from dlsym's void * to a function pointer */
  *(void **) &open_fn = dlsym (handle, NB_FORMATS_SYMBOL);
  if (open_fn != NULL)
    table = open_fn (NB_FORMATS_ABI, &engine);
  if (table == NULL || table->abi != NB_FORMATS_ABI || table->size != sizeof (nb_formats))
    {
      snprintf (module_problem, sizeof module_problem,
                "%s is not this build's CBF/NeXus module (%s)", shown,
                open_fn == NULL ? "no " NB_FORMATS_SYMBOL : "another version");
      dlclose (handle);
      return;
    }
  module = table;
}

/* Tries @dir/@rel/NB_FORMATS_MODULE_NAME (@rel may be ""): 1 when it was
 * there (loaded or not: module or module_problem set), 0 when absent (added
 * to @looked). */
static int
try_module (const char *dir, const char *rel, char *looked, size_t looked_size)
{
  char path[PATH_MAX + 64], resolved[PATH_MAX];
  size_t used = strlen (looked);

  if (rel[0] != '\0')
    snprintf (path, sizeof path, "%s/%s/%s", dir, rel, NB_FORMATS_MODULE_NAME);
  else
    snprintf (path, sizeof path, "%s/%s", dir, NB_FORMATS_MODULE_NAME);
  if (access (path, F_OK) != 0)
    {
      snprintf (looked + used, looked_size - used, "%s%s", used > 0 ? ", " : "", path);
      return 0;
    }
  /* bin/../lib/... as lib/...: the name the loader and any message show */
  if (realpath (path, resolved) != NULL)
    snprintf (path, sizeof path, "%s", resolved);
  open_module (path, path);
  return 1;
}

/* A path is in the build tree when it starts with the build root and '/'. */
static int
in_build_tree (const char *dir)
{
  size_t n = strlen (NB_BUILD_ROOT);

  return strncmp (dir, NB_BUILD_ROOT, n) == 0 && (dir[n] == '/' || dir[n] == '\0');
}

static void
load_module (void)
{
  const char *env = getenv ("NB_FORMATS_MODULE");
  char dir[PATH_MAX];
  char looked[NB_ERROR_MESSAGE_MAX] = "";
  int have_dir, build_first;

  if (env != NULL && env[0] != '\0')
    {
      char shown[PATH_MAX + 32];

      snprintf (shown, sizeof shown, "NB_FORMATS_MODULE=%s", env);
      open_module (env, shown);
      return;
    }

  have_dir = engine_folder (dir, sizeof dir);
  build_first = have_dir && in_build_tree (dir);
  if (have_dir && (try_module (dir, NB_FORMATS_FROM_BINDIR, looked, sizeof looked) ||
                   try_module (dir, NB_FORMATS_FROM_LIBDIR, looked, sizeof looked)))
    return;
  if (build_first && try_module (NB_FORMATS_BUILD_DIR, "", looked, sizeof looked))
    return;
  if (try_module (NB_FORMATS_INSTALL_DIR, "", looked, sizeof looked) ||
      (!build_first && try_module (NB_FORMATS_BUILD_DIR, "", looked, sizeof looked)))
    return;
  snprintf (module_problem, sizeof module_problem,
            "the CBF/NeXus module " NB_FORMATS_MODULE_NAME
            " is not installed (looked for %s; NB_FORMATS_MODULE names it elsewhere)",
            looked);
}

/* The module's table, or NULL with NB_ERR_IO in @err naming @path and why. */
static const nb_formats *
formats (const char *path, nb_error *err)
{
  pthread_once (&module_once, load_module);
  if (module == NULL)
    nb_error_set (err, NB_ERR_IO, "%s: %s", path, module_problem);
  return module;
}

#endif /* NB_HAVE_FORMATS_MODULE */

#define NO_CBF(path)                                                                               \
  nb_error_set (err, NB_ERR_UNSUPPORTED,                                                           \
                "%s: a CBF file, but this build has no CBFlib (reconfigure with -Dcbf=enabled; "   \
                "Debian libcbf-dev)",                                                              \
                path)
#define NO_HDF5(path)                                                                              \
  nb_error_set (err, NB_ERR_UNSUPPORTED,                                                           \
                "%s: an HDF5 (NeXus) file, but this build has no libhdf5 (reconfigure with "       \
                "-Dhdf5=enabled; Debian libhdf5-dev)",                                             \
                path)
/* the writers' words */
#define NO_CBF_WRITE(path)                                                                         \
  nb_error_set (err, NB_ERR_UNSUPPORTED, "%s: this build has no CBF support (CBFlib)", path)
#define NO_HDF5_WRITE(path)                                                                        \
  nb_error_set (err, NB_ERR_UNSUPPORTED, "%s: this build has no NeXus/HDF5 support (libhdf5)", path)

nb_status
nb_frame_read_cbf (const char *path, unsigned flags, nb_frame *frame, nb_error *err)
{
#ifdef NB_HAVE_CBF
  const nb_formats *f = formats (path, err);

  nb_frame_limits limits = nb_frame_get_limits ();

  return f != NULL ? f->read_cbf (path, flags, &limits, frame, err) : NB_ERR_IO;
#else
  (void) flags;
  (void) frame;
  return NO_CBF (path);
#endif
}

nb_status
nb_frame_read_nexus (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err)
{
#ifdef NB_HAVE_HDF5
  const nb_formats *f = formats (path, err);

  nb_frame_limits limits = nb_frame_get_limits ();

  return f != NULL ? f->read_nexus (path, index, flags, &limits, frame, err) : NB_ERR_IO;
#else
  (void) index;
  (void) flags;
  (void) frame;
  return NO_HDF5 (path);
#endif
}

nb_status
nb_write_cbf (const char *path,
              const nb_frame_geometry *g,
              const int32_t *pixels,
              const char *extra_header,
              const nb_sha256 *fingerprint,
              nb_error *err)
{
#ifdef NB_HAVE_CBF
  const nb_formats *f = formats (path, err);

  return f != NULL ? f->write_cbf (path, g, pixels, extra_header, fingerprint, err) : NB_ERR_IO;
#else
  return NO_CBF_WRITE (path);
#endif
}

nb_status
nb_cbf_verify (const char *name,
               const void *bytes,
               size_t size,
               int fpixels,
               int spixels,
               const nb_sha256 *fingerprint,
               nb_error *err)
{
#ifdef NB_HAVE_CBF
  const nb_formats *f = formats (name, err);

  return f != NULL ? f->cbf_verify (name, bytes, size, fpixels, spixels, fingerprint, err)
                   : NB_ERR_IO;
#else
  return NO_CBF_WRITE (name);
#endif
}

nb_status
nb_write_nexus_frame (const char *path,
                      const nb_frame_geometry *g,
                      const int32_t *pixels,
                      const char *const *keys,
                      const char *const *values,
                      int n_attrs,
                      const nb_sha256 *fingerprint,
                      nb_error *err)
{
#ifdef NB_HAVE_HDF5
  const nb_formats *f = formats (path, err);

  return f != NULL ? f->write_nexus_frame (path, g, pixels, keys, values, n_attrs, fingerprint, err)
                   : NB_ERR_IO;
#else
  return NO_HDF5_WRITE (path);
#endif
}

nb_status
nb_nexus_verify_frame (const char *name,
                       const void *bytes,
                       size_t size,
                       int fpixels,
                       int spixels,
                       const nb_sha256 *fingerprint,
                       nb_error *err)
{
#ifdef NB_HAVE_HDF5
  const nb_formats *f = formats (name, err);

  return f != NULL ? f->nexus_verify_frame (name, bytes, size, fpixels, spixels, fingerprint, err)
                   : NB_ERR_IO;
#else
  return NO_HDF5_WRITE (name);
#endif
}

nb_status
nb_write_nexus_master (const char *path,
                       const nb_frame_geometry *g,
                       int n_frames,
                       const double *omega,
                       const char *const *frame_files,
                       nb_error *err)
{
#ifdef NB_HAVE_HDF5
  const nb_formats *f = formats (path, err);

  return f != NULL ? f->write_nexus_master (path, g, n_frames, omega, frame_files, err) : NB_ERR_IO;
#else
  return NO_HDF5_WRITE (path);
#endif
}

nb_status
nb_write_nexus_detector (const char *path,
                         const nb_detector_model *model,
                         const int32_t *pixels,
                         nb_error *err)
{
#ifdef NB_HAVE_HDF5
  const nb_formats *f = formats (path, err);

  return f != NULL ? f->write_nexus_detector (path, model, pixels, err) : NB_ERR_IO;
#else
  (void) model;
  (void) pixels;
  return NO_HDF5_WRITE (path);
#endif
}

/* The geometry readers: a build without the module (no libhdf5) or, for the
 * .expt reader, without jansson says so, naming the file. */
nb_status
nb_detector_read_expt (const char *path, nb_detector_model *model, nb_error *err)
{
  nb_detector_model_init (model);
#ifdef NB_HAVE_FORMATS_MODULE
  const nb_formats *f = formats (path, err);

  if (f == NULL)
    return NB_ERR_IO;
  if (f->read_expt != NULL)
    return f->read_expt (path, model, err);
#endif
  return nb_error_set (err, NB_ERR_UNSUPPORTED,
                       "%s: a DIALS experiment list, but this build cannot read one (it needs "
                       "libhdf5 and jansson: reconfigure with -Dhdf5=enabled -Djansson=enabled; "
                       "Debian libhdf5-dev, libjansson-dev)",
                       path);
}

nb_status
nb_detector_read_nxmx (const char *path, nb_detector_model *model, nb_error *err)
{
  nb_detector_model_init (model);
#ifdef NB_HAVE_FORMATS_MODULE
  const nb_formats *f = formats (path, err);

  if (f == NULL)
    return NB_ERR_IO;
  if (f->read_nxmx != NULL)
    return f->read_nxmx (path, model, err);
#endif
  return NO_HDF5 (path);
}
