/* models-gemmi.cc: the models module (nanobragg-models.so, nb-models.h):
 * PDB and mmCIF coordinates, small-molecule CIFs (coreCIF: fractional
 * coordinates, the CIF's symmetry operators) and mmCIF structure factors
 * (-sf.cif) read by gemmi, handed to the engine as plain C data.
 *
 * The file is read whole through zlib (gzip or plain, transparently) into a
 * buffer of bounded size before gemmi parses it from memory, so a file that
 * inflates without end is refused at the bound.  Every exception stops here:
 * nothing C++ crosses the ABI.
 */
#include "nb-models.h"

/* smcif.hpp's writer formats numbers through stb_sprintf, a header Debian's
 * gemmi-dev leaves out (libstb-dev); the reader used here formats nothing,
 * and gemmi's own switch puts the C library's snprintf in its place. */
#define USE_STD_SNPRINTF 1

#include <gemmi/cif.hpp>
#include <gemmi/it92.hpp>
#include <gemmi/mmcif.hpp>
#include <gemmi/pdb.hpp>
#include <gemmi/refln.hpp>
#include <gemmi/smcif.hpp>
#include <gemmi/symmetry.hpp>

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

extern "C" __attribute__ ((visibility ("default"))) const nb_models *
nb_models_module_open (unsigned abi);

namespace
{

nb_status
fail (nb_error *err, nb_status code, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

nb_status
fail (nb_error *err, nb_status code, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  err->code = code;
  vsnprintf (err->message, sizeof err->message, fmt, ap);
  va_end (ap);
  /* one line: gemmi's messages may hold a newline */
  for (char *c = err->message; *c != '\0'; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  return code;
}

/* The whole file open as @fd, inflated when it is gzip, at most @max_bytes. */
nb_status
slurp (const char *path, int fd, size_t max_bytes, std::string &text, nb_error *err)
{
  int own = dup (fd);
  gzFile f = own >= 0 ? gzdopen (own, "rb") : nullptr;
  char chunk[1 << 16];
  int n;

  if (f == nullptr)
    {
      if (own >= 0)
        close (own);
      return fail (err, NB_ERR_IO, "%s: cannot read: %s", path, strerror (errno ? errno : EBADF));
    }
  while ((n = gzread (f, chunk, sizeof chunk)) > 0)
    {
      if (text.size () + (size_t) n > max_bytes)
        {
          gzclose (f);
          return fail (err, NB_ERR_NOMEM, "%s: more than %zu bytes (after decompression), the limit",
                       path, max_bytes);
        }
      text.append (chunk, (size_t) n);
    }
  if (n < 0)
    {
      int code;
      const char *why = gzerror (f, &code);

      std::string msg = why != nullptr ? why : "read error";
      gzclose (f);
      return fail (err, code == Z_ERRNO ? NB_ERR_IO : NB_ERR_PARSE, "%s: %s", path, msg.c_str ());
    }
  gzclose (f);
  if (text.empty ())
    return fail (err, NB_ERR_PARSE, "%s: empty file", path);
  if (memchr (text.data (), '\0', text.size ()) != nullptr)
    return fail (err, NB_ERR_PARSE, "%s: binary data (a NUL byte), not a text model", path);
  return NB_OK;
}

template <typename T>
T *
copy_out (const std::vector<T> &v)
{
  T *p = static_cast<T *> (malloc (v.empty () ? 1 : v.size () * sizeof (T)));

  if (p != nullptr && !v.empty ())
    memcpy (p, v.data (), v.size () * sizeof (T));
  return p;
}

/* The operators of @ops (centring translations applied), identity first. */
void
put_ops (const gemmi::GroupOps &ops, std::vector<nb_symop> &out)
{
  for (gemmi::Op op : ops)
    {
      nb_symop s;

      for (int i = 0; i < 3; i++)
        {
          for (int j = 0; j < 3; j++)
            s.rot[3 * i + j] = (double) op.rot[i][j] / gemmi::Op::DEN;
          s.tran[i] = (double) op.tran[i] / gemmi::Op::DEN;
        }
      out.push_back (s);
    }
}

void
put_cell (const gemmi::UnitCell &cell, nb_structure *out)
{
  out->cell[0] = cell.a;
  out->cell[1] = cell.b;
  out->cell[2] = cell.c;
  out->cell[3] = cell.alpha;
  out->cell[4] = cell.beta;
  out->cell[5] = cell.gamma;
}

void
put_cell_and_symmetry (const gemmi::UnitCell &cell,
                       const gemmi::SpaceGroup *sg,
                       nb_structure *out,
                       std::vector<nb_symop> &ops)
{
  put_cell (cell, out);
  if (sg == nullptr)
    sg = gemmi::find_spacegroup_by_name ("P 1");
  snprintf (out->space_group, sizeof out->space_group, "%s", sg->hm);
  put_ops (sg->operations (), ops);
}

bool
valid_cell (const nb_structure *m)
{
  for (int i = 0; i < 6; i++)
    if (!std::isfinite (m->cell[i]) || m->cell[i] <= 0.0)
      return false;
  return m->cell[3] < 180.0 && m->cell[4] < 180.0 && m->cell[5] < 180.0;
}

/* The index in @forms of @element's IT92 form factor, added at its first
 * use; @form_of maps elements to indices (-1 before).  \pre IT92 has it. */
void
add_form (gemmi::Element element, int form_of[256], std::vector<nb_form_factor> &forms)
{
  unsigned el = (unsigned) element.elem;

  if (form_of[el] >= 0)
    return;
  const gemmi::IT92<double>::Coef &c = gemmi::IT92<double>::get (element.elem);
  nb_form_factor f = {};

  for (int i = 0; i < 4; i++)
    {
      f.a[i] = c.a (i);
      f.b[i] = c.b (i);
    }
  f.c = c.c ();
  snprintf (f.element, sizeof f.element, "%s", element.name ());
  form_of[el] = (int) forms.size ();
  forms.push_back (f);
}

/* @out's atoms, their elements' form factors and the operators, copied
 * out of the vectors (NB_STRUCTURE_ATOMS); NB_ERR_NOMEM naming @path. */
nb_status
put_atoms (const char *path,
           const std::vector<nb_symop> &ops,
           const std::vector<nb_form_factor> &forms,
           const std::vector<nb_atom> &atoms,
           nb_structure *out,
           nb_error *err)
{
  out->kind = NB_STRUCTURE_ATOMS;
  out->n_symops = (int) ops.size ();
  out->n_forms = (int) forms.size ();
  out->n_atoms = (long) atoms.size ();
  out->symops = copy_out (ops);
  out->forms = copy_out (forms);
  out->atoms = copy_out (atoms);
  if (out->symops == nullptr || out->forms == nullptr || out->atoms == nullptr)
    return fail (err, NB_ERR_NOMEM, "%s: out of memory", path);
  return NB_OK;
}

nb_status
read_atoms (const char *path, const gemmi::Structure &st, nb_structure *out, nb_error *err)
{
  std::vector<nb_symop> ops;
  std::vector<nb_form_factor> forms;
  std::vector<nb_atom> atoms;
  int form_of[256];

  if (st.models.empty ())
    return fail (err, NB_ERR_INVALID, "%s: no atoms (not a PDB or mmCIF model?)", path);
  if (!st.cell.is_crystal ())
    return fail (err, NB_ERR_INVALID, "%s: no unit cell (CRYST1 or _cell), so no crystal", path);
  put_cell_and_symmetry (st.cell, st.find_spacegroup (), out, ops);
  if (!valid_cell (out))
    return fail (err, NB_ERR_INVALID, "%s: impossible unit cell %g %g %g %g %g %g", path,
                 out->cell[0], out->cell[1], out->cell[2], out->cell[3], out->cell[4],
                 out->cell[5]);
  std::fill (std::begin (form_of), std::end (form_of), -1);
  const gemmi::Model &model = st.models[0];
  for (const gemmi::Chain &chain : model.chains)
    for (const gemmi::Residue &res : chain.residues)
      for (const gemmi::Atom &atom : res.atoms)
        {
          nb_atom a = {};
          unsigned el = (unsigned) atom.element.elem;

          if ((long) atoms.size () >= NB_MODEL_ATOMS_MAX)
            return fail (err, NB_ERR_INVALID, "%s: more than %ld atoms, the limit", path,
                         NB_MODEL_ATOMS_MAX);
          if (!gemmi::IT92<double>::has (atom.element.elem) || el == 0 || el >= 256)
            return fail (err, NB_ERR_INVALID,
                         "%s: atom %s of %s %s %d has no X-ray form factor (element \"%s\")", path,
                         atom.name.c_str (), chain.name.c_str (), res.name.c_str (),
                         res.seqid.num.value, atom.element.name ());
          add_form (atom.element, form_of, forms);
          gemmi::Fractional x = st.cell.fractionalize (atom.pos);
          a.xyz[0] = x.x;
          a.xyz[1] = x.y;
          a.xyz[2] = x.z;
          a.occupancy = atom.occ;
          a.B = atom.b_iso;
          a.form = form_of[el];
          if (atom.aniso.nonzero ())
            {
              gemmi::SMat33<double> u = atom.aniso.transformed_by<double> (st.cell.frac.mat);

              a.U[0] = u.u11;
              a.U[1] = u.u22;
              a.U[2] = u.u33;
              a.U[3] = u.u12;
              a.U[4] = u.u13;
              a.U[5] = u.u23;
            }
          for (double v : { a.xyz[0], a.xyz[1], a.xyz[2], a.occupancy, a.B, a.U[0], a.U[1], a.U[2],
                            a.U[3], a.U[4], a.U[5] })
            if (!std::isfinite (v))
              return fail (err, NB_ERR_INVALID, "%s: atom %s of %s %s %d: a number not finite",
                           path, atom.name.c_str (), chain.name.c_str (), res.name.c_str (),
                           res.seqid.num.value);
          atoms.push_back (a);
        }
  if (atoms.empty ())
    return fail (err, NB_ERR_INVALID, "%s: no atoms in its first model", path);
  if (put_atoms (path, ops, forms, atoms, out, err) != NB_OK)
    return NB_ERR_NOMEM;
  snprintf (out->note, sizeof out->note, "%ld atoms of %d elements, space group %s (%d operators)",
            out->n_atoms, out->n_forms, out->space_group, out->n_symops);
  return NB_OK;
}

/* The most symmetry operators a space group has (F m -3 m: 48 x 4). */
constexpr int kMaxSymops = 192;

/* The symmetry of small-molecule CIF block @block: the operators it lists
 * (_space_group_symop_operation_xyz, or _symmetry_equiv_pos_as_xyz of CIF
 * 1.0) when it lists them, else its Hermann-Mauguin symbol, else P 1.
 * @name gets the space group's symbol ("" for a setting gemmi does not
 * tabulate), @how a few words for the log. */
nb_status
small_symmetry (const char *path,
                gemmi::cif::Block &block,
                const gemmi::SmallStructure &st,
                gemmi::GroupOps &gops,
                std::string &name,
                std::string &how,
                nb_error *err)
{
  std::vector<gemmi::Op> listed;

  for (const char *tag : { "_space_group_symop_operation_xyz", "_symmetry_equiv_pos_as_xyz" })
    {
      gemmi::cif::Column col = block.find_values (tag);

      if (col.length () == 0)
        continue;
      if (col.length () > kMaxSymops)
        return fail (err, NB_ERR_INVALID, "%s: %d symmetry operators (%s), more than a space "
                     "group has", path, col.length (), tag);
      for (const std::string &v : col)
        listed.push_back (gemmi::parse_triplet (gemmi::cif::as_string (v)));
      break;
    }
  if (!listed.empty ())
    {
      const gemmi::Op::Tran zero = { 0, 0, 0 };
      const gemmi::SpaceGroup *sg;

      gops = gemmi::split_centering_vectors (listed);
      for (gemmi::Op::Tran &t : gops.cen_ops)
        for (int &x : t)
          x = ((x % gemmi::Op::DEN) + gemmi::Op::DEN) % gemmi::Op::DEN;
      std::sort (gops.cen_ops.begin (), gops.cen_ops.end ());
      gops.cen_ops.erase (std::unique (gops.cen_ops.begin (), gops.cen_ops.end ()),
                          gops.cen_ops.end ());
      if (gops.cen_ops.empty () || gops.cen_ops[0] != zero)
        return fail (err, NB_ERR_INVALID, "%s: its symmetry operators lack the identity x,y,z",
                     path);
      if (gops.order () > kMaxSymops)
        return fail (err, NB_ERR_INVALID, "%s: its symmetry operators make %d, more than a space "
                     "group has", path, gops.order ());
      sg = gemmi::find_spacegroup_by_ops (gops);
      name = sg != nullptr ? sg->hm : "";
      how = "the " + std::to_string (listed.size ()) + " operators it lists";
      if (sg != nullptr && !st.spacegroup_hm.empty ())
        {
          const gemmi::SpaceGroup *named = st.find_spacegroup ();

          if (named != sg)
            how += "; WARNING: its symbol \"" + st.spacegroup_hm + "\" names another group";
        }
      return NB_OK;
    }
  if (!st.spacegroup_hm.empty ())
    {
      const gemmi::SpaceGroup *sg = st.find_spacegroup ();

      if (sg == nullptr)
        return fail (err, NB_ERR_INVALID, "%s: unknown space group \"%s\" and no symmetry "
                     "operators", path, st.spacegroup_hm.c_str ());
      gops = sg->operations ();
      name = sg->hm;
      how = "its space group symbol";
      return NB_OK;
    }
  gops = gemmi::find_spacegroup_by_name ("P 1")->operations ();
  name = "P 1";
  how = "WARNING: no symmetry given, P 1";
  return NB_OK;
}

/* The images of fractional @x under @ops (but the identity, first) that
 * fall within 0.4 Angstrom of it, modulo the lattice: 0 on a general
 * position, the order of the site symmetry less one on a special one (as
 * gemmi's UnitCell::is_special_position). */
int
symmetry_mates (const gemmi::UnitCell &cell, const std::vector<nb_symop> &ops, const double x[3])
{
  int n = 0;

  for (size_t o = 1; o < ops.size (); o++)
    {
      const nb_symop &op = ops[o];
      gemmi::Fractional d;

      for (int i = 0; i < 3; i++)
        d.at (i) = op.rot[3 * i] * x[0] + op.rot[3 * i + 1] * x[1] + op.rot[3 * i + 2] * x[2]
                   + op.tran[i] - x[i];
      if (cell.orthogonalize_difference (d.wrap_to_zero ()).length_sq () < 0.4 * 0.4)
        n++;
    }
  return n;
}

/* A small-molecule CIF (coreCIF: _atom_site_fract_x, _cell_length_a...),
 * block @block, read by gemmi's small-structure reader.  Occupancies are
 * the CIF's, chemical: divided here by the order of each site's symmetry, as
 * the sum over the operators counts a special position that many times. */
nb_status
read_small (const char *path, gemmi::cif::Block &block, nb_structure *out, nb_error *err)
{
  gemmi::SmallStructure st = gemmi::make_small_structure_from_block (block);
  gemmi::GroupOps gops;
  std::string name, how;
  std::vector<nb_symop> ops;
  std::vector<nb_form_factor> forms;
  std::vector<nb_atom> atoms;
  int form_of[256];
  long special = 0, aniso = 0;
  nb_status status;

  if (!st.cell.is_crystal ())
    return fail (err, NB_ERR_INVALID, "%s: no unit cell (_cell_length_a...), so no crystal",
                 path);
  put_cell (st.cell, out);
  if (!valid_cell (out))
    return fail (err, NB_ERR_INVALID, "%s: impossible unit cell %g %g %g %g %g %g", path,
                 out->cell[0], out->cell[1], out->cell[2], out->cell[3], out->cell[4],
                 out->cell[5]);
  if ((status = small_symmetry (path, block, st, gops, name, how, err)) != NB_OK)
    return status;
  snprintf (out->space_group, sizeof out->space_group, "%s", name.c_str ());
  put_ops (gops, ops);
  std::fill (std::begin (form_of), std::end (form_of), -1);
  for (const gemmi::SmallStructure::Site &site : st.sites)
    {
      nb_atom a = {};
      unsigned el = (unsigned) site.element.elem;
      int mates;

      if ((long) atoms.size () >= NB_MODEL_ATOMS_MAX)
        return fail (err, NB_ERR_INVALID, "%s: more than %ld sites, the limit", path,
                     NB_MODEL_ATOMS_MAX);
      if (!gemmi::IT92<double>::has (site.element.elem) || el == 0 || el >= 256)
        return fail (err, NB_ERR_INVALID,
                     "%s: site %s has no X-ray form factor (type \"%s\")", path,
                     site.label.c_str (), site.type_symbol.c_str ());
      add_form (site.element, form_of, forms);
      a.xyz[0] = site.fract.x;
      a.xyz[1] = site.fract.y;
      a.xyz[2] = site.fract.z;
      a.B = gemmi::u_to_b () * site.u_iso;
      a.form = form_of[el];
      if (site.aniso.nonzero ())
        {
          /* CIF's U^ij act on h_i a*_i: in fractional terms U^ij a*_i a*_j */
          const double r[3] = { st.cell.ar, st.cell.br, st.cell.cr };

          a.U[0] = site.aniso.u11 * r[0] * r[0];
          a.U[1] = site.aniso.u22 * r[1] * r[1];
          a.U[2] = site.aniso.u33 * r[2] * r[2];
          a.U[3] = site.aniso.u12 * r[0] * r[1];
          a.U[4] = site.aniso.u13 * r[0] * r[2];
          a.U[5] = site.aniso.u23 * r[1] * r[2];
          aniso++;
        }
      for (double v : { a.xyz[0], a.xyz[1], a.xyz[2], site.occ, a.B, a.U[0], a.U[1], a.U[2],
                        a.U[3], a.U[4], a.U[5] })
        if (!std::isfinite (v))
          return fail (err, NB_ERR_INVALID, "%s: site %s: a number missing or not finite", path,
                       site.label.c_str ());
      mates = symmetry_mates (st.cell, ops, a.xyz);
      special += mates > 0;
      a.occupancy = site.occ / (mates + 1);
      atoms.push_back (a);
    }
  if (atoms.empty ())
    return fail (err, NB_ERR_INVALID, "%s: no sites in its _atom_site_ loop", path);
  if (put_atoms (path, ops, forms, atoms, out, err) != NB_OK)
    return NB_ERR_NOMEM;
  snprintf (out->note, sizeof out->note,
            "small-molecule CIF: %ld sites of %d elements (%ld anisotropic, %ld on special "
            "positions), space group %s (%d operators, from %s)",
            out->n_atoms, out->n_forms, aniso, special, name.empty () ? "unnamed" : name.c_str (),
            out->n_symops, how.c_str ());
  return NB_OK;
}

/* The amplitudes of the first merged block's first column of F (or of I,
 * converted): the columns deposited files use, in this order. */
nb_status
read_reflections (const char *path, gemmi::cif::Document &doc, nb_structure *out, nb_error *err)
{
  static const char *const f_tags[] = { "F_meas_au", "F_meas", "F_calc", "F_calc_au" };
  static const char *const i_tags[] = { "intensity_meas", "F_squared_meas", "intensity_calc",
                                        "F_squared_calc" };
  std::vector<gemmi::ReflnBlock> blocks = gemmi::as_refln_blocks (std::move (doc.blocks));
  std::vector<nb_symop> ops;
  std::vector<int> hkl;
  std::vector<double> F;
  long negative = 0, missing = 0;

  for (gemmi::ReflnBlock &rb : blocks)
    {
      const char *tag = nullptr;
      bool intensity = false;

      if (!rb.ok () || rb.is_unmerged ())
        continue;
      for (const char *t : f_tags)
        if (tag == nullptr && rb.find_column_index (t) >= 0)
          tag = t;
      for (const char *t : i_tags)
        if (tag == nullptr && rb.find_column_index (t) >= 0)
          tag = t, intensity = true;
      if (tag == nullptr)
        continue;
      if (!rb.cell.is_crystal ())
        return fail (err, NB_ERR_INVALID, "%s: block %s has reflections but no unit cell", path,
                     rb.block.name.c_str ());
      put_cell_and_symmetry (rb.cell, rb.spacegroup, out, ops);
      if (!valid_cell (out))
        return fail (err, NB_ERR_INVALID, "%s: impossible unit cell %g %g %g %g %g %g", path,
                     out->cell[0], out->cell[1], out->cell[2], out->cell[3], out->cell[4],
                     out->cell[5]);
      std::vector<gemmi::Miller> idx = rb.make_miller_vector ();
      std::vector<double> v = rb.make_vector<double> (tag, NAN);
      for (size_t i = 0; i < idx.size (); i++)
        {
          double f = v[i];

          if (std::isnan (f))
            {
              missing++;
              continue;
            }
          if (!std::isfinite (f))
            return fail (err, NB_ERR_INVALID, "%s: %s of %d %d %d is infinite", path, tag,
                         idx[i][0], idx[i][1], idx[i][2]);
          if (intensity)
            {
              /* F = sqrt(I), negative intensities (noise about zero) as 0 */
              negative += f < 0.0;
              f = f > 0.0 ? std::sqrt (f) : 0.0;
            }
          else if (f < 0.0)
            return fail (err, NB_ERR_INVALID, "%s: negative amplitude %s %g of %d %d %d", path,
                         tag, f, idx[i][0], idx[i][1], idx[i][2]);
          hkl.insert (hkl.end (), { idx[i][0], idx[i][1], idx[i][2] });
          F.push_back (f);
        }
      if (F.empty ())
        return fail (err, NB_ERR_INVALID, "%s: no reflection has a value of %s", path, tag);
      out->kind = NB_STRUCTURE_REFLECTIONS;
      out->n_symops = (int) ops.size ();
      out->symops = copy_out (ops);
      out->n_reflections = (long) F.size ();
      out->hkl = copy_out (hkl);
      out->F = copy_out (F);
      if (out->symops == nullptr || out->hkl == nullptr || out->F == nullptr)
        return fail (err, NB_ERR_NOMEM, "%s: out of memory", path);
      snprintf (out->column, sizeof out->column, "%s", tag);
      snprintf (out->note, sizeof out->note,
                "%ld reflections of _refln.%s%s, %ld without a value; space group %s",
                out->n_reflections, tag,
                intensity ? (negative > 0 ? " as F = sqrt(I), negative I as 0" : " as F = sqrt(I)")
                          : "",
                missing, out->space_group);
      return NB_OK;
    }
  return fail (err, NB_ERR_PARSE,
               "%s: a CIF file with neither atoms (_atom_site) nor merged amplitudes or intensities "
               "(_refln.F_meas_au, _refln.intensity_meas...)",
               path);
}

bool
looks_like_cif (const std::string &text)
{
  size_t i = 0;

  while (i < text.size ())
    {
      size_t end = text.find ('\n', i);
      std::string line = text.substr (i, end == std::string::npos ? std::string::npos : end - i);
      size_t first = line.find_first_not_of (" \t\r");

      if (first != std::string::npos && line[first] != '#')
        return line.compare (first, 5, "data_") == 0 || line.compare (first, 5, "DATA_") == 0;
      if (end == std::string::npos)
        break;
      i = end + 1;
    }
  return false;
}

/* An old PDB file (before format 3) has the entry's id in columns 73-76 of
 * every record, where format 3 has the element and charge: 1 when the
 * HEADER's id (columns 63-66) is there in the first ATOM or HETATM record. */
bool
old_pdb_layout (const std::string &text)
{
  std::string id;
  size_t i = 0;

  while (i < text.size ())
    {
      size_t end = text.find ('\n', i);
      std::string line = text.substr (i, end == std::string::npos ? std::string::npos : end - i);

      if (line.compare (0, 6, "HEADER") == 0 && line.size () >= 66)
        id = line.substr (62, 4);
      if (line.compare (0, 6, "ATOM  ") == 0 || line.compare (0, 6, "HETATM") == 0)
        return !id.empty () && id != "    " && line.size () >= 76 && line.compare (72, 4, id) == 0;
      if (end == std::string::npos)
        break;
      i = end + 1;
    }
  return false;
}

/* @text with every line gemmi 0.5.7 takes for an SSBOND, LINK or CISPEP
 * record (its first four letters, in any case) padded with spaces to 80
 * columns: gemmi reads such a record's distance, columns 74-78, from a line
 * longer than 73 columns however short it is, past the end of its copy of
 * the line (AddressSanitizer, fuzz-model).  Spaces at the end of a PDB
 * record change nothing. */
std::string
pad_connection_records (const std::string &text)
{
  std::string padded;
  size_t i = 0;

  padded.reserve (text.size ());
  while (i < text.size ())
    {
      size_t end = text.find ('\n', i);
      size_t stop = end == std::string::npos ? text.size () : end;
      char id[4] = { 0, 0, 0, 0 };

      padded.append (text, i, stop - i);
      for (size_t k = 0; k < 4 && i + k < stop; k++)
        id[k] = (char) (text[i + k] & ~0x20);
      if (stop - i < 80 && (memcmp (id, "SSBO", 4) == 0 || memcmp (id, "LINK", 4) == 0 ||
                            memcmp (id, "CISP", 4) == 0))
        padded.append (80 - (stop - i), ' ');
      if (end == std::string::npos)
        break;
      padded += '\n';
      i = end + 1;
    }
  return padded;
}

nb_status
read_text (const char *path, const std::string &text, nb_structure *out, nb_error *err)
{
  if (looks_like_cif (text))
    {
      gemmi::cif::Document doc = gemmi::cif::read_memory (text.data (), text.size (), path);
      bool atoms = false;

      for (gemmi::cif::Block &b : doc.blocks)
        atoms = atoms || b.find_values ("_atom_site.Cartn_x").length () > 0;
      if (atoms)
        return read_atoms (path, gemmi::make_structure (doc), out, err);
      for (gemmi::cif::Block &b : doc.blocks)
        if (b.find_values ("_atom_site_fract_x").length () > 0)
          return read_small (path, b, out, err);
      return read_reflections (path, doc, out, err);
    }
  gemmi::PdbReadOptions options;
  bool old = old_pdb_layout (text);
  size_t last = text.find_last_of ('\n', text.size () - 2);
  std::string tail = text.substr (last == std::string::npos ? 0 : last + 1);
  long lines = (long) std::count (text.begin (), text.end (), '\n');

  /* a copy cut short ends inside a record: gemmi would read the atoms before */
  if (text.back () != '\n' && (tail.compare (0, 6, "ATOM  ") == 0 ||
                                tail.compare (0, 6, "HETATM") == 0 || tail.compare (0, 6, "ANISOU") == 0)
      && tail.size () < 66)
    return fail (err, NB_ERR_PARSE, "%s:%ld: truncated: the last record is cut short (%zu columns)",
                 path, lines + 1, tail.size ());

  if (old)
    options.max_line_length = 72;
  std::string padded = pad_connection_records (text);
  nb_status st = read_atoms (
      path, gemmi::read_pdb_from_memory (padded.data (), padded.size (), path, options), out, err);
  if (st == NB_OK && old)
    snprintf (out->note + strlen (out->note), sizeof out->note - strlen (out->note),
              "; columns 73-80 hold the entry's id and line numbers (an old PDB file): read to "
              "column 72");
  if (st == NB_OK && text.find ("\nEND") == std::string::npos)
    snprintf (out->note + strlen (out->note), sizeof out->note - strlen (out->note),
              "; WARNING: no END record, the file may be truncated");
  return st;
}

void
clear (nb_structure *m)
{
  free (m->symops);
  free (m->forms);
  free (m->atoms);
  free (m->hkl);
  free (m->F);
  memset (m, 0, sizeof *m);
}

nb_status
read (const char *path, int fd, size_t max_bytes, nb_structure *out, nb_error *err)
{
  nb_status st;

  memset (out, 0, sizeof *out);
  try
    {
      std::string text;

      if ((st = slurp (path, fd, max_bytes, text, err)) == NB_OK)
        st = read_text (path, text, out, err);
    }
  catch (const std::bad_alloc &)
    {
      st = fail (err, NB_ERR_NOMEM, "%s: out of memory", path);
    }
  catch (const std::exception &e)
    {
      /* gemmi's parse errors; they name the line ("...:12: ...") where the
       * parser knows it */
      const char *what = e.what ();
      size_t n = strlen (path);

      if (strncmp (what, path, n) == 0 && what[n] == ':')
        st = fail (err, NB_ERR_PARSE, "%s", what);
      else
        st = fail (err, NB_ERR_PARSE, "%s: %s", path, what);
    }
  catch (...)
    {
      st = fail (err, NB_ERR_PARSE, "%s: unreadable", path);
    }
  if (st != NB_OK)
    clear (out);
  return st;
}

const nb_models table = { NB_MODELS_ABI, sizeof (nb_models), read };

} // namespace

const nb_models *
nb_models_module_open (unsigned abi)
{
  return abi == NB_MODELS_ABI ? &table : nullptr;
}
