#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: health-driven anycast through real BIRD 2 speakers, and drain.
#
#   client ns (ntpdig, chronyd) -- router ns (BIRD: the top-of-rack peer)
#                                   |-- s1 ns: zeitgeberd 1 + its BIRD
#                                   `-- s2 ns: zeitgeberd 2 + its BIRD
#
# Both zeitgeberds (AF_XDP with zg_xdp.o, each on its own veth) serve the
# same anycast address; each drives its own BIRD (doc/bird/zeitgeber-
# server.conf) over the control socket, and the router's BIRD (doc/bird/
# tor-peer.conf, with zeitgeberd 1 preferred so that every move is visible)
# installs the best path. chronyd (8 queries/s) and an ntpdig loop in the
# client namespace query the anycast address throughout; every phase counts
# the queries that went unanswered. Phases, each on zeitgeberd 1:
#   1 reference loss: a sim: source gone past the holdover spec withdraws
#     the route by itself (traffic to zeitgeberd 2); back, re-announced;
#   2 a worker stalled by the test hook withdraws; resumed, re-announced;
#   3 drain (--drain_file): the route moves within the measured withdrawal
#     time, zeitgeberd 1 answers through the grace, reaches DRAINED, and its
#     counters stop rising; undrain (file removed) brings it back;
#   3b `zgctl drain` the same way, its status JSON saying DRAINED and the
#     route withdrawn; `zgctl undrain` back; with the force-undrain file,
#     `zgctl drain` leaves it SERVING;
#   4 SIGTERM: withdrawn first, answering through the grace, exit 0.
# Goal: 0 unanswered in the drain and stop phases (the grace); the
# reference-loss and stall phases report theirs (a stalled worker answers
# nothing until the route is gone).
#   tests/e2e/anycast_test.sh ZEITGEBERD ZG_XDP_OBJ ZGCTL
# Needs root, bird2, chrony, ntpsec-ntpdate; exits 77 (skip) otherwise.
# Cleans up on any exit.
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2"); ZGCTL=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/scripts/netns.sh"
. "$ROOT/scripts/wait-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip ethtool ntpdig chronyd chronyc bird birdc curl; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done

P=zga$$
NR=${P}r NC=${P}c
ANY=10.71.9.1
WORK=$(mktemp -d /tmp/zg_anycast.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for ns in "$NC" "$NR" "${P}1" "${P}2"; do
    zg_ns_kill "$ns"
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$WORK"/zg*.log "$WORK"/bird*.log "$WORK"/chronyd.log; do
    [ -f "$f" ] && { echo "--- $(basename "$f")"; tail -30 "$f"; }
  done
  echo "--- router's routes"; ip -n "$NR" route
  exit 1
}

# ---- namespaces and links ------------------------------------------------
for ns in "$NR" "$NC" "${P}1" "${P}2"; do
  ip netns add "$ns" || fail "netns $ns"
  ip -n "$ns" link set lo up
done
ip netns exec "$NR" sysctl -qw net.ipv4.ip_forward=1
# link NS IF_IN_NS ADDR ROUTER_IF ROUTER_ADDR
link() {
  ip link add "$2" netns "$1" type veth peer name "$4" netns "$NR" || return 1
  ip -n "$1" addr add "$3" dev "$2" && ip -n "$NR" addr add "$5" dev "$4" &&
    ip -n "$1" link set "$2" up && ip -n "$NR" link set "$4" up || return 1
  # veth checksum offload hands AF_XDP partial checksums: off, both ends.
  ip netns exec "$1" ethtool -K "$2" tx off rx off >/dev/null 2>&1
  ip netns exec "$NR" ethtool -K "$4" tx off rx off gro on >/dev/null 2>&1
  return 0
}
link "$NC" "${P}c" 10.71.0.2/24 "${P}rc" 10.71.0.1/24 || fail "client link"
ip -n "$NC" route add default via 10.71.0.1
for i in 1 2; do
  link "${P}$i" "${P}s$i" "10.71.$i.2/24" "${P}r$i" "10.71.$i.1/24" ||
    fail "server $i link"
  # With zg_xdp.o the kernel keeps ARP and BGP: it holds both addresses.
  ip -n "${P}$i" addr add "$ANY/32" dev "${P}s$i"
done

# ---- BIRD: the shipped samples, with the rig's addresses -------------------
bird_conf() {  # bird_conf SAMPLE OUT SED-EXPR...
  local in=$1 out=$2; shift 2
  local args=()
  for e in "$@"; do args+=(-e "$e"); done
  sed -e "s|log syslog all;|log \"$WORK/$(basename "$out" .conf).log\" all;|" \
    -e "s|203\.0\.113\.123|$ANY|g" "${args[@]}" "$in" >"$out"
}
bird_conf "$ROOT/doc/bird/tor-peer.conf" "$WORK/bird_r.conf" \
  "s|router id 192.0.2.1;|router id 10.71.0.1;|" \
  "s|neighbor 192.0.2.11 as 65011;|neighbor 10.71.1.2 as 65011; default bgp_local_pref 200;|" \
  "s|neighbor 192.0.2.12 as 65012;|neighbor 10.71.2.2 as 65012;|"
for i in 1 2; do
  bird_conf "$ROOT/doc/bird/zeitgeber-server.conf" "$WORK/bird_$i.conf" \
    "s|192\.0\.2\.11|10.71.$i.2|g" "s|65011|6501$i|" \
    "s|neighbor 192.0.2.1 |neighbor 10.71.$i.1 |"
done
for n in r 1 2; do
  ns=${P}$n
  ip netns exec "$ns" bird -f -c "$WORK/bird_$n.conf" -s "$WORK/bird_$n.ctl" \
    -P "$WORK/bird_$n.pid" >"$WORK/bird_${n}_out.log" 2>&1 &
  PIDS+=($!)
  disown
done
via() {  # via: the router's next hop for the anycast address ("" if none)
  ip -n "$NR" route show "$ANY" | awk '{for (i = 1; i < NF; i++) if ($i == "via") print $(i + 1)}'
}
via_is() { [ "$(via)" = "$1" ]; }
no_route() { [ -z "$(via)" ]; }
ip -n "$NR" -ts monitor route >"$WORK/routes.log" 2>&1 &
PIDS+=($!)
disown

# ---- zeitgeberd ---------------------------------------------------------------
start_zg() {  # start_zg I [EXTRA FLAGS...]: pid in ZG_PID[I]
  local i=$1; shift
  ip netns exec "${P}$i" "$APP" --no-huge -m 512 --no-shconf --no-pci \
    --no-telemetry --file-prefix "${P}_$i" -l 0-1 --log-level=lib.eal:warning \
    --vdev="net_af_xdp0,iface=${P}s$i,xdp_prog=$OBJ" -- \
    --port=net_af_xdp0 --address="$ANY/32" \
    --metrics_address=127.0.0.1:9123 --require_system_clock_sync=false \
    --idle_sleep=50us --stats_interval=200ms \
    --bird_socket="$WORK/bird_$i.ctl" --bird_check_interval=200ms \
    --anycast_announce_after=1s --drain_grace=2s \
    --drain_file="$WORK/drain_$i" --force_undrain_file="$WORK/undrain_$i" \
    --worker_stall_limit=300ms --test_stall_file="$WORK/stall_$i" \
    --audit_log="$WORK/audit_$i.jsonl" --control_socket="$WORK/zg_$i.sock" \
    "$@" >"$WORK/zg$i.log" 2>&1 &
  ZG_PID[$i]=$!
  PIDS+=($!)
}
declare -A ZG_PID
metric() {  # metric I NAME [LABELS]: the sum from zeitgeberd I's exporter
  ip netns exec "${P}$1" curl -sf --max-time 2 http://127.0.0.1:9123/metrics \
    >"$WORK/m$1.txt" 2>/dev/null || { echo -1; return; }
  zg_metric "$WORK/m$1.txt" "$2" "${3:-}"
}
ntp_handled() { metric "$1" zeitgeber_frames_handled_total 'kind="ntp"'; }

# zeitgeberd 1: a simulated reference, up 22 s from its start, then gone
# for 6 s; a poor oscillator and a tight in-spec limit, so holdover leaves
# the spec within a few seconds (tests/e2e/reference_loss_test.cc).
start_zg 1 --source=sim:lab,up_for=22s,down_for=6s,uncertainty=1us \
  --source_timeout=2s --holdover_in_spec_limit=200us --freerun_limit=5ms \
  --oscillator=custom:floor_ppb=50000,aging_ppb_per_day=0,temperature_ppb_per_k=0,random_walk_ppb2_per_s=0,category=3
start_zg 2
for i in 1 2; do
  zg_wait_started "$WORK/zg$i.log" "zeitgeberd running" 30 "${ZG_PID[$i]}" ||
    fail "zeitgeberd $i did not start"
done
zg_phase "both running; waiting for the route via zeitgeberd 1"
zg_wait 20 "the route via zeitgeberd 1" via_is 10.71.1.2 ||
  fail "no route via zeitgeberd 1 (got '$(via)')"
zg_phase "route via 10.71.1.2"

# ---- the clients -------------------------------------------------------------
cat >"$WORK/chrony.conf" <<EOF
server $ANY minpoll -3 maxpoll -3 iburst
bindcmdaddress $WORK/chronyd.sock
cmdport 0
pidfile $WORK/chronyd.pid
driftfile $WORK/chrony.drift
EOF
ip netns exec "$NC" chronyd -d -x -u root -f "$WORK/chrony.conf" >"$WORK/chronyd.log" 2>&1 &
PIDS+=($!)
disown
chrony_counts() {  # prints "TX RX" of chronyd's source
  chronyc -h "$WORK/chronyd.sock" ntpdata "$ANY" 2>/dev/null |
    awk -F: '/Total TX/ {tx = $2 + 0} /Total RX/ {rx = $2 + 0} END {print tx + 0, rx + 0}'
}
(while :; do
  if ip netns exec "$NC" ntpdig -t 1 "$ANY" >/dev/null 2>&1; then r=ok; else r=FAIL; fi
  echo "$(date +%s.%N) $r"
  sleep 0.2
done) >"$WORK/ntpdig.log" 2>&1 &
PIDS+=($!)
disown
chrony_rx() { set -- $(chrony_counts); [ "${2:-0}" -ge 3 ]; }
zg_wait 20 "chronyd's first answers" chrony_rx || fail "chronyd got no answers"

# Phase accounting: ntpdig's failures and chronyd's unanswered polls between
# phase_begin and phase_end.
phase_begin() {
  PH_T0=$(date +%s.%N)
  read -r PH_TX PH_RX < <(chrony_counts)
}
phase_end() {  # phase_end NAME: prints, and records in $WORK/phases
  sleep 1.2  # chronyd's last poll and ntpdig's last run complete
  local t1 tx rx
  t1=$(date +%s.%N)
  read -r tx rx < <(chrony_counts)
  local nd_ok nd_fail
  read -r nd_ok nd_fail < <(awk -v a="$PH_T0" -v b="$t1" \
    '$1 >= a && $1 <= b {if ($2 == "ok") ok++; else bad++} END {print ok + 0, bad + 0}' \
    "$WORK/ntpdig.log")
  local lost=$(((tx - PH_TX) - (rx - PH_RX)))
  echo "$1: chronyd $((tx - PH_TX)) queries, $lost unanswered; ntpdig $((nd_ok + nd_fail)) runs, $nd_fail failed"
  echo "$1 $lost $nd_fail" >>"$WORK/phases"
}
# route_change_after T0 NEXTHOP: seconds from T0 to the router's first
# route to the anycast address via NEXTHOP (ip monitor's own timestamps).
route_change_after() {
  awk -v t0="$1" -v hop="$2" -v any="$ANY" '
    index($0, any " via " hop) || index($0, "nexthop via " hop) {
      ts = substr($1, 2, length($1) - 2)  # [2026-12-03T22:55:01.123456]
      cmd = "date -d \"" ts "\" +%s.%N"; cmd | getline s; close(cmd)
      if (s + 0 >= t0 + 0) { printf "%.3f\n", s - t0; exit }
    }' "$WORK/routes.log"
}

# ---- phase 1: reference loss past the holdover spec -----------------------
phase_begin
zg_phase "phase 1: waiting for zeitgeberd 1's reference to go (up_for=22s)"
zg_wait 30 "the route via zeitgeberd 2 (withdrawn on reference loss)" \
  via_is 10.71.2.2 || fail "route not withdrawn on reference loss (via '$(via)')"
grep -E "anycast: withdrawing the route \(unhealthy: reference not within" "$WORK/zg1.log" ||
  fail "zeitgeberd 1 did not log the withdrawal for its reference"
zg_phase "withdrawn; waiting for the reference's return and re-announcement"
zg_wait 40 "the route via zeitgeberd 1 again" via_is 10.71.1.2 ||
  fail "not re-announced after the reference came back (via '$(via)')"
grep -E "anycast: announcing the route \(healthy for" "$WORK/zg1.log" | tail -1
phase_end reference_loss

# ---- phase 2: a stalled worker ------------------------------------------
phase_begin
zg_phase "phase 2: stalling zeitgeberd 1's worker 0"
echo 0 >"$WORK/stall_1"
zg_wait 10 "the route via zeitgeberd 2 (stalled worker)" via_is 10.71.2.2 ||
  fail "route not withdrawn for the stalled worker"
grep -E "withdrawing the route \(unhealthy: worker\(s\) 0 stalled" "$WORK/zg1.log" ||
  fail "zeitgeberd 1 did not say the stalled worker withdrew the route"
rm -f "$WORK/stall_1"
zg_wait 10 "the route via zeitgeberd 1 again" via_is 10.71.1.2 ||
  fail "not re-announced after the worker resumed"
phase_end worker_stall

# ---- phase 3: drain and undrain -----------------------------------------
phase_begin
zg_phase "phase 3: drain zeitgeberd 1 (drain file)"
t0=$(date +%s.%N)
touch "$WORK/drain_1"
zg_wait 10 "the route via zeitgeberd 2 (drained)" via_is 10.71.2.2 ||
  fail "route not withdrawn on drain"
zg_wait_log "$WORK/zg1.log" "drain: DRAINING -> DRAINED" 10 ||
  fail "zeitgeberd 1 never DRAINED"
withdraw_s=$(route_change_after "$t0" 10.71.2.2)
echo "withdrawal time (drain file to the router's new route): ${withdraw_s:-?} s"
[ "$(metric 1 zeitgeber_drain_state)" = 2 ] || fail "zeitgeber_drain_state is not 2 (DRAINED)"
a=$(ntp_handled 1); b2=$(ntp_handled 2)
sleep 1.5
a2=$(ntp_handled 1); b3=$(ntp_handled 2)
echo "drained zeitgeberd 1's NTP requests: $a then $a2 (1.5 s); zeitgeberd 2: $b2 then $b3"
[ "$a" = "$a2" ] || fail "the drained zeitgeberd 1 still gets queries ($a -> $a2)"
awk -v x="$b2" -v y="$b3" 'BEGIN { exit !(y > x) }' || fail "zeitgeberd 2 does not answer"
rm -f "$WORK/drain_1"
zg_wait 10 "the route via zeitgeberd 1 (undrained)" via_is 10.71.1.2 ||
  fail "not re-announced on undrain"
zg_wait_log "$WORK/zg1.log" "drain: DRAINED -> SERVING" 5 || fail "no DRAINED -> SERVING"
phase_end drain

# ---- phase 3b: zgctl drain and undrain -----------------------------------
zgctl1() { "$ZGCTL" --socket="$WORK/zg_1.sock" "$@"; }
drain_json() {  # drain_json: "STATE ROUTE" from zgctl status --json
  zgctl1 --json status 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["drain"]["state"], (d.get("anycast") or {}).get("route", "none"))'
}
drained_withdrawn() { [ "$(drain_json)" = "DRAINED withdrawn" ]; }
phase_begin
zg_phase "phase 3b: zgctl drain zeitgeberd 1"
t0=$(date +%s.%N)
zgctl1 drain | grep -E "Drain state +: DRAINING" || fail "zgctl drain did not answer DRAINING"
zg_wait 10 "the route via zeitgeberd 2 (zgctl drain)" via_is 10.71.2.2 ||
  fail "route not withdrawn on zgctl drain"
echo "withdrawal time (zgctl drain to the router's new route): $(route_change_after "$t0" 10.71.2.2) s"
zg_wait 10 "zgctl status: DRAINED, route withdrawn" drained_withdrawn ||
  fail "zgctl status says '$(drain_json)', not 'DRAINED withdrawn'"
zgctl1 status | grep -E "Drain reason +: zgctl drain" || fail "zgctl status gives no drain reason"
a=$(ntp_handled 1); sleep 1; a2=$(ntp_handled 1)
[ "$a" = "$a2" ] || fail "zeitgeberd 1 still gets queries after zgctl drain ($a -> $a2)"
zgctl1 undrain | grep -E "Drain state +: SERVING" || fail "zgctl undrain did not answer SERVING"
zg_wait 10 "the route via zeitgeberd 1 (zgctl undrain)" via_is 10.71.1.2 ||
  fail "not re-announced on zgctl undrain"
phase_end zgctl_drain
touch "$WORK/undrain_1"
sleep 0.6  # the files are read every 0.5 s
zgctl1 drain | grep -E "Drain state +: SERVING" || fail "zgctl drain drained despite the force-undrain file"
zgctl1 undrain >/dev/null
rm -f "$WORK/undrain_1"
grep -q '"reason":"zgctl drain"' "$WORK/audit_1.jsonl" ||
  fail "no audit record of zgctl drain"
for st in DRAINING DRAINED SERVING; do
  grep -q "\"drain_state\":\"$st\"" "$WORK/audit_1.jsonl" ||
    fail "no audit record of drain_state $st"
done
grep -q '"anycast":"withdraw"' "$WORK/audit_1.jsonl" || fail "no audit record of the withdrawal"

# ---- phase 4: SIGTERM: withdraw, answer through the grace, exit -------------
phase_begin
zg_phase "phase 4: SIGTERM to zeitgeberd 1"
t0=$(date +%s.%N)
kill -TERM "${ZG_PID[1]}"
zg_wait 10 "the route via zeitgeberd 2 (stopping)" via_is 10.71.2.2 ||
  fail "route not withdrawn on SIGTERM"
zg_wait 15 "zeitgeberd 1 to exit" zg__gone "${ZG_PID[1]}" || fail "zeitgeberd 1 did not exit"
wait "${ZG_PID[1]}"; rc=$?
[ "$rc" -eq 0 ] || fail "zeitgeberd 1 exited $rc"
stop_s=$(awk -v t0="$t0" 'BEGIN { "date +%s.%N" | getline t; printf "%.2f", t - t0 }')
grep -E "withdrawing the anycast route, answering for --drain_grace" "$WORK/zg1.log" ||
  fail "zeitgeberd 1 did not withdraw before stopping"
grep -E "drained, stopping" "$WORK/zg1.log" || fail "zeitgeberd 1 did not wait for DRAINED"
echo "SIGTERM to exit: ${stop_s} s (grace 2s); withdrawal: $(route_change_after "$t0" 10.71.2.2) s"
phase_end stop

# ---- verdict -------------------------------------------------------------------
echo "--- unanswered per phase (chronyd, ntpdig):"
cat "$WORK/phases"
while read -r name lost nd; do
  case $name in
    drain | zgctl_drain | stop)
      # Below 0: an answer to the previous phase's last poll came in this one.
      [ "$lost" -le 0 ] && [ "$nd" -eq 0 ] ||
        fail "$name: $lost chronyd and $nd ntpdig queries unanswered (goal 0 with the grace)" ;;
  esac
done <"$WORK/phases"
zg_stop "${ZG_PID[2]}" 10
[ "$ZG_STOP_RC" -eq 0 ] || fail "zeitgeberd 2 exited $ZG_STOP_RC"
echo "PASS"
