#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# doc/alerts/alertmanager.yml: amtool accepts it, and routes zeitgeberd's
# alerts by severity as its comment says (amtool config routes test).
#   alertmanager_test.sh CONFIG
set -euo pipefail
config=$1
amtool check-config "$config"
route() {  # EXPECTED LABEL=VALUE...
  local want=$1; shift
  local got
  got=$(amtool config routes test --config.file="$config" "$@" 2>/dev/null)
  if [ "$got" != "$want" ]; then
    echo "FAIL: $* routed to '$got', expected '$want'"; exit 1
  fi
  echo "ok: $* -> $got"
}
route time-oncall alertname=ZeitgeberOutOfSpec severity=critical instance=zg1
route time-oncall alertname=ZeitgeberReferenceLost severity=major instance=zg1
route time-team alertname=ZeitgeberGnssFewSatellites severity=warning instance=zg1
route time-team alertname=ZeitgeberSourceDown severity=warning instance=zg1
route time-journal alertname=ZeitgeberReferenceSwitched severity=info instance=zg1
route time-team alertname=ZeitgeberSomethingNew instance=zg1
# A config amtool must reject: a receiver that does not exist.
bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
sed 's/receiver: time-journal/receiver: no-such-receiver/' "$config" >"$bad"
if amtool check-config "$bad" >/dev/null 2>&1; then
  echo "FAIL: amtool accepted an undefined receiver"; exit 1
fi
echo "alertmanager: config valid, 6 routes as documented, a broken copy rejected"
