/* nb-formats.h: the CBF and NeXus module (nanobragg-formats.so).
 *
 * CBFlib and libhdf5 bring some forty shared libraries with them (Debian's
 * libhdf5 needs libcurl, which needs GnuTLS, Kerberos, LDAP...), and mapping
 * them is most of a short process's start-up.  So the frame readers and
 * writers of frame-cbf.c, frame-nexus.c, frame-write-cbf.c and
 * frame-write-nexus.c are built as a loadable module, linked with the two
 * libraries and its own copy of the engine parts they use; the engine
 * (formats.c) opens it the first time a CBF or NeXus file is read or written
 * and calls through the table below.  A program that never touches such a file
 * never loads them.
 *
 * The module's functions keep the names of the API they implement
 * (nb_write_cbf, nb_frame_read_cbf...), which formats.c's forwarders also
 * carry: the two never meet, since the module does not link the engine and
 * binds its own hidden symbols, and dlopen (RTLD_LOCAL) adds none of them to
 * the program's.
 */
#pragma once

#include "nb-frame-write.h"
#include "nb-frame.h"

/* Changes whenever the table or a type it passes changes: the engine refuses a
 * module of another build. */
#define NB_FORMATS_ABI 1

/* The module's file name, and the one symbol it exports (an nb_formats). */
#define NB_FORMATS_MODULE_NAME "nanobragg-formats.so"
#define NB_FORMATS_SYMBOL      "nb_formats_module"

/* The module's entry points; each behaves as the public function of the same
 * name (nb-frame-write.h) or as frame.c's reader (nb-frame-private.h).  An
 * entry is NULL for a format the build lacks. */
typedef struct
{
  unsigned abi;  /* NB_FORMATS_ABI */
  unsigned size; /* sizeof (nb_formats) */

  /* the readers take nb_frame_get_read_limit() of the caller's thread */
  nb_status (*read_cbf) (
      const char *path, unsigned flags, size_t max_pixels, nb_frame *frame, nb_error *err);
  nb_status (*read_nexus) (const char *path,
                           int index,
                           unsigned flags,
                           size_t max_pixels,
                           nb_frame *frame,
                           nb_error *err);
  /* the writers: nb-frame-write.h's (__typeof__: GCC and Clang, as the engine's
   * visibility attributes) */
  __typeof__ (nb_write_cbf) *write_cbf;
  __typeof__ (nb_cbf_verify) *cbf_verify;
  __typeof__ (nb_write_nexus_frame) *write_nexus_frame;
  __typeof__ (nb_nexus_verify_frame) *nexus_verify_frame;
  __typeof__ (nb_write_nexus_master) *write_nexus_master;
} nb_formats;
