#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: two zeitgeberd grandmasters on one Ethernet segment (a bridge in a
# namespace, each on AF_XDP over its own veth), the redundant-pair setup.
# The one with the worse data set (priority1 200 against 100) hears the
# other's Announce messages and goes PASSIVE: it stops sending Sync and
# Announce. pmc on the segment sees one MASTER and one PASSIVE. Stop the
# better one: after the announce receipt timeout (3 x 1 s) the other takes
# over, and a ptp4l slave on the segment follows it.
#   tests/e2e/ptp_gm_redundancy_test.sh ZEITGEBERD ZG_XDP_OBJ
# Needs root; exits 77 (skipped) without it or without the tools.
set -uo pipefail
ZG_ZEITGEBERD=$(realpath "$1"); ZG_XDP_OBJ=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ptp_lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip ethtool ptp4l pmc setpriv python3; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
ID=$$
SEG=zgseg$ID CLI=zgcli$ID
G1=zga${ID}h G2=zgb${ID}h CIF=zgc${ID}c
WORK=$(mktemp -d /tmp/zg_ptp_red.XXXXXX)
PID1= PID2= PTP_PID=
cleanup() {
  for p in $PID1 $PID2 $PTP_PID; do kill -KILL "$p" 2>/dev/null; done
  # Whatever still runs in our namespaces (a SIGKILLed `timeout` leaves its
  # ptp4l child behind).
  for ns in "$SEG" "$CLI"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
  done
  ip link del "$G1" 2>/dev/null; ip link del "$G2" 2>/dev/null
  ip netns del "$SEG" 2>/dev/null; ip netns del "$CLI" 2>/dev/null
  [ -n "${ZG_KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in gm1 gm2; do echo "--- $f"; tail -20 "$WORK/$f.log"; done
  echo "--- ptp4l"; grep -v "failed to" "$WORK/ptp4l.log" 2>/dev/null | tail -20
  exit 1
}
quiet() { "$@" >/dev/null 2>&1 || true; }

# The segment: a bridge in namespace SEG; the two grandmasters' veths stay
# in the root namespace (AF_XDP), the client's in namespace CLI.
ip netns add "$SEG"; ip netns add "$CLI"
ip -n "$SEG" link add br0 type bridge
ip -n "$SEG" link set br0 type bridge mcast_snooping 0
ip -n "$SEG" link set br0 up
attach() {  # attach HOST_SIDE_NAME SEGMENT_SIDE_NAME
  ip link add "$1" type veth peer name "$2"
  ip link set "$2" netns "$SEG"
  ip -n "$SEG" link set "$2" master br0 up
  quiet ethtool -K "$1" tx off rx off
  quiet ip netns exec "$SEG" ethtool -K "$2" tx off rx off
}
attach "$G1" "zga${ID}s"
attach "$G2" "zgb${ID}s"
attach "$CIF" "zgc${ID}s"
ip link set "$CIF" netns "$CLI"
ip -n "$CLI" link set lo up
ip -n "$CLI" addr add 10.94.0.9/24 dev "$CIF"
ip -n "$CLI" link set "$CIF" up
ip -n "$CLI" route add 224.0.0.0/4 dev "$CIF"
quiet ip netns exec "$CLI" ethtool -K "$CIF" tx off rx off gro off
for g in "$G1" "$G2"; do ip link set "$g" up; done
ip addr add 10.94.0.1/24 dev "$G1"
ip addr add 10.94.0.2/24 dev "$G2"
id_of() {
  awk -F: '{printf "%s%s%s.fffe.%s%s%s", $1,$2,$3,$4,$5,$6}' \
    "/sys/class/net/$1/address"
}
ID1=$(id_of "$G1"); ID2=$(id_of "$G2")

zg_ptp_cpus
ZG_GM_TIMEOUT=120
zg_ptp_start_gm "$WORK/gm1.log" "$G1" 10.94.0.1/24 --ptp_priority1=100 \
  --ptp_log_announce_interval=0 --ptp_log_sync_interval=-1
PID1=$ZG_GM_PID
zg_ptp_start_gm "$WORK/gm2.log" "$G2" 10.94.0.2/24 --ptp_priority1=200 \
  --ptp_log_announce_interval=0 --ptp_log_sync_interval=-1
PID2=$ZG_GM_PID
zg_wait_log "$WORK/gm2.log" "-> PASSIVE" 20 ||
  fail "the worse grandmaster did not go PASSIVE"
grep -E "LISTENING -> .*|-> PASSIVE" "$WORK/gm2.log"
zg_wait_log "$WORK/gm1.log" "-> MASTER" 10 || fail "gm1 not MASTER"
grep -q "PASSIVE" "$WORK/gm1.log" && fail "the better grandmaster went PASSIVE"

pmc_states() {
  ip netns exec "$CLI" timeout "$(zg_left 8)" pmc -4 -i "$CIF" -b 0 'GET PORT_DATA_SET' \
    >"$WORK/pmc_$1.log" 2>&1
  grep -A3 "RESPONSE MANAGEMENT PORT_DATA_SET" "$WORK/pmc_$1.log" |
    grep -E "portIdentity|portState" | paste - - | awk '{print $2, $4}' | sort
}
states=$(pmc_states before)
echo "pmc: $states"
echo "$states" | grep -q "^$ID1-1 MASTER$" || fail "pmc: gm1 not MASTER"
echo "$states" | grep -q "^$ID2-1 PASSIVE$" || fail "pmc: gm2 not PASSIVE"

# A slave on the segment follows gm1; gm2 sends no Sync while PASSIVE.
zg_ptp4l_conf "$WORK/ptp4l.conf" UDPv4 0
ip netns exec "$CLI" timeout "$(zg_left 60)" setpriv --inh-caps=-sys_time \
  --bounding-set=-sys_time ptp4l -i "$CIF" -f "$WORK/ptp4l.conf" -m -S \
  >"$WORK/ptp4l.log" 2>&1 &
PTP_PID=$!
zg_wait_log "$WORK/ptp4l.log" "selected best master clock $ID1" 20 ||
  fail "ptp4l did not select gm1"

# Take the better one down.
zg_stop "$PID1" 10; PID1=
zg_wait_log "$WORK/gm2.log" "PASSIVE -> MASTER" 10 ||
  fail "gm2 did not take over"
grep "PASSIVE -> MASTER" "$WORK/gm2.log"
zg_wait_log "$WORK/ptp4l.log" "selected best master clock $ID2" 20 ||
  fail "ptp4l did not switch to gm2"
echo "ptp4l now follows $ID2"
states=$(pmc_states after)
echo "pmc: $states"
echo "$states" | grep -q "^$ID2-1 MASTER$" || fail "pmc: gm2 not MASTER"

zg_stop "$PID2" 10; rc=$ZG_STOP_RC; PID2=
[ "$rc" -eq 0 ] || fail "gm2 exit code $rc"
grep -q "sent: .*SYNC=" "$WORK/gm2.log" || fail "gm2 never sent Sync"
echo "PASS"
