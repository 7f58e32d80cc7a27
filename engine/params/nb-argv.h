/* nb-argv.h: what nanoBragg's own argument loop makes of a word, for the
 * parser's lenient mode and its error messages (params-parse.c).
 * Internal to the engine.
 */
#pragma once

#include <stddef.h>

/* nb_argv_reference_flag: the flag of nanoBragg's argument loop that acts on
 * @word, or NULL where nanoBragg ignores it.  Source: nanoBragg.c main(), the
 * -img/-mask pre-scan and the argument loop: a word is examined only when it
 * starts with '-', and each flag matches when its name occurs anywhere in the
 * word (strstr), a few only as the whole word ("-polar" but not
 * "-polarization", "-N", "-MW").  Where several act (-misset_seed is also
 * -misset's), the longest.  Whether values follow is not considered: a word
 * the reference would act on given its values counts as acted on.  The name
 * is valid until the calling thread's next call. */
const char *nb_argv_reference_flag (const char *word);

/* nb_argv_edit_distance: the Levenshtein distance between @a and @b (insert,
 * delete or replace one byte), or @cap + 1 when it exceeds @cap or either
 * word is longer than 64 bytes.  For "did you mean" suggestions. */
size_t nb_argv_edit_distance (const char *a, const char *b, size_t cap);
