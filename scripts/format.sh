#!/usr/bin/env bash
# clang-format (Google style, .clang-format) over every C/C++ file in git.
#   scripts/format.sh           rewrite in place
#   scripts/format.sh --check   list files that would change; exit 1 if any
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  '*.h' '*.cc' '*.c' | grep -v '^tests/data/' || true)
[ "${#files[@]}" -gt 0 ] || exit 0
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ "${#bad[@]}" -gt 0 ]; then
    printf 'clang-format would change: %s\n' "${bad[@]}"
    echo "run scripts/format.sh to fix"
    exit 1
  fi
  echo "format: ${#files[@]} files clean"
else
  clang-format -i "${files[@]}"
fi
