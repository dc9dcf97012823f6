#!/usr/bin/env bash
# zg-loadgen against the real zeitgeberd over net_memif, short and bounded
# (about 10 s; no hugepages): zeitgeberd serves 10.98.0.1 on one worker,
# zg-loadgen resolves it by ARP and sends 20k NTP requests/s for 2 s from 64
# clients over 4 addresses. Every request must reach zeitgeberd and be
# answered with a valid synchronised reply (no KoD, no bad or invalid reply,
# no duplicate), except replies zeitgeberd itself counted as refused by
# tx_burst (a busy machine's generator drains its ring late), the
# round trip and residence must be measured, and the offset the generator
# computes must be within 5 ms (both processes read this host's clock).
# Bench-memif.sh runs the same pair as an RFC 2544 sweep.
#   tests/bench/zg_loadgen_memif_test.sh BUILD/dataplane/zeitgeberd \
#     BUILD/bench/loadgen/zg-loadgen
set -uo pipefail
. "$(dirname "$0")/../../scripts/wait-lib.sh"  # zg_wait, zg_stop
ZGD=$(realpath "$1")
LG=$(realpath "$2")
WORK=$(mktemp -d /tmp/zg_lg_memif.XXXXXX)
SOCK=$WORK/memif.sock
ZGD_PID=
LG_PID=
cleanup() {
  [ -n "$LG_PID" ] && kill -KILL "$LG_PID" 2>/dev/null
  if [ -n "$ZGD_PID" ]; then
    zg_stop "$ZGD_PID" 5
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$WORK"/*.log "$WORK"/*.txt 2>/dev/null; exit 1; }
eal() {  # unique prefix per process; no hugepages; quiet EAL
  echo --no-huge -m 512 --no-shconf --no-pci --no-telemetry \
    --file-prefix "zglgm$$$1" --log-level=lib.eal:error
}

timeout 60 "$ZGD" $(eal s) -l 0-1 \
  --vdev="net_memif0,role=server,socket=$SOCK,mac=02:5a:47:00:02:01" -- \
  --port=net_memif0 --address=10.98.0.1/24 --metrics_address= --control_socket= \
  --require_system_clock_sync=false >"$WORK/zeitgeberd.log" 2>&1 &
ZGD_PID=$!
up() {
  grep -q "zeitgeberd running" "$WORK/zeitgeberd.log" && return 0
  kill -0 "$ZGD_PID" 2>/dev/null || fail "zeitgeberd exited during start-up"
  return 1
}
zg_wait 20 "zeitgeberd running" up || fail "zeitgeberd not running after 20 s"

# --linger: zeitgeberd is stopped (and must exit 0) before the generator
# disconnects, which DPDK 22.11's memif server does not always survive.
timeout 30 "$LG" $(eal g) -l 0-1 --main-lcore 1 \
  --vdev="net_memif0,role=client,socket=$SOCK,mac=02:5a:47:00:02:02" -- \
  --target=10.98.0.1 --rate=20k --duration=2s --timeout=1s --clients=64 \
  --source_ip=10.98.0.100 --source_addresses=4 --progress=false \
  --json="$WORK/summary.json" --linger=20s \
  >"$WORK/loadgen.txt" 2>"$WORK/loadgen.log" &
LG_PID=$!
# The report is written once the trial ends (2 s) and --linger starts.
report_or_exit() { [ -e "$WORK/summary.json" ] || ! kill -0 "$LG_PID" 2>/dev/null; }
zg_wait 20 "zg-loadgen's report" report_or_exit
[ -e "$WORK/summary.json" ] || fail "zg-loadgen wrote no report in 20 s"
kill -TERM "$ZGD_PID"
wait "$ZGD_PID"; rc=$?
ZGD_PID=
[ "$rc" -eq 0 ] || fail "zeitgeberd exit status $rc on SIGTERM"
grep -q "final counters: rx_packets=" "$WORK/zeitgeberd.log" || fail "zeitgeberd's final counters"
kill -TERM "$LG_PID" 2>/dev/null
wait "$LG_PID"; rc=$?
[ "$rc" -eq 0 ] || fail "zg-loadgen exit status $rc"
cat "$WORK/loadgen.txt"

# zeitgeberd's own account: NTP requests handled, replies tx_burst refused.
ZG_NTP=$(sed -n 's/.*final handled:.* ntp=\([0-9]*\).*/\1/p' "$WORK/zeitgeberd.log")
ZG_TX_DROPPED=$(sed -n 's/.*final counters:.* tx_dropped=\([0-9]*\) .*/\1/p' "$WORK/zeitgeberd.log")
/usr/bin/python3 - "$WORK/summary.json" "${ZG_NTP:-0}" "${ZG_TX_DROPPED:--1}" <<'PYEOF' || fail "summary checks"
import json, sys
s = json.load(open(sys.argv[1]))
zg_ntp, zg_tx_dropped = int(sys.argv[2]), int(sys.argv[3])
c = s["counts"]
problems = []
def want(ok, what):
    if not ok:
        problems.append(what)
want(c["sent"] >= 20000, f"sent {c['sent']} < 20000 (2 s at 20k/s)")
# On a busy machine the generator may not drain its RX ring in time and
# zeitgeberd's tx_burst refuses a burst: every loss must be one of those.
want(zg_ntp == c["sent"], f"zeitgeberd handled {zg_ntp} NTP requests of {c['sent']} sent")
want(c["lost"] == zg_tx_dropped,
     f"lost {c['lost']} != zeitgeberd's tx_dropped {zg_tx_dropped}")
want(c["answered"] + c["lost"] == c["sent"],
     f"answered {c['answered']} + lost {c['lost']} != sent {c['sent']}")
want(c["answered"] >= 0.95 * c["sent"], f"answered {c['answered']} of {c['sent']}")
for k in ("kod", "bad_reply", "late", "in_flight", "duplicate"):
    want(c[k] == 0, f"{k} = {c[k]}")
want(not s["invalid"], f"invalid replies {s['invalid']}")
want(s["rtt_ns"]["count"] == c["answered"], "rtt not measured for every reply")
want(0 < s["rtt_ns"]["p50"] < 1e9, f"rtt p50 {s['rtt_ns']['p50']} ns")
want(s["residence_ns"]["count"] > 0, "no residence times")
want(abs(s["offset_ns"]["p50"]) < 5e6, f"offset p50 {s['offset_ns']['p50']} ns")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PYEOF
echo PASS
