#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time, two at a time.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]        (default 60)
# Needs the fuzzers from scripts/asan.sh --build. Seeds come from
# tests/fuzz/corpus/<target>/; findings land in build-asan/fuzz-artifacts/ and
# fail the run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
secs=${1:-60}
[ -d build-asan/tests/fuzz ] || "$ZG_ROOT/scripts/asan.sh" --build
mapfile -t targets < <(find build-asan/tests/fuzz -maxdepth 1 -type f -name '*_fuzzer' -perm -u+x | sort)
[ "${#targets[@]}" -gt 0 ] || zg_die "no fuzz targets in build-asan/tests/fuzz"
art=build-asan/fuzz-artifacts
mkdir -p "$art"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local bin=$1 name corpus work log
  name=$(basename "$bin" _fuzzer)
  work=build-asan/fuzz-corpus/$name
  mkdir -p "$work"
  corpus=tests/fuzz/corpus/$name
  log=build-asan/fuzz-$name.log
  local seeds=()
  [ -d "$corpus" ] && seeds=("$corpus")
  if "$bin" -max_total_time="$secs" -max_len=2000 -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$art/$name-" "$work" "${seeds[@]}" >"$log" 2>&1; then
    echo "fuzz $name: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') execs in ${secs}s)"
  else
    echo "fuzz $name: FAILED (see $log)"; tail -40 "$log"; return 1
  fi
}

fail=0
pids=()
for bin in "${targets[@]}"; do
  run_one "$bin" & pids+=($!)
  if [ "${#pids[@]}" -ge 2 ]; then
    wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
exit $fail
