# SPDX-License-Identifier: Apache-2.0
# zeitgeberd and zg-loadgen on a net_memif pair without hugepages: what the
# memif tests (zg_loadgen_memif_test.sh, zg_loadgen_ptp_memif_test.sh) share.
# Source it, then:
#   memif_pair_init NAME MEM_MB      WORK, SOCK, the clean-up trap, fail()
#   memif_start_zeitgeberd TIMEOUT_S MAC [zeitgeberd flags...]
#                                    the memif server; waits until running
#   memif_start_loadgen TIMEOUT_S MAC [zg-loadgen flags...]
#                                    the memif client, its report at
#                                    $WORK/summary.json, lingering
#   memif_wait_report WAIT_S         until the report is written
#   memif_stop_both                  zeitgeberd, then zg-loadgen: each must
#                                    exit 0 on SIGTERM
# ZGD and LG name the binaries. zeitgeberd is stopped before the generator
# disconnects, which DPDK 22.11's memif server does not always survive
# (hence --linger on the generator).
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/wait-lib.sh"  # zg_wait*, zg_stop

memif_pair_init() {
  MEMIF_NAME=$1 MEMIF_MEM_MB=$2
  WORK=$(mktemp -d "/tmp/zg_$MEMIF_NAME.XXXXXX")
  SOCK=$WORK/memif.sock
  ZGD_PID= LG_PID=
  trap memif_cleanup EXIT
}

memif_cleanup() {
  [ -n "$LG_PID" ] && kill -KILL "$LG_PID" 2>/dev/null
  [ -n "$ZGD_PID" ] && zg_stop "$ZGD_PID" 5
  rm -rf "$WORK"
}

fail() { echo "FAIL: $*"; cat "$WORK"/*.log "$WORK"/*.txt 2>/dev/null; exit 1; }

memif_eal() {  # unique prefix per process; no hugepages; quiet EAL
  echo --no-huge -m "$MEMIF_MEM_MB" --no-shconf --no-pci --no-telemetry \
    --file-prefix "zg$MEMIF_NAME$$$1" --log-level=lib.eal:error -l 0-1
}

memif_start_zeitgeberd() {
  local timeout_s=$1 mac=$2; shift 2
  # shellcheck disable=SC2046  # memif_eal's words
  timeout "$timeout_s" "$ZGD" $(memif_eal s) \
    --vdev="net_memif0,role=server,socket=$SOCK,mac=$mac" -- \
    --port=net_memif0 --require_system_clock_sync=false --control_socket= "$@" \
    >"$WORK/zeitgeberd.log" 2>&1 &
  ZGD_PID=$!
  zg_wait_started "$WORK/zeitgeberd.log" "zeitgeberd running" 20 "$ZGD_PID" ||
    fail "zeitgeberd did not start (exited, or not running after 20 s)"
}

memif_start_loadgen() {
  local timeout_s=$1 mac=$2; shift 2
  # shellcheck disable=SC2046
  timeout "$timeout_s" "$LG" $(memif_eal g) --main-lcore 1 \
    --vdev="net_memif0,role=client,socket=$SOCK,mac=$mac" -- \
    --progress=false --json="$WORK/summary.json" --linger=20s "$@" \
    >"$WORK/loadgen.txt" 2>"$WORK/loadgen.log" &
  LG_PID=$!
}

memif_wait_report() {
  report_or_exit() { [ -e "$WORK/summary.json" ] || ! kill -0 "$LG_PID" 2>/dev/null; }
  zg_wait "$1" "zg-loadgen's report" report_or_exit
  [ -e "$WORK/summary.json" ] || fail "zg-loadgen wrote no report in $1 s"
}

memif_stop_both() {
  local rc
  kill -TERM "$ZGD_PID"
  wait "$ZGD_PID"; rc=$?
  ZGD_PID=
  [ "$rc" -eq 0 ] || fail "zeitgeberd exit status $rc on SIGTERM"
  kill -TERM "$LG_PID" 2>/dev/null
  wait "$LG_PID"; rc=$?
  LG_PID=
  [ "$rc" -eq 0 ] || fail "zg-loadgen exit status $rc"
  cat "$WORK/loadgen.txt"
}
