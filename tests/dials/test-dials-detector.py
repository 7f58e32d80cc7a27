#!/usr/bin/python3
"""The multi-panel geometry readers and writer against dxtbx itself (suite 'dials'), TAP.

Issue 29: for each DIALS experiment list of tests/data/detectors (a 64-sensor CSPAD with its
panel hierarchy, a one-panel Pilatus with module-gap mask rectangles), the model our .expt
reader builds (printed by tests/detector-tool), converted back to dxtbx's frame, equals
dxtbx's own detector panel by panel: origin (mm), fast and slow axes to 1e-9, image size,
pixel size, thickness, material, mu and the number of masked pixels; and the beam
(sample-to-source direction, wavelength).  Without DIALS the test is skipped, saying so.
"""
import json
import os
import subprocess
import sys
import traceback

TOOL = os.environ["NB_DETECTOR_TOOL"]
DATA = os.path.join(os.environ["G_TEST_SRCDIR"], "data", "detectors")
EXPT = ["dials-cspad-single-image.expt", "dials-pilatus-lpe4-2-a15.expt"]
TOL = 1e-9


def have_dxtbx():
    try:
        import dxtbx.model.experiment_list  # noqa: F401
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
    p = subprocess.run([TOOL, "print", kind, path], capture_output=True, text=True)
    assert p.returncode == 0, "detector-tool: %s" % p.stderr
    return json.loads(p.stdout)


def compare_detector(ours, detector, beam=None):
    """Our printed model against a dxtbx Detector (and Beam)."""
    assert len(ours["panels"]) == len(detector), \
        "%d panels, dxtbx %d" % (len(ours["panels"]), len(detector))
    for i, (p, d) in enumerate(zip(ours["panels"], detector)):
        what = "panel %d (%s)" % (i, d.get_name())
        assert p["name"] == d.get_name() or (d.get_name() == "" and p["name"] == str(i)), what
        close(to_dxtbx(p["pix0"], 1e3), d.get_origin(), TOL, what + " origin")
        close(to_dxtbx(p["fdet"]), d.get_fast_axis(), TOL, what + " fast axis")
        close(to_dxtbx(p["sdet"]), d.get_slow_axis(), TOL, what + " slow axis")
        assert (p["fpixels"], p["spixels"]) == tuple(d.get_image_size()), what + " image size"
        close([p["pixel_size"] * 1e3] * 2, d.get_pixel_size(), 1e-12, what + " pixel size")
        close([p["thick"] * 1e3], [d.get_thickness()], 1e-12, what + " thickness")
        close([p["mu"] * 1e-3], [d.get_mu()], 1e-9, what + " mu")
        assert p["material"] == d.get_material(), what + " material"
        trusted = d.get_untrusted_rectangle_mask()
        assert p["masked"] == len(trusted) - trusted.count(True), \
            "%s: %d masked pixels, dxtbx %d" % (what, p["masked"], len(trusted) - trusted.count(True))
    if beam is not None:
        close(to_dxtbx([-x for x in ours["beam"]]), beam.get_sample_to_source_direction(), TOL,
              "beam direction")
        close([ours["wavelength"] * 1e10], [beam.get_wavelength()], 1e-12, "wavelength")


tests = []


def check(name):
    def wrap(fn):
        tests.append((name, fn))
        return fn
    return wrap


for expt in EXPT:
    @check("expt reader = dxtbx: " + expt)
    def _(expt=expt):
        from dxtbx.model.experiment_list import ExperimentListFactory
        path = os.path.join(DATA, expt)
        el = ExperimentListFactory.from_json_file(path, check_format=False)
        compare_detector(model_of("expt", path), el.detectors()[0], el.beams()[0])


def main():
    if not have_dxtbx():
        print("1..0 # SKIP dxtbx (Debian python3-dials) is not installed")
        return 0
    print("1..%d" % len(tests))
    failed = 0
    for n, (name, fn) in enumerate(tests, 1):
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


if __name__ == "__main__":
    sys.exit(main())
