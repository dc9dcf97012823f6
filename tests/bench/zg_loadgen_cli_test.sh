#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zg-loadgen's command line: bad flags and an unreachable target end in a
# clear error and a documented exit code, within a bounded time (no
# hugepages; in-process net_ring0, whose loopback never answers ARP, and a
# net_memif client whose server never comes).
#   tests/bench/zg_loadgen_cli_test.sh BUILD/bench/loadgen/zg-loadgen
set -uo pipefail
LG=$(realpath "$1")
LOG=$(mktemp /tmp/zg_lg_cli.XXXXXX)
SOCK=/tmp/zg_lg_cli_$$.sock
trap 'rm -f "$LOG" "$SOCK"' EXIT
eal() {  # unique prefix per run (called in a subshell); quiet EAL
  echo --no-huge -m 256 --no-shconf --no-pci --no-telemetry \
    --file-prefix "zglgcli$$_$RANDOM" --log-level=lib.eal:error "$@"
}
expect() {  # expect RC MAX_SECONDS PATTERN -- ARGS...
  local want=$1 max=$2 pattern=$3; shift 4
  local start=$SECONDS
  timeout 60 "$LG" "$@" >"$LOG" 2>&1; local rc=$?
  local took=$((SECONDS - start))
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" "$LOG" ||
     [ "$took" -gt "$max" ]; then
    echo "FAIL: zg-loadgen $* -> rc $rc in ${took}s (want $want within ${max}s), pattern '$pattern'"
    cat "$LOG"; exit 1
  fi
  echo "ok: rc $rc in ${took}s: $(grep -m1 -- "$pattern" "$LOG" | cut -c1-160)"
}
ring="--vdev=net_ring0"
mac="--source_mac=02:00:00:00:00:02"

expect 1 10 "--target is required" -- $(eal -l 0-1 $ring) -- --rate=1k
expect 1 10 "Illegal value 'fast' specified for flag 'rate'" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --rate=fast
expect 1 10 "Illegal value '10.99.0.1:0' specified for flag 'target'" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1:0
expect 1 10 "unknown traffic kind" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --mix=dns
expect 1 10 "--mix=nts needs exactly one of" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --mix=nts:50,ntp4:50
expect 4 10 "cannot open the file" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 $mac --target_mac=02:00:00:00:00:01 --mix=nts --nts_master_key=/nonexistent/key
expect 1 10 "Unknown command line flag 'bogus'" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --bogus
expect 1 10 "must be in (0, 24h]" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --duration=0s
expect 1 10 "include the target" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --source_ip=10.99.0.0 --source_addresses=4 $mac
expect 1 10 "--source_mac=02:zz" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --source_mac=02:zz
expect 2 10 "no lanes" -- $(eal -l 0 $ring) -- --target=10.99.0.1
expect 3 10 "no DPDK port named 'net_nope'" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --port=net_nope
# Nobody answers ARP on a loopback ring: a bounded wait, then the advice.
expect 3 10 "no ARP reply from 10.99.0.1 within 1s" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 $mac --arp_timeout=1s
# A memif client whose server is not there: the PMD cannot start the port.
rm -f "$SOCK"
expect 3 10 "(net_memif0): start failed" -- $(eal -l 0-1 --vdev=net_memif0,role=client,socket=$SOCK) -- --target=10.99.0.1 --arp_timeout=1s
# A memif server nobody connects to: the link stays down.
rm -f "$SOCK"
expect 3 10 "link still down after 1s" -- $(eal -l 0-1 --vdev=net_memif0,role=server,socket=$SOCK) -- --target=10.99.0.1 --arp_timeout=1s
# With --target_mac it runs, bounded by --count, and reports every request
# lost (the loopback returns our own requests, which are not for us).
expect 0 20 "sent        500 " -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 $mac --target_mac=02:00:00:00:00:01 --rate=10k --count=500 --duration=5s --timeout=100ms --progress=false
grep -q "lost 500" "$LOG" || { echo "FAIL: want lost 500"; cat "$LOG"; exit 1; }
grep -q "ignored_eth_dst_not_ours=500" "$LOG" || { echo "FAIL: want ignored frames"; cat "$LOG"; exit 1; }
# --mix=ptp_unicast needs --ptp_subscribers, and the other way round.
expect 1 10 "--mix=ptp_unicast and --ptp_subscribers" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --mix=ptp_unicast
expect 1 10 "--mix=ptp_unicast and --ptp_subscribers" -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 --ptp_subscribers=5
# Subscribers on the loopback: every REQUEST asked (and asked again), none
# granted, the report says so.
expect 0 20 "ptp unicast subscribers: 10 " -- $(eal -l 0-1 $ring) -- --target=10.99.0.1 $mac --target_mac=02:00:00:00:00:01 --mix=ptp_unicast --ptp_subscribers=10 --subscriber_ramp=10ms --duration=1s --timeout=300ms --progress=false
grep -Eq "sync +[0-9]+ +0 +0 " "$LOG" || { echo "FAIL: want sync asked, none granted"; cat "$LOG"; exit 1; }
echo PASS
