#!/bin/sh
# make-screenshot.sh BRAGGSCOPE OUT.png: the README's and AppStream's picture,
# the default scene as the viewer shows it, made with --snapshot and no display.
set -u
exe=$1
out=$2
echo "1..2"
mkdir -p "$(dirname "$out")"
rm -f "$out"
if env -u DISPLAY -u WAYLAND_DISPLAY "$exe" --snapshot "$out"; then
  echo "ok 1 - braggscope --snapshot $out"
else
  echo "not ok 1 - braggscope --snapshot $out exited with $?"
fi
# A PNG starts with \211 P N G \r \n \032 \n.
if [ -f "$out" ] && [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
  echo "ok 2 - $out is a PNG of $(wc -c <"$out") bytes"
else
  echo "not ok 2 - $out is missing or not a PNG"
fi
