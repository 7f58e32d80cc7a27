#!/bin/sh
# Runs test-leak-canary (an AddressSanitizer build) on Xvfb and requires LeakSanitizer to report
# the one block it plants, and nothing else: Braggscope's own leaks are caught, and the GTK tests
# are not failed by libraries outside Braggscope.
#
# usage: check-leak-canary.sh XVFB_TEST_SH CANARY_PROGRAM
set -u
log=$(mktemp "${TMPDIR:-/tmp}/leak-canary.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

"$1" --exitcode "$2" >"$log" 2>&1
status=$?
[ $status -eq 77 ] && { cat "$log"; exit 77; }

fail () {
  echo "check-leak-canary: $*" >&2
  cat "$log" >&2
  exit 1
}

[ $status -ne 0 ] || fail "the planted leak was not reported (exit status 0)"
grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$log" || fail "no LeakSanitizer report (exit status $status)"
grep -q 'in canary_plant_leak' "$log" || fail "the report does not name canary_plant_leak"
grep -q 'SUMMARY: AddressSanitizer: 77 byte(s) leaked in 1 allocation(s)' "$log" \
  || fail "the report holds more than the planted 77-byte block"
echo "the planted 77-byte leak was reported, and nothing else"
exit 0
