/* nb-fingerprint.h: SHA-256 and the fingerprint of a dataset frame's file
 * (nanobragg-series).
 *
 * A frame's fingerprint is the SHA-256 (FIPS 180-4) of
 *
 *   "nanobragg-series frame" NUL, every word of the frame's nanoBragg command
 *   line followed by NUL, one more NUL, then every byte of the file,
 *
 * where a file that carries its own fingerprint (a CBF header line, a NeXus
 * attribute) has the 64 hex digits of it read as 64 '0' characters.  So the
 * fingerprint covers the parameters the frame was made from and each byte
 * written, header and pixels: a file of another frame, another run or with one
 * byte changed has another fingerprint.  It is a check of integrity and
 * origin, not a signature: whoever may write the files may also write a
 * matching fingerprint.
 *
 * The engine has no GLib, so SHA-256 is implemented here (FIPS 180-4, with
 * the x86 SHA extensions where the processor has them; NB_SHA256=portable
 * forces the plain C), checked against FIPS 180-4's examples and the
 * million-'a' vector in tests/test-series.c.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* A SHA-256 computation in progress; a copy of it goes on independently. */
  typedef struct
  {
    uint32_t h[8];
    uint64_t length; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes of @block filled */
    int sha_ni;  /* the x86 SHA extensions compress the blocks */
  } nb_sha256;

  NB_API void nb_sha256_init (nb_sha256 *s);
  NB_API void nb_sha256_update (nb_sha256 *s, const void *data, size_t n);

  /* nb_sha256_final: the digest of everything given to @s, as 64 lowercase hex
 * digits and a NUL in @hex; @s is used up. */
  NB_API void nb_sha256_final (nb_sha256 *s, char hex[65]);

  /* The number of hex digits of a fingerprint. */
  enum
  {
    NB_FINGERPRINT_DIGITS = 64
  };

  /* nb_fingerprint_begin: a computation that has taken the prefix above and
 * the frame's command line @words (@n_words of them); give a copy of it to
 * the functions below for each of the frame's files. */
  NB_API void nb_fingerprint_begin (nb_sha256 *s, const char *const *words, int n_words);

  /* nb_fingerprint_of: the fingerprint (64 hex digits and a NUL, in @hex) of
 * the @n bytes @bytes made from the frame @begun stands for, where the 64
 * bytes at offset @at are the file's own fingerprint (@at = SIZE_MAX: the file
 * does not carry it). */
  NB_API void
  nb_fingerprint_of (const nb_sha256 *begun, const void *bytes, size_t n, size_t at, char hex[65]);

  /* nb_fingerprint_seal: finds the one place in @bytes where @marker is
 * followed by 64 '0' characters (the writer put them there), computes the
 * fingerprint and writes its digits over the zeros.  @name names the file in
 * messages.  NB_ERR_INVALID when that text is not there exactly once. */
  NB_API nb_status nb_fingerprint_seal (const nb_sha256 *begun,
                                        void *bytes,
                                        size_t n,
                                        const char *marker,
                                        const char *name,
                                        nb_error *err);

  /* nb_fingerprint_check: whether the 64 bytes at offset @at of @bytes are the
 * fingerprint of the @n bytes: NB_OK, or NB_ERR_PARSE "@name: fingerprint
 * differs" when they are not (nor hex digits, nor inside @bytes). */
  NB_API nb_status nb_fingerprint_check (const nb_sha256 *begun,
                                         const void *bytes,
                                         size_t n,
                                         size_t at,
                                         const char *name,
                                         nb_error *err);

  /* nb_fingerprint_find: the offset of the one place in @bytes (@n of them)
 * where @text (@len bytes) appears; -1 when it does not, -2 when it appears
 * more than once (overlaps count). */
  NB_API long long nb_fingerprint_find (const void *bytes, size_t n, const void *text, size_t len);

  /* nb_read_regular_file: the whole of @path into a malloc'd buffer (*@data,
 * *@size bytes; free with free()), for a file that is not trusted: a symbolic
 * link, a folder, a device or a pipe is refused without being read or waited
 * for, and so is a file of more than @max_bytes.  Errors: NB_ERR_IO (missing,
 * unreadable, not a regular file: the strerror text after @path),
 * NB_ERR_PARSE (larger than @max_bytes), NB_ERR_NOMEM. */
  NB_API nb_status nb_read_regular_file (
      const char *path, size_t max_bytes, void **data, size_t *size, nb_error *err);

#ifdef __cplusplus
}
#endif
