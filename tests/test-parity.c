/* test-parity.c: the golden parity suite.
 *
 * Runs every case of $NB_GOLDEN_DIR/cases.tsv through the CLI named by $NB_CLI and compares
 * its -floatfile (and SMV files, where the case writes them) with the reference's outputs,
 * exactly as ../shared/tools/parity.py does, so the two never disagree on a verdict.
 *
 * Environment:
 *   NB_GOLDEN_DIR        folder holding cases.tsv, NAME.float, NAME.img, inputs/ (required)
 *   NB_CLI               the nanoBragg-compatible CLI, a path or a name on PATH (required)
 *   NB_PARITY_EXTRA      extra CLI arguments appended to every run ("-precision single")
 *   NB_PARITY_CORR       minimum correlation, overrides PARITY_MIN_CORR
 *   NB_PARITY_REL        maximum |diff| / max|ref|, overrides PARITY_MAX_REL
 *   NB_PARITY_SUM        maximum |sum ratio - 1|, overrides PARITY_MAX_SUM_DEV
 *   NB_PARITY_TIMEOUT    seconds one run may take, overrides PARITY_TIMEOUT_S
 *
 * A missing golden folder is a failure, never a skip: a parity suite that quietly tests
 * nothing looks exactly like one that passes.
 */

#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nb-test-util.h"

/* The parity rules of golden/README.md ("What parity means"); tools/parity.py uses the same
 * numbers.  Change them there first. */
#define PARITY_MIN_CORR     0.99999 /* Pearson correlation with the reference image */
#define PARITY_MAX_REL      1e-3    /* max |got - ref| / max |ref| */
#define PARITY_MAX_SUM_DEV  1e-3    /* |sum(got) / sum(ref) - 1| */
#define PARITY_MIN_SMV_SAME 0.999   /* fraction of identical uint16 pixels in SMV files */
#define PARITY_TIMEOUT_S    120     /* seconds one CLI run may take (parity.py --timeout) */

typedef struct
{
  char *name;
  char *args;
} ParityCase;

static struct
{
  char *golden_dir; /* absolute */
  char *cli;        /* absolute when it names a path, else looked up on PATH */
  char **extra;     /* NULL-terminated, possibly empty */
  double min_corr;
  double max_rel;
  double max_sum_dev;
  guint timeout_s;

  guint n_run;
  guint n_pass;
  double worst_corr; /* over the cases that got as far as the figures, as parity.py */
  gboolean have_worst;
} parity;

static void case_fail (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
case_fail (const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);

#if GLIB_CHECK_VERSION(2, 70, 0)
  g_test_fail_printf ("%s", msg);
#else
  g_test_message ("FAIL %s", msg);
  g_test_fail ();
#endif
}

static void
parity_case_free (gpointer data)
{
  ParityCase *pc = data;

  g_free (pc->name);
  g_free (pc->args);
  g_free (pc);
}

/* ------------------------------------------------------------------------------------------ */
/* Files */

/* Reads raw little-endian float32 into doubles (np.fromfile(dtype="<f4")). */
static double *
read_float_image (const char *path, gsize *n_out, GError **error)
{
  g_autofree char *raw = NULL;
  gsize len = 0;
  gsize n;
  double *values;

  if (!g_file_get_contents (path, &raw, &len, error))
    return NULL;

  n = len / sizeof (guint32);
  values = g_new (double, MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    {
      guint32 bits;
      float f;

      memcpy (&bits, raw + i * sizeof bits, sizeof bits);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&f, &bits, sizeof f);
      values[i] = f;
    }
  *n_out = n;
  return values;
}

typedef struct
{
  GPtrArray *keys;     /* header keys in file order, as parity.py's dict */
  GHashTable *key_set; /* the same keys, for lookup */
  guint16 *pixels;
  gsize n_pixels;
} SmvImage;

static void
smv_image_clear (SmvImage *img)
{
  g_clear_pointer (&img->keys, g_ptr_array_unref);
  g_clear_pointer (&img->key_set, g_hash_table_unref);
  g_clear_pointer (&img->pixels, g_free);
}

/* parity.py's read_smv: the first 512 bytes up to '}', '{' and newlines dropped, split at
 * ';', a key is what precedes the first '=' of a piece that has one.  Keys are not trimmed
 * (a header line without its ';' swallows the next key, in both implementations). */
static gboolean
read_smv (const char *path, SmvImage *img, GError **error)
{
  g_autofree char *raw = NULL;
  g_autoptr (GString) head = g_string_new (NULL);
  gsize len = 0;
  gsize start = 0;
  gint64 header_bytes = 512;

  if (!g_file_get_contents (path, &raw, &len, error))
    return FALSE;

  for (gsize i = 0; i < MIN (len, 512) && raw[i] != '}'; i++)
    if (raw[i] != '{' && raw[i] != '\n')
      g_string_append_c (head, raw[i]);

  img->keys = g_ptr_array_new_with_free_func (g_free);
  img->key_set = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i <= head->len; i++)
    {
      const char *piece;
      const char *eq;
      char *key;

      if (i < head->len && head->str[i] != ';')
        continue;
      piece = head->str + start;
      eq = memchr (piece, '=', i - start);
      if (eq != NULL)
        {
          key = g_strndup (piece, eq - piece);
          if (g_hash_table_add (img->key_set, key))
            g_ptr_array_add (img->keys, key);
          else
            g_free (key);

          if (strcmp (key, "HEADER_BYTES") == 0)
            {
              g_autofree char *value = g_strndup (eq + 1, head->str + i - (eq + 1));
              char *end = NULL;

              header_bytes = g_ascii_strtoll (g_strstrip (value), &end, 10);
              if (end == value || *end != '\0' || header_bytes < 0)
                {
                  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: bad HEADER_BYTES",
                               path);
                  return FALSE;
                }
            }
        }
      start = i + 1;
    }

  if ((guint64) header_bytes >= len)
    {
      img->n_pixels = 0;
      img->pixels = g_new (guint16, 1);
      return TRUE;
    }
  if ((len - header_bytes) % 2 != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: odd number of pixel bytes", path);
      return FALSE;
    }

  img->n_pixels = (len - header_bytes) / 2;
  img->pixels = g_new (guint16, img->n_pixels);
  for (gsize i = 0; i < img->n_pixels; i++)
    {
      guint16 v;

      memcpy (&v, raw + header_bytes + 2 * i, sizeof v);
      img->pixels[i] = GUINT16_FROM_LE (v);
    }
  return TRUE;
}

/* Same header keys, same size, enough identical pixels: NULL, or what is wrong. */
static char *
compare_smv (const char *ref_path, const char *got_path)
{
  g_autofree char *base = g_path_get_basename (ref_path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) missing = NULL;
  SmvImage ref = { 0 }, got = { 0 };
  char *problem = NULL;
  guint n_missing = 0;
  gsize n_same = 0;
  double same;

  if (!g_file_test (got_path, G_FILE_TEST_EXISTS))
    return g_strdup_printf ("missing %s", base);
  if (!read_smv (ref_path, &ref, &error) || !read_smv (got_path, &got, &error))
    {
      problem = g_strdup (error->message);
      goto out;
    }

  missing = g_string_new (NULL);
  for (guint i = 0; i < ref.keys->len; i++)
    {
      const char *key = g_ptr_array_index (ref.keys, i);

      if (g_hash_table_contains (got.key_set, key))
        continue;
      if (n_missing++ < 4)
        g_string_append_printf (missing, "%s'%s'", n_missing > 1 ? ", " : "", key);
    }
  if (n_missing > 0)
    {
      problem = g_strdup_printf ("%s header lacks [%s]", base, missing->str);
      goto out;
    }
  if (ref.n_pixels != got.n_pixels)
    {
      problem = g_strdup_printf ("%s size differs", base);
      goto out;
    }

  for (gsize i = 0; i < ref.n_pixels; i++)
    n_same += ref.pixels[i] == got.pixels[i];
  same = ref.n_pixels > 0 ? (double) n_same / (double) ref.n_pixels : NAN;
  if (!(same >= PARITY_MIN_SMV_SAME))
    problem = g_strdup_printf ("%s only %.4f of pixels identical", base, same);

out:
  smv_image_clear (&ref);
  smv_image_clear (&got);
  return problem;
}

/* ------------------------------------------------------------------------------------------ */
/* Figures, in double as numpy computes them */

/* np.corrcoef(got, ref)[0, 1], with parity.py's rule for a flat reference: 1 when the image
 * matches it (np.allclose), NaN (a failure) otherwise. */
static double
correlation (const double *got, const double *ref, gsize n)
{
  double mean_g = 0.0, mean_r = 0.0;
  double cov = 0.0, var_g = 0.0, var_r = 0.0;
  double r;

  for (gsize i = 0; i < n; i++)
    {
      mean_g += got[i];
      mean_r += ref[i];
    }
  mean_g /= (double) n;
  mean_r /= (double) n;

  for (gsize i = 0; i < n; i++)
    {
      double dg = got[i] - mean_g;
      double dr = ref[i] - mean_r;

      cov += dg * dr;
      var_g += dg * dg;
      var_r += dr * dr;
    }

  if (var_r == 0.0)
    {
      gboolean close = TRUE;

      for (gsize i = 0; i < n && close; i++)
        close = fabs (got[i] - ref[i]) <= 1e-8 + 1e-5 * fabs (ref[i]);
      if (close)
        return 1.0;
    }

  r = cov / sqrt (var_g * var_r);
  return isnan (r) ? r : CLAMP (r, -1.0, 1.0);
}

/* ------------------------------------------------------------------------------------------ */
/* Running the CLI */

static void
child_setup (gpointer user_data)
{
  /* An alarm survives exec: the CLI is killed by SIGALRM once the time is up. */
  signal (SIGALRM, SIG_DFL);
  alarm (GPOINTER_TO_UINT (user_data));
}

static char *
replace_all (const char *text, const char *find, const char *replacement)
{
  GString *s = g_string_new (text);

  g_string_replace (s, find, replacement, 0);
  return g_string_free (s, FALSE);
}

/* The last line parity.py shows for a failed run: stderr's, or stdout's when stderr is empty. */
static char *
last_output_line (const char *out, const char *err)
{
  g_autofree char *err_text = g_strstrip (g_strdup (err != NULL ? err : ""));
  g_autofree char *out_text = g_strstrip (g_strdup (out != NULL ? out : ""));
  const char *text = *err_text != '\0' ? err_text : out_text;
  const char *nl = strrchr (text, '\n');

  if (*text == '\0')
    return g_strdup ("no output");
  return g_strndup (nl != NULL ? nl + 1 : text, 120);
}

static char **
build_argv (const ParityCase *pc, GError **error)
{
  g_autofree char *prefix = g_strconcat (pc->name, ".", NULL);
  g_autofree char *renamed = replace_all (pc->args, prefix, "out.");
  g_autofree char **case_argv = NULL; /* the strings move into argv */
  GPtrArray *argv;

  if (!g_shell_parse_argv (renamed, NULL, &case_argv, error))
    return NULL;

  argv = g_ptr_array_new ();
  g_ptr_array_add (argv, g_strdup (parity.cli));
  for (char **a = case_argv; *a != NULL; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, g_strdup ("-floatfile"));
  g_ptr_array_add (argv, g_strdup ("out.float"));
  g_ptr_array_add (argv, g_strdup ("-nopgm"));
  g_ptr_array_add (argv, g_strdup ("-noprogress"));
  if (strstr (pc->args, "-noisefile") == NULL)
    g_ptr_array_add (argv, g_strdup ("-nonoise"));
  for (char **a = parity.extra; *a != NULL; a++)
    g_ptr_array_add (argv, g_strdup (*a));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* Runs one case in its own folder and judges it; the folder is the caller's to remove. */
static void
run_case (const ParityCase *pc, const char *tmp)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *ref_path =
      g_strconcat (parity.golden_dir, G_DIR_SEPARATOR_S, pc->name, ".float", NULL);
  g_autofree char *inputs = g_build_filename (parity.golden_dir, "inputs", NULL);
  g_autofree char *link = g_build_filename (tmp, "inputs", NULL);
  g_autofree char *out_path = g_build_filename (tmp, "out.float", NULL);
  g_autofree char *prefix = g_strconcat (pc->name, ".", NULL);
  g_autofree char *named = replace_all (pc->args, prefix, "NAME.");
  g_autofree char *out_text = NULL;
  g_autofree char *err_text = NULL;
  g_autofree double *ref = NULL;
  g_autofree double *got = NULL;
  g_autoptr (GString) problems = g_string_new (NULL);
  g_auto (GStrv) argv = NULL;
  static const char *const smv_exts[] = { ".img", ".noise.img" };
  GSpawnFlags flags = 0;
  gsize n_ref = 0, n_got = 0;
  int wait_status = 0;
  gint64 t0;
  double seconds;
  double corr, rel, sum_ratio;
  double max_ref = 0.0, max_diff = 0.0, sum_got = 0.0, sum_ref = 0.0;
  gboolean ok;

  ref = read_float_image (ref_path, &n_ref, &error);
  if (ref == NULL)
    {
      case_fail ("%s: no reference image: %s", pc->name, error->message);
      return;
    }

  if (symlink (inputs, link) != 0)
    {
      case_fail ("%s: cannot link %s: %s", pc->name, link, g_strerror (errno));
      return;
    }

  argv = build_argv (pc, &error);
  if (argv == NULL)
    {
      case_fail ("%s: cannot split the arguments: %s", pc->name, error->message);
      return;
    }
  if (strchr (parity.cli, G_DIR_SEPARATOR) == NULL)
    flags |= G_SPAWN_SEARCH_PATH;

  t0 = g_get_monotonic_time ();
  if (!g_spawn_sync (tmp, argv, NULL, flags, child_setup, GUINT_TO_POINTER (parity.timeout_s),
                     &out_text, &err_text, &wait_status, &error))
    {
      case_fail ("%s: cannot run %s: %s", pc->name, parity.cli, error->message);
      return;
    }
  seconds = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;

  if (WIFSIGNALED (wait_status) && WTERMSIG (wait_status) == SIGALRM)
    {
      case_fail ("%s timeout (%u s)", pc->name, parity.timeout_s);
      return;
    }
  if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0 ||
      !g_file_test (out_path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *line = last_output_line (out_text, err_text);
      int rc = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -WTERMSIG (wait_status);

      case_fail ("%s rc=%d %s", pc->name, rc, line);
      return;
    }

  got = read_float_image (out_path, &n_got, &error);
  if (got == NULL)
    {
      case_fail ("%s: cannot read out.float: %s", pc->name, error->message);
      return;
    }

  for (guint e = 0; e < G_N_ELEMENTS (smv_exts); e++)
    {
      g_autofree char *ref_smv =
          g_strconcat (parity.golden_dir, G_DIR_SEPARATOR_S, pc->name, smv_exts[e], NULL);
      g_autofree char *got_smv = g_strconcat (tmp, G_DIR_SEPARATOR_S "out", smv_exts[e], NULL);
      g_autofree char *wanted = g_strconcat ("NAME", smv_exts[e], NULL);
      g_autofree char *problem = NULL;

      if (!g_file_test (ref_smv, G_FILE_TEST_EXISTS) || strstr (named, wanted) == NULL)
        continue;
      problem = compare_smv (ref_smv, got_smv);
      if (problem != NULL)
        g_string_append_printf (problems, " %s", problem);
    }

  if (n_got != n_ref)
    {
      case_fail ("%s size %" G_GSIZE_FORMAT " != %" G_GSIZE_FORMAT, pc->name, n_got, n_ref);
      return;
    }
  for (gsize i = 0; i < n_got; i++)
    {
      if (!isfinite (got[i]))
        {
          case_fail ("%s non-finite values", pc->name);
          return;
        }
    }

  for (gsize i = 0; i < n_ref; i++)
    {
      max_ref = MAX (max_ref, fabs (ref[i]));
      max_diff = MAX (max_diff, fabs (got[i] - ref[i]));
      sum_got += got[i];
      sum_ref += ref[i];
    }
  corr = n_ref > 0 ? correlation (got, ref, n_ref) : NAN;
  rel = max_diff / MAX (max_ref, 1e-300);
  sum_ratio = sum_ref != 0.0 ? sum_got / sum_ref : NAN;

  ok = corr >= parity.min_corr && rel <= parity.max_rel &&
       fabs (sum_ratio - 1.0) <= parity.max_sum_dev && problems->len == 0;

  if (!parity.have_worst ||
      (!isnan (parity.worst_corr) && (isnan (corr) || corr < parity.worst_corr)))
    parity.worst_corr = corr;
  parity.have_worst = TRUE;

  g_test_message ("%-32s %s corr=%.7f maxrel=%.2e sum=%.6f %.2fs%s", pc->name, ok ? "ok  " : "FAIL",
                  corr, rel, sum_ratio, seconds, problems->str);
  if (!ok)
    {
      case_fail ("%s: corr %.7f (>= %g), maxrel %.2e (<= %g), sum %.6f (within %g)%s", pc->name,
                 corr, parity.min_corr, rel, parity.max_rel, sum_ratio, parity.max_sum_dev,
                 problems->str);
      return;
    }
  parity.n_pass++;
}

static void
test_parity_case (gconstpointer data)
{
  const ParityCase *pc = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("nb-parity-XXXXXX", &error);

  parity.n_run++;
  if (tmp == NULL)
    {
      case_fail ("%s: no temporary folder: %s", pc->name, error->message);
      return;
    }
  run_case (pc, tmp);
  nb_test_remove_tree (tmp); /* not following inputs/, a link */
}

/* ------------------------------------------------------------------------------------------ */
/* Set-up */

static void
test_setup_failed (gconstpointer data)
{
  g_printerr ("test-parity: %s\n", (const char *) data);
  case_fail ("%s", (const char *) data);
}

static gboolean
env_double (const char *name, double *value, GError **error)
{
  const char *text = g_getenv (name);
  char *end = NULL;
  double v;

  if (text == NULL || *text == '\0')
    return TRUE;
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v) || v < 0.0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s=\"%s\" is not a non-negative number", name, text);
      return FALSE;
    }
  *value = v;
  return TRUE;
}

static gboolean
configure (GError **error)
{
  const char *golden = g_getenv ("NB_GOLDEN_DIR");
  const char *cli = g_getenv ("NB_CLI");
  const char *extra = g_getenv ("NB_PARITY_EXTRA");
  g_autofree char *extra_text = NULL;
  double timeout = PARITY_TIMEOUT_S;

  parity.min_corr = PARITY_MIN_CORR;
  parity.max_rel = PARITY_MAX_REL;
  parity.max_sum_dev = PARITY_MAX_SUM_DEV;

  if (golden == NULL || *golden == '\0')
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                           "NB_GOLDEN_DIR is not set: point it at the golden images "
                           "(meson sets it from the golden_dir option)");
      return FALSE;
    }
  parity.golden_dir = g_canonicalize_filename (golden, NULL);
  if (!g_file_test (parity.golden_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   "golden folder %s does not exist (set it with meson configure "
                   "-Dgolden_dir=...)",
                   parity.golden_dir);
      return FALSE;
    }

  if (cli == NULL || *cli == '\0')
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                           "NB_CLI is not set: point it at the nanobragg executable");
      return FALSE;
    }
  parity.cli =
      strchr (cli, G_DIR_SEPARATOR) != NULL ? g_canonicalize_filename (cli, NULL) : g_strdup (cli);
  if (strchr (parity.cli, G_DIR_SEPARATOR) != NULL &&
      !g_file_test (parity.cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "NB_CLI %s is not an executable",
                   parity.cli);
      return FALSE;
    }

  extra_text = g_strstrip (g_strdup (extra != NULL ? extra : ""));
  if (*extra_text != '\0')
    {
      if (!g_shell_parse_argv (extra_text, NULL, &parity.extra, error))
        {
          g_prefix_error (error, "NB_PARITY_EXTRA: ");
          return FALSE;
        }
    }
  else
    {
      parity.extra = g_new0 (char *, 1);
    }

  if (!env_double ("NB_PARITY_CORR", &parity.min_corr, error) ||
      !env_double ("NB_PARITY_REL", &parity.max_rel, error) ||
      !env_double ("NB_PARITY_SUM", &parity.max_sum_dev, error) ||
      !env_double ("NB_PARITY_TIMEOUT", &timeout, error))
    return FALSE;
  if (timeout < 1.0 || timeout > 86400.0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "NB_PARITY_TIMEOUT must be between 1 and 86400 seconds");
      return FALSE;
    }
  parity.timeout_s = (guint) ceil (timeout);
  return TRUE;
}

/* Adds one test per row of cases.tsv; returns how many, or -1 with error set. */
static int
add_cases (GError **error)
{
  g_autofree char *tsv = g_build_filename (parity.golden_dir, "cases.tsv", NULL);
  g_autofree char *inputs = g_build_filename (parity.golden_dir, "inputs", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  int n = 0;

  if (!g_file_get_contents (tsv, &text, NULL, error))
    return -1;
  if (!g_file_test (inputs, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s is missing", inputs);
      return -1;
    }

  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *blank = g_strstrip (g_strdup (lines[i]));
      g_autofree char *path = NULL;
      const char *tab;
      ParityCase *pc;

      if (*blank == '\0' || lines[i][0] == '#')
        continue;
      tab = strchr (lines[i], '\t');
      if (tab == NULL || tab == lines[i])
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "%s:%u: expected NAME<TAB>arguments", tsv, i + 1);
          return -1;
        }

      pc = g_new0 (ParityCase, 1);
      pc->name = g_strndup (lines[i], tab - lines[i]);
      pc->args = g_strdup (tab + 1);
      path = g_strconcat ("/parity/", pc->name, NULL);
      g_test_add_data_func_full (path, pc, test_parity_case, parity_case_free);
      n++;
    }

  if (n == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s lists no case", tsv);
      return -1;
    }
  return n;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char **test_argv = g_new0 (char *, argc + 2);
  int test_argc = 0;
  int rc;

  /* A failed case must not abort the run: every case's figures are worth seeing. */
  test_argv[test_argc++] = argv[0];
  test_argv[test_argc++] = (char *) "--keep-going";
  for (int i = 1; i < argc; i++)
    test_argv[test_argc++] = argv[i];
  argv = test_argv;
  argc = test_argc;

  g_test_init (&argc, &argv, NULL);

  if (!configure (&error) || add_cases (&error) < 0)
    {
      g_test_add_data_func_full ("/parity/setup", g_strdup (error->message), test_setup_failed,
                                 g_free);
      return g_test_run ();
    }

  g_test_message ("parity: CLI %s, golden %s, corr >= %g, maxrel <= %g, |sum-1| <= %g%s%s",
                  parity.cli, parity.golden_dir, parity.min_corr, parity.max_rel,
                  parity.max_sum_dev, parity.extra[0] != NULL ? ", extra: " : "",
                  parity.extra[0] != NULL ? g_getenv ("NB_PARITY_EXTRA") : "");

  rc = g_test_run ();

  if (parity.n_run > 0)
    g_test_message ("parity: %u/%u cases pass (worst corr %.7f)", parity.n_pass, parity.n_run,
                    parity.have_worst ? parity.worst_corr : NAN);

  g_free (parity.golden_dir);
  g_free (parity.cli);
  g_strfreev (parity.extra);
  return rc;
}
