#!/usr/bin/env python3
"""A Python program embedding Braggscope through GObject Introspection (PyGObject).

It creates the default scene (HIV-1 protease, PDB 1HPV), turns the crystal as a
slider would, reads the frames that come back as numbers, asks what the
brightest pixel sees (resolution, Miller indices), and saves a PNG snapshot
that remembers the parameters.

Run it from a build tree with the typelib and the library on the search paths:

    GI_TYPELIB_PATH=build/plugin LD_LIBRARY_PATH=build/plugin python3 plugin/examples/python-host.py [OUT.png]

Exits 0 when everything worked.
"""
import array
import os
import sys
import tempfile

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Braggscope", "1.0")
from gi.repository import GLib, Braggscope  # noqa: E402


def wait_for_full_frame(sim, loop):
    """Runs the main loop until the full frame of the current parameters arrives."""
    wanted = sim.props.sequence
    result = {}

    def on_frame(sim, frame):
        kind = "preview" if frame.props.is_preview else "full"
        print(f"frame {frame.props.sequence}: {kind} {frame.props.width} x {frame.props.height}, "
              f"max {frame.props.max_value:.4g} photons, {frame.props.total_ms:.1f} ms")
        if not frame.props.is_preview and frame.props.sequence == wanted:
            result["frame"] = frame
            loop.quit()

    def on_error(sim, error):
        result["error"] = error.message
        loop.quit()

    def on_timeout():
        result["error"] = "no frame within 60 s"
        loop.quit()
        return GLib.SOURCE_REMOVE

    handlers = [sim.connect("frame-ready", on_frame), sim.connect("error", on_error)]
    timeout = GLib.timeout_add_seconds(60, on_timeout)
    loop.run()
    for h in handlers:
        sim.disconnect(h)
    if "error" in result:
        raise RuntimeError(result["error"])
    GLib.source_remove(timeout)
    return result["frame"]


def main():
    loop = GLib.MainLoop()
    sim = Braggscope.Simulation.new_default_scene()
    # A smaller detector than the scene's 1024 x 1024, to be quick.
    sim.props.detector_pixels_fast = 256
    sim.props.detector_pixels_slow = 256
    wait_for_full_frame(sim, loop)

    # Turn the crystal, as a slider would.
    sim.props.misset_x = 12.5
    frame = wait_for_full_frame(sim, loop)

    # The pixels: photons per pixel, fast index first.
    pixels = array.array("f")
    pixels.frombytes(frame.get_bytes().get_data())
    width, height = frame.props.width, frame.props.height
    assert len(pixels) == width * height
    brightest = max(range(len(pixels)), key=pixels.__getitem__)
    assert pixels[brightest] == frame.props.max_value

    # What the brightest pixel sees.
    x, y = brightest % width, brightest // width
    info = frame.get_geometry().query(x + 0.5, y + 0.5)
    print(f"brightest pixel ({x}, {y}): {pixels[brightest]:.4g} photons, d = {info.d_spacing:.2f} A, "
          f"2theta = {info.two_theta:.2f} deg, hkl = ({info.nearest_h} {info.nearest_k} {info.nearest_l}), "
          f"F = {info.structure_factor:.1f}")
    for fractional, whole in ((info.h, info.nearest_h), (info.k, info.nearest_k), (info.l, info.nearest_l)):
        assert abs(fractional - whole) < 0.5

    # The parameters as a nanobragg command line.
    print("command line:", sim.to_command_line())
    assert "-misset" in frame.get_args()

    # A grey PNG snapshot that remembers the parameters, restored into a new simulation.
    top = frame.props.max_value or 1.0
    grey = bytes(min(255, int(255 * v / top)) for v in pixels)
    rgba = bytes(b for g in grey for b in (g, g, g, 255))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "python-host.png")
    Braggscope.snapshot_save(path, GLib.Bytes.new(rgba), width, height, sim)
    restored = Braggscope.Simulation.new()
    restored.load_snapshot(path)
    assert restored.to_args() == sim.to_args()
    print("snapshot:", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
