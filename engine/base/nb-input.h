/* nb-input.h: opening the files the engine reads (structure factors, source
 * lists, matrices, stol tables, SMV headers and masks, measured frames).
 *
 * Such a file is named by whoever wrote the command line or the snapshot, so
 * it is untrusted: a FIFO, /dev/stdin or /dev/tty would block open() or the
 * first read for ever, a directory or a device would be read as garbage.  One
 * rule for every reader: the file is opened without blocking and without
 * becoming the controlling terminal (O_RDONLY | O_NONBLOCK | O_NOCTTY |
 * O_CLOEXEC), refused unless fstat() says it is a regular file, and only then
 * made blocking again, so the check and the read are about the same file.
 */
#pragma once

#include <stdio.h>
#include <sys/stat.h>

#include "nb-status.h"

/* nb_input_open: *@fd, a descriptor of @path open for reading (blocking,
 * close-on-exec; the caller closes it), or -1 and NB_ERR_IO with one line
 * naming @path: "cannot open PATH: No such file or directory", "cannot read
 * PATH: a named pipe (FIFO), not a regular file".  @st, when non-NULL,
 * receives the file's fstat(). */
nb_status nb_input_open (const char *path, int *fd, struct stat *st, nb_error *err);

/* nb_input_fopen: nb_input_open() as a stdio stream ("rb") in *@fp (NULL on
 * failure; the caller fclose()s it). */
nb_status nb_input_fopen (const char *path, FILE **fp, struct stat *st, nb_error *err);

/* nb_input_check: NB_OK when @path would be opened by nb_input_open() (a
 * regular file that can be read), else its error; for a library that opens
 * the file by name itself (libhdf5). */
nb_status nb_input_check (const char *path, nb_error *err);

/* nb_input_kind: "a named pipe (FIFO)", "a directory", "a character device"...
 * for a file mode that is not a regular file's. */
const char *nb_input_kind (mode_t mode);
