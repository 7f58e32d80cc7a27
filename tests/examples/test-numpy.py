#!/usr/bin/env python3
"""Frame.to_numpy() of the PyGObject override (plugin/python/gi/overrides/Braggscope.py): a
frame's pixels as a NumPy array without a copy, and the geometry maps.  TAP.

The array must alias the frame's own buffer (a value written through it is what the
library's GBytes of the frame holds, and its address is the frame's data address,
read independently through g_bytes_get_data), hold the same values as a copy, and keep
the frame alive on its own (its base chain holds the frame)."""
import ctypes
import gc
import sys

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Braggscope", "1.0")
from gi.repository import GLib, Braggscope  # noqa: E402
import numpy as np  # noqa: E402

n_tests = 0


def ok(condition, what):
    global n_tests
    n_tests += 1
    print(f"{'ok' if condition else 'not ok'} {n_tests} - {what}")
    return condition


def full_frame(sim):
    return sim.render_frame()


sim = Braggscope.Simulation.new()
sim.set_from_args(["-cell", "40", "50", "60", "90", "90", "90", "-default_F", "100", "-N", "5",
                   "-detpixels_f", "48", "-detpixels_s", "32", "-misset", "10", "20", "30"])
frame = full_frame(sim)
pixels = frame.to_numpy()

# the frame's GBytes, through the library (no Python copy of the pixels involved)
glib = ctypes.CDLL("libglib-2.0.so.0")
glib.g_bytes_get_data.restype = ctypes.c_void_p
glib.g_bytes_get_data.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
glib.g_bytes_unref.argtypes = [ctypes.c_void_p]
lib = ctypes.CDLL("libbraggscope-1.so.0")
lib.braggscope_frame_get_bytes.restype = ctypes.c_void_p
lib.braggscope_frame_get_bytes.argtypes = [ctypes.c_void_p]
capsule = ctypes.pythonapi.PyCapsule_GetPointer
capsule.restype = ctypes.c_void_p
capsule.argtypes = [ctypes.py_object, ctypes.c_char_p]
gbytes = lib.braggscope_frame_get_bytes(capsule(frame.__gpointer__, None))
size = ctypes.c_size_t()
bytes_address = glib.g_bytes_get_data(gbytes, ctypes.byref(size))
glib.g_bytes_unref(gbytes)

ok(pixels.shape == (32, 48) and pixels.dtype == np.float32, f"shape {pixels.shape}, {pixels.dtype}")
ok(pixels.__array_interface__["data"][0] == bytes_address,
   "the array's data is the frame's GBytes memory (same address)")
ok(size.value == pixels.nbytes, f"{size.value} bytes in the GBytes, {pixels.nbytes} in the array")
copy = np.frombuffer(frame.get_bytes().get_data(), dtype=np.float32).reshape(32, 48)
ok(np.array_equal(pixels, copy) and not np.shares_memory(pixels, copy),
   "same values as a copy made through GBytes.get_data()")
ok(pixels.max() == frame.props.max_value and pixels.max() > 0, f"maximum {pixels.max()}")
ok(not pixels.flags.writeable, "read-only")
ok(np.shares_memory(pixels, frame.to_numpy()), "two arrays of one frame share memory")
chain, base = [], pixels
while base is not None and len(chain) < 8:
    chain.append(base)
    base = getattr(base, "base", None)
ok(any(getattr(b, "owner", None) is frame for b in chain),
   f"the array's base chain holds the frame ({' -> '.join(type(b).__name__ for b in chain)})")
del chain, base
ok("get_data" not in [m.get_name() for m in Braggscope.Frame.__info__.get_methods()],
   "the list-returning braggscope_frame_get_data is hidden from bindings")

# The geometry maps, as pyFAI's arrays: each pixel centre's query.
geometry = frame.get_geometry()
for name, field in (("d_spacing", "d_spacing"), ("two_theta", "two_theta"), ("q", "q"), ("azimuth", "azimuth")):
    m = geometry.to_numpy(name)
    worst = max(abs(float(m[y, x]) - getattr(geometry.query(x + 0.5, y + 0.5), field))
                for (x, y) in ((0, 0), (47, 31), (20, 10), (5, 30)))
    ok(m.shape == (32, 48) and m.dtype == np.float32 and worst <= 1e-5 * max(1.0, float(np.nanmax(np.abs(m[np.isfinite(m)])))),
       f"{name} map of shape {m.shape} agrees with query() at four pixels (worst {worst:.3g})")
try:
    geometry.to_numpy("chi")
    ok(False, "an unknown map name raises")
except ValueError as e:
    ok("chi" in str(e), f"an unknown map name raises: {e}")
ok(geometry.query(10.5, 10.5).on_detector and not geometry.query(-5, -5).on_detector
   and not geometry.query(48.0, 3.0).on_detector and geometry.query(47.99, 31.99).on_detector,
   "PixelInfo.on_detector: inside [0, width) x [0, height) only")

# A measured frame: the frame written as SMV and read back.
import os, tempfile  # noqa: E401,E402
smv = os.path.join(tempfile.mkdtemp(), "frame.img")
frame.save_smv(smv)
measured = Braggscope.MeasuredFrame.new_from_file(smv, 0)
m_pixels, m_counts = measured.to_numpy(), measured.to_numpy(counts=True)
ok(m_pixels.shape == (32, 48) and m_pixels.dtype == np.float32 and m_counts.dtype == np.int32
   and np.array_equal(m_pixels, np.frombuffer(measured.get_pixels().get_data(), np.float32).reshape(32, 48), equal_nan=True)
   and np.array_equal(m_counts, np.frombuffer(measured.get_counts().get_data(), np.int32).reshape(32, 48)),
   "MeasuredFrame.to_numpy(): pixels (float32) and counts (int32) equal to their GBytes")
ok(np.shares_memory(m_pixels, measured.to_numpy()) and not m_pixels.flags.writeable,
   "a measured frame's arrays are read-only views of its memory")
del measured, m_pixels, m_counts
os.unlink(smv)

# A value written through the buffer is the value the library's GBytes holds.
writable = np.frombuffer(pixels.base, dtype=np.float32)
saved = float(writable[7])
writable[7] = 12345.5
seen = np.frombuffer(frame.get_bytes().get_data(), dtype=np.float32)[7]
writable[7] = saved
ok(seen == np.float32(12345.5), "a write through the array shows in the frame's bytes")

# The array alone keeps the frame (and so its pixels) alive.
finalized = []
watch = frame.weak_ref(lambda: finalized.append(True))
expected = copy.copy()
del frame, copy, writable
sim.props.misset_x = 45.0  # newer frames, recycling buffers the pool got back
full_frame(sim)
sim = None
gc.collect()
ok(not finalized and np.array_equal(pixels, expected), "the array keeps the frame alive")
del pixels
gc.collect()
ok(finalized == [True], "the frame goes when the array goes")
print(f"1..{n_tests}")
