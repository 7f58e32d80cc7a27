/* input.c: the one way the engine opens a file it reads (nb-input.h). */
#include "nb-input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

const char *
nb_input_kind (mode_t mode)
{
  if (S_ISFIFO (mode))
    return "a named pipe (FIFO)";
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a file";
}

static nb_status
input_failed (int fd, const char *what, const char *path, int e, nb_error *err)
{
  if (fd >= 0)
    close (fd);
  return nb_error_set (err, NB_ERR_IO, "%s %s: %s", what, path, strerror (e));
}

nb_status
nb_input_open (const char *path, int *fd, struct stat *st, nb_error *err)
{
  struct stat own;
  int d, flags;

  *fd = -1;
  if (st == NULL)
    st = &own;
  if (path == NULL || path[0] == '\0')
    return nb_error_set (err, NB_ERR_IO, "cannot open a file with no name");
  /* O_NONBLOCK: a FIFO without a writer opens at once instead of waiting for
   * one; O_NOCTTY: a terminal named here does not become ours */
  d = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (d < 0)
    return input_failed (-1, "cannot open", path, errno, err);
  if (fstat (d, st) != 0)
    return input_failed (d, "cannot read", path, errno, err);
  if (!S_ISREG (st->st_mode))
    {
      close (d);
      return nb_error_set (err, NB_ERR_IO, "cannot read %s: %s, not a regular file", path,
                           nb_input_kind (st->st_mode));
    }
  /* a regular file never blocks, but it is read as any other: blocking */
  if ((flags = fcntl (d, F_GETFL)) < 0 || fcntl (d, F_SETFL, flags & ~O_NONBLOCK) < 0)
    return input_failed (d, "cannot read", path, errno, err);
  *fd = d;
  return NB_OK;
}

nb_status
nb_input_fopen (const char *path, FILE **fp, struct stat *st, nb_error *err)
{
  int fd;
  nb_status status = nb_input_open (path, &fd, st, err);

  *fp = NULL;
  if (status != NB_OK)
    return status;
  if ((*fp = fdopen (fd, "rb")) == NULL)
    return input_failed (fd, "cannot read", path, errno, err);
  return NB_OK;
}

nb_status
nb_input_check (const char *path, nb_error *err)
{
  int fd;
  nb_status status = nb_input_open (path, &fd, NULL, err);

  if (status == NB_OK)
    close (fd);
  return status;
}
