/* braggscope-control-hints-private.h: what a control needs to know of a
 * BraggscopeSimulation property besides its GParamSpec, shared by
 * libbraggscope (which attaches it) and libbraggscope-gtk (which reads it).
 *
 * Every property of the simulation a control may edit carries one, as the
 * pspec's qdata under BRAGGSCOPE_CONTROL_HINTS_KEY; its nick is the
 * control's label and its blurb the tooltip (both English, in the
 * "braggscope" text domain).  Not API: hosts read the pspecs.
 */
#pragma once

typedef struct
{
  const char *unit;           /* the unit as a control shows it: "mm", "\u00b0", "" for none */
  double lower, upper;        /* the range worth dragging a slider through */
  double step;                /* the step of a slider or spin button; 0: not a number */
  int digits;                 /* decimals shown */
  const char *const *choices; /* a string property's words, NULL-terminated; or NULL */
} BraggscopeControlHints;

#define BRAGGSCOPE_CONTROL_HINTS_KEY "braggscope-control-hints"
