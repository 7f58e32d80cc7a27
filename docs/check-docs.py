#!/usr/bin/env python3
"""check-docs.py: the API reference is complete.  TAP, one line per symbol with a problem.

usage: check-docs.py [--gi-docgen PROG] [--pending FILE] [--log LOG]... [--add-include-path=DIR]...
                     GIR...

For every symbol of the GIR files (classes, records, enums and their members, functions,
methods, constructors, properties, signals, constants, callbacks):

  - documented: `gi-docgen check` reports nothing about it (its description, every
    parameter and its return value);
  - `Since:` given (the element's version attribute);
  - a property of a number type names its unit (degrees, Å, mm, photons, pixels, ms, keV,
    or says it is a count or dimensionless);
  - a call that takes a GError names the errors it can raise (BRAGGSCOPE_ERROR_...);
  - its text has no gtk-doc sigils (#Type, function(), #Type::signal) but gi-docgen links,
    and every link ([class@Ns.Type], [method@Ns.Type.name], [property@Ns.Type:name],
    [signal@Ns.Type::name], [func@Ns.name], [enum@...], [struct@...], [id@c_symbol]...)
    names a symbol that exists, here or in an included namespace.

The warnings gi-docgen printed while it generated the HTML (its --log files) fail too.

A symbol listed in the --pending file (lines "SYMBOL  reason"; # comments) is one whose
documentation lives in a file being refactored: its problems are reported as TODO (an
expected failure), and a pending symbol without problems is an unexpected pass, so the list
cannot outlive the work.  Symbols are named Ns.Type (types), Ns.Type.member (methods,
functions, enum members), Ns.Type:property, Ns.Type::signal, Ns.function.
"""
import argparse
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

CORE = "http://www.gtk.org/introspection/core/1.0"
C = "http://www.gtk.org/introspection/c/1.0"
GLIB = "http://www.gtk.org/introspection/glib/1.0"


def q(tag, ns=CORE):
    return f"{{{ns}}}{tag}"


NUMBER_TYPES = {"gdouble", "gfloat", "gint", "guint", "gint64", "guint64", "glong", "gulong",
                "gint32", "guint32", "gint16", "guint16", "gint8", "guint8", "gsize", "gssize"}
# A unit, or the statement that the number has none.
UNIT = re.compile(r"(degrees?|°|Å|Angstrom|\bmm\b|µm|\bmrad\b|\brad\b|pixels?|photons?|"
                  r"\bms\b|milliseconds?|seconds?|\bkeV\b|\beV\b|per ?cent|%|\bm²|/m\^?2|"
                  r"dimensionless|\bcounts?\b|\bnumber of\b|\bfraction\b|\bratio\b|\bfactor\b)",
                  re.IGNORECASE)
ERROR_NAMED = re.compile(r"\b[A-Z][A-Z0-9]*_ERROR_[A-Z_]+\b|\[error@")
LINK = re.compile(r"\[(\w+)@([^\]\s]+)\]")
SIGIL_TYPE = re.compile(r"(?<![\w&`/])#[A-Z][A-Za-z0-9]+")
SIGIL_FUNC = re.compile(r"(?<![\w@`.])[a-z][a-z0-9]*_[a-z0-9_]+\(\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


class Symbol:
    def __init__(self, name, kind, element, owner=None):
        self.name = name  # as the pending list and the TAP lines write it
        self.kind = kind
        self.element = element
        self.owner = owner  # the enclosing type's element
        self.problems = []

    @property
    def doc(self):
        d = self.element.find(q("doc"))
        return d.text if d is not None and d.text else ""

    @property
    def where(self):
        for tag in ("doc", "source-position"):
            d = self.element.find(q(tag))
            if d is not None and d.get("filename"):
                return f"{d.get('filename')}:{d.get('line')}"
        return "no source position"


class Namespace:
    """The names a GIR file defines, for resolving links."""

    def __init__(self, root):
        ns = root.find(q("namespace"))
        self.name = ns.get("name")
        self.types = {}  # name -> element
        self.functions = set()
        self.constants = set()
        self.c_identifiers = set()
        for child in ns:
            name = child.get("name")
            if name is None:
                continue
            if child.tag in (q("function"), q("function-macro")):
                self.functions.add(name)
            elif child.tag == q("constant"):
                self.constants.add(name)
                self.types[name] = child
            else:
                self.types[name] = child
        for el in ns.iter():
            ident = el.get(q("identifier", C))
            if ident:
                self.c_identifiers.add(ident)

    def member(self, type_name, kind, member):
        t = self.types.get(type_name)
        if t is None:
            return False
        if kind == "property":
            return any(p.get("name") == member for p in t.findall(q("property")))
        if kind == "signal":
            return any(s.get("name") == member for s in t.findall(q("signal", GLIB)))
        tags = {"method": ("method",), "ctor": ("constructor",), "vfunc": ("virtual-method",),
                "func": ("function",), "member": ("member",)}[kind]
        return any(e.get("name") == member for tag in tags for e in t.findall(q(tag)))


def load_gir(path):
    return ET.parse(path).getroot()


def find_gir(name_version, include_paths):
    for d in include_paths:
        p = os.path.join(d, name_version + ".gir")
        if os.path.exists(p):
            return p
    return None


def gir_includes(path):
    """The (name, version) pairs a GIR file includes, read from its head only."""
    found = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.search(r'<include name="([^"]+)" version="([^"]+)"', line)
            if m:
                found.append(m.groups())
            elif "<namespace" in line:
                break
    return found


class Namespaces(dict):
    """Namespaces by name: those of the checked GIR files, and what they include (parsed
    only when a link names them: GTK's own GIR is large)."""

    def __init__(self, gir_paths, include_paths):
        super().__init__()
        self.paths = {}
        todo = list(gir_paths)
        while todo:
            path = todo.pop()
            name = os.path.basename(path).rsplit("-", 1)[0]
            if name in self.paths:
                continue
            self.paths[name] = path
            for inc, version in gir_includes(path):
                p = find_gir(f"{inc}-{version}", include_paths)
                if p is not None:
                    todo.append(p)

    def get(self, name, default=None):
        if name not in self and name in self.paths:
            self[name] = Namespace(load_gir(self.paths[name]))
        return super().get(name, default)

    def values(self):
        return [self.get(name) for name in self.paths]


def symbols_of(root):
    """Every documentable symbol of a GIR file, with its enclosing type."""
    ns = root.find(q("namespace"))
    nsname = ns.get("name")
    out = []
    for child in ns:
        name = child.get("name")
        tag = child.tag.split("}")[1]
        if name is None or child.get(q("is-gtype-struct-for", GLIB)) or child.get("disguised") == "1":
            continue
        if tag in ("function", "function-macro", "callback", "constant", "alias"):
            out.append(Symbol(f"{nsname}.{name}", tag, child))
            continue
        if tag not in ("class", "interface", "record", "union", "enumeration", "bitfield",
                       "boxed"):
            continue
        base = f"{nsname}.{name}"
        out.append(Symbol(base, tag, child))
        for m in child:
            mtag = m.tag.split("}")[1]
            mname = m.get("name")
            if mname is None:
                continue
            if mtag in ("method", "constructor", "function", "virtual-method", "member"):
                out.append(Symbol(f"{base}.{mname}", mtag, m, child))
            elif mtag == "property":
                out.append(Symbol(f"{base}:{mname}", "property", m, child))
            elif mtag == "signal":
                out.append(Symbol(f"{base}::{mname}", "signal", m, child))
            elif mtag == "field" and tag in ("record", "union") and m.get("private") != "1":
                out.append(Symbol(f"{base}.{mname}", "field", m, child))
    return nsname, out


def gidocgen_check(gidocgen, gir, includes):
    """gi-docgen check's complaints, by the symbol they name (gi-docgen's dotted names)."""
    cmd = [gidocgen, "check", "--quiet"] + [f"--add-include-path={d}" for d in includes] + [gir]
    r = subprocess.run(cmd, capture_output=True, text=True)
    text = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout + r.stderr)
    complaints = {}
    for line in text.splitlines():
        m = (re.search(r"Symbol '([^']+)' at \S+ is not documented", line)
             or re.search(r"Parameter '([^']+)' of symbol '([^']+)' is not documented", line)
             or re.search(r"Return value for symbol '([^']+)' is not documented", line))
        if m is None:
            continue
        if "Parameter" in line:
            complaints.setdefault(m.group(2), []).append(f"parameter {m.group(1)} undocumented")
        elif "Return value" in line:
            complaints.setdefault(m.group(1), []).append("return value undocumented")
        else:
            complaints.setdefault(m.group(1), []).append("undocumented")
    return complaints, r.returncode, text


def gidocgen_name(sym):
    """The name gi-docgen check gives @sym."""
    return sym.name.replace("::", ".").replace(":", ".")


def type_of(el):
    t = el.find(q("type"))
    return t.get("name") if t is not None else None


def all_docs(sym):
    """The symbol's own text, and its parameters' and return value's (not its members')."""
    texts = [sym.doc]
    for tag in ("parameters", "return-value"):
        part = sym.element.find(q(tag))
        if part is None:
            continue
        for d in part.iter(q("doc")):
            if d.text:
                texts.append(d.text)
    return texts


def check_link(fragment, target, spaces, current):
    """None when [fragment@target] resolves, else why not."""
    if fragment == "id":
        # a C symbol of the namespace its prefix names, or of any
        for s in sorted(spaces.paths, key=lambda n: not target.lower().startswith(n.lower())):
            if target in spaces.get(s).c_identifiers:
                return None
        return f"no C symbol {target}"
    ns, _, rest = target.partition(".")
    space = spaces.get(ns)
    if space is None:
        return f"unknown namespace {ns}"
    if fragment in ("class", "iface", "struct", "enum", "flags", "error", "alias", "callback",
                    "type", "const"):
        return None if rest in space.types else f"{ns} has no {rest}"
    if fragment == "func":
        if "." not in rest:
            return None if rest in space.functions else f"{ns} has no function {rest}"
        tname, _, fname = rest.partition(".")
        return None if space.member(tname, "func", fname) else f"{ns}.{tname} has no function {fname}"
    if fragment in ("method", "ctor", "vfunc"):
        tname, _, mname = rest.partition(".")
        return None if space.member(tname, fragment, mname) else f"{ns}.{tname} has no {fragment} {mname}"
    if fragment == "property":
        tname, _, pname = rest.partition(":")
        return None if space.member(tname, "property", pname) else f"{ns}.{tname} has no property {pname}"
    if fragment == "signal":
        tname, _, sname = rest.partition("::")
        return None if space.member(tname, "signal", sname) else f"{ns}.{tname} has no signal {sname}"
    return f"unknown link kind {fragment}"


def check_symbol(sym, spaces, nsname):
    el = sym.element
    if sym.kind == "field" and not sym.doc:
        sym.problems.append("undocumented field")
    if sym.kind not in ("member", "field") and el.get("version") is None:
        sym.problems.append("no Since:")
    if sym.kind == "property" and type_of(el) in NUMBER_TYPES and not UNIT.search(sym.doc):
        sym.problems.append(f"a {type_of(el)} property without a unit")
    if el.get("throws") == "1" and not ERROR_NAMED.search(sym.doc):
        sym.problems.append("takes a GError but names no error code (BRAGGSCOPE_ERROR_...)")
    for text in all_docs(sym):
        prose = CODE.sub("", text)
        for m in SIGIL_TYPE.finditer(prose):
            # (TAP reads a '#' as the start of a directive: the sigil is spelt out)
            sym.problems.append(f"gtk-doc sigil hash-{m.group(0)[1:]}: write a gi-docgen link")
        for m in SIGIL_FUNC.finditer(prose):
            sym.problems.append(f"gtk-doc sigil {m.group(0)}: write a gi-docgen link")
        for m in LINK.finditer(text):
            why = check_link(m.group(1), m.group(2), spaces, nsname)
            if why is not None:
                sym.problems.append(f"broken link {m.group(0)}: {why}")


def read_pending(path):
    """The pending symbols: none when there is no list, or when it holds only comments."""
    pending = {}
    if path is None or not os.path.exists(path):
        return pending
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, reason = line.partition(" ")
                pending[name] = reason.strip()
    return pending


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gi-docgen", default="gi-docgen")
    ap.add_argument("--pending")
    ap.add_argument("--log", action="append", default=[])
    ap.add_argument("--add-include-path", action="append", default=[])
    ap.add_argument("gir", nargs="+")
    args = ap.parse_args()

    includes = args.add_include_path + [os.path.dirname(os.path.abspath(g)) for g in args.gir]
    data_dirs = os.environ.get("XDG_DATA_DIRS", "/usr/local/share:/usr/share").split(":")
    system = [os.path.join(d, "gir-1.0") for d in data_dirs] + ["/usr/share/gir-1.0"]
    spaces = Namespaces(args.gir, includes + system)
    pending = read_pending(args.pending)

    n = 0
    n_checked = 0
    seen = set()
    out = []
    for gir in args.gir:
        root = load_gir(gir)
        nsname, symbols = symbols_of(root)
        complaints, status, text = gidocgen_check(args.gi_docgen, gir, includes)
        if status != 0 and not complaints:
            out.append(("not ok", f"gi-docgen check {os.path.basename(gir)} failed: {text.strip()}"))
        by_gidocgen = {gidocgen_name(s): s for s in symbols}
        for name, what in complaints.items():
            s = by_gidocgen.get(name)
            if s is None:
                out.append(("not ok", f"{name}: {', '.join(what)} (gi-docgen check)"))
            else:
                s.problems.extend(what)
        for s in symbols:
            check_symbol(s, spaces, nsname)
            seen.add(s.name)
            n_checked += 1
            problems = list(dict.fromkeys(s.problems))
            if s.name in pending:
                line = f"{s.name} ({s.where})"
                if problems:
                    out.append(("not ok", f"{line}: {'; '.join(problems)} # TODO {pending[s.name]}"))
                else:
                    out.append(("ok", f"{line}: documented now, remove it from pending-docs.txt"
                                      f" # TODO {pending[s.name]}"))
            elif problems:
                out.append(("not ok", f"{s.name} ({s.where}): {'; '.join(problems)}"))

    for name in pending:
        if name not in seen:
            out.append(("not ok", f"{name} is in pending-docs.txt but not in the API"))

    for log in args.log:
        with open(log, encoding="utf-8") as f:
            warnings = [l for l in re.sub(r"\x1b\[[0-9;]*m", "", f.read()).splitlines()
                        if "WARNING" in l or "ERROR" in l]
        # a link warning is followed by the offending line of text
        if warnings:
            out.append(("not ok", f"gi-docgen warned while generating {os.path.basename(log)}: "
                                  + " | ".join(warnings)))
        else:
            out.append(("ok", f"gi-docgen generated {os.path.basename(log)[:-4]} without a warning"))

    bad = sum(1 for status, line in out if status == "not ok" and "# TODO" not in line)
    out.append(("ok" if bad == 0 else "not ok",
                f"{n_checked} symbols checked in {', '.join(os.path.basename(g) for g in args.gir)}"
                f", {bad} with problems, {len(pending)} pending"))
    for status, line in out:
        n += 1
        text, todo, reason = line.partition(" # TODO ")
        print(f"{status} {n} - {text.replace('#', 'hash-')}{todo}{reason.replace('#', '')}")
    print(f"1..{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
