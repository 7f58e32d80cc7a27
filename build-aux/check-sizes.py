#!/usr/bin/env python3
"""Checks the sizes of the sources: no file over 1,500 lines, no function over
150 (data tables excepted), in engine/, cli/, plugin/ and ui/ (tests are not
counted).  A long file or function is one that wants splitting along its
seams.

Functions are found as the house style (GNU, clang-formatted) writes them: a
body opens with "{" in the first column after a line that is not a
declaration with "=" (a table), a struct, enum, union or extern "C" block,
and ends at the next "}" in the first column.

WAIVED lists functions (and, with None for the function, files) that
another branch is rewriting or that wait for their split: reported as TODO,
and an error once they are short enough to leave the list.

usage: check-sizes.py [SRCDIR]
"""
import os
import sys

MAX_FILE = 1500
MAX_FUNCTION = 150
FOLDERS = ("engine", "cli", "plugin", "ui")
SUFFIXES = (".c", ".h", ".cu")
# (file, first line of the function's name, or None: the file) -> why it may be long for now
WAIVED = {
}


def functions(lines):
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{"):
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            head = lines[j] if j >= 0 else ""
            if "=" in head or head.startswith(("struct", "enum", "union", "typedef", "extern")):
                start = None
                continue
            # the name: the nearest line above that opens a parameter list
            k = j
            while k > 0 and "(" not in lines[k]:
                k -= 1
            start = (i, lines[k].split("(")[0].strip() if "(" in lines[k] else head.strip())
            if lines[k].startswith("FN ("):
                start = (i, "FN (" + lines[k].split("(")[1].split(")")[0] + ")")
        elif line.startswith("}") and start is not None:
            yield start[1], start[0] + 1, i - start[0] + 1
            start = None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    n = 0
    failed = False
    seen = set()
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
                waived = WAIVED.get((rel, None))
                if waived is not None:
                    seen.add((rel, None))
                if len(lines) > MAX_FILE:
                    n += 1
                    failed |= waived is None
                    print("not ok %d - %s: %d lines (at most %d)%s"
                          % (n, rel, len(lines), MAX_FILE, "" if waived is None else " # TODO " + waived))
                elif waived is not None:
                    n += 1
                    failed = True
                    print("not ok %d - %s: %d lines now: remove it from WAIVED" % (n, rel, len(lines)))
                for fn, line, length in functions(lines):
                    waived = WAIVED.get((rel, fn))
                    if waived is not None:
                        seen.add((rel, fn))
                    if length <= MAX_FUNCTION and waived is None:
                        continue
                    n += 1
                    if waived is not None and length > MAX_FUNCTION:
                        print("not ok %d - %s:%d: %s is %d lines # TODO %s"
                              % (n, rel, line, fn, length, waived))
                    elif waived is not None:
                        failed = True
                        print("not ok %d - %s:%d: %s is %d lines now: remove it from WAIVED"
                              % (n, rel, line, fn, length))
                    else:
                        failed = True
                        print("not ok %d - %s:%d: %s is %d lines (at most %d)"
                              % (n, rel, line, fn, length, MAX_FUNCTION))
    for rel, fn in sorted(set(WAIVED) - seen):
        n += 1
        failed = True
        print("not ok %d - %s: %s is gone: remove it from WAIVED" % (n, rel, fn or "the file"))
    n += 1
    print("%s %d - files of at most %d lines, functions of at most %d"
          % ("not ok" if failed else "ok", n, MAX_FILE, MAX_FUNCTION))
    print("1..%d" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
