/* braggscope-gif.c: see braggscope-gif.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-gif.h"

#include <errno.h>
#include <gif_lib.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

struct _BraggscopeGifWriter
{
  GifFileType *gif;
  char *path, *tmp;
  int width, height, delay_cs;
  guint frames;
};

static gboolean
fail (BraggscopeGifWriter *w, int code, GError **error)
{
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _ ("%s: cannot write the GIF: %s"),
               w->path, GifErrorString (code) != NULL ? GifErrorString (code) : "?");
  return FALSE;
}

BraggscopeGifWriter *
braggscope_gif_writer_new (const char *path, int width, int height, int delay_ms, GError **error)
{
  BraggscopeGifWriter *w = g_new0 (BraggscopeGifWriter, 1);
  /* NETSCAPE2.0 application extension: loop for ever */
  static const GifByteType app[] = "NETSCAPE2.0", loop[] = { 1, 0, 0 };
  int code = 0;

  w->path = g_strdup (path);
  w->tmp = g_strdup_printf ("%s.part", path);
  w->width = width;
  w->height = height;
  w->delay_cs = MAX (delay_ms / 10, 2);
  w->gif = EGifOpenFileName (w->tmp, FALSE, &code);
  if (w->gif == NULL)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   _ ("%s: cannot write the GIF: %s"), path, g_strerror (errno));
      braggscope_gif_writer_abort (w);
      return NULL;
    }
  EGifSetGifVersion (w->gif, TRUE);
  if (EGifPutScreenDesc (w->gif, width, height, 8, 0, NULL) == GIF_ERROR ||
      EGifPutExtensionLeader (w->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock (w->gif, 11, app) == GIF_ERROR ||
      EGifPutExtensionBlock (w->gif, 3, loop) == GIF_ERROR ||
      EGifPutExtensionTrailer (w->gif) == GIF_ERROR)
    {
      fail (w, w->gif->Error, error);
      braggscope_gif_writer_abort (w);
      return NULL;
    }
  return w;
}

gboolean
braggscope_gif_writer_add (BraggscopeGifWriter *w, const guint8 *rgba, GError **error)
{
  gsize n = (gsize) w->width * w->height;
  g_autofree GifByteType *red = g_malloc (n), *green = g_malloc (n), *blue = g_malloc (n);
  g_autofree GifByteType *indices = g_malloc (n);
  GifColorType colors[256];
  ColorMapObject *map;
  GraphicsControlBlock gcb = { DISPOSE_DO_NOT, FALSE, w->delay_cs, NO_TRANSPARENT_COLOR };
  GifByteType extension[4];
  int size = 256, status = GIF_OK;

  for (gsize i = 0; i < n; i++)
    {
      red[i] = rgba[4 * i];
      green[i] = rgba[4 * i + 1];
      blue[i] = rgba[4 * i + 2];
    }
  if (GifQuantizeBuffer (w->width, w->height, &size, red, green, blue, indices, colors) ==
      GIF_ERROR)
    return fail (w, E_GIF_ERR_NOT_ENOUGH_MEM, error);
  map = GifMakeMapObject (256, colors);
  if (map == NULL)
    return fail (w, E_GIF_ERR_NOT_ENOUGH_MEM, error);
  EGifGCBToExtension (&gcb, extension);
  if (EGifPutExtension (w->gif, GRAPHICS_EXT_FUNC_CODE, 4, extension) == GIF_ERROR ||
      EGifPutImageDesc (w->gif, 0, 0, w->width, w->height, FALSE, map) == GIF_ERROR)
    status = GIF_ERROR;
  for (int j = 0; j < w->height && status == GIF_OK; j++)
    status = EGifPutLine (w->gif, indices + (gsize) j * w->width, w->width);
  GifFreeMapObject (map);
  if (status == GIF_ERROR)
    return fail (w, w->gif->Error, error);
  w->frames++;
  return TRUE;
}

gboolean
braggscope_gif_writer_finish (BraggscopeGifWriter *w, GError **error)
{
  int code = 0;
  gboolean ok = TRUE;

  if (EGifCloseFile (w->gif, &code) == GIF_ERROR)
    ok = fail (w, code, error);
  w->gif = NULL;
  if (ok && g_rename (w->tmp, w->path) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   _ ("%s: cannot write the GIF: %s"), w->path, g_strerror (errno));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (w->tmp);
  g_free (w->path);
  g_free (w->tmp);
  g_free (w);
  return ok;
}

void
braggscope_gif_writer_abort (BraggscopeGifWriter *w)
{
  if (w == NULL)
    return;
  if (w->gif != NULL)
    EGifCloseFile (w->gif, NULL);
  g_unlink (w->tmp);
  g_free (w->path);
  g_free (w->tmp);
  g_free (w);
}
