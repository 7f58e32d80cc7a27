#!/usr/bin/env bash
# Fuzzes Braggscope's parsers with libFuzzer (clang, AddressSanitizer, UndefinedBehaviorSanitizer).
#
# usage: bash build-aux/fuzz.sh [TARGET...]
#   Configures build-fuzz (CC=clang, coverage for libFuzzer on every object) and runs meson's
#   suite 'fuzz': each target (all, or those named: argv render hkl fdump matrix stol
#   sourcefile smv mtz frame-smv frame-cbf frame-nexus png-args lessons) for FUZZ_SECONDS seconds, one
#   after the other, one core each.
#
#   bash build-aux/fuzz.sh --run FUZZER CORPUS REGRESSIONS
#   What each test of the suite runs: first the regression inputs, then FUZZER for
#   FUZZ_SECONDS on a work corpus seeded from CORPUS.  New interesting inputs stay in the work
#   corpus (FUZZ_WORK); a crash is saved there as crash-* and fails the run: copy it to
#   tests/fuzz/regressions/<target>/ once fixed, so every build replays it.
#
# environment:
#   FUZZ_SECONDS   seconds per target (default 20; e.g. 600 for a long run)
#   FUZZ_TIMEOUT   seconds one input may take before it counts as a hang (default 10)
#   FUZZ_BUILD_DIR build folder (default build-fuzz)
#   FUZZ_WORK      work corpus folder for --run (default: a temporary folder)
#   FUZZ_KEEP_GOING  1: do not stop at the first finding (libFuzzer's fork mode, one job);
#                  every crash, timeout, leak or out-of-memory input is kept, and listed at the end
#   CC             the compiler (default clang; it must have libFuzzer)
#   FUZZ_CFLAGS    more compiler flags for every object.  clang 14 (Debian 12) ignores the
#                  fast kernels' "#pragma GCC target" and fails on their intrinsics: on a
#                  machine that has them, FUZZ_CFLAGS="-mavx512f -mavx512dq -mavx512vl -mavx2
#                  -mfma" builds them (and lets the compiler use them everywhere)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
# UBSan reports must fail the run, with a stack to act on.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# allocator_may_return_null: libhdf5 asks malloc for sizes read from a damaged file and handles
# NULL, as any program's malloc returns it; libFuzzer's -malloc_limit_mb still reports the big
# allocations that succeed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_may_return_null=1}
# the leaks of libraries outside Braggscope (CBFlib's parser), as the sanitizer test runs
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/build-aux/lsan.supp:print_suppressions=0}

say () { printf '%s\n' "fuzz.sh: $*"; }
die () { printf '%s\n' "fuzz.sh: $*" >&2; exit 1; }

# has_findings DIR: whether libFuzzer left a crash, leak, timeout or oom input in DIR
has_findings () {
  local f
  for f in "$1"/crash-* "$1"/leak-* "$1"/timeout-* "$1"/oom-*; do
    [ -e "$f" ] && return 0
  done
  return 1
}

run_one () {
  local fuzzer corpus=$2 regressions=$3 work stats start
  # absolute: the argv target changes folder, and fork mode starts the fuzzer again
  fuzzer=$(realpath "$1")
  local name; name=$(basename "$fuzzer")
  work=${FUZZ_WORK:-}
  if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
    trap 'rm -rf "$work"' EXIT
  fi
  mkdir -p "$work/corpus" "$work/previous"
  # findings of an earlier run are kept aside, not counted again
  for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
    [ -e "$f" ] && mv "$f" "$work/previous/"
  done
  # the seeds join the work corpus; what the fuzzer adds stays there between runs
  if [ -d "$corpus" ]; then cp -n "$corpus"/* "$work/corpus/" 2>/dev/null || true; fi

  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions" 2>/dev/null)" ]; then
    say "$name: replaying $(ls "$regressions" | wc -l) regression inputs"
    "$fuzzer" -runs=0 "$regressions"/* >"$work/regressions.log" 2>&1 \
      || { tail -n 60 "$work/regressions.log" >&2; die "$name: a regression input fails again"; }
  fi

  local mode=()
  [ "${FUZZ_KEEP_GOING:-0}" = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  say "$name: fuzzing for $FUZZ_SECONDS s"
  start=$(date +%s)
  if ! timeout $((FUZZ_SECONDS + 300)) "$fuzzer" "${mode[@]}" -max_total_time="$FUZZ_SECONDS" \
       -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
       -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1 \
     || has_findings "$work"; then
    tail -n 80 "$work/fuzz.log" >&2
    ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null >&2 || true
    die "$name: finding (inputs saved in $work)"
  fi
  stats=$(grep -E 'stat::number_of_executed_units|stat::peak_rss_mb|^#[0-9]+.*cov: ' \
          "$work/fuzz.log" | tail -n 3 | tr '\n' ' ')
  say "$name: clean after $(( $(date +%s) - start )) s; $stats"
}

if [ "${1:-}" = "--run" ]; then
  [ $# -eq 4 ] || die "usage: fuzz.sh --run FUZZER CORPUS REGRESSIONS"
  # each input is written to a scratch file: memory-backed when there is such a folder
  if [ -z "${FUZZ_TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then FUZZ_TMPDIR=/dev/shm; fi
  [ -n "${FUZZ_TMPDIR:-}" ] && export TMPDIR=$FUZZ_TMPDIR
  run_one "$2" "$3" "$4"
  exit 0
fi

BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
export CC=${CC:-clang}
# the models module is C++: the same compiler, so one sanitizer runtime
export CXX=${CXX:-clang++}
cd "$ROOT"
command -v "$CC" >/dev/null || die "no $CC: install clang"

# (meson splits the value as a shell would; a build folder set up before keeps its flags)
options=(-Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false
         "-Dc_args=-fsanitize=fuzzer-no-link ${FUZZ_CFLAGS:-}"
         "-Dcpp_args=-fsanitize=fuzzer-no-link ${FUZZ_CFLAGS:-}" -Dcuda=disabled -Dtests=enabled)
if [ -f "$BUILD_DIR/meson-private/coredata.dat" ]; then
  meson setup --reconfigure "$BUILD_DIR" "${options[@]}" >/dev/null
else
  meson setup "$BUILD_DIR" "${options[@]}" >/dev/null
fi
tests=()
for t in "$@"; do tests+=("fuzz-$t"); done
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(meson test -C "$BUILD_DIR" --list --suite fuzz 2>/dev/null \
                                                | sed -n 's|.*/ \(fuzz-.*\)$|\1|p')
[ ${#tests[@]} -gt 0 ] || die "no fuzz targets in $BUILD_DIR: does $CC have libFuzzer?"
# Only the fuzzers (each test's program has the test's name): the rest of an instrumented build
# is not needed, and some of it cannot even run there (the plugin's introspection dump, linked
# with libhdf5 and so libcurl and p11-kit, deadlocks in p11-kit's exit handler under ASan).
meson compile -C "$BUILD_DIR" "${tests[@]}" >"$BUILD_DIR/fuzz-build.log" 2>&1 \
  || { tail -n 40 "$BUILD_DIR/fuzz-build.log" >&2; die "building ${tests[*]} failed"; }
say "${#tests[@]} targets, $FUZZ_SECONDS s each"
FUZZ_SECONDS=$FUZZ_SECONDS meson test -C "$BUILD_DIR" --no-rebuild --suite fuzz \
  --print-errorlogs --timeout-multiplier 0 "${tests[@]}"
