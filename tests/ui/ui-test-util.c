/* ui-test-util.c: helpers shared by the viewer's tests.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

/* The text chunks of the PNG at @path into @text; libpng reports errors by
 * longjmp, so nothing here needs cleaning up but the two structs and the file. */
static gboolean
read_text_chunks (const char *path, GHashTable *text, GError **error)
{
  png_structp png;
  png_infop info;
  /* volatile: assigned after setjmp and freed after a longjmp */
  png_bytep volatile row = NULL;
  FILE *fp = fopen (path, "rb");

  if (fp == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: cannot reopen", path);
      return FALSE;
    }
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png)))
    {
      png_free (png, row);
      png_destroy_read_struct (&png, &info, NULL);
      fclose (fp);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: bad PNG", path);
      return FALSE;
    }
  png_init_io (png, fp);
  png_read_info (png, info);
  {
    /* Text may follow the image data: read through to the end. */
    int passes = png_set_interlace_handling (png);
    png_uint_32 rows = png_get_image_height (png, info);
    png_textp chunks = NULL;
    int n;

    png_read_update_info (png, info);
    row = png_malloc (png, png_get_rowbytes (png, info));
    for (int pass = 0; pass < passes; pass++)
      for (png_uint_32 y = 0; y < rows; y++)
        png_read_row (png, row, NULL);
    png_read_end (png, info);
    n = png_get_text (png, info, &chunks, NULL);
    for (int i = 0; i < n; i++)
      g_hash_table_replace (text, g_strdup (chunks[i].key),
                            g_strndup (chunks[i].text, chunks[i].text_length
                                                           ? chunks[i].text_length
                                                           : chunks[i].itxt_length));
  }
  png_free (png, row);
  png_destroy_read_struct (&png, &info, NULL);
  fclose (fp);
  return TRUE;
}

guint8 *
ui_test_read_png (const char *path, int *width, int *height, GHashTable **text, GError **error)
{
  png_image image = { 0 };
  g_autofree guint8 *pixels = NULL;

  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file (&image, path))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, image.message);
      return NULL;
    }
  image.format = PNG_FORMAT_RGBA;
  pixels = g_malloc (PNG_IMAGE_SIZE (image));
  if (!png_image_finish_read (&image, NULL, pixels, 0, NULL))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, image.message);
      png_image_free (&image);
      return NULL;
    }
  *width = image.width;
  *height = image.height;
  png_image_free (&image);

  if (text != NULL)
    {
      *text = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      if (!read_text_chunks (path, *text, error))
        {
          g_clear_pointer (text, g_hash_table_unref);
          return NULL;
        }
    }
  return g_steal_pointer (&pixels);
}

static gboolean
wake_up (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

gboolean
ui_test_wait (gboolean (*done) (gpointer data), gpointer data, double seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
  guint tick = g_timeout_add (10, wake_up, NULL);
  gboolean ok;

  while (!(ok = done (data)) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  return ok;
}

typedef struct
{
  char *text;
  gboolean done;
} ClipboardRead;

static void
clipboard_read (GObject *source, GAsyncResult *result, gpointer data)
{
  ClipboardRead *read = data;

  read->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  read->done = TRUE;
}

static gboolean
clipboard_done (gpointer data)
{
  return ((ClipboardRead *) data)->done;
}

char *
ui_test_clipboard_text (GtkWidget *widget, double seconds)
{
  ClipboardRead read = { NULL, FALSE };

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (widget), NULL, clipboard_read, &read);
  /* the callback holds &read: a test that times out ends here */
  g_assert_true (ui_test_wait (clipboard_done, &read, seconds));
  return read.text;
}

GtkWidget *
ui_test_find_widget (GtkWidget *root, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = ui_test_find_widget (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

GdkTexture *
ui_test_screenshot (GtkWidget *widget)
{
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr (GskRenderNode) node = NULL;

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

guint8 *
ui_test_texture_rgba (GdkTexture *texture)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  guint8 *bgra = g_malloc ((gsize) width * height * 4);

  /* gdk_texture_download gives premultiplied BGRA (cairo's ARGB32 in memory). */
  gdk_texture_download (texture, bgra, (gsize) width * 4);
  for (gsize i = 0; i < (gsize) width * height; i++)
    {
      guint8 b = bgra[4 * i];

      bgra[4 * i] = bgra[4 * i + 2];
      bgra[4 * i + 2] = b;
    }
  return bgra;
}

gsize
ui_test_count_differences (const guint8 *a, const guint8 *b, gsize n_pixels, int tolerance)
{
  gsize n = 0;

  for (gsize i = 0; i < n_pixels; i++)
    for (int c = 0; c < 4; c++)
      if (abs ((int) a[4 * i + c] - (int) b[4 * i + c]) > tolerance)
        {
          n++;
          break;
        }
  return n;
}

void
ui_test_remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_remove (path);
    }
  g_rmdir (dir);
}

char *
ui_test_measured_frame (const char *name, const char *dir)
{
  g_autofree char *gz_name = g_strconcat (name, ".gz", NULL);
  g_autofree char *src =
      g_test_build_filename (G_TEST_DIST, "..", "data", "measured", gz_name, NULL);
  char *dst = g_build_filename (dir, name, NULL);
  g_autoptr (GFile) in_file = g_file_new_for_path (src);
  g_autoptr (GFile) out_file = g_file_new_for_path (dst);
  g_autoptr (GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) raw = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GOutputStream) out = NULL;
  g_autoptr (GError) error = NULL;

  raw = G_INPUT_STREAM (g_file_read (in_file, NULL, &error));
  g_assert_no_error (error);
  in = g_converter_input_stream_new (raw, G_CONVERTER (gunzip));
  out = G_OUTPUT_STREAM (g_file_replace (out_file, NULL, FALSE, 0, NULL, &error));
  g_assert_no_error (error);
  g_output_stream_splice (out, in,
                          G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                          NULL, &error);
  g_assert_no_error (error);
  return dst;
}

gboolean
ui_test_full_frame_shown (gpointer window)
{
  BraggscopeSimulation *sim = braggscope_window_get_simulation (window);
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim);

  return frame != NULL && !braggscope_frame_get_is_preview (frame) &&
         braggscope_frame_get_sequence (frame) >= braggscope_simulation_get_sequence (sim) &&
         braggscope_view_get_frame (braggscope_window_get_view (window)) == frame;
}

BraggscopeFrame *
ui_test_wait_full_frame (BraggscopeWindow *window)
{
  g_assert_true (ui_test_wait (ui_test_full_frame_shown, window, 120.0));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (braggscope_window_get_view (window)));
  return braggscope_simulation_get_last_frame (braggscope_window_get_simulation (window));
}

BraggscopeWindow *
ui_test_open_window (BraggscopeApplication *app, const char *const *args, int width, int height)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  BraggscopeWindow *window;

  sim = braggscope_simulation_new_default_scene (&error);
  g_assert_no_error (error);
  g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_no_error (error);
  window = g_object_ref (braggscope_window_new (GTK_APPLICATION (app), sim,
                                                braggscope_application_get_settings (app)));
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  ui_test_wait_full_frame (window);
  return window;
}

void
ui_test_activate (BraggscopeWindow *window, const char *name, GVariant *parameter)
{
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), name));
  g_action_group_activate_action (G_ACTION_GROUP (window), name, parameter);
}
