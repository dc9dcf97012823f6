#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: the status page of a running zeitgeberd on the veth rig, in Debian's
# headless Chromium, over HTTPS with a test CA.
#   tests/e2e/status_page_test.sh ZEITGEBERD ZG_XDP_OBJ
#   namespace <rig>a: zeitgeberd on AF_XDP serving 10.97.0.1 (NTP) with its
#     status page on https://10.97.0.1:9443 (--status_users), gpsd fed by
#     gpsfake with GPS and BeiDou satellites (GSV), Chromium
#   namespace <rig>b: ntpdig (NTP clients, so Traffic and Clients have
#     rows) and curl (HTTPS from another host)
# Proves:
#  - Chromium loads every view (Clock, Sources, GNSS, Traffic, Clients,
#    Audit log, Alarms) with no console error; the clock plots have points;
#    the GNSS view lists the BeiDou satellites with their C/N0; PNGs of
#    every view are saved (ZG_SCREENSHOT_DIR, else the work directory);
#  - curl with the test CA reaches the page over HTTPS from the other
#    namespace, and the JSON endpoints answer what zgctl --json answers
#    (the control socket's reply to the same command);
#  - the audit download equals the file on disk byte for byte;
#  - wrong passwords from the other namespace are throttled (429) and
#    audited (access_denied);
#  - plain HTTP away from loopback is refused at start with a clear error.
# Needs root (netns, XDP, gpsfake); exits 77 (skip) otherwise. Cleans up on
# any exit. Bounded by ZG_TEST_TIMEOUT_S and --run_for.
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2"); ZGCTL=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/netns.sh"
. "$HERE/../../scripts/wait-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip curl openssl gpsfake chromium ntpdig htpasswd cmp; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
PY=/usr/bin/python3
"$PY" -c 'import websocket' 2>/dev/null || { echo "SKIP: python3-websocket missing"; exit 77; }
RIG=zgsp$$
SRV=10.97.0.1 CLI=10.97.0.2
HTTPS_PORT=9443
GPSD_PORT=29470
WORK=$(mktemp -d /tmp/zg_page.XXXXXX)
SHOTS=${ZG_SCREENSHOT_DIR:-$WORK/screenshots}
APP_PID= GPS_PID=
cleanup() {
  [ -n "$GPS_PID" ] && kill -KILL "$GPS_PID" 2>/dev/null
  [ -n "$APP_PID" ] && kill -KILL "$APP_PID" 2>/dev/null
  zg_pair_down "$RIG"
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- daemon log"; tail -n 40 "$WORK/app.log"
  exit 1
}

zg_pair_up "$RIG" "$SRV/24" "$CLI/24" || fail "veth pair setup"
SRV_NS=$ZG_PAIR_NS_A CLI_NS=$ZG_PAIR_NS_B
ip netns exec "$SRV_NS" ethtool -K "$ZG_PAIR_IF_A" gro on >/dev/null 2>&1 || true
ip netns exec "$CLI_NS" ethtool -K "$ZG_PAIR_IF_B" gro on >/dev/null 2>&1 || true
EAL=(--no-huge -m 512 --no-shconf --no-pci --no-telemetry
     --log-level=lib.eal:warning)

# The test CA and the page's certificate for 10.97.0.1; a user (bcrypt).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$WORK/ca.key" -out "$WORK/ca.pem" -days 2 -subj "/CN=zg test CA" \
  2>/dev/null || fail "test CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$WORK/page.key" -out "$WORK/page.csr" -subj "/CN=$SRV" 2>/dev/null &&
  echo "subjectAltName=IP:$SRV" >"$WORK/ext" &&
  openssl x509 -req -in "$WORK/page.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" \
    -CAcreateserial -days 2 -extfile "$WORK/ext" -out "$WORK/page.pem" 2>/dev/null ||
  fail "page certificate"
chmod 600 "$WORK/page.key"
SPKI=$(openssl x509 -in "$WORK/page.pem" -pubkey -noout |
       openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
htpasswd -cbB -C 5 "$WORK/users" ops 'correct horse' 2>/dev/null || fail "htpasswd"
chmod 600 "$WORK/users"

# Plain HTTP away from loopback: refused at start, before serving anything.
ip netns exec "$SRV_NS" "$APP" "${EAL[@]}" --file-prefix "zgsp$$x" -l 0-1 \
  --vdev="net_af_xdp0,iface=$ZG_PAIR_IF_A,xdp_prog=$OBJ" -- \
  --port=net_af_xdp0 --address="$SRV/24" --metrics_address= \
  --control_socket= --status_address="$SRV:8080" \
  --require_system_clock_sync=false --run_for=20s >"$WORK/refused.log" 2>&1
RC=$?
[ "$RC" -ne 0 ] || fail "plain HTTP on $SRV:8080 was not refused"
grep -q "HTTPS only" "$WORK/refused.log" || {
  cat "$WORK/refused.log"; fail "no clear error for plain HTTP away from loopback"; }
zg_phase "plain HTTP on $SRV refused at start (exit $RC)"

# A receiver that looks live: epochs from now on, about one a second.
"$PY" "$HERE/../data/make_gps_beidou_nmea.py" --start="$(date +%s)" \
  --epochs=600 >"$WORK/gnss.nmea"
ip netns exec "$SRV_NS" gpsfake -P "$GPSD_PORT" -q -c 0.12 "$WORK/gnss.nmea" \
  >"$WORK/gpsfake.log" 2>&1 &
GPS_PID=$!

ip netns exec "$SRV_NS" "$APP" "${EAL[@]}" --file-prefix "zgsp$$s" -l 0-1 \
  --vdev="net_af_xdp0,iface=$ZG_PAIR_IF_A,xdp_prog=$OBJ" -- \
  --port=net_af_xdp0 --address="$SRV/24" --ptp --metrics_address=127.0.0.1:0 \
  --control_socket="$WORK/zg.sock" \
  --source=system --source="gpsd:127.0.0.1:$GPSD_PORT,priority=9,reconnect_max=250ms" \
  --require_system_clock_sync=false --stats_interval=200ms \
  --audit_log="$WORK/audit.jsonl" --audit_fsync=every_record \
  --status_address="$SRV:$HTTPS_PORT" --status_cert="$WORK/page.pem" \
  --status_key="$WORK/page.key" --status_users="$WORK/users" \
  --status_history="$WORK/history.bin" --status_poll_interval=1s \
  --idle_sleep=50us --run_for="$(zg_left 150)s" >"$WORK/app.log" 2>&1 &
APP_PID=$!
zg_wait_started "$WORK/app.log" "zeitgeberd running" 30 "$APP_PID" ||
  fail "daemon not running"
zg_phase "zeitgeberd running, page on https://$SRV:$HTTPS_PORT"

URL=https://$SRV:$HTTPS_PORT
AUTH=(--user 'ops:correct horse')
page() {  # page PATH [curl args]: from the client namespace, with the CA
  local path=$1; shift
  ip netns exec "$CLI_NS" curl -sS --max-time 10 --cacert "$WORK/ca.pem" "$@" \
    "$URL$path"
}
# NTP clients for Traffic and Clients.
for i in 1 2 3; do
  ip netns exec "$CLI_NS" ntpdig -t 2 "$SRV" >>"$WORK/ntpdig.log" 2>&1 || true
done
# gpsd's satellites reach the page: BeiDou with C/N0.
gnss_seen() {
  page /api/sources "${AUTH[@]}" 2>/dev/null | "$PY" -c '
import json, sys
d = json.load(sys.stdin)["data"]
sats = [s for src in d["sources"] if src.get("gnss") for s in src["gnss"].get("satellites", [])]
sys.exit(0 if any(s["system"] == "beidou" and s["ss_dbhz"] for s in sats) else 1)'
}
zg_wait 40 "BeiDou satellites on the page" gnss_seen || fail "no BeiDou satellites"
# A few seconds of history for the plots.
sleep 3

# HTTPS from the other namespace with the test CA; the JSON is zgctl's.
page /api/tracking "${AUTH[@]}" >"$WORK/tracking.json" || fail "HTTPS with the test CA"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] and d["command"] == "tracking", d' \
  "$WORK/tracking.json" || fail "tracking over HTTPS"
page /api/leap "${AUTH[@]}" >"$WORK/leap.page.json" || fail "leap over HTTPS"
ip netns exec "$SRV_NS" "$ZGCTL" --socket="$WORK/zg.sock" --json leap \
  >"$WORK/leap.zgctl.json" || fail "zgctl leap"
"$PY" -c '
import json, sys
page = json.load(open(sys.argv[1]))
zgctl = json.load(open(sys.argv[2]))
zgctl = zgctl.get("data", zgctl)
for d in (page["data"], zgctl):  # counts down between the two reads
    d.pop("expires_in_days", None)
assert page["data"] == zgctl, (page["data"], zgctl)' \
  "$WORK/leap.page.json" "$WORK/leap.zgctl.json" || fail "page and zgctl disagree on leap"
ip netns exec "$CLI_NS" curl -sS --max-time 5 "http://$SRV:$HTTPS_PORT/" \
  "${AUTH[@]}" 2>/dev/null | grep -q '"ok"' && fail "plain HTTP served away from loopback"
zg_phase "HTTPS with the test CA from $CLI; page JSON = zgctl JSON"

# Chromium through every view.
mkdir -p "$SHOTS"
ip netns exec "$SRV_NS" "$PY" "$HERE/status_page_browser.py" \
  --chromium="$(command -v chromium)" --url="$URL/" --out="$SHOTS" \
  --auth='ops:correct horse' --spki="$SPKI" >"$WORK/browser.json" 2>"$WORK/browser.log"
BROWSER_RC=$?
cat "$WORK/browser.json"
[ "$BROWSER_RC" -eq 0 ] || { tail -n 20 "$WORK/browser.log"; fail "browser checks"; }
for v in clock sources gnss traffic clients audit alarms; do
  [ -s "$SHOTS/$v.png" ] || fail "no screenshot of $v"
done
zg_phase "Chromium: every view, no console error, screenshots in $SHOTS"

# The audit download is the file on disk, byte for byte (records may be
# appended between the two reads: then the next try).
same=0
for i in 1 2 3 4 5; do
  page /audit.jsonl "${AUTH[@]}" -o "$WORK/download.jsonl" || fail "download"
  cmp -s "$WORK/download.jsonl" "$WORK/audit.jsonl" && { same=1; break; }
  sleep 0.3
done
[ "$same" -eq 1 ] || fail "the audit download differs from the file"
zg_phase "audit download = $(wc -c <"$WORK/audit.jsonl") bytes on disk"

# Wrong passwords from the client namespace: 401, then 429, audited.
codes=""
for i in 1 2 3 4 5 6; do
  codes+="$(page /api/tracking --user 'ops:guess' -o /dev/null -w '%{http_code}') "
done
echo "wrong passwords: $codes"
[[ "$codes" == "401 401 401 401 429 429 " ]] || fail "throttle: $codes"
zg_wait 5 "access_denied in the audit log" \
  grep -q '"event":"access_denied".*"client":"'"$CLI"'".*"locked_s"' "$WORK/audit.jsonl" ||
  fail "refused logins not audited"

zg_stop "$APP_PID" 15
APP_PID=
[ "$ZG_STOP_RC" -eq 0 ] || fail "zeitgeberd exit $ZG_STOP_RC"
[ -s "$WORK/history.bin" ] || fail "history not saved at stop"
echo "PASS"
