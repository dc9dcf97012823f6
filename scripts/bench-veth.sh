#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The veth + network-namespace rig: the same zg-loadgen load against
# zeitgeberd (AF_XDP with zeitgeber's XDP program) and against chronyd, both
# serving the same address on the same veth, one after the other, in the
# same run.
#
#   namespace zgbv<pid>a: veth end with 10.97.0.1/24 (the kernel keeps it:
#     ARP, ICMP; chronyd binds it) and the server (zeitgeberd: UDP 123 is
#     steered to its AF_XDP socket; or chronyd)
#   namespace zgbv<pid>b: the other end, owned by zg-loadgen through AF_XDP;
#     clients 10.97.0.100-199 (it answers ARP for them itself)
#
# For each server: an RFC 2544 no-drop sweep (loss <= 0.01 %), then a run at
# one common fixed rate (half the lower no-drop rate unless
# ZG_BENCH_FIXED_RATE is set) for loss, round-trip and residence
# percentiles and the offset a client computes (generator, zeitgeberd and
# chronyd all read this host's CLOCK_REALTIME, so it is their stamping
# error). Prints the table and the ratio zeitgeberd / chronyd.
#
# chronyd runs as a server would be run for this comparison: its own temp
# config, `local stratum 1` (it has no reference here), `allow all`,
# bindaddress on the served address, -x (it must not steer this host's
# clock), no `ratelimit` (chronyd limits nobody unless configured to, and a
# load test from 100 addresses would trip any limit), default client log.
#
#   sudo scripts/bench-veth.sh [BUILD_DIR]        (default: build)
# Environment: ZG_BENCH_TRIAL [2s], ZG_BENCH_DURATION [5s] (fixed-rate run),
#   ZG_BENCH_CLIENTS [1000], ZG_BENCH_FIXED_RATE [auto],
#   ZG_BENCH_SERVER_LCORES [0,1], ZG_BENCH_GEN_LCORES [0,1],
#   ZG_BENCH_GEN_MAIN [1], ZG_BENCH_NICE [-20] (every server, chronyd too,
#   and the generator), ZG_BENCH_OUT [none: keep JSON summaries there].
# Prints the machine's load average before and after.
# Needs root. Creates and removes its namespaces, veth pair and processes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-lib.sh"
. "$(dirname "$0")/netns.sh"
zg_need_root "bench-veth.sh"
BUILD=$(realpath "${1:-$ZG_ROOT/$ZG_RELEASE_DIR}")
ZGD=$BUILD/dataplane/zeitgeberd
LG=$BUILD/bench/loadgen/zg-loadgen
XDP=$BUILD/dataplane/zg_xdp.o
for b in "$ZGD" "$LG" "$XDP"; do
  [ -e "$b" ] || zg_die "$b missing: ninja -C $BUILD dataplane/zeitgeberd dataplane/zg_xdp.o bench/loadgen/zg-loadgen"
done
CHRONYD=$(command -v chronyd || true)
[ -n "$CHRONYD" ] || zg_die "chronyd missing (apt-get install chrony)"
TRIAL=${ZG_BENCH_TRIAL:-2s}
DURATION=${ZG_BENCH_DURATION:-5s}
CLIENTS=${ZG_BENCH_CLIENTS:-1000}
SERVER_LCORES=${ZG_BENCH_SERVER_LCORES:-0,1}
GEN_LCORES=${ZG_BENCH_GEN_LCORES:-0,1}
GEN_MAIN=${ZG_BENCH_GEN_MAIN:-1}
NICE=${ZG_BENCH_NICE:--20}
[ -n "${ZG_BENCH_SESSION:-}" ] || { zg_bench_session "$NICE" "$0" "$@"; exit; }

RIG=zgbv$$
SRV=10.97.0.1
HUGE_WAS=$(cat /proc/sys/vm/nr_hugepages)
"$ZG_ROOT/scripts/hugepages.sh" 512 >/dev/null
WORK=$(mktemp -d /tmp/zg_bench_veth.XXXXXX)
SERVER_PID=
GEN_PID=
cleanup() {
  [ -n "$GEN_PID" ] && stop_pid "$GEN_PID"
  [ -n "$SERVER_PID" ] && stop_pid "$SERVER_PID"
  zg_pair_down "$RIG"
  if [ -n "${ZG_BENCH_OUT:-}" ]; then
    mkdir -p "$ZG_BENCH_OUT" && cp "$WORK"/*.json "$WORK"/*.txt "$WORK"/*.log "$ZG_BENCH_OUT"/ 2>/dev/null || true
  fi
  rm -rf "$WORK"
  "$ZG_ROOT/scripts/hugepages.sh" --restore "$HUGE_WAS" >/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

zg_pair_up "$RIG" "$SRV/24" 10.97.0.2/24 || zg_die "veth pair setup failed"
SRV_NS=$ZG_PAIR_NS_A GEN_NS=$ZG_PAIR_NS_B
SRV_IF=$ZG_PAIR_IF_A GEN_IF=$ZG_PAIR_IF_B
# XDP on veth: GRO on the peer lets redirected frames through.
ip netns exec "$SRV_NS" ethtool -K "$SRV_IF" gro on >/dev/null 2>&1 || true
ip netns exec "$GEN_NS" ethtool -K "$GEN_IF" gro on >/dev/null 2>&1 || true
EAL=(--in-memory --no-pci --no-telemetry --log-level=lib.eal:warning)


start_zeitgeberd() {
  timeout 300 nice -n "$NICE" ip netns exec "$SRV_NS" "$ZGD" "${EAL[@]}" --file-prefix "zgbv$$s" \
    -l "$SERVER_LCORES" --vdev="net_af_xdp0,iface=$SRV_IF,xdp_prog=$XDP" -- \
    --port=net_af_xdp0 --address="$SRV/24" --metrics_address= --control_socket= \
    --require_system_clock_sync=false \
    >"$WORK/zeitgeberd.log" 2>&1 &
  SERVER_PID=$!
  wait_for "$WORK/zeitgeberd.log" "zeitgeberd running" zeitgeberd
}

start_chronyd() {
  cat >"$WORK/chrony.conf" <<EOF
# zeitgeber bench-veth.sh: chronyd as the comparison server.
local stratum 1
allow all
bindaddress $SRV
port 123
cmdport 0
pidfile $WORK/chronyd.pid
EOF
  timeout 300 nice -n "$NICE" ip netns exec "$SRV_NS" "$CHRONYD" -x -u root -d \
    -f "$WORK/chrony.conf" >"$WORK/chronyd.log" 2>&1 &
  SERVER_PID=$!
  wait_for "$WORK/chronyd.log" "Disabled control of system clock" chronyd
  sleep 0.5  # sockets open right after
}


# run_generator NAME [zg-loadgen flags...]
run_generator() {
  local name=$1; shift
  timeout 180 nice -n "$NICE" ip netns exec "$GEN_NS" "$LG" "${EAL[@]}" --file-prefix "zgbv$$g" \
    -l "$GEN_LCORES" --main-lcore "$GEN_MAIN" \
    --vdev="net_af_xdp0,iface=$GEN_IF" -- \
    --port=net_af_xdp0 --target="$SRV" --clients="$CLIENTS" \
    --source_ip=10.97.0.100 --source_addresses=100 --progress=false \
    --json="$WORK/$name.json" "$@" >"$WORK/$name.txt" 2>"$WORK/$name.log" &
  GEN_PID=$!
  local rc=0
  wait "$GEN_PID" || rc=$?
  GEN_PID=
  if [ "$rc" -ne 0 ]; then
    cat "$WORK/$name.log" "$WORK/$name.txt"
    zg_die "zg-loadgen run $name failed (exit $rc)"
  fi
  cat "$WORK/$name.txt"
}

# zeitgeberd_counters: the stopped server's final counters (received,
# answered, dropped; what zg_xdp.o steered to it and passed to the kernel).
zeitgeberd_counters() {
  grep -E ' I final (counters|dropped|xdp)' "$WORK/zeitgeberd.log" | sed 's/^.* I /  zeitgeberd: /' || true
}

no_drop() {  # no_drop NAME: the sweep's no-drop rate (0 if none)
  /usr/bin/python3 -c 'import json,sys
s=json.load(open(sys.argv[1]))["sweep"]
print(int(s["no_drop_pps"]) if s["found"] else 0)' "$WORK/$1.json"
}

LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
zg_log "veth rig $SRV_IF <-> $GEN_IF: $CLIENTS clients over 100 addresses, sweep trials of $TRIAL"
zg_log "zeitgeberd (AF_XDP + zg_xdp.o): no-drop sweep"
start_zeitgeberd
run_generator zeitgeberd_sweep --sweep --rate=max --sweep_trial="$TRIAL"
stop_server zeitgeberd
zeitgeberd_counters
zg_log "chronyd: no-drop sweep"
start_chronyd
run_generator chronyd_sweep --sweep --rate=max --sweep_trial="$TRIAL"
stop_server chronyd

ZR=$(no_drop zeitgeberd_sweep) CR=$(no_drop chronyd_sweep)
FIXED=${ZG_BENCH_FIXED_RATE:-$(( (ZR < CR ? ZR : CR) / 2 ))}
[ "$FIXED" -ge 1000 ] || FIXED=1000
zg_log "fixed rate $FIXED pps for $DURATION against each"
start_zeitgeberd
run_generator zeitgeberd_fixed --rate="$FIXED" --duration="$DURATION"
stop_server zeitgeberd
zeitgeberd_counters
start_chronyd
run_generator chronyd_fixed --rate="$FIXED" --duration="$DURATION"
stop_server chronyd

echo
echo "machine: $(nproc) cores,$(sed -n 's/^model name[^:]*://p' /proc/cpuinfo | head -1); load average (1/5/15 min) $LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end"
/usr/bin/python3 - "$WORK" "$FIXED" <<'PYEOF'
import json, sys
work, fixed = sys.argv[1], int(sys.argv[2])
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
def rate(s):
    return s["sweep"]["no_drop_pps"] if s["sweep"]["found"] else 0.0
us = lambda ns: f"{ns / 1e3:.1f}"
rows = []
for name in ("zeitgeberd", "chronyd"):
    sw, fx = load(f"{name}_sweep"), load(f"{name}_fixed")
    rows.append((name, rate(sw), sw["sweep"]["generator_limited"], fx))
print(f"\n== veth rig: no-drop rate (RFC 2544, loss <= 0.01 %) and a run at {fixed:,} pps")
print(f"{'server':<11} {'no-drop pps':>12} {'loss@fixed':>11} "
      f"{'rtt p50/p90/p99/p99.9 (us)':>28} {'residence p50/p99 (us)':>23} "
      f"{'offset p50 [min..p99] (us)':>28}")
for name, nd, limited, fx in rows:
    r, res, off = fx["rtt_ns"], fx["residence_ns"], fx["offset_ns"]
    print(f"{name:<11} {nd:>12,.0f}{'+' if limited else ' '}"
          f"{fx['loss'] * 100:>10.4f}% "
          f"{us(r['p50'])+'/'+us(r['p90'])+'/'+us(r['p99'])+'/'+us(r['p99_9']):>28} "
          f"{us(res['p50'])+'/'+us(res['p99']):>23} "
          f"{us(off['p50'])+' ['+us(off['min'])+'..'+us(off['p99'])+']':>28}")
    if fx["invalid"]:
        print(f"{'':<11} invalid replies: {fx['invalid']}")
print("\nFlooded (the sweep's first trial, offered as fast as the generator sends):")
for name in ("zeitgeberd", "chronyd"):
    t = load(f"{name}_sweep")["sweep"]["trials"][0]
    print(f"  {name:<11} sent {t['achieved_pps']:>12,.0f}/s, answered "
          f"{t['achieved_pps'] * (1 - t['loss']):>12,.0f}/s (loss {t['loss'] * 100:.2f} %)")
z, c = rows[0][1], rows[1][1]
print("(+: the server kept up with the generator's maximum)" if rows[0][2] or rows[1][2] else "")
print(f"ratio zeitgeberd / chronyd (no-drop rate): "
      f"{z / c:.3f}" if c > 0 else "ratio: chronyd found no passing rate")
PYEOF
