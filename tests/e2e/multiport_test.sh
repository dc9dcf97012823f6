#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: one zeitgeberd serving several ports, NTP and PTP.
#
#   c1 ns (ntpdig, ptp4l) -- veth -- [net_af_xdp0]
#                               server ns: one zeitgeberd (--ptp), one
#                               worker serving queue 0 of both ports
#   c2 ns (ntpdig, ptp4l) -- veth -- [net_af_xdp1]
#   (and a third --port that does not exist: reported, the others serve)
#
# Each --port carries its own address (--port='net_af_xdp0 address=...').
# Checks: ntpdig from both client namespaces is answered; the per-port NTP
# reply counters (zeitgeber_frames_replied_total{port=...}) match each
# client's answered queries and add up to the total; a ptp4l slave on each
# port synchronises to one grandmaster clock identity through that port's
# own PTP port (port numbers 1 and 2), both MASTER in the metrics, each
# answering its own slave's Delay_Req, and pmc on port 2 sees port 2 of a
# clock of two (numberPorts); the missing port is logged and shows
# link down; taking one link down (the client end of the veth) is seen as
# that port's link down (metric and alarm), its PTP port goes FAULTY and
# the other port goes on answering (NTP) and MASTER (PTP); link up brings
# the PTP port back through LISTENING to MASTER; a clean stop.
#   tests/e2e/multiport_test.sh ZEITGEBERD ZG_XDP_OBJ
# Needs root, ntpsec-ntpdate (ntpdig), linuxptp (ptp4l, pmc), curl, setpriv;
# exits 77 (skip) otherwise.
# Cleans up on any exit.
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/scripts/netns.sh"
. "$ROOT/scripts/wait-lib.sh"
. "$HERE/ptp_lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip ethtool ntpdig curl ptp4l pmc setpriv; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done

P=zgm$$
NS=${P}s N1=${P}1 N2=${P}2
A1=10.73.1.1 A2=10.73.2.1
WORK=$(mktemp -d /tmp/zg_multiport.XXXXXX)
ZG=""
SLAVES=()
cleanup() {
  [ -n "$ZG" ] && kill -KILL "$ZG" 2>/dev/null
  for pid in "${SLAVES[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  for ns in "$N1" "$N2" "$NS"; do
    zg_ns_kill "$ns"
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  [ -f "$WORK/zg.log" ] && { echo "--- zeitgeberd"; tail -40 "$WORK/zg.log"; }
  for i in 1 2; do
    [ -f "$WORK/ptp4l$i.log" ] || continue
    echo "--- ptp4l $i"; grep -v "failed to" "$WORK/ptp4l$i.log" | tail -15
  done
  exit 1
}

for ns in "$NS" "$N1" "$N2"; do
  ip netns add "$ns" || fail "netns $ns"
  ip -n "$ns" link set lo up
done
for i in 1 2; do
  ns=${P}$i
  ip link add "${P}p$i" netns "$NS" type veth peer name "${P}c$i" netns "$ns" ||
    fail "veth $i"
  # With zg_xdp.o the kernel keeps ARP: it holds the served address too.
  ip -n "$NS" addr add "10.73.$i.1/24" dev "${P}p$i"
  ip -n "$ns" addr add "10.73.$i.2/24" dev "${P}c$i"
  ip -n "$NS" link set "${P}p$i" up
  ip -n "$ns" link set "${P}c$i" up
  # veth checksum offload hands AF_XDP partial checksums: off, both ends.
  ip netns exec "$NS" ethtool -K "${P}p$i" tx off rx off >/dev/null 2>&1
  ip netns exec "$ns" ethtool -K "${P}c$i" tx off rx off >/dev/null 2>&1
done

ip netns exec "$NS" "$APP" --no-huge -m 512 --no-shconf --no-pci \
  --no-telemetry --file-prefix "$P" -l 0-1 --log-level=lib.eal:warning \
  --vdev="net_af_xdp0,iface=${P}p1,xdp_prog=$OBJ" \
  --vdev="net_af_xdp1,iface=${P}p2,xdp_prog=$OBJ" -- \
  --port="net_af_xdp0 address=$A1/24" --port="net_af_xdp1 address=$A2/24" \
  --port="net_af_xdp7 address=10.73.7.1/24" \
  --ptp --metrics_address=127.0.0.1:9123 --require_system_clock_sync=false \
  --control_socket="$WORK/zg.sock" \
  --idle_sleep=50us --stats_interval=200ms >"$WORK/zg.log" 2>&1 &
ZG=$!
zg_wait_started "$WORK/zg.log" "zeitgeberd running" 30 "$ZG" ||
  fail "zeitgeberd did not start"
grep -E "port net_af_xdp7 failed to start, the others serve" "$WORK/zg.log" ||
  fail "the missing port was not reported"
grep -E "zeitgeberd running: 1 worker\(s\).*port\(s\) net_af_xdp0, net_af_xdp1" "$WORK/zg.log" ||
  fail "not serving both ports"

scrape() {
  ip netns exec "$NS" curl -sf --max-time 2 http://127.0.0.1:9123/metrics \
    >"$WORK/m.txt" 2>/dev/null || fail "no metrics"
}
replied() {  # replied [PORT]: NTP replies, of PORT or of all
  zg_metric "$WORK/m.txt" zeitgeber_frames_replied_total \
    "kind=\"ntp\"${1:+.*port=\"$1\"|port=\"$1\".*kind=\"ntp\"}"
}
link_up() { zg_metric "$WORK/m.txt" zeitgeber_port_link_up "port=\"$1\""; }
# ask NS ADDR N: N ntpdig queries; prints how many were answered
ask() {
  local ok=0 k
  for ((k = 0; k < $3; k++)); do
    ip netns exec "$1" ntpdig -t 1 "$2" >/dev/null 2>&1 && ok=$((ok + 1))
  done
  echo "$ok"
}

ok1=$(ask "$N1" "$A1" 3)
ok2=$(ask "$N2" "$A2" 4)
echo "answered: port 0 $ok1/3, port 1 $ok2/4"
[ "$ok1" -eq 3 ] && [ "$ok2" -eq 4 ] || fail "not every query answered"
sleep 0.5
scrape
r1=$(replied net_af_xdp0); r2=$(replied net_af_xdp1); rt=$(replied)
echo "NTP replies by port: net_af_xdp0 $r1, net_af_xdp1 $r2, total $rt"
[ "$r1" = 3 ] && [ "$r2" = 4 ] && [ "$rt" = 7 ] ||
  fail "per-port replies ($r1, $r2) do not match the answers or the total ($rt)"
[ "$(link_up net_af_xdp0)" = 1 ] && [ "$(link_up net_af_xdp1)" = 1 ] ||
  fail "links not up in the metrics"

# PTP: one ptp4l slave per port, both at once.
zg_ptp_cpus
zg_ptp4l_conf "$WORK/ptp4l.conf" UDPv4 0
for i in 1 2; do
  zg_ptp4l_slave_start "${P}$i" "${P}c$i" "$WORK/ptp4l.conf" \
    "$WORK/ptp4l$i.log" -S
  SLAVES+=("$ZG_SLAVE_PID")
done
for i in 1 2; do
  zg_wait_log "$WORK/ptp4l$i.log" "to SLAVE" 30 ||
    fail "ptp4l on port $i did not reach SLAVE"
done
sleep 3  # a few Delay_Req exchanges each in SLAVE
for pid in "${SLAVES[@]}"; do zg_stop "$pid" 5; done
SLAVES=()
GM=$(sed -n 's/.*PTP port \([0-9a-f.]*\)-1: LISTENING (.*/\1/p' "$WORK/zg.log" | head -1)
[ -n "$GM" ] || fail "no PTP port 1 in the log"
for i in 1 2; do
  grep -q "new foreign master $GM-$i" "$WORK/ptp4l$i.log" ||
    fail "ptp4l on port $i did not hear PTP port $GM-$i"
  grep -q "selected best master clock $GM" "$WORK/ptp4l$i.log" ||
    fail "ptp4l on port $i did not select $GM"
done
# pmc on port 2 sees port 2 of a clock of two ports.
ip netns exec "${P}2" timeout 5 pmc -4 -i "${P}c2" -d 0 -b 0 \
  "GET PORT_DATA_SET" "GET DEFAULT_DATA_SET" >"$WORK/pmc.txt" 2>&1
grep -Eq "portIdentity +$GM-2" "$WORK/pmc.txt" &&
  grep -Eq "numberPorts +2" "$WORK/pmc.txt" &&
  grep -Eq "portState +MASTER" "$WORK/pmc.txt" ||
  { cat "$WORK/pmc.txt"; fail "pmc on port 2: not port $GM-2 of 2, MASTER"; }
echo "ptp4l: port 1 followed $GM-1, port 2 followed $GM-2; SLAVE samples" \
  "(|master offset|, ns, software stamps):"
for i in 1 2; do
  offsets=$(awk '/to SLAVE/ { s = 1 }
    s && /master offset/ { print ($4 < 0 ? -$4 : $4) }' "$WORK/ptp4l$i.log" |
    sort -n)
  n=$(grep -c . <<<"$offsets")
  echo "  port $i: $n samples, median $(sed -n "$(((n + 1) / 2))p" <<<"$offsets")"
done
scrape
ptp_metric() {  # ptp_metric NAME PORT LABEL_REGEX
  zg_metric "$WORK/m.txt" "$1" "port=\"$2\".*$3|$3.*port=\"$2\""
}
for port in net_af_xdp0 net_af_xdp1; do
  [ "$(ptp_metric zeitgeber_ptp_port_state $port 'state="MASTER"')" = 1 ] ||
    fail "PTP port on $port is not MASTER in the metrics"
  resp=$(ptp_metric zeitgeber_ptp_messages_sent_total $port 'type="DELAY_RESP"')
  syncs=$(ptp_metric zeitgeber_ptp_messages_sent_total $port 'type="SYNC"')
  echo "PTP on $port: MASTER, $syncs Sync, $resp Delay_Resp"
  [ "$resp" -gt 0 ] && [ "$syncs" -gt 0 ] ||
    fail "PTP port on $port sent no Sync or no Delay_Resp"
done

# One link down (the client's end: the server's veth loses its carrier).
ip -n "$N1" link set "${P}c1" down
zg_wait_log "$WORK/zg.log" "\(net_af_xdp0\): link down" 5 ||
  fail "zeitgeberd did not see net_af_xdp0's link go down"
ok2=$(ask "$N2" "$A2" 3)
echo "with net_af_xdp0 down: port 1 answered $ok2/3"
[ "$ok2" -eq 3 ] || fail "port 1 stopped answering when port 0 went down"
sleep 0.5
scrape
[ "$(link_up net_af_xdp0)" = 0 ] || fail "zeitgeber_port_link_up of net_af_xdp0 is not 0"
[ "$(replied net_af_xdp1)" = 7 ] || fail "port 1's replies did not rise to 7"
ptp_state_is() {  # ptp_state_is PORT STATE: scrapes; 0 if PORT's PTP port is in STATE
  scrape
  [ "$(ptp_metric zeitgeber_ptp_port_state "$1" "state=\"$2\"")" = 1 ]
}
zg_wait 5 "the PTP port on net_af_xdp0 FAULTY" ptp_state_is net_af_xdp0 FAULTY ||
  fail "the PTP port on net_af_xdp0 is not FAULTY with its link down"
ptp_state_is net_af_xdp1 MASTER ||
  fail "the PTP port on net_af_xdp1 left MASTER when net_af_xdp0 went down"
echo "PTP: net_af_xdp0 FAULTY, net_af_xdp1 MASTER"
grep -E 'zeitgeber_alarm_active\{[^}]*link_down[^}]*net_af_xdp0' "$WORK/m.txt" |
  grep -q ' 1$' && echo "alarm: link_down net_af_xdp0 active" ||
  echo "note: no active link_down alarm for net_af_xdp0 in the metrics yet"
ip -n "$N1" link set "${P}c1" up
zg_wait_log "$WORK/zg.log" "\(net_af_xdp0\): link up" 5 ||
  fail "zeitgeberd did not see net_af_xdp0's link come back"
sleep 1  # the veth's carrier and ARP settle
ok1=$(ask "$N1" "$A1" 2)
[ "$ok1" -ge 1 ] || fail "port 0 does not answer after its link came back"
zg_wait 15 "the PTP port on net_af_xdp0 MASTER again" \
  ptp_state_is net_af_xdp0 MASTER ||
  fail "the PTP port on net_af_xdp0 did not return to MASTER"
grep -q "LISTENING -> MASTER" <(grep -- "-1: " "$WORK/zg.log" | tail -1) ||
  fail "PTP port 1 did not listen again before MASTER"
echo "PTP: net_af_xdp0 MASTER again (after LISTENING)"

zg_stop "$ZG" 10
[ "$ZG_STOP_RC" -eq 0 ] || fail "zeitgeberd exited $ZG_STOP_RC"
ZG=""
grep -E "worker 0 \(lcore 1\) port net_af_xdp1: rx" "$WORK/zg.log" >/dev/null ||
  fail "no per-port final report"
echo "PASS"
