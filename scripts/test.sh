#!/usr/bin/env bash
# Everything a change must pass, on a fresh Debian 12 machine, as root:
#   scripts/test.sh
# Stages, in order, each timed:
#   bootstrap  apt packages, ccache included (scripts/bootstrap.sh)
#   release    GCC release build of the whole tree in build-rel/ (-Werror,
#              data plane and peer tools required): what packagers build and
#              what scripts/bench-micro.sh measures
#   format     clang-format over every C/C++ file
#   asan       clang ASan+UBSan build in build-asan/ of the unit, integration
#              and sim suites and the fuzzers (scripts/asan.sh --build)
#   tests      the unit, integration and sim suites, once, under ASan+UBSan
#   timing     the 'timing' suite (tests on this machine's real clocks) on the
#              release build
#   e2e        network namespaces, veth pairs and real peers against the
#              release build; then scripts/sweep.sh, passed or failed
#   fuzz       every fuzzer replays tests/fuzz/corpus/ and runs FUZZ_SECONDS
#              more (scripts/fuzz.sh --ci)
#   tsan       ThreadSanitizer build of the tsan suite's targets only, and
#              that suite (scripts/tsan.sh)
# It ends, on every path, with one line counted from every test run's logs
# (GoogleTest cases, not binaries), then the verdict:
#   tests: 412 passed, 0 failed, 3 skipped
#   RESULT: OK
# Under CI=true a skipped test or case fails the run unless
# tests/skips.allow lists it with its reason.
# Environment: FUZZ_SECONDS (default 10 per target); ZG_SKIP="asan tsan fuzz
# e2e ..." leaves stages out while iterating (CI never sets it; the summary
# shows them as SKIP).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
ZG_SKIP=${ZG_SKIP:-}
CI=${CI:-}
start=$(date +%s)
results=()
logs=()  # meson log bases of every test stage that should have run
failed=0

summary() {
  echo
  echo "== zeitgeber test summary ($(( $(date +%s) - start ))s, load $(cut -d' ' -f1-3 /proc/loadavg))"
  printf '  %s\n' "${results[@]}"
  local strict=() report_rc=0
  [ "$CI" = true ] && strict=(--strict)
  if command -v python3 >/dev/null; then
    python3 scripts/test_report.py --allow tests/skips.allow "${strict[@]}" "${logs[@]}" ||
      report_rc=$?
  else
    echo "tests: 0 passed, ${#logs[@]} failed, 0 skipped (python3 missing: no logs read)"
    report_rc=1
  fi
  [ "$report_rc" -eq 0 ] || failed=1
  if [ $failed -ne 0 ]; then echo "RESULT: FAILED"; exit 1; fi
  echo "RESULT: OK"
  exit 0
}

skipped() { [[ " $ZG_SKIP " == *" $1 "* ]]; }

stage() {  # stage NAME COMMAND...
  local name=$1; shift
  if skipped "$name"; then results+=("SKIP  $name"); return 0; fi
  zg_log "$name"
  local t0 rc=0
  t0=$(date +%s)
  "$@" || rc=$?
  if [ $rc -eq 0 ]; then
    results+=("PASS  $name ($(( $(date +%s) - t0 ))s)")
  else
    results+=("FAIL  $name ($(( $(date +%s) - t0 ))s)"); failed=1
  fi
  return $rc
}

# test_stage NAME BUILD_DIR COMMAND...: a stage that runs meson tests and
# writes BUILD_DIR/meson-logs/NAME.{json,junit.xml} (ZG_LOGBASE=NAME); the
# log counts in the summary even when the stage cannot run.
test_stage() {
  local name=$1 dir=$2; shift 2
  skipped "$name" && { results+=("SKIP  $name"); return 0; }
  logs+=("$dir/meson-logs/$name")
  rm -f "$dir/meson-logs/$name".{json,junit.xml,txt}
  ZG_LOGBASE=$name stage "$name" "$@"
}
not_run() {  # not_run NAME WHY: a stage that could not run fails
  results+=("FAIL  $1 (not run: $2)"); failed=1
}

if [ -n "$ZG_SKIP" ]; then
  echo "warning: ZG_SKIP=\"$ZG_SKIP\": those stages are left out (CI never sets it)" >&2
fi
# Stale gtest XML from an earlier run must not stand in for a binary that
# crashed this time (meson reads BUILD/<test name>.xml).
find build-rel build-asan build-tsan -maxdepth 1 -name "*.xml" -delete 2>/dev/null

build_release() {
  zg_configure_release && ninja -C build-rel
}
run_timing() {
  meson test -C build-rel --no-rebuild --print-errorlogs --num-processes 1 \
    --logbase "$ZG_LOGBASE" --suite timing
}
run_e2e() {
  local rc=0
  meson test -C build-rel --no-rebuild --print-errorlogs --num-processes 1 \
    --logbase "$ZG_LOGBASE" --suite e2e || rc=$?
  scripts/sweep.sh
  return $rc
}
run_asan_tests() { scripts/asan.sh; }

stage bootstrap scripts/bootstrap.sh || summary
release_ok=0
stage release build_release && release_ok=1
stage format scripts/format.sh --check
asan_ok=0
stage asan scripts/asan.sh --build && asan_ok=1
if [ $asan_ok -eq 1 ] || skipped asan; then
  test_stage tests build-asan run_asan_tests
elif ! skipped tests; then
  logs+=(build-asan/meson-logs/tests); not_run tests "the asan build failed"
fi
if [ $release_ok -eq 1 ]; then
  test_stage timing build-rel run_timing
  test_stage e2e build-rel run_e2e
else
  for t in timing e2e; do
    skipped $t && continue
    logs+=(build-rel/meson-logs/$t); not_run $t "the release build failed"
  done
fi
if [ $asan_ok -eq 1 ] || skipped asan; then
  stage fuzz scripts/fuzz.sh --ci "$FUZZ_SECONDS"
elif ! skipped fuzz; then
  not_run fuzz "the asan build failed"
fi
test_stage tsan build-tsan scripts/tsan.sh
summary
