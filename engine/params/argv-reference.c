/* argv-reference.c: nanoBragg's argument matching, for the parser's lenient
 * mode: an unknown word is skipped only where nanoBragg skips it too.  Source:
 * nanoBragg.c main(), the -img/-mask pre-scan and the argument loop (cli.md
 * §1, §2.7): a word is examined only when it starts with '-', and a flag acts
 * when its name occurs anywhere in the word (strstr), a few only as the whole
 * word.  Its names are the parameter table's spellings (param-table.c), which
 * marks the whole-word ones and Braggscope's own flags.
 */
#include "nb-argv.h"
#include "nb-param.h"

#include <string.h>

/* Does nanoBragg act on @word through the spelling @s (@len bytes, with the
 * table's markers)?  Returns the length of the name, 0 for no. */
static size_t
nanobragg_match (const char *word, const char *s, size_t len, int exact)
{
  char name[64];

  if (len > 0 && (s[len - 1] == '*' || s[len - 1] == '='))
    {
      exact = s[len - 1] == '=';
      len--;
    }
  if (len == 0 || len >= sizeof name)
    return 0;
  memcpy (name, s, len);
  name[len] = '\0';
  if (exact ? strcmp (word, name) == 0 : strstr (word, name) != NULL)
    return len;
  return 0;
}

/* nanoBragg runs every handler whose name the word holds (-misset_seed is
 * also -misset's, Q-29): the longest of them is the flag the word is most
 * likely meant as, and the one messages name. */
const char *
nb_argv_reference_flag (const char *word)
{
  static _Thread_local char found[64];
  size_t n, best = 0;
  const nb_param *rows = nb_param_table (&n);
  const char *best_s = NULL;

  if (word == NULL || word[0] != '-')
    return NULL;
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      const char *s = row->aliases;
      size_t len;

      if (row->flag == NULL || (row->flags & NB_PARAM_BRAGGSCOPE))
        continue;
      len = nanobragg_match (word, row->flag, strlen (row->flag),
                             (row->flags & NB_PARAM_NANOBRAGG_EXACT) != 0);
      if (len > best)
        {
          best = len;
          best_s = row->flag;
        }
      while (s != NULL && *s != '\0')
        {
          size_t w = strcspn (s, " ");

          if ((len = nanobragg_match (word, s, w, 0)) > best)
            {
              best = len;
              best_s = s;
            }
          s += w;
          s += strspn (s, " ");
        }
    }
  if (best_s == NULL)
    return NULL;
  /* the spelling without its marker, valid until the thread's next call */
  memcpy (found, best_s, best);
  found[best] = '\0';
  return found;
}

#define EDIT_MAX 64

size_t
nb_argv_edit_distance (const char *a, const char *b, size_t cap)
{
  size_t la = strlen (a), lb = strlen (b);
  size_t row[EDIT_MAX + 1];

  if (la > EDIT_MAX || lb > EDIT_MAX || (la > lb ? la - lb : lb - la) > cap)
    return cap + 1;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t diagonal = row[0], smallest;

      row[0] = i;
      smallest = row[0];
      for (size_t j = 1; j <= lb; j++)
        {
          size_t above = row[j];
          size_t best = diagonal + (a[i - 1] != b[j - 1]);

          if (above + 1 < best)
            best = above + 1;
          if (row[j - 1] + 1 < best)
            best = row[j - 1] + 1;
          row[j] = best;
          diagonal = above;
          if (best < smallest)
            smallest = best;
        }
      if (smallest > cap)
        return cap + 1;
    }
  return row[lb] > cap ? cap + 1 : row[lb];
}
