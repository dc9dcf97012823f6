#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Everything a change must pass, on a fresh Debian 12 machine, as root:
#   scripts/test.sh
# Stages, in order, each timed:
#   bootstrap  apt packages, ccache included (scripts/bootstrap.sh)
#   release    GCC release build in build-rel/ (-Werror, data plane and
#              peer tools required) of everything outside tests/ (libraries,
#              zeitgeberd, zg-loadgen, the benchmarks, the XDP programs) and
#              of the timing and e2e suites' tests: what packagers ship and
#              what scripts/bench-micro.sh measures. The unit, integration
#              and sim test binaries are built and run under ASan below
#              (building them twice was two thirds of this stage);
#              `ninja -C build-rel` still builds them all
#   timing     the 'timing' suite (tests on this machine's real clocks) on the
#              release build, alone on the machine
#   format     clang-format, SPDX lines, doc links          \  in the
#   asan       clang ASan+UBSan build in build-asan/ of the  | background at
#              unit, integration and sim suites and the      | idle CPU
#              fuzzers (scripts/asan.sh --build)             | priority, from
#   tsan-build ThreadSanitizer build of the tsan suite's     | the release
#              targets only (scripts/tsan.sh --build)       /  build on
#   e2e        network namespaces, veth pairs and real peers against the
#              release build; then scripts/sweep.sh, passed or failed. Its
#              peers mostly wait (settle windows, poll intervals): the
#              sanitizer builds take the CPU they leave (SCHED_IDLE, so a
#              test's process always runs first), as they take what the
#              release build leaves; they are stopped (SIGSTOP) while
#              'timing' runs. Their output is printed when e2e ends.
#   tests      the unit, integration and sim suites, once, under ASan+UBSan,
#              from when e2e and the ASan build are done (what is left of
#              tsan-build goes on beside it, at normal priority)
#   fuzz       every fuzzer replays tests/fuzz/corpus/ and runs FUZZ_SECONDS
#              more (scripts/fuzz.sh --ci), beside 'tests' at nice 10
#   tsan       the tsan suite under ThreadSanitizer (scripts/tsan.sh)
# It ends, on every path, with one line counted from every test run's logs
# (GoogleTest cases, not binaries), then the verdict:
#   tests: 412 passed, 0 failed, 3 skipped
#   RESULT: OK
# Under CI=true a skipped test or case fails the run unless
# tests/skips.allow lists it with its reason.
# Environment: FUZZ_SECONDS (default 8 per target); ZG_SKIP="asan tsan fuzz
# e2e ..." leaves stages out while iterating (CI never sets it; the summary
# shows them as SKIP).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
FUZZ_SECONDS=${FUZZ_SECONDS:-8}
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
  zg_configure_release || return 1
  local targets
  mapfile -t targets < <(scripts/suite_targets.py build-rel --product \
    --suite timing --suite e2e) || return 1
  ninja -C build-rel "${targets[@]}"
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

# The background stages (format, asan, tsan-build): bg_stage runs one with
# its output in build-logs/NAME.log and "STATUS SECONDS" in
# build-logs/NAME.status; bg_result, after the wait, prints the log and
# records the result like stage does.
bg_stage() {
  local name=$1 skip_as=$2; shift 2
  if skipped "$name" || skipped "$skip_as"; then
    echo "skip 0" >"build-logs/$name.status"
    return 0
  fi
  local t0 rc=0
  t0=$(date +%s)
  "$@" >"build-logs/$name.log" 2>&1 || rc=$?
  # Written whole, then renamed: the main script polls for asan.status.
  echo "$rc $(( $(date +%s) - t0 ))" >"build-logs/$name.status.tmp"
  mv "build-logs/$name.status.tmp" "build-logs/$name.status"
}
bg_result() {
  local name=$1 rc=1 secs=0
  read -r rc secs <"build-logs/$name.status" 2>/dev/null || rc=1
  if [ "$rc" = skip ]; then results+=("SKIP  $name"); return 0; fi
  zg_log "$name (ran in the background)"
  cat "build-logs/$name.log" 2>/dev/null
  if [ "$rc" -eq 0 ]; then
    results+=("PASS  $name (${secs}s, in the background)")
  else
    results+=("FAIL  $name (${secs}s, in the background)"); failed=1
  fi
  return "$rc"
}
background_builds() {
  # SCHED_IDLE and nice 19 for this subshell and all it starts: the e2e
  # tests' processes (zeitgeberd's poll loop, the peers) always run first.
  chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 || true
  renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
  bg_stage format format scripts/format.sh --check
  bg_stage asan asan scripts/asan.sh --build
  bg_stage tsan-build tsan scripts/tsan.sh --build
}

stage bootstrap scripts/bootstrap.sh || summary
# The background builds start with the release build: they take the CPU its
# serial stretches leave idle (one long translation unit, the links). A
# process group of their own (set -m), stopped while 'timing' runs alone on
# the machine and continued after.
mkdir -p build-logs
rm -f build-logs/*.status build-logs/*.status.tmp
set -m
background_builds &
bg_pid=$!
set +m
release_ok=0
stage release build_release && release_ok=1
if [ $release_ok -eq 1 ]; then
  kill -STOP -- "-$bg_pid" 2>/dev/null
  test_stage timing build-rel run_timing
  kill -CONT -- "-$bg_pid" 2>/dev/null
fi
if [ $release_ok -eq 1 ]; then
  test_stage e2e build-rel run_e2e
else
  for t in timing e2e; do
    skipped $t && continue
    logs+=(build-rel/meson-logs/$t); not_run $t "the release build failed"
  done
fi
# e2e is over: the background builds run at normal priority from here on,
# and the ASan tests start once the ASan build is done, beside what is left
# of tsan-build.
for p in $(pgrep -g "$bg_pid" 2>/dev/null); do
  chrt --other -p 0 "$p" >/dev/null 2>&1
  renice -n 0 -p "$p" >/dev/null 2>&1
done
while [ ! -e build-logs/asan.status ] && kill -0 "$bg_pid" 2>/dev/null; do
  sleep 1
done
bg_result format
asan_ok=0
bg_result asan && asan_ok=1
if [ $asan_ok -eq 1 ]; then
  # The fuzzers run beside the tests, at nice 10: each for its fixed time,
  # on what CPU the tests leave (many of them wait on timeouts and
  # subprocesses), so the two take about as long as the tests alone. Beside
  # the tests a fuzzer gets about 40% of the executions it gets alone in
  # the same time: hence 8 s, not the 6 s of a fuzz stage of its own.
  bg_stage fuzz fuzz nice -n 10 scripts/fuzz.sh --prebuilt --ci "$FUZZ_SECONDS" &
  fuzz_pid=$!
  test_stage tests build-asan run_asan_tests
  wait "$fuzz_pid"
  bg_result fuzz
elif skipped asan; then  # iterating: each builds what it needs, in turn
  test_stage tests build-asan run_asan_tests
  stage fuzz scripts/fuzz.sh --ci "$FUZZ_SECONDS"
else
  if ! skipped tests; then
    logs+=(build-asan/meson-logs/tests); not_run tests "the asan build failed"
  fi
  skipped fuzz || not_run fuzz "the asan build failed"
fi
wait "$bg_pid"
tsan_ok=0
bg_result tsan-build && tsan_ok=1
if [ $tsan_ok -eq 1 ]; then
  test_stage tsan build-tsan scripts/tsan.sh
elif skipped tsan; then
  results+=("SKIP  tsan")
else
  logs+=(build-tsan/meson-logs/tsan); not_run tsan "the tsan build failed"
fi
summary
