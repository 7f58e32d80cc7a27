/* series-names.c: what every file of nanobragg-series names and writes
 * alike, at the bottom of the program: the files' paths, a JSON string, a
 * number as typed, the clock and the one-line usage error.  It calls none of
 * the program's other files (build-aux/check-layers.py --objects). */
#include "nanobragg-series-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------- */
/* The files' names. */

char *
frame_path (const series_config *c, long index, const char *ext)
{
  size_t n = strlen (c->prefix) + 32;
  char *s = malloc (n);

  if (s != NULL)
    snprintf (s, n, "%s_%06ld.%s", c->prefix, index + 1, ext);
  return s;
}

char *
series_path (const series_config *c, const char *suffix)
{
  size_t n = strlen (c->prefix) + strlen (suffix) + 2;
  char *s = malloc (n);

  if (s != NULL)
    snprintf (s, n, "%s_%s", c->prefix, suffix);
  return s;
}

const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash != NULL ? slash + 1 : path;
}

const char *
series_kind (const series_config *c)
{
  return c->rotation_frames > 0 ? "rotation" : c->stills > 0 ? "stills" : "sweep";
}

void
json_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p == '"' || *p == '\\')
      fprintf (f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf (f, "\\u%04x", *p);
    else
      fputc (*p, f);
  fputc ('"', f);
}

/* ------------------------------------------------------------------------- */
/* Texts. */

/* The shortest decimal text that reads back as @v (so typed values stay as
 * typed and generated ones lose nothing). */
void
format_number (double v, char *out, size_t n)
{
  if (v == floor (v) && fabs (v) < 1e15)
    {
      snprintf (out, n, "%.0f", v == 0 ? 0.0 : v);
      return;
    }
  for (int digits = 1; digits <= 17; digits++)
    {
      snprintf (out, n, "%.*g", digits, v);
      if (strtod (out, NULL) == v)
        return;
    }
}

double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int print_errors = 1;

int
usage_error (const char *fmt, ...)
{
  va_list ap;

  if (!print_errors)
    return 2;
  fputs ("nanobragg-series: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return 2;
}
