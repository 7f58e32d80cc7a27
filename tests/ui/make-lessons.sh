#!/bin/sh
# make-lessons.sh BRAGGSCOPE LESSONS_DIR OUT_DIR: the README's pictures of the
# lessons (docs/lessons/NAME.png), each lesson's detector and reciprocal views
# side by side as `braggscope --snapshot --lesson NAME` makes them, no display.
set -u
exe=$1
lessons=$2
out=$3
mkdir -p "$out"
ids=$(sed -n 's/^Id=//p' "$lessons"/*.desktop)
n=$(printf '%s\n' "$ids" | wc -l)
echo "1..$n"
i=0
for id in $ids; do
  i=$((i + 1))
  rm -f "$out/$id.png"
  if env -u DISPLAY -u WAYLAND_DISPLAY BRAGGSCOPE_LESSONSDIR="$lessons" \
       "$exe" --snapshot "$out/$id.png" --lesson "$id" --view both &&
     [ "$(head -c 8 "$out/$id.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    echo "ok $i - lesson $id: $out/$id.png"
  else
    echo "not ok $i - lesson $id: no picture"
  fi
done
