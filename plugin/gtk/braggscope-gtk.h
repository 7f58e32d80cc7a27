/* braggscope-gtk.h: libbraggscope-gtk, the GTK 4 view and controls of a
 * Braggscope simulation.  Include this header only.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope.h"

#include "braggscope-controls.h"
#include "braggscope-readout.h"
#include "braggscope-reciprocal-view.h"
#include "braggscope-view.h"
