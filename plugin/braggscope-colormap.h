/* braggscope-colormap.h: photons per pixel to RGBA, the one mapping shared by
 * the CPU path here and the GLSL shader of the GTK view (shaders/colormap.frag).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "braggscope-export.h"

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * BraggscopeScale:
 * @BRAGGSCOPE_SCALE_LINEAR: t = (v - low) / (high - low)
 * @BRAGGSCOPE_SCALE_LOG: t = log10 (1 + max (v - low, 0)) / log10 (1 + (high - low))
 * @BRAGGSCOPE_SCALE_GAMMA: the linear t raised to 1 / gamma
 *
 * How an intensity (photons/pixel) becomes a position t in 0..1 along the
 * colormap, given the window low..high of a [struct@Braggscope.Display].
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_SCALE_LINEAR,
  BRAGGSCOPE_SCALE_LOG,
  BRAGGSCOPE_SCALE_GAMMA,
} BraggscopeScale;

/**
 * BraggscopeColormap:
 * @BRAGGSCOPE_COLORMAP_GREY: black (low) to white (high)
 * @BRAGGSCOPE_COLORMAP_INVERTED_GREY: white (low) to black (high), like film
 * @BRAGGSCOPE_COLORMAP_VIRIDIS: the perceptually uniform viridis, dark blue to yellow
 * @BRAGGSCOPE_COLORMAP_MAGMA: the perceptually uniform magma, black to pale yellow
 * @BRAGGSCOPE_COLORMAP_HEAT: black, red, yellow, white ("hot iron")
 *
 * The 256-entry colour tables; see [func@Braggscope.Colormap.lut].
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_COLORMAP_GREY,
  BRAGGSCOPE_COLORMAP_INVERTED_GREY,
  BRAGGSCOPE_COLORMAP_VIRIDIS,
  BRAGGSCOPE_COLORMAP_MAGMA,
  BRAGGSCOPE_COLORMAP_HEAT,
} BraggscopeColormap;

#define BRAGGSCOPE_TYPE_SCALE (braggscope_scale_get_type ())
BRAGGSCOPE_EXPORT
GType braggscope_scale_get_type (void) G_GNUC_CONST;

#define BRAGGSCOPE_TYPE_COLORMAP (braggscope_colormap_get_type ())
BRAGGSCOPE_EXPORT
GType braggscope_colormap_get_type (void) G_GNUC_CONST;

/**
 * BraggscopeDisplay:
 * @colormap: the colour table
 * @scale: the intensity scale
 * @gamma: the exponent of %BRAGGSCOPE_SCALE_GAMMA (t^(1/gamma)); values <= 0 or
 *   not finite act as 1
 * @low: intensity (photons/pixel) shown as the first colour of the table
 * @high: intensity (photons/pixel) shown as the last colour
 *
 * How a frame is shown.  A plain struct: fill it with
 * [func@Braggscope.Display.init] and change the fields.
 *
 * The mapping of an intensity v ([func@Braggscope.Colormap.apply] and the
 * view's shader implement exactly this):
 *
 * - LINEAR and GAMMA: t = (v - low) / (high - low);
 *   LOG: t = log10 (1 + max (v - low, 0)) / log10 (1 + (high - low));
 * - when high <= low (an empty window): t = 1 for v > low, else 0;
 * - t is clamped to 0..1; a NaN v gives t = 0;
 * - GAMMA: t = t^(1/gamma);
 * - index = floor (t * 255 + 0.5); colour = lut[index].
 *
 * Since: 0.1
 */
typedef struct
{
  BraggscopeColormap colormap;
  BraggscopeScale scale;
  double gamma;
  double low;
  double high;
} BraggscopeDisplay;

#define BRAGGSCOPE_TYPE_DISPLAY (braggscope_display_get_type ())
BRAGGSCOPE_EXPORT
GType braggscope_display_get_type (void) G_GNUC_CONST;

/**
 * braggscope_display_init:
 * @display: (out caller-allocates): the display to fill
 *
 * Sets @display to the defaults: inverted grey (film), linear scale, gamma 1,
 * window 0..100 photons.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_display_init (BraggscopeDisplay *display);

/**
 * braggscope_display_copy:
 * @display: a display
 *
 * Copies @display, for bindings and boxed values.
 *
 * Returns: (transfer full): a copy of @display, freed with
 *   [method@Braggscope.Display.free]
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
BraggscopeDisplay *braggscope_display_copy (const BraggscopeDisplay *display);

/**
 * braggscope_display_free:
 * @display: (nullable): a display from [method@Braggscope.Display.copy]
 *
 * Frees @display.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_display_free (BraggscopeDisplay *display);

/**
 * braggscope_colormap_lut:
 * @map: the colormap
 * @rgba: (out caller-allocates) (array fixed-size=1024): 256 colours, 4 bytes
 *   each (red, green, blue, alpha = 255), entry 0 for t = 0 and 255 for t = 1
 *
 * Fills the colour table of @map.  GREY and INVERTED_GREY are the straight
 * ramps; HEAT is red, then green, then blue rising linearly over each third;
 * VIRIDIS and MAGMA are interpolated, with monotone cubic Hermite curves in
 * CIELAB (D65), through ten anchor colours sampled at t = 0, 1/9, ... 1 from
 * the published colormaps (S. van der Walt and N. Smith, matplotlib 2015), so
 * their lightness rises monotonically.  An unknown @map gives GREY.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_colormap_lut (BraggscopeColormap map, guint8 rgba[256 * 4]);

/**
 * braggscope_auto_contrast:
 * @data: (array length=n): intensities (photons/pixel)
 * @n: number of values
 * @low_percentile: percentile (0..100) for @low
 * @high_percentile: percentile (0..100) for @high
 * @low: (out): the @low_percentile-th percentile of the finite values
 * @high: (out): the @high_percentile-th percentile of the finite values
 *
 * A window for [func@Braggscope.Colormap.apply] from the distribution of @data.
 * The p-th percentile is the order statistic at rank p / 100 * (m - 1) among
 * the m finite values, interpolated linearly between neighbouring ranks (as
 * numpy.percentile does by default).  Exact, in O(n) without a copy (counting
 * passes over 16-bit digits of the values' sort keys); @data is not changed.  Percentiles are clamped to 0..100 and swapped if
 * given in the wrong order.  When the window would be empty (high <= low) @high
 * becomes the largest value, or low + 1 when that is not above @low; with no
 * finite value the window is 0..1.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_auto_contrast (const float *data,
                               gsize n,
                               double low_percentile,
                               double high_percentile,
                               double *low,
                               double *high);

/**
 * braggscope_auto_contrast_counts:
 * @data: (array length=n): a measured frame's counts per pixel (NaN masked)
 * @n: number of values
 * @low_percentile: percentile (0..100) for @low
 * @high_percentile: percentile (0..100) for @high
 * @low: (out): the window's first colour (counts)
 * @high: (out): the window's last colour (counts)
 *
 * [func@Braggscope.auto_contrast] for photon counts: when every finite value
 * is a whole number, @high is at least the median plus ten times its Poisson
 * noise, median + 10 sqrt(max(median, 1)).  On a sparse frame (a Pilatus
 * frame of 0 to 2 counts between its spots, whose 99.5th percentile is 2)
 * the percentile window paints single photons as dark as spots; this one
 * keeps the background light and the spots dark.  Values that are not all
 * whole numbers (a simulated frame, photons per pixel) get
 * [func@Braggscope.auto_contrast]'s window unchanged.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_auto_contrast_counts (const float *data,
                                      gsize n,
                                      double low_percentile,
                                      double high_percentile,
                                      double *low,
                                      double *high);

/**
 * braggscope_colormap_index:
 * @display: the display
 * @value: an intensity (photons/pixel)
 *
 * The colour table index (0..255) that [func@Braggscope.Colormap.apply] uses
 * for @value; the mapping is documented at [struct@Braggscope.Display].
 *
 * Returns: the index into [func@Braggscope.Colormap.lut]
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
guint braggscope_colormap_index (const BraggscopeDisplay *display, double value);

/**
 * braggscope_colormap_apply:
 * @display: the display
 * @data: (array length=n): intensities (photons/pixel)
 * @n: number of values
 * @rgba: (out caller-allocates): 4 * @n bytes: red, green, blue, alpha = 255
 *   for each value, in the order of @data
 *
 * Colours @data with @display (the mapping is documented at
 * [struct@Braggscope.Display]).  For a frame, @data is
 * [method@Braggscope.Frame.get_data] and @rgba is then an image of width *
 * height RGBA pixels, row-major.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_colormap_apply (const BraggscopeDisplay *display,
                                const float *data,
                                gsize n,
                                guint8 *rgba);

/**
 * braggscope_colormap_apply_indices:
 * @display: the display
 * @data: (array length=n): intensities (photons/pixel)
 * @n: number of values
 * @indices: (out caller-allocates) (array length=n): the colour table index
 *   (0..255) of each value
 *
 * The indices [func@Braggscope.Colormap.apply] looks the colours up at; the
 * mapping never decreases with the value, so the largest index of a group of
 * pixels is the index of their largest value.
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
void braggscope_colormap_apply_indices (const BraggscopeDisplay *display,
                                        const float *data,
                                        gsize n,
                                        guint8 *indices);

/**
 * braggscope_colormap_apply_to_bytes:
 * @display: the display
 * @data: (array length=n): intensities (photons/pixel)
 * @n: number of values
 *
 * [func@Braggscope.Colormap.apply] for language bindings.
 *
 * Returns: (transfer full): 4 * @n bytes of RGBA
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
GBytes *
braggscope_colormap_apply_to_bytes (const BraggscopeDisplay *display, const float *data, gsize n);

G_END_DECLS
