#!/usr/bin/env python3
"""A GTK 4 program in Python that embeds Braggscope: the view, the controls and a readout.

It creates the default scene (HIV-1 protease, PDB 1HPV), applies the nanoBragg
flags given on the command line, and shows the frames as they arrive; the
readout under the image follows the pointer.

    python3 python-host.py [--quit-after-frame] [nanoBragg flags...]

From a build tree, put the typelibs and libraries on the search paths first:

    export GI_TYPELIB_PATH=build/plugin:build/plugin/gtk
    export LD_LIBRARY_PATH=build/plugin:build/plugin/gtk

With --quit-after-frame it points the readout at the brightest pixel of the
first full frame on screen, prints it and exits (0 when it worked).
"""
import sys

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Gtk", "4.0")
gi.require_version("Braggscope", "1.0")
gi.require_version("BraggscopeGtk", "1.0")
from gi.repository import GLib, Gtk, Braggscope, BraggscopeGtk  # noqa: E402


class Host:
    def __init__(self, flags, quit_after_frame):
        self.quit_after_frame = quit_after_frame
        self.status = None

        self.sim = Braggscope.Simulation.new_default_scene()
        self.sim.set_from_args(flags)  # raises GLib.Error naming a bad flag
        self.sim.connect("frame-ready", self.on_frame_ready)
        self.sim.connect("error", self.on_error)

        # The view and its readout on the right, the controls (scrolled: they
        # are taller than most windows) on the left.
        self.view = BraggscopeGtk.View.new(self.sim)
        self.view.props.show_rings = True
        self.view.set_hexpand(True)
        self.view.set_vexpand(True)
        self.readout = BraggscopeGtk.Readout.new(self.view)
        self.readout.set_margin_start(6)
        self.readout.set_margin_end(6)
        self.readout.set_margin_bottom(4)
        right = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
        right.append(self.view)
        right.append(self.readout)

        scrolled = Gtk.ScrolledWindow(hscrollbar_policy=Gtk.PolicyType.NEVER,
                                      propagate_natural_width=True)
        scrolled.set_child(BraggscopeGtk.Controls.new(self.sim))
        paned = Gtk.Paned(orientation=Gtk.Orientation.HORIZONTAL, shrink_start_child=False,
                          resize_start_child=False)
        paned.set_start_child(scrolled)
        paned.set_end_child(right)

        self.window = Gtk.Window(title="Braggscope in a Python host", default_width=1100,
                                 default_height=720)
        self.window.set_child(paned)
        self.window.connect("close-request", self.on_close_request)

    def on_frame_ready(self, sim, frame):
        # Emitted on the main thread, previews while a slider moves, then the full frame.
        if not frame.props.is_preview:
            print(f"frame {frame.props.sequence}: {frame.props.width} x {frame.props.height}, "
                  f"brightest pixel {frame.props.max_value:.4g} photons, "
                  f"{frame.props.total_ms:.1f} ms ({frame.props.backend})")

    def on_error(self, sim, error):
        print(f"python-host: {error.message}", file=sys.stderr)
        if self.quit_after_frame:
            self.status = 1

    def on_close_request(self, window):
        self.status = 0
        return False

    def check_frame_shown(self):
        """--quit-after-frame: read the brightest pixel of the frame on screen."""
        frame = self.sim.get_last_frame()
        if (frame is None or frame.props.is_preview or frame.props.sequence != self.sim.props.sequence
                or self.view.get_frame() != frame or not self.view.get_mapped()):
            return GLib.SOURCE_CONTINUE
        # The pixels, copied into Python: fine for one look.  python-headless.py shows
        # how to read them without a copy, as a NumPy array.
        data = frame.get_bytes().get_data()
        pixels = memoryview(data).cast("f")
        brightest = max(range(len(pixels)), key=pixels.__getitem__)
        x, y = brightest % frame.props.width + 0.5, brightest // frame.props.width + 0.5
        ok, wx, wy = self.view.frame_to_widget(x, y)
        if not ok:
            return GLib.SOURCE_CONTINUE
        self.view.set_readout_point(wx, wy)
        text = self.readout.get_text()
        print(f"readout at the brightest pixel: {text}")
        print(f"its F: {self.readout.get_field('structure-factor')}, d: {self.readout.get_field('d')}")
        self.status = 0 if text else 1
        return GLib.SOURCE_REMOVE

    def on_timeout(self):
        print("python-host: no full frame on screen within 60 s", file=sys.stderr)
        self.status = 1
        return GLib.SOURCE_REMOVE

    def run(self):
        self.window.present()
        if self.quit_after_frame:
            GLib.timeout_add(50, self.check_frame_shown)
            GLib.timeout_add_seconds(60, self.on_timeout)
        context = GLib.MainContext.default()
        while self.status is None:
            context.iteration(True)
        print("parameters:", self.sim.to_command_line())
        self.window.destroy()
        return self.status


def main(argv):
    quit_after_frame = "--quit-after-frame" in argv
    flags = [a for a in argv if a != "--quit-after-frame"]
    try:
        host = Host(flags, quit_after_frame)
    except GLib.Error as e:
        print(f"python-host: {e.message}", file=sys.stderr)
        return 1
    return host.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
