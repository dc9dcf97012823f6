#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job, on a fresh Debian 12 machine, as root (the README's first
# command):
#
#   scripts/demo.sh
#
#  1. installs the dependencies (scripts/bootstrap.sh)
#  2. builds zeitgeberd and its XDP program (meson + ninja, build/)
#  3. reserves hugepages (scripts/hugepages.sh)
#  4. builds the veth rig (scripts/netns.sh): zgd<pid>h stays here for
#     zeitgeberd, zgd<pid>c sits in namespace zgd<pid> with the clients
#  5. starts zeitgeberd on AF_XDP with zg_xdp.o, serving 10.99.0.1/24 and
#     fd99::1/64 (the kernel keeps ARP, ND and ping on the same addresses)
#  6. queries it with ntpdig and chronyd -Q (measure only: no clock is
#     touched) over IPv4 and IPv6, and pings it (the clients run at a
#     real-time priority, so that on a busy machine their own scheduling
#     does not blur what they measure)
#  7. shows zeitgeberd's counters (Prometheus /metrics) and final report
#  8. removes everything it created, also on failure or Ctrl-C
# Exits non-zero if any query fails.
#
# ZG_DEMO_MODE=dpdk shows the other deploy mode: no XDP program, zeitgeberd
# owns the interface and answers ARP, ND and ping itself (as on a port bound
# to vfio-pci). The host's clock is the reference: zeitgeberd serves it as
# synchronised even if no NTP client disciplines this machine
# (--require_system_clock_sync=false), so the offsets the clients report show
# how faithfully zeitgeberd serves the host clock.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$ZG_ROOT/scripts/netns.sh"
zg_need_root "demo.sh"
cd "$ZG_ROOT"
MODE=${ZG_DEMO_MODE:-xdp}
case "$MODE" in xdp|dpdk) ;; *) zg_die "ZG_DEMO_MODE must be xdp or dpdk";; esac
BUILD=$ZG_RELEASE_DIR
RIG=zgd$$
SRV4=10.99.0.1 CLI4=10.99.0.2 SRV6=fd99::1 CLI6=fd99::2
WORK=$(mktemp -d /tmp/zg-demo.XXXXXX)
ZG_PID=
HUGE_WAS=
failures=0

cleanup() {
  if [ -n "$ZG_PID" ]; then kill -KILL "$ZG_PID" 2>/dev/null || true; fi
  zg_rig_down "$RIG"
  # Give back the hugepages this demo reserved.
  [ -z "$HUGE_WAS" ] || scripts/hugepages.sh --restore "$HUGE_WAS" >/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

zg_log "1/8 dependencies"
scripts/bootstrap.sh

zg_log "2/8 build (meson + ninja: zeitgeberd, zg_xdp.o)"
zg_configure_release
ninja -C "$BUILD" dataplane/zeitgeberd dataplane/zg_xdp.o

zg_log "3/8 hugepages"
EAL_MEM=(--in-memory)
HUGE_WAS=$(cat /proc/sys/vm/nr_hugepages)
if ! scripts/hugepages.sh 512 || [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -lt 128 ]; then
  echo "no free hugepages: running without them (--no-huge -m 512)"
  EAL_MEM=(--no-huge -m 512 --no-shconf)
fi

zg_log "4/8 veth rig: ${RIG}h (zeitgeberd) <-> ${RIG}c in namespace $RIG (clients)"
zg_rig_up "$RIG" "$SRV4/24" "$CLI4/24" "$SRV6/64" "$CLI6/64"
DEV="net_af_xdp0,iface=$ZG_RIG_HOST_IF"
if [ "$MODE" = xdp ]; then
  DEV="$DEV,xdp_prog=$BUILD/dataplane/zg_xdp.o"
  ip addr add "$SRV4/24" dev "$ZG_RIG_HOST_IF"
  ip -6 addr add "$SRV6/64" dev "$ZG_RIG_HOST_IF" nodad
  echo "AF_XDP + zg_xdp.o: NTP/PTP to our addresses -> zeitgeberd; ARP, ND, ping -> kernel"
else
  echo "AF_XDP without an XDP program of ours: every frame -> zeitgeberd (ARP, ND, ping too)"
fi

zg_log "5/8 zeitgeberd"
"$BUILD/dataplane/zeitgeberd" "${EAL_MEM[@]}" --no-pci --no-telemetry \
  --file-prefix "zgdemo$$" -l 0-1 --log-level=lib.eal:warning --vdev="$DEV" -- \
  --port=net_af_xdp0 --address="$SRV4/24" --address="$SRV6/64" \
  --metrics_address=127.0.0.1:0 --stats_interval=200ms --control_socket= \
  --require_system_clock_sync=false >"$WORK/zeitgeberd.log" 2>&1 &
ZG_PID=$!
for _ in $(seq 600); do
  grep -q "zeitgeberd running" "$WORK/zeitgeberd.log" && break
  kill -0 "$ZG_PID" 2>/dev/null || break
  sleep 0.1
done
grep -v '^lib\(bpf\|xdp\):' "$WORK/zeitgeberd.log" | sed 's/^/  | /'
grep -q "zeitgeberd running" "$WORK/zeitgeberd.log" || zg_die "zeitgeberd did not start"
METRICS_PORT=$(sed -n 's/.*metrics on .*(port \([0-9]*\)).*/\1/p' "$WORK/zeitgeberd.log")

zg_log "6/8 clients in namespace $RIG"
for srv in "$SRV4" "$SRV6"; do
  echo "\$ ping -c 2 $srv"
  zg_in_ns ping -c 2 -W 2 "$srv" | sed -n 's/^/  /; /bytes from\|packet loss/p' || fail "ping $srv"
  echo "\$ ntpdig $srv"
  out=$(zg_in_ns timeout 20 chrt -f 10 ntpdig -t 3 "$srv" 2>&1) || fail "ntpdig $srv"
  echo "  $out"
  echo "\$ chronyd -Q 'server $srv iburst'   (measures, never sets the clock)"
  out=$(zg_in_ns timeout 40 chronyd -Q -P 10 -u root -t 20 -f /dev/null \
    "server $srv iburst minpoll -4 maxpoll -4 maxsamples 8" \
    "pidfile $WORK/chronyd.pid" "bindcmdaddress $WORK/chronyd.sock" "cmdport 0" 2>&1) ||
    fail "chronyd -Q $srv"
  echo "$out" | grep -q "System clock wrong by" || fail "chronyd -Q $srv measured nothing"
  echo "$out" | sed 's/^/  /'
done

zg_log "7/8 counters (http://127.0.0.1:$METRICS_PORT/metrics, non-zero)"
sleep 0.5  # one stats interval
curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" >"$WORK/metrics.txt" || fail "metrics scrape"
grep -E '^zeitgeber_(frames_|rx_packets|tx_packets|tx_dropped|clock_(synchronized|stratum|error_bound|sync_state))' \
  "$WORK/metrics.txt" | grep -v ' 0$' | sed 's/^/  /' || true
kill -TERM "$ZG_PID"
wait "$ZG_PID" || fail "zeitgeberd exit status $?"
ZG_PID=
grep -E ' I (final|worker)' "$WORK/zeitgeberd.log" | sed 's/^/  | /'

zg_log "8/8 clean-up"
if [ "$failures" -ne 0 ]; then
  echo "demo: $failures check(s) FAILED"
  exit 1
fi
echo "demo: OK (every query answered)"
