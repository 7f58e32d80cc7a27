/* mtz-fixtures.h: the 1HPV MTZ file ($NB_DATA_DIR/1hpv_fcalc.mtz, P 61,
 * little-endian, five columns H K L FC PHIC), whole or cut to its first
 * reflections, and damaged copies of it: for the MTZ reader's tests
 * (tests/test-mtz.c) and the bad-input tables of the CLI and the plugin.
 *
 * Cutting keeps the header records and makes NCOL and the header pointer
 * agree with the reflections kept, so the cut file is a valid MTZ file. */
#pragma once

#include <glib.h>
#include <string.h>

#define MTZ_FIXTURE_RECORD 80

typedef struct
{
  guint8 *data;
  gsize size;
  gsize header;  /* the offset of the first header record */
  gsize records; /* header records up to and including END */
} MtzFixture;

static inline guint32
mtz_fixture_word (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static inline void
mtz_fixture_set_word (guint8 *p, guint32 v)
{
  for (int b = 0; b < 4; b++)
    p[b] = (guint8) (v >> (8 * b));
}

/* mtz_fixture_record: the offset of the first header record of @m whose text
 * starts with @key, at or after record @from (0-based); 0 when none. */
static inline gsize
mtz_fixture_record (const MtzFixture *m, const char *key, gsize from)
{
  for (gsize r = from; r < m->records; r++)
    {
      gsize at = m->header + r * MTZ_FIXTURE_RECORD;

      if (memcmp (m->data + at, key, strlen (key)) == 0)
        return at;
    }
  return 0;
}

/* mtz_fixture_load: the 1HPV file, cut to its first @nref reflections when
 * @nref >= 0.  Free with mtz_fixture_clear(). */
static inline void
mtz_fixture_load (MtzFixture *m, long nref)
{
  const char *dir = g_getenv ("NB_DATA_DIR");
  g_autofree char *path = g_build_filename (dir != NULL ? dir : "data", "1hpv_fcalc.mtz", NULL);
  g_autoptr (GError) error = NULL;
  char *contents = NULL;
  gsize ncol = 5, nref_all;

  g_assert_true (g_file_get_contents (path, &contents, &m->size, &error));
  g_assert_no_error (error);
  m->data = (guint8 *) contents;
  m->header = (mtz_fixture_word (m->data + 4) - 1) * 4;
  g_assert_cmpuint (m->header, <, m->size);
  nref_all = (m->header - 80) / 4 / ncol;
  for (m->records = 0; memcmp (m->data + m->header + m->records * MTZ_FIXTURE_RECORD, "END ", 4);)
    m->records++;
  m->records++;

  if (nref >= 0 && (gsize) nref < nref_all)
    {
      gsize data_bytes = (gsize) nref * ncol * 4, tail = m->size - m->header;
      gsize ncol_at;
      char line[MTZ_FIXTURE_RECORD + 1];

      memmove (m->data + 80 + data_bytes, m->data + m->header, tail);
      m->header = 80 + data_bytes;
      m->size = m->header + tail;
      mtz_fixture_set_word (m->data + 4, (guint32) (m->header / 4 + 1));
      ncol_at = mtz_fixture_record (m, "NCOL", 0);
      g_assert_cmpuint (ncol_at, >, 0);
      g_snprintf (line, sizeof line, "NCOL %8zu %12ld %8d%-*s", ncol, nref, 0, 80, "");
      memcpy (m->data + ncol_at, line, MTZ_FIXTURE_RECORD);
    }
}

static inline void
mtz_fixture_clear (MtzFixture *m)
{
  g_free (m->data);
  memset (m, 0, sizeof *m);
}

/* mtz_fixture_set_symmetry: replaces the SYMINF and SYMM records of @m by
 * @syminf (the whole record) and @n records "SYMM @ops[i]", where SYMINF was. */
static inline void
mtz_fixture_set_symmetry (MtzFixture *m, const char *syminf, const char *const *ops, int n)
{
  gsize total = (m->size - m->header) / MTZ_FIXTURE_RECORD;
  GByteArray *out = g_byte_array_new ();
  char line[MTZ_FIXTURE_RECORD + 1];

  g_byte_array_append (out, m->data, (guint) m->header);
  for (gsize r = 0; r < total; r++)
    {
      const guint8 *rec = m->data + m->header + r * MTZ_FIXTURE_RECORD;

      if (r < m->records && memcmp (rec, "SYMINF", 6) == 0)
        {
          g_snprintf (line, sizeof line, "%-80s", syminf);
          g_byte_array_append (out, (const guint8 *) line, MTZ_FIXTURE_RECORD);
          for (int i = 0; i < n; i++)
            {
              g_autofree char *op = g_strconcat ("SYMM ", ops[i], NULL);

              g_snprintf (line, sizeof line, "%-80s", op);
              g_byte_array_append (out, (const guint8 *) line, MTZ_FIXTURE_RECORD);
            }
        }
      else if (!(r < m->records && memcmp (rec, "SYMM ", 5) == 0))
        g_byte_array_append (out, rec, MTZ_FIXTURE_RECORD);
    }
  g_free (m->data);
  m->size = out->len;
  m->data = g_byte_array_free (out, FALSE);
  for (m->records = 0; memcmp (m->data + m->header + m->records * MTZ_FIXTURE_RECORD, "END ", 4);)
    m->records++;
  m->records++;
}

/* mtz_fixture_write_damaged: the 1HPV file cut to @nref reflections (all when
 * negative) with one damage of those that crashed or hung libccp4's reader
 * (issue 18), written to @path: "end-record" (one byte of END changed),
 * "symm-record" (one byte of a SYMM operator changed), "header-pointer" (one
 * word more) or "truncated" (cut inside the reflections). */
static inline void
mtz_fixture_write_damaged (const char *path, const char *damage, long nref)
{
  g_autoptr (GError) error = NULL;
  MtzFixture m;
  gsize size;

  mtz_fixture_load (&m, nref);
  size = m.size;
  if (g_str_equal (damage, "end-record"))
    m.data[m.header + (m.records - 1) * MTZ_FIXTURE_RECORD + 1] = 'M';
  else if (g_str_equal (damage, "symm-record"))
    m.data[mtz_fixture_record (&m, "SYMM", 0) + 9] = 'Y'; /* X,Y,Z: X,Y,Y */
  else if (g_str_equal (damage, "header-pointer"))
    mtz_fixture_set_word (m.data + 4, mtz_fixture_word (m.data + 4) + 1);
  else if (g_str_equal (damage, "truncated"))
    size = m.header / 2;
  else
    g_assert_not_reached ();
  g_assert_true (g_file_set_contents (path, (const char *) m.data, (gssize) size, &error));
  g_assert_no_error (error);
  mtz_fixture_clear (&m);
}
