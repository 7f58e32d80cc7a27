#!/usr/bin/env python3
"""Checks the engine's layers: a file in one of engine/'s folders includes
only headers of its own folder, of the folders on the floors below it and the
public headers of engine/include/ (docs/architecture.md draws the map; each
folder's README.md says what lives there).

The floors, from the bottom up, are FLOORS; the folders on one floor do not
use each other.  Private headers are named from engine/ ("model/nb-model.h")
and those of the file's own folder by their name alone ("nb-model.h"), so an
include says which layer it reaches into.  A name that is neither a header of
the file's folder nor of engine/include/ nor a known folder's is an error too:
the check would not see the arrow it draws.

With --objects BUILDDIR it checks the calls instead, from the symbols of the
engine library's objects (nm): a call into a higher folder or one beside it
fails, and so do files that call each other in a circle, within a folder or
across, unless SAME_UNIT names them as one unit split for size.  It then
checks the programs and libraries above the engine the same way, one linked
whole at a time (PROGRAMS: each cli/ program, libbraggscope, libbraggscope-gtk,
the ui/ program): files of one folder that call each other in a circle fail
unless PROGRAM_UNITS names them as one unit split for size.

usage: check-layers.py [SRCDIR]                     (the includes)
       check-layers.py SRCDIR --objects BUILDDIR    (the calls)
TAP on stdout; exits 1 on a violation.
"""
import glob
import os
import re
import subprocess
import sys

# From the bottom up; a floor is a tuple of folders that may not use each other.
FLOORS = (
    ("base",),
    ("formats",),
    ("frames",),
    ("params",),
    ("model",),
    ("kernels",),
    ("plan",),
    ("fit", "series"),
)
SUFFIXES = (".c", ".h", ".cu")
# Files of one folder that call each other because they are one unit split for
# size (each such set also said in its folder's README.md); none today.
SAME_UNIT = (
)
# The linked wholes above the engine: (name, globs of meson's object folders
# under the build folder); a glob matching several folders makes one whole of
# each (the cli/ programs).  Objects meson generates (resources) are left out.
PROGRAMS = (
    ("cli", ("cli/*.p",), True),
    ("plugin", ("plugin/libbraggscope-[0-9]*.p",), False),
    ("plugin/gtk", ("plugin/gtk/libbraggscope-gtk*.p",), False),
    ("ui", ("ui/libbraggscope-ui*.p", "ui/braggscope.p"), False),
)
# Files above the engine that call each other because they are one unit split
# for size, each with its reason (as short as honest).
PROGRAM_UNITS = (
    # BraggscopeSimulation's own methods: its class installs and dispatches
    # the property table (-properties.c), which dispatches to the measured
    # frame's properties (-measured.c); their setters notify, ask for a frame
    # and fit through simulation.c, which hands deliveries, scores and ended
    # fits back to them.  Its worker, waits and render_frame are not in it
    ("plugin/braggscope-simulation.c", "plugin/braggscope-simulation-measured.c",
     "plugin/braggscope-simulation-properties.c"),
    # BraggscopeView's own methods: its property table (-properties.c)
    # dispatches to the setters of each file, and each setter notifies through
    # the table; the drawing paths (-gl.c, -software.c, -render.c) are not in it
    ("plugin/gtk/braggscope-view.c", "plugin/gtk/braggscope-view-compare.c",
     "plugin/gtk/braggscope-view-marks.c", "plugin/gtk/braggscope-view-properties.c"),
    # BraggscopeGeometry's own methods: its queries find a point's panel
    # (-panels.c), whose panels and projection are geometries made and freed
    # by geometry.c's
    ("plugin/braggscope-geometry.c", "plugin/braggscope-geometry-panels.c"),
)
# Circles known and not yet broken: reported as TAP TODO, so they show in
# every run without failing it.  Remove an entry when it is broken; none today
# (issue 28 broke those of the overlay, of ui/'s window and of libbraggscope).
LEFT_FOR_NOW = (
)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def floor_of(folder):
    for i, floor in enumerate(FLOORS):
        if folder in floor:
            return i
    return None


def check_file(engine, path, problems):
    rel = os.path.relpath(path, engine)
    folder = rel.split(os.sep)[0]
    own = floor_of(folder)
    here = os.path.dirname(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m is None:
                continue
            name = m.group(1)
            where = "engine/%s:%d: #include \"%s\"" % (rel, number, name)
            if os.path.isfile(os.path.join(here, name)):
                target = os.path.relpath(os.path.normpath(os.path.join(here, name)), engine)
                if target.split(os.sep)[0] != folder:
                    problems.append("%s: name another folder's header from engine/" % where)
                continue
            if os.path.isfile(os.path.join(engine, "include", name)):
                continue
            other = name.split("/")[0]
            theirs = floor_of(other)
            if theirs is None or not os.path.isfile(os.path.join(engine, name)):
                problems.append("%s: not a header of this folder, of include/ or of a layer" % where)
            elif other == folder:
                continue
            elif theirs >= own:
                problems.append(
                    "%s: %s/ may use only the folders below it (%s), not %s/"
                    % (where, folder, ", ".join(f + "/" for fl in FLOORS[:own] for f in fl) or "none",
                       other))


def symbols(obj):
    """The (defined, undefined) external symbols of an object file."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[1] == "U":
            undefined.add(parts[0])
        elif parts[1].isupper():
            defined.add(parts[0])
    return defined, undefined


def circles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def program_wholes(build):
    """(name, {file: symbols}) for each linked whole of PROGRAMS found."""
    wholes = []
    for name, patterns, each in PROGRAMS:
        folders = sorted(d for pat in patterns for d in glob.glob(os.path.join(build, pat))
                         if os.path.isdir(d))
        if not folders:
            # a folder that was built but whose objects the globs miss is the
            # check's own mistake (a renamed target), not a pass
            wholes.append((name, None))
            continue
        groups = [[d] for d in folders] if each else [folders]
        for group in groups:
            table = {}
            for d in group:
                for o in sorted(glob.glob(os.path.join(d, "*.o"))):
                    base = os.path.basename(o)[:-2]
                    if base.startswith("meson-generated_"):
                        continue
                    # "../cli/x.c" is built as "cli_x.c.o"; files of the folder by their name
                    file = base if "_" not in base else base.replace("_", "/")
                    table[name + "/" + file if "/" not in file else file] = symbols(o)
            label = name if not each else "%s (%s)" % (name, os.path.basename(group[0])[:-2])
            wholes.append((label, table))
    return wholes


def check_programs(build, n):
    """TAP lines for PROGRAMS, numbered from @n + 1; returns (count, failed)."""
    failed = False
    try:
        wholes = program_wholes(build)
    except (OSError, subprocess.CalledProcessError) as e:
        print("# nm cannot read the programs' objects: %s" % e)
        return n, False
    units = [sorted(u) for u in PROGRAM_UNITS]
    left = [sorted(u) for u in LEFT_FOR_NOW]
    for label, table in wholes:
        if table is None:
            n += 1
            if glob.glob(os.path.join(build, label, "*")):
                failed = True
                print("not ok %d - no objects of %s found under %s/%s: update PROGRAMS"
                      % (n, label, build, label))
            else:
                print("ok %d - calls between the files of %s # SKIP not built" % (n, label))
            continue
        owner = {}
        for name, (defined, _) in table.items():
            for sym in defined:
                owner[sym] = name
        graph = {name: {owner[s] for s in undefined if s in owner and owner[s] != name}
                 for name, (_, undefined) in table.items()}
        problems, todo = [], []
        for comp in circles(graph):
            if comp in left:
                todo.append("a call circle left for now: %s" % ", ".join(comp))
            elif comp not in units:
                calls = ["%s calls %s: %s" % (a, b, ", ".join(sorted(
                    s for s in table[a][1] if owner.get(s) == b)))
                    for a in comp for b in sorted(graph[a]) if b in comp]
                problems.append("a call circle: %s" % ", ".join(comp))
                problems.extend("  " + c for c in calls)
        n += 1
        if problems:
            failed = True
            print("not ok %d - calls between the files of %s (%d objects)" % (n, label, len(table)))
            for p in problems:
                print("# " + p)
        elif todo:
            print("not ok %d - calls between the files of %s # TODO %s"
                  % (n, label, "; ".join(todo)))
        else:
            print("ok %d - calls between the %d files of %s go one way" % (n, len(table), label))
    return n, failed


def check_calls(build):
    # meson's objects of the engine library: <folder>_<file>.o ("params_param.c.o")
    objs = sorted(glob.glob(os.path.join(build, "engine", "libnanobragg*.p", "*.o")))
    try:
        table = {os.path.basename(o)[:-2].replace("_", "/"): symbols(o) for o in objs}
    except (OSError, subprocess.CalledProcessError) as e:
        print("1..0 # SKIP nm cannot read the engine's objects: %s" % e)
        return 0
    if not table:
        print("1..0 # SKIP no objects of the engine library under %s/engine" % build)
        return 0
    owner = {}
    for name, (defined, _) in table.items():
        for sym in defined:
            owner[sym] = name
    graph = {}
    for name, (_, undefined) in table.items():
        graph[name] = {owner[s] for s in undefined if s in owner and owner[s] != name}
    problems = []
    for a in sorted(graph):
        for b in sorted(graph[a]):
            fa, fb = a.split("/")[0], b.split("/")[0]
            if fa != fb and (floor_of(fb) is None or floor_of(fa) is None
                             or floor_of(fb) >= floor_of(fa)):
                problems.append("engine/%s calls engine/%s: %s/ may call only the folders below it"
                                % (a, b, fa))
    units = [sorted(u) for u in SAME_UNIT]
    for comp in circles(graph):
        if comp not in units:
            problems.append("a call circle: %s" % ", ".join("engine/" + c for c in comp))
    if problems:
        print("not ok 1 - calls between the engine's files (%d objects)" % len(table))
        for p in problems:
            print("# " + p)
    else:
        print("ok 1 - calls between the engine's %d objects go down, without circles" % len(table))
    n, failed = check_programs(build, 1)
    print("1..%d" % n)
    return 1 if problems or failed else 0


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    if len(sys.argv) > 3 and sys.argv[2] == "--objects":
        return check_calls(sys.argv[3])
    engine = os.path.join(root, "engine")
    n = 0
    failed = False
    known = {f for floor in FLOORS for f in floor} | {"include"}
    for entry in sorted(os.listdir(engine)):
        if os.path.isdir(os.path.join(engine, entry)) and entry not in known:
            n += 1
            failed = True
            print("not ok %d - engine/%s/ is on no floor of check-layers.py's FLOORS" % (n, entry))
    for floor in FLOORS:
        for folder in floor:
            problems = []
            top = os.path.join(engine, folder)
            if not os.path.isdir(top):
                problems.append("engine/%s/ is missing" % folder)
            for dirpath, dirnames, filenames in os.walk(top):
                dirnames.sort()
                for name in sorted(filenames):
                    if name.endswith(SUFFIXES):
                        check_file(engine, os.path.join(dirpath, name), problems)
            if not os.path.isfile(os.path.join(top, "README.md")):
                problems.append("engine/%s/README.md is missing" % folder)
            n += 1
            if problems:
                failed = True
                print("not ok %d - engine/%s/" % (n, folder))
                for p in problems:
                    print("# " + p)
            else:
                print("ok %d - engine/%s/ uses only the floors below it" % (n, folder))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
