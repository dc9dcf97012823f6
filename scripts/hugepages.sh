#!/usr/bin/env bash
# Reserves 2 MiB hugepages and mounts hugetlbfs at /dev/hugepages for DPDK.
#   scripts/hugepages.sh [PAGES]      (default 1024 = 2 GiB)
# Idempotent; never lowers an existing larger reservation.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
zg_need_root "hugepages.sh"
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
