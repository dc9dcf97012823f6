#!/usr/bin/env bash
# NTS on the memif rig: zg-loadgen against zeitgeberd over net_memif (one
# worker core), an RFC 2544 no-drop sweep (loss <= 0.01 %) with plain NTPv4
# and one with NTS (--mix=nts), zeitgeberd restarted for each, in the same
# run; prints both no-drop rates and the ratio NTS / NTP per round.
#
# The NTS clients' cookies come from zg-loadgen's --nts_master_key test
# harness (it holds the same master key as zeitgeberd and mints cookies
# itself, standing in for NTS-KE); every --nts_verify_every-th reply is
# verified in full and the counts are printed.
#
#   sudo scripts/bench-memif-nts.sh [BUILD_DIR]     (default: build-rel)
#
# Environment: ZG_BENCH_ROUNDS [1], ZG_BENCH_TRIAL [2s], ZG_BENCH_CLIENTS
# [1000], ZG_BENCH_NTS_VERIFY_EVERY [16], ZG_BENCH_SERVER_LCORES [0,1],
# ZG_BENCH_GEN_LCORES [0,1], ZG_BENCH_GEN_MAIN [1], ZG_BENCH_NICE [-20],
# ZG_BENCH_OUT [none] (as scripts/bench-memif.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-lib.sh"
zg_need_root "bench-memif-nts.sh"
BUILD=$(realpath "${1:-$ZG_ROOT/$ZG_RELEASE_DIR}")
ZGD=$BUILD/dataplane/zeitgeberd
LG=$BUILD/bench/loadgen/zg-loadgen
for b in "$ZGD" "$LG"; do
  [ -x "$b" ] || zg_die "$b missing: ninja -C $BUILD dataplane/zeitgeberd bench/loadgen/zg-loadgen"
done
ROUNDS=${ZG_BENCH_ROUNDS:-1}
TRIAL=${ZG_BENCH_TRIAL:-2s}
CLIENTS=${ZG_BENCH_CLIENTS:-1000}
VERIFY=${ZG_BENCH_NTS_VERIFY_EVERY:-16}
SERVER_LCORES=${ZG_BENCH_SERVER_LCORES:-0,1}
GEN_LCORES=${ZG_BENCH_GEN_LCORES:-0,1}
GEN_MAIN=${ZG_BENCH_GEN_MAIN:-1}
NICE=${ZG_BENCH_NICE:--20}
[ -n "${ZG_BENCH_SESSION:-}" ] || { zg_bench_session "$NICE" "$0" "$@"; exit; }

HUGE_WAS=$(cat /proc/sys/vm/nr_hugepages)
"$ZG_ROOT/scripts/hugepages.sh" 512 >/dev/null
WORK=$(mktemp -d /tmp/zg_bench_memif_nts.XXXXXX)
SOCK=$WORK/memif.sock
KEY=$WORK/nts_master.key
head -c 32 /dev/urandom >"$KEY"
chmod 600 "$KEY"
SERVER_PID=
GEN_PID=
cleanup() {
  [ -n "$GEN_PID" ] && stop_pid "$GEN_PID"
  [ -n "$SERVER_PID" ] && stop_pid "$SERVER_PID"
  if [ -n "${ZG_BENCH_OUT:-}" ]; then
    mkdir -p "$ZG_BENCH_OUT" && cp "$WORK"/*.json "$WORK"/*.txt "$WORK"/*.log "$ZG_BENCH_OUT"/ 2>/dev/null || true
  fi
  rm -rf "$WORK"
  "$ZG_ROOT/scripts/hugepages.sh" --restore "$HUGE_WAS" >/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SERVER_MAC=02:5a:47:00:01:01
GEN_MAC=02:5a:47:00:01:02
SRV=10.99.0.1
EAL=(--in-memory --no-pci --no-telemetry --log-level=lib.eal:warning)

start_zeitgeberd() {
  rm -f "$SOCK"
  timeout 300 nice -n "$NICE" "$ZGD" "${EAL[@]}" --file-prefix "zgbn$$s" -l "$SERVER_LCORES" \
    --vdev="net_memif0,role=server,socket=$SOCK,mac=$SERVER_MAC" -- \
    --port=net_memif0 --address="$SRV/24" --metrics_address= --control_socket= \
    --require_system_clock_sync=false --nts_master_key="$KEY" \
    >"$WORK/zeitgeberd.log" 2>&1 &
  SERVER_PID=$!
  wait_for "$WORK/zeitgeberd.log" "zeitgeberd running" zeitgeberd
}

# run_generator NAME MIX: a no-drop sweep; the server is stopped once the
# summary is written (see scripts/bench-memif.sh for why in that order).
run_generator() {
  local name=$1 mix=$2
  timeout 180 nice -n "$NICE" "$LG" "${EAL[@]}" --file-prefix "zgbn$$g" -l "$GEN_LCORES" \
    --main-lcore "$GEN_MAIN" \
    --vdev="net_memif0,role=client,socket=$SOCK,mac=$GEN_MAC" -- \
    --target="$SRV" --sweep --rate=max --sweep_trial="$TRIAL" \
    --clients="$CLIENTS" --source_ip=10.99.0.100 --source_addresses=100 \
    --mix="$mix" --nts_master_key="$KEY" --nts_verify_every="$VERIFY" \
    --progress=false --json="$WORK/$name.json" --linger=60s \
    >"$WORK/$name.txt" 2>"$WORK/$name.log" &
  GEN_PID=$!
  while kill -0 "$GEN_PID" 2>/dev/null && [ ! -e "$WORK/$name.json" ]; do sleep 0.2; done
  stop_server zeitgeberd
  stop_pid "$GEN_PID"
  GEN_PID=
  if [ "$STOP_RC" -ne 0 ]; then
    cat "$WORK/$name.log" "$WORK/$name.txt"
    zg_die "zg-loadgen ($mix) failed (exit $STOP_RC)"
  fi
  cat "$WORK/$name.txt"
  grep -E ' I final (counters|dropped)' "$WORK/zeitgeberd.log" | sed 's/^.* I /  zeitgeberd: /' || true
}

LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
zg_log "memif NTS rig: $ROUNDS round(s), $CLIENTS clients, trials of $TRIAL"
for r in $(seq "$ROUNDS"); do
  for mix in ntp4 nts; do
    zg_log "round $r: zeitgeberd, --mix=$mix"
    start_zeitgeberd
    run_generator "${mix}_$r" "$mix"
  done
done

echo
echo "machine: $(nproc) cores,$(sed -n 's/^model name[^:]*://p' /proc/cpuinfo | head -1); load average (1/5/15 min) $LOAD_START at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end"
/usr/bin/python3 - "$WORK" "$ROUNDS" <<'PYEOF'
import json, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
def rate(s):
    return s["sweep"]["no_drop_pps"] if s["sweep"]["found"] else 0.0
print("\n== memif rig: NTS vs plain NTP no-drop rates (RFC 2544, loss <= 0.01 %)")
print(f"{'round':>5}  {'ntp4':>12}  {'nts':>12}  {'nts/ntp':>7}  nts replies verified ok/bad, nak")
for r in range(1, rounds + 1):
    p, n = load(f"ntp4_{r}"), load(f"nts_{r}")
    pr, nr = rate(p), rate(n)
    nts = n.get("nts", {})
    print(f"{r:>5}  {pr:>12,.0f}  {nr:>12,.0f}  {nr / pr if pr else float('nan'):>7.3f}"
          f"  {nts.get('verified_ok', 0)}/{nts.get('verified_bad', 0)}, {nts.get('nak', 0)}")
    for name, s in (("ntp4", p), ("nts", n)):
        if s["sweep"]["generator_limited"]:
            print(f"       ({name}: zeitgeberd kept up with the generator's maximum)")
PYEOF
