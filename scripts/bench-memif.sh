#!/usr/bin/env bash
# The memif throughput rig: zg-loadgen against zeitgeberd over net_memif (one
# worker core), then the same generator against dpdk-testpmd
# --forward-mode=5tswap (the baseline: a reflector that does nothing but swap
# addresses), in the same run. Each side gets an RFC 2544 no-drop sweep
# (loss <= 0.01 %); the script prints both no-drop rates, the round-trip
# percentiles and the ratio zeitgeberd / testpmd.
#
#   sudo scripts/bench-memif.sh [BUILD_DIR]        (default: build)
#
# Environment (defaults in brackets):
#   ZG_BENCH_ROUNDS [3]      rounds of (zeitgeberd, testpmd); ratios per round
#   ZG_BENCH_TRIAL [2s]      sending time of each sweep trial
#   ZG_BENCH_CLIENTS [1000]  simulated clients (over 100 source addresses)
#   ZG_BENCH_MIX [ntp4]      zg-loadgen --mix (ptp: Delay_Req -> Delay_Resp;
#                            give zeitgeberd --ptp through the next one)
#   ZG_BENCH_SERVER_FLAGS [] extra zeitgeberd flags (space-separated)
#   ZG_BENCH_SERVER_LCORES [0,1], ZG_BENCH_GEN_LCORES [0,1],
#   ZG_BENCH_GEN_MAIN [1]    EAL lcores: the server's worker (or testpmd's
#                            forwarding core) is its second lcore; the
#                            generator's lane is the lcore that is not main.
#   ZG_BENCH_NICE [-20]      nice level of every server and the generator
#                            (poll-mode processes on cores shared with other
#                            work: preempted pollers overflow their rings)
#   ZG_BENCH_OUT [none]      directory to keep the JSON summaries in
# Prints the machine's load average before and after (figures from a loaded
# machine are comparable only as ratios within one run).
# Needs root (hugepages). Starts and stops everything itself (trap).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-lib.sh"
zg_need_root "bench-memif.sh"
BUILD=$(realpath "${1:-$ZG_ROOT/$ZG_RELEASE_DIR}")
ZGD=$BUILD/dataplane/zeitgeberd
LG=$BUILD/bench/loadgen/zg-loadgen
for b in "$ZGD" "$LG"; do
  [ -x "$b" ] || zg_die "$b missing: ninja -C $BUILD dataplane/zeitgeberd bench/loadgen/zg-loadgen"
done
command -v dpdk-testpmd >/dev/null || zg_die "dpdk-testpmd missing (apt-get install dpdk)"
ROUNDS=${ZG_BENCH_ROUNDS:-3}
TRIAL=${ZG_BENCH_TRIAL:-2s}
CLIENTS=${ZG_BENCH_CLIENTS:-1000}
MIX=${ZG_BENCH_MIX:-ntp4}
read -r -a SERVER_FLAGS <<<"${ZG_BENCH_SERVER_FLAGS:-}"
SERVER_LCORES=${ZG_BENCH_SERVER_LCORES:-0,1}
GEN_LCORES=${ZG_BENCH_GEN_LCORES:-0,1}
GEN_MAIN=${ZG_BENCH_GEN_MAIN:-1}
NICE=${ZG_BENCH_NICE:--20}
[ -n "${ZG_BENCH_SESSION:-}" ] || { zg_bench_session "$NICE" "$0" "$@"; exit; }

HUGE_WAS=$(cat /proc/sys/vm/nr_hugepages)
"$ZG_ROOT/scripts/hugepages.sh" 512 >/dev/null
WORK=$(mktemp -d /tmp/zg_bench_memif.XXXXXX)
SOCK=$WORK/memif.sock
SERVER_PID=
GEN_PID=
cleanup() {
  [ -n "$GEN_PID" ] && stop_pid "$GEN_PID"
  [ -n "$SERVER_PID" ] && stop_pid "$SERVER_PID"
  if [ -n "${ZG_BENCH_OUT:-}" ]; then
    mkdir -p "$ZG_BENCH_OUT" && cp "$WORK"/*.json "$WORK"/*.txt "$WORK"/*.log "$ZG_BENCH_OUT"/ 2>/dev/null || true
  fi
  rm -rf "$WORK"
  "$ZG_ROOT/scripts/hugepages.sh" --restore "$HUGE_WAS" >/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SERVER_MAC=02:5a:47:00:01:01
GEN_MAC=02:5a:47:00:01:02
SRV=10.99.0.1
EAL=(--in-memory --no-pci --no-telemetry --log-level=lib.eal:warning)


start_zeitgeberd() {
  rm -f "$SOCK"
  timeout 300 nice -n "$NICE" "$ZGD" "${EAL[@]}" --file-prefix "zgbm$$s" -l "$SERVER_LCORES" \
    --vdev="net_memif0,role=server,socket=$SOCK,mac=$SERVER_MAC" -- \
    --port=net_memif0 --address="$SRV/24" --metrics_address= --control_socket= \
    --require_system_clock_sync=false "${SERVER_FLAGS[@]}" \
    >"$WORK/zeitgeberd.log" 2>&1 &
  SERVER_PID=$!
  wait_for "$WORK/zeitgeberd.log" "zeitgeberd running" zeitgeberd
  # A PTP port answers Delay_Req only once MASTER (after the profile's
  # announce receipt timeout): measuring before that measures LISTENING.
  if [[ " ${SERVER_FLAGS[*]} " == *" --ptp "* ]]; then
    wait_for "$WORK/zeitgeberd.log" "-> MASTER" "zeitgeberd's PTP port"
  fi
}

start_testpmd() {
  rm -f "$SOCK"
  # --stats-period keeps testpmd forwarding without a terminal.
  timeout 300 nice -n "$NICE" dpdk-testpmd "${EAL[@]}" --file-prefix "zgbm$$t" -l "$SERVER_LCORES" \
    --vdev="net_memif0,role=server,socket=$SOCK,mac=$SERVER_MAC" -- \
    --forward-mode=5tswap --nb-cores=1 --stats-period=3600 \
    >"$WORK/testpmd.log" 2>&1 &
  SERVER_PID=$!
  wait_for "$WORK/testpmd.log" "5tswap packet forwarding" testpmd
}


# run_generator NAME SERVER [zg-loadgen flags...]: a no-drop sweep against
# the server now running, which is stopped once the summary is written and
# before the generator leaves: a net_memif server (DPDK 22.11) whose worker
# polls while its client disconnects can crash in rx_burst (the PMD unmaps
# the client's regions under it), so the generator lingers until then.
run_generator() {
  local name=$1 server=$2; shift 2
  timeout 180 nice -n "$NICE" "$LG" "${EAL[@]}" --file-prefix "zgbm$$g" -l "$GEN_LCORES" \
    --main-lcore "$GEN_MAIN" \
    --vdev="net_memif0,role=client,socket=$SOCK,mac=$GEN_MAC" -- \
    --target="$SRV" --sweep --rate=max --sweep_trial="$TRIAL" \
    --clients="$CLIENTS" --source_ip=10.99.0.100 --source_addresses=100 \
    --mix="$MIX" --progress=false --json="$WORK/$name.json" --linger=60s "$@" \
    >"$WORK/$name.txt" 2>"$WORK/$name.log" &
  GEN_PID=$!
  while kill -0 "$GEN_PID" 2>/dev/null && [ ! -e "$WORK/$name.json" ]; do sleep 0.2; done
  stop_server "$server"
  stop_pid "$GEN_PID"
  GEN_PID=
  if [ "$STOP_RC" -ne 0 ]; then
    cat "$WORK/$name.log" "$WORK/$name.txt"
    zg_die "zg-loadgen against $name failed (exit $STOP_RC)"
  fi
  cat "$WORK/$name.txt"
}

# zeitgeberd_counters: the stopped server's final counters (what its worker
# received, answered and dropped; bursts and empty_polls: its rx_burst calls
# that returned frames and that returned none, over the whole run).
zeitgeberd_counters() {
  grep -E ' I final (counters|dropped)' "$WORK/zeitgeberd.log" | sed 's/^.* I /  zeitgeberd: /' || true
}

LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
zg_log "memif rig: $ROUNDS round(s), $CLIENTS clients, mix $MIX, trials of $TRIAL; server lcores $SERVER_LCORES, generator lcores $GEN_LCORES (main $GEN_MAIN)"
for r in $(seq "$ROUNDS"); do
  zg_log "round $r: zeitgeberd (net_memif, one worker)"
  start_zeitgeberd
  run_generator "zeitgeberd_$r" zeitgeberd
  zeitgeberd_counters | tee "$WORK/zeitgeberd_$r.counters.txt"
  zg_log "round $r: dpdk-testpmd --forward-mode=5tswap (baseline)"
  start_testpmd
  run_generator "testpmd_$r" testpmd --reflector --target_mac="$SERVER_MAC"
done

echo
echo "machine: $(nproc) cores,$(sed -n 's/^model name[^:]*://p' /proc/cpuinfo | head -1); load average (1/5/15 min) $LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end"
/usr/bin/python3 - "$WORK" "$ROUNDS" <<'PYEOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
def rate(s):
    return s["sweep"]["no_drop_pps"] if s["sweep"]["found"] else 0.0
print("\n== memif rig: no-drop rates (RFC 2544, loss <= 0.01 %)")
print(f"{'round':>5}  {'zeitgeberd':>14}  {'testpmd 5tswap':>14}  {'ratio':>7}"
      f"  {'zgd rtt p50/p99 (us)':>22}  {'tpmd rtt p50/p99 (us)':>22}")
ratios = []
for r in range(1, rounds + 1):
    z, t = load(f"zeitgeberd_{r}"), load(f"testpmd_{r}")
    zr, tr = rate(z), rate(t)
    ratio = zr / tr if tr > 0 else float("nan")
    ratios.append(ratio)
    rtt = lambda s: f"{s['rtt_ns']['p50']/1e3:.1f} / {s['rtt_ns']['p99']/1e3:.1f}"
    print(f"{r:>5}  {zr:>14,.0f}  {tr:>14,.0f}  {ratio:>7.3f}  {rtt(z):>22}  {rtt(t):>22}")
    for name, s in (("zeitgeberd", z), ("testpmd", t)):
        if s["sweep"]["generator_limited"]:
            print(f"       ({name} kept up with the generator's maximum: "
                  "its no-drop rate is at least this)")
if all(load(f"{n}_{r}")["sweep"]["generator_limited"]
       for r in range(1, rounds + 1) for n in ("zeitgeberd", "testpmd")):
    print("Both servers kept up with everything one generator lane could send: the"
          "\nratio compares what the generator drives in NTP mode (it builds, matches"
          "\nand times every reply) with reflector mode (echoes only); the servers'"
          "\ncapacities lie above these rates. More generator lcores than server lcores"
          "\n(ZG_BENCH_GEN_LCORES) make the server the bottleneck.")
if rounds > 1:
    print(f"median ratio zeitgeberd / testpmd: {statistics.median(ratios):.3f}")
else:
    print(f"ratio zeitgeberd / testpmd: {ratios[0]:.3f}")
PYEOF
