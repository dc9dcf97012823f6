#!/usr/bin/env bash
# Everything a change must pass, on a fresh Debian 12 machine, as root:
#   scripts/test.sh
# 1. installs dependencies (scripts/bootstrap.sh)        6. ASan+UBSan build + tests
# 2. reserves hugepages (scripts/hugepages.sh)           7. fuzzers, bounded
# 3. builds (gcc, -Werror) and checks formatting         8. TSan build + tests
# 4. unit, integration and simulation tests
# 5. end-to-end tests (network namespaces, real peers)
# Environment: FUZZ_SECONDS (default 60 per target), ZG_SKIP="asan tsan fuzz e2e"
# to leave stages out while iterating (CI never sets it).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
ZG_SKIP=${ZG_SKIP:-}
start=$(date +%s)
results=()
failed=0

stage() {  # stage NAME COMMAND...
  local name=$1; shift
  if [[ " $ZG_SKIP " == *" $name "* ]]; then results+=("SKIP  $name"); return 0; fi
  zg_log "$name"
  local t0=$(date +%s)
  if "$@"; then
    results+=("PASS  $name ($(( $(date +%s) - t0 ))s)")
  else
    results+=("FAIL  $name ($(( $(date +%s) - t0 ))s)"); failed=1
  fi
}

build_gcc() {
  zg_configure build -Dbuildtype=debugoptimized && ninja -C build
}
run_tests() {
  meson test -C build --print-errorlogs --num-processes 2 \
    --suite unit --suite integration --suite sim
}
run_e2e() {
  meson test -C build --print-errorlogs --num-processes 1 --suite e2e
}

stage bootstrap scripts/bootstrap.sh || true
[ $failed -eq 0 ] || { echo "bootstrap failed"; exit 1; }
stage hugepages scripts/hugepages.sh 1024
stage build build_gcc
if [ $failed -ne 0 ]; then
  printf '%s\n' "${results[@]}"; exit 1
fi
stage format scripts/format.sh --check
stage tests run_tests
stage e2e run_e2e
stage asan scripts/asan.sh
stage fuzz scripts/fuzz.sh "$FUZZ_SECONDS"
stage tsan scripts/tsan.sh

echo
echo "== zeitgeber test summary ($(( $(date +%s) - start ))s)"
printf '  %s\n' "${results[@]}"
if [ $failed -ne 0 ]; then echo "RESULT: FAILED"; exit 1; fi
echo "RESULT: OK"
