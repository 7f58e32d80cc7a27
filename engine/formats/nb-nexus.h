/* nb-nexus.h: what the NeXus frame reader (frame-nexus.c) shares with the
 * NXmx geometry reader (detector-nxmx.c), both in the CBF/NeXus module. */
#pragma once

#include <stddef.h>

#include <hdf5.h>

/* The scalar string of type @type in attribute (@attribute non-zero) or
 * dataset @obj (fixed or variable length, made printable) into @out
 * (@size bytes); 0 when it cannot be read. */
int nx_read_string (hid_t obj, hid_t type, int attribute, char *out, size_t size);

/* A string attribute @attr of @obj (fixed or variable length, made
 * printable) into @out (@size bytes); 0 when absent or not a string. */
int nx_string_attr (hid_t obj, const char *attr, char *out, size_t size);

/* What is wrong with the storage of dataset @d for reading it whole or in
 * part, or NULL: a compact dataset whose stored bytes are fewer than its
 * dimensions (libhdf5 1.10 copies the dimensions' worth out of the shorter
 * buffer), chunks far larger than its frames.  Check before every H5Dread
 * of a file's dataset. */
const char *nx_storage_problem (hid_t d);

/* Element @index (clamped to the last) of numeric dataset @d, a scalar or
 * one-dimensional, as a double into @v, and its units attribute into @units
 * (@usize bytes; "" when none); 0 when @d is not numeric, of a type wider
 * than 16 bytes, in storage nx_storage_problem() refuses, has no elements or
 * its element is not a finite number. */
int nx_dataset_number (hid_t d, hsize_t index, double *v, char *units, size_t usize);

/* Metres, radians, seconds per @units for @kind (0 length, 1 angle, 2 time,
 * 3 wavelength); 0 when unknown.  No units: the NXmx default for the kind. */
double nx_scale (const char *units, int kind);
