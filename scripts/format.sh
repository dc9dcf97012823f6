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
  # One clang-format over every file (one process, not one per file); each
  # file it would change is named in a FILE:LINE:COL: error line.
  present=()
  for f in "${files[@]}"; do [ -f "$f" ] && present+=("$f"); done
  fmt_rc=0 fmt_out=
  if [ "${#present[@]}" -gt 0 ]; then
    fmt_out=$(clang-format --dry-run -Werror "${present[@]}" 2>&1 >/dev/null) ||
      fmt_rc=$?
  fi
  mapfile -t bad < <(sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error:.*/\1/p' \
    <<<"$fmt_out" | sort -u)
  if [ "${#bad[@]}" -gt 0 ]; then
    printf 'clang-format would change: %s\n' "${bad[@]}"
    echo "run scripts/format.sh to fix"
  elif [ "$fmt_rc" -ne 0 ]; then
    echo "clang-format failed (exit $fmt_rc) without naming a file:"
    echo "$fmt_out" | head -20
    bad=(clang-format)
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
