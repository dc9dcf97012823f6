# Shared helpers for zeitgeber scripts. Source it: . "$(dirname "$0")/lib.sh"
ZG_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ZG_ROOT

zg_log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }
zg_die() { printf 'error: %s\n' "$*" >&2; exit 1; }
zg_need_root() { [ "$(id -u)" -eq 0 ] || zg_die "$1 needs root (network namespaces, hugepages)"; }

# zg_configure DIR [meson options...]: configure DIR once; reconfigure when the
# options change.
zg_configure() {
  local dir=$1; shift
  local want="$*"
  if [ -f "$dir/build.ninja" ] && [ "$(cat "$dir/.zg-options" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  rm -rf "$dir"
  meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  echo "$want" >"$dir/.zg-options"
}
