#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tree's form, as CI checks it: clang-format (Google style,
# .clang-format) over every C/C++ file in git, the SPDX licence line every
# source file starts with (scripts/spdx.sh) and the relative links of the
# markdown docs (scripts/check-doc-links.py).
#   scripts/format.sh           rewrite in place: clang-format, and the SPDX
#                               line where it is missing
#   scripts/format.sh --check   list what would change and the broken doc
#                               links; exit 1 if any
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  '*.h' '*.cc' '*.c' | grep -v '^tests/data/' || true)
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ "${#bad[@]}" -gt 0 ]; then
    printf 'clang-format would change: %s\n' "${bad[@]}"
    echo "run scripts/format.sh to fix"
  fi
  spdx=0 links=0
  scripts/spdx.sh --check || spdx=1
  scripts/check-doc-links.py || links=1
  [ "${#bad[@]}" -eq 0 ] && [ "$spdx" -eq 0 ] && [ "$links" -eq 0 ] || exit 1
  echo "format: ${#files[@]} files clean, every source file has its SPDX line, doc links resolve"
else
  scripts/spdx.sh
  [ "${#files[@]}" -eq 0 ] || clang-format -i "${files[@]}"
fi
