#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a port offers for timestamps, and which stamp plan zeitgeberd picks
# on it (doc/deployment.md, "NIC timestamps"). For an operator with real
# hardware; also runs on a veth (AF_XDP) or a net_ring vdev.
#
#   scripts/nic-check.sh [options] PORT [-- ZEITGEBERD_FLAGS...]
#
# PORT is one of
#   0000:3b:00.0            a PCI NIC DPDK can drive (vfio-pci, or mlx5's
#                           bifurcated driver next to the kernel's netdev)
#   eth1                    a kernel interface: `ethtool -i/-T` (the kernel's
#                           and the PHC's view), then zeitgeberd on it through
#                           net_af_xdp with zeitgeber's XDP program, which
#                           passes every frame on to the kernel (no --address)
#   net_ring0, net_af_xdp0,iface=eth1, ...   a DPDK vdev as --vdev takes it
# Options:
#   --timesync          enable timesync and measure the TX-stamp latency
#                       (sends 8 PTP Sync frames, domain 127, one at a time)
#   --zeitgeberd PATH   default: build-rel/ then build/ under the repository
#   --xdp-prog PATH     zg_xdp.o for kernel interfaces (default: next to
#                       zeitgeberd)
#   --lcores LIST       EAL -l (default 0-1: control thread + one worker)
#   --no-dpdk           only the kernel's view; do not start zeitgeberd
# Flags after -- go to zeitgeberd (e.g. --tx_schedule=auto).
#
# Prints "KEY: VALUE" lines in sections; exits 0 when the probe ran, 1 on a
# usage error, zeitgeberd's exit code when it failed (3: the port).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 1; }

TIMESYNC=0 NO_DPDK=0 LCORES=0-1 APP= XDP_PROG= PORT=
EXTRA=()
while [ $# -gt 0 ]; do
  case $1 in
    --timesync) TIMESYNC=1 ;;
    --no-dpdk) NO_DPDK=1 ;;
    --zeitgeberd) APP=$2; shift ;;
    --xdp-prog) XDP_PROG=$2; shift ;;
    --lcores) LCORES=$2; shift ;;
    -h|--help) usage ;;
    --) shift; EXTRA=("$@"); break ;;
    -*) echo "unknown option $1" >&2; usage ;;
    *) [ -z "$PORT" ] || usage; PORT=$1 ;;
  esac
  shift
done
[ -n "$PORT" ] || usage

find_app() {
  local d
  for d in "$ZG_ROOT/build-rel" "$ZG_ROOT/build"; do
    [ -x "$d/dataplane/zeitgeberd" ] && { echo "$d/dataplane/zeitgeberd"; return; }
  done
  command -v zeitgeberd
}

# The kernel's view of interface $1: driver, PHC, ethtool -T.
kernel_view() {
  local ifc=$1 drv phc
  echo "== kernel interface $ifc"
  drv=$(basename "$(readlink -f "/sys/class/net/$ifc/device/driver" 2>/dev/null)" 2>/dev/null)
  [ -n "$drv" ] && [ "$drv" != "." ] || drv=$(ethtool -i "$ifc" 2>/dev/null | awk '/^driver:/{print $2}')
  echo "driver: ${drv:-unknown}"
  if [ -e "/sys/class/net/$ifc/device" ]; then
    echo "bus_address: $(basename "$(readlink -f "/sys/class/net/$ifc/device")")"
  else
    echo "bus_address: none (a virtual interface)"
  fi
  if ! command -v ethtool >/dev/null; then
    echo "ethtool: not installed (apt-get install ethtool)"
    return
  fi
  local ts
  ts=$(ethtool -T "$ifc" 2>&1)
  phc=$(awk -F': ' '/PTP Hardware Clock/{print $2}' <<<"$ts")
  echo "phc: $([ -n "$phc" ] && [ "$phc" != "none" ] && echo "/dev/ptp$phc" || echo none)"
  echo "hardware_tx: $(grep -q 'hardware-transmit' <<<"$ts" && echo yes || echo no)"
  echo "hardware_rx: $(grep -q 'hardware-receive' <<<"$ts" && echo yes || echo no)"
  echo "rx_filter_all: $(grep -q 'all ' <<<"$ts" && echo yes || echo no)"
  echo "--- ethtool -T $ifc"
  echo "$ts"
  echo "---"
  case $drv in
    mlx5_core) echo "hint: ConnectX runs bifurcated: try scripts/nic-check.sh $(basename "$(readlink -f "/sys/class/net/$ifc/device")") for the PMD's own caps" ;;
    ice|i40e|ixgbe|igb|igc) echo "hint: the DPDK PMD's timesync needs the port bound to vfio-pci (dpdk-devbind.py); through AF_XDP zeitgeberd gets the kernel's stamps" ;;
  esac
}

EAL=(-l "$LCORES" --no-shconf --file-prefix "zgnic$$" --log-level=lib.eal:warning --no-telemetry)
DPDK_PORT=
if [[ $PORT =~ ^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$ ]]; then
  EAL+=(-a "$PORT")
  DPDK_PORT=0
elif [[ $PORT == net_* ]]; then
  EAL+=(--no-huge -m 256 --no-pci "--vdev=$PORT")
  DPDK_PORT=${PORT%%,*}
  if [[ $PORT =~ iface=([^,]+) ]]; then kernel_view "${BASH_REMATCH[1]}"; fi
elif [ -e "/sys/class/net/$PORT" ]; then
  kernel_view "$PORT"
  [ -n "$APP" ] || APP=$(find_app)
  [ -n "$XDP_PROG" ] || XDP_PROG="$(dirname "${APP:-.}")/zg_xdp.o"
  if [ ! -f "$XDP_PROG" ]; then
    echo "zeitgeberd: skipped (no zg_xdp.o; without it net_af_xdp would take every frame of the queue from the kernel)"
    NO_DPDK=1
  fi
  EAL+=(--no-huge -m 256 --no-pci "--vdev=net_af_xdp0,iface=$PORT,xdp_prog=$XDP_PROG")
  DPDK_PORT=net_af_xdp0
else
  zg_die "$PORT: not a PCI address, a kernel interface or a net_* vdev"
fi
[ "$NO_DPDK" -eq 1 ] && exit 0

[ -n "$APP" ] || APP=$(find_app)
[ -x "$APP" ] || zg_die "no zeitgeberd (build it: ninja -C build-rel, or --zeitgeberd PATH)"
FLAGS=(--port="$DPDK_PORT" --nic_check --metrics_address= --status_address= --require_system_clock_sync=false)
[ "$TIMESYNC" -eq 1 ] && FLAGS+=(--timesync)
OUT=$(mktemp /tmp/zg_nic_check.XXXXXX)
trap 'rm -f "$OUT"' EXIT
timeout 60 "$APP" "${EAL[@]}" -- "${FLAGS[@]}" "${EXTRA[@]}" >"$OUT" 2>&1
RC=$?
echo "== zeitgeberd --nic_check ($APP)"
if [ "$RC" -ne 0 ]; then
  cat "$OUT"
  echo "zeitgeberd: exit $RC (see its messages above)"
  exit "$RC"
fi
grep '^nic_check ' "$OUT" | sed 's/^nic_check //'
grep -E ' [WE] ' "$OUT" | sed 's/^[^ ]* /log: /'
echo "== plan"
sed -n 's/^nic_check plan: //p' "$OUT"
