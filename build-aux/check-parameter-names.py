#!/usr/bin/env python3
"""Checks that a parameter's name is written in at most two source files.

A parameter's meaning (its flag, unit, range, stages, side effects, property)
is written once, in the engine's parameter table (engine/params/param-table.c); the
controls' layout (plugin/gtk/braggscope-controls.c) names the properties it
places.  Any other file of the engine, the CLI or the libraries that spells a
parameter's flag or property as a string restates what the table says, and
fails this check.

Counted: the string literals (comments left out) of the C, header and CUDA
files of engine/, cli/ and plugin/, less NOT_PARAMETERS (a file format's
names that happen to spell a parameter's).  Not counted: the tests, and the programs
that use the libraries as a host would (ui/, plugin/examples/, the drag
benchmark): a host names the property it sets; that is the API in use, not a
second statement of what the parameter is.

usage: check-parameter-names.py [SRCDIR]
"""
import os
import re
import sys

# (flag, property) pairs probed; each may appear in at most MAX_FILES files
PARAMETERS = [
    ("-distance", "distance"),
    ("-misset", "misset-x"),
    ("-mosaic_domains", "mosaic-domains"),
    ("-lambda", "wavelength"),
    ("-oversample", "oversample"),
    ("-water", "water"),
]
MAX_FILES = 2
FOLDERS = ("engine", "cli", "plugin")
HOSTS = ("plugin/examples/", "cli/braggscope-drag-bench.c")

# Strings that spell a parameter's name but name something else: (file,
# string) and why.  A file format's own names are the format's, not a
# restatement of the table.
NOT_PARAMETERS = {
    ("engine/formats/frame-write-nexus.c", "distance"): "NXdetector/distance, a field of the NXmx format",
    ("engine/frames/frame.c", "distance"): "nb_frame_item_name: the header item NB_FRAME_DISTANCE",
    ("engine/frames/frame.c", "wavelength"): "nb_frame_item_name: the header item NB_FRAME_WAVELENGTH",
    ("engine/formats/frame-write-cbf.c", "wavelength"):
        "_diffrn_radiation_wavelength.wavelength, an item of the imgCIF dictionary",
    ("engine/formats/detector-expt.c", "wavelength"):
        "a dxtbx beam's \"wavelength\", a key of DIALS' experiment-list JSON",
}

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def sources(root):
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".c", ".h", ".cu")):
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, root)
                    if not rel.startswith(HOSTS):
                        yield rel, path


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    literals = {}
    for rel, path in sources(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = COMMENT.sub(" ", f.read())
        literals[rel] = set(LITERAL.findall(text)) - {
            string for (where, string) in NOT_PARAMETERS if where == rel}
    failed = False
    for flag, prop in PARAMETERS:
        files = [rel for rel, found in literals.items() if flag in found or prop in found]
        state = "ok" if len(files) <= MAX_FILES else "too many"
        print("check-parameter-names: %s/%s in %d file%s (%s): %s"
              % (flag, prop, len(files), "" if len(files) == 1 else "s", state,
                 ", ".join(files) or "none"))
        failed |= len(files) > MAX_FILES
    if not literals:
        print("check-parameter-names: no source files under %s" % root)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
