#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ThreadSanitizer build (clang) of the 'tsan' suite's targets only, in
# build-tsan/ (core/ and servo/, no DPDK), and that suite: the seqlock, the
# SPSC ring, and the real control plane publishing while reader threads
# convert stamps the way workers do (doc/testing.md).
#   scripts/tsan.sh            build + run the suite
#   scripts/tsan.sh --build    build only (scripts/test.sh overlaps it with e2e)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
export CC=clang CXX=clang++
zg_configure build-tsan -Db_sanitize=thread -Db_lundef=false -Ddataplane=disabled \
  -Dbenchmarks=disabled "${ZG_SANITIZER_ARGS[@]}"
mapfile -t targets < <(scripts/suite_targets.py build-tsan --suite tsan)
ninja -C build-tsan "${targets[@]}"
[ "${1:-}" = "--build" ] && exit 0
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
meson test -C build-tsan --no-rebuild --print-errorlogs \
  --logbase "${ZG_LOGBASE:-testlog}" --suite tsan
