#!/usr/bin/python3
"""nanobragg-series end to end (suite 'cli'), with TAP output.

Runs $NB_SERIES on small scenes (64 x 64 pixels) and checks:
  - a 6-frame rotation and a 6-frame stills series in every format: each frame's
    float file and SMV file are, byte for byte, what $NB_CLI (nanobragg) writes
    for the frame's own command line (the series file's flags and the frame's
    from --list-frames), the CBF read through fabio and the NeXus frame and
    master read through h5py hold the same counts as that SMV file, and their
    headers the geometry nanobragg's SMV header gives;
  - mpirun -n 2 (and 3) makes the same bytes as one process (when built with MPI);
  - --resume skips complete frames, makes damaged or missing ones again, and
    ends with the same bytes; an interrupted run (SIGINT) leaves no partial or
    temporary file, and --resume completes it to the same bytes;
  - issue 23: files of the right size that are not the frame's (zeros, another
    frame's or run's, an edited CBF header, NeXus values x9) are rewritten, a cut
    or other series file is refused naming why, a second run on a prefix in use
    is refused, every file and its folder are synced (fsync() seen through
    $NB_FSYNC_LOG_LIB), 99999999 stills start at once in little memory and stop
    on SIGTERM, as does the check of a million-point sweep, and a sweep with a
    frame too large for memory is refused before any file is written.
fabio and h5py are Debian's python3-fabio and python3-h5py (build-aux/setup.sh
installs them); without them this test fails rather than skips.  A build without
CBFlib or libhdf5 (NB_SERIES_FORMATS, from meson, lists what it writes) runs the
same checks on the formats it has.
"""
import glob
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

SERIES = os.environ["NB_SERIES"]
CLI = os.environ["NB_CLI"]
HAVE_MPI = os.environ.get("NB_SERIES_MPI") == "1"
FORMATS = os.environ.get("NB_SERIES_FORMATS", "cbf,nexus,smv,float").split(",")
HAVE_CBF = "cbf" in FORMATS
HAVE_NEXUS = "nexus" in FORMATS

SCENE = ["-default_F", "100", "-cell", "100", "100", "100", "90", "90", "90",
         "-lambda", "6.2", "-N", "5", "-distance", "100", "-detpixels", "64",
         "-pixel", "0.1", "-mosaic", "0.3", "-mosaic_domains", "3", "-osc", "0.5",
         "-Xbeam", "3.1", "-Ybeam", "3.4"]
ROTATION = ["--frames", "6", "-phi", "1"]
STILLS = ["--stills", "6", "--orientation-seed", "12345", "--random-mosaic-seed"]
ALL = ["--format", ",".join(FORMATS)]

results = []


def check(name):
    def wrap(fn):
        def run():
            try:
                fn()
                results.append((True, name, ""))
            except Exception:
                results.append((False, name, traceback.format_exc()))
        run.__name__ = fn.__name__
        tests.append(run)
        return run
    return wrap


tests = []


def series(args, cwd, env=None, expect=0):
    p = subprocess.run([SERIES] + args, cwd=cwd, capture_output=True, text=True, env=env)
    assert p.returncode == expect, "exit %d, stderr:\n%s" % (p.returncode, p.stderr)
    return p


def read_smv(path):
    data = open(path, "rb").read()
    head = data[:512].split(b"}")[0].decode()
    keys = dict(kv.split("=", 1) for kv in head.replace("{", "").replace(";", "").split("\n")
                if "=" in kv)
    hb = int(keys["HEADER_BYTES"])
    f, s = int(keys["SIZE1"]), int(keys["SIZE2"])
    pixels = np.frombuffer(data[hb:hb + 2 * f * s], dtype="<u2").reshape(s, f)
    return keys, pixels


def keys_adc(argv):
    """The ADC_OFFSET a frame's SMV header gives: -adc, 40 by default."""
    return argv[argv.index("-adc") + 1] if "-adc" in argv else "40"


def frame_flags(folder, prefix, args):
    """The scene's flags (the series file) and every frame's own (--list-frames with the
    run's @args)."""
    meta = json.load(open(os.path.join(folder, prefix + "_series.json")))
    p = series(["--list-frames"] + args, folder)
    return meta["nanobragg"], [json.loads(line) for line in p.stdout.splitlines()]


def same_bytes(a, b):
    return open(a, "rb").read() == open(b, "rb").read()


def check_series(folder, prefix, kind, args):
    base, flags = frame_flags(folder, prefix, args)
    assert len(flags) == 6
    errors = []

    class Watch(logging.Handler):
        def emit(self, record):
            errors.append(record.getMessage())

    if HAVE_CBF:
        logging.getLogger("fabio").addHandler(Watch(level=logging.ERROR))
    if HAVE_NEXUS:
        import h5py
        master = h5py.File(os.path.join(folder, prefix + "_master.h5"), "r")
        assert master["/entry/definition"][()] == b"NXmx"
        stack = master["/entry/data/data"][()]
        assert stack.shape == (6, 64, 64), stack.shape
    ref = tempfile.mkdtemp(dir=folder)
    mispositions = set()
    for i, extra in enumerate(flags):
        n = "%s_%06d" % (prefix, i + 1)
        # the frame's own command line, alone
        cmd = [CLI] + base[1:] + extra + ["-floatfile", "f.bin", "-intfile", "i.img",
                                          "-noisefile", "n.img", "-nopgm"]
        p = subprocess.run(cmd, cwd=ref, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert same_bytes(os.path.join(ref, "f.bin"), os.path.join(folder, n + ".bin")), \
            "%s.bin differs from nanobragg's -floatfile" % n
        # issue 26: nanobragg's -noisefile, with the header DIALS reads (that of
        # nanobragg -physical): BEAM_CENTER_X/Y as dxtbx reads them and ADC_OFFSET
        keys, counts = read_smv(os.path.join(ref, "n.img"))
        skeys, scounts = read_smv(os.path.join(folder, n + ".img"))
        assert np.array_equal(counts, scounts), "%s.img counts differ from -noisefile's" % n
        assert {k: v for k, v in skeys.items() if not k.startswith("BEAM_CENTER_")} == \
            dict({k: v for k, v in keys.items() if not k.startswith("BEAM_CENTER_")},
                 ADC_OFFSET=keys_adc(base + extra)), (n, skeys, keys)
        px = float(keys["PIXEL_SIZE"])
        assert abs(float(skeys["BEAM_CENTER_X"]) - (float(keys["ADXV_CENTER_X"]) - px)) < 2e-4
        assert abs(float(skeys["BEAM_CENTER_Y"]) - (float(keys["ADXV_CENTER_Y"]) + px)) < 2e-4
        assert counts.sum() > 0
        mispositions.add(tuple(extra))
        # XDS's ORGX counts from the first pixel's centre, Beam_xy from its corner
        bx = float(keys["XDS_ORGX"]) - 0.5
        by = float(keys["XDS_ORGY"]) - 0.5
        if HAVE_CBF:
            check_cbf(os.path.join(folder, n + ".cbf"), counts, keys, bx, by, errors)
        if HAVE_NEXUS:
            check_nexus(os.path.join(folder, n + ".h5"), counts, keys, bx, by)
            # the master file's virtual dataset reaches the frame
            assert np.array_equal(stack[i], counts)
            assert np.array_equal(master["/entry/data/data_%06d" % (i + 1)][0], counts)
            if kind == "rotation":
                assert abs(master["/entry/sample/transformations/omega"][i] -
                           float(keys["OSC_START"])) < 1e-9
    assert len(mispositions) == 6
    shutil.rmtree(ref)


def check_cbf(path, counts, keys, bx, by, errors):
    """The CBF through fabio: counts and the Pilatus header's geometry; fabio only logs a
    wrong MD5 digest, so its log is watched."""
    import fabio

    n = os.path.basename(path)[:-4]
    errors.clear()
    cbf = fabio.open(path)
    assert errors == [], errors
    assert cbf.data.shape == (64, 64)
    assert np.array_equal(cbf.data, counts), "%s.cbf counts differ" % n
    text = cbf.header["_array_data.header_contents"]
    head = {}
    for line in text.splitlines():
        words = line.lstrip("# ").split()
        if words:
            head[words[0]] = words[1:]
    assert float(head["Wavelength"][0]) == float(keys["WAVELENGTH"])
    assert abs(float(head["Detector_distance"][0]) * 1000 -
               float(keys["CLOSE_DISTANCE"])) < 1e-9
    assert abs(float(head["Pixel_size"][0]) * 1000 - float(keys["PIXEL_SIZE"])) < 1e-12
    # a 64 x 64 detector is no Pilatus: a full imgCIF file, whose axes the suite 'dials'
    # checks through dxtbx; a Pilatus's miniCBF gives the beam centre in Beam_xy
    assert ("Beam_xy" in head) == ("_diffrn.id" not in cbf.header), list(cbf.header)
    if "Beam_xy" in head:
        cbx = float(head["Beam_xy"][0].strip("(,"))
        cby = float(head["Beam_xy"][1].strip("),"))
        assert abs(cbx - bx) < 1e-6, (cbx, keys["XDS_ORGX"])
        assert abs(cby - by) < 1e-6, (cby, keys["XDS_ORGY"])
    assert float(head["Start_angle"][0]) == float(keys["OSC_START"])
    assert float(head["Angle_increment"][0]) == float(keys["OSC_RANGE"])
    assert head["Count_cutoff"][0] == "65535"
    assert float(head["Exposure_time"][0]) == 1.0


def check_nexus(path, counts, keys, bx, by):
    """The NeXus frame through h5py: counts, compression and the NXmx geometry."""
    import h5py

    n = os.path.basename(path)[:-3]
    h = h5py.File(path, "r")
    d = h["/entry/data/data"]
    assert d.shape == (1, 64, 64) and d.chunks == (1, 64, 64)
    assert d.compression == "gzip" and d.shuffle and d.fletcher32
    assert np.array_equal(d[0], counts), "%s.h5 counts differ" % n
    det = h["/entry/instrument/detector"]
    assert abs(h["/entry/instrument/beam/incident_wavelength"][()] -
               float(keys["WAVELENGTH"])) < 1e-12
    assert abs(det["distance"][()] * 1000 - float(keys["CLOSE_DISTANCE"])) < 1e-9
    assert abs(det["x_pixel_size"][()] * 1000 - float(keys["PIXEL_SIZE"])) < 1e-12
    assert abs(det["beam_center_x"][()] - bx) < 1e-6
    assert abs(det["beam_center_y"][()] - by) < 1e-6
    omega = h["/entry/sample/transformations/omega"]
    assert abs(omega[()] - float(keys["OSC_START"])) < 1e-9
    assert omega.attrs["transformation_type"] == b"rotation"
    fast = det["module/fast_pixel_direction"]
    assert abs(fast[()] * 1000 - float(keys["PIXEL_SIZE"])) < 1e-12
    # the pixel directions are unit vectors across the beam (z)
    for axis in ("fast_pixel_direction", "slow_pixel_direction"):
        v = det["module"][axis].attrs["vector"]
        assert abs(np.linalg.norm(v) - 1) < 1e-12 and abs(v[2]) < 1e-12


@check("6-frame rotation in every format equals nanobragg frame by frame")
def test_rotation():
    d = tempfile.mkdtemp()
    args = ALL + ROTATION + ["--out", "rot"] + SCENE
    p = series(args, d)
    summary = json.loads(p.stdout)
    assert summary["frames"] == 6 and summary["written"] == 6, summary
    assert json.load(open(os.path.join(d, "rot_summary.json"))) == summary
    _, flags = frame_flags(d, "rot", args)
    assert [f[1] for f in flags] == ["1", "1.5", "2", "2.5", "3", "3.5"], flags
    meta = json.load(open(os.path.join(d, "rot_series.json")))
    assert meta["rotation"] == {"frames": 6, "phi": 1, "osc": 0.5}, meta
    check_series(d, "rot", "rotation", args)
    shutil.rmtree(d)


@check("6 stills in every format equal nanobragg frame by frame")
def test_stills():
    d = tempfile.mkdtemp()
    args = ALL + STILLS + ["--out", "st"] + SCENE
    series(args, d)
    _, flags = frame_flags(d, "st", args)
    assert all(f[0] == "-misset" and f[4] == "-mosaic_seed" for f in flags), flags
    check_series(d, "st", "stills", args)
    shutil.rmtree(d)


@check("a sweep: the product of two --sweep, last fastest")
def test_sweep():
    d = tempfile.mkdtemp()
    args = ["--format", "float", "--sweep", "distance=90:110:3", "--sweep", "N=3:5:2",
            "--out", "w"] + SCENE
    series(args, d)
    _, flags = frame_flags(d, "w", args)
    assert flags == [["-distance", a, "-N", b] for a in ("90", "100", "110") for b in ("3", "5")]
    meta = json.load(open(os.path.join(d, "w_series.json")))
    assert meta["sweeps"] == [{"flag": "-distance", "start": 90, "stop": 110, "count": 3},
                              {"flag": "-N", "start": 3, "stop": 5, "count": 2}], meta
    p = series(["--sweep", "N=3:4:3"] + SCENE, d, expect=2)
    assert "3.5" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    p = series(["--sweep", "hkl=1:2:2"] + SCENE, d, expect=2)
    assert "-hkl takes a word" in p.stderr, p.stderr
    shutil.rmtree(d)



def mpirun(n):
    exe = shutil.which("mpirun")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return [exe, "-n", str(n), "--oversubscribe"], env


@check("mpirun -n 2 and -n 3 give the same bytes as one process")
def test_mpi():
    if not HAVE_MPI or shutil.which("mpirun") is None:
        print("# skipped: nanobragg-series built without MPI or no mpirun")
        return
    one = tempfile.mkdtemp()
    series(ALL + ROTATION + ["--out", "r"] + SCENE, one)
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(one, "r_*"))
                   if not f.endswith("_summary.json"))
    for n in (2, 3):
        d = tempfile.mkdtemp()
        cmd, env = mpirun(n)
        p = subprocess.run(cmd + [SERIES] + ALL + ROTATION + ["--out", "r"] + SCENE, cwd=d,
                           capture_output=True, text=True, env=env, timeout=60)
        assert p.returncode == 0, p.stderr
        summary = json.loads(p.stdout)
        assert len(summary["ranks"]) == n and summary["written"] == 6, summary
        got = sorted(os.path.basename(f) for f in glob.glob(os.path.join(d, "r_*"))
                     if not f.endswith("_summary.json"))
        assert got == names, (got, names)
        for f in names:
            assert same_bytes(os.path.join(one, f), os.path.join(d, f)), "%s differs, %d ranks" % (f, n)
        shutil.rmtree(d)
    shutil.rmtree(one)


def leftovers(folder):
    return [f for f in os.listdir(folder) if f.startswith(".")]


@check("--resume skips complete frames and makes damaged ones again")
def test_resume():
    ref = tempfile.mkdtemp()
    series(ALL + STILLS + ["--out", "s"] + SCENE, ref)
    d = tempfile.mkdtemp()
    for f in os.listdir(ref):
        shutil.copy(os.path.join(ref, f), d)
    # frame 3 loses a file, 4 is cut short, 5 has a changed byte in its CBF pixels
    # (the MD5 digest tells; without CBF it stays complete), 6 has a short float file
    first = ".cbf" if HAVE_CBF else ".h5" if HAVE_NEXUS else ".img"
    os.unlink(os.path.join(d, "s_000003" + first))
    cut = os.path.join(d, "s_000004" + (".h5" if HAVE_NEXUS else ".img"))
    os.truncate(cut, os.path.getsize(cut) - 100)
    if HAVE_CBF:
        with open(os.path.join(d, "s_000005.cbf"), "r+b") as f:
            f.seek(os.path.getsize(os.path.join(d, "s_000005.cbf")) - 4200)
            f.write(b"\x55")
    os.truncate(os.path.join(d, "s_000006.bin"), 100)
    # a temporary file of a killed run
    open(os.path.join(d, ".s_000003" + first + ".AbC123"), "w").write("partial")
    p = series(ALL + STILLS + ["--out", "s", "--resume"] + SCENE, d)
    summary = json.loads(p.stdout)
    damaged = 4 if HAVE_CBF else 3
    assert summary["skipped"] == 6 - damaged and summary["written"] == damaged, summary
    assert summary["rewritten"] == damaged, summary
    for frame in (3, 4, 6) + ((5,) if HAVE_CBF else ()):
        assert "frame %d: s_%06d" % (frame, frame) in p.stderr, p.stderr
    assert p.stderr.count(", rewritten") == damaged, p.stderr
    for f in os.listdir(ref):
        if not f.endswith("_summary.json"):
            assert same_bytes(os.path.join(ref, f), os.path.join(d, f)), f
    assert leftovers(d) == [], leftovers(d)
    # another series in the same place is refused
    p = series(ALL + ROTATION + ["--out", "s", "--resume"] + SCENE, d, expect=2)
    assert "another series" in p.stderr, p.stderr
    shutil.rmtree(ref)
    shutil.rmtree(d)


@check("Ctrl+C leaves no partial file; --resume completes the series")
def test_interrupt():
    # about 50 ms a frame, a second in all: the signal comes after the second frame
    slow = SCENE + ["-detpixels", "96", "-oversample", "8"]
    formats = [f for f in FORMATS if f != "smv"]
    exts = [{"cbf": ".cbf", "nexus": ".h5", "float": ".bin"}[f] for f in formats]
    args = ["--format", ",".join(formats), "--frames", "24", "--out", "r", "--threads", "1"] + slow
    ref = tempfile.mkdtemp()
    series(args, ref)
    d = tempfile.mkdtemp()
    p = subprocess.Popen([SERIES] + args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while not os.path.exists(os.path.join(d, "r_000002" + exts[0])) and time.time() < deadline:
        time.sleep(0.002)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, (p.returncode, err)
    assert b"interrupted" in err, err
    assert leftovers(d) == [], leftovers(d)
    done = [f for f in os.listdir(d) if f.startswith("r_0")]
    assert len(done) < 24 * len(exts), "the run was not interrupted (%d files)" % len(done)
    # every file present is complete: a frame's files appear together
    frames = {f[:8] for f in done}
    for fr in frames:
        for ext in exts:
            assert same_bytes(os.path.join(ref, fr + ext), os.path.join(d, fr + ext)), fr + ext
    p = series(args + ["--resume"], d)
    summary = json.loads(p.stdout)
    assert summary["skipped"] == len(frames) and summary["written"] == 24 - len(frames), summary
    for f in os.listdir(ref):
        if not f.endswith("_summary.json"):
            assert same_bytes(os.path.join(ref, f), os.path.join(d, f)), f
    shutil.rmtree(ref)
    shutil.rmtree(d)


def frame_file(folder, prefix, i, ext):
    return os.path.join(folder, "%s_%06d%s" % (prefix, i, ext))


@check("--resume rewrites files of the right size that are not the frame's own")
def test_resume_foreign():
    """Issue 23, item 9: zeros, another frame's float file, another frame's SMV file, a zeroed
    SMV file, an edited CBF header (its MD5 digest covers the binary section only), a NeXus
    frame with wavelength and distance x9: none is the frame's, each is made again."""
    ref = tempfile.mkdtemp()
    args = ALL + STILLS + ["--out", "s"] + SCENE
    series(args, ref)
    d = tempfile.mkdtemp()
    for f in os.listdir(ref):
        shutil.copy(os.path.join(ref, f), d)
    n = lambda i, ext: frame_file(d, "s", i, ext)
    rewritten = set()
    if "float" in FORMATS:
        open(n(1, ".bin"), "wb").write(bytes(os.path.getsize(n(1, ".bin"))))
        shutil.copy(n(3, ".bin"), n(2, ".bin"))
        rewritten |= {1, 2}
    if "smv" in FORMATS:
        shutil.copy(n(4, ".img"), n(3, ".img"))
        open(n(4, ".img"), "wb").write(bytes(os.path.getsize(n(4, ".img"))))
        rewritten |= {3, 4}
    if HAVE_CBF:
        data = open(n(5, ".cbf"), "rb").read()
        head = b"# Wavelength 6.2 A"
        assert data.count(head) == 1, data[:2000]
        open(n(5, ".cbf"), "wb").write(data.replace(head, b"# Wavelength 9.2 A"))
        rewritten.add(5)
    if HAVE_NEXUS:
        import h5py
        with h5py.File(n(6, ".h5"), "r+") as h:
            for name in ("/entry/instrument/beam/incident_wavelength",
                         "/entry/instrument/detector/distance"):
                h[name][()] = h[name][()] * 9
        rewritten.add(6)
    p = series(args + ["--resume"], d)
    summary = json.loads(p.stdout)
    assert summary["written"] == len(rewritten), (summary, p.stderr)
    assert summary["rewritten"] == len(rewritten), summary
    assert summary["skipped"] == 6 - len(rewritten), summary
    for i in rewritten:
        assert "frame %d: s_%06d" % (i, i) in p.stderr, p.stderr
    assert p.stderr.count("fingerprint differs, rewritten") == len(rewritten), p.stderr
    for f in os.listdir(ref):
        if not f.endswith("_summary.json"):
            assert same_bytes(os.path.join(ref, f), os.path.join(d, f)), f
    shutil.rmtree(ref)
    shutil.rmtree(d)


@check("--resume refuses a cut series file or another scene, naming the difference")
def test_resume_series_file():
    d = tempfile.mkdtemp()
    args = ["--format", "float"] + ROTATION + ["--out", "r"] + SCENE
    series(args, d)
    path = os.path.join(d, "r_series.json")
    whole = open(path).read()
    open(path, "w").write("".join(whole.splitlines(True)[:4]))
    p = series(args + ["--resume"], d, expect=2)
    assert "cut short" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    open(path, "w").write(whole)
    p = series(args + ["--resume", "-distance", "120"], d, expect=2)
    assert "another series" in p.stderr and '"-distance", "120"' in p.stderr, p.stderr
    assert open(path).read() == whole
    p = series(args + ["--resume"], d)
    assert json.loads(p.stdout)["skipped"] == 6, p.stdout
    shutil.rmtree(d)


@check("frames another run left under the prefix are rewritten on --resume")
def test_resume_mixed_runs():
    """Issue 23, item 10: run A made 30 frames, run B (another -distance) its series file and
    4 frames before it stopped: --resume with B's scene keeps B's 4 and makes 26 again."""
    a, b, d = tempfile.mkdtemp(), tempfile.mkdtemp(), tempfile.mkdtemp()
    args = ["--format", "float", "--frames", "30", "-phi", "1", "--out", "m"] + SCENE
    series(args, a)
    series(args + ["-distance", "120"], b)
    for f in os.listdir(a):
        shutil.copy(os.path.join(a, f), d)
    shutil.copy(os.path.join(b, "m_series.json"), d)
    for i in range(1, 5):
        for f in glob.glob(frame_file(b, "m", i, ".*")):
            shutil.copy(f, d)
    p = series(args + ["-distance", "120", "--resume"], d)
    summary = json.loads(p.stdout)
    assert summary["written"] == 26 and summary["skipped"] == 4, summary
    for f in os.listdir(b):
        if not f.endswith("_summary.json"):
            assert same_bytes(os.path.join(b, f), os.path.join(d, f)), f
    for x in (a, b, d):
        shutil.rmtree(x)


@check("a second run on a prefix in use is refused at once, naming the first")
def test_lock():
    slow = SCENE + ["-detpixels", "96", "-oversample", "8"]
    args = ["--format", "float", "--frames", "24", "--out", "r", "--threads", "1"] + slow
    d = tempfile.mkdtemp()
    first = subprocess.Popen([SERIES] + args, cwd=d, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while not os.path.exists(frame_file(d, "r", 1, ".bin")) and time.time() < deadline:
        time.sleep(0.002)
    meta = open(os.path.join(d, "r_series.json")).read()
    running = first.poll() is None
    t0 = time.time()
    second = subprocess.run([SERIES] + args + ["-distance", "120"], cwd=d, capture_output=True,
                            text=True, timeout=30)
    took = time.time() - t0
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=30)
    assert running, "the first run ended before the second started"
    assert second.returncode == 1, (second.returncode, second.stderr)
    assert "prefix r is in use by process %d" % first.pid in second.stderr, second.stderr
    assert took < 5, took
    assert open(os.path.join(d, "r_series.json")).read() == meta
    shutil.rmtree(d)
    if not HAVE_MPI or shutil.which("mpirun") is None:
        return
    # under MPI rank 0 holds the lock for every rank
    d = tempfile.mkdtemp()
    cmd, env = mpirun(2)
    first = subprocess.Popen(cmd + [SERIES] + args, cwd=d, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 30
    while not os.path.exists(frame_file(d, "r", 2, ".bin")) and time.time() < deadline:
        time.sleep(0.002)
    running = first.poll() is None
    second = subprocess.run([SERIES] + args, cwd=d, capture_output=True, text=True, timeout=30)
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=30)
    assert running, "the MPI run ended before the second started"
    assert second.returncode == 1, (second.returncode, second.stderr)
    assert "prefix r is in use by process" in second.stderr, second.stderr
    shutil.rmtree(d)


@check("every file of a frame and its folder are synced")
def test_fsync():
    lib = os.environ.get("NB_FSYNC_LOG_LIB")
    assert lib and os.path.exists(lib), lib
    d = tempfile.mkdtemp()
    log = os.path.join(d, "fsync.log")
    out = os.path.join(d, "out")
    os.mkdir(out)
    env = dict(os.environ, LD_PRELOAD=lib, NB_FSYNC_LOG=log)
    series(ALL + ["--frames", "2", "-phi", "1", "--out", "f"] + SCENE, out, env=env)
    synced = set(open(log).read().splitlines()) if os.path.exists(log) else set()
    real = os.path.realpath(out)
    frames = [f for f in os.listdir(out) if f.startswith("f_0")]
    assert len(frames) >= 2, frames
    for f in frames:
        assert os.path.join(real, f) in synced, (f, synced)
    assert real in synced, synced
    shutil.rmtree(d)


def peak_memory_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


@check("99999999 stills start at once in little memory and stop on SIGTERM")
def test_many_stills():
    d = tempfile.mkdtemp()
    args = ["--format", "float", "--stills", "99999999", "--orientation-seed", "7", "--out",
            "big", "--quiet"] + SCENE + ["-detpixels", "8"]
    p = subprocess.Popen([SERIES] + args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 10
    while (not os.path.exists(frame_file(d, "big", 1, ".bin")) and time.time() < deadline
           and p.poll() is None):
        time.sleep(0.01)
    started = os.path.exists(frame_file(d, "big", 1, ".bin"))
    # hundreds of frames later, the memory has not grown with them
    time.sleep(0.5)
    peak = peak_memory_kb(p.pid) if p.poll() is None else 0
    p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("still running 5 s after SIGTERM (first frame %s)" %
                             ("written" if started else "not written after 10 s"))
    assert started, "no first frame after 10 s"
    assert p.returncode == 130, (p.returncode, err)
    assert peak < 100 * 1024, "%d kB" % peak
    assert leftovers(d) == [], leftovers(d)
    assert os.path.getsize(os.path.join(d, "big_series.json")) < 4096
    shutil.rmtree(d)


@check("SIGTERM while a million-point sweep is checked ends the run at once")
def test_signal_while_checking():
    d = tempfile.mkdtemp()
    args = ["--format", "float", "--sweep", "distance=90:110:1000000", "--out", "w"] + SCENE
    p = subprocess.Popen([SERIES] + args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("still running 5 s after SIGTERM")
    assert p.returncode == 130, (p.returncode, err)
    assert b"interrupted while" in err, err
    assert os.listdir(d) == [], os.listdir(d)
    shutil.rmtree(d)


@check("a sweep with a frame too large for memory is refused before any file is written")
def test_sweep_checked_first():
    d = tempfile.mkdtemp()
    # frame 2 (32776 x 32776 pixels) is beyond the budget; frame 1 (16 x 16) is not
    p = series(["--format", "float", "--sweep", "detpixels=16:65536:3", "--out", "w"] + SCENE
               + ["-memory_budget", "100"], d, expect=2)
    assert "value 32776" in p.stderr and "memory budget" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1, p.stderr
    assert os.listdir(d) == [], os.listdir(d)
    shutil.rmtree(d)


def main():
    try:
        if HAVE_CBF:
            import fabio  # noqa: F401
        if HAVE_NEXUS:
            import h5py  # noqa: F401
    except ImportError as e:
        print("1..1\nnot ok 1 - python3-fabio and python3-h5py are needed (%s)" % e)
        return 1
    print("1..%d" % len(tests))
    for t in tests:
        t()
        ok, name, why = results[-1]
        print("%s %d - %s" % ("ok" if ok else "not ok", len(results), name))
        if not ok:
            for line in why.splitlines():
                print("# " + line)
        sys.stdout.flush()
    return 0 if all(r[0] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
