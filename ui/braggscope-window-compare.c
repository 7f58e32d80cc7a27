/* braggscope-window-compare.c: Compare in the viewer: hold the current frame
 * as A (win.hold-frame), change parameters, and show A with the frames that
 * follow (B) side by side, as a blink, as an overlay or as their difference
 * (win.compare-mode), blinking with win.blink (or the b key over the view).
 * All of it is the detector view's second layer (BraggscopeView's
 * reference): the window only holds the actions and says in the status line
 * what it shows.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-window-private.h"

#include <glib/gi18n.h>

static const char *const modes[] = {
  "none", "side-by-side", "blink", "overlay", "difference", NULL
};

static BraggscopeCompareMode
mode_from_nick (const char *nick)
{
  for (guint i = 0; modes[i] != NULL; i++)
    if (g_strcmp0 (modes[i], nick) == 0)
      return (BraggscopeCompareMode) i;
  return BRAGGSCOPE_COMPARE_NONE;
}

/* What the status line says about the comparison. */
static void
say (BraggscopeWindow *self)
{
  const char *fallback;

  if (self->view == NULL || !braggscope_view_get_has_reference (self->view))
    return;
  fallback = braggscope_view_get_compare_fallback (self->view);
  if (fallback != NULL)
    self->callbacks.show_message (self, fallback, FALSE);
  else if (braggscope_view_get_compare_mode (self->view) == BRAGGSCOPE_COMPARE_BLINK)
    self->callbacks.show_message (self,
                                  braggscope_view_get_blink_reference (self->view)
                                      ? _ ("Showing A, the held frame (B to blink: Ctrl+B)")
                                      : _ ("Showing B, the current frame (A to blink: Ctrl+B)"),
                                  FALSE);
  else if (braggscope_view_get_compare_mode (self->view) == BRAGGSCOPE_COMPARE_DIFFERENCE)
    self->callbacks.show_message (
        self, _ ("Difference B − A: red where B is brighter, blue where A is"), FALSE);
}

static void
update_actions (BraggscopeWindow *self)
{
  gboolean held = self->view != NULL && braggscope_view_get_has_reference (self->view);

  g_simple_action_set_enabled (
      G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "clear-reference")), held);
  g_simple_action_set_enabled (
      G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "blink")), held);
}

static void
hold_frame_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  GAction *mode = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-mode");
  g_autoptr (GVariant) state = g_action_get_state (mode);

  if (self->view == NULL || braggscope_view_get_frame (self->view) == NULL)
    return;
  braggscope_view_hold_frame (self->view);
  /* holding with nothing to compare in shows A and B side by side */
  if (g_strcmp0 (g_variant_get_string (state, NULL), "none") == 0)
    g_action_change_state (mode, g_variant_new_string ("side-by-side"));
  self->callbacks.show_message (
      self, _ ("Held the frame as A: change the parameters to compare B with it"), FALSE);
}

static void
clear_reference_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;

  if (self->view != NULL)
    braggscope_view_clear_reference (self->view);
  self->callbacks.show_message (self, NULL, FALSE);
}

static void
compare_mode_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  const char *nick = g_variant_get_string (value, NULL);

  if (!g_strv_contains (modes, nick))
    return;
  g_simple_action_set_state (action, value);
  if (self->view != NULL)
    braggscope_view_set_compare_mode (self->view, mode_from_nick (nick));
  say (self);
}

static void
blink_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  GAction *mode = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-mode");

  if (self->view == NULL || !braggscope_view_get_has_reference (self->view))
    return;
  if (braggscope_view_get_compare_mode (self->view) != BRAGGSCOPE_COMPARE_BLINK)
    g_action_change_state (mode, g_variant_new_string ("blink"));
  else
    braggscope_view_set_blink_reference (self->view,
                                         !braggscope_view_get_blink_reference (self->view));
}

static void
on_view_changed (BraggscopeView *view, GParamSpec *pspec, BraggscopeWindow *self)
{
  update_actions (self);
  say (self);
}

static const GActionEntry compare_entries[] = {
  { "hold-frame", hold_frame_activated, NULL, NULL, NULL, { 0 } },
  { "clear-reference", clear_reference_activated, NULL, NULL, NULL, { 0 } },
  { "compare-mode", NULL, "s", "'none'", compare_mode_changed, { 0 } },
  { "blink", blink_activated, NULL, NULL, NULL, { 0 } },
};

void
_braggscope_window_connect_compare (BraggscopeWindow *self)
{
  GAction *mode = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-mode");
  g_autoptr (GVariant) state = g_action_get_state (mode);

  braggscope_view_set_compare_mode (self->view,
                                    mode_from_nick (g_variant_get_string (state, NULL)));
  g_signal_connect_object (self->view, "notify::has-reference", G_CALLBACK (on_view_changed), self,
                           G_CONNECT_DEFAULT);
  g_signal_connect_object (self->view, "notify::blink-reference", G_CALLBACK (on_view_changed),
                           self, G_CONNECT_DEFAULT);
  g_signal_connect_object (self->view, "notify::compare-fallback", G_CALLBACK (on_view_changed),
                           self, G_CONNECT_DEFAULT);
  update_actions (self);
}

void
_braggscope_window_init_compare (BraggscopeWindow *self)
{
  g_autoptr (GMenu) menu = g_menu_new ();
  g_autoptr (GMenu) how = g_menu_new ();

  g_action_map_add_action_entries (G_ACTION_MAP (self), compare_entries,
                                   G_N_ELEMENTS (compare_entries), self);
  g_menu_append (menu, _ ("_Hold Current Frame as A"), "win.hold-frame");
  g_menu_append (menu, _ ("_Forget A"), "win.clear-reference");
  g_menu_append (how, _ ("_Off"), "win.compare-mode('none')");
  g_menu_append (how, _ ("A and B _Side by Side"), "win.compare-mode('side-by-side')");
  g_menu_append (how, _ ("_Blink A and B"), "win.compare-mode('blink')");
  g_menu_append (how, _ ("_Overlay (A Grey, B Orange)"), "win.compare-mode('overlay')");
  g_menu_append (how, _ ("_Difference B − A"), "win.compare-mode('difference')");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (how));
  g_menu_append (menu, _ ("Switch Between A and B"), "win.blink");
  g_menu_insert_submenu (self->primary_menu, 2, _ ("_Compare"), G_MENU_MODEL (menu));
  update_actions (self);
}
