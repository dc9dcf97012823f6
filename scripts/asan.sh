#!/usr/bin/env bash
# ASan+UBSan build (clang) of the whole tree, with the libFuzzer targets, and
# the unit/integration/sim suites run under it.
#   scripts/asan.sh            build + test in build-asan/
#   scripts/asan.sh --build    build only (scripts/fuzz.sh uses the fuzzers)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
export CC=clang CXX=clang++
zg_configure build-asan -Db_sanitize=address,undefined -Db_lundef=false \
  -Dfuzzing=true -Dbuildtype=debugoptimized
ninja -C build-asan
[ "${1:-}" = "--build" ] && exit 0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
meson test -C build-asan --print-errorlogs --num-processes 2 \
  --suite unit --suite integration --suite sim
