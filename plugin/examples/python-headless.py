#!/usr/bin/env python3
"""A Python analysis program using Braggscope without a window (PyGObject and NumPy).

It creates the default scene (HIV-1 protease, PDB 1HPV), turns the crystal as a
slider would, reads each frame as a NumPy array without copying it, asks what
the brightest pixel sees (resolution, Miller indices), and saves a PNG
snapshot that remembers the parameters.

Run it from a build tree with the typelib and the library on the search paths:

    GI_TYPELIB_PATH=build/plugin LD_LIBRARY_PATH=build/plugin python3 plugin/examples/python-headless.py [OUT.png]

Exits 0 when everything worked.
"""
import ctypes
import os
import sys
import tempfile

import gi
import numpy as np

gi.require_version("GLib", "2.0")
gi.require_version("Braggscope", "1.0")
from gi.repository import GLib, Braggscope  # noqa: E402

# The library GObject Introspection loaded for the Braggscope namespace (its
# soname, as the typelib names it): dlopen() returns the same handle.
_libbraggscope = ctypes.CDLL("libbraggscope-1.so.0")
_libbraggscope.braggscope_frame_get_data.restype = ctypes.c_void_p
_libbraggscope.braggscope_frame_get_data.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def frame_to_numpy(frame):
    """The frame's pixels as a read-only (height, width) float32 NumPy array, without a copy.

    Photons per pixel; row y is the detector's slow index, column x the fast one.  The
    array keeps the frame alive (its buffer returns to the simulation's pool only when
    both are gone), so it stays valid after newer frames arrive.
    """
    n = ctypes.c_size_t()
    address = _libbraggscope.braggscope_frame_get_data(_capsule_pointer(frame.__gpointer__, None),
                                                       ctypes.byref(n))
    memory = (ctypes.c_float * n.value).from_address(address)
    memory.frame = frame  # NumPy keeps `memory` as the array's base, and `memory` keeps the frame
    pixels = np.frombuffer(memory, dtype=np.float32).reshape(frame.props.height, frame.props.width)
    pixels.flags.writeable = False
    return pixels


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

    # The pixels: photons per pixel, rows along the slow axis.
    pixels = frame_to_numpy(frame)
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
