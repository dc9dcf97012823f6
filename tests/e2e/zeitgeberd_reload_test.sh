#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: reload without restart (SIGHUP) on a veth pair, under load.
#   tests/e2e/zeitgeberd_reload_test.sh ZEITGEBERD ZG_XDP_OBJ ZG_LOADGEN
#   namespace <rig>a: zeitgeberd on AF_XDP with zeitgeber's XDP program,
#     serving 10.96.0.1 (the kernel keeps the address for ARP)
#   namespace <rig>b: zg-loadgen on AF_XDP, clients 10.96.0.100-149
# Proves:
#  - 10 reloads (each a valid change of the NTP access list in the
#    flagfile) during a zg-loadgen run at a fixed rate lose nothing: every
#    request sent is answered, zeitgeberd answered every frame it received,
#    and every reload is counted ok (metrics and audit log);
#  - a broken reload (an invalid prefix in the flagfile) is rejected with
#    its error in the log, the audit log and the metrics, and service goes
#    on as it was;
#  - a valid reload that changes behaviour takes effect: denying the
#    clients' prefix silences them (and --ntp_deny_action=kod gets them KoD
#    DENY), a stricter --ntp_ratelimit limits them (KoD RATE), allowing
#    them again brings the answers back; a flag that
#    cannot change at runtime is reported "needs restart" and not applied;
#  - zeitgeberd's final counters match zg-loadgen's (received = sent,
#    transmitted = answers + KoDs, the rest counted as access denied);
#  - SIGTERM still stops the daemon with exit code 0.
# Needs root (netns, XDP); exits 77 (skip) otherwise. Cleans up on any exit.
# Bounded by ZG_TEST_TIMEOUT_S (every wait) and --run_for (the daemon).
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2"); LG=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/netns.sh"
. "$HERE/../../scripts/wait-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip curl; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
PY=/usr/bin/python3
RIG=zgrl$$
SRV=10.96.0.1
RATE=${ZG_RELOAD_RATE:-2000}  # requests/s: far below this rig's no-drop rate
WORK=$(mktemp -d /tmp/zg_reload.XXXXXX)
FLAGS=$WORK/zeitgeberd.flags
APP_PID= LG_PID=
cleanup() {
  [ -n "$LG_PID" ] && kill -KILL "$LG_PID" 2>/dev/null
  [ -n "$APP_PID" ] && kill -KILL "$APP_PID" 2>/dev/null
  zg_pair_down "$RIG"
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- daemon log"; tail -n 40 "$WORK/app.log"
  for f in "$WORK"/lg_*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 5 "$f"; }; done
  exit 1
}

zg_pair_up "$RIG" "$SRV/24" 10.96.0.2/24 || fail "veth pair setup"
SRV_NS=$ZG_PAIR_NS_A GEN_NS=$ZG_PAIR_NS_B
# XDP on veth: GRO on the peer lets redirected frames through.
ip netns exec "$SRV_NS" ethtool -K "$ZG_PAIR_IF_A" gro on >/dev/null 2>&1 || true
ip netns exec "$GEN_NS" ethtool -K "$ZG_PAIR_IF_B" gro on >/dev/null 2>&1 || true
EAL=(--no-huge -m 512 --no-shconf --no-pci --no-telemetry
     --log-level=lib.eal:warning)

# write_flags LINE...: the flagfile zeitgeberd re-reads on SIGHUP, with the
# rate limit $RL (lenient: 1024 replies/s per client, far above the 40/s
# each client sends here).
LENIENT="--ntp_ratelimit=interval=-10,burst=255,leak=4"
RL=$LENIENT
write_flags() {
  printf '%s\n' "--address=$SRV/24" "$RL" "$@" >"$FLAGS.tmp" &&
    mv "$FLAGS.tmp" "$FLAGS"
}
write_flags --ntp_deny=192.0.2.0/24
ip netns exec "$SRV_NS" "$APP" "${EAL[@]}" --file-prefix "zgrl$$s" -l 0-1 \
  --vdev="net_af_xdp0,iface=$ZG_PAIR_IF_A,xdp_prog=$OBJ" -- \
  --port=net_af_xdp0 --flagfile="$FLAGS" --metrics_address=127.0.0.1:0 --status_address= --control_socket= \
  --stats_interval=100ms --audit_log="$WORK/audit.jsonl" \
  --require_system_clock_sync=false --run_for="$(zg_left 80)s" \
  >"$WORK/app.log" 2>&1 &
APP_PID=$!
started() {
  grep -qs "zeitgeberd running" "$WORK/app.log" && return 0
  kill -0 "$APP_PID" 2>/dev/null || fail "daemon exited during start-up"
  return 1
}
zg_wait 20 "zeitgeberd running" started || fail "daemon not running"
PORT=$(sed -n 's/.*metrics on .*(port \([0-9]*\)).*/\1/p' "$WORK/app.log")
for f in ntp_allow ntp_deny ntp_deny_action ntp_ratelimit ntp_ratelimit_kod; do
  grep "reload: SIGHUP reloads " "$WORK/app.log" | grep -q -- "--$f\(,\|\$\)" ||
    fail "--$f is not among the reloadable flags logged at start"
done
zg_phase "zeitgeberd running, metrics on port $PORT"

# loadgen NAME FLAGS...: zg-loadgen in the client namespace, in the
# background (LG_PID); its JSON summary in $WORK/lg_NAME.json.
loadgen() {
  local name=$1; shift
  ip netns exec "$GEN_NS" "$LG" "${EAL[@]}" --file-prefix "zgrl$$g" -l 0-1 \
    --main-lcore 1 --vdev="net_af_xdp0,iface=$ZG_PAIR_IF_B" -- \
    --port=net_af_xdp0 --target="$SRV" --clients=50 \
    --source_ip=10.96.0.100 --source_addresses=50 --timeout=1s \
    --progress=false --json="$WORK/lg_$name.json" "$@" \
    >"$WORK/lg_$name.txt" 2>"$WORK/lg_$name.log" &
  LG_PID=$!
}
# loadgen_wait: until the background zg-loadgen exits (status in LG_RC).
loadgen_wait() {
  lg_done() { ! kill -0 "$LG_PID" 2>/dev/null; }
  zg_wait "$1" "zg-loadgen to finish" lg_done || fail "zg-loadgen still running"
  wait "$LG_PID"; LG_RC=$?; LG_PID=
}
# count NAME KEY: a count from zg-loadgen's JSON summary.
count() {
  "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"][sys.argv[2]])' \
    "$WORK/lg_$1.json" "$2"
}
# reload: SIGHUP, then until the log has one more reload outcome line.
reload() {
  local before
  before=$(grep -cE " reload: ok| reload rejected" "$WORK/app.log")
  kill -HUP "$APP_PID"
  more() { [ "$(grep -cE " reload: ok| reload rejected" "$WORK/app.log")" -gt "$before" ]; }
  zg_wait 5 "the reload's outcome in the log" more || fail "no reload outcome"
}
metric() {  # metric NAME LABELS: from a fresh scrape (the server's netns)
  ip netns exec "$SRV_NS" curl -s "127.0.0.1:$PORT/metrics" >"$WORK/metrics.txt"
  zg_metric "$WORK/metrics.txt" "$1" "${2:-}"
}

# 1. Ten valid reloads during a fixed-rate run lose nothing.
loadgen steady --rate="$RATE" --duration=10s
# Reloads land mid-run: once requests arrive (after zg-loadgen's EAL and ARP).
arriving() { [ "$(metric zeitgeber_rx_packets_total)" != 0 ]; }
zg_wait 10 "zg-loadgen's requests at zeitgeberd" arriving || fail "no requests arrive"
for i in $(seq 1 10); do
  if [ $((i % 2)) -eq 1 ]; then
    write_flags --ntp_deny=198.51.100.0/24
  else
    write_flags --ntp_deny=192.0.2.0/24
  fi
  reload
  sleep 0.5  # spreads the 10 reloads over the run
done
zg_phase "10 reloads sent"
loadgen_wait 30
[ "$LG_RC" -eq 0 ] || fail "zg-loadgen exit $LG_RC"
sent=$(count steady sent) answered=$(count steady answered)
echo "steady run: sent $sent answered $answered (lost $(count steady lost), late $(count steady late))"
[ "$sent" -ge $((RATE * 8)) ] || fail "zg-loadgen sent only $sent"
[ "$answered" -eq "$sent" ] || fail "answered $answered of $sent during the reloads"
ok=$(metric zeitgeber_config_reloads_total 'outcome="ok"')
[ "$ok" -eq 10 ] || fail "reloads ok: $ok, want 10"
[ "$(grep -c '"reason":"reload (SIGHUP)","outcome":"ok"' "$WORK/audit.jsonl")" -eq 10 ] ||
  fail "audit log: want 10 ok reload records"
grep -q "ntp_deny: 192.0.2.0/24 -> 198.51.100.0/24" "$WORK/audit.jsonl" ||
  fail "audit log: what changed"

# 2. A broken reload is rejected and service goes on as it was.
write_flags --ntp_deny=10.96.0.300/24
reload
grep -q "reload rejected, the old configuration stays: --ntp_deny" "$WORK/app.log" ||
  fail "rejection not logged"
grep -q '"outcome":"rejected","error":"--ntp_deny' "$WORK/audit.jsonl" ||
  fail "rejection not audited"
[ "$(metric zeitgeber_config_reloads_total 'outcome="rejected"')" -eq 1 ] ||
  fail "rejected reload not counted"
[ "$(metric zeitgeber_config_last_reload_successful)" -eq 0 ] ||
  fail "last_reload_successful should be 0"
loadgen after_broken --rate="$RATE" --count=1000 --duration=3s
loadgen_wait 20
[ "$(count after_broken answered)" -eq 1000 ] ||
  fail "after the broken reload: answered $(count after_broken answered) of 1000"
zg_phase "broken reload rejected, service unchanged"

# 3. A valid reload that changes behaviour takes effect, and back.
write_flags --ntp_deny=10.96.0.0/24
reload
loadgen denied --rate="$RATE" --count=500 --duration=3s
loadgen_wait 20
[ "$(count denied answered)" -eq 0 ] ||
  fail "denied prefix still answered: $(count denied answered)"
write_flags --ntp_deny=10.96.0.0/24 --ntp_deny_action=kod
reload
loadgen kod --rate="$RATE" --count=500 --duration=3s
loadgen_wait 20
[ "$(count kod kod)" -gt 0 ] || fail "no KoD DENY for the denied prefix"
deny_kod=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["kod_codes"].get("DENY", 0))' "$WORK/lg_kod.json")
[ "$deny_kod" -eq "$(count kod kod)" ] || fail "KoD codes other than DENY"
[ "$(count kod answered)" -eq 0 ] || fail "denied prefix answered with time"
# Without --ntp_ratelimit every denied request gets its KoD DENY (with it,
# the client's rate bucket limits them: tests/e2e/ntp_rate_limit_test.cc).
[ "$deny_kod" -eq 500 ] || fail "KoD DENY: $deny_kod of 500"
echo "KoD DENY: $deny_kod of 500 requests"
# A stricter rate limit (one reply per 16 s per client after a burst of 1,
# KoD RATE for the excess) takes effect at once, and back.
RL="--ntp_ratelimit=interval=4,burst=1,leak=4"
write_flags --ntp_deny=192.0.2.0/24 --ntp_ratelimit_kod=true
reload
loadgen limited --rate="$RATE" --count=1000 --duration=3s
loadgen_wait 20
rate_kod=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["kod_codes"].get("RATE", 0))' "$WORK/lg_limited.json")
echo "strict rate limit: answered $(count limited answered), KoD RATE $rate_kod of 1000"
# (Clients keep the credit the lenient limit gave them, so some more than
# one reply each get through before the strict bucket runs dry.)
[ "$(count limited answered)" -le 800 ] || fail "the stricter rate limit did not apply"
[ "$rate_kod" -gt 0 ] || fail "no KoD RATE under the stricter rate limit"
RL=$LENIENT
# Allowed again, with a flag that cannot change at runtime: warned, not applied.
write_flags --ntp_deny=192.0.2.0/24 --rx_desc=512
reload
grep -q "reload: rx_desc: (default) -> 512: needs restart, not applied" "$WORK/app.log" ||
  fail "no needs-restart warning for --rx_desc"
loadgen allowed --rate="$RATE" --count=1000 --duration=3s
loadgen_wait 20
[ "$(count allowed answered)" -eq 1000 ] ||
  fail "allowed again: answered $(count allowed answered) of 1000"
zg_phase "deny, KoD DENY and allow again took effect"

zg_stop "$APP_PID" 10; rc=$ZG_STOP_RC; APP_PID=
[ "$rc" -eq 0 ] || fail "exit code $rc after SIGTERM"
grep -E " I final (counters|dropped)" "$WORK/app.log"
# zeitgeberd's own counters against zg-loadgen's: it received every request
# sent, and sent exactly the answers and KoDs the clients got.
sent_all=0 got_all=0
for run in steady after_broken denied kod limited allowed; do
  sent_all=$((sent_all + $(count $run sent)))
  got_all=$((got_all + $(count $run answered) + $(count $run kod)))
done
grep -q "final counters: rx_packets=$sent_all .*tx_packets=$got_all tx_bytes=[0-9]* tx_dropped=0 " \
  "$WORK/app.log" || fail "final counters: want rx_packets=$sent_all tx_packets=$got_all"
denied=$(( $(count denied sent) + $(count kod sent) - $(count kod kod) ))
limited=$(( $(count limited sent) - $(count limited answered) - $(count limited kod) ))
grep -q "final dropped: ntp_rate_limited=$limited ntp_acl_denied=$denied\$" "$WORK/app.log" ||
  fail "final dropped: want ntp_rate_limited=$limited ntp_acl_denied=$denied only"
echo "PASS"
