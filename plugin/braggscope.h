/* braggscope.h: libbraggscope, a live X-ray diffraction simulation for GLib programs.
 *
 * Include this header only.  The library is GLib/GObject/GIO; the GTK 4 view
 * lives in libbraggscope-gtk (braggscope-gtk.h).
 */
#pragma once

#include "braggscope-colormap.h"
#include "braggscope-enums.h"
#include "braggscope-error.h"
#include "braggscope-frame.h"
#include "braggscope-geometry.h"
#include "braggscope-lattice.h"
#include "braggscope-measured.h"
#include "braggscope-simulation.h"
#include "braggscope-snapshot.h"
