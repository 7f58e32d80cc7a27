/* braggscope-controls-private.h: BraggscopeControls' instance, shared by
 * braggscope-controls.c (the parameter groups from the engine's table) and
 * braggscope-controls-panel.c (scrolling, fine angle drags, the Effects and
 * Display groups).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "braggscope-control-hints-private.h"
#include "braggscope-controls.h"

G_BEGIN_DECLS

struct _BraggscopeControls
{
  GtkWidget parent_instance;

  BraggscopeSimulation *simulation;
  BraggscopeView *view;       /* or NULL: no Display group */
  GHashTable *widgets;        /* name -> GtkWidget (borrowed: children of the groups) */
  GPtrArray *notify_handlers; /* handler ids on the simulation for entries */
  GPtrArray *effects;         /* Effect (braggscope-controls-panel.c) */
  GtkWidget *scroller;        /* the controls' one child */
  GtkWidget *box;             /* the groups, in the scroller */
  double pointer_x, pointer_y;
};

/* A property's BraggscopeControlHints, or empty ones. */
const BraggscopeControlHints *_braggscope_controls_hints_of (GParamSpec *pspec);

/* braggscope-controls-panel.c */
void _braggscope_controls_init_scrolling (BraggscopeControls *self);
void _braggscope_controls_add_fine_drag (GtkWidget *scale);
void _braggscope_controls_build_effects (BraggscopeControls *self);
void _braggscope_controls_build_display (BraggscopeControls *self);

G_END_DECLS
