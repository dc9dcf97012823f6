#!/usr/bin/env bash
# ThreadSanitizer build of core/ and servo/ (no DPDK) running the 'tsan' suite:
# the seqlock, the SPSC ring, and the control thread publishing the clock
# models while worker-style readers read them (doc/testing.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
export CC=clang CXX=clang++
zg_configure build-tsan -Db_sanitize=thread -Db_lundef=false -Ddataplane=disabled \
  -Dbenchmarks=disabled -Dbuildtype=debugoptimized
ninja -C build-tsan
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
meson test -C build-tsan --print-errorlogs --suite tsan
