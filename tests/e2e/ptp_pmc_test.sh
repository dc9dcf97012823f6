#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end: linuxptp's pmc queries our PTP management responder
# (core/ptp/ptp_management.h via tests/e2e/ptp_management_responder) over UDPv4
# multicast on a veth pair between two namespaces this test creates, and
# prints the data sets we answered with. Checks pmc's own rendering of them,
# and that empty (`pmc -z`) GETs, whose answers would be larger than the
# request, get no answer.
#   tests/e2e/ptp_pmc_test.sh PATH/TO/ptp_management_responder
# Needs root and pmc; exits 77 (skipped) without them.
set -euo pipefail
responder=$1
[ "$(id -u)" -eq 0 ] || { echo "needs root"; exit 77; }
command -v pmc >/dev/null || { echo "needs pmc (linuxptp)"; exit 77; }

# The pair (namespaces, veth, addresses) comes from scripts/netns.sh, as the
# capture script and the C++ rigs make theirs.
. "$(dirname "$0")/../../scripts/netns.sh"
. "$(dirname "$0")/../../scripts/wait-lib.sh"
pair="zgpmc$$"
work=$(mktemp -d)
rpid=""
cleanup() {
  set +e
  [ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
  zg_pair_down "$pair"
  rm -rf "$work"
}
trap cleanup EXIT

zg_pair_up "$pair" 10.79.0.1/24 10.79.0.2/24
ns_a=$ZG_PAIR_NS_A ns_b=$ZG_PAIR_NS_B
ip -n "$ns_a" route add 224.0.0.0/4 dev "$ZG_PAIR_IF_A"
ip -n "$ns_b" route add 224.0.0.0/4 dev "$ZG_PAIR_IF_B"

ip netns exec "$ns_a" "$responder" 10.79.0.1 30 >"$work/responder.log" 2>&1 &
rpid=$!
zg_wait_log "$work/responder.log" "^listening on" 5 ||
  { cat "$work/responder.log"; echo "FAIL: the responder did not start"; exit 1; }

ip netns exec "$ns_b" timeout "$(zg_left 5)" pmc -4 -i "$ZG_PAIR_IF_B" -b 1 \
  'GET DEFAULT_DATA_SET' 'GET CURRENT_DATA_SET' 'GET PARENT_DATA_SET' \
  'GET TIME_PROPERTIES_DATA_SET' 'GET PORT_DATA_SET' 'GET NULL_MANAGEMENT' \
  >"$work/pmc.log" 2>&1 || true
ip netns exec "$ns_b" timeout "$(zg_left 5)" pmc -4 -i "$ZG_PAIR_IF_B" -b 1 -z \
  'GET DEFAULT_DATA_SET' >"$work/pmc-z.log" 2>&1 || true
# The responder logs each request as it handles it: all seven (six GETs,
# the empty one) before the counts below.
requests() { [ "$(grep -c '^request of' "$work/responder.log")" -ge 7 ]; }
zg_wait 5 "7 requests in the responder's log" requests || true
cat "$work/pmc.log"

fail=0
expect() {  # expect LOG REGEX: the log has a line matching REGEX
  if ! grep -Eq "$2" "$1"; then
    echo "FAIL: no line matching '$2' in $(basename "$1")"
    fail=1
  fi
}
log=$work/pmc.log
id='02005e\.fffe\.000129'
expect "$log" "$id-1 seq 0 RESPONSE MANAGEMENT DEFAULT_DATA_SET"
expect "$log" "twoStepFlag +1"
expect "$log" "priority1 +7"
expect "$log" "clockClass +6"
expect "$log" "clockAccuracy +0x21"
expect "$log" "offsetScaledLogVariance +0x4e5d"
expect "$log" "clockIdentity +$id"
expect "$log" "RESPONSE MANAGEMENT CURRENT_DATA_SET"
expect "$log" "stepsRemoved +0"
expect "$log" "RESPONSE MANAGEMENT PARENT_DATA_SET"
expect "$log" "grandmasterIdentity +$id"
expect "$log" "gm.ClockClass +6"
expect "$log" "RESPONSE MANAGEMENT TIME_PROPERTIES_DATA_SET"
expect "$log" "currentUtcOffset +37"
expect "$log" "ptpTimescale +1"
expect "$log" "timeTraceable +1"
expect "$log" "timeSource +0x20"
expect "$log" "RESPONSE MANAGEMENT PORT_DATA_SET"
expect "$log" "portIdentity +$id-1"
expect "$log" "portState +MASTER"
expect "$log" "logMinDelayReqInterval +-4"
expect "$log" "versionNumber +2"
expect "$log" "seq 5 RESPONSE MANAGEMENT( NULL_MANAGEMENT)? *$"
if grep -q RESPONSE "$work/pmc-z.log"; then
  echo "FAIL: an empty GET was answered with a larger reply"; fail=1
fi
expect "$work/responder.log" "request of 54 octets: reply_too_large"
[ "$(grep -c 'response, drop ok, reply' "$work/responder.log")" -eq 6 ] || {
  echo "FAIL: expected 6 answered requests"; cat "$work/responder.log"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: pmc read every data set we served"
exit $fail
