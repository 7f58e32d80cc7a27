/* formats-module.c: the table that nanobragg-formats.so exports (see
 * nb-formats.h); the engine's formats.c looks it up by name.  Everything else
 * in the module is hidden. */
#include "nb-formats.h"
#include "nb-frame-private.h"

__attribute__ ((visibility ("default"))) extern const nb_formats nb_formats_module;

#ifdef NB_HAVE_CBF
static nb_status
read_cbf (const char *path, unsigned flags, size_t max_pixels, nb_frame *frame, nb_error *err)
{
  nb_frame_set_read_limit (max_pixels);
  return nb_frame_read_cbf (path, flags, frame, err);
}
#endif

static nb_status
read_nexus (
    const char *path, int index, unsigned flags, size_t max_pixels, nb_frame *frame, nb_error *err)
{
  nb_frame_set_read_limit (max_pixels);
  return nb_frame_read_nexus (path, index, flags, frame, err);
}

const nb_formats nb_formats_module = {
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
};
