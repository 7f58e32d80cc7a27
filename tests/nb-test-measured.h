/* nb-test-measured.h: the real frames of tests/data/measured for the tests
 * that link zlib (test-match, test-match-i23). */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <zlib.h>

#include "nb-frame.h"

/* Whether this build reads the CBF frames (NB_HAVE_CBF: CBFlib). */
#ifdef NB_HAVE_CBF
#define HAVE_MEASURED_CBF 1
#else
#define HAVE_MEASURED_CBF 0
#endif

/* nb_test_read_measured: tests/data/measured/@name.gz decompressed into a
 * temporary folder and read whole into @f (cleared by the caller with
 * nb_frame_clear); the copy is removed again.  Any error aborts the test. */
static inline void
nb_test_read_measured (const char *name, nb_frame *f)
{
  g_autofree char *gz_name = g_strconcat (name, ".gz", NULL);
  g_autofree char *gz = g_test_build_filename (G_TEST_DIST, "data", "measured", gz_name, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("nb-measured-XXXXXX", &error);
  g_autofree char *path = NULL;
  gzFile in = gzopen (gz, "rb");
  FILE *out;
  char buf[65536];
  int got;
  nb_error err;

  g_assert_no_error (error);
  path = g_build_filename (dir, name, NULL);
  out = fopen (path, "wb");
  g_assert_nonnull (in);
  g_assert_nonnull (out);
  while ((got = gzread (in, buf, sizeof buf)) > 0)
    g_assert_cmpuint (fwrite (buf, 1, (size_t) got, out), ==, (size_t) got);
  gzclose (in);
  fclose (out);
  if (nb_frame_read (path, 0, 0, f, &err) != NB_OK)
    g_error ("%s", err.message);
  g_remove (path);
  g_rmdir (dir);
}
