#!/usr/bin/env -S gjs -m
// A GTK 4 program in JavaScript (GJS) that embeds Braggscope: the view, the
// controls and a readout.
//
//     gjs -m gjs-host.js [--quit-after-frame] [nanoBragg flags...]
//
// From a build tree, put the typelibs and libraries on the search paths first:
//
//     export GI_TYPELIB_PATH=build/plugin:build/plugin/gtk
//     export LD_LIBRARY_PATH=build/plugin:build/plugin/gtk
//
// It creates the default scene (HIV-1 protease, PDB 1HPV), applies the flags,
// and shows the frames as they arrive; the readout follows the pointer.  With
// --quit-after-frame it points the readout at the brightest pixel of the first
// full frame on screen, prints it and exits (0 when it worked).
//
// SPDX-License-Identifier: BSD-3-Clause

import GLib from 'gi://GLib';
import Gtk from 'gi://Gtk?version=4.0';
import Braggscope from 'gi://Braggscope?version=1.0';
import BraggscopeGtk from 'gi://BraggscopeGtk?version=1.0';
import System from 'system';

const args = ARGV.filter(a => a !== '--quit-after-frame');
const quitAfterFrame = args.length !== ARGV.length;
let status = null;

Gtk.init();

let sim;
try {
    sim = Braggscope.Simulation.new_default_scene();
    sim.set_from_args(args);
} catch (e) {
    printerr(`gjs-host: ${e.message}`);
    System.exit(1);
}

// Frames arrive on the main thread: previews while a slider moves, then the full frame.
sim.connect('frame-ready', (_sim, frame) => {
    if (!frame.is_preview) {
        print(`frame ${frame.sequence}: ${frame.width} x ${frame.height}, ` +
              `brightest pixel ${frame.max_value.toPrecision(4)} photons, ` +
              `${frame.total_ms.toFixed(1)} ms (${frame.backend})`);
    }
});
sim.connect('error', (_sim, error) => {
    printerr(`gjs-host: ${error.message}`);
    if (quitAfterFrame)
        status = 1;
});

// The view and its readout on the right, the controls (scrolled: they are
// taller than most windows) on the left.
const view = BraggscopeGtk.View.new(sim);
view.show_rings = true;
view.hexpand = true;
view.vexpand = true;
const readout = BraggscopeGtk.Readout.new(view);
readout.margin_start = 6;
readout.margin_end = 6;
readout.margin_bottom = 4;
const right = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 4});
right.append(view);
right.append(readout);

const scrolled = new Gtk.ScrolledWindow({
    hscrollbar_policy: Gtk.PolicyType.NEVER,
    propagate_natural_width: true,
});
scrolled.set_child(BraggscopeGtk.Controls.new(sim));
const paned = new Gtk.Paned({
    orientation: Gtk.Orientation.HORIZONTAL,
    shrink_start_child: false,
    resize_start_child: false,
});
paned.set_start_child(scrolled);
paned.set_end_child(right);

const window = new Gtk.Window({
    title: 'Braggscope in a GJS host',
    default_width: 1100,
    default_height: 720,
    child: paned,
});
window.connect('close-request', () => {
    status = 0;
    return false;
});
window.present();

if (quitAfterFrame) {
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 50, () => {
        const frame = sim.get_last_frame();
        if (frame === null || frame.is_preview || frame.sequence !== sim.sequence ||
            view.get_frame() !== frame || !view.get_mapped())
            return GLib.SOURCE_CONTINUE;
        // The pixels, copied into a typed array (GJS has no way to share them).
        const bytes = frame.get_bytes().toArray();
        const pixels = new Float32Array(bytes.buffer, bytes.byteOffset, frame.width * frame.height);
        let brightest = 0;
        for (let i = 1; i < pixels.length; i++) {
            if (pixels[i] > pixels[brightest])
                brightest = i;
        }
        const [ok, x, y] = view.frame_to_widget(brightest % frame.width + 0.5,
            Math.floor(brightest / frame.width) + 0.5);
        if (!ok)
            return GLib.SOURCE_CONTINUE;
        view.set_readout_point(x, y);
        print(`readout at the brightest pixel: ${readout.get_text()}`);
        print(`its F: ${readout.get_field('structure-factor')}, d: ${readout.get_field('d')}`);
        status = readout.get_text() ? 0 : 1;
        return GLib.SOURCE_REMOVE;
    });
    GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 60, () => {
        printerr('gjs-host: no full frame on screen within 60 s');
        status = 1;
        return GLib.SOURCE_REMOVE;
    });
}

const context = GLib.MainContext.default();
while (status === null)
    context.iteration(true);
print(`parameters: ${sim.to_command_line()}`);
window.destroy();
System.exit(status);
