#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measures where zeitgeberd's software NTP transmit stamp (T3) lands against
# the time its reply reaches the peer, for each --ntp_tx_stamp placement
# (before | midpoint | after; core/time/tx_kick_estimate.h), on the veth rig
# in AF_XDP mode (doc/timestamps.md, "NTP software stamps").
#
#   namespace zgts<pid>a: veth end with 10.96.0.1/24 (the kernel keeps it:
#     ARP) and zeitgeberd, AF_XDP + zg_xdp.o (UDP 123 steered to it)
#   namespace zgts<pid>b: the other end, 10.96.0.2/24, with the probe
#     (scripts/tx_stamp_probe.py): NTP requests one at a time and in bursts
#     (one sendmmsg each), each reply received with SO_TIMESTAMPNS
#
# Both clocks are this host's CLOCK_REALTIME (zeitgeberd serves it with
# --source=system, a UTC T3 on the wire; SO_TIMESTAMPNS is CLOCK_REALTIME),
# so (peer RX - T3) is how early T3 is (positive) or late (negative),
# plus the one-way veth path and the server's clock-model error, which are
# the same for every placement. The probe converts T3 from NTP (1900 epoch,
# 2^-32 s) to Unix ns exactly: (sec - 2208988800) * 1e9 + frac * 1e9 / 2^32.
#
#   sudo scripts/measure-tx-stamp.sh [BUILD_DIR]   (default: build)
# Environment: ZG_TS_PLACEMENTS ["before midpoint after"], ZG_TS_SINGLES
#   [300], ZG_TS_BURSTS [60], ZG_TS_BURST [16], ZG_TS_SETTLE [4] (s the
#   servo gets before probing), ZG_TS_LCORES [0,1], ZG_TS_NICE [-20] (server
#   and probe), ZG_TS_OUT [none: keep the logs and JSON there].
# Prints one line per placement: median and p90 of (peer RX - T3), single
# requests and bursts. Needs root. Bounded (timeouts on every process);
# removes its namespaces, veth pair and processes on exit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-lib.sh"
. "$(dirname "$0")/netns.sh"
zg_need_root "measure-tx-stamp.sh"
ZG_ROOT=${ZG_ROOT:-$(realpath "$(dirname "$0")/..")}
BUILD=$(realpath "${1:-$ZG_ROOT/build}")
ZGD=$BUILD/dataplane/zeitgeberd
XDP=$BUILD/dataplane/zg_xdp.o
PROBE=$ZG_ROOT/scripts/tx_stamp_probe.py
for b in "$ZGD" "$XDP"; do
  [ -e "$b" ] || zg_die "$b missing: ninja -C $BUILD dataplane/zeitgeberd dataplane/zg_xdp.o"
done
PLACEMENTS=${ZG_TS_PLACEMENTS:-before midpoint after}
SINGLES=${ZG_TS_SINGLES:-300}
BURSTS=${ZG_TS_BURSTS:-60}
BURST=${ZG_TS_BURST:-16}
SETTLE=${ZG_TS_SETTLE:-4}
LCORES=${ZG_TS_LCORES:-0,1}
NICE=${ZG_TS_NICE:--20}
# Poll-mode server on cores shared with other work: weight its whole
# session (scripts/lib.sh zg_bench_session).
[ -n "${ZG_BENCH_SESSION:-}" ] || { zg_bench_session "$NICE" "$0" "$@"; exit; }

RIG=zgts$$
SRV=10.96.0.1
CLI=10.96.0.2
WORK=$(mktemp -d /tmp/zg_tx_stamp.XXXXXX)
SERVER_PID=
cleanup() {
  # `|| true`: errexit off inside (a server that already died makes
  # zg_stop's kill fail, which must not skip the namespace removal).
  if [ -n "$SERVER_PID" ]; then stop_pid "$SERVER_PID" || true; fi
  zg_pair_down "$RIG" || true
  if [ -n "${ZG_TS_OUT:-}" ]; then
    mkdir -p "$ZG_TS_OUT" && cp "$WORK"/* "$ZG_TS_OUT"/ 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

zg_pair_up "$RIG" "$SRV/24" "$CLI/24" || zg_die "veth pair setup failed"
SRV_NS=$ZG_PAIR_NS_A CLI_NS=$ZG_PAIR_NS_B
# XDP on veth: GRO on the peer lets redirected frames through.
ip netns exec "$SRV_NS" ethtool -K "$ZG_PAIR_IF_A" gro on >/dev/null 2>&1 || true
ip netns exec "$CLI_NS" ethtool -K "$ZG_PAIR_IF_B" gro on >/dev/null 2>&1 || true
# The kernel answers ARP for the server address; resolve it once up front.
ip netns exec "$CLI_NS" ping -c 1 -W 1 "$SRV" >/dev/null 2>&1 || true

printf '%-9s %14s %14s %14s %14s %s\n' placement single_med single_p90 \
  burst_med burst_p90 "(ns, peer RX - T3; + = T3 early)"
for placement in $PLACEMENTS; do
  log=$WORK/zeitgeberd-$placement.log
  timeout 120 nice -n "$NICE" ip netns exec "$SRV_NS" "$ZGD" --no-shconf --no-pci --no-huge \
    -m 512 --no-telemetry --log-level=lib.eal:warning \
    --file-prefix "zgts$$" -l "$LCORES" \
    --vdev="net_af_xdp0,iface=$ZG_PAIR_IF_A,xdp_prog=$XDP" -- \
    --port=net_af_xdp0 --address="$SRV/24" --metrics_address= --control_socket= \
    --require_system_clock_sync=false --ntp_tx_stamp="$placement" \
    >"$log" 2>&1 &
  SERVER_PID=$!
  wait_for "$log" "zeitgeberd running" zeitgeberd
  sleep "$SETTLE"
  timeout 120 nice -n "$NICE" ip netns exec "$CLI_NS" python3 "$PROBE" "$SRV" \
    --singles "$SINGLES" --bursts "$BURSTS" --burst "$BURST" \
    >"$WORK/probe-$placement.json"
  stop_pid "$SERVER_PID"
  SERVER_PID=
  python3 - "$placement" "$WORK/probe-$placement.json" <<'EOF'
import json, sys
p, f = sys.argv[1], sys.argv[2]
r = json.load(open(f))
def g(k, m):
    v = r[k][m]
    return "-" if v is None else "%d" % v
print("%-9s %14s %14s %14s %14s  (n %d/%d, lost %d, distinct T3/burst %s)" % (
    p, g("single", "median_ns"), g("single", "p90_ns"), g("burst", "median_ns"),
    g("burst", "p90_ns"), r["single"]["n"], r["burst"]["n"], r["lost"],
    r["distinct_t3_per_burst_median"]))
pos = r["burst_by_position_median_ns"]
print("          burst median by arrival position: " +
      " ".join("-" if v is None else "%d" % v for v in pos))
EOF
done
