#!/usr/bin/env python3
"""Twenty orientations of the default scene as NumPy arrays, without a window."""
import gi
gi.require_version("Braggscope", "1.0")
from gi.repository import Braggscope
sim = Braggscope.Simulation.new_default_scene()
sim.props.detector_pixels_fast = sim.props.detector_pixels_slow = 256
for i in range(20):
    sim.set_value("misset-x", 10.0 + i)  # raises GLib.Error for a value the engine refuses
    pixels = sim.render_frame().to_numpy()  # waits for the full frame; a view, no copy
    print(f"misset {10 + i} deg: {pixels.shape}, {pixels.sum():.4g} photons, max {pixels.max():.4g}")
