#!/usr/bin/python3
"""nanobragg-series and nanobragg through DIALS (suite 'dials'), with TAP output.

Issue 26: every format we write imports in dxtbx (DIALS 3.12, Debian's python3-dials) with
the simulated geometry, and a short rotation series of 1HPV goes through DIALS:
  - import: CBF, NeXus and SMV series in the MOSFLM, ADXV and XDS conventions, with and
    without a sensor, and plain `nanobragg -physical -intfile/-noisefile` images: the beam
    centre (0.01 px), the distance (0.001 mm), the wavelength, the pixel size, the
    oscillation, the rotation axis and the beam against the detector's own axes (which
    catches a mirrored or reversed geometry), the sensor, the exposure, the SMV pedestal;
    a real Pilatus 200K writes a miniCBF (dxtbx's FormatCBFMiniPilatus, its module gap
    counting -1 and masked), any other detector a full imgCIF file (FormatCBFFull);
    nanoBragg's ADXV frame written as SMV is the mirror image docs/series.md describes;
  - dials.find_spots and dials.index with the known symmetry on each format: the cell
    within 0.1 %, the orientation within 0.1 degree of the simulated one (one crystal
    without mosaic domains, so the -misset is its orientation exactly);
  - dials.integrate and dials.scale on the NeXus series: CC(I, |F|^2) of the merged
    intensities above CC_MIN (docs/series.md gives the figures it was chosen from).
Without DIALS (another distribution) the whole test is skipped, saying so.

Time (the CI budget is about 2 minutes on 2 cores): the series is rendered once, in every
format, while the import checks run; each format is then processed by one Python running
DIALS's commands through their run() functions (DIALS starts once, not five times), the
formats side by side; dials.index searches with fft1d for the known cell and refines the
five best candidates, not fifty.
"""
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

SERIES = os.environ["NB_SERIES"]
CLI = os.environ["NB_CLI"]
HKL = os.environ["NB_HKL"]
FORMATS = os.environ.get("NB_SERIES_FORMATS", "cbf,nexus,smv").split(",")
# measured with noise seeds 0, 1, 2, 3 (docs/series.md): 0.9022, 0.9081, 0.9008, 0.9073; the
# noise moves it by 0.003 (sd), the partial spots of 8 frames hold it near 0.90: 0.85 is 15 sd
# below their mean, and a wrong scale, mask or geometry would go far lower
CC_MIN = 0.85

CELL = [63.4, 63.4, 83.8, 90, 90, 120]
# a small, fast 1HPV rotation series: 256 x 256 pixels of 0.172 mm, 8 frames of 1 degree;
# one crystal of 10 x 10 x 10 cells with no mosaic domains: its orientation is the -misset
# exactly (mosaic domains would turn the mean orientation by their mean rotation, 0.07
# degree for 10 domains of 0.2 degree, and make the render 10 times slower)
PROCESS = ["-hkl", HKL, "-cell"] + [str(c) for c in CELL] + [
    "-misset", "10", "20", "30", "-lambda", "1.0", "-N", "10", "-fluence", "1e26",
    "-phisteps", "5", "-distance", "50", "-detpixels", "256", "-pixel", "0.172", "-osc", "1",
    "-adc", "0"]
# nanoBragg samples a frame's rotation at the start of each of its -phisteps (phi0 + j x
# phistep, j = 0 .. phisteps - 1): the frame is a continuous rotation's of the crystal turned by
# -phistep / 2 about the spindle, the orientation dials.index finds (0.1 degree here)
PHISTEP = float(PROCESS[PROCESS.index("-osc") + 1]) / int(PROCESS[PROCESS.index("-phisteps") + 1])
# dials.index with the known symmetry: fft1d finds the cell it is given in a second; of the
# candidates only the best five are refined (the default 50 cost 30 s here and change nothing in
# a simulated geometry: the detector and beam are fixed); nproc=1: the formats run side by side
INDEX = ["space_group=P61", "unit_cell=" + ",".join(str(c) for c in CELL), "detector.fix=all",
         "beam.fix=all", "indexing.method=fft1d",
         "indexing.basis_vector_combinations.max_refine=5"]
SCALE = ["output.html=None"]
# a pixel-array detector's spots: dxtbx's FormatCBFFull says "unknown" for the type of any
# detector, for which DIALS takes a CCD's minimum spot size, 6 pixels (a third of the spots)
FIND_SPOTS = ["spotfinder.filter.min_spot_size=3"]
# a tiny, not square scene for the geometry: no structure factors needed
GEOMETRY = ["-default_F", "100", "-cell", "100", "100", "100", "90", "90", "90",
            "-lambda", "1.2", "-N", "3", "-distance", "80", "-detpixels_x", "64",
            "-detpixels_y", "48", "-pixel", "0.1", "-osc", "0.5", "-phi", "10"]
CONVENTIONS = {
    # flags, beam, polarization (E), fdet, sdet, spindle of nanoBragg's convention
    "mosflm": (["-mosflm", "-Xbeam", "2.3", "-Ybeam", "3.9"],
               (1, 0, 0), (0, 0, 1), (0, 0, 1), (0, -1, 0), (0, 0, 1)),
    "adxv": (["-adxv", "-Xbeam", "3.9", "-Ybeam", "2.3"],
             (0, 0, 1), (1, 0, 0), (1, 0, 0), (0, -1, 0), (1, 0, 0)),
    "xds": (["-xds", "-ORGX", "30.5", "-ORGY", "20.25"],
            (0, 0, 1), (1, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 0)),
}


def have_dials():
    if not all(shutil.which(c) for c in ("dials.import", "dials.find_spots", "dials.index",
                                         "dials.integrate", "dials.scale")):
        return False
    try:
        import dxtbx  # noqa: F401
        return True
    except ImportError:
        return False


tests = []
results = []


def check(name):
    def wrap(fn):
        def run():
            try:
                fn()
                results.append((True, name, ""))
            except Exception:
                results.append((False, name, traceback.format_exc()))
        tests.append(run)
        return run
    return wrap


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    assert p.returncode == 0, "%s: exit %d\n%s%s" % (cmd[0], p.returncode, p.stdout[-3000:],
                                                   p.stderr[-3000:])
    return p.stdout


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def unit(v):
    n = math.sqrt(dot(v, v))
    return tuple(x / n for x in v)


def smv_keys(path):
    head = open(path, "rb").read(512).split(b"}")[0].decode()
    return dict(kv.split("=", 1) for kv in head.replace("{", "").replace(";", "").split("\n")
                if "=" in kv)


def truth(keys, conv):
    """The simulated geometry from nanobragg's own header (ADXV_CENTER is Fbeam and
    SIZE2 x pixel - Sbeam in every convention), relative to the detector's axes."""
    _, beam, _, fdet, sdet, spindle = CONVENTIONS[conv]
    px = float(keys["PIXEL_SIZE"])
    odet = cross(fdet, sdet)
    return {
        "centre": (float(keys["ADXV_CENTER_X"]) / px,
                   int(keys["SIZE2"]) - float(keys["ADXV_CENTER_Y"]) / px),
        "distance": float(keys["CLOSE_DISTANCE"]),
        "wavelength": float(keys["WAVELENGTH"]),
        "pixel": px,
        "osc": (float(keys["OSC_START"]), float(keys["OSC_RANGE"])),
        # the beam and the spindle on the detector's fast, slow and normal axes
        "beam": (dot(beam, fdet), dot(beam, sdet), dot(beam, odet)),
        "axis": (dot(spindle, fdet), dot(spindle, sdet), dot(spindle, odet)),
    }


def seen(expt):
    """What dxtbx built, in the terms of truth()."""
    d, b, g, s = expt.detector[0], expt.beam, expt.goniometer, expt.scan
    fast, slow = d.get_fast_axis(), d.get_slow_axis()
    normal = cross(fast, slow)
    beam = unit(b.get_s0())
    axis = g.get_rotation_axis()
    return {
        "centre": d.get_beam_centre_px(b.get_s0()),
        # along the normal fast x slow, which points to the sample in a mirrored frame
        "distance": abs(d.get_directed_distance()),
        "wavelength": b.get_wavelength(),
        "pixel": d.get_pixel_size()[0],
        "osc": s.get_oscillation(),
        "beam": (dot(beam, fast), dot(beam, slow), dot(beam, normal)),
        "axis": (dot(axis, fast), dot(axis, slow), dot(axis, normal)),
    }


def compare(what, got, want):
    assert abs(got["centre"][0] - want["centre"][0]) < 0.01 and \
        abs(got["centre"][1] - want["centre"][1]) < 0.01, (what, "beam centre", got, want)
    assert abs(got["distance"] - want["distance"]) < 0.001, (what, "distance", got, want)
    assert abs(got["wavelength"] - want["wavelength"]) < 1e-9, (what, got, want)
    assert abs(got["pixel"] - want["pixel"]) < 1e-9, (what, got, want)
    assert all(abs(x - y) < 1e-9 for x, y in zip(got["osc"], want["osc"])), (what, got, want)
    for k in ("beam", "axis"):
        assert all(abs(x - y) < 1e-6 for x, y in zip(got[k], want[k])), (what, k, got, want)


def load(paths):
    from dxtbx.model.experiment_list import ExperimentListFactory
    experiments = ExperimentListFactory.from_filenames(paths)
    assert len(experiments) == 1, (paths, len(experiments))
    return experiments[0], experiments.imagesets()[0]


def format_name(path):
    from dxtbx.format.Registry import get_format_class_for_file
    return get_format_class_for_file(path).__name__


def is_format(path, name):
    """dxtbx reads @path with the class @name or one derived from it."""
    from dxtbx.format.Registry import get_format_class_for_file
    return any(c.__name__ == name for c in get_format_class_for_file(path).__mro__)


@check("every format imports with the simulated geometry (3 conventions, with and without "
       "a sensor)")
def test_import():
    for conv in CONVENTIONS:
        for thick in (0, 450):
            d = tempfile.mkdtemp(dir=TOP)
            flags = GEOMETRY + CONVENTIONS[conv][0] + ["-detector_thick", str(thick)]
            run([SERIES, "--frames", "2", "--format", ",".join(FORMATS), "--out", "s",
                 "--quiet"] + flags + (["-adc", "7"] if thick else []), d)
            want = truth(smv_keys(os.path.join(d, "s_000001.img")), conv)
            what = "%s, sensor %d um" % (conv, thick)
            if "cbf" in FORMATS:
                cbfs = sorted(glob.glob(os.path.join(d, "s_*.cbf")))
                assert is_format(cbfs[0], "FormatCBFFull"), format_name(cbfs[0])
                e, _ = load(cbfs)
                compare("cbf, " + what, seen(e), want)
                assert e.scan.get_image_range() == (1, 2)
            if "nexus" in FORMATS:
                e, _ = load([os.path.join(d, "s_master.h5")])
                compare("nexus, " + what, seen(e), want)
                # the sensor as simulated (none: 1 nm, NXmx needs one), the exposure
                t = e.detector[0].get_thickness()
                assert abs(t - (thick / 1000 if thick else 1e-6)) < 1e-12, t
                assert e.scan.get_exposure_times()[0] == 1.0
            e, _ = load(sorted(glob.glob(os.path.join(d, "s_*.img"))))
            assert e.detector[0].get_pedestal() == (7 if thick else 40)
            if conv == "adxv":
                # docs/series.md: nanoBragg's ADXV frame is the mirror image of what an SMV
                # header can say (FormatSMVJHSim): the beam centre is right, the beam meets
                # the detector from the other side, so DIALS needs invert_rotation_axis=True
                got = seen(e)
                assert abs(got["centre"][0] - want["centre"][0]) < 0.01
                assert abs(got["centre"][1] - want["centre"][1]) < 0.01
                assert got["beam"][2] * want["beam"][2] < 0, (got, want)
            else:
                compare("smv, " + what, seen(e), want)
            shutil.rmtree(d)


@check("plain nanobragg -physical -intfile and -noisefile images import with the true geometry")
def test_plain_nanobragg():
    d = tempfile.mkdtemp(dir=TOP)
    run([CLI] + GEOMETRY + CONVENTIONS["mosflm"][0] +
        ["-physical", "-adc", "0", "-intfile", "i_001.img", "-noisefile", "n_001.img",
         "-floatfile", "/dev/null", "-nopgm"], d)
    for name in ("i_001.img", "n_001.img"):
        keys = smv_keys(os.path.join(d, name))
        assert keys["ADC_OFFSET"] == "0", keys
        e, _ = load([os.path.join(d, name)])
        want = truth(keys, "mosflm")
        want["osc"] = (float(keys["OSC_START"]), float(keys["OSC_RANGE"]))
        compare(name, seen(e), want)
        assert e.detector[0].get_pedestal() == 0
    shutil.rmtree(d)


@check("a real Pilatus writes a miniCBF with its module gap masked; the same size in the ADXV "
       "frame a full imgCIF file")
def test_pilatus():
    if "cbf" not in FORMATS:
        return
    scene = ["-default_F", "100", "-cell", "100", "100", "100", "90", "90", "90",
             "-lambda", "1.2", "-N", "2", "-distance", "200", "-detpixels_x", "487",
             "-detpixels_y", "407", "-pixel", "0.172", "-osc", "0.5", "-oversample", "1"]
    for conv, kind in (("mosflm", "FormatCBFMiniPilatus"), ("adxv", "FormatCBFFull")):
        d = tempfile.mkdtemp(dir=TOP)
        run([SERIES, "--frames", "1", "--format", "cbf,smv", "--out", "s", "--quiet",
             "-detector_thick", "450"] + scene + CONVENTIONS[conv][0], d)
        path = os.path.join(d, "s_000001.cbf")
        assert is_format(path, kind), (conv, format_name(path))
        e, imageset = load([path])
        compare("pilatus " + conv, seen(e), truth(smv_keys(path[:-4] + ".img"), conv))
        data = imageset.get_raw_data(0)[0].as_numpy_array()
        if kind == "FormatCBFMiniPilatus":
            # rows 195..211 are the gap between the two modules
            assert (data[195:212, :] == -1).all() and (data[:195, :] >= 0).all()
            assert list(e.detector[0].get_mask()) == [(0, 195, 487, 212)], \
                list(e.detector[0].get_mask())
            assert abs(e.detector[0].get_thickness() - 0.45) < 1e-12
            text = open(path, "rb").read(4096).decode("ascii", "replace")
            assert re.search(r"^# \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\r?$", text, re.M), text
        else:
            assert (data >= 0).all()
        shutil.rmtree(d)


def rotate(v, axis, deg):
    """@v turned by @deg about the unit vector @axis (right hand)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    k = cross(axis, v)
    return tuple(v[i] * c + k[i] * s + axis[i] * dot(axis, v) * (1 - c) for i in range(3))


def reciprocal_truth(log, conv, jhsim=False, turn=0.0):
    """a*, b*, c* (columns) as nanobragg prints them, turned by @turn degrees about the
    spindle, in dxtbx's laboratory frame: the rotation the writers use (z the beam, x the
    E-vector across it), then imgCIF's; for an SMV file (@jhsim) FormatSMVJHSim's, which is
    that turned by 180 degrees about z."""
    rows = re.search(r"reciprocal-space cell vectors.*?\n.*?\nX:(.*)\nY:(.*)\nZ:(.*)\n", log)
    m = [[float(x) for x in rows.group(i).split()] for i in (1, 2, 3)]
    _, beam, e, _, _, spindle = CONVENTIONS[conv]
    ez = unit(beam)
    ex = unit(tuple(a - dot(e, ez) * b for a, b in zip(e, ez)))
    ey = cross(ez, ex)
    cols = []
    for j in range(3):
        v = rotate((m[0][j], m[1][j], m[2][j]), spindle, turn)
        s = -1 if jhsim else 1
        cols.append((-s * dot(v, ex), s * dot(v, ey), -dot(v, ez)))
    return cols


def solve3(a, b):
    """x with a x = b for 3x3 a (rows) and 3-vector b (Cramer)."""
    det = dot(a[0], cross(a[1], a[2]))
    cols = [[a[r][c] for r in range(3)] for c in range(3)]
    out = []
    for k in range(3):
        c = [list(col) for col in cols]
        c[k] = list(b)
        rows = [[c[cc][r] for cc in range(3)] for r in range(3)]
        out.append(dot(rows[0], cross(rows[1], rows[2])) / det)
    return out


def orientation_error(true_cols, dials_a):
    """The reindexing M (integers, a unimodular basis change) with A_dials = A_true M and
    the largest angle (degrees) between a column of A_dials and its image."""
    dcols = [tuple(dials_a[r * 3 + c] for r in range(3)) for c in range(3)]
    trows = [[true_cols[c][r] for c in range(3)] for r in range(3)]
    m = [[round(x) for x in solve3(trows, dc)] for dc in dcols]  # m[j]: column j of M
    worst = 0.0
    for j, dc in enumerate(dcols):
        image = tuple(sum(m[j][k] * true_cols[k][r] for k in range(3)) for r in range(3))
        cosang = dot(unit(image), unit(dc))
        worst = max(worst, math.degrees(math.acos(max(-1.0, min(1.0, cosang)))))
    return m, worst


def structure_factors():
    f = {}
    for line in open(HKL):
        w = line.split()
        if len(w) >= 4:
            f[(int(w[0]), int(w[1]), int(w[2]))] = float(w[3])
    return f


PROCESSED = {}
RENDER = {}


def start_render():
    """The 1HPV series in every format, rendered while the import checks run."""
    d = os.path.join(TOP, "process")
    os.mkdir(d)
    log = open(os.path.join(d, "render.log"), "w")
    RENDER["dir"] = d
    RENDER["proc"] = subprocess.Popen(
        [SERIES, "--frames", "8", "--format", ",".join(FORMATS), "--out", "s", "--quiet"] +
        PROCESS, cwd=d, stdout=log, stderr=subprocess.STDOUT)


def worker(fmt, d, inputs):
    """`dials.import`, `dials.find_spots`, `dials.index` (and for NeXus `dials.integrate`
    and `dials.scale`) of @inputs in @d, in this one Python: DIALS's commands are their
    run() functions."""
    os.chdir(d)
    from dials.command_line import dials_import, find_spots, index
    dials_import.run(inputs)
    find_spots.run(["imported.expt", "nproc=1"] + FIND_SPOTS)
    index.run(["imported.expt", "strong.refl"] + INDEX)
    if fmt == "nexus":
        from dials.command_line import integrate, scale
        integrate.run(["indexed.expt", "indexed.refl", "nproc=1"])
        scale.run(["integrated.expt", "integrated.refl"] + SCALE)
    return 0


def worker_log(w):
    text = open(os.path.join(w, "worker.log")).read()
    return text[-3000:]


@check("a 1HPV series in each format: find_spots and index with the known symmetry give the "
       "cell within 0.1 % and the orientation within 0.1 degree")
def test_index():
    d = RENDER["dir"]
    assert RENDER["proc"].wait() == 0, open(os.path.join(d, "render.log")).read()[-3000:]
    log = run([CLI] + PROCESS + ["-floatfile", "/dev/null", "-nopgm", "-detpixels", "8"], d)
    inputs = {"cbf": sorted(glob.glob(os.path.join(d, "s_*.cbf"))),
              "nexus": [os.path.join(d, "s_master.h5")],
              "smv": sorted(glob.glob(os.path.join(d, "s_*.img")))}
    workers = []
    for fmt in sorted(FORMATS, key=lambda f: f != "nexus"):
        w = os.path.join(d, fmt)
        os.mkdir(w)
        out = open(os.path.join(w, "worker.log"), "w")
        workers.append((fmt, w, subprocess.Popen(
            [sys.executable, __file__, "--worker", fmt, w] + inputs[fmt], cwd=w, stdout=out,
            stderr=subprocess.STDOUT)))
    from dxtbx.model.experiment_list import ExperimentListFactory
    failed = []
    for fmt, w, proc in workers:
        rc = proc.wait()
        PROCESSED[fmt] = (w, None, rc)
        if not os.path.exists(os.path.join(w, "indexed.expt")):
            failed.append("%s: not indexed (exit %d)\n%s" % (fmt, rc, worker_log(w)))
            continue
        crystal = ExperimentListFactory.from_json_file(os.path.join(w, "indexed.expt"),
                                                       check_format=False)[0].crystal
        cell = crystal.get_unit_cell().parameters()
        m, angle = orientation_error(
            reciprocal_truth(log, "mosflm", fmt == "smv", -PHISTEP / 2), crystal.get_A())
        PROCESSED[fmt] = (w, m, rc)
        print("# %s: cell %s, orientation %.4f deg" %
              (fmt, " ".join("%.3f" % c for c in cell), angle))
        for got, want in zip(cell, CELL):
            if abs(got / want - 1) >= 0.001:
                failed.append("%s: cell %s" % (fmt, cell))
                break
        if angle >= 0.1:
            failed.append("%s: orientation %.4f deg off (M %s)" % (fmt, angle, m))
    assert not failed, "\n".join(failed)


@check("the NeXus series integrated and scaled: CC(I, |F|^2) of the merged intensities above "
       "%.2f" % CC_MIN)
def test_integrate_scale():
    assert "nexus" in PROCESSED and PROCESSED["nexus"][1] is not None, "not indexed"
    w, m, rc = PROCESSED["nexus"]
    assert rc == 0 and os.path.exists(os.path.join(w, "scaled.refl")), \
        "integrate or scale failed (exit %d)\n%s" % (rc, worker_log(w))
    cc = merged_cc(os.path.join(w, "scaled.refl"), m)
    print("# CC(I, |F|^2) = %.4f" % cc)
    assert cc > CC_MIN, cc


def merged_cc(path, m):
    """Scaled intensities (reindexed into the simulation's basis by M) merged over P6_1's
    Laue group against |F|^2 of the structure-factor file."""
    from dials.array_family import flex
    refl = flex.reflection_table.from_file(path)
    sel = refl.get_flags(refl.flags.scaled) & ~refl.get_flags(refl.flags.bad_for_scaling,
                                                               all=False)
    refl = refl.select(sel)
    f = structure_factors()
    sums = {}
    for hkl, i, s in zip(refl["miller_index"], refl["intensity.scale.value"],
                         refl["inverse_scale_factor"]):
        # h_true = M h (columns of M: the dials basis in the true one)
        t = tuple(sum(m[k][r] * hkl[k] for k in range(3)) for r in range(3))
        h, k, l = t
        ops = [(h, k, l), (-k, h + k, l), (-h - k, h, l)]
        ops += [(-a, -b, c) for a, b, c in ops]
        ops += [(-a, -b, -c) for a, b, c in ops]
        key = min(ops)
        acc = sums.setdefault(key, [0.0, 0, t])
        acc[0] += i / s
        acc[1] += 1
    xs, ys = [], []
    for key, (total, n, t) in sums.items():
        if t in f:
            xs.append(total / n)
            ys.append(f[t] ** 2)
    n = len(xs)
    assert n > 50, n
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--worker":
        sys.exit(worker(sys.argv[2], sys.argv[3], sys.argv[4:]))
    if not have_dials():
        print("1..0 # SKIP DIALS is not installed (Debian: apt-get install python3-dials)")
        sys.exit(0)
    TOP = tempfile.mkdtemp(prefix="nb-dials-")
    start_render()
    for t in tests:
        began = time.monotonic()
        t()
        print("# %.1f s: %s" % (time.monotonic() - began, results[-1][1]))
    print("1..%d" % len(results))
    for i, (ok, name, why) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        if not ok:
            for line in why.splitlines():
                print("# " + line)
    if all(ok for ok, _, _ in results):
        shutil.rmtree(TOP)
    sys.exit(0 if all(ok for ok, _, _ in results) else 1)
