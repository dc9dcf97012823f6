#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zeitgeberd's command line: every documented exit code with its message,
# clean stops by --run_for and by SIGTERM, and log priorities for the
# journal (on an in-process net_ring0 port, without hugepages).
#   tests/dataplane/daemon/zeitgeberd_cli_test.sh BUILD/dataplane/zeitgeberd
set -uo pipefail
. "$(dirname "$0")/../../../scripts/wait-lib.sh"  # zg_wait
ZG=$(realpath "$1")
LOG=$(mktemp /tmp/zg_cli.XXXXXX)
LISTENER=
cleanup() { [ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null; rm -f "$LOG" ${KEYS:+"$KEYS"}; }
trap cleanup EXIT
n=0
eal() {  # unique prefix per run; quiet EAL
  n=$((n + 1))
  echo --no-huge -m 256 --no-shconf --no-pci --no-telemetry \
    --file-prefix "zgcli$$_$n" --log-level=lib.eal:error "$@"
}
expect() {  # expect RC PATTERN -- ARGS...
  local want=$1 pattern=$2; shift 3
  timeout 60 "$ZG" "$@" >"$LOG" 2>&1; local rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" "$LOG"; then
    echo "FAIL: zeitgeberd $* -> rc $rc (want $want), pattern '$pattern'"
    cat "$LOG"; exit 1
  fi
  echo "ok: rc $rc: $(grep -m1 -- "$pattern" "$LOG" | cut -c1-150)"
}

expect 1 "--vlan=5000: must be 0..4094" -- $(eal -l 0-1 --vdev=net_ring0) -- --vlan=5000
expect 1 "has no prefix length" -- $(eal -l 0-1 --vdev=net_ring0) -- --address=10.0.0.1
expect 1 "Unknown command line flag 'bogus'" -- $(eal -l 0-1 --vdev=net_ring0) -- --bogus
expect 2 "no worker lcores" -- $(eal -l 0 --vdev=net_ring0)
expect 2 "A device given with --vdev or -a/--allow could not be parsed" -- $(eal -l 0-1 --vdev=net_bogus0)
expect 3 "no DPDK port named 'net_nope'" -- $(eal -l 0-1 --vdev=net_ring0) -- --port=net_nope
# --ntp_keys: a keyfile others may read, and a bad line, stop it at start-up.
KEYS=$(mktemp /tmp/zg_cli_keys.XXXXXX)
echo "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c" >"$KEYS"; chmod 644 "$KEYS"
expect 1 "must be readable by its owner only (chmod 600" -- $(eal -l 0-1 --vdev=net_ring0) -- --ntp_keys="$KEYS"
echo "1 SHA256 HEX:00" >"$KEYS"; chmod 600 "$KEYS"
expect 1 "line 1: key type SHA256 is valid for chrony but not supported" -- $(eal -l 0-1 --vdev=net_ring0) -- --ntp_keys="$KEYS"
# NTS-KE: an address without a certificate and key stops it.
expect 1 "--nts_ke_address needs --nts_cert" -- $(eal -l 0-1 --vdev=net_ring0) -- --nts_ke_address=127.0.0.1:0
expect 1 "--nts_ke_address=ke.example: expected IP" -- $(eal -l 0-1 --vdev=net_ring0) -- --nts_ke_address=ke.example
rm -f "$KEYS"

/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$LOG.port" &
LISTENER=$!
zg_wait 10 "the listener's port" test -s "$LOG.port" || exit 1
busy=$(cat "$LOG.port"); rm -f "$LOG.port"
expect 4 "cannot serve metrics on 127.0.0.1:$busy" -- $(eal -l 0-1 --vdev=net_ring0) -- --metrics_address=127.0.0.1:$busy

# The control socket: a relative path is a flag error; a path that is
# not a socket (never replaced) stops the start with code 7.
expect 1 "--control_socket=zg.sock: give an absolute path" -- $(eal -l 0-1 --vdev=net_ring0) -- --metrics_address= --status_address= --control_socket=zg.sock
expect 7 "exists and is not a socket" -- $(eal -l 0-1 --vdev=net_ring0) -- --metrics_address= --status_address= --control_socket="$LOG"

expect 0 "final counters: rx_packets=0" -- $(eal -l 0-1 --vdev=net_ring0) -- --address=192.0.2.1/24 --metrics_address=127.0.0.1:0 --status_address= --control_socket= --run_for=1s --fake_nic_clock

# Under systemd stderr is the journal's stream (JOURNAL_STREAM names its
# device and inode): every line then starts with its syslog priority, which
# journald stores, and --log_level=debug adds the shutdown steps' times.
: >"$LOG"
# DPDK's own lines too (its INFO is syslog's info, <6>).
JOURNAL_STREAM=$(stat -c '%d:%i' "$LOG") timeout 60 "$ZG" $(eal -l 0-1 --vdev=net_ring0) \
  --log-level=lib.eal:info -- --metrics_address= --status_address= --run_for=1s --log_level=debug >>"$LOG" 2>&1; rc=$?
for want in "^<6>zeitgeberd running" "^<4>no --audit_log" "^<7>shutdown: EAL cleaned up in" \
            "^<6>stopped in" "^<6>EAL: "; do
  if [ "$rc" -ne 0 ] || ! grep -q -- "$want" "$LOG" || grep -qv "^<[0-7]>" "$LOG"; then
    echo "FAIL: journal priorities: rc $rc, no '$want' (or a line without a priority)"; cat "$LOG"; exit 1
  fi
done
echo "ok: journal stream: lines carry <priority>, debug shows $(grep -c '^<7>shutdown:' "$LOG") shutdown steps"

# An empty log first: the previous run's "zeitgeberd running" would end the
# wait at once, and a SIGTERM before timeout(1) has even started killed it
# (rc 143; seen once in CI).
: >"$LOG"
timeout 60 "$ZG" $(eal -l 0-1 --vdev=net_ring0) -- --metrics_address= --status_address= --control_socket= >"$LOG" 2>&1 &
pid=$!
zg_wait_log "$LOG" "zeitgeberd running" 30 || { echo "FAIL"; cat "$LOG"; exit 1; }
kill -TERM "$pid"; wait "$pid"; rc=$?
if [ "$rc" -ne 0 ] || ! grep -q "signal 15 (Terminated): stopping" "$LOG" ||
   ! grep -q "final counters" "$LOG"; then
  echo "FAIL: SIGTERM -> rc $rc"; cat "$LOG"; exit 1
fi
echo "ok: rc 0 after SIGTERM, final counters printed"
echo PASS
