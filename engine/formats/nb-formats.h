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

#include "nb-detector-read.h"
#include "nb-frame-private.h"
#include "nb-frame-write.h"
#include "nb-frame.h"
#include "nb-io.h"

/* Changes whenever the table or a type it passes changes: the engine refuses a
 * module of another build. */
#define NB_FORMATS_ABI 3

/* The module's file name, and the one symbol it exports (an
 * nb_formats_open_fn). */
#define NB_FORMATS_MODULE_NAME "nanobragg-formats.so"
#define NB_FORMATS_SYMBOL      "nb_formats_module_open"

/* The module's entry points; each behaves as the public function of the same
 * name (nb-frame-write.h) or as frame.c's reader (nb-frame-private.h).  An
 * entry is NULL for a format the build lacks. */
typedef struct
{
  unsigned abi;  /* NB_FORMATS_ABI */
  unsigned size; /* sizeof (nb_formats) */

  /* the readers take nb_frame_get_limits() of the caller's thread */
  nb_status (*read_cbf) (const char *path,
                         unsigned flags,
                         const nb_frame_limits *limits,
                         nb_frame *frame,
                         nb_error *err);
  nb_status (*read_nexus) (const char *path,
                           int index,
                           unsigned flags,
                           const nb_frame_limits *limits,
                           nb_frame *frame,
                           nb_error *err);
  /* the writers: nb-frame-write.h's (__typeof__: GCC and Clang, as the engine's
   * visibility attributes) */
  __typeof__ (nb_write_cbf) *write_cbf;
  __typeof__ (nb_cbf_verify) *cbf_verify;
  __typeof__ (nb_write_nexus_frame) *write_nexus_frame;
  __typeof__ (nb_nexus_verify_frame) *nexus_verify_frame;
  __typeof__ (nb_write_nexus_master) *write_nexus_master;
  /* the multi-panel geometry readers (nb-detector-read.h); read_expt is NULL
   * in a build without jansson */
  __typeof__ (nb_detector_read_expt) *read_expt;
  __typeof__ (nb_detector_read_nxmx) *read_nxmx;
  __typeof__ (nb_write_nexus_detector) *write_nexus_detector;
} nb_formats;

/* What the module takes from the engine that opened it rather than from a copy
 * of its own: the parts with state.  nb_write_file_atomic() stages files in the
 * calling thread's set of outputs (nb_output_begin() ... nb_output_commit(),
 * so that a series frame's CBF, NeXus and SMV files appear together), which
 * must be the engine's set. */
typedef struct
{
  __typeof__ (nb_write_file_atomic) *write_file_atomic;
} nb_formats_engine;

/* The module's entry: keeps @engine (static, for the process's life) and
 * returns its table, or NULL when @abi is not its NB_FORMATS_ABI. */
typedef const nb_formats *(*nb_formats_open_fn) (unsigned abi, const nb_formats_engine *engine);
