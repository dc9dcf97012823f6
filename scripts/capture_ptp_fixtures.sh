#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Captures real linuxptp traffic as test fixtures for core/ptp_* (PTP wire
# format, TLVs, management): ptp4l (software timestamps) on a veth pair
# between two network namespaces this script creates, pmc querying it, and
# tcpdump writing one small pcap per scenario into tests/data/ptp/:
#   ptp4l_e2e.pcap      UDPv4 multicast E2E: Announce (with PATH_TRACE),
#                       Sync, Follow_Up, Delay_Req, Delay_Resp
#   ptp4l_p2p.pcap      UDPv4 P2P: Pdelay_Req, Pdelay_Resp,
#                       Pdelay_Resp_Follow_Up
#   ptp4l_l2_gptp.pcap  IEEE 802.3 (Ethertype 0x88F7), P2P, transportSpecific
#                       (majorSdoId) 1
#   ptp4l_unicast.pcap  unicast negotiation: Signaling with REQUEST_ and
#                       GRANT_UNICAST_TRANSMISSION (ptp4l 3.1 sends no
#                       CANCEL when stopped), unicast messages
#   pmc.pcap            pmc GET of the data sets (padded and -z empty) and
#                       ptp4l's RESPONSE / MANAGEMENT_ERROR_STATUS answers
#
#   sudo scripts/capture_ptp_fixtures.sh [OUT_DIR]   (default tests/data/ptp)
#
# Needs root, linuxptp and tcpdump. Names include the PID; everything is
# removed on exit, also on failure. Takes about a minute.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
zg_need_root "capture_ptp_fixtures.sh"
out=$(realpath -m "${1:-$ZG_ROOT/tests/data/ptp}")
mkdir -p "$out"

ns_m="zgpm$$"  # master side
ns_s="zgps$$"  # slave side
if_m="zgpm$$"
if_s="zgps$$"
work=$(mktemp -d)
pids=()

cleanup() {
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  ip netns del "$ns_m" 2>/dev/null
  ip netns del "$ns_s" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns_m"
ip netns add "$ns_s"
ip link add "$if_m" netns "$ns_m" type veth peer name "$if_s" netns "$ns_s"
ip -n "$ns_m" addr add 10.77.0.1/24 dev "$if_m"
ip -n "$ns_s" addr add 10.77.0.2/24 dev "$if_s"
for n in "$ns_m" "$ns_s"; do ip -n "$n" link set lo up; done
ip -n "$ns_m" link set "$if_m" up
ip -n "$ns_s" link set "$if_s" up
# Multicast PTP (224.0.1.129, 224.0.0.107) leaves through the veth.
ip -n "$ns_m" route add 224.0.0.0/4 dev "$if_m"
ip -n "$ns_s" route add 224.0.0.0/4 dev "$if_s"

start() {  # start NS LOGNAME CMD...: background process, remembered
  local ns=$1 log=$2; shift 2
  ip netns exec "$ns" "$@" >"$work/$log.log" 2>&1 &
  pids+=($!)
}
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
capture() {  # capture NAME FILTER: tcpdump on the master side
  start "$ns_m" "tcpdump-$1" tcpdump -i "$if_m" -U -s 256 -w "$out/$1.pcap" "$2"
  sleep 1
}

zg_log "E2E over UDPv4 (path trace on)"
capture ptp4l_e2e "udp port 319 or udp port 320"
start "$ns_m" master ptp4l -S -4 -E -i "$if_m" -m -q --priority1=1 \
  --path_trace_enabled=1 --logAnnounceInterval=0
start "$ns_s" slave ptp4l -S -4 -E -s -i "$if_s" -m -q --path_trace_enabled=1
sleep 12
stop_all

zg_log "P2P over UDPv4"
capture ptp4l_p2p "udp port 319 or udp port 320"
start "$ns_m" master ptp4l -S -4 -P -i "$if_m" -m -q --priority1=1
start "$ns_s" slave ptp4l -S -4 -P -s -i "$if_s" -m -q
sleep 6
stop_all

zg_log "P2P over IEEE 802.3, transportSpecific 1"
capture ptp4l_l2_gptp "ether proto 0x88f7"
start "$ns_m" master ptp4l -S -2 -P -i "$if_m" -m -q --priority1=1 \
  --transportSpecific=1
start "$ns_s" slave ptp4l -S -2 -P -s -i "$if_s" -m -q --transportSpecific=1
sleep 6
stop_all

zg_log "unicast negotiation"
cat >"$work/client.cfg" <<EOF
[unicast_master_table]
table_id 1
logQueryInterval 0
UDPv4 10.77.0.1
[$if_s]
unicast_master_table 1
unicast_req_duration 10
EOF
capture ptp4l_unicast "udp port 319 or udp port 320"
start "$ns_m" master ptp4l -S -4 -E -i "$if_m" -m -q --priority1=1 \
  --unicast_listen=1
sleep 1
start "$ns_s" slave ptp4l -S -4 -E -s -m -q -f "$work/client.cfg"
sleep 14
# Stop the client first: it cancels its grants on the way out.
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'
sleep 1
stop_all

zg_log "pmc management"
capture pmc "udp port 320"
start "$ns_m" master ptp4l -S -4 -E -i "$if_m" -m -q --priority1=1
sleep 8  # past LISTENING: announce receipt timeout, then MASTER
# pmc binds the PTP ports in the slave namespace, where nothing else runs.
for z in "" "-z"; do
  ip netns exec "$ns_s" pmc -4 -i "$if_s" -b 1 $z \
    'GET DEFAULT_DATA_SET' 'GET CURRENT_DATA_SET' 'GET PARENT_DATA_SET' \
    'GET TIME_PROPERTIES_DATA_SET' 'GET PORT_DATA_SET' \
    'GET NULL_MANAGEMENT' 'GET PRIORITY1' 'SET PRIORITY1 1' \
    >"$work/pmc$z.log" 2>&1 || true
done
sleep 1
stop_all
cat "$work/pmc.log"

for f in ptp4l_e2e ptp4l_p2p ptp4l_l2_gptp ptp4l_unicast pmc; do
  printf '%-16s %s packets\n' "$f" "$(tcpdump -r "$out/$f.pcap" 2>/dev/null | wc -l)"
done
