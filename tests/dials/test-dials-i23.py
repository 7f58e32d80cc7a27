#!/usr/bin/python3
"""The I23 Pilatus 12M geometry file against dxtbx's model of the I23 frame (suite 'dials'), TAP.

Issue 29 item 5: tests/data/detectors/dls-i23-pilatus12m.geom, written from the detector's
published layout by dls-i23-pilatus12m.py, read by our CrystFEL reader (printed by
tests/detector-tool), converted to dxtbx's frame, equals dxtbx's FormatCBFMiniPilatusDLS12M
model of tests/data/measured/DLS_I23_P12M_thau_00001.cbf.gz module by module: origin to
1e-6 mm, fast and slow axes to 1e-9, pixel size, image size and each module's place in the
2463 x 5071 array; the masked pixels (the 7-pixel gaps between a module's five sensors) read
negative in the frame, as dxtbx's trusted range (-1, ...) takes them.  The committed .geom is
what its script writes (checked without DIALS too).  Without DIALS the dxtbx checks are
skipped, saying so.
"""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

from dxtbx_checks import check, close, model_of, run, to_dxtbx

SRC = os.environ["G_TEST_SRCDIR"]
GEOM = os.path.join(SRC, "data", "detectors", "dls-i23-pilatus12m.geom")
SCRIPT = os.path.join(SRC, "data", "detectors", "dls-i23-pilatus12m.py")
FRAME = os.path.join(SRC, "data", "measured", "DLS_I23_P12M_thau_00001.cbf.gz")
TOL_MM = 1e-6
TOL_AXIS = 1e-9


def ours():
    return model_of("geom", GEOM)


def dxtbx_frame(tmp):
    """dxtbx's format instance of the real frame, decompressed into @tmp."""
    import dxtbx
    path = os.path.join(tmp, "DLS_I23_P12M_thau_00001.cbf")
    with gzip.open(FRAME, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return dxtbx.load(path)


@check("the committed .geom is what dls-i23-pilatus12m.py writes", needs_dxtbx=False)
def _():
    p = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(GEOM) as f:
        assert f.read() == p.stdout, "dls-i23-pilatus12m.geom differs from its script's output"


@check("24 modules = dxtbx's FormatCBFMiniPilatusDLS12M: origins (1e-6 mm), axes, sizes, places")
def _():
    model = ours()
    with tempfile.TemporaryDirectory() as tmp:
        image = dxtbx_frame(tmp)
        assert type(image).__name__ == "FormatCBFMiniPilatusDLS12M", type(image).__name__
        detector = image.get_detector()
        assert len(model["panels"]) == len(detector) == 24, len(model["panels"])
        assert (model["data_fpixels"], model["data_spixels"]) == (2463, 5071)
        for i, (p, d) in enumerate(zip(model["panels"], detector)):
            what = "module %d (%s)" % (i, d.get_name())
            close(to_dxtbx(p["pix0"], 1e3), d.get_origin(), TOL_MM, what + " origin")
            close(to_dxtbx(p["fdet"]), d.get_fast_axis(), TOL_AXIS, what + " fast axis")
            close(to_dxtbx(p["sdet"]), d.get_slow_axis(), TOL_AXIS, what + " slow axis")
            assert (p["fpixels"], p["spixels"]) == tuple(d.get_image_size()), what + " size"
            close((p["pixel_size"] * 1e3,) * 2, d.get_pixel_size(), 1e-12, what + " pixel size")
            xmin, ymin, _, _ = image.coords[d.get_name()]
            assert tuple(p["data_origin"]) == (xmin, ymin), \
                "%s: data origin %s, dxtbx %s" % (what, p["data_origin"], (xmin, ymin))


@check("the masked pixels are the sensor gaps, negative in the measured frame")
def _():
    model = ours()
    with tempfile.TemporaryDirectory() as tmp:
        data = dxtbx_frame(tmp).get_raw_data()
    dead_edges = 0
    for i, (p, module) in enumerate(zip(model["panels"], data)):
        assert p["masked"] == 4 * 7 * 195, "module %d: %d masked" % (i, p["masked"])
        for g in range(4):
            first = (g + 1) * 487 + g * 7
            gap = module[0:195, first:first + 7]
            assert max(gap) < 0, "module %d gap %d: a pixel reads %d" % (i, g, max(gap))
            # the sensor columns either side measure (module 0's fifth sensor is excluded whole)
            for edge in (first - 1, first + 7):
                dead_edges += max(module[0:195, edge:edge + 1]) < 0
    assert dead_edges <= 1, "%d sensor columns beside the gaps measure nothing" % dead_edges


if __name__ == "__main__":
    sys.exit(run())
