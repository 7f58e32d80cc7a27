/* braggscope-lesson.h: the viewer's lessons: prepared scenes in
 * data/lessons/ (desktop-file syntax, a [Lesson] group), each with a title
 * and two or three sentences (translated through the viewer's catalogue),
 * the parameters, the views to open and the one slider to try.
 *
 * Keys: Id (the name --lesson takes), Name (title), Comment (explanation),
 * Try (the simulation property of the slider to try), Scene ("1hpv": start
 * from the default scene; "empty": from nanoBragg's defaults), Arguments
 * (nanoBragg flags applied on top, split as a shell splits them; flags
 * naming files to write are refused), View
 * (detector, reciprocal or both), Labels and LabelCount (h k l labels),
 * Rings (ring resolutions in Å), ReciprocalResolution (Å), ReciprocalZoom,
 * and for a rotation PlayStart, PlayRange (degrees) and PlaySpeed
 * (degrees per second).  What a lesson's claim needs to be seen:
 * LabelReflections (h k l labelled whenever predicted, "0 0 6;0 0 12;"),
 * ContrastPercentile (the top of the automatic window, 50 to 100) and
 * ReciprocalScaleWavelength (Å: a fixed reciprocal-space scale, so that the
 * sphere of radius 1/λ grows as λ falls).  StructureFactors names a file of
 * the data folder (a model such as 1hpv-apo.pdb, or structure factors) by its
 * bare name, which is the simulation's structure factors (-model) after the
 * Arguments; a name with a '/' or '\\', "." or ".." is refused, so that a
 * lesson reads only the data shipped with the viewer.  StructureFactors may
 * list up to 8 such names ("1hpv.pdb;1hpv-apo.pdb;"): the first is loaded,
 * and the lesson's panel switches between them (the same crystal with
 * other molecules in its cell).  Numbers must be
 * finite; the views and spin buttons clamp them to their ranges.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <braggscope.h>

G_BEGIN_DECLS

typedef struct
{
  char *path; /* the file */
  char *id;
  char *title; /* translated */
  char *text;  /* translated */
  char *try_property;
  gboolean from_default_scene;
  char **args; /* nanoBragg flags (never NULL) */
  char *view;  /* "detector", "reciprocal" or "both" */
  gboolean labels;
  guint label_count;
  char *rings; /* or NULL */
  double reciprocal_resolution, reciprocal_zoom;
  gboolean playback;
  double play_start, play_range, play_speed;
  char *label_reflections;         /* "h k l; h k l", or NULL */
  double contrast_percentile;      /* 0: the view's default */
  double scale_wavelength;         /* Angstrom; 0: each frame's own scale */
  char *structure_factors;         /* a bare file name in the data folder, or NULL: the
                               * first of structure_factor_choices */
  char **structure_factor_choices; /* StructureFactors' files, or NULL */
} BraggscopeLesson;

/* The most files a lesson's StructureFactors may list. */
#define BRAGGSCOPE_LESSON_CHOICES_MAX 8

void braggscope_lesson_free (BraggscopeLesson *lesson);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BraggscopeLesson, braggscope_lesson_free)

/* The folder the lessons are read from: $BRAGGSCOPE_LESSONSDIR, else the
 * installed one when it exists, else the source tree's. */
const char *braggscope_lessons_dir (void);

/* Every lesson of the folder, in file-name order (BraggscopeLesson).  A file
 * that cannot be read, lacks a key, holds a number that is not finite or
 * arguments naming a file to write is skipped with a message (g_message)
 * naming it and what is wrong; the others load.  NULL with @error only when
 * the folder cannot be read. */
GPtrArray *braggscope_lessons_load (GError **error);

/* The data folder a lesson's StructureFactors is read from:
 * $BRAGGSCOPE_DATADIR, else the installed one when the lessons are read from
 * the installed folder, else the source tree's. */
const char *braggscope_lesson_data_dir (void);

/* The lesson of Id @id; G_IO_ERROR_NOT_FOUND lists the Ids there are. */
BraggscopeLesson *braggscope_lesson_find (const char *id, GError **error);

/* A new simulation set up as @lesson says, with @extra_args (nanoBragg
 * flags, may be NULL) applied after its own.  Fails as
 * braggscope_simulation_set_scene_from_args() does, and with
 * G_IO_ERROR_NOT_FOUND naming the file when the lesson's StructureFactors
 * is not in the data folder. */
BraggscopeSimulation *braggscope_lesson_create_simulation (const BraggscopeLesson *lesson,
                                                           const char *const *extra_args,
                                                           GError **error);

/* The number of files the lesson's StructureFactors lists (0: none). */
guint braggscope_lesson_n_structure_factors (const BraggscopeLesson *lesson);

/* Makes file @index (below braggscope_lesson_n_structure_factors()) of the
 * lesson's StructureFactors the structure factors of @sim (-model, from the
 * data folder).  Errors: G_IO_ERROR_NOT_FOUND naming the file when it is not
 * in the data folder, and braggscope_simulation_set_from_args()'s. */
gboolean braggscope_lesson_choose_structure_factors (const BraggscopeLesson *lesson,
                                                     BraggscopeSimulation *sim,
                                                     guint index,
                                                     GError **error);

G_END_DECLS
