/* nb-frame-private.h: what the frame readers (frame-smv.c, frame-cbf.c,
 * frame-nexus.c) share with frame.c. */
#pragma once

#include <stdio.h>

#include "nb-frame.h"

/* The readers: @frame is zeroed with its path set; on failure frame.c clears
 * it.  @fp is the open file positioned at 0 (the SMV reader); the others open
 * @path through their library. */
nb_status
nb_frame_read_smv (const char *path, FILE *fp, unsigned flags, nb_frame *frame, nb_error *err);
nb_status nb_frame_read_cbf (const char *path, unsigned flags, nb_frame *frame, nb_error *err);
nb_status
nb_frame_read_nexus (const char *path, int index, unsigned flags, nb_frame *frame, nb_error *err);

/* What a frame read may hold on this thread, set by nb_frame_read_budget()
 * before it calls a reader.  The CBF/NeXus module has its own copy of this
 * state, which its table's readers set from their argument. */
typedef struct
{
  size_t max_pixels;   /* the largest frame (fpixels x spixels); 0: no limit */
  double budget;       /* bytes the read may hold (nb_memory_budget()); 0: no limit */
  int budget_asked;    /* the budget is the caller's (-memory_budget), not the default */
  size_t caller_bytes; /* bytes a pixel that the caller adds once the frame is read */
} nb_frame_limits;

void nb_frame_set_limits (const nb_frame_limits *limits);
nb_frame_limits nb_frame_get_limits (void);

/* NB_OK when the frame's counts and mask (frame->fpixels x spixels, 5
 * bytes a pixel), the caller's bytes a pixel and @transient bytes more (a
 * reader's own buffers: a file's text, a decoded chunk, a mask to convert)
 * fit in this thread's budget, else NB_ERR_NOMEM naming the frame, @what the
 * transient bytes are, the need and the budget.  Checked before allocating:
 * a header may claim any size, and a compressed file can be tiny. */
nb_status
nb_frame_check_budget (const nb_frame *frame, double transient, const char *what, nb_error *err);

/* Records item @item = @value (SI) with its source, printf-style; the text is
 * made printable (other bytes become '?') and truncated to fit.  A value that
 * is not finite (a header number that overflowed in conversion) is not
 * recorded: the item stays absent. */
void nb_frame_set_item (nb_frame *frame, nb_frame_item item, double value, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__ ((format (printf, 4, 5)))
#endif
    ;

/* Allocates counts and mask for frame->fpixels x frame->spixels (checked:
 * 1..65536 each).  NB_ERR_PARSE naming @path for a bad size, NB_ERR_NOMEM. */
nb_status nb_frame_alloc_pixels (nb_frame *frame, nb_error *err);

/* The same with room for at least @capacity counts (more than the frame's
 * pixels: for a decoder that may write past them). */
nb_status nb_frame_alloc_pixels_capacity (nb_frame *frame, size_t capacity, nb_error *err);

/* Fills mask, n_masked and n_overload from counts: negative counts are
 * masked, counts >= frame->count_cutoff (when > 0) overloads; a mask byte
 * already NB_PIXEL_MASKED stays so (values above INT32_MAX, NXmx pixel_mask). */
void nb_frame_classify (nb_frame *frame);

/* A copy of @text cut at @n bytes, printable (other bytes as '?'), in @out
 * (@size bytes): for quoting a header line in a message. */
void nb_frame_quote (const char *text, size_t n, char *out, size_t size);

/* strtod in the C locale (headers use '.' whatever the program's locale). */
double nb_frame_strtod (const char *s, char **end);
