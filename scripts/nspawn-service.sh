#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Boots the Debian package in a systemd-nspawn container (PID 1 is not
# systemd on the development machines) and records what an operator sees:
# apt install, zeitgeberd.service configured for the AF_XDP mode on the
# container's veth, systemctl status active, ntpdig answered from a network
# namespace on the host, restart, the watchdog aborting a stalled zeitgeberd
# (through the TEST-ONLY stall hook), a killed one restarted, purge.
# Not part of CI (minutes, downloads). Root; packages systemd-container and
# debootstrap; the apt mirror.
#   scripts/nspawn-service.sh build-deb/zeitgeber_0.1.0_amd64.deb [TRANSCRIPT]
# A minimal Debian 12 is debootstrapped into /var/tmp/zg-nspawn and removed
# at the end (ZG_NSPAWN_KEEP=1 keeps it for the next run).
set -u
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 1; }
DEB=$(realpath "$1")
T=${2:-nspawn-transcript.txt}
ROOT=/var/tmp/zg-nspawn
NS=zgnc
if [ ! -x "$ROOT/lib/systemd/systemd" ]; then
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,iproute2,ethtool,procps \
    bookworm "$ROOT" http://deb.debian.org/debian >/dev/null || { echo "debootstrap failed" >&2; exit 1; }
fi
: >"$T"
say() { echo "$*" | tee -a "$T"; }
host() { say "host# $*"; bash -c "$*" 2>&1 | tee -a "$T"; say ""; }
ct() { say "container# $*"; nsenter -t "$CPID" -a -- /bin/bash -lc "$*" 2>&1 | tee -a "$T"; say ""; }
cleanup() {
  [ -n "${CPID:-}" ] && nsenter -t "$CPID" -a -- systemctl poweroff >/dev/null 2>&1
  for i in $(seq 100); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.2; done
  kill "$NSPAWN" 2>/dev/null
  ip netns del $NS 2>/dev/null
  [ -n "${ZG_NSPAWN_KEEP:-}" ] || rm -rf "$ROOT"
}
trap cleanup EXIT

say "# zeitgeber in a systemd-nspawn container: Debian 12 (debootstrap --variant=minbase),"
say "# systemd as PID 1, the package installed with apt, zeitgeberd.service in the AF_XDP"
say "# mode on a veth pair whose far end is in a network namespace on the host,"
say "# where ntpdig (ntpsec) asks the time. $(date -u +%FT%TZ), host $(uname -r)."
say "# The container gets what a host gives zeitgeberd.service anyway: CAP_BPF, CAP_PERFMON and"
say "# CAP_IPC_LOCK in its bounding set, the bpf and clock_adjtime system calls (nspawn's own"
say "# filter allows them only with CAP_SYS_ADMIN / CAP_SYS_TIME), and /sys/module (DPDK's EAL"
say "# looks for vfio there; this host's nspawn leaves it out of the container's /sys)."
say "# No udev or machined on this host: --network-veth, --register=no."
say ""
host "dpkg-deb -f $DEB Package Version Depends | cut -c1-200"
# The package's dependencies, downloaded into the container's apt cache with
# the host's network (the container has only the veth).
host "cp $DEB $ROOT/root/ && chroot $ROOT apt-get -qq update && chroot $ROOT apt-get -qq install --download-only -y /root/$(basename "$DEB") >/dev/null && echo 'dependencies downloaded'"
say "host# systemd-nspawn -b -D $ROOT -M zgct --register=no --keep-unit --network-veth --bind-ro=/sys/module --system-call-filter='bpf adjtimex clock_adjtime' --capability=CAP_BPF,CAP_PERFMON,CAP_IPC_LOCK &"
systemd-nspawn -q -b -D "$ROOT" -M zgct --register=no --keep-unit --network-veth \
  --bind-ro=/sys/module --system-call-filter="bpf adjtimex clock_adjtime" \
  --capability=CAP_BPF,CAP_PERFMON,CAP_IPC_LOCK --console=passive >/dev/null 2>&1 &
NSPAWN=$!
CPID=
for i in $(seq 150); do
  for p in $(pgrep -x systemd); do
    if grep -q "^NSpid:.*[[:space:]]1$" /proc/$p/status 2>/dev/null && [ "$p" != 1 ]; then CPID=$p; fi
  done
  [ -n "$CPID" ] && break; sleep 0.2
done
[ -n "$CPID" ] || { say "container did not boot"; cat /dev/null; exit 1; }
for i in $(seq 100); do
  nsenter -t "$CPID" -a -- systemctl is-system-running --wait >/dev/null 2>&1 && break
  sleep 0.3
done
ct "systemctl is-system-running; cat /proc/1/comm; grep PRETTY /etc/os-release"
say "# The container's veth (host0 inside) has its host end ve-zgct; that end goes into"
say "# the namespace $NS, where the client runs."
host "ip netns add $NS && ip link set ve-zgct netns $NS && ip netns exec $NS ip addr add 10.93.0.2/24 dev ve-zgct && ip netns exec $NS ip link set ve-zgct up && ip netns exec $NS ip link set lo up && ip netns exec $NS ethtool -K ve-zgct tx off rx off gro on >/dev/null && ip netns exec $NS ip -br addr show ve-zgct"
ct "apt-get install -y /root/$(basename "$DEB") 2>&1 | grep -E '^(The following NEW|  [a-z]|[0-9]+ upgraded|Setting up zeitgeber|Creating|zeitgeberd)'"
ct "getent passwd zeitgeber; systemctl is-enabled zeitgeberd; dpkg-query -W -f='\${Conffiles}\n' zeitgeber"
say "# The operator's part: the interface, the EAL options (this host has 2 cores: -l 0-1),"
say "# the address, and the unit's CPUAffinity to match. This VM's clock is not NTP-synchronised"
say "# (STA_UNSYNC), so it is served anyway (--require_system_clock_sync=false), and the"
say "# worker sleeps when idle on this shared 2-core host (--idle_sleep)."
ct "ethtool -K host0 tx off rx off >/dev/null; ip addr add 10.93.0.1/24 dev host0 && ip link set host0 up && ip -br addr show host0"
ct "sed -i 's|iface=eth1|iface=host0|; s|-l 1-2 |-l 0-1 |' /etc/default/zeitgeberd && grep ^ZEITGEBERD_EAL /etc/default/zeitgeberd"
ct "sed -i 's|^--address=192.0.2.10/24|--address=10.93.0.1/24|' /etc/zeitgeber/zeitgeberd.flags && printf -- '--require_system_clock_sync=false\n--idle_sleep=50us\n' >>/etc/zeitgeber/zeitgeberd.flags && grep -v '^#' /etc/zeitgeber/zeitgeberd.flags | grep -v '^\$'"
ct "mkdir -p /etc/systemd/system/zeitgeberd.service.d && printf '[Service]\nCPUAffinity=0-1\n' >/etc/systemd/system/zeitgeberd.service.d/cores.conf && systemctl daemon-reload && systemctl cat zeitgeberd | grep -A2 cores.conf"
ct "time systemctl enable --now zeitgeberd"
ct "systemctl status zeitgeberd --no-pager -l | cut -c1-220"
host "ip netns exec $NS ntpdig -t 2 10.93.0.1"
host "ip netns exec $NS ntpdig -t 2 10.93.0.1"
ct "sleep 2; systemctl show zeitgeberd -p ActiveState -p SubState -p StatusText -p WatchdogUSec -p WatchdogTimestamp -p User -p NRestarts"
ct "journalctl -b -u zeitgeberd -o short-monotonic --no-pager | cut -c1-200"
ct "journalctl -b -u zeitgeberd -p warning --no-pager -o cat | cut -c1-200"
say "# systemctl restart: the old one stops, the new one claims the port and answers."
ct "time systemctl restart zeitgeberd; systemctl is-active zeitgeberd"
host "ip netns exec $NS ntpdig -t 2 10.93.0.1"
say "# The watchdog, for real: for this demonstration only, the TEST-ONLY hook"
say "# (--test_stall_file) stalls worker 0. zeitgeberd logs the stall and stops WATCHDOG=1;"
say "# 10 s later systemd aborts it (SIGABRT) and restarts it. The file is removed once"
say "# systemd has acted, so that the new zeitgeberd's worker runs."
ct "echo --test_stall_file=/run/zeitgeber/stall >>/etc/zeitgeber/zeitgeberd.flags; systemctl restart zeitgeberd; systemctl show zeitgeberd -p NRestarts; echo 0 >/run/zeitgeber/stall; date -u +%T; for i in \$(seq 200); do journalctl -b -u zeitgeberd -o cat | grep -q 'Watchdog timeout' && break; sleep 0.1; done; rm /run/zeitgeber/stall; date -u +%T; sleep 6; journalctl -b -u zeitgeberd -o short-precise --no-pager | grep -E 'TEST HOOK|stalled|Watchdog|SIGABRT|Killing|Main process exited|Scheduled restart|detached|ready' | tail -9 | cut -c1-200; systemctl show zeitgeberd -p ActiveState -p NRestarts"
host "ip netns exec $NS ntpdig -t 2 10.93.0.1"
ct "sed -i '/^--test_stall_file/d' /etc/zeitgeber/zeitgeberd.flags; systemctl restart zeitgeberd; systemctl is-active zeitgeberd"
say "# Killed (as the watchdog's SIGABRT would): systemd restarts it; the XDP program the"
say "# killed one left attached is detached by the new one, which answers."
ct "systemctl kill -s KILL zeitgeberd; sleep 8; systemctl show zeitgeberd -p ActiveState -p NRestarts -p StatusText; journalctl -b -u zeitgeberd -p warning --no-pager -o cat -n 5 | cut -c1-200"
host "ip netns exec $NS ntpdig -t 2 10.93.0.1"
ct "systemd-analyze security zeitgeberd --no-pager | tail -1"
ct "systemctl stop zeitgeberd; journalctl -b -u zeitgeberd --no-pager -o cat -n 3 | cut -c1-200; systemctl is-active zeitgeberd"
ct "apt-get purge -y zeitgeber 2>&1 | grep -E '^(The following packages will be REMOVED|  zeitgeber|Removing|Purging)'; ls -d /etc/zeitgeber /var/lib/zeitgeber /var/log/zeitgeber /usr/sbin/zeitgeberd /lib/systemd/system/zeitgeberd.service 2>&1"
say "# (The drop-in /etc/systemd/system/zeitgeberd.service.d is the operator's own file.)"
