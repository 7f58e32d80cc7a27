#!/usr/bin/python3
"""Writes dls-i23-pilatus12m.geom (CrystFEL geometry) for Diamond I23's Pilatus 12M
(S/N 120-0100) as it stood for DLS_I23_P12M_thau_00001.cbf: run
`python3 dls-i23-pilatus12m.py > dls-i23-pilatus12m.geom`.

The layout, as Diamond's detector blueprints give it (the numbers dxtbx's
FormatCBFMiniPilatusDLS12M uses): 24 modules, each a row of 5 sensors of 487 x 195
pixels of 172 um with 7-pixel gaps (2463 x 195 pixels), stand on a cylinder of radius
250 mm whose axis is the horizontal line through the sample normal to the beam (the
lab x axis here).  Module j covers the module angle 7.903 deg and its centre lies at
-12.2 + 7.903/2 + j (7.903 + 0.441) deg about that axis; its first pixel's corner is
184.9 mm along -fs and 16.8 mm along -ss from the foot of the perpendicular from the
axis.  In the miniCBF's 2463 x 5071 array module j starts at row 212 j (195 rows and a
17-row gap).  The whole cylinder sits Detector_distance (the header's 10 mm)
downstream, shifted by 0.172 mm per pixel of the header's Beam_xy (1080, 2595) from
the blueprint's beam position (1075, 2594).

Frame: CrystFEL's (+z along the beam, +y up, +x to complete a right-handed set).
"""
import math

PIXEL = 0.172  # mm
RADIUS = 250.0  # mm
MODULE_DEG, GAP_DEG, FIRST_EDGE_DEG = 7.903, 0.441, -12.2
OFF_FAST, OFF_SLOW = 184.9, 16.8  # mm, first pixel corner from the module's foot point
ROWS, ROW_GAP, COLUMNS = 195, 17, 2463
SENSOR, SENSOR_GAP = 487, 7
DISTANCE = 10.0  # mm: the header's Detector_distance
BEAM_XY, IDEAL_BEAM_XY = (1080.0, 2595.0), (1075.0, 2594.0)


def module(j):
    """Module j's fast and slow unit vectors and its first pixel's corner (mm), CrystFEL frame."""
    a = math.radians(FIRST_EDGE_DEG + 0.5 * MODULE_DEG + j * (MODULE_DEG + GAP_DEG))
    fs = (1.0, 0.0, 0.0)
    ss = (0.0, math.sin(a), math.cos(a))
    normal = (0.0, math.cos(a), -math.sin(a))  # from the axis out to the module: fs x ss reversed
    shift = (PIXEL * (IDEAL_BEAM_XY[0] - BEAM_XY[0]), PIXEL * (IDEAL_BEAM_XY[1] - BEAM_XY[1]),
             DISTANCE)
    corner = tuple(shift[k] - RADIUS * normal[k] - OFF_FAST * fs[k] - OFF_SLOW * ss[k]
                   for k in range(3))
    return fs, ss, corner


def main():
    res = 1e3 / PIXEL
    print("; Diamond I23 Pilatus 12M (S/N 120-0100): 24 modules on a cylinder of radius 250 mm")
    print("; around the sample, for DLS_I23_P12M_thau_00001.cbf (2463 x 5071 pixels).")
    print("; Written by dls-i23-pilatus12m.py from the published layout; see PROVENANCE.md.")
    print("res = %.12f" % res)
    print("clen = %.3f mm" % DISTANCE)
    print("min_fs = 0")
    print("max_fs = %d" % (COLUMNS - 1))
    print()
    for j in range(24):
        fs, ss, corner = module(j)
        name = "row%02d" % j
        print("%s/min_ss = %d" % (name, j * (ROWS + ROW_GAP)))
        print("%s/max_ss = %d" % (name, j * (ROWS + ROW_GAP) + ROWS - 1))
        print("%s/fs = %+.15fx %+.15fy %+.15fz" % ((name,) + fs))
        print("%s/ss = %+.15fx %+.15fy %+.15fz" % ((name,) + ss))
        print("%s/corner_x = %.12f" % (name, corner[0] / PIXEL))
        print("%s/corner_y = %.12f" % (name, corner[1] / PIXEL))
        print("%s/coffset = %.15f" % (name, (corner[2] - DISTANCE) * 1e-3))
        print()
    for j in range(24):
        for g in range(4):
            bad = "bad_row%02d_gap%d" % (j, g)
            first = (g + 1) * SENSOR + g * SENSOR_GAP
            print("%s/panel = row%02d" % (bad, j))
            print("%s/min_fs = %d" % (bad, first))
            print("%s/max_fs = %d" % (bad, first + SENSOR_GAP - 1))
            print("%s/min_ss = %d" % (bad, j * (ROWS + ROW_GAP)))
            print("%s/max_ss = %d" % (bad, j * (ROWS + ROW_GAP) + ROWS - 1))
    return 0


if __name__ == "__main__":
    main()
