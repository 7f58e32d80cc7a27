/* nb-io-write.h: the engine's private side of the atomic writer (io-write.c;
 * the public side is nb-io.h). */
#pragma once

#include "nb-status.h"

/* io-write.c: the error "@what @path: <strerror of @errnum>", NB_ERR_IO. */
nb_status nb_io_error (nb_error *err, int errnum, const char *what, const char *path);
