/* replay: runs a fuzz target's LLVMFuzzerTestOneInput() on files and on the
 * files of folders given as arguments (the seed corpus and the regression
 * inputs), so every build checks them without libFuzzer.  Exit 0 when all ran;
 * a crash or sanitizer report is the failure. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
replay_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  uint8_t *data = NULL;
  size_t size = 0, cap = 0;

  if (f == NULL)
    {
      perror (path);
      return 0;
    }
  for (;;)
    {
      if (size == cap)
        {
          cap = cap ? cap * 2 : 65536;
          data = realloc (data, cap);
          if (data == NULL)
            abort ();
        }
      size_t got = fread (data + size, 1, cap - size, f);
      size += got;
      if (got == 0)
        break;
    }
  fclose (f);
  LLVMFuzzerTestOneInput (data, size);
  free (data);
  return 1;
}

static int
by_name (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (int argc, char **argv)
{
  int files = 0;

  for (int i = 1; i < argc; i++)
    {
      struct stat st;

      if (stat (argv[i], &st) != 0)
        continue; /* a folder with no inputs yet */
      if (!S_ISDIR (st.st_mode))
        {
          files += replay_file (argv[i]);
          continue;
        }
      {
        DIR *d = opendir (argv[i]);
        struct dirent *e;
        char **names = NULL;
        size_t n = 0;

        while (d != NULL && (e = readdir (d)) != NULL)
          if (e->d_name[0] != '.')
            {
              names = realloc (names, (n + 1) * sizeof *names);
              names[n] = malloc (strlen (argv[i]) + strlen (e->d_name) + 2);
              sprintf (names[n], "%s/%s", argv[i], e->d_name);
              n++;
            }
        if (d != NULL)
          closedir (d);
        if (n > 1)
          qsort (names, n, sizeof *names, by_name);
        for (size_t k = 0; k < n; k++)
          {
            files += replay_file (names[k]);
            free (names[k]);
          }
        free (names);
      }
    }
  printf ("replayed %d inputs\n", files);
  return files > 0 ? 0 : 1;
}
