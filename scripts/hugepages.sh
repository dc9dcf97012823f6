#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reserves 2 MiB hugepages and mounts hugetlbfs at /dev/hugepages for DPDK.
#   scripts/hugepages.sh [PAGES]          (default 1024 = 2 GiB)
#   scripts/hugepages.sh --restore PAGES  give back down to PAGES (what the
#                                          reservation found, see below)
# Idempotent; never lowers an existing larger reservation. A script that
# reserves gives back what it took:
#   was=$(cat /proc/sys/vm/nr_hugepages); scripts/hugepages.sh 512
#   trap 'scripts/hugepages.sh --restore "$was"' EXIT
# No test needs hugepages (they run DPDK with --no-huge); the demo and the
# benchmark rigs reserve them and give them back.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
zg_need_root "hugepages.sh"
if [ "${1:-}" = "--restore" ]; then
  want=${2:?--restore needs the page count to return to}
  [ "$(cat /proc/sys/vm/nr_hugepages)" -gt "$want" ] &&
    echo "$want" >/proc/sys/vm/nr_hugepages
  echo "hugepages: $(cat /proc/sys/vm/nr_hugepages) x 2 MiB reserved"
  exit 0
fi
pages=${1:-1024}
cur=$(cat /proc/sys/vm/nr_hugepages)
if [ "$cur" -lt "$pages" ]; then
  echo "$pages" >/proc/sys/vm/nr_hugepages
fi
got=$(cat /proc/sys/vm/nr_hugepages)
mkdir -p /dev/hugepages
if ! mountpoint -q /dev/hugepages; then
  mount -t hugetlbfs nodev /dev/hugepages
fi
echo "hugepages: $got x 2 MiB reserved, hugetlbfs at /dev/hugepages"
[ "$got" -ge "$pages" ] || echo "warning: asked for $pages pages, kernel gave $got" >&2
