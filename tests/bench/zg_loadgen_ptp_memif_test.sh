#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zg-loadgen's unicast PTP subscribers against the real zeitgeberd over
# net_memif (no hugepages): --mix=ptp_unicast --ptp_subscribers=N (default
# 1000) at G.8275.2's 1/s for D seconds (default 4) against one worker
# serving --ptp_profile=g8275.2 with unicast negotiation. Every grant
# granted, no Sync missed (by sequenceId or schedule), every Sync paired
# with its Follow_Up, every Delay_Req answered, no bad frame. The larger
# rig runs of doc/performance.md use the same script:
#   tests/bench/zg_loadgen_ptp_memif_test.sh ZEITGEBERD ZG_LOADGEN [N] [D]
# MEMIF_RSIZE=14: memif rings of 2^14 slots (DPDK's default 2^10) on both
# sides; METRICS_OUT=FILE: zeitgeberd's /metrics, scraped after the run.
set -uo pipefail
. "$(dirname "$0")/memif_pair.sh"
ZGD=$(realpath "$1")
LG=$(realpath "$2")
N=${3:-1000}
D=${4:-4}
memif_pair_init lgp 1024
RSIZE=${MEMIF_RSIZE:+,rsize=$MEMIF_RSIZE}

memif_start_zeitgeberd $((D + 60)) "02:5a:47:00:03:01$RSIZE" \
  --address=10.97.0.1/8 \
  --metrics_address="${METRICS_OUT:+127.0.0.1:0}" --status_address= ${METRICS_OUT:+--stats_interval=100ms} \
  --ptp --ptp_profile=g8275.2 --ptp_unicast_negotiation=on
# The port turns MASTER after its Announce receipt timeout (3 x 1 s).
sleep 4
memif_start_loadgen $((D + 40)) "02:5a:47:00:03:02$RSIZE" \
  --target=10.97.0.1 --mix=ptp_unicast --ptp_subscribers="$N" \
  --source_ip=10.98.0.0 --duration="${D}s" --timeout=1s
memif_wait_report $((D + 30))
if [ -n "${METRICS_OUT:-}" ]; then
  mport=$(sed -n 's|.*metrics on http://[^ ]*/metrics (port \([0-9]*\)).*|\1|p' \
    "$WORK/zeitgeberd.log" | head -1)
  sleep 0.3  # one more exporter refresh
  curl -sf "http://127.0.0.1:$mport/metrics" >"$METRICS_OUT" ||
    fail "no metrics from port $mport"
fi
memif_stop_both

/usr/bin/python3 - "$WORK/summary.json" "$N" <<'PYEOF' || fail "summary checks"
import json, sys
p = json.load(open(sys.argv[1]))["ptp_unicast"]
n = int(sys.argv[2])
problems = []
def want(ok, what):
    if not ok:
        problems.append(what)
want(p["subscribers"] == n, f"subscribers {p['subscribers']} != {n}")
for t, g in p["grants"].items():
    want(g["granted"] == n and g["refused"] == 0,
         f"{t}: granted {g['granted']} refused {g['refused']} of {n}")
want(p["subscribers_all_granted"] == n, "not every subscriber holds its grants")
s = p["sync"]
want(s["rate_per_subscriber"]["subscribers"] == n, "a subscriber with < 2 Syncs")
want(0.9 < s["rate_per_subscriber"]["median"] < 1.1,
     f"median Sync rate {s['rate_per_subscriber']['median']}")
want(s["missed_sequence"] == 0, f"{s['missed_sequence']} Syncs missed (sequenceId)")
want(s["missed_schedule"] == 0, f"{s['missed_schedule']} Syncs missed (schedule)")
f = p["follow_up"]
want(f["syncs_without"] == 0 and f["unmatched"] == 0,
     f"Follow_Up: {f['syncs_without']} Syncs without, {f['unmatched']} unmatched")
want(f["syncs_with"] + f["syncs_pending_at_end"] == s["received"],
     "Syncs neither paired nor pending")
d = p["delay_req"]
want(d["sent"] > 0 and d["answered"] == d["sent"] and d["unanswered"] == 0,
     f"Delay_Req: {d['answered']} of {d['sent']} answered")
want(not p["defects"], f"bad frames {p['defects']}")
for x in problems:
    print("FAIL:", x)
sys.exit(1 if problems else 0)
PYEOF
echo PASS
