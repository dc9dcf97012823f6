#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ASan+UBSan build (clang) in build-asan/: the unit, integration and sim
# suites and the libFuzzer targets; no benchmarks, no e2e-only binaries.
# Coverage instrumentation (fuzzer-no-link) is on the libraries the fuzzers
# link only (see fuzz_cov_args in meson.build).
#   scripts/asan.sh            build + run the suites (minus 'timing')
#   scripts/asan.sh --build    build only (scripts/fuzz.sh uses the fuzzers)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
export CC=clang CXX=clang++
# Line tables in the libraries, no debug info in test code, and lld
# (ZG_SANITIZER_ARGS in lib.sh).
zg_configure build-asan -Db_sanitize=address,undefined -Db_lundef=false \
  -Dfuzzing=true -Dbenchmarks=disabled \
  -Ddataplane=enabled -Dpeer_tools=enabled "${ZG_SANITIZER_ARGS[@]}"
mapfile -t targets < <(scripts/suite_targets.py build-asan --suite unit \
  --suite integration --suite sim --target-suffix _fuzzer)
ninja -C build-asan "${targets[@]}"
[ "${1:-}" = "--build" ] && exit 0
zg_asan_env
meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 \
  --logbase "${ZG_LOGBASE:-testlog}" \
  --suite unit --suite integration --suite sim --no-suite timing
