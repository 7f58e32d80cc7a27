"""What the dxtbx checks of tests/dials share (test-dials-detector.py, test-dials-i23.py).

Our models as tests/detector-tool prints them, the frame conversion to dxtbx's, the
comparison, and the checks run as a TAP plan, skipped when dxtbx (Debian python3-dials)
is missing.  The scripts import it from their own folder (python puts a script's folder
first on sys.path), so it works from any build folder.
"""
import importlib
import json
import os
import subprocess
import sys
import traceback

TOOL = os.environ["NB_DETECTOR_TOOL"]

tests = []


def have_dxtbx(module="dxtbx"):
    try:
        importlib.import_module(module)
        return True
    except ImportError:
        return False


def to_dxtbx(v, scale=1.0):
    """nanoBragg's laboratory frame (beam along +x) to dxtbx's (beam along -z):
    nanoBragg = (-z_d, y_d, x_d), so dxtbx = (z_nb, y_nb, -x_nb)."""
    return (v[2] * scale, v[1] * scale, -v[0] * scale)


def close(a, b, tol, what):
    assert len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b)), \
        "%s: ours %s, dxtbx %s" % (what, tuple(a), tuple(b))


def model_of(kind, path):
    """Our model of geometry file @path (@kind: expt, nxmx, geom...) as detector-tool prints it."""
    p = subprocess.run([TOOL, "print", kind, path], capture_output=True, text=True)
    assert p.returncode == 0, "detector-tool: %s" % p.stderr
    return json.loads(p.stdout)


def check(name, needs_dxtbx=True):
    """Adds the decorated function to the plan as the check @name."""
    def wrap(fn):
        tests.append((name, fn, needs_dxtbx))
        return fn
    return wrap


def run(dxtbx_module="dxtbx"):
    """The checks as TAP on stdout; 1 when one failed.  Without @dxtbx_module the checks
    that need it are skipped, and a plan of only those is skipped whole."""
    dxtbx = have_dxtbx(dxtbx_module)
    if not dxtbx and all(needs for _, _, needs in tests):
        print("1..0 # SKIP dxtbx (Debian python3-dials) is not installed")
        return 0
    print("1..%d" % len(tests))
    failed = 0
    for n, (name, fn, needs_dxtbx) in enumerate(tests, 1):
        if needs_dxtbx and not dxtbx:
            print("ok %d - %s # SKIP dxtbx (Debian python3-dials) is not installed" % (n, name))
            continue
        try:
            fn()
            print("ok %d - %s" % (n, name))
        except Exception:
            failed += 1
            print("not ok %d - %s" % (n, name))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
        sys.stdout.flush()
    return 1 if failed else 0
