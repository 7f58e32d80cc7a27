/* nb-models.h: atomic models (PDB, mmCIF, small-molecule CIF) and deposited
 * structure factors (mmCIF "-sf.cif" files), read through gemmi in the models module
 * (nanobragg-models.so), behind this plain C ABI.
 *
 * gemmi is a C++ library; the engine stays C.  The module is built only where
 * gemmi's headers are found (meson -Dmodels), and the engine opens it the
 * first time such a file is read (models.c, with formats.c's search for
 * modules), so a program that never reads a model never loads the C++
 * runtime.  An engine built without it refuses model files with
 * NB_ERR_UNSUPPORTED naming the file.
 *
 * Everything the module hands back is plain C data in one malloc()ed block
 * per array, freed by nb_structure_clear(): no C++ object or exception crosses
 * the ABI (the module catches every exception and turns it into one line
 * naming the file, and the line where gemmi gives it).
 */
#pragma once

#include <stddef.h>

#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Changes whenever a type below or the table changes: the engine refuses a
 * module of another build. */
#define NB_MODELS_ABI 2

#define NB_MODELS_MODULE_NAME "nanobragg-models.so"
#define NB_MODELS_SYMBOL      "nb_models_module_open"

/* Bounds on what an (untrusted) file may make us hold: the bytes of the file
 * after gzip decompression, and the atoms of its first model. */
#define NB_MODEL_FILE_MAX  ((size_t) 1 << 30)
#define NB_MODEL_ATOMS_MAX (1L << 24)

  /* One X-ray form factor: International Tables (1992) Gaussians, as gemmi
   * tabulates them (gemmi::IT92): f0(s) = sum_i a[i] exp(-b[i] s^2) + c with
   * s = sin(theta)/lambda in 1/Angstrom, b in Angstrom^2. */
  typedef struct
  {
    double a[4], b[4], c;
    char element[4]; /* its symbol, NUL-terminated ("C", "Se") */
  } nb_form_factor;

  /* One symmetry operator of the space group, in fractional coordinates:
   * x' = rot x + tran (rot row-major).  Centring translations are separate
   * operators. */
  typedef struct
  {
    double rot[9];
    double tran[3];
  } nb_symop;

  /* One atom of the asymmetric unit. */
  typedef struct
  {
    double xyz[3];    /* fractional coordinates */
    double occupancy; /* 0..1; a small-molecule CIF's (chemical) occupancy divided
                       * by the order of the site's symmetry, so that the sum over
                       * all operators counts a special position once */
    double B;         /* isotropic displacement, Angstrom^2 (8 pi^2 U_iso) */
    double U[6];      /* anisotropic U in fractional terms, F U F^T (F: the
                       * fractionalization matrix, U Cartesian in Angstrom^2 as
                       * the file gives it): 11 22 33 12 13 23, all 0 when the
                       * atom has none; its Debye-Waller factor at the index
                       * row k is exp(-2 pi^2 k U k^T) */
    int form;         /* index into nb_structure.forms */
  } nb_atom;

  typedef enum
  {
    NB_STRUCTURE_ATOMS = 1,       /* coordinates: atoms[] */
    NB_STRUCTURE_REFLECTIONS = 2, /* a structure-factor file: hkl[] and F[] */
  } nb_structure_kind;

  /* What the module reads from one file. */
  typedef struct
  {
    nb_structure_kind kind;
    double cell[6];       /* a, b, c (Angstrom), alpha, beta, gamma (degrees) */
    char space_group[16]; /* Hermann-Mauguin symbol, "" when the file gives none (P1 then) */
    int n_symops;
    nb_symop *symops; /* owned: n_symops operators, identity first */
    int n_forms;
    nb_form_factor *forms; /* owned: one per element present */
    long n_atoms;
    nb_atom *atoms; /* owned */
    long n_reflections;
    int *hkl;        /* owned: 3 n_reflections indices */
    double *F;       /* owned: n_reflections amplitudes */
    char column[32]; /* the column read ("F_meas_au", "intensity_meas") */
    char note[256];  /* a line for the log: how F was obtained, what was skipped */
  } nb_structure;

  /* The module's table. */
  typedef struct
  {
    unsigned abi;  /* NB_MODELS_ABI */
    unsigned size; /* sizeof (nb_models) */
    /* reads the file open as @fd (PDB, mmCIF, small-molecule CIF or -sf.cif; gzip or plain;
     * the module reads a dup() of it and leaves @fd open), named @path in
     * messages, into @out, whose arrays are malloc()ed; errors as
     * nb_structure_read() */
    nb_status (*read) (
        const char *path, int fd, size_t max_bytes, nb_structure *out, nb_error *err);
  } nb_models;

  typedef const nb_models *(*nb_models_open_fn) (unsigned abi);

  /* nb_structure_read: reads the model or structure-factor file @path through the
   * module.  At most @max_bytes (and NB_MODEL_FILE_MAX) of text after
   * decompression, and NB_MODEL_ATOMS_MAX atoms.  Errors, each one line naming
   * @path: NB_ERR_UNSUPPORTED (this build has no models module), NB_ERR_IO
   * (cannot read, or the module cannot be loaded), NB_ERR_PARSE (damaged or
   * not a model: gemmi's message, with its line), NB_ERR_INVALID (no atoms or
   * reflections, an element without form factor, a bad cell), NB_ERR_NOMEM.
   * On error @out is empty.  Free with nb_structure_clear(). */
  nb_status
  nb_structure_read (const char *path, size_t max_bytes, nb_structure *out, nb_error *err);

  void nb_structure_clear (nb_structure *m);

  /* nb_models_available: 1 when this build has the models module. */
  int nb_models_available (void);

  /* nb_file_is_model: 1 when @path's first bytes are gzip's magic, or its
   * first line that is not blank or a comment ('#', '!') starts with a PDB
   * record name (HEADER, CRYST1, ATOM...) or a CIF block (data_); 0 otherwise
   * (an HKL text file), or when it cannot be read (the HKL reader reports
   * that). */
  int nb_file_is_model (const char *path);

#ifdef __cplusplus
}
#endif
