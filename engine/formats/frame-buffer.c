/* frame-buffer.c: a measured frame's buffers, items and pixel classes: the
 * part of the frame code that the readers share, kept apart from frame.c's
 * format detection so that the CBF/NeXus module (nb-formats.h) can carry its
 * own copy without the rest of the engine. */
#include "nb-frame-private.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double
nb_frame_strtod (const char *s, char **end)
{
  locale_t c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  locale_t old = c != (locale_t) 0 ? uselocale (c) : (locale_t) 0;
  double v = strtod (s, end);

  if (c != (locale_t) 0)
    {
      uselocale (old);
      freelocale (c);
    }
  return v;
}

void
nb_frame_quote (const char *text, size_t n, char *out, size_t size)
{
  size_t k = 0;

  if (size == 0)
    return;
  for (size_t i = 0; i < n && text[i] != '\0' && k + 1 < size; i++)
    {
      unsigned char c = (unsigned char) text[i];

      out[k++] = c >= 0x20 && c < 0x7f ? (char) c : c == '\t' ? ' ' : '?';
    }
  /* trailing blanks and carriage returns say nothing */
  while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '?'))
    k--;
  out[k] = '\0';
}

void
nb_frame_set_item (nb_frame *frame, nb_frame_item item, double value, const char *fmt, ...)
{
  nb_frame_value *v = &frame->item[item];
  char text[NB_FRAME_SOURCE_MAX];
  va_list ap;

  /* a header value that overflows in conversion (a damaged file) says nothing */
  if (!isfinite (value))
    return;
  v->have = 1;
  v->value = value;
  va_start (ap, fmt);
  vsnprintf (text, sizeof text, fmt, ap);
  va_end (ap);
  nb_frame_quote (text, sizeof text, v->source, sizeof v->source);
}

static nb_status
frame_pixels (
    nb_frame *frame, int fpixels, int spixels, size_t capacity, const char *what, nb_error *err)
{
  size_t n;

  if (fpixels < 1 || spixels < 1 || fpixels > 65536 || spixels > 65536)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: %d x %d pixels (allowed: 1 to 65536 along each axis)", what, fpixels,
                         spixels);
  n = (size_t) fpixels * (size_t) spixels;
  frame->fpixels = fpixels;
  frame->spixels = spixels;
  if (capacity < n)
    capacity = n;
  if (capacity > SIZE_MAX / sizeof *frame->counts)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for %d x %d pixels", what, fpixels,
                         spixels);
  frame->counts = nb_alloc_large (capacity * sizeof *frame->counts);
  frame->mask = nb_alloc_large (n);
  if (frame->counts == NULL || frame->mask == NULL)
    {
      free (frame->counts);
      free (frame->mask);
      frame->counts = NULL;
      frame->mask = NULL;
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for %d x %d pixels", what, fpixels,
                           spixels);
    }
  memset (frame->mask, NB_PIXEL_VALID, n);
  return NB_OK;
}

/* What nb_frame_read_budget() was asked to hold on this thread. */
static _Thread_local nb_frame_limits read_limits;

void
nb_frame_set_limits (const nb_frame_limits *limits)
{
  read_limits = *limits;
}

nb_frame_limits
nb_frame_get_limits (void)
{
  return read_limits;
}

nb_status
nb_frame_check_budget (const nb_frame *frame, double transient, const char *what, nb_error *err)
{
  const nb_frame_limits *l = &read_limits;
  double pixels = (double) frame->fpixels * (double) frame->spixels;
  double held = pixels * (sizeof *frame->counts + sizeof *frame->mask);
  double caller = pixels * (double) l->caller_bytes;
  double need = held + caller + transient;
  char parts[160];
  int n;

  if (l->budget <= 0.0 || need <= l->budget)
    return NB_OK;
  n = snprintf (parts, sizeof parts, "%.1f MB of counts and mask", held / 1e6);
  if (caller > 0.0 && n >= 0 && (size_t) n < sizeof parts)
    n += snprintf (parts + n, sizeof parts - (size_t) n, ", %.1f MB for the caller's copy",
                   caller / 1e6);
  if (transient > 0.0 && n >= 0 && (size_t) n < sizeof parts)
    snprintf (parts + n, sizeof parts - (size_t) n, ", %.1f MB for %s", transient / 1e6,
              what != NULL ? what : "the reader");
  return nb_error_set (err, NB_ERR_NOMEM,
                       "%s: reading this %d x %d frame needs about %.1f MB (%s), more than the "
                       "memory budget of %.1f MB (%s)",
                       frame->path != NULL ? frame->path : "frame", frame->fpixels, frame->spixels,
                       need / 1e6, parts, l->budget / 1e6,
                       l->budget_asked ? "-memory_budget"
                                       : "half of what this process may use; see -memory_budget");
}

nb_status
nb_frame_alloc_pixels_capacity (nb_frame *frame, size_t capacity, nb_error *err)
{
  const char *what = frame->path != NULL ? frame->path : "frame";
  size_t n = (size_t) frame->fpixels * (size_t) frame->spixels;
  nb_status st;

  if (read_limits.max_pixels > 0 && n > read_limits.max_pixels)
    return nb_error_set (err, NB_ERR_NOMEM,
                         "%s: %d x %d pixels, more than the %zu this reader may hold", what,
                         frame->fpixels, frame->spixels, read_limits.max_pixels);
  if ((st = nb_frame_check_budget (
           frame, capacity > n ? (double) (capacity - n) * sizeof *frame->counts : 0.0,
           "the decoder's margin", err)) != NB_OK)
    return st;
  return frame_pixels (frame, frame->fpixels, frame->spixels, capacity, what, err);
}

nb_status
nb_frame_alloc_pixels (nb_frame *frame, nb_error *err)
{
  return nb_frame_alloc_pixels_capacity (frame, 0, err);
}

nb_status
nb_frame_alloc (nb_frame *frame, int fpixels, int spixels, const char *path, nb_error *err)
{
  nb_status st;

  memset (frame, 0, sizeof *frame);
  if (path != NULL && (frame->path = strdup (path)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  frame->n_frames = 1;
  st = frame_pixels (frame, fpixels, spixels, 0, path != NULL ? path : "frame", err);
  if (st == NB_ERR_PARSE)
    st = err != NULL ? (err->code = NB_ERR_INVALID) : NB_ERR_INVALID;
  if (st != NB_OK)
    {
      nb_frame_clear (frame);
      return st;
    }
  memset (frame->counts, 0, (size_t) fpixels * (size_t) spixels * sizeof *frame->counts);
  snprintf (frame->element_type, sizeof frame->element_type, "signed 32-bit");
  return NB_OK;
}

void
nb_frame_clear (nb_frame *frame)
{
  if (frame == NULL)
    return;
  free (frame->path);
  free (frame->counts);
  free (frame->mask);
  free (frame->header);
  if (frame->modules != NULL)
    {
      nb_detector_model_clear (frame->modules);
      free (frame->modules);
    }
  memset (frame, 0, sizeof *frame);
}

void
nb_frame_classify (nb_frame *frame)
{
  size_t n = (size_t) frame->fpixels * (size_t) frame->spixels;
  long masked = 0, overload = 0;
  int64_t cutoff = frame->count_cutoff;

  for (size_t i = 0; i < n; i++)
    {
      int32_t c = frame->counts[i];
      uint8_t m = frame->mask[i];

      if (m == NB_PIXEL_MASKED || c < 0)
        m = NB_PIXEL_MASKED;
      else if (cutoff > 0 && c >= cutoff)
        m = NB_PIXEL_OVERLOAD;
      else
        m = NB_PIXEL_VALID;
      frame->mask[i] = m;
      masked += m == NB_PIXEL_MASKED;
      overload += m == NB_PIXEL_OVERLOAD;
    }
  frame->n_masked = masked;
  frame->n_overload = overload;
}
