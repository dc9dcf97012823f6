#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
. "$(dirname "$0")/memif_pair.sh"
ZGD=$(realpath "$1")
LG=$(realpath "$2")
memif_pair_init lgm 512

memif_start_zeitgeberd 60 02:5a:47:00:02:01 \
  --address=10.98.0.1/24 --metrics_address= --status_address=
memif_start_loadgen 30 02:5a:47:00:02:02 \
  --target=10.98.0.1 --rate=20k --duration=2s --timeout=1s --clients=64 \
  --source_ip=10.98.0.100 --source_addresses=4
# The report is written once the trial ends (2 s) and --linger starts.
memif_wait_report 20
memif_stop_both
grep -q "final counters: rx_packets=" "$WORK/zeitgeberd.log" || fail "zeitgeberd's final counters"

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
