#!/bin/sh
# Runs a GTK test program on its own headless X server, so GTK suites need no display.
#
# usage: xvfb-test.sh [--exitcode] PROGRAM [ARGS...]
#
# Xvfb picks a free display itself (-displayfd), so parallel tests never race for one.  When
# Xvfb is not installed the test is skipped: a TAP plan "1..0 # SKIP" on stdout (the default,
# for TAP tests), or exit status 77 with --exitcode.  The environment gets defaults for a
# quiet, reproducible GTK (each can be overridden by the caller): the X11 backend, no
# accessibility bus, in-memory settings, and Mesa's software rasterizer (llvmpipe) for OpenGL.
# XVFB_SCREEN sets the screen (default 1280x1024x24).
set -u

skip_status=tap
if [ "${1:-}" = "--exitcode" ]; then
  skip_status=exitcode
  shift
fi
if [ $# -eq 0 ]; then
  echo "usage: xvfb-test.sh [--exitcode] PROGRAM [ARGS...]" >&2
  exit 2
fi

skip () {
  if [ "$skip_status" = tap ]; then
    echo "1..0 # SKIP $1"
    exit 0
  fi
  echo "SKIP: $1" >&2
  exit 77
}

command -v Xvfb >/dev/null 2>&1 || skip "Xvfb is not installed (Debian package xvfb)"

workdir=$(mktemp -d "${TMPDIR:-/tmp}/xvfb-test.XXXXXX") || exit 1
xvfb_pid=
cleanup () {
  if [ -n "$xvfb_pid" ]; then
    kill "$xvfb_pid" 2>/dev/null
    wait "$xvfb_pid" 2>/dev/null
  fi
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

Xvfb -displayfd 3 -screen 0 "${XVFB_SCREEN:-1280x1024x24}" -nolisten tcp -noreset \
  3>"$workdir/display" >"$workdir/xvfb.log" 2>&1 &
xvfb_pid=$!

# Xvfb writes its display number once it accepts connections.
tries=0
while [ ! -s "$workdir/display" ]; do
  if ! kill -0 "$xvfb_pid" 2>/dev/null || [ $tries -ge 200 ]; then
    echo "xvfb-test.sh: Xvfb did not start:" >&2
    cat "$workdir/xvfb.log" >&2
    exit 1
  fi
  tries=$((tries + 1))
  sleep 0.05
done

mkdir -m 700 "$workdir/runtime"
DISPLAY=":$(head -n 1 "$workdir/display")"
export DISPLAY
export GDK_BACKEND="${GDK_BACKEND:-x11}"
export GTK_A11Y="${GTK_A11Y:-none}"
export NO_AT_BRIDGE="${NO_AT_BRIDGE:-1}"
export GSETTINGS_BACKEND="${GSETTINGS_BACKEND:-memory}"
export LIBGL_ALWAYS_SOFTWARE="${LIBGL_ALWAYS_SOFTWARE:-1}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$workdir/runtime}"

"$@"
status=$?
exit $status
