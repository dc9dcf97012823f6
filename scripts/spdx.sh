#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The SPDX licence line that every source file starts with
# (doc/contributing.md, "Licence lines"): C and C++ (.h .cc .c .inc .cc.in)
# with "// ", scripts (.sh .py, .ci/run, debian/rules and maintainer
# scripts), meson files and YAML with "# ", after a "#!" line if there is
# one. A file whose first line (after "#!") names any SPDX licence has one:
# the XDP programs in dataplane/bpf/ name theirs. Test data and fuzz corpora
# are left alone.
#   scripts/spdx.sh           add "SPDX-License-Identifier: Apache-2.0" to
#                             every file in git without a licence line
#   scripts/spdx.sh --check   list those files; exit 1 if any (CI, through
#                             scripts/format.sh --check)
# Running it again changes nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
LICENSE_ID=Apache-2.0

# "PREFIX<TAB>PATH" for every source file in git (untracked ones not ignored
# included), PREFIX the comment leader of its kind.
source_files() {
  local f p
  git ls-files --cached --others --exclude-standard | sort -u | while IFS= read -r f; do
    case "$f" in
      tests/data/* | tests/fuzz/corpus/*) continue ;;
      *.h | *.cc | *.c | *.inc | *.cc.in) p='//' ;;
      *.sh | *.py | *.yml | meson.build | */meson.build | meson_options.txt | \
        .ci/run | debian/rules | debian/*.postinst | debian/*.postrm | \
        debian/*.preinst | debian/*.prerm) p='#' ;;
      *) continue ;;
    esac
    [ -f "$f" ] && printf '%s\t%s\n' "$p" "$f"
  done
}

# "PREFIX<TAB>PATH" of the files whose first line, after a "#!" line, names
# no SPDX licence (one awk over them all: CI runs this on every file).
declare -A prefix_of
paths=() missing=()
while IFS=$'\t' read -r prefix f; do
  prefix_of[$f]=$prefix
  if [ -s "$f" ]; then paths+=("$f"); else missing+=("$prefix"$'\t'"$f"); fi
done < <(source_files)
if [ "${#paths[@]}" -gt 0 ]; then
  while IFS= read -r f; do
    missing+=("${prefix_of[$f]}"$'\t'"$f")
  done < <(awk 'FNR == 1 && /^#!/ { next }
                { if (!/SPDX-License-Identifier: [^ ]/) print FILENAME; nextfile }' \
             "${paths[@]}")
fi

if [ "${1:-}" = "--check" ]; then
  [ "${#missing[@]}" -eq 0 ] && exit 0
  printf 'no SPDX-License-Identifier line: %s\n' "${missing[@]#*$'\t'}"
  echo "run scripts/spdx.sh to add '// SPDX-License-Identifier: $LICENSE_ID' ('#' for scripts, meson, YAML)"
  exit 1
fi
[ $# -eq 0 ] || zg_die "unknown argument '$1' (see the header of $0)"
for m in "${missing[@]}"; do
  prefix=${m%%$'\t'*} f=${m#*$'\t'}
  tmp=$(mktemp)
  awk -v line="$prefix SPDX-License-Identifier: $LICENSE_ID" '
    NR == 1 && /^#!/ { print; print line; next }
    NR == 1 { print line }
    { print }
    END { if (NR == 0) print line }' "$f" >"$tmp"
  cat "$tmp" >"$f"  # keeps the file's mode
  rm -f "$tmp"
done
echo "spdx: added the line to ${#missing[@]} files"
