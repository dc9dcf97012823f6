#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every libFuzzer target (ASan+UBSan, from scripts/asan.sh --build), two
# at a time. Each run first replays its whole checked-in corpus
# (tests/fuzz/corpus/<target>/), then mutates for the rest of its time.
#   scripts/fuzz.sh [SECONDS]           long run (default 60 s per target);
#                                       new inputs that add coverage are
#                                       merged back into tests/fuzz/corpus/
#                                       (review and commit them)
#   scripts/fuzz.sh --ci [SECONDS]      what CI runs (default 10 s per target):
#                                       replay + SECONDS, nothing merged back
#   scripts/fuzz.sh ... -- TARGET...    only these targets (names without
#                                       _fuzzer)
#   scripts/fuzz.sh --prebuilt ...      the same without building first
#                                       (scripts/test.sh: its ASan build is
#                                       done, and its tests run meanwhile)
# Findings land in build-asan/fuzz-artifacts/ and fail the run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
mode=long secs=60 build=1
if [ "${1:-}" = "--prebuilt" ]; then build=0; shift; fi
if [ "${1:-}" = "--ci" ]; then mode=ci secs=10; shift; fi
if [ -n "${1:-}" ] && [ "$1" != "--" ]; then secs=$1; shift; fi
[ "${1:-}" = "--" ] && shift
only=("$@")
[ "$build" -eq 0 ] || "$ZG_ROOT/scripts/asan.sh" --build >/dev/null
mapfile -t targets < <(find build-asan/tests/fuzz -maxdepth 1 -type f -name '*_fuzzer' -perm -u+x | sort)
[ "${#targets[@]}" -gt 0 ] || zg_die "no fuzz targets in build-asan/tests/fuzz"
art=build-asan/fuzz-artifacts
mkdir -p "$art"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local bin=$1 name corpus work log
  name=$(basename "$bin" _fuzzer)
  corpus=tests/fuzz/corpus/$name
  [ -d "$corpus" ] || zg_die "no seed corpus $corpus for $name: add one"
  # New inputs go to a scratch directory; the checked-in corpus is read only.
  work=build-asan/fuzz-corpus/$name
  rm -rf "$work"; mkdir -p "$work"
  log=build-asan/fuzz-$name.log
  if ! "$bin" -max_total_time="$secs" -max_len=2000 -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$art/$name-" "$work" "$corpus" >"$log" 2>&1; then
    echo "fuzz $name: FAILED (see $log)"; tail -40 "$log"; return 1
  fi
  local execs seeds
  execs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  seeds=$(find "$corpus" -type f | wc -l)
  if [ "$mode" = long ]; then
    local before after
    before=$seeds
    "$bin" -merge=1 -max_len=2000 "$corpus" "$work" >>"$log" 2>&1 ||
      { echo "fuzz $name: merge FAILED (see $log)"; return 1; }
    after=$(find "$corpus" -type f | wc -l)
    echo "fuzz $name: ok ($seeds seeds replayed, $execs execs in ${secs}s; corpus $before -> $after)"
  else
    echo "fuzz $name: ok ($seeds seeds replayed, $execs execs in ${secs}s)"
  fi
}

fail=0
pids=()
for bin in "${targets[@]}"; do
  name=$(basename "$bin" _fuzzer)
  if [ "${#only[@]}" -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  run_one "$bin" & pids+=($!)
  if [ "${#pids[@]}" -ge 2 ]; then
    wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
exit $fail
