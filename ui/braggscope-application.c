/* braggscope-application.c: the viewer's GtkApplication: command line,
 * settings, application actions and accelerators.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-application.h"

#include "braggscope-headless.h"
#include "braggscope-options.h"
#include "braggscope-resources.h"
#include "braggscope-window.h"

#include <braggscope.h>
#include <glib/gi18n.h>
#include <string.h>

struct _BraggscopeApplication
{
  GtkApplication parent_instance;

  GSettings *settings; /* NULL when the schema is not installed */
};

G_DEFINE_FINAL_TYPE (BraggscopeApplication, braggscope_application, GTK_TYPE_APPLICATION)

/* nanoBragg flags whose value is an input file: made absolute against the
 * caller's folder, since a second `braggscope` hands its command line to the
 * running instance, whose working folder may differ. */
static const char *const file_flags[] = { "-hkl", "-mat", "-sourcefile", "-stol", "-4stol",
                                          "-Q",   "-img", "-mask",       "-dump", NULL };

GSettings *
braggscope_application_lookup_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GSettingsSchemaSource) uninstalled = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
#ifdef BRAGGSCOPE_UNINSTALLED_SCHEMA_DIR
  /* Run from the build tree: the schema compiled next to the binary. */
  if (schema == NULL &&
      g_file_test (BRAGGSCOPE_UNINSTALLED_SCHEMA_DIR "/gschemas.compiled", G_FILE_TEST_IS_REGULAR))
    {
      uninstalled = g_settings_schema_source_new_from_directory (BRAGGSCOPE_UNINSTALLED_SCHEMA_DIR,
                                                                 source, FALSE, NULL);
      if (uninstalled != NULL)
        schema = g_settings_schema_source_lookup (uninstalled, APP_ID, FALSE);
    }
#endif
  if (schema == NULL)
    return NULL;
  return g_settings_new_full (schema, NULL, NULL);
}

GSettings *
braggscope_application_get_settings (BraggscopeApplication *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_APPLICATION (self), NULL);

  return self->settings;
}

static char **
absolute_file_flags (char **args, const char *cwd)
{
  if (cwd == NULL)
    return args;
  for (int i = 0; args[i] != NULL; i++)
    if (g_strv_contains (file_flags, args[i]) && args[i + 1] != NULL &&
        !g_path_is_absolute (args[i + 1]))
      {
        char *abs = g_build_filename (cwd, args[i + 1], NULL);
        g_free (args[i + 1]);
        args[++i] = abs;
      }
  return args;
}

/* The simulation a new window shows: the default scene with @nb_args applied,
 * or, with no flags, the scene of the last session when the settings say so.
 * Errors only for @nb_args that the simulation rejects; a default scene that
 * cannot be loaded, or a last scene that no longer applies, is reported in
 * @warning and replaced by what can be built. */
static BraggscopeSimulation *
create_simulation (BraggscopeApplication *self,
                   const char *const *nb_args,
                   char **warning,
                   GError **error)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) local_error = NULL;

  sim = braggscope_simulation_new_default_scene (&local_error);
  if (sim == NULL)
    {
      *warning =
          g_strdup_printf (_ ("The default scene could not be loaded: %s"), local_error->message);
      g_clear_error (&local_error);
      sim = braggscope_simulation_new ();
    }

  if (nb_args != NULL && nb_args[0] != NULL)
    {
      if (!braggscope_simulation_set_from_args (sim, nb_args, error))
        return NULL;
    }
  else if (self->settings != NULL && g_settings_get_boolean (self->settings, "restore-scene"))
    {
      g_auto (GStrv) saved = g_settings_get_strv (self->settings, "last-scene");
      g_autofree char *dropped = NULL;
      g_auto (GStrv) last =
          braggscope_scene_args_drop_outputs ((const char *const *) saved, &dropped);

      /* a scene saved before to_args() left out the flags naming files to
       * write: they are dropped, not obeyed at every start */
      if (dropped != NULL)
        {
          g_autofree char *shown = g_filename_display_name (dropped);

          g_free (*warning);
          *warning = g_strdup_printf (
              _ ("The last scene named files to write, which a scene may not: left out %s"), shown);
        }
      /* to_args() wrote what differs from nanoBragg's defaults, a crystal
       * always among it: laid over a new simulation, not over the default
       * scene (whose structure factors, cell and mosaic settings a lesson
       * without them would inherit).  A scene naming no crystal was written
       * by hand: it changes the default scene. */
      if (last[0] != NULL && (g_strv_contains ((const char *const *) last, "-cell") ||
                              g_strv_contains ((const char *const *) last, "-mat")))
        {
          g_clear_object (&sim);
          sim = braggscope_simulation_new ();
        }
      if (last[0] != NULL &&
          !braggscope_simulation_set_scene_from_args (sim, (const char *const *) last,
                                                      _ ("the last scene"), &local_error))
        {
          g_free (*warning);
          *warning = g_strdup_printf (_ ("The last scene could not be restored: %s"),
                                      local_error->message);
          g_clear_object (&sim);
          sim = braggscope_simulation_new_default_scene (NULL);
          if (sim == NULL)
            sim = braggscope_simulation_new ();
        }
      else if (last[0] != NULL)
        braggscope_simulation_render (sim);
    }

  return g_steal_pointer (&sim);
}

static void
open_window (BraggscopeApplication *self, BraggscopeSimulation *sim, const char *warning)
{
  BraggscopeWindow *window = braggscope_window_new (GTK_APPLICATION (self), sim, self->settings);

  if (warning != NULL)
    braggscope_window_show_message (window, warning, TRUE);
  gtk_window_present (GTK_WINDOW (window));
}

static gboolean
braggscope_application_local_command_line (GApplication *app, char ***arguments, int *exit_status)
{
  BraggscopeOptions opts = { 0 };
  g_autoptr (GError) error = NULL;
  int argc = g_strv_length (*arguments);

  if (!braggscope_options_parse (&opts, argc, (const char *const *) *arguments, &error))
    {
      g_printerr ("braggscope: %s\n", error->message);
      *exit_status = 2;
      return TRUE;
    }

  if (opts.help)
    {
      g_autofree char *help = braggscope_options_help ();

      g_print ("%s", help);
      *exit_status = 0;
    }
  else if (opts.version)
    {
      g_print ("braggscope %s (GTK %u.%u.%u, built with %d.%d.%d)\n", PACKAGE_VERSION,
               gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
               GTK_MAJOR_VERSION, GTK_MINOR_VERSION, GTK_MICRO_VERSION);
      *exit_status = 0;
    }
  else if (opts.snapshot != NULL)
    {
      g_autoptr (GSettings) settings = braggscope_application_lookup_settings ();

      *exit_status = braggscope_headless_snapshot (&opts, settings, &error);
      if (*exit_status != 0)
        g_printerr ("braggscope: %s\n", error->message);
    }
  else if (!gtk_init_check ())
    {
      /* GTK would only warn and exit; say what to do instead. */
      g_printerr (
          "braggscope: %s\n",
          _ ("cannot open a display (DISPLAY and WAYLAND_DISPLAY are unset or unreachable); "
             "braggscope --snapshot FILE.png renders without one"));
      *exit_status = 1;
    }
  else
    {
      braggscope_options_clear (&opts);
      return G_APPLICATION_CLASS (braggscope_application_parent_class)
          ->local_command_line (app, arguments, exit_status);
    }

  braggscope_options_clear (&opts);
  return TRUE;
}

static int
braggscope_application_command_line (GApplication *app, GApplicationCommandLine *cmdline)
{
  BraggscopeApplication *self = BRAGGSCOPE_APPLICATION (app);
  BraggscopeOptions opts = { 0 };
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *warning = NULL;
  g_auto (GStrv) argv = NULL;
  int argc = 0;

  argv = g_application_command_line_get_arguments (cmdline, &argc);
  /* Parsed again: the running instance gets the raw command line of a second launch. */
  if (!braggscope_options_parse (&opts, argc, (const char *const *) argv, &error))
    {
      g_application_command_line_printerr (cmdline, "braggscope: %s\n", error->message);
      return 2;
    }
  absolute_file_flags (opts.nb_args, g_application_command_line_get_cwd (cmdline));

  sim = create_simulation (self, (const char *const *) opts.nb_args, &warning, &error);
  if (sim == NULL)
    {
      braggscope_options_clear (&opts);
      g_application_command_line_printerr (cmdline, "braggscope: %s\n", error->message);
      return 2;
    }
  if (opts.lesson != NULL)
    {
      BraggscopeWindow *window =
          braggscope_window_new (GTK_APPLICATION (self), sim, self->settings);

      if (!braggscope_window_open_lesson (window, opts.lesson, &error))
        {
          braggscope_options_clear (&opts);
          gtk_window_destroy (GTK_WINDOW (window));
          g_application_command_line_printerr (cmdline, "braggscope: %s\n", error->message);
          return 2;
        }
      gtk_window_present (GTK_WINDOW (window));
      braggscope_options_clear (&opts);
      return 0;
    }
  braggscope_options_clear (&opts);

  open_window (self, sim, warning);
  return 0;
}

static void
braggscope_application_activate (GApplication *app)
{
  BraggscopeApplication *self = BRAGGSCOPE_APPLICATION (app);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autofree char *warning = NULL;

  sim = create_simulation (self, NULL, &warning, NULL);
  open_window (self, sim, warning);
}

static void
quit_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  GList *windows = g_list_copy (gtk_application_get_windows (app));

  /* Closing (not destroying) lets each window save its state and scene. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
  g_list_free (windows);
}

static void
about_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  const char *authors[] = { "The Braggscope authors", NULL };
  GtkWindow *parent = gtk_application_get_active_window (app);
  GtkWidget *about;

  about =
      g_object_new (GTK_TYPE_ABOUT_DIALOG, "transient-for", parent, "modal", TRUE, "program-name",
                    "Braggscope", "logo-icon-name", APP_ID, "version", PACKAGE_VERSION, "comments",
                    _ ("Live X-ray diffraction from a small crystal"), "website",
                    "https://github.com/braggscope/braggscope", "license-type", GTK_LICENSE_BSD_3,
                    "authors", authors,
                    /* Translators: your name(s), one per line */
                    "translator-credits", _ ("translator-credits"), NULL);
  gtk_about_dialog_add_credit_section (GTK_ABOUT_DIALOG (about),
                                       _ ("Forward model after nanoBragg by"),
                                       (const char *[]){ "James M. Holton", NULL });
  gtk_about_dialog_add_credit_section (GTK_ABOUT_DIALOG (about), _ ("Default scene"),
                                       (const char *[]){ "HIV-1 protease, PDB 1HPV", NULL });
  gtk_window_present (GTK_WINDOW (about));
}

static const GActionEntry app_entries[] = {
  { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
  { "about", about_activated, NULL, NULL, NULL, { 0 } },
};

/* Accelerators of window and application actions; the misset steps turn the
 * crystal from the keyboard, one degree (a tenth with Shift) at a time. */
static const struct
{
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Primary>q", NULL } },
  { "window.close", { "<Primary>w", NULL } },
  { "win.open-structure-factors", { "<Primary>o", NULL } },
  { "win.open-snapshot", { "<Primary><Shift>o", NULL } },
  { "win.open-detector", { "<Primary><Shift>d", NULL } },
  { "win.save-snapshot", { "<Primary>s", NULL } },
  { "win.export-float", { "<Primary>e", NULL } },
  { "win.export-smv", { "<Primary><Shift>e", NULL } },
  { "win.copy-command-line", { "<Primary><Shift>c", NULL } },
  { "win.reset-scene", { "<Primary><Shift>r", NULL } },
  { "win.view-mode('detector')", { "<Primary>1", NULL } },
  { "win.view-mode('reciprocal')", { "<Primary>2", NULL } },
  { "win.view-mode('both')", { "<Primary>3", NULL } },
  { "win.show-labels", { "<Primary>l", NULL } },
  { "win.lesson-step(1)", { "<Primary>Page_Down", NULL } },
  { "win.lesson-step(-1)", { "<Primary>Page_Up", NULL } },
  { "win.lesson-close", { "<Primary><Shift>w", NULL } },
  { "win.play", { "<Primary>p", NULL } },
  { "win.play-step(1)", { "<Primary>period", NULL } },
  { "win.play-step(-1)", { "<Primary>comma", NULL } },
  { "win.export-gif", { "<Primary>g", NULL } },
  { "win.export-pngs", { "<Primary><Shift>g", NULL } },
  { "win.hold-frame", { "<Primary>h", NULL } },
  { "win.clear-reference", { "<Primary><Shift>h", NULL } },
  { "win.compare-mode('none')", { "<Primary>0", NULL } },
  { "win.compare-mode('side-by-side')", { "<Primary>4", NULL } },
  { "win.compare-mode('blink')", { "<Primary>5", NULL } },
  { "win.compare-mode('overlay')", { "<Primary>6", NULL } },
  { "win.compare-mode('difference')", { "<Primary>7", NULL } },
  { "win.blink", { "<Primary>b", NULL } },
  { "win.misset-step(('x',-1.0))", { "<Alt>Up", NULL } },
  { "win.misset-step(('x',1.0))", { "<Alt>Down", NULL } },
  { "win.misset-step(('y',-1.0))", { "<Alt>Left", NULL } },
  { "win.misset-step(('y',1.0))", { "<Alt>Right", NULL } },
  { "win.misset-step(('z',1.0))", { "<Alt>Page_Up", NULL } },
  { "win.misset-step(('z',-1.0))", { "<Alt>Page_Down", NULL } },
  { "win.misset-step(('x',-0.1))", { "<Alt><Shift>Up", NULL } },
  { "win.misset-step(('x',0.1))", { "<Alt><Shift>Down", NULL } },
  { "win.misset-step(('y',-0.1))", { "<Alt><Shift>Left", NULL } },
  { "win.misset-step(('y',0.1))", { "<Alt><Shift>Right", NULL } },
  { "win.misset-step(('z',0.1))", { "<Alt><Shift>Page_Up", NULL } },
  { "win.misset-step(('z',-0.1))", { "<Alt><Shift>Page_Down", NULL } },
  { "win.open-measured", { "<Primary>m", NULL } },
  { "win.adopt-geometry", { "<Primary><Shift>m", NULL } },
  { "win.refine", { "<Primary>r", NULL } },
  { "win.refine-detector", { "<Primary><Alt>r", NULL } },
  { "win.search-orientation", { "<Primary>i", NULL } },
  { "win.cancel-fit", { "Escape", NULL } },
  { "win.close-measured", { "<Primary><Alt>m", NULL } },
};

static void
braggscope_application_startup (GApplication *app)
{
  BraggscopeApplication *self = BRAGGSCOPE_APPLICATION (app);

  G_APPLICATION_CLASS (braggscope_application_parent_class)->startup (app);

  self->settings = braggscope_application_lookup_settings ();
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_entries, G_N_ELEMENTS (app_entries),
                                   app);
  for (gsize i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action,
                                           accels[i].accels);
  gtk_window_set_default_icon_name (APP_ID);
}

static void
braggscope_application_finalize (GObject *object)
{
  BraggscopeApplication *self = BRAGGSCOPE_APPLICATION (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (braggscope_application_parent_class)->finalize (object);
}

static void
braggscope_application_class_init (BraggscopeApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = braggscope_application_finalize;
  app_class->local_command_line = braggscope_application_local_command_line;
  app_class->command_line = braggscope_application_command_line;
  app_class->activate = braggscope_application_activate;
  app_class->startup = braggscope_application_startup;

  braggscope_ui_register_resource ();
}

static void
braggscope_application_init (BraggscopeApplication *self)
{
}

BraggscopeApplication *
braggscope_application_new (GApplicationFlags flags)
{
  return g_object_new (BRAGGSCOPE_TYPE_APPLICATION, "application-id", APP_ID, "flags",
                       flags | G_APPLICATION_HANDLES_COMMAND_LINE, "resource-base-path",
                       "/io/github/braggscope/Braggscope", NULL);
}
