#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: zeitgeberd (AF_XDP with zeitgeber's XDP program, PTP on) restarted at
# once is answered, as systemctl restart and a watchdog restart need:
#  - SIGTERM and a new start in the same instant: the new one waits for the
#    old to release the port (one zeitgeberd per port), then ntpdig is
#    answered; the old one exits 0 and logs how long it took to stop;
#  - SIGKILL (what the watchdog's abort leaves behind: the XDP program still
#    attached) and a new start: the stale program is detached, with a
#    warning, and ntpdig is answered.
#   tests/e2e/zeitgeberd_restart_test.sh ZEITGEBERD ZG_XDP_OBJ
# Needs root (netns, XDP); exits 77 (skip) otherwise. Cleans up on any exit.
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/netns.sh"
. "$HERE/../../scripts/wait-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip ethtool ntpdig; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
RIG=zgr$$
SRV=10.96.0.1 CLI=10.96.0.2
WORK=$(mktemp -d /tmp/zg_restart.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  zg_rig_down "$RIG"
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$WORK"/zg*.log; do echo "--- $(basename "$f")"; tail -25 "$f"; done
  exit 1
}

zg_rig_up "$RIG" "$SRV/24" "$CLI/24" || fail "rig setup"
ip addr add "$SRV/24" dev "$ZG_RIG_HOST_IF"  # the kernel answers ARP

n=0
start() {  # start: zeitgeberd number $n in the background, pid in PID
  n=$((n + 1))
  "$APP" --no-huge -m 512 --no-shconf --no-pci --no-telemetry \
    --file-prefix "zgr$$_$n" -l 0-1 --log-level=lib.eal:warning \
    --vdev="net_af_xdp0,iface=$ZG_RIG_HOST_IF,xdp_prog=$OBJ" -- \
    --port=net_af_xdp0 --address="$SRV/24" --ptp --metrics_address= --status_address= \
    --control_socket="$WORK/zg.sock" --require_system_clock_sync=false \
    --idle_sleep=50us --log_level=debug \
    >"$WORK/zg$n.log" 2>&1 &
  PID=$!
  PIDS+=("$PID")
}
running() {  # running N PID
  grep -q "zeitgeberd running" "$WORK/zg$1.log" && return 0
  kill -0 "$2" 2>/dev/null || fail "zeitgeberd $1 exited during start-up"
  return 1
}
answered() {  # answered N: ntpdig from the namespace gets an answer
  zg_in_ns timeout "$(zg_left 10)" ntpdig -t 2 "$SRV" >"$WORK/ntpdig$1.txt" 2>&1 ||
    { cat "$WORK/ntpdig$1.txt"; fail "ntpdig got no answer from zeitgeberd $1"; }
  echo "zeitgeberd $1 answered: $(cat "$WORK/ntpdig$1.txt")"
}

start; first=$PID
zg_wait 30 "zeitgeberd 1 running" running 1 "$first" || fail "zeitgeberd 1 did not start"
answered 1

zg_phase "SIGTERM and a new start at once"
kill -TERM "$first"
start; second=$PID
wait "$first"; rc=$?
[ "$rc" -eq 0 ] || fail "zeitgeberd 1 exited $rc after SIGTERM"
grep -E "stopped in|shutdown: (metrics exporter|EAL)" "$WORK/zg1.log"
grep -q "stopped in" "$WORK/zg1.log" || fail "zeitgeberd 1: no 'stopped in'"
zg_wait 30 "zeitgeberd 2 running" running 2 "$second" || fail "zeitgeberd 2 did not start"
grep "is held by" "$WORK/zg2.log" || echo "(zeitgeberd 1 had released the port already)"
answered 2

zg_phase "SIGKILL and a new start"
kill -KILL "$second"; wait "$second" 2>/dev/null
ip link show "$ZG_RIG_HOST_IF" | grep -q "prog/xdp" ||
  fail "no XDP program left after SIGKILL: the case this test is for is gone"
start; third=$PID
zg_wait 30 "zeitgeberd 3 running" running 3 "$third" || fail "zeitgeberd 3 did not start"
grep -q "detached the XDP program zg_xdp_steer" "$WORK/zg3.log" ||
  fail "zeitgeberd 3 did not say it detached the stale program"
grep "detached the XDP program" "$WORK/zg3.log"
answered 3
zg_stop "$third" 10
[ "$ZG_STOP_RC" -eq 0 ] || fail "zeitgeberd 3 exited $ZG_STOP_RC after SIGTERM"
ip link show "$ZG_RIG_HOST_IF" | grep -q "prog/xdp" && fail "XDP program left attached"
echo "PASS"
