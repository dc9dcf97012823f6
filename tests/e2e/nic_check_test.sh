#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: scripts/nic-check.sh as an operator runs it, here without a NIC.
#   tests/e2e/nic_check_test.sh ZEITGEBERD ZG_XDP_OBJ
#  - on a net_ring vdev: every capability "no", the software plan, exit 0;
#  - on the host side of a veth pair whose peer is in a network namespace
#    (root only; skipped otherwise): the kernel's view (ethtool -T: no PHC,
#    software stamps), AF_XDP with the XDP program's kernel RX stamps
#    (ntp_rx xdp_kernel, two clocks), a measured clock bracket, and the XDP
#    program gone from the interface afterwards;
#  - an unknown port is a usage error (exit != 0), not a hang.
# About 1-2 s. Cleans up on any exit.
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="$HERE/../../scripts/nic-check.sh"
. "$HERE/../../scripts/netns.sh"
RIG=zgnc$$
OUT=$(mktemp /tmp/zg_nic_check_test.XXXXXX)
cleanup() { [ -n "${ZG_RIG_NS:-}" ] && zg_rig_down "$RIG"; rm -f "$OUT"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- output"; cat "$OUT"; exit 1; }
expect() { grep -qx -- "$1" "$OUT" || fail "no line '$1'"; }

timeout 20 "$CHECK" --zeitgeberd "$APP" net_ring0 >"$OUT" 2>&1 || fail "ring: exit $?"
expect "driver: net_ring"
expect "rx_dynfield: no"
expect "timesync: no"
expect "ntp_rx: software_burst"
expect "ntp_one_clock: yes"
expect "rx_clock: tsc"
echo "ok: net_ring0"

if timeout 20 "$CHECK" --zeitgeberd "$APP" not-a-port >"$OUT" 2>&1; then
  fail "an unknown port was accepted"
fi
grep -q "not a PCI address, a kernel interface or a net_\* vdev" "$OUT" ||
  fail "no usage error for an unknown port"
echo "ok: unknown port refused"

if [ "$(id -u)" -ne 0 ] || ! command -v ethtool >/dev/null; then
  echo "SKIP: the veth half needs root and ethtool"
  exit 0
fi
zg_rig_up "$RIG" 10.97.3.1/24 10.97.3.2/24 >/dev/null || fail "rig setup"
timeout 20 "$CHECK" --zeitgeberd "$APP" --xdp-prog "$OBJ" "$ZG_RIG_HOST_IF" \
  >"$OUT" 2>&1 || fail "veth: exit $?"
expect "== kernel interface $ZG_RIG_HOST_IF"
expect "driver: veth"
expect "phc: none"
expect "hardware_tx: no"
expect "driver: net_af_xdp"
expect "af_xdp: yes"
expect "ntp_rx: xdp_kernel"
expect "ntp_one_clock: no"
expect "rx_clock: xdp"
grep -q "^rx_clock_bracket: min .* ns, median .* over 64$" "$OUT" ||
  fail "no clock bracket measured"
ip link show "$ZG_RIG_HOST_IF" | grep -q "prog/xdp" && fail "XDP program left attached"
echo "ok: veth $ZG_RIG_HOST_IF: $(grep '^rx_clock_bracket' "$OUT")"
