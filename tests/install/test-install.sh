#!/usr/bin/env bash
# test-install.sh: `meson install` into a temporary folder gives a usable library.  TAP.
#
# usage: test-install.sh BUILD_DIR SOURCE_DIR CC PYTHON GJS
#   PYTHON, GJS: interpreters with PyGObject and GJS, or "" to skip their hosts
#
# The build is installed with DESTDIR into a temporary folder, and the installed prefix is
# then moved to another folder: the .pc files (${pcfiledir}), the data files and the
# translations must be found there, from the libraries' own folders.  Then, with nothing of
# the build or source tree on any search path:
#   - the files every user needs are where the standard layout puts them;
#   - the linked C host (the installed copy of plugin/examples/c-host-linked.c) is compiled
#     with `pkg-config --cflags --libs braggscope-gtk-1` alone and run, and the libraries it
#     loaded are checked to be the installed ones;
#   - a small engine program including nb-frame.h is compiled with `pkg-config --cflags --libs
#     nanobragg` and run on the shared libnanobragg.so.0, and Python's ctypes loads that;
#   - the Python host (and the GJS host) run on the installed typelibs and libraries only,
#     checked in the process's memory map;
#   - with the source tree renamed away (compiled-in paths lead nowhere), the ten-line
#     headless Python example (render_frame, to_numpy) runs on the moved tree, and the
#     widgets' library binds the moved tree's translations.
set -u

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cc=$3
python=${4:-}
gjs=${5:-}

n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
# check NAME COMMAND...: runs the command with its output as TAP comments
check () {
  local name=$1 out status
  shift
  out=$("$@" 2>&1)
  status=$?
  printf '%s\n' "$out" | sed 's/^/# /'
  if [ $status -eq 0 ]; then ok "$name"; else not_ok "$name (exit status $status)"; fi
  return $status
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/braggscope-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if ! out=$(meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/dest" 2>&1); then
  printf '%s\n' "$out" | sed 's/^/# /'
  not_ok "meson install"
  echo "1..$n"
  exit 1
fi
ok "meson install --destdir"

# The configured layout, from meson.
read -r prefix libdir includedir datadir < <(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["libdir"], o["includedir"], o["datadir"])')
# Move the installed prefix elsewhere: nothing may depend on where it was installed.
case $libdir in /*) not_ok "libdir $libdir is outside the prefix: no relocation test"; echo "1..$n"; exit 1 ;; esac
mkdir -p "$tmp/elsewhere"
mv "$tmp/dest$prefix" "$tmp/elsewhere/moved"
root=$tmp/elsewhere/moved
lib=$root/$libdir

# The .pc files find their prefix from their own folder.
missing=
for pc in braggscope-1 braggscope-gtk-1 nanobragg; do
  if [ ! -f "$lib/pkgconfig/$pc.pc" ]; then
    missing="$missing $pc.pc"
  elif ! grep -q '^prefix=${pcfiledir}' "$lib/pkgconfig/$pc.pc"; then
    missing="$missing $pc.pc($(grep '^prefix=' "$lib/pkgconfig/$pc.pc"))"
  fi
done
[ -z "$missing" ] && ok "braggscope-1.pc, braggscope-gtk-1.pc, nanobragg.pc in $libdir/pkgconfig, relative to \${pcfiledir}" \
  || not_ok "missing or not relocatable:$missing"

# Everything a user of the library, the viewer or the reference looks for.
missing=
for f in "$includedir/braggscope-1/braggscope.h" "$includedir/braggscope-1/braggscope-enums.h" \
         "$includedir/braggscope-1/braggscope-module.h" \
         "$includedir/braggscope-gtk-1/braggscope-gtk.h" \
         "$includedir/braggscope-gtk-1/braggscope-readout.h" \
         "$includedir/braggscope-gtk-1/braggscope-gtk-module.h" \
         "$includedir/nanobragg/nanobragg.h" "$includedir/nanobragg/nb-status.h" \
         "$includedir/nanobragg/nb-frame.h" "$includedir/nanobragg/nb-predict.h" \
         "$includedir/nanobragg/nb-match.h" "$includedir/nanobragg/nb-param.h" \
         "$includedir/nanobragg/nb-frame-write.h" "$includedir/nanobragg/nb-fingerprint.h" \
         "$libdir/libbraggscope-1.so.0" "$libdir/libbraggscope-gtk-1.so.0" "$libdir/libnanobragg.a" \
         "$libdir/libnanobragg.so.0" "$libdir/libnanobragg.so" \
         "$libdir/girepository-1.0/Braggscope-1.0.typelib" \
         "$libdir/girepository-1.0/BraggscopeGtk-1.0.typelib" \
         "$datadir/gir-1.0/Braggscope-1.0.gir" "$datadir/gir-1.0/BraggscopeGtk-1.0.gir" \
         "$datadir/glib-2.0/schemas/io.github.braggscope.Braggscope.gschema.xml" \
         "$datadir/locale/de/LC_MESSAGES/braggscope.mo" \
         "$datadir/applications/io.github.braggscope.Braggscope.desktop" \
         "$datadir/metainfo/io.github.braggscope.Braggscope.metainfo.xml" \
         "$datadir/icons/hicolor/scalable/apps/io.github.braggscope.Braggscope.svg" \
         "$datadir/braggscope/1hpv_p1.hkl" "$datadir/braggscope/6lyz.pdb" "$datadir/braggscope/nacl.cif" \
         "$datadir/braggscope/1hpv.pdb" "$datadir/doc/braggscope/examples/c-host-linked.c" \
         "$datadir/doc/braggscope/examples/python-host.py" \
         "$datadir/doc/braggscope/examples/python-orientations.py" "bin/braggscope" "bin/nanobragg"; do
  case $f in /*) path=$root/${f#"$prefix"/} ;; *) path=$root/$f ;; esac
  [ -e "$path" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "headers, libraries, typelibs, GIR, schema, translation, desktop data, data, examples" \
  || not_ok "not installed:$missing"
override=$(find "$root" -path '*/gi/overrides/Braggscope.py' | head -n 1)
[ -n "$override" ] && ok "PyGObject override ${override#"$root"/}" || not_ok "gi/overrides/Braggscope.py not installed"

# The benchmarks and the build tools stay in the build folder.
extra=
for f in bin/braggscope-drag-bench bin/nanobragg-bench bin/gen-property-docs; do
  [ -e "$root/$f" ] && extra="$extra $f"
done
[ -z "$extra" ] && ok "no benchmark or build tool installed" || not_ok "installed:$extra"

docs=$(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
print(next((x["value"] for x in json.load(sys.stdin) if x["name"] == "docs"), "disabled"))')
if [ "$docs" = disabled ]; then
  skip "API reference (the docs option is disabled)"
else
  missing=
  for f in braggscope-1/index.html braggscope-1/class.Simulation.html braggscope-1/engine-api.html \
           braggscope-1/embedding.html braggscope-gtk-1/index.html braggscope-gtk-1/class.Readout.html; do
    [ -f "$root/$datadir/doc/$f" ] || missing="$missing $f"
  done
  [ -z "$missing" ] && ok "API reference in $datadir/doc/braggscope-1 and braggscope-gtk-1" \
    || not_ok "reference pages not installed:$missing"
fi

# Nothing of the build or source tree on the search paths from here on, and no folder named
# by an environment variable: the libraries find their data and translations themselves.
unset GI_TYPELIB_PATH LD_LIBRARY_PATH PYTHONPATH BRAGGSCOPE_DATADIR BRAGGSCOPE_LOCALEDIR
export PKG_CONFIG_PATH=$lib/pkgconfig
export NB_BACKEND=cpu
cp "$src/build-aux/xvfb-test.sh" "$tmp/xvfb-test.sh"
xvfb=$tmp/xvfb-test.sh

# loaded_from_install MAPS: a process's memory map (a copy of /proc/PID/maps) shows the
# installed libbraggscope-gtk-1, and no Braggscope library or typelib from anywhere else.
loaded_from_install () {
  local maps=$1 outside
  outside=$(grep -E 'libbraggscope|Braggscope.*\.typelib' "$maps" | awk '{print $6}' | sort -u |
            grep -v "^$tmp/elsewhere/moved/")
  if [ -n "$outside" ]; then
    echo "mapped from outside the installed tree: $outside"
    return 1
  fi
  grep -q "$lib/libbraggscope-gtk-1.so" "$maps" || { echo "libbraggscope-gtk-1 not mapped"; return 1; }
}

flags=$(pkg-config --cflags --libs braggscope-gtk-1 2>&1)
case $flags in
  *"$build"* | *"$src"*) not_ok "pkg-config braggscope-gtk-1 points into the build or source tree: $flags" ;;
  *) ok "pkg-config braggscope-gtk-1: $flags" ;;
esac

# shellcheck disable=SC2086 # pkg-config's words
if check "C host compiled against the installed braggscope-gtk-1.pc" \
     $cc -o "$tmp/c-host-linked" "$root/$datadir/doc/braggscope/examples/c-host-linked.c" \
     $(pkg-config --cflags --libs braggscope-gtk-1) -Wl,-rpath,"$lib"; then
  # the host's memory map is read while it runs (it exits after its first frame on screen)
  cat >"$tmp/run-c-host.sh" <<END
"$tmp/c-host-linked" --quit-after-frame -detpixels 128 &
pid=\$!
for i in \$(seq 100); do
  grep -q libbraggscope-gtk /proc/\$pid/maps 2>/dev/null && break
  sleep 0.05
done
cp /proc/\$pid/maps "$tmp/c-host.maps"
wait \$pid
END
  check "installed C host runs" "$xvfb" --exitcode sh "$tmp/run-c-host.sh" &&
    check "the C host loaded the installed libraries" loaded_from_install "$tmp/c-host.maps"
else
  not_ok "installed C host runs (not built)"
fi

cat >"$tmp/engine.c" <<'EOF'
#include <nanobragg.h>
#include <nb-frame.h>
#include <nb-predict.h>
#include <stdio.h>
#include <stdlib.h>

int
main (void)
{
  const char *argv[] = { "engine", "-default_F", "100", "-cell", "40", "50", "60", "90", "90",
                         "90", "-N", "3", "-detpixels", "32", "-distance", "60", NULL };
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err;
  float image[32 * 32];
  double sum = 0;

  nb_params_init (&p);
  if (nb_params_parse_argv (&p, 16, argv, &err) != NB_OK ||
      nb_plan_create (&p, &plan, &err) != NB_OK || nb_plan_execute (plan, image, NULL, &err) != NB_OK)
    {
      fprintf (stderr, "engine: %s\n", err.message);
      return 1;
    }
  for (int i = 0; i < 32 * 32; i++)
    sum += image[i];
  printf ("32 x 32 pixels, %g photons; frame formats %s, %s\n", sum,
          nb_frame_format_name (NB_FRAME_SMV), nb_frame_format_name (NB_FRAME_CBF));
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  return sum > 0 ? 0 : 1;
}
EOF
flags=$(pkg-config --cflags --libs nanobragg 2>&1)
case $flags in
  *"$build"* | *"$src"*) not_ok "pkg-config nanobragg points into the build or source tree: $flags" ;;
  *) ok "pkg-config nanobragg: $flags" ;;
esac
# shellcheck disable=SC2046
if check "engine program including nb-frame.h compiled against the installed nanobragg.pc" \
     $cc -std=c11 -o "$tmp/engine" "$tmp/engine.c" $(pkg-config --cflags --libs nanobragg) \
     -Wl,-rpath,"$lib"; then
  check "engine program runs" "$tmp/engine"
  linked=$(ldd "$tmp/engine" | grep libnanobragg)
  case $linked in
    *"$lib/libnanobragg.so.0"*) ok "it linked the installed shared library:$linked" ;;
    *) not_ok "it did not link the installed libnanobragg.so.0: ${linked:-not linked}" ;;
  esac
fi

# The shared engine from another language: Python's ctypes (any python3).
cat >"$tmp/ctypes-engine.py" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.nb_status_name.restype = ctypes.c_char_p
lib.nb_status_name.argtypes = [ctypes.c_int]
lib.nb_kernel_variant.restype = ctypes.c_char_p
names = [lib.nb_status_name(i).decode() for i in range(3)]
assert names == ["ok", "usage", "invalid"], names
# engine parts that are not API are not exported
hidden = [f for f in ("nb_hkl_read", "nb_hkl_grid_build") if hasattr(lib, f)]
assert not hidden, f"exported: {hidden}"
print("statuses", names, "kernel", lib.nb_kernel_variant().decode())
EOF
check "Python ctypes loads the installed libnanobragg.so.0" python3 "$tmp/ctypes-engine.py" \
  "$lib/libnanobragg.so.0"

# The CBF/NeXus module (engine/formats/nb-formats.h): the installed CLI does not link CBFlib or libhdf5;
# reading a CBF frame loads the module of the relocated install, found from the program's own
# folder (LD_DEBUG=files: glibc's loader names every object it opens).
if [ -e "$build/engine/nanobragg-formats.so" ]; then
  if [ ! -e "$lib/nanobragg/nanobragg-formats.so" ]; then
    not_ok "nanobragg-formats.so not installed in $libdir/nanobragg"
  else
    linked=$(ldd "$root/bin/nanobragg" | grep -E 'libhdf5|libcbf|libcurl')
    [ -z "$linked" ] && ok "the installed nanobragg links neither CBFlib nor libhdf5" \
      || not_ok "the installed nanobragg links: $linked"
    if out=$(cd "$tmp" && LD_DEBUG=files "$root/bin/nanobragg" \
               -frame "$src/tests/fuzz/corpus/frame-cbf/minicbf-none" -default_F 100 \
               -cell 40 50 60 90 90 90 -N 3 -floatfile "$tmp/cbf.bin" -noisefile "$tmp/cbf.img" 2>&1); then
      loaded=$(printf '%s\n' "$out" | sed -n 's/.*file=\([^ ]*nanobragg-formats\.so\) .*dynamically loaded.*/\1/p')
      case $(realpath "$loaded" 2>/dev/null) in
        "$(realpath "$lib/nanobragg/nanobragg-formats.so")") ok "installed nanobragg reads a CBF frame through the installed module" ;;
        *) not_ok "installed nanobragg loaded the CBF/NeXus module from '${loaded}', not $lib/nanobragg" ;;
      esac
    else
      printf '%s\n' "$out" | grep -v '^ *[0-9]*:' | sed 's/^/# /'
      not_ok "installed nanobragg reads a CBF frame"
    fi
  fi
else
  skip "CBF/NeXus module (a build without libhdf5)"
fi

# The models module (engine/formats/nb-models.h): gemmi and the C++ runtime load only with a
# model, from the relocated install.
if [ -e "$build/engine/nanobragg-models.so" ]; then
  linked=$(ldd "$root/bin/nanobragg" | grep -E 'libstdc\+\+')
  [ -z "$linked" ] && ok "the installed nanobragg does not link the C++ runtime" \
    || not_ok "the installed nanobragg links: $linked"
  if out=$(cd "$tmp" && LD_DEBUG=files "$root/bin/nanobragg" -model "$src/data/1hpv.pdb" \
             -detpixels 16 -pixel 0.4 -distance 100 -floatfile "$tmp/model.bin" 2>&1); then
    loaded=$(printf '%s\n' "$out" | sed -n 's/.*file=\([^ ]*nanobragg-models\.so\) .*dynamically loaded.*/\1/p')
    case $(realpath "$loaded" 2>/dev/null) in
      "$(realpath "$lib/nanobragg/nanobragg-models.so")") ok "installed nanobragg reads a model through the installed module" ;;
      *) not_ok "installed nanobragg loaded the models module from '${loaded}', not $lib/nanobragg" ;;
    esac
  else
    printf '%s\n' "$out" | grep -v '^ *[0-9]*:' | sed 's/^/# /'
    not_ok "installed nanobragg reads a model"
  fi
else
  skip "models module (a build without gemmi)"
fi

export GI_TYPELIB_PATH=$lib/girepository-1.0
export LD_LIBRARY_PATH=$lib
if [ -n "$python" ]; then
  cat >"$tmp/run-python.py" <<'EOF'
import runpy, sys
example, maps = sys.argv[1], sys.argv[2]
sys.argv = [example, "--quit-after-frame", "-detpixels", "128"]
try:
    runpy.run_path(example, run_name="__main__")
except SystemExit as e:
    status = e.code
with open("/proc/self/maps") as f, open(maps, "w") as out:
    out.write(f.read())
sys.exit(status)
EOF
  check "installed Python host runs on the installed typelibs" \
    "$xvfb" --exitcode "$python" "$tmp/run-python.py" \
    "$root/$datadir/doc/braggscope/examples/python-host.py" "$tmp/python.maps" &&
    check "the Python host loaded the installed libraries and typelibs" \
      loaded_from_install "$tmp/python.maps"
else
  skip "Python host (no python3 with PyGObject)"
fi

if [ -n "$gjs" ]; then
  check "installed GJS host runs on the installed typelibs and libraries" \
    "$xvfb" --exitcode "$gjs" -m "$root/$datadir/doc/braggscope/examples/gjs-host.js" \
    --quit-after-frame -detpixels 128
else
  skip "GJS host (no gjs)"
fi

# The source tree renamed away while the moved install runs: any path compiled into the
# libraries that still leads there fails now.  (Put back on exit; meson runs this test alone.)
if [ -n "$python" ] && [ -f "$src/meson.build" ] && [ "$src" != / ]; then
  away=$src.renamed-by-test-install.$$
  if mv "$src" "$away"; then
    trap 'mv "$away" "$src"; rm -rf "$tmp"' EXIT
    export GI_TYPELIB_PATH=$lib/girepository-1.0 LD_LIBRARY_PATH=$lib
    export PYTHONPATH=${override%/gi/overrides/Braggscope.py}
    check "source tree renamed away: the ten-line example (render_frame, to_numpy) runs on the moved tree" \
      "$python" "$root/$datadir/doc/braggscope/examples/python-orientations.py"
    cat >"$tmp/textdomain-check.py" <<'EOF'
import ctypes, sys
import gi
gi.require_version("Gtk", "4.0")
gi.require_version("BraggscopeGtk", "1.0")
from gi.repository import Gtk, BraggscopeGtk
Gtk.init()
BraggscopeGtk.Readout()  # binds the widgets' text domain
libc = ctypes.CDLL(None)
libc.bindtextdomain.restype = ctypes.c_char_p
libc.bindtextdomain.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
folder = libc.bindtextdomain(b"braggscope", None).decode()
print("translations from", folder)
sys.exit(0 if folder == sys.argv[1] else 1)
EOF
    check "source tree renamed away: the widgets bind the moved tree's translations" \
      "$xvfb" --exitcode "$python" "$tmp/textdomain-check.py" "$(realpath "$root/$datadir/locale")"
    mv "$away" "$src" && trap 'rm -rf "$tmp"' EXIT
  else
    not_ok "could not rename the source tree away"
  fi
else
  skip "relocation run (no python3 with PyGObject, or no source tree to rename)"
fi

echo "1..$n"
exit 0
