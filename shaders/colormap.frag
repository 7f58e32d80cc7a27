/* colormap.frag: a frame of photons/pixel, colour-mapped through a 256-entry
 * table, exactly as braggscope_colormap_apply() does on the CPU (the mapping is
 * documented at BraggscopeDisplay in plugin/braggscope-colormap.h):
 *
 *   LINEAR, GAMMA  t = (v - low) / (high - low)
 *   LOG            t = log10 (1 + max (v - low, 0)) / log10 (1 + (high - low))
 *                    (computed as a ratio of log2s, which is the same number)
 *   high <= low    t = v > low ? 1 : 0
 *   t clamped to 0..1, NaN to 0; GAMMA: t = t^(1/gamma)
 *   index = floor (t * 255 + 0.5); colour = lut[index]
 *
 * Zoomed in (a frame pixel covers a window pixel or more, u_step <= 1) each
 * window pixel shows the frame pixel under its centre.  Zoomed out it shows
 * the largest index among the frame pixels its square overlaps (at most
 * MAX_TAPS x MAX_TAPS of them, evenly spread), so a one-pixel spot never
 * falls between samples.  The view's software path follows the same rules
 * (braggscope-view.c, sample_spans()).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

uniform highp sampler2D u_image; /* R32F, frame width x height, photons/pixel */
uniform highp sampler2D u_lut;   /* RGBA8, 256 x 1 */

uniform vec2 u_origin;           /* frame coordinates of the viewport's top-left corner */
uniform float u_step;            /* frame pixels per window pixel */
uniform float u_viewport_height; /* window pixels */

uniform int u_scale; /* 0 linear, 1 log, 2 gamma (BraggscopeScale) */
uniform int u_empty; /* 1 when high <= low */
uniform float u_low;
uniform float u_range;     /* high - low */
uniform float u_log_range; /* log2 (1 + (high - low)) */
uniform float u_inverse_gamma;
uniform vec4 u_background; /* outside the frame */

out vec4 frag_color;

#define MAX_TAPS 8

int
colormap_index (float v)
{
  float t;

  if (u_empty != 0)
    t = v > u_low ? 1.0 : 0.0;
  else if (u_scale == 1)
    t = log2 (1.0 + max (v - u_low, 0.0)) / u_log_range;
  else
    t = (v - u_low) / u_range;

  t = isnan (t) ? 0.0 : clamp (t, 0.0, 1.0);
  if (u_scale == 2)
    t = pow (t, u_inverse_gamma);

  return clamp (int (floor (t * 255.0 + 0.5)), 0, 255);
}

/* The frame pixels a window pixel overlaps along one axis, from the window
 * pixel's first edge @corner: the first one and how many (at least 1). */
ivec2
span (float origin, float corner, int size)
{
  int first = int (floor (origin + corner * u_step));
  int last = int (ceil (origin + (corner + 1.0) * u_step)) - 1;

  first = clamp (first, 0, size - 1);
  last = clamp (last, first, size - 1);
  return ivec2 (first, last - first + 1);
}

void
main ()
{
  /* Window y grows downwards, like the frame's slow index. */
  vec2 window = vec2 (gl_FragCoord.x, u_viewport_height - gl_FragCoord.y);
  vec2 p = u_origin + window * u_step;
  ivec2 size = textureSize (u_image, 0);
  int index;

  if (p.x < 0.0 || p.y < 0.0 || p.x >= float (size.x) || p.y >= float (size.y))
    {
      frag_color = u_background;
      return;
    }

  if (u_step <= 1.0)
    index = colormap_index (texelFetch (u_image, ivec2 (floor (p)), 0).r);
  else
    {
      /* Window pixels are whole numbers apart: the corner is exact. */
      vec2 corner = window - 0.5;
      ivec2 sx = span (u_origin.x, corner.x, size.x);
      ivec2 sy = span (u_origin.y, corner.y, size.y);
      int nx = min (sx.y, MAX_TAPS), ny = min (sy.y, MAX_TAPS);

      index = 0;
      for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
          {
            /* Evenly spread over the span when it is wider than MAX_TAPS. */
            int x = sx.x + (nx > 1 ? i * (sx.y - 1) / (nx - 1) : 0);
            int y = sy.x + (ny > 1 ? j * (sy.y - 1) / (ny - 1) : 0);
            index = max (index, colormap_index (texelFetch (u_image, ivec2 (x, y), 0).r));
          }
    }

  frag_color = texelFetch (u_lut, ivec2 (index, 0), 0);
}
