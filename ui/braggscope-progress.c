/* braggscope-progress.c: the words for a slow full frame, shared by the
 * window's status line and `braggscope --snapshot`.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-progress.h"

#include <glib/gi18n.h>
#include <math.h>

gboolean
braggscope_progress_is_slow (const BraggscopeRenderProgress *progress)
{
  return (isfinite (progress->estimate) && progress->estimate > BRAGGSCOPE_SLOW_FRAME_S) ||
         progress->elapsed > BRAGGSCOPE_SLOW_FRAME_S;
}

/* "45 s", "3 min", "2 h", rounded as a person would say it. */
static char *
format_duration (double seconds)
{
  if (seconds < 90.0)
    /* Translators: a duration in seconds */
    return g_strdup_printf (_ ("%.0f s"), MAX (seconds, 1.0));
  if (seconds < 90.0 * 60.0)
    /* Translators: a duration in minutes */
    return g_strdup_printf (_ ("%.0f min"), seconds / 60.0);
  /* Translators: a duration in hours */
  return g_strdup_printf (_ ("%.1f h"), seconds / 3600.0);
}

/* The largest factor of a frame's cost per pixel, and what lowers it. */
static char *
describe_factor (const BraggscopeRenderProgress *p)
{
  int sub_pixels = p->oversample * p->oversample;
  int largest = MAX (MAX (sub_pixels, p->mosaic_domains), MAX (p->sources, p->phi_steps));

  if (largest <= 1)
    /* Translators: why a frame is slow: its size in pixels */
    return g_strdup_printf (_ ("%d × %d pixels; a smaller detector speeds it up"), p->width,
                            p->height);
  if (largest == sub_pixels)
    /* Translators: why a frame is slow: the sub-pixels simulated in each
     * pixel, at the crystal's unit cells per edge (N) */
    return g_strdup_printf (_ ("%d sub-pixels per pixel at N = %g; lower Oversample to speed up"),
                            sub_pixels, p->cells);
  if (largest == p->mosaic_domains)
    /* Translators: why a frame is slow: the mosaic domains simulated */
    return g_strdup_printf (_ ("%d mosaic domains; fewer domains or a smaller mosaic spread speed "
                               "it up"),
                            p->mosaic_domains);
  if (largest == p->sources)
    /* Translators: why a frame is slow: the beam's sources (divergence and
     * dispersion steps) */
    return g_strdup_printf (_ ("%d beam sources; fewer divergence or dispersion steps speed it up"),
                            p->sources);
  /* Translators: why a frame is slow: the steps of the crystal's rotation */
  return g_strdup_printf (_ ("%d φ steps; fewer speed it up"), p->phi_steps);
}

char *
braggscope_progress_describe_cost (const BraggscopeRenderProgress *progress)
{
  g_autofree char *factor = describe_factor (progress);
  g_autofree char *time = NULL;

  if (!isfinite (progress->estimate))
    /* Translators: a full frame has started; how long it takes is not known
     * yet; then why it is slow */
    return g_strdup_printf (_ ("Full frame: time unknown (%s)"), factor);
  time = format_duration (progress->estimate);
  /* Translators: a full frame has started: the time it is expected to take
   * ("45 s"), then why */
  return g_strdup_printf (_ ("Full frame: about %s (%s)"), time, factor);
}

char *
braggscope_progress_describe (const BraggscopeRenderProgress *progress)
{
  g_autofree char *left = NULL;

  if (!isfinite (progress->remaining) || progress->fraction >= 1.0)
    /* Translators: the part of a full frame done */
    return g_strdup_printf (_ ("Full frame: %.0f %%"), 100.0 * progress->fraction);
  left = format_duration (progress->remaining);
  /* Translators: the part of a full frame done, and the time left ("26 s") */
  return g_strdup_printf (_ ("Full frame: %.0f %%, about %s left"), 100.0 * progress->fraction,
                          left);
}
