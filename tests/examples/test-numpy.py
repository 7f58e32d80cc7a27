#!/usr/bin/env python3
"""frame_to_numpy() of plugin/examples/python-headless.py: a frame's pixels as a NumPy
array without a copy.  TAP.

The array must alias the frame's own buffer (a value written through it is what the
library's GBytes of the frame holds, and its address is the frame's data address,
read independently through g_bytes_get_data), hold the same values as a copy, and keep
the frame alive on its own."""
import ctypes
import gc
import importlib.util
import sys

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Braggscope", "1.0")
from gi.repository import GLib, Braggscope  # noqa: E402
import numpy as np  # noqa: E402

spec = importlib.util.spec_from_file_location("python_headless", sys.argv[1])
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)

n_tests = 0


def ok(condition, what):
    global n_tests
    n_tests += 1
    print(f"{'ok' if condition else 'not ok'} {n_tests} - {what}")
    return condition


def full_frame(sim):
    loop = GLib.MainLoop()
    result = {}

    def on_frame(sim, frame):
        if not frame.props.is_preview and frame.props.sequence == sim.props.sequence:
            result["frame"] = frame
            loop.quit()

    handler = sim.connect("frame-ready", on_frame)
    GLib.timeout_add_seconds(60, loop.quit)
    sim.render()
    loop.run()
    sim.disconnect(handler)
    return result["frame"]


sim = Braggscope.Simulation.new()
sim.set_from_args(["-cell", "40", "50", "60", "90", "90", "90", "-default_F", "100", "-N", "5",
                   "-detpixels_f", "48", "-detpixels_s", "32", "-misset", "10", "20", "30"])
frame = full_frame(sim)
pixels = example.frame_to_numpy(frame)

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
ok(np.shares_memory(pixels, example.frame_to_numpy(frame)), "two arrays of one frame share memory")

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
