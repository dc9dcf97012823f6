#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Removes what tests may have left behind, whether they passed or failed:
#   scripts/sweep.sh
# - every process inside a zg* network namespace, then the namespace;
# - zg* links in the root namespace (an XDP program attached to one goes with
#   it);
# - processes still running from this tree's build directories (zeitgeberd,
#   zg-loadgen, test binaries) and peer tools the tests start (gpsd, gpsfake,
#   ptp4l, chronyd, tcpdump...) whose command line points into /tmp or at a
#   zg* interface — never a system daemon.
# Processes get SIGTERM, then SIGKILL a second later; each is named by pid.
# scripts/test.sh runs it after the e2e stage. Prints what it removed; exits 0.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
zg_need_root "sweep.sh"
removed=0

kill_pids() {  # kill_pids WHY PID...
  local why=$1; shift
  [ "$#" -gt 0 ] || return 0
  for p in "$@"; do
    echo "sweep: $why: pid $p ($(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | cut -c1-80))"
  done
  kill -TERM "$@" 2>/dev/null
  sleep 1
  kill -KILL "$@" 2>/dev/null
  removed=$((removed + $#))
}

mapfile -t namespaces < <(ip netns list 2>/dev/null | awk '$1 ~ /^zg/ {print $1}')
for ns in "${namespaces[@]}"; do
  mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null)
  kill_pids "in namespace $ns" "${pids[@]}"
done

own=()
peers=()
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  [ "$p" = "$$" ] && continue
  exe=$(readlink "$d/exe" 2>/dev/null) || continue
  case "$exe" in
    "$ZG_ROOT"/build*/*) own+=("$p"); continue ;;
  esac
  case "$(basename "$exe")" in
    gpsd|gpsfake|python3*|ptp4l|phc2sys|pmc|chronyd|ntpdig|tcpdump|tshark|dumpcap)
      cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)
      # gpsfake is a python script: match it by its command line too.
      case "$(basename "$exe")" in python3*) [[ "$cmd" == *gpsfake* ]] || continue ;; esac
      if [[ "$cmd" == */tmp/* || "$cmd" =~ (^|[ =])zg[a-z0-9]+ ]]; then peers+=("$p"); fi ;;
  esac
done
kill_pids "left running from $ZG_ROOT" "${own[@]}"
kill_pids "peer left running by a test" "${peers[@]}"

for ns in "${namespaces[@]}"; do
  ip netns del "$ns" 2>/dev/null && { echo "sweep: namespace $ns"; removed=$((removed + 1)); }
done
# Hosts files a test gave its namespace (ip netns exec bind-mounts
# /etc/netns/NS/hosts): tests/e2e/nts_test_util.h.
for d in /etc/netns/zg*; do
  [ -d "$d" ] || continue
  rm -rf "$d" && { echo "sweep: $d"; removed=$((removed + 1)); }
done
mapfile -t links < <(ip -o link show 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | grep '^zg')
for l in "${links[@]}"; do
  ip link del "$l" 2>/dev/null && { echo "sweep: link $l"; removed=$((removed + 1)); }
done
if [ "$removed" -gt 0 ]; then
  echo "sweep: removed $removed leftover(s): a test did not clean up after itself"
else
  echo "sweep: nothing left behind"
fi
exit 0
