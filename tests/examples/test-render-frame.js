// test-render-frame.js: render_frame_async awaited from GJS (issue 27), the error raised, the
// frame of an unchanged scene at once, batch mode's frames in order.  TAP.
//
// SPDX-License-Identifier: BSD-3-Clause

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Braggscope from 'gi://Braggscope?version=1.0';
import System from 'system';

Gio._promisify(Braggscope.Simulation.prototype, 'render_frame_async');

let n = 0, failed = false;
function ok(condition, what) {
    n++;
    if (!condition)
        failed = true;
    print(`${condition ? 'ok' : 'not ok'} ${n} - ${what}`);
}

async function main() {
    const sim = Braggscope.Simulation.new();
    sim.set_from_args(['-cell', '40', '50', '60', '90', '90', '90', '-default_F', '100', '-N', '3',
        '-detpixels', '48', '-misset', '10', '20', '30']);
    const first = await sim.render_frame_async(null);
    ok(first.get_width() === 48 && !first.get_is_preview(), 'await render_frame_async: the full frame');

    sim.misset_x = 10.0;  // the value it has: no change, nothing rendered
    const start = GLib.get_monotonic_time();
    const again = await sim.render_frame_async(null);
    ok(again === first && GLib.get_monotonic_time() - start < 1e6,
        'an unchanged scene answers at once with the frame it has');

    const bare = Braggscope.Simulation.new();
    bare.connect('error', () => {});
    try {
        await bare.render_frame_async(null);
        ok(false, 'a scene without a cell raises');
    } catch (e) {
        ok(e.matches(Braggscope.Error, Braggscope.Error.INVALID), `a scene without a cell raises: ${e.message}`);
    }

    try {
        sim.set_value('wavelength', -1);
        ok(false, 'set_value raises for a refused value');
    } catch (e) {
        ok(e.message.startsWith('wavelength: '), `set_value raises: ${e.message}`);
    }

    sim.batch = true;
    const frames = [];
    sim.connect('frame-ready', (s, frame) => frames.push(frame));
    for (let i = 1; i <= 5; i++)
        sim.misset_x = 2.0 * i;
    const last = await sim.render_frame_async(null);
    ok(frames.length === 5 && frames.every(f => !f.get_is_preview()) && frames[4] === last &&
        frames.every((f, i) => f.get_args().join(' ').includes(`-misset ${2 * (i + 1)} `)),
    `batch: ${frames.length} full frames, in order`);
}

const loop = new GLib.MainLoop(null, false);
main().catch(e => {
    ok(false, `${e}`);
}).finally(() => loop.quit());
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 60, () => {
    ok(false, 'timed out');
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
print(`1..${n}`);
System.exit(failed ? 1 : 0);
