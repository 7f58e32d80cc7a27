#!/usr/bin/env bash
# Checks that every C, C header and CUDA file of the project is formatted as .clang-format says
# (the house style), naming the files that are not.  Exit 77 (skip) without clang-format.
#
# usage: bash build-aux/check-format.sh [--fix]
#   --fix   rewrite the files instead of checking them
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null; then
  echo "check-format: no $CLANG_FORMAT on PATH (skipped)"
  exit 77
fi

mapfile -t files < <(find engine cli plugin ui tests build-aux \
                       \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -type f | sort)
if [ "${1:-}" = --fix ]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (fix: bash build-aux/check-format.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
