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

A second list, SAME_UNIT, names the files of one folder that call each other
because they are one unit split for size; the check does not look at calls
(docs/architecture.md says how to list them with nm).

usage: check-layers.py [SRCDIR]   (TAP on stdout; exits 1 on a violation)
"""
import os
import re
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


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
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
