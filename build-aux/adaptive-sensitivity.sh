#!/bin/bash
# adaptive-sensitivity.sh BUILD_DIR [N]: how nanobragg-match's score and its
# simulation's correlation with a frame depend on -integration adaptive's
# -tolerance (issue 31).  The "measured" frame is the viewer's scene at 512^2
# with -N N (default 30), rendered with exact integration and photon noise
# (-seed 7); nanobragg-match refines its misset (--no-search) and renders the
# result (--simulate) with exact integration and with adaptive at each
# tolerance.  Run by hand; about a second per line.
set -euo pipefail
build=$(cd "${1:?usage: adaptive-sensitivity.sh BUILD_DIR [N]}" && pwd)
N=${2:-30}
data=$(cd "$(dirname "$0")/../data" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
crystal=(-cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -N "$N" -mosaic 0.2 -mosaic_domains 5
         -hkl "$data/1hpv_p1.hkl")
"$build/cli/nanobragg" "${crystal[@]}" -lambda 1.0 -distance 120 -detpixels 512 -pixel 0.1 \
  -precision single -noisefile "$work/frame.img" -nopgm -intfile /dev/null -floatfile /dev/null \
  -noprogress -seed 7 > /dev/null
printf '%-22s %8s %8s %10s %12s\n' integration matched rms_px CC seconds
for mode in "exact" "adaptive 1e-1" "adaptive 1e-2" "adaptive 1e-3" "adaptive 1e-4"; do
  set -- $mode
  flags=(-integration "$1")
  [ $# -gt 1 ] && flags+=(-tolerance "$2")
  out=$("$build/cli/nanobragg-match" "$work/frame.img" --no-search --simulate --json \
          "${crystal[@]}" "${flags[@]}" 2> "$work/report.txt" || true)
  cc=$(sed -n 's/^correlation of the simulation with the frame: \([-0-9.]*\).*/\1/p' "$work/report.txt")
  matched=$(sed -n 's/.*"matched": \([0-9]*\).*/\1/p' <<< "$out")
  rms=$(sed -n 's/.*"rms_px": \([0-9.]*\).*/\1/p' <<< "$out")
  secs=$(sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' <<< "$out")
  printf '%-22s %8s %8.4f %10s %12.3f\n' "$mode" "$matched" "$rms" "$cc" "$secs"
done
