#!/usr/bin/env bash
# Installs Braggscope's build dependencies (Debian 12, as root), configures and builds it, and
# then opens the viewer on the default scene or runs the test suites.  Safe to run again: it
# installs only what is missing and reconfigures an existing build folder.
#
# usage: bash build-aux/setup.sh [build|run|test]
#   build   install dependencies, configure, compile (the default)
#   run     build, then launch the viewer (braggscope) on the default scene (1HPV); without a
#           display, write the viewer's picture of it (braggscope --snapshot) to
#           $OUT_DIR/1hpv.png and print its path (the CLI renders it where no viewer was built)
#   test    build (with the API reference), then run every test suite; then, in two more
#           build folders, the engine, cli, plugin and fuzz-replay suites under
#           AddressSanitizer + UndefinedBehaviorSanitizer and the worker suite under
#           ThreadSanitizer (the slow parity suite only runs in the first); exits non-zero
#           when any run failed
#
# environment:
#   BUILD_DIR    build folder, relative to the repository root or absolute (default: build)
#   OUT_DIR      where `run` writes its images (default: $BUILD_DIR/render)
#   GOLDEN_DIR   golden reference images for the parity suite (default: meson's golden_dir)
#   CI           when set: never prompt (sudo -n), print full logs of failed steps
#   SANITIZERS   0: `test` skips the sanitizer builds; only: runs them alone (default 1)
#   ASAN_BUILD_DIR, TSAN_BUILD_DIR   their folders (default build-asan, build-tsan)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/render}
export DEBIAN_FRONTEND=noninteractive

PACKAGES=(gcc libc6-dev meson ninja-build pkg-config libglib2.0-dev libpng-dev zlib1g-dev
          python3-numpy libgtk-4-dev libepoxy-dev gobject-introspection libgirepository1.0-dev
          gir1.2-gtk-4.0 python3-gi gjs gi-docgen xvfb xauth desktop-file-utils appstream gettext
          clang valgrind locales-all clang-format
          libcbf-dev libhdf5-dev libjansson-dev libopenmpi-dev openmpi-bin python3-fabio python3-h5py python3-dials
          libgif-dev libxtst-dev
          g++ gemmi-dev tao-pegtl-dev gemmi)

# The default scene: HIV-1 protease (PDB 1HPV) on a 1024 x 1024 detector.
SCENE=(-hkl "$ROOT/data/1hpv_p1.hkl"
       -cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30
       -lambda 1.0 -N 10 -mosaic 0.2 -mosaic_domains 5
       -distance 120 -detpixels 1024 -pixel 0.1 -precision single
       -pngfile 1hpv.png -pgmscale 0.1 -floatfile 1hpv.float
       -nonoise -nopgm -noprogress)

say () { printf '%s\n' "setup.sh: $*"; }
die () { printf '%s\n' "setup.sh: $*" >&2; exit 1; }

usage () {
  cat <<'USAGE'
usage: bash build-aux/setup.sh [build|run|test]
  build   install dependencies, configure, compile (the default)
  run     build, then render the default scene (1HPV) to a PNG and print its path
  test    build, then run every test suite; exits with meson test's status
USAGE
}

LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/braggscope-setup.XXXXXX")
trap 'rm -rf "$LOG_DIR"' EXIT

# Runs a command with its output in a log, shown only when the command fails.
quietly () {
  local name=$1
  shift
  if ! "$@" >"$LOG_DIR/$name.log" 2>&1 </dev/null; then
    if [ -n "${CI:-}" ]; then
      cat "$LOG_DIR/$name.log" >&2
    else
      tail -n 40 "$LOG_DIR/$name.log" >&2
    fi
    die "$name failed: $*"
  fi
}

install_dependencies () {
  local missing=() pkg sudo=()
  for pkg in "${PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" != installed ]; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  command -v apt-get >/dev/null || die "missing packages and no apt-get: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "run as root to install: ${missing[*]}"
    if [ -n "${CI:-}" ]; then sudo=(sudo -n); else sudo=(sudo); fi
  fi
  # apt's own progress is shown (a first install takes a minute or more); -q keeps it to one
  # line per download and unpack, which a log can hold.
  say "installing ${#missing[@]} packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -q </dev/null || die "apt-get update failed"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null \
    || die "installing the packages failed: ${missing[*]}"
  say "packages installed"
}

configure_and_build () {
  # The API reference (gi-docgen) is built and checked with everything else.
  local options=(-Dtests=enabled -Dpng=enabled -Ddocs=enabled -Dcbf=enabled -Dhdf5=enabled
                 -Dmodels=enabled)
  [ -n "${GOLDEN_DIR:-}" ] && options+=("-Dgolden_dir=$(realpath -m "$GOLDEN_DIR")")
  # Tests on a machine with nvcc must compile and link the CUDA backend: a toolkit that meson
  # cannot use is then an error, not a quietly CPU-only build.
  if [ "$command" = test ] && command -v nvcc >/dev/null; then
    options+=(-Dcuda=enabled)
  fi

  if [ -f "$BUILD_DIR/meson-private/coredata.dat" ]; then
    quietly meson-setup meson setup --reconfigure "$BUILD_DIR" "${options[@]}"
  else
    quietly meson-setup meson setup "$BUILD_DIR" "${options[@]}"
  fi
  quietly meson-compile meson compile -C "$BUILD_DIR"
  # Warnings are worth seeing even when the build succeeds.
  grep -E 'warning:' "$LOG_DIR/meson-compile.log" | head -n 20 >&2 || true
  say "built in $BUILD_DIR"
}

# run: with a display, the viewer on the default scene; without one, the viewer's picture of it
# (braggscope --snapshot); without a viewer (no GTK 4), the CLI's rendering.
render_default_scene () {
  local viewer=$BUILD_DIR/ui/braggscope cli=$BUILD_DIR/cli/nanobragg start ms
  case $viewer in /*) ;; *) viewer=$ROOT/$viewer ;; esac
  case $cli in /*) ;; *) cli=$ROOT/$cli ;; esac

  if [ -x "$viewer" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
    say "starting the viewer on the default scene (HIV-1 protease, PDB 1HPV): $viewer"
    say "drag the misset, wavelength and mosaic sliders; Ctrl+S saves a snapshot, Ctrl+? lists the shortcuts"
    "$viewer" || die "the viewer exited with status $?"
    return 0
  fi

  mkdir -p "$OUT_DIR"
  OUT_DIR=$(cd "$OUT_DIR" && pwd)
  rm -f "$OUT_DIR/1hpv.png" "$OUT_DIR/1hpv.float"
  start=$(date +%s%N)

  if [ -x "$viewer" ]; then
    say "no display (DISPLAY and WAYLAND_DISPLAY are unset): writing the viewer's picture instead"
    if ! "$viewer" --snapshot "$OUT_DIR/1hpv.png" >"$OUT_DIR/1hpv.log" 2>&1 </dev/null; then
      tail -n 20 "$OUT_DIR/1hpv.log" >&2
      die "the snapshot failed; the viewer's output is in $OUT_DIR/1hpv.log"
    fi
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ -f "$OUT_DIR/1hpv.png" ] || die "the viewer wrote no $OUT_DIR/1hpv.png"
    [ -s "$OUT_DIR/1hpv.log" ] || rm -f "$OUT_DIR/1hpv.log"
    say "rendered the default scene in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
    say "PNG: $OUT_DIR/1hpv.png (as the viewer shows it; its text chunks hold the nanobragg command line)"
    say "on a machine with a display, the same command opens the viewer"
    return 0
  fi

  [ -x "$cli" ] || die "no CLI at $cli"
  say "no viewer was built (GTK 4 missing): rendering with the CLI"
  if ! (cd "$OUT_DIR" && "$cli" "${SCENE[@]}") >"$OUT_DIR/1hpv.log" 2>&1 </dev/null; then
    tail -n 20 "$OUT_DIR/1hpv.log" >&2
    die "rendering failed; the CLI's output is in $OUT_DIR/1hpv.log"
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ -f "$OUT_DIR/1hpv.png" ] || die "the CLI wrote no $OUT_DIR/1hpv.png"
  say "rendered the default scene in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
  say "PNG: $OUT_DIR/1hpv.png"
  say "float image (1024 x 1024 float32) and the CLI's log beside it: $OUT_DIR/1hpv.float, 1hpv.log"
}

# ---- sanitizer runs (test) ----

# The tests of build folder $1 in any of the suites $2...: their names, and the ninja targets
# they need (their programs, what they depend on, the CLI the engine tests run, and the
# CBF/NeXus module that the engine opens at run time), as
# "targets<TAB>names".  Tests whose program is valgrind or an interpreter (python, gjs) cannot
# run an instrumented build (the sanitizer runtime must come first), and are left out.
sanitizer_selection () {
  local dir=$1
  shift
  python3 - "$dir" "$@" <<'PY'
import json, os, subprocess, sys
build = os.path.abspath(sys.argv[1])
wanted = set(sys.argv[2:])
intro = lambda what: json.loads(subprocess.run(["meson", "introspect", build, what],
                                               check=True, capture_output=True, text=True).stdout)
targets = {t["id"]: t for t in intro("--targets")}
rel = lambda f: os.path.relpath(f, build)
need, names = set(), []
for t in intro("--tests"):
    suites = {s.split(":", 1)[-1] for s in t["suite"]}
    prog = os.path.basename(t["cmd"][0]) if t["cmd"] else ""
    if not suites & wanted or prog.startswith(("valgrind", "python", "gjs")):
        continue
    names.append(t["name"])
    if t["cmd"] and t["cmd"][0].startswith(build + os.sep):
        need.add(rel(t["cmd"][0]))
    for dep in t.get("depends", []):
        for f in targets.get(dep, {}).get("filename", []):
            need.add(rel(f))
for t in targets.values():
    if (t["name"], t["type"]) in (("nanobragg", "executable"),
                                  ("nanobragg-formats", "shared module"),
                                  ("nanobragg-models", "shared module")):
        need.update(rel(f) for f in t["filename"])
print(" ".join(sorted(need)) + "\t" + " ".join(names))
PY
}

# sanitizer_tests DIR SANITIZE SUITE...: configures DIR with -Db_sanitize=SANITIZE, builds what
# the suites' tests need and runs them.  Prints the time taken.
sanitizer_tests () {
  local dir=$1 sanitize=$2 start selection targets names status=0 wrapper=()
  shift 2
  local options=(-Dtests=enabled -Dpng=enabled -Dbuildtype=debugoptimized -Dcuda=disabled
                 -Ddocs=disabled "-Db_sanitize=$sanitize" -Db_lundef=false)
  [ -n "${GOLDEN_DIR:-}" ] && options+=("-Dgolden_dir=$(realpath -m "$GOLDEN_DIR")")
  start=$(date +%s)
  if [ -f "$dir/meson-private/coredata.dat" ]; then
    quietly "setup-$sanitize" meson setup --reconfigure "$dir" "${options[@]}"
  else
    quietly "setup-$sanitize" meson setup "$dir" "${options[@]}"
  fi
  selection=$(sanitizer_selection "$dir" "$@")
  targets=${selection%%$'\t'*}
  names=${selection#*$'\t'}
  if [ -z "$names" ]; then
    say "$sanitize: no tests in suites $* (skipped)"
    return 0
  fi
  # shellcheck disable=SC2086 # lists of names without spaces
  quietly "build-$sanitize" ninja -C "$dir" $targets
  if [ "$sanitize" = thread ]; then
    # GLib's locks and hand-offs, made visible to TSan (see build-aux/tsan-glib.c)
    # shellcheck disable=SC2046
    quietly tsan-glib cc -shared -fPIC -fsanitize=thread -O1 -o "$dir/libtsan-glib.so" \
      build-aux/tsan-glib.c $(pkg-config --cflags --libs gio-2.0) -ldl
    wrapper=(--wrapper "env LD_PRELOAD=$(realpath "$dir/libtsan-glib.so")")
  fi
  say "$sanitize: running suites $* in $dir"
  # the sanitizers' builds run several times slower than the plain one its timeouts are set for
  # (TSan's test-measured: 138 s of its 180 in CI, past them when the machine is shared); a
  # hang still stops at twice them
  # shellcheck disable=SC2086
  meson test -C "$dir" --no-rebuild --print-errorlogs --timeout-multiplier 2 "${wrapper[@]}" \
    $names || status=$?
  say "$sanitize: $(( $(date +%s) - start )) s (build and tests), status $status"
  return $status
}

run_all_tests () {
  local status=0 start
  if [ "${SANITIZERS:-1}" != only ]; then
    start=$(date +%s)
    meson test -C "$BUILD_DIR" --print-errorlogs || status=$?
    say "all suites: $(( $(date +%s) - start )) s, status $status"
  fi
  [ "${SANITIZERS:-1}" = 0 ] && return $status

  # UBSan stops at the first report, so a report fails the test; ASan and TSan do by default.
  # LeakSanitizer ignores the caches of libraries outside Braggscope (build-aux/lsan.supp).
  # malloc returns NULL for an impossible size, as outside ASan: libhdf5 asks for sizes read
  # from damaged files (the frame-nexus fuzz regressions) and handles NULL.
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:allocator_may_return_null=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/build-aux/lsan.supp:print_suppressions=0}
  sanitizer_tests "${ASAN_BUILD_DIR:-build-asan}" address,undefined engine cli plugin fuzz-replay \
    || status=1
  # TSan: GLib and OpenMP's runtime are not instrumented.  tsan-glib.c tells TSan what GLib's
  # locks and queues order, allocations inside those libraries are not accesses
  # (ignore_noninstrumented_modules), and one OpenMP thread keeps to the threads TSan sees:
  # the worker, the main loop and the engine between them.
  TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1} \
    OMP_NUM_THREADS=1 sanitizer_tests "${TSAN_BUILD_DIR:-build-tsan}" thread worker || status=1
  return $status
}

command=${1:-build}
case $command in
  build|run|test) ;;
  -h|--help|help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

install_dependencies
configure_and_build

case $command in
  run) render_default_scene ;;
  test) run_all_tests ;;
esac
