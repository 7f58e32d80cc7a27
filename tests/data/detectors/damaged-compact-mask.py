#!/usr/bin/python3
"""Writes damaged-compact-mask.nxs, a hostile NXmx geometry file for the
tests: the two-module NXmx that `detector-tool write-nxmx geom
damaged-compact-mask.geom OUT` writes, its pixel_mask replaced by a compact
16 x 13 dataset whose dataspace is then patched to 16 x 16, so the 832 bytes
stored hold fewer than its dimensions (libhdf5 1.10 copies the dimensions'
worth out of the stored buffer without checking).

Usage: damaged-compact-mask.py WRITTEN.nxs OUT.nxs  (Debian python3-h5py)
"""
import shutil
import struct
import sys

import h5py
import numpy as np


def main(src, out):
    shutil.copy(src, out)
    with h5py.File(out, "r+") as f:
        group = f["entry/instrument/detector"]
        del group["pixel_mask"]
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        space = h5py.h5s.create_simple((16, 13))
        mask = h5py.h5d.create(group.id, b"pixel_mask", h5py.h5t.STD_I32LE, space, dcpl)
        mask.write(h5py.h5s.ALL, h5py.h5s.ALL, np.zeros((16, 13), np.int32))
    data = open(out, "rb").read()
    dims = struct.pack("<QQ", 16, 13)
    if data.count(dims) < 1:
        sys.exit("damaged-compact-mask.py: the mask's dimensions were not found")
    open(out, "wb").write(data.replace(dims, struct.pack("<QQ", 16, 16)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
