#!/usr/bin/python3
"""The multi-panel geometry readers and writer against dxtbx itself (suite 'dials'), TAP.

Issue 29: for each DIALS experiment list of tests/data/detectors (a 64-sensor CSPAD with its
panel hierarchy, a one-panel Pilatus with module-gap mask rectangles), the model our .expt
reader builds (printed by tests/detector-tool), converted back to dxtbx's frame, equals
dxtbx's own detector panel by panel: origin (mm), fast and slow axes to 1e-9, image size,
pixel size, thickness, material, mu and the number of masked pixels; and the beam
(sample-to-source direction, wavelength).  Without DIALS the test is skipped, saying so.
"""
import os
import subprocess
import sys
import tempfile

from dxtbx_checks import TOOL, check, close, model_of, run, to_dxtbx

DATA = os.path.join(os.environ["G_TEST_SRCDIR"], "data", "detectors")
EXPT = ["dials-cspad-single-image.expt", "dials-pilatus-lpe4-2-a15.expt"]
TOL = 1e-9


def compare_detector(ours, detector, beam=None, masks=None):
    """Our printed model against a dxtbx Detector (and Beam); the masked pixels against
    the panels' mask rectangles, or @masks (per panel, True = trusted)."""
    assert len(ours["panels"]) == len(detector), \
        "%d panels, dxtbx %d" % (len(ours["panels"]), len(detector))
    for i, (p, d) in enumerate(zip(ours["panels"], detector)):
        what = "panel %d (%s)" % (i, d.get_name())
        assert p["name"] == d.get_name() or (d.get_name() == "" and p["name"] == str(i)), \
            "%s: named %s" % (what, p["name"])
        close(to_dxtbx(p["pix0"], 1e3), d.get_origin(), TOL, what + " origin")
        close(to_dxtbx(p["fdet"]), d.get_fast_axis(), TOL, what + " fast axis")
        close(to_dxtbx(p["sdet"]), d.get_slow_axis(), TOL, what + " slow axis")
        assert (p["fpixels"], p["spixels"]) == tuple(d.get_image_size()), what + " image size"
        close([p["pixel_size"] * 1e3] * 2, d.get_pixel_size(), 1e-12, what + " pixel size")
        close([p["thick"] * 1e3], [d.get_thickness()], 1e-12, what + " thickness")
        close([p["mu"] * 1e-3], [d.get_mu()], 1e-9, what + " mu")
        assert p["material"] == d.get_material(), what + " material"
        trusted = masks[i] if masks is not None else d.get_untrusted_rectangle_mask()
        assert p["masked"] == len(trusted) - trusted.count(True), \
            "%s: %d masked pixels, dxtbx %d" % (what, p["masked"], len(trusted) - trusted.count(True))
    if beam is not None:
        close(to_dxtbx([-x for x in ours["beam"]]), beam.get_sample_to_source_direction(), TOL,
              "beam direction")
        close([ours["wavelength"] * 1e10], [beam.get_wavelength()], 1e-12, "wavelength")


for expt in EXPT:
    @check("expt reader = dxtbx: " + expt)
    def _(expt=expt):
        from dxtbx.model.experiment_list import ExperimentListFactory
        path = os.path.join(DATA, expt)
        el = ExperimentListFactory.from_json_file(path, check_format=False)
        compare_detector(model_of("expt", path), el.detectors()[0], el.beams()[0])


def expected_counts(panel, fpixels, spixels):
    """detector-tool's made-up image: 1000 p + 7 f + 3 s, mod 65521."""
    return [(1000 * panel + 7 * f + 3 * s) % 65521 for s in range(spixels) for f in range(fpixels)]


def check_written(expt, nxs, dials_import):
    """The model of @expt written as NXmx (@nxs) imports in dxtbx (through dials.import
    when @dials_import) as FormatNXmx with the same panels, mask and counts."""
    from dxtbx.model.experiment_list import ExperimentListFactory
    path = os.path.join(DATA, expt)
    ours = model_of("expt", path)
    p = subprocess.run([TOOL, "write-nxmx", "expt", path, nxs], capture_output=True, text=True)
    assert p.returncode == 0, "detector-tool write-nxmx: %s" % p.stderr
    if dials_import:
        folder = os.path.dirname(nxs)
        p = subprocess.run(["dials.import", nxs, "output.experiments=imported.expt"], cwd=folder,
                           capture_output=True, text=True)
        assert p.returncode == 0, "dials.import: %s%s" % (p.stdout[-2000:], p.stderr[-2000:])
        el = ExperimentListFactory.from_json_file(os.path.join(folder, "imported.expt"))
    else:
        el = ExperimentListFactory.from_filenames([nxs])
    imageset = el[0].imageset
    assert imageset.get_format_class().__name__ == "FormatNXmx", imageset.get_format_class()
    detector = el.detectors()[0]
    # the written file's panels are named by their modules' HDF5 paths
    for panel in ours["panels"]:
        panel["name"] = None
    for d in detector:
        d_name = d.get_name()
        assert d_name.startswith("/entry/instrument/detector/"), d_name
    for panel, d in zip(ours["panels"], detector):
        panel["name"] = d.get_name()
        # NXmx has no attenuation (dxtbx takes mu from the material's table) and needs a
        # sensor: none is written as 1 nm of silicon
        panel["mu"] = d.get_mu() * 1e3
        if panel["thick"] == 0:
            panel["thick"], panel["material"] = 1e-9, "Si"
    compare_detector(ours, detector, el.beams()[0], imageset.get_mask(0))
    raw = imageset.get_raw_data(0)
    assert len(raw) == len(ours["panels"]), "%d data blocks" % len(raw)
    for i, (panel, block) in enumerate(zip(ours["panels"], raw)):
        assert tuple(block.all()) == (panel["spixels"], panel["fpixels"]), "panel %d shape" % i
        assert list(block) == expected_counts(i, panel["fpixels"], panel["spixels"]), \
            "panel %d: counts differ" % i


@check("NXmx writer -> dials.import: CSPAD, 64 modules")
def _():
    with tempfile.TemporaryDirectory() as tmp:
        check_written("dials-cspad-single-image.expt", os.path.join(tmp, "cspad.nxs"), True)


@check("NXmx writer -> dxtbx: one masked Pilatus panel")
def _():
    with tempfile.TemporaryDirectory() as tmp:
        check_written("dials-pilatus-lpe4-2-a15.expt", os.path.join(tmp, "pilatus.nxs"), False)


@check("NXmx writer -> NXmx reader: the CSPAD model read back equals the one written")
def _():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(DATA, "dials-cspad-single-image.expt")
        nxs = os.path.join(tmp, "cspad.nxs")
        p = subprocess.run([TOOL, "write-nxmx", "expt", path, nxs], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        written, read = model_of("expt", path), model_of("nxmx", nxs)
        assert len(read["panels"]) == len(written["panels"]) == 64
        close(read["beam"], written["beam"], TOL, "beam")
        close([read["wavelength"]], [written["wavelength"]], 1e-22, "wavelength")
        # stacked along slow: 64 x 185 rows of 194 pixels
        assert (read["data_fpixels"], read["data_spixels"]) == (194, 64 * 185), read
        for i, (a, b) in enumerate(zip(read["panels"], written["panels"])):
            for k in ("pix0", "fdet", "sdet"):
                close(a[k], b[k], 1e-15, "panel %d %s" % (i, k))
            for k in ("name", "fpixels", "spixels", "pixel_size", "masked", "thick"):
                assert a[k] == b[k], "panel %d %s: %s, written %s" % (i, k, a[k], b[k])
            assert a["data_origin"] == [0, 185 * i], a["data_origin"]


def make_tilted_nxmx(path):
    """A two-module detector as a beamline file could describe it: the whole detector
    turned by two_theta = 25 deg about McStas x after a 180 mm translation along z;
    module 1 after a further 3 deg rotation of its own about its module_offset's y; a
    pixel_mask with a dead pixel in each module; strings as h5py writes them (variable
    length), lengths in mm and um."""
    import h5py
    import numpy as np

    def axis(group, name, value, units, kind, vector, depends_on, offset=None):
        d = group.create_dataset(name, data=np.array([value]))
        d.attrs["units"] = units
        d.attrs["transformation_type"] = kind
        d.attrs["vector"] = np.array(vector, dtype=float)
        d.attrs["depends_on"] = depends_on
        if offset is not None:
            d.attrs["offset"] = np.array(offset, dtype=float)
            d.attrs["offset_units"] = "mm"

    with h5py.File(path, "w") as f:
        entry = f.create_group("entry")
        entry.attrs["NX_class"] = "NXentry"
        entry["definition"] = "NXmx"
        instrument = entry.create_group("instrument")
        instrument.attrs["NX_class"] = "NXinstrument"
        beam = instrument.create_group("beam")
        beam.attrs["NX_class"] = "NXbeam"
        beam["incident_wavelength"] = 0.9795
        beam["incident_wavelength"].attrs["units"] = "angstrom"
        det = instrument.create_group("detector")
        det.attrs["NX_class"] = "NXdetector"
        det["sensor_material"] = "Silicon"
        det["sensor_thickness"] = 0.45
        det["sensor_thickness"].attrs["units"] = "mm"
        det["depends_on"] = "/entry/instrument/detector/transformations/translation"
        t = det.create_group("transformations")
        t.attrs["NX_class"] = "NXtransformations"
        axis(t, "two_theta", 25.0, "deg", "rotation", (1, 0, 0), ".")
        axis(t, "translation", 180.0, "mm", "translation", (0, 0, 1),
             "/entry/instrument/detector/transformations/two_theta")
        mask = np.zeros((2 * 40, 50), dtype=np.int32)
        for m, (tilt, origin) in enumerate([(0.0, (-10.0, -3.0, 0.0)), (3.0, (-10.0, 1.0, 0.5))]):
            g = det.create_group("module%d" % m)
            g.attrs["NX_class"] = "NXdetector_module"
            g["data_origin"] = np.array([40 * m, 0])
            g["data_size"] = np.array([40, 50])
            here = "/entry/instrument/detector/module%d/" % m
            axis(g, "module_offset", 0.0, "mm", "translation", (1, 0, 0),
                 "/entry/instrument/detector/transformations/translation", offset=origin)
            axis(g, "tilt", tilt, "deg", "rotation", (0, 1, 0), here + "module_offset")
            axis(g, "fast_pixel_direction", 75.0, "um", "translation", (-1, 0, 0), here + "tilt")
            axis(g, "slow_pixel_direction", 75.0, "um", "translation", (0, -1, 0), here + "tilt")
            mask[40 * m + 7, 11 + m] = 2
        det["pixel_mask"] = mask
        sample = entry.create_group("sample")
        sample.attrs["NX_class"] = "NXsample"
        data = entry.create_group("data")
        data.attrs["NX_class"] = "NXdata"
        data.attrs["signal"] = "data"
        data["data"] = np.zeros((1, 80, 50), dtype=np.int32)


@check("NXmx reader = dxtbx: two tilted modules through depends_on chains with rotations")
def _():
    from dxtbx.model.experiment_list import ExperimentListFactory
    with tempfile.TemporaryDirectory() as tmp:
        nxs = os.path.join(tmp, "tilted.nxs")
        make_tilted_nxmx(nxs)
        ours = model_of("nxmx", nxs)
        el = ExperimentListFactory.from_filenames([nxs])
        detector = el.detectors()[0]
        for panel, d in zip(ours["panels"], detector):
            panel["name"] = d.get_name()  # dxtbx names a module by its path
            panel["mu"] = d.get_mu() * 1e3  # from dxtbx's table of silicon
        assert [p["masked"] for p in ours["panels"]] == [1, 1], ours["panels"]
        compare_detector(ours, detector, el.beams()[0], el[0].imageset.get_mask(0))
        # the tilt really turned module 1 out of module 0's plane
        assert abs(ours["panels"][0]["fdet"][0] - ours["panels"][1]["fdet"][0]) > 0.01


if __name__ == "__main__":
    sys.exit(run("dxtbx.model.experiment_list"))
