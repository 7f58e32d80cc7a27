#!/usr/bin/env python3
"""A Python analysis program using Braggscope without a window (PyGObject and NumPy).

It creates the default scene (HIV-1 protease, PDB 1HPV), turns the crystal as a
slider would, waits for the frame with render_frame(), reads it as a NumPy array
without copying it (to_numpy(), from the PyGObject override installed with the
typelib), asks what the brightest pixel sees (resolution, Miller indices), and
saves a PNG snapshot that remembers the parameters.

Run it from a build tree with the typelib, the library and the override on the search paths:

    GI_TYPELIB_PATH=build/plugin LD_LIBRARY_PATH=build/plugin PYTHONPATH=plugin/python \
      python3 plugin/examples/python-headless.py [OUT.png]

Exits 0 when everything worked.
"""
import os
import sys
import tempfile

import gi
import numpy as np

gi.require_version("GLib", "2.0")
gi.require_version("Braggscope", "1.0")
from gi.repository import GLib, Braggscope  # noqa: E402


def main():
    sim = Braggscope.Simulation.new_default_scene()
    # A smaller detector than the scene's 1024 x 1024, to be quick.
    sim.props.detector_pixels_fast = 256
    sim.props.detector_pixels_slow = 256
    sim.render_frame()

    # Turn the crystal, as a slider would; render_frame() waits for its full frame (and raises
    # the render's error, if any).
    sim.set_value("misset-x", 12.5)
    frame = sim.render_frame()
    print(f"frame {frame.props.sequence}: {frame.props.width} x {frame.props.height}, "
          f"max {frame.props.max_value:.4g} photons, {frame.props.total_ms:.1f} ms")

    # The pixels: photons per pixel, rows along the slow axis; a read-only view of the frame's
    # memory (no copy) that keeps the frame alive (the override installed with the typelib).
    pixels = frame.to_numpy()
    height, width = pixels.shape
    y, x = np.unravel_index(np.argmax(pixels), pixels.shape)
    assert pixels[y, x] == frame.props.max_value
    print(f"{width} x {height} pixels, {pixels.sum():.4g} photons in all, "
          f"{np.count_nonzero(pixels > 0.5 * frame.props.max_value)} above half the maximum")

    # What the brightest pixel sees.
    info = frame.get_geometry().query(x + 0.5, y + 0.5)
    print(f"brightest pixel ({x}, {y}): {pixels[y, x]:.4g} photons, d = {info.d_spacing:.2f} A, "
          f"2theta = {info.two_theta:.2f} deg, hkl = ({info.nearest_h} {info.nearest_k} {info.nearest_l}), "
          f"F = {info.structure_factor:.1f}")
    for fractional, whole in ((info.h, info.nearest_h), (info.k, info.nearest_k), (info.l, info.nearest_l)):
        assert abs(fractional - whole) < 0.5

    # The parameters as a nanobragg command line.
    print("command line:", sim.to_command_line())
    assert "-misset" in frame.get_args()

    # A grey PNG snapshot that remembers the parameters, restored into a new simulation.
    grey = np.clip(255 * pixels / (frame.props.max_value or 1.0), 0, 255).astype(np.uint8)
    rgba = np.dstack([grey, grey, grey, np.full_like(grey, 255)]).tobytes()
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "python-headless.png")
    Braggscope.snapshot_save(path, GLib.Bytes.new(rgba), width, height, sim)
    restored = Braggscope.Simulation.new()
    restored.load_snapshot(path)
    assert restored.to_args() == sim.to_args()
    print("snapshot:", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
