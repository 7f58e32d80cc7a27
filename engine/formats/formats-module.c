/* formats-module.c: the entry of nanobragg-formats.so (see nb-formats.h),
 * which the engine's formats.c looks up by name, and the engine's parts the
 * module calls back.  Everything else in the module is hidden. */
#include "nb-formats.h"
#include "nb-frame-private.h"

__attribute__ ((visibility ("default"))) const nb_formats *
nb_formats_module_open (unsigned abi, const nb_formats_engine *engine);

static const nb_formats_engine *engine_parts;

/* The writers' files go into the engine's set of outputs (nb-formats.h). */
nb_status
nb_write_file_atomic (
    const char *path, const void *const *chunks, const size_t *sizes, int n_chunks, nb_error *err)
{
  return engine_parts->write_file_atomic (path, chunks, sizes, n_chunks, err);
}

#ifdef NB_HAVE_CBF
static nb_status
read_cbf (
    const char *path, unsigned flags, const nb_frame_limits *limits, nb_frame *frame, nb_error *err)
{
  nb_frame_set_limits (limits);
  return nb_frame_read_cbf (path, flags, frame, err);
}
#endif

static nb_status
read_nexus (const char *path,
            int index,
            unsigned flags,
            const nb_frame_limits *limits,
            nb_frame *frame,
            nb_error *err)
{
  nb_frame_set_limits (limits);
  return nb_frame_read_nexus (path, index, flags, frame, err);
}

static const nb_formats table = {
  .abi = NB_FORMATS_ABI,
  .size = sizeof (nb_formats),
#ifdef NB_HAVE_CBF
  .read_cbf = read_cbf,
  .write_cbf = nb_write_cbf,
  .cbf_verify = nb_cbf_verify,
#endif
  .read_nexus = read_nexus,
  .write_nexus_frame = nb_write_nexus_frame,
  .nexus_verify_frame = nb_nexus_verify_frame,
  .write_nexus_master = nb_write_nexus_master,
  .write_nexus_detector = nb_write_nexus_detector,
  .read_nxmx = nb_detector_read_nxmx,
#ifdef NB_HAVE_JANSSON
  .read_expt = nb_detector_read_expt,
#endif
};

const nb_formats *
nb_formats_module_open (unsigned abi, const nb_formats_engine *engine)
{
  if (abi != NB_FORMATS_ABI)
    return NULL;
  engine_parts = engine;
  return &table;
}
