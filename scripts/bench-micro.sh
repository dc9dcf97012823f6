#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every Google Benchmark suite and prints ns/op.
#   scripts/bench-micro.sh [--json DIR] [benchmark filter regex]
# On the release build (build-rel/, zg_configure_release: the one
# scripts/test.sh builds with -Werror), so numbers are not debug ones.
# Each suite's figures are comparable only within one run: the machines are
# shared and noisy; compare ratios, not absolute values across runs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
json_dir=""
if [ "${1:-}" = "--json" ]; then json_dir=$2; shift 2; mkdir -p "$json_dir"; fi
filter=${1:-.}
zg_configure_release
# Only the benchmark executables (not every test): bench/<name>_benchmark.
mapfile -t targets < <(ninja -C build-rel -t targets all |
                       sed -n 's|^\(bench/[a-z0-9_]*_benchmark\):.*|\1|p' | sort -u)
[ "${#targets[@]}" -gt 0 ] || zg_die "no benchmark targets in build-rel"
ninja -C build-rel "${targets[@]}" >/dev/null
mapfile -t suites < <(printf 'build-rel/%s\n' "${targets[@]}")
[ "${#suites[@]}" -gt 0 ] || zg_die "no benchmarks built in build-rel/bench"
for b in "${suites[@]}"; do
  name=$(basename "$b")
  zg_log "$name"
  args=(--benchmark_filter="$filter" --benchmark_repetitions=3
        --benchmark_report_aggregates_only=true)
  [ -n "$json_dir" ] && args+=(--benchmark_out="$json_dir/$name.json" --benchmark_out_format=json)
  "$b" "${args[@]}"
done
