/* colormap.vert: one triangle that covers the viewport; colormap.frag works in
 * window coordinates, so no attributes or buffers are needed.
 *
 * The view prepends the #version line ("#version 150" for OpenGL 3.2 core,
 * "#version 130" for 3.0/3.1, "#version 300 es" plus default precisions for
 * OpenGL ES 3), so this source is valid GLSL for each.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

void
main ()
{
  /* Vertices 0, 1, 2 at (-1, -1), (3, -1), (-1, 3) in clip space. */
  vec2 corner = vec2 (float ((gl_VertexID << 1) & 2), float (gl_VertexID & 2));

  gl_Position = vec4 (corner * 2.0 - 1.0, 0.0, 1.0);
}
