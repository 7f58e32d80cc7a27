/* formats.c: the engine's side of the CBF and NeXus module (see nb-formats.h):
 * the public writers of nb-frame-write.h and frame.c's two readers, each
 * opening the module on first use and calling through its table.
 *
 * Where the module is looked for: nb-module-search.h.
 */
#include "nb-formats.h"
#include "nb-detector-read.h"
#include "nb-module-search.h"
#include "nb-frame-private.h"
#include "nb-io.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_FORMATS_MODULE
#include <dlfcn.h>
#include <pthread.h>
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

/* Opens the module: module, or module_problem. */
static void
load_module (void)
{
  static const nb_formats_engine engine = { .write_file_atomic = nb_write_file_atomic };
  char shown[PATH_MAX + 32];
  void *handle =
      nb_module_search (NB_FORMATS_MODULE_NAME, "NB_FORMATS_MODULE", "the CBF/NeXus module", shown,
                        sizeof shown, module_problem, sizeof module_problem);
  nb_formats_open_fn open_fn;
  const nb_formats *table = NULL;

  if (handle == NULL)
    return;
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
