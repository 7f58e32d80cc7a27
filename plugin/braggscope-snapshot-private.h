/* braggscope-snapshot-private.h: a snapshot's chunks, found without decoding
 * its image (braggscope-snapshot-chunks.c), for the snapshot reader. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SNAPSHOT_ARGS_KEY         "braggscope:args"
#define SNAPSHOT_COMMAND_LINE_KEY "braggscope:command-line"
#define SNAPSHOT_SF_KEY           "braggscope:structure-factors"

/* The structure-factor chunk and its limits.  A file is embedded when it is at
 * most SF_EMBED_MAX bytes and compresses to at most SF_COMPRESSED_MAX: that
 * keeps a snapshot within a few MB beside its picture (a 1024^2 one is 1-3 MB)
 * and covers HKL text of about a million reflections (1HPV's 152,676 in 3.97
 * MB take 0.69 MB); larger files travel by name and SHA-256.  The reader
 * refuses a chunk or a declared size beyond these, before allocating. */
#define SF_CHUNK          "bsFz"
#define SF_VERSION        1
#define SF_HEADER         44
#define SF_NAME_MAX       255
#define SF_EMBED_MAX      ((gsize) 32 << 20)
#define SF_COMPRESSED_MAX ((gsize) 4 << 20)
#define SF_CHUNK_MAX      (SF_HEADER + SF_NAME_MAX + SF_COMPRESSED_MAX)

/* PNG_CHUNK_MAX: the largest chunk other than image data and bsFz a snapshot
 * may hold (our text chunks are a few kB); TEXT_INFLATED_MAX: the most a
 * compressed text chunk (zTXt, iTXt) of ours may inflate to. */
#define PNG_CHUNK_MAX     (1u << 20)
#define TEXT_INFLATED_MAX (1u << 20)

typedef struct
{
  char *args;    /* the first SNAPSHOT_ARGS_KEY text, or NULL */
  char *sf_text; /* the first SNAPSHOT_SF_KEY text, or NULL */
  GBytes *bsfz;  /* the first bsFz chunk's data, or NULL */
} SnapshotChunks;

/* Reads what a snapshot says of itself from the chunks of the PNG @path,
 * walking their headers and never reading, let alone inflating, the image
 * data: the text chunks of our keys (tEXt, zTXt, iTXt, wherever they stand,
 * inflated to at most TEXT_INFLATED_MAX) and the first bsFz chunk, each with
 * its CRC checked.  Every other chunk is skipped unread.  @path must be a
 * regular file (opened without blocking: a FIFO is refused, not waited on).
 * Refuses, before allocating, a chunk longer than PNG_CHUNK_MAX (bsFz:
 * SF_CHUNK_MAX) other than image data.  A file cut off ends the walk: what
 * was read stands.  BRAGGSCOPE_ERROR_IO when the file cannot be opened or
 * read, BRAGGSCOPE_ERROR_PARSE for what is not a PNG or is damaged; the
 * message is one line starting with @path. */
gboolean _braggscope_snapshot_read_chunks (const char *path, SnapshotChunks *out, GError **error);
void _braggscope_snapshot_chunks_clear (SnapshotChunks *chunks);

G_END_DECLS
