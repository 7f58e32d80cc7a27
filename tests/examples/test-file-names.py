#!/usr/bin/env python3
"""Issue 23, item 3: file names that are not UTF-8 reach a Python host as file names.

A snapshot whose arguments name a structure-factor file b"\\xff.hkl" made a
Python host abort ("double free or corruption"): the arguments were annotated
as UTF-8 strings.  Every function that hands arguments over takes and gives
them as file names (bytes in, str with surrogate escapes out, as os.fsdecode
gives), and every error that names such a file is a valid UTF-8 message.

The snapshot is a PNG this test writes itself, chunk by chunk, as an attacker
would.  TAP."""
import os
import shutil
import struct
import sys
import tempfile
import zlib

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Braggscope", "1.0")
from gi.repository import GLib, Braggscope  # noqa: E402

n_tests = 0
failed = False


def ok(condition, what):
    global n_tests, failed
    n_tests += 1
    failed |= not condition
    print(f"{'ok' if condition else 'not ok'} {n_tests} - {what}")
    return condition


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_png(path, args):
    """A 1 x 1 RGBA PNG whose "braggscope:args" tEXt chunk holds @args (bytes)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", header))
        f.write(chunk(b"tEXt", b"braggscope:args\0" + b"\n".join(args)))
        f.write(chunk(b"IDAT", zlib.compress(b"\0\0\0\0\xff")))
        f.write(chunk(b"IEND", b""))


def utf8_message(error):
    message = error.message
    return isinstance(message, str) and "\n" not in message


def main():
    folder = tempfile.mkdtemp(prefix="braggscope-names-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(folder, "cache")
    raw_folder = os.fsencode(folder)
    hkl = raw_folder + b"/\xff.hkl"
    png = os.path.join(folder, "names.png")
    scene = [b"nanobragg", b"-hkl", hkl, b"-cell", b"40", b"40", b"40", b"90", b"90", b"90",
             b"-detpixels", b"32", b"-pixel", b"0.8", b"-N", b"4"]
    with open(hkl, "w") as f:
        f.write("1 0 0 100\n0 1 0 100\n0 0 1 100\n")
    write_png(png, scene)

    args = Braggscope.snapshot_load_args(png)
    ok(args[2] == os.fsdecode(hkl), "snapshot_load_args gives the non-UTF-8 name as a file name")
    ok([os.fsencode(a) for a in args] == scene, "every argument comes back byte for byte")
    restored = Braggscope.snapshot_restore_args(png)
    ok(os.fsencode(restored[2]) == hkl, "snapshot_restore_args finds the file under its name")

    sim = Braggscope.Simulation.new()
    ok(sim.load_snapshot(png), "load_snapshot restores the scene")
    to_args = sim.to_args()
    ok(os.fsencode(to_args[to_args.index("-hkl") + 1]) == hkl, "to_args gives the name back")
    line = sim.to_command_line()
    ok(isinstance(line, str) and "-hkl" in line, "to_command_line is a file-name string")

    # rendering reads the file; its frame's arguments are file names too
    loop = GLib.MainLoop()
    result = {}

    def on_frame(sim, frame):
        if not frame.props.is_preview and frame.props.sequence == sim.props.sequence:
            result["frame"] = frame
            loop.quit()

    def on_error(sim, error):
        result["error"] = error
        loop.quit()

    sim.connect("frame-ready", on_frame)
    sim.connect("error", on_error)
    GLib.timeout_add_seconds(60, loop.quit)
    sim.render()
    loop.run()
    frame = result.get("frame")
    frame_args = frame.get_args() if frame is not None else []
    ok("-hkl" in frame_args and os.fsencode(frame_args[frame_args.index("-hkl") + 1]) == hkl,
       "the frame renders from the file and its get_args names it")

    # a host passes file names as bytes
    other = Braggscope.Simulation.new()
    ok(other.set_from_args([b"-hkl", hkl, b"-N", b"3"]), "set_from_args takes bytes")
    ok(other.set_scene_from_args([b"-hkl", hkl], os.fsdecode(png)), "set_scene_from_args too")
    kept, dropped = Braggscope.scene_args_drop_outputs([b"-dump", hkl, b"-N", b"3"])
    ok(kept == ["-N", "3"] and os.fsencode(dropped) == b"-dump " + hkl,
       "scene_args_drop_outputs gives what it dropped as a file name")

    # errors that name such a file are UTF-8 messages
    try:
        other.set_scene_from_args([b"-dump", hkl], os.fsdecode(hkl))
        ok(False, "a scene naming a file to write is refused")
    except GLib.Error as error:
        ok(utf8_message(error) and "-dump" in error.message,
           "the refusal of a non-UTF-8 source is a UTF-8 message")
    # a snapshot saved here travels with its file, under its name
    shot = os.path.join(folder, "saved.png")
    Braggscope.snapshot_save(shot, GLib.Bytes.new(b"\0" * 4), 1, 1, sim)
    os.unlink(hkl)
    back = Braggscope.Simulation.new()
    ok(back.load_snapshot(shot), "a saved snapshot reopens without the file (embedded)")
    back_args = back.to_args()
    cached = os.fsencode(back_args[back_args.index("-hkl") + 1])
    ok(cached.endswith(b"/\xff.hkl") and os.path.exists(cached),
       "the embedded copy is in the cache under the same name")

    # not embedded, and gone: the error names the file in UTF-8
    with open(hkl, "w") as f:
        f.write("1 0 0 100\n")
    os.environ["BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT"] = "0"
    sim3 = Braggscope.Simulation.new()
    sim3.set_from_args([b"-hkl", hkl])
    Braggscope.snapshot_save(shot, GLib.Bytes.new(b"\0" * 4), 1, 1, sim3)
    os.unlink(hkl)
    try:
        Braggscope.Simulation.new().load_snapshot(shot)
        ok(False, "a snapshot whose structure factors are gone fails")
    except GLib.Error as error:
        ok(utf8_message(error) and "\ufffd.hkl" in error.message,
           "the missing file's error is a UTF-8 message naming it")
    try:
        Braggscope.snapshot_restore_args(shot)
        ok(False, "restore_args fails too")
    except GLib.Error as error:
        ok(utf8_message(error), "restore_args's error is a UTF-8 message")
    shutil.rmtree(folder)
    print(f"1..{n_tests}")
    return 1 if failed else 0


sys.exit(main())
