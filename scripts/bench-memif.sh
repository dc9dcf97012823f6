#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The memif throughput rig: zg-loadgen against zeitgeberd over net_memif (one
# worker core) and, in the same run, against a baseline on the same socket:
#   (default)  dpdk-testpmd --forward-mode=5tswap, a reflector that does
#              nothing but swap addresses: ratio zeitgeberd / testpmd
#   --nts      zeitgeberd again, with NTS requests (--mix=nts) instead of
#              plain NTPv4, restarted for each: ratio NTS / NTP. The NTS
#              clients' cookies come from zg-loadgen's --nts_master_key
#              harness (it holds zeitgeberd's master key and mints cookies
#              itself, standing in for NTS-KE); every
#              ZG_BENCH_NTS_VERIFY_EVERY-th reply is verified in full.
# Each side gets an RFC 2544 no-drop sweep (loss <= 0.01 %); the script prints
# both no-drop rates, the round-trip percentiles and the ratio per round.
#
#   sudo scripts/bench-memif.sh [--nts] [BUILD_DIR]    (default: build-rel)
#
# Environment (defaults in brackets):
#   ZG_BENCH_ROUNDS [3; --nts: 1]  rounds of (subject, baseline)
#   ZG_BENCH_TRIAL [2s]      sending time of each sweep trial
#   ZG_BENCH_CLIENTS [1000]  simulated clients (over 100 source addresses)
#   ZG_BENCH_MIX [ntp4]      zg-loadgen --mix against testpmd's rig (ptp:
#                            Delay_Req -> Delay_Resp; give zeitgeberd --ptp
#                            through the next one)
#   ZG_BENCH_SERVER_FLAGS [] extra zeitgeberd flags (space-separated)
#   ZG_BENCH_NTS_VERIFY_EVERY [16]  --nts: zg-loadgen --nts_verify_every
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
MODE=testpmd
if [ "${1:-}" = "--nts" ]; then MODE=nts; shift; fi
BUILD=$(realpath "${1:-$ZG_ROOT/$ZG_RELEASE_DIR}")
ZGD=$BUILD/dataplane/zeitgeberd
LG=$BUILD/bench/loadgen/zg-loadgen
for b in "$ZGD" "$LG"; do
  [ -x "$b" ] || zg_die "$b missing: ninja -C $BUILD dataplane/zeitgeberd bench/loadgen/zg-loadgen"
done
if [ "$MODE" = testpmd ]; then
  command -v dpdk-testpmd >/dev/null || zg_die "dpdk-testpmd missing (apt-get install dpdk)"
  ROUNDS=${ZG_BENCH_ROUNDS:-3}
else
  ROUNDS=${ZG_BENCH_ROUNDS:-1}
fi
TRIAL=${ZG_BENCH_TRIAL:-2s}
CLIENTS=${ZG_BENCH_CLIENTS:-1000}
MIX=${ZG_BENCH_MIX:-ntp4}
VERIFY=${ZG_BENCH_NTS_VERIFY_EVERY:-16}
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
NTS_ARGS=()
if [ "$MODE" = nts ]; then
  KEY=$WORK/nts_master.key
  head -c 32 /dev/urandom >"$KEY"
  chmod 600 "$KEY"
  NTS_ARGS=(--nts_master_key="$KEY")
fi

start_zeitgeberd() {
  rm -f "$SOCK"
  timeout 300 nice -n "$NICE" "$ZGD" "${EAL[@]}" --file-prefix "zgbm$$s" -l "$SERVER_LCORES" \
    --vdev="net_memif0,role=server,socket=$SOCK,mac=$SERVER_MAC" -- \
    --port=net_memif0 --address="$SRV/24" --metrics_address= --control_socket= \
    --require_system_clock_sync=false "${NTS_ARGS[@]}" "${SERVER_FLAGS[@]}" \
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
    --progress=false --json="$WORK/$name.json" --linger=60s "$@" \
    >"$WORK/$name.txt" 2>"$WORK/$name.log" &
  GEN_PID=$!
  while kill -0 "$GEN_PID" 2>/dev/null && [ ! -e "$WORK/$name.json" ]; do sleep 0.2; done
  stop_server "$server"
  stop_pid "$GEN_PID"
  GEN_PID=
  if [ "$STOP_RC" -ne 0 ]; then
    cat "$WORK/$name.log" "$WORK/$name.txt"
    zg_die "zg-loadgen run $name failed (exit $STOP_RC)"
  fi
  cat "$WORK/$name.txt"
}

# zeitgeberd_counters NAME: the stopped server's final counters (what its
# worker received, answered and dropped; bursts and empty_polls: its
# rx_burst calls that returned frames and that returned none, over the whole
# run), kept as NAME.counters.txt.
zeitgeberd_counters() {
  grep -E ' I final (counters|dropped)' "$WORK/zeitgeberd.log" |
    sed 's/^.* I /  zeitgeberd: /' | tee "$WORK/$1.counters.txt" || true
}

LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
if [ "$MODE" = testpmd ]; then
  SUBJECT=zeitgeberd BASELINE=testpmd
  zg_log "memif rig: $ROUNDS round(s), $CLIENTS clients, mix $MIX, trials of $TRIAL; server lcores $SERVER_LCORES, generator lcores $GEN_LCORES (main $GEN_MAIN)"
else
  SUBJECT=nts BASELINE=ntp4
  zg_log "memif NTS rig: $ROUNDS round(s), $CLIENTS clients, trials of $TRIAL; server lcores $SERVER_LCORES, generator lcores $GEN_LCORES (main $GEN_MAIN)"
fi
for r in $(seq "$ROUNDS"); do
  if [ "$MODE" = testpmd ]; then
    zg_log "round $r: zeitgeberd (net_memif, one worker)"
    start_zeitgeberd
    run_generator "zeitgeberd_$r" zeitgeberd --mix="$MIX"
    zeitgeberd_counters "zeitgeberd_$r"
    zg_log "round $r: dpdk-testpmd --forward-mode=5tswap (baseline)"
    start_testpmd
    run_generator "testpmd_$r" testpmd --mix="$MIX" --reflector --target_mac="$SERVER_MAC"
  else
    for mix in ntp4 nts; do
      zg_log "round $r: zeitgeberd, --mix=$mix"
      start_zeitgeberd
      run_generator "${mix}_$r" zeitgeberd --mix="$mix" "${NTS_ARGS[@]}" \
        --nts_verify_every="$VERIFY"
      zeitgeberd_counters "${mix}_$r"
    done
  fi
done

echo
echo "machine: $(nproc) cores,$(sed -n 's/^model name[^:]*://p' /proc/cpuinfo | head -1); load average (1/5/15 min) $LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end"
/usr/bin/python3 - "$WORK" "$ROUNDS" "$SUBJECT" "$BASELINE" <<'PYEOF'
import json, statistics, sys
work, rounds, subject, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
def rate(s):
    return s["sweep"]["no_drop_pps"] if s["sweep"]["found"] else 0.0
rtt = lambda s: f"{s['rtt_ns']['p50']/1e3:.1f} / {s['rtt_ns']['p99']/1e3:.1f}"
print(f"\n== memif rig: {subject} vs {baseline} no-drop rates (RFC 2544, loss <= 0.01 %)")
print(f"{'round':>5}  {subject:>14}  {baseline:>14}  {'ratio':>7}"
      f"  {subject + ' rtt p50/p99 (us)':>26}  {baseline + ' rtt p50/p99 (us)':>26}")
ratios = []
for r in range(1, rounds + 1):
    a, b = load(f"{subject}_{r}"), load(f"{baseline}_{r}")
    ar, br = rate(a), rate(b)
    ratio = ar / br if br > 0 else float("nan")
    ratios.append(ratio)
    print(f"{r:>5}  {ar:>14,.0f}  {br:>14,.0f}  {ratio:>7.3f}  {rtt(a):>26}  {rtt(b):>26}")
    if "nts" in a:
        n = a["nts"]
        print(f"       nts replies verified ok/bad {n.get('verified_ok', 0)}/"
              f"{n.get('verified_bad', 0)}, nak {n.get('nak', 0)}")
    for name, s in ((subject, a), (baseline, b)):
        if s["sweep"]["generator_limited"]:
            print(f"       ({name} kept up with the generator's maximum: "
                  "its no-drop rate is at least this)")
if all(load(f"{n}_{r}")["sweep"]["generator_limited"]
       for r in range(1, rounds + 1) for n in (subject, baseline)):
    print("Both kept up with everything one generator lane could send: the ratio"
          "\ncompares what the generator drives, not the servers' capacities, which"
          "\nlie above these rates. More generator lcores than server lcores"
          "\n(ZG_BENCH_GEN_LCORES) make the server the bottleneck.")
label = f"ratio {subject} / {baseline}"
if rounds > 1:
    print(f"median {label}: {statistics.median(ratios):.3f}")
else:
    print(f"{label}: {ratios[0]:.3f}")
PYEOF
