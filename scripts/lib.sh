# SPDX-License-Identifier: Apache-2.0
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

# Meson options of the clang sanitizer builds (scripts/asan.sh, tsan.sh):
# -O2 without -g, so that meson.build gives the libraries line tables
# (file:line in every report) and test code no debug info (lib_cpp_args,
# test_build_options); and lld.
ZG_SANITIZER_ARGS=(-Doptimization=2 -Ddebug=false)
if command -v ld.lld >/dev/null; then
  ZG_SANITIZER_ARGS+=(-Dcpp_link_args=-fuse-ld=lld -Dc_link_args=-fuse-ld=lld)
fi

# zg_configure_release: build-rel/, the release build (GCC, -O3, NDEBUG,
# -Werror) that scripts/test.sh builds and tests and the benchmarks, rigs
# and demo use; with the man pages (pandoc). Its prefix is /usr, the
# package's: scripts/package-deb.sh --reuse packages it as it is.
ZG_RELEASE_DIR=build-rel
zg_configure_release() {
  zg_configure "$ZG_ROOT/$ZG_RELEASE_DIR" -Dbuildtype=release -Ddataplane=enabled \
    -Dpeer_tools=enabled -Dman=enabled --prefix=/usr
}

# zg_bench_session NICE SCRIPT [ARGS...]: run a benchmark rig in a session of
# its own whose scheduler autogroup gets nice level NICE. With
# kernel.sched_autogroup_enabled=1 a process's nice only weighs against its
# own session: a poll-mode rig on cores shared with other sessions' builds
# needs its whole group weighted. Returns the rig's exit status; SIGINT and
# SIGTERM reach the rig (whose trap cleans up). Use at the top of a rig:
#   [ -n "${ZG_BENCH_SESSION:-}" ] || { zg_bench_session -20 "$0" "$@"; exit; }
zg_bench_session() {
  local nice=$1; shift
  ZG_BENCH_SESSION=1 setsid --wait bash -c \
    'echo "$0" >/proc/self/autogroup 2>/dev/null; exec "$@"' "$nice" "$@" &
  local child=$! rc=0
  trap 'kill -TERM "$child" 2>/dev/null' INT TERM
  wait "$child" || rc=$?
  # wait returns early when a trapped signal arrives: wait for the clean-up.
  while kill -0 "$child" 2>/dev/null; do wait "$child" || rc=$?; done
  trap - INT TERM
  return "$rc"
}

# zg_asan_env: sanitizer options for running ASan+UBSan binaries (tests and
# fuzzers): leaks reported, the first UBSan finding fatal.
zg_asan_env() {
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
}

