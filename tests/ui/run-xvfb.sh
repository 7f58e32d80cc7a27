#!/bin/sh
# run-xvfb.sh PROGRAM [ARGS...]: runs a GTK test on a private X server that
# the harness starts itself (xvfb-run -a picks a free display number).
# Without xvfb-run the TAP test is skipped.
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "1..0 # SKIP xvfb-run not found (install xvfb and xauth)"
  exit 0
fi
exec xvfb-run -a -s "-screen 0 1600x1200x24 -nolisten tcp" "$@"
