#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Captures the real-peer fixtures in tests/data/: NTP and PTP packets sent by
# implementations none of us wrote (ntpdig, chronyd, ptp4l, pmc), talking to
# each other across a veth pair between two network namespaces this script
# creates. tests/util/peer_fixtures_test.cc checks them with tshark; parser
# tests replay them.
#
#   sudo scripts/capture-peer-pcaps.sh [OUTDIR]      (default: tests/data)
#   sudo scripts/capture-peer-pcaps.sh OUTDIR NAME.. (only those fixtures)
#   ZG_CAPTURE_KEEP=1 ...   keep the raw captures and peer logs (debugging)
#
# Safe to run on a shared machine: its namespaces and links are named after
# its PID, every process it starts runs in those namespaces and is stopped
# (by PID) on exit, and no peer may touch the host clock: chronyd runs with -x
# (server) or -Q (client, measure only); ptp4l runs with free_running 1
# (software timestamps, never adjusts CLOCK_REALTIME); ntpdig without -s/-S.
# Fixed MACs (scripts/netns.sh zg_pair_up) and addresses make reruns produce
# the same packet kinds and counts; timestamps and random fields differ.
# Takes a few minutes (mostly tshark trimming the captures).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$ZG_ROOT/scripts/netns.sh"
zg_need_root "capturing peer pcaps"
for tool in tcpdump tshark editcap mergecap chronyd ntpdig ptp4l pmc; do
  command -v "$tool" >/dev/null || zg_die "$tool missing: run scripts/bootstrap.sh"
done

OUT=$(realpath -m "${1:-$ZG_ROOT/tests/data}")
shift || true
ONLY=" $* "
mkdir -p "$OUT"
PAIR=zgcap$$
IP_A=10.98.0.1 IP_B=10.98.0.2 IP6_A=fd98::1 IP6_B=fd98::2
WORK=$(mktemp -d /tmp/zg-capture.XXXXXX)
STARTED=()   # PIDs of every background process we started

stop_pid() {  # stop_pid PID: SIGTERM, wait up to 3 s, then SIGKILL
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do stop_pid "$pid"; done
  zg_pair_down "$PAIR"
  if [ -n "${ZG_CAPTURE_KEEP:-}" ]; then
    echo "raw captures and peer logs kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# bg NS LOG CMD...: starts CMD in namespace NS; its PID lands in BG_PID.
bg() {
  local ns=$1 log=$2; shift 2
  ip netns exec "$ns" "$@" >"$log" 2>&1 &
  BG_PID=$!
  STARTED+=("$BG_PID")
}

# wait_log FILE PATTERN SECONDS: waits until FILE matches PATTERN.
wait_log() {
  local file=$1 pattern=$2 deadline=$((SECONDS + $3))
  until grep -q -- "$pattern" "$file" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || { cat "$file" >&2; zg_die "no '$pattern' in $file after $3 s"; }
    sleep 0.2
  done
}

# capture_start NS IF FILE PRECISION FILTER...: tcpdump into FILE; sets CAP_PID.
# --immediate-mode: packets reach the file as they arrive, not in 1 s blocks.
capture_start() {
  local ns=$1 ifc=$2 file=$3 precision=$4; shift 4
  bg "$ns" "$file.log" tcpdump --immediate-mode -Z root -n -U -i "$ifc" \
    --time-stamp-precision="$precision" -w "$file" "$@"
  CAP_PID=$BG_PID
  wait_log "$file.log" "listening on" 10
}

capture_stop() { stop_pid "$CAP_PID"; }

# trim RAW OUT FORMAT 'LABEL|FILTER|COUNT'...: writes the first COUNT packets
# matching each display FILTER, merged in time order, to OUT (FORMAT: pcap or
# nsecpcap). Fails if a kind has fewer packets than asked for.
trim() {
  local raw=$1 out=$2 format=$3; shift 3
  local parts=() spec label filter count got i=0
  for spec in "$@"; do
    IFS='|' read -r label filter count <<<"$spec"
    i=$((i + 1))
    # (tshark's -c counts packets read, not matched: cut with editcap.)
    tshark -n -r "$raw" -Y "$filter" -F "$format" -w "$WORK/all$i.pcap" 2>/dev/null
    editcap -F "$format" -r "$WORK/all$i.pcap" "$WORK/part$i.pcap" "1-$count"
    rm -f "$WORK/all$i.pcap"
    got=$(tshark -n -r "$WORK/part$i.pcap" 2>/dev/null | wc -l)
    [ "$got" -eq "$count" ] ||
      zg_die "$(basename "$out"): wanted $count $label ($filter), captured $got"
    parts+=("$WORK/part$i.pcap")
    printf '  %-44s %3d  %s\n' "$(basename "$out")" "$got" "$label"
  done
  mergecap -F "$format" -w "$out" "${parts[@]}"
  rm -f "${parts[@]}"
}

want() { [ "$ONLY" = "  " ] || [[ "$ONLY" == *" $1 "* ]]; }
any_wanted() {
  local n
  for n in "$@"; do want "$n" && return 0; done
  return 1
}

zg_log "namespaces ${PAIR}a ($IP_A, $IP6_A) <-> ${PAIR}b ($IP_B, $IP6_B)"
zg_pair_up "$PAIR" "$IP_A/24" "$IP_B/24" "$IP6_A/64" "$IP6_B/64"
A=$ZG_PAIR_NS_A B=$ZG_PAIR_NS_B IF_A=$ZG_PAIR_IF_A IF_B=$ZG_PAIR_IF_B

# wait_udp NS PORT: waits until something listens on UDP PORT in NS.
wait_udp() {
  local deadline=$((SECONDS + 10))
  until ip netns exec "$1" ss -Hlun "sport = :$2" | grep -q .; do
    [ "$SECONDS" -lt "$deadline" ] || zg_die "nothing listens on UDP $2 in $1"
    sleep 0.1
  done
}

# --- NTP: chronyd server in A; ntpdig and chronyd -Q clients in B ----------
chronyd_server_start() {
  cat >"$WORK/chronyd-server.conf" <<EOF
# Stratum 1 on its own clock (-x: chronyd never adjusts the host clock).
local stratum 1
allow all
pidfile $WORK/chronyd-server.pid
bindcmdaddress $WORK/chronyd-server.sock
cmdport 0
EOF
  bg "$A" "$WORK/chronyd-server.log" chronyd -x -d -u root -f "$WORK/chronyd-server.conf"
  CHRONYD_PID=$BG_PID
  wait_udp "$A" 123
}

# ntp_ntpdig V ADDR: two ntpdig queries (no -s/-S: report only).
ntp_ntpdig() {
  local v=$1 addr=$2 raw=$WORK/ntpdig$1.pcap i
  want "ntp_ntpdig_v$v" || return 0
  capture_start "$B" "$IF_B" "$raw" micro udp port 123
  for i in 1 2; do
    ip netns exec "$B" timeout 10 ntpdig -t 2 "$addr" >>"$WORK/ntpdig.log" 2>&1 ||
      { cat "$WORK/ntpdig.log" >&2; zg_die "ntpdig $addr failed"; }
  done
  capture_stop
  trim "$raw" "$OUT/ntp_ntpdig_v$v.pcap" pcap \
    "ntpdig requests (mode 3)|ntp.flags.mode == 3|2" \
    "chronyd replies (mode 4)|ntp.flags.mode == 4|2"
}

# ntp_chronyd_client NAME ADDR REQUESTS OPTIONS: chronyd -Q (measure only,
# never sets the clock) polling ADDR with "server ADDR iburst OPTIONS".
ntp_chronyd_client() {
  local name=$1 addr=$2 count=$3 options=$4 raw=$WORK/$1.raw.pcap
  want "$name" || return 0
  capture_start "$B" "$IF_B" "$raw" micro udp port 123
  ip netns exec "$B" timeout 40 chronyd -Q -t 30 -u root \
    "server $addr iburst $options" "pidfile $WORK/chronyd-client.pid" \
    >>"$WORK/chronyd-client.log" 2>&1 ||
    { cat "$WORK/chronyd-client.log" >&2; zg_die "chronyd -Q $addr failed"; }
  capture_stop
  trim "$raw" "$OUT/$name.pcap" pcap \
    "chronyd client requests (mode 3)|ntp.flags.mode == 3|$count" \
    "chronyd server replies (mode 4)|ntp.flags.mode == 4|$count"
}

NTP_FIXTURES="ntp_ntpdig_v4 ntp_ntpdig_v6 ntp_chronyd_client_v4
  ntp_chronyd_client_v6 ntp_chronyd_xleave_v4"
if any_wanted $NTP_FIXTURES; then
  zg_log "NTP: chronyd server in $A"
  chronyd_server_start
  ntp_ntpdig 4 "$IP_A"
  ntp_ntpdig 6 "$IP6_A"
  ntp_chronyd_client ntp_chronyd_client_v4 "$IP_A" 2 ""
  ntp_chronyd_client ntp_chronyd_client_v6 "$IP6_A" 2 ""
  # Interleaved mode: from the second request on, the origin timestamp is the
  # server's previous receive time and the reply carries the previous
  # transmit time.
  ntp_chronyd_client ntp_chronyd_xleave_v4 "$IP_A" 3 xleave
  stop_pid "$CHRONYD_PID"
fi

# --- PTP: ptp4l master in A, ptp4l slave (or pmc) in B ----------------------
# Message types (IEEE 1588-2019 table 36) for the trim filters.
SYNC='ptp.v2.messagetype == 0x0' DELAY_REQ='ptp.v2.messagetype == 0x1'
PDELAY_REQ='ptp.v2.messagetype == 0x2' PDELAY_RESP='ptp.v2.messagetype == 0x3'
FOLLOW_UP='ptp.v2.messagetype == 0x8' DELAY_RESP='ptp.v2.messagetype == 0x9'
PDELAY_FUP='ptp.v2.messagetype == 0xa' ANNOUNCE='ptp.v2.messagetype == 0xb'
SIGNALING='ptp.v2.messagetype == 0xc' MANAGEMENT='ptp.v2.messagetype == 0xd'

# ptp_configs EXTRA_MASTER EXTRA_SLAVE: master.cfg and slave.cfg in $WORK.
# free_running 1 on both: software timestamps on veth, the host clock is
# never adjusted. Fast intervals keep the captures short (the slave's own
# intervals are what it asks for in unicast negotiation).
ptp_configs() {
  cat >"$WORK/master.cfg" <<EOF
[global]
priority1 100
free_running 1
logAnnounceInterval 0
logSyncInterval -2
logMinDelayReqInterval -2
logMinPdelayReqInterval -2
tx_timestamp_timeout 100
uds_address $WORK/master.uds
$1
EOF
  cat >"$WORK/slave.cfg" <<EOF
[global]
slaveOnly 1
free_running 1
logAnnounceInterval 0
logSyncInterval -2
logMinDelayReqInterval -2
logMinPdelayReqInterval -2
tx_timestamp_timeout 100
uds_address $WORK/slave.uds
$2
EOF
}

# ptp_run NAME TRANSPORT DELAY_FLAG CAPTURE_FILTER KIND...: master in A,
# slave in B, capture in B until the slave has locked on and run 3 s.
ptp_run() {
  local name=$1 transport=$2 delay=$3 filter=$4; shift 4
  local raw=$WORK/$name.raw.pcap master slave
  capture_start "$B" "$IF_B" "$raw" nano $filter
  bg "$A" "$WORK/$name.master.log" ptp4l "$transport" $delay -S -m -i "$IF_A" -f "$WORK/master.cfg"
  master=$BG_PID
  bg "$B" "$WORK/$name.slave.log" ptp4l "$transport" $delay -S -m -i "$IF_B" -f "$WORK/slave.cfg"
  slave=$BG_PID
  wait_log "$WORK/$name.slave.log" "to UNCALIBRATED" 30
  sleep 3
  stop_pid "$slave"
  stop_pid "$master"
  capture_stop
  trim "$raw" "$OUT/$name.pcap" nsecpcap "$@"
}

E2E_KINDS=("Announce|$ANNOUNCE|2" "Sync|$SYNC|3" "Follow_Up|$FOLLOW_UP|3"
           "Delay_Req|$DELAY_REQ|3" "Delay_Resp|$DELAY_RESP|3")

if want ptp_e2e_udp4; then
  zg_log "PTP E2E over UDPv4"
  ptp_configs "" ""
  ptp_run ptp_e2e_udp4 -4 "" "udp port 319 or udp port 320" "${E2E_KINDS[@]}"
fi

if want ptp_e2e_l2; then
  zg_log "PTP E2E over IEEE 802.3"
  ptp_configs "" ""
  ptp_run ptp_e2e_l2 -2 "" "ether proto 0x88f7" "${E2E_KINDS[@]}"
fi

if want ptp_p2p_l2; then
  zg_log "PTP P2P (peer delay) over IEEE 802.3"
  ptp_configs "" ""
  ptp_run ptp_p2p_l2 -2 -P "ether proto 0x88f7" \
    "Announce|$ANNOUNCE|2" "Sync|$SYNC|3" "Follow_Up|$FOLLOW_UP|3" \
    "Pdelay_Req|$PDELAY_REQ|3" "Pdelay_Resp|$PDELAY_RESP|3" \
    "Pdelay_Resp_Follow_Up|$PDELAY_FUP|3"
fi

if want ptp_unicast_udp4; then
  zg_log "PTP unicast negotiation over UDPv4"
  # The slave asks the master (unicast_listen) for Announce, Sync and
  # Delay_Resp contracts with REQUEST_UNICAST_TRANSMISSION TLVs; the master
  # grants them (GRANT_UNICAST_TRANSMISSION) and sends unicast.
  ptp_configs "unicast_listen 1" "
[unicast_master_table]
table_id 1
logQueryInterval 0
UDPv4 $IP_A
[$IF_B]
unicast_master_table 1
unicast_req_duration 10"
  ptp_run ptp_unicast_udp4 -4 "" "udp port 319 or udp port 320" \
    "Signaling requests|$SIGNALING && ip.src == $IP_B|2" \
    "Signaling grants|$SIGNALING && ip.src == $IP_A|3" \
    "unicast Announce|$ANNOUNCE && ip.dst == $IP_B|2" \
    "unicast Sync|$SYNC && ip.dst == $IP_B|3" \
    "unicast Follow_Up|$FOLLOW_UP && ip.dst == $IP_B|3" \
    "unicast Delay_Req|$DELAY_REQ && ip.dst == $IP_A|3" \
    "unicast Delay_Resp|$DELAY_RESP && ip.dst == $IP_B|3"
fi

# ptp_management NAME TRANSPORT CAPTURE_FILTER: pmc in B asks the master in
# A (boundary hops 0). ptp4l refuses SET over the network: an error status.
ptp_management() {
  local name=$1 transport=$2 filter=$3 raw=$WORK/$1.raw.pcap master
  want "$name" || return 0
  zg_log "PTP management (pmc $transport)"
  ptp_configs "" ""
  capture_start "$B" "$IF_B" "$raw" nano $filter
  bg "$A" "$WORK/$name.master.log" ptp4l "$transport" -S -m -i "$IF_A" -f "$WORK/master.cfg"
  master=$BG_PID
  wait_log "$WORK/$name.master.log" "assuming the grand master role" 30
  ip netns exec "$B" timeout 20 pmc "$transport" -i "$IF_B" -b 0 \
    'GET DEFAULT_DATA_SET' 'GET CURRENT_DATA_SET' 'GET PARENT_DATA_SET' \
    'GET TIME_PROPERTIES_DATA_SET' 'GET PORT_DATA_SET' 'GET CLOCK_DESCRIPTION' \
    'GET PRIORITY1' 'GET DOMAIN' 'SET PRIORITY2 127' >"$WORK/$name.pmc.log" 2>&1 ||
    { cat "$WORK/$name.pmc.log" >&2; zg_die "pmc $transport failed"; }
  grep -q MANAGEMENT_ERROR_STATUS "$WORK/$name.pmc.log" ||
    { cat "$WORK/$name.pmc.log" >&2; zg_die "pmc: no error status for SET"; }
  stop_pid "$master"
  capture_stop
  trim "$raw" "$OUT/$name.pcap" nsecpcap \
    "GET requests|$MANAGEMENT && ptp.v2.mm.action == 0|8" \
    "SET request|$MANAGEMENT && ptp.v2.mm.action == 1|1" \
    "RESPONSEs|$MANAGEMENT && ptp.v2.mm.action == 2 && !ptp.v2.mm.managementErrorId|8" \
    "error status (SET refused)|ptp.v2.mm.managementErrorId|1"
}
ptp_management ptp_management_udp4 -4 "udp port 320"
ptp_management ptp_management_l2 -2 "ether proto 0x88f7"

zg_log "fixtures in $OUT"
ls -l "$OUT"/*.pcap
