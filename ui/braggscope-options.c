/* braggscope-options.c: the viewer's command line (see braggscope-options.h).
 *
 * GOptionContext is not used: it would read nanoBragg's "-hkl" as the short
 * options -h -k -l.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-options.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

void
braggscope_options_clear (BraggscopeOptions *opts)
{
  g_clear_pointer (&opts->snapshot, g_free);
  g_clear_pointer (&opts->colormap, g_free);
  g_clear_pointer (&opts->scale, g_free);
  g_clear_pointer (&opts->view, g_free);
  g_clear_pointer (&opts->ring_resolutions, g_free);
  g_clear_pointer (&opts->lesson, g_free);
  g_clear_pointer (&opts->compare, g_strfreev);
  g_clear_pointer (&opts->compare_mode, g_free);
  g_clear_pointer (&opts->measured, g_free);
  g_clear_pointer (&opts->nb_args, g_strfreev);
  memset (opts, 0, sizeof *opts);
}

/* The value of option @name: the text after "=" in @arg, or the next argument. */
static const char *
option_value (
    const char *name, const char *arg, int argc, const char *const *argv, int *i, GError **error)
{
  const char *eq = strchr (arg, '=');

  if (eq != NULL)
    return eq + 1;
  if (*i + 1 >= argc)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _ ("%s: missing value"), name);
      return NULL;
    }
  *i += 1;
  return argv[*i];
}

/* Whether @arg is the option @name, alone or as "name=value". */
static gboolean
is_option (const char *arg, const char *name)
{
  size_t n = strlen (name);

  return strncmp (arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static gboolean
check_choice (const char *name, const char *value, const char *const *choices, GError **error)
{
  g_autofree char *list = NULL;

  if (g_strv_contains (choices, value))
    return TRUE;
  list = g_strjoinv (", ", (char **) choices);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _ ("%s: unknown value '%s' (one of %s)"), name, value, list);
  return FALSE;
}

/* "3, 2.5 2": one to six positive numbers. */
static gboolean
resolutions_valid (const char *text)
{
  g_auto (GStrv) words = g_strsplit_set (text, " ,;\t", -1);
  int n = 0;

  for (int i = 0; words[i] != NULL; i++)
    {
      char *end = NULL;
      double v;

      if (*words[i] == '\0')
        continue;
      v = g_ascii_strtod (words[i], &end);
      if (end == words[i] || *end != '\0' || !(v > 0.0) || !isfinite (v))
        return FALSE;
      n++;
    }
  return n >= 1 && n <= 6;
}

typedef enum
{
  OPTION_UNKNOWN,
  OPTION_TAKEN,
  OPTION_FAILED,
} OptionResult;

/* The options of the teaching views and of Compare, all display options:
 * parses @arg (and its value, moving *@i on) when it is one of them. */
static OptionResult
parse_view_option (BraggscopeOptions *opts,
                   const char *arg,
                   int argc,
                   const char *const *argv,
                   int *i,
                   GError **error)
{
  static const char *const views[] = { "detector", "reciprocal", "both", NULL };
  static const char *const compare_modes[] = { "side-by-side", "blink", "overlay", "difference",
                                               NULL };
  const char *value;

  if (strcmp (arg, "--labels") == 0 || strcmp (arg, "--no-labels") == 0)
    {
      opts->labels = arg[2] != 'n';
      return OPTION_TAKEN;
    }
  else if (is_option (arg, "--view"))
    {
      if ((value = option_value ("--view", arg, argc, argv, i, error)) == NULL ||
          !check_choice ("--view", value, views, error))
        return OPTION_FAILED;
      g_free (opts->view);
      opts->view = g_strdup (value);
      return OPTION_TAKEN;
    }
  else if (is_option (arg, "--rings-at"))
    {
      if ((value = option_value ("--rings-at", arg, argc, argv, i, error)) == NULL)
        return OPTION_FAILED;
      if (!resolutions_valid (value))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _ ("%s: not a list of up to six resolutions in Å: '%s'"), "--rings-at",
                       value);
          return OPTION_FAILED;
        }
      g_free (opts->ring_resolutions);
      opts->ring_resolutions = g_strdup (value);
      return OPTION_TAKEN;
    }
  else if (is_option (arg, "--compare"))
    {
      g_autoptr (GError) shell_error = NULL;
      char **flags = NULL;

      if ((value = option_value ("--compare", arg, argc, argv, i, error)) == NULL)
        return OPTION_FAILED;
      if (!g_shell_parse_argv (value, NULL, &flags, &shell_error))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _ ("%s: not a list of nanoBragg flags: '%s' (%s)"), "--compare", value,
                       shell_error->message);
          return OPTION_FAILED;
        }
      g_strfreev (opts->compare);
      opts->compare = flags;
      return OPTION_TAKEN;
    }
  else if (is_option (arg, "--measured"))
    {
      if ((value = option_value ("--measured", arg, argc, argv, i, error)) == NULL)
        return OPTION_FAILED;
      g_free (opts->measured);
      opts->measured = g_strdup (value);
      return OPTION_TAKEN;
    }
  else if (is_option (arg, "--compare-mode"))
    {
      if ((value = option_value ("--compare-mode", arg, argc, argv, i, error)) == NULL ||
          !check_choice ("--compare-mode", value, compare_modes, error))
        return OPTION_FAILED;
      g_free (opts->compare_mode);
      opts->compare_mode = g_strdup (value);
      return OPTION_TAKEN;
    }
  return OPTION_UNKNOWN;
}

gboolean
braggscope_options_parse (BraggscopeOptions *opts,
                          int argc,
                          const char *const *argv,
                          GError **error)
{
  static const char *const colormaps[] = {
    "grey", "inverted-grey", "viridis", "magma", "heat", NULL
  };
  static const char *const scales[] = { "linear", "log", "gamma", NULL };
  g_autoptr (GPtrArray) rest = g_ptr_array_new_null_terminated (argc, g_free, TRUE);
  gboolean display_option = FALSE;
  OptionResult taken;

  opts->gamma = 0.0;
  opts->show_rings = -1;
  opts->show_beam_center = -1;
  opts->labels = -1;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const char *value;

      if (strcmp (arg, "--") == 0)
        {
          for (i++; i < argc; i++)
            g_ptr_array_add (rest, g_strdup (argv[i]));
          break;
        }
      if (strncmp (arg, "--", 2) != 0)
        {
          g_ptr_array_add (rest, g_strdup (arg));
          continue;
        }

      if (strcmp (arg, "--help") == 0)
        opts->help = TRUE;
      else if (strcmp (arg, "--version") == 0)
        opts->version = TRUE;
      else if (is_option (arg, "--snapshot"))
        {
          if ((value = option_value ("--snapshot", arg, argc, argv, &i, error)) == NULL)
            return FALSE;
          if (*value == '\0')
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _ ("%s: empty file name"), "--snapshot");
              return FALSE;
            }
          g_free (opts->snapshot);
          opts->snapshot = g_strdup (value);
        }
      else if (is_option (arg, "--colormap"))
        {
          if ((value = option_value ("--colormap", arg, argc, argv, &i, error)) == NULL ||
              !check_choice ("--colormap", value, colormaps, error))
            return FALSE;
          g_free (opts->colormap);
          opts->colormap = g_strdup (value);
          display_option = TRUE;
        }
      else if (is_option (arg, "--scale"))
        {
          if ((value = option_value ("--scale", arg, argc, argv, &i, error)) == NULL ||
              !check_choice ("--scale", value, scales, error))
            return FALSE;
          g_free (opts->scale);
          opts->scale = g_strdup (value);
          display_option = TRUE;
        }
      else if (is_option (arg, "--gamma"))
        {
          char *end = NULL;
          double g;

          if ((value = option_value ("--gamma", arg, argc, argv, &i, error)) == NULL)
            return FALSE;
          g = g_ascii_strtod (value, &end);
          if (end == value || *end != '\0' || !isfinite (g) || g < 0.1 || g > 10.0)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _ ("%s: not a number from 0.1 to 10: '%s'"), "--gamma", value);
              return FALSE;
            }
          opts->gamma = g;
          display_option = TRUE;
        }
      else if (strcmp (arg, "--rings") == 0 || strcmp (arg, "--no-rings") == 0)
        {
          opts->show_rings = arg[2] != 'n';
          display_option = TRUE;
        }
      else if (strcmp (arg, "--beam-center") == 0 || strcmp (arg, "--no-beam-center") == 0)
        {
          opts->show_beam_center = arg[2] != 'n';
          display_option = TRUE;
        }
      else if ((taken = parse_view_option (opts, arg, argc, argv, &i, error)) != OPTION_UNKNOWN)
        {
          if (taken == OPTION_FAILED)
            return FALSE;
          display_option = TRUE;
        }
      else if (is_option (arg, "--detector"))
        {
          /* nanoBragg's -detector, the viewer's spelling */
          if ((value = option_value ("--detector", arg, argc, argv, &i, error)) == NULL)
            return FALSE;
          g_ptr_array_add (rest, g_strdup ("-detector"));
          g_ptr_array_add (rest, g_strdup (value));
        }
      else if (is_option (arg, "--lesson"))
        {
          if ((value = option_value ("--lesson", arg, argc, argv, &i, error)) == NULL)
            return FALSE;
          g_free (opts->lesson);
          opts->lesson = g_strdup (value);
        }
      else
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION,
                       _ ("unknown option '%s' (see braggscope --help)"), arg);
          return FALSE;
        }
    }

  if (opts->compare_mode != NULL && opts->compare == NULL && opts->measured == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _ ("%s needs %s: what to compare with"), "--compare-mode",
                   "--compare / --measured");
      return FALSE;
    }
  if (opts->compare != NULL && opts->measured != NULL)
    {
      /* Translators: the two options, which each give the one reference. */
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _ ("%s and %s: one of them, there is one reference to compare with"),
                   "--compare", "--measured");
      return FALSE;
    }
  if (display_option && opts->snapshot == NULL && !opts->help && !opts->version)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _ ("the display options need --snapshot (the window has its own controls)"));
      return FALSE;
    }

  opts->nb_args = (char **) g_ptr_array_steal (rest, NULL);
  return TRUE;
}

char *
braggscope_options_help (void)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "%s\n  braggscope [%s] [--] [%s]\n\n", _ ("Usage:"), _ ("OPTION…"),
                          _ ("nanoBragg flags"));
  g_string_append (s, _ ("Shows a live X-ray diffraction pattern, starting from the default scene\n"
                         "(HIV-1 protease, PDB 1HPV) with the given nanoBragg flags applied, for\n"
                         "example: braggscope -lambda 1.2 -misset 10 20 30 -distance 150"));
  g_string_append (s, "\n\n");
  g_string_append_printf (s, "%s\n", _ ("Options:"));
  g_string_append_printf (s, "  --snapshot FILE.png   %s\n",
                          _ ("write the picture the window would show to a PNG, with the "
                             "parameters in its text chunks, and exit (needs no display)"));
  g_string_append_printf (s, "  --colormap NAME       %s\n",
                          _ ("with --snapshot: grey, inverted-grey, viridis, magma or heat"));
  g_string_append_printf (s, "  --scale NAME          %s\n",
                          _ ("with --snapshot: linear, log or gamma"));
  g_string_append_printf (s, "  --gamma G             %s\n",
                          _ ("with --snapshot: exponent of the gamma scale (0.1 to 10)"));
  g_string_append_printf (s, "  --no-rings            %s\n",
                          _ ("with --snapshot: leave out the resolution rings"));
  g_string_append_printf (s, "  --no-beam-center      %s\n",
                          _ ("with --snapshot: leave out the beam centre"));
  g_string_append_printf (s, "  --view NAME           %s\n",
                          _ ("with --snapshot: detector, reciprocal (the Ewald sphere and the "
                             "reciprocal lattice) or both side by side"));
  g_string_append_printf (s, "  --labels              %s\n",
                          _ ("with --snapshot: label the brightest spots with h k l"));
  g_string_append_printf (s, "  --rings-at LIST       %s\n",
                          _ ("with --snapshot: rings at these resolutions in Å (\"3 2.5\")"));
  g_string_append_printf (s, "  --compare \"FLAGS\"     %s\n",
                          _ ("with --snapshot: compare the scene (A) with the scene and these "
                             "nanoBragg flags (B), as the window's Compare does"));
  g_string_append_printf (s, "  --measured FRAME      %s\n",
                          _ ("with --snapshot: compare the scene with a measured frame (SMV, "
                             "CBF or NeXus) whose header's geometry it takes first (nanoBragg "
                             "flags apply on top; an NXmx frame of several modules brings them "
                             "as the detector's panels, and with --detector only the beam is "
                             "taken), and print the match score"));
  g_string_append_printf (s, "  --compare-mode MODE   %s\n",
                          _ ("with --compare or --measured: side-by-side (A left, B right; the "
                             "default), blink (A alone, as the b key shows it), overlay (A grey, "
                             "B orange) or difference (B minus A)"));
  g_string_append_printf (s, "  --detector FILE       %s\n",
                          _ ("a multi-panel detector (CrystFEL .geom; DIALS .expt and NeXus "
                             "NXmx where built with their readers), shown as seen from the "
                             "sample: nanoBragg's -detector FILE"));
  g_string_append_printf (s, "  --lesson NAME         %s\n",
                          _ ("start from a lesson of the Lessons menu (ewald-sphere, "
                             "wavelength, rotation, mosaicity, shape-transform, absences, "
                             "same-lattice); "
                             "nanoBragg flags apply on top"));
  g_string_append_printf (s, "  --version             %s\n", _ ("print the version and exit"));
  g_string_append_printf (s, "  --help                %s\n", _ ("print this help and exit"));
  g_string_append (s, "\n");
  g_string_append (s, _ ("Exit status: 0 on success, 1 when the scene cannot be simulated or the\n"
                         "file cannot be written, 2 for a bad option or nanoBragg flag."));
  g_string_append (s, "\n");
  return g_string_free (s, FALSE);
}
