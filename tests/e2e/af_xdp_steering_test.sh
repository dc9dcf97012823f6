#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: the AF_XDP deployment mode on a veth rig, with zeitgeber's XDP program.
#   tests/e2e/af_xdp_steering_test.sh ZEITGEBERD ZG_XDP_OBJ
# Proves, against the kernel's own stack in a network namespace:
#  - NTP (UDP 123) to the served address reaches zeitgeberd's worker through
#    AF_XDP and is answered (mode 4, origin = the client's transmit time,
#    receive <= transmit);
#  - ping (ICMP + ARP) to the same address is answered by the kernel;
#  - UDP to another port, and UDP 123 to an address zeitgeberd does not
#    serve, stay with the kernel (which refuses them: ICMP port unreachable);
#  - the metrics exposition passes `promtool check metrics`;
#  - SIGTERM stops the daemon with exit code 0, final counters match, and the
#    XDP program is gone from the interface afterwards.
# Needs root (netns, XDP); exits 77 (skip) otherwise. Cleans up on any exit.
set -uo pipefail
APP=$(realpath "$1"); OBJ=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/netns.sh"
. "$HERE/../../scripts/wait-lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip ethtool curl promtool; do
  command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
PY=/usr/bin/python3
RIG=zgx$$
SRV=10.98.0.1 OTHER=10.98.0.3 CLI=10.98.0.2
WORK=$(mktemp -d /tmp/zg_afxdp.XXXXXX)
APP_PID=
cleanup() {
  [ -n "$APP_PID" ] && kill -KILL "$APP_PID" 2>/dev/null
  zg_rig_down "$RIG"
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- daemon log"; cat "$WORK/app.log"; exit 1; }

zg_rig_up "$RIG" "$SRV/24" "$CLI/24" || fail "rig setup"
# The kernel keeps the server's address (ARP, ICMP) plus one we do not serve.
ip addr add "$SRV/24" dev "$ZG_RIG_HOST_IF"
ip addr add "$OTHER/24" dev "$ZG_RIG_HOST_IF"

timeout 60 "$APP" --no-huge -m 512 --no-shconf --no-pci --no-telemetry \
  --file-prefix "zgx$$" -l 0-1 --log-level=lib.eal:warning \
  --vdev="net_af_xdp0,iface=$ZG_RIG_HOST_IF,xdp_prog=$OBJ" -- \
  --port=net_af_xdp0 --address="$SRV/24" --metrics_address=127.0.0.1:0 --status_address= --control_socket= \
  --stats_interval=100ms >"$WORK/app.log" 2>&1 &
APP_PID=$!
started() {
  grep -q "zeitgeberd running" "$WORK/app.log" && return 0
  kill -0 "$APP_PID" 2>/dev/null || fail "daemon exited during start-up"
  return 1
}
zg_wait 20 "zeitgeberd running" started || fail "daemon not running"
ip link show "$ZG_RIG_HOST_IF" | grep -q "prog/xdp" || fail "no XDP program attached"

cat >"$WORK/client.py" <<'PYEOF'
import socket, struct, sys, time
srv, other, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
# One deadline for the whole run (each answer takes well under a second).
deadline = time.monotonic() + 15
def left():
    t = deadline - time.monotonic()
    if t <= 0:
        raise SystemExit("client: out of time (15 s in all)")
    return min(t, 2.0)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
answered = 0
for i in range(n):
    t1 = struct.pack(">II", int(time.time()) + 2208988800, i + 1)
    s.sendto(bytes([0x23, 0, 6, 0xec]) + bytes(36) + t1, (srv, 123))
    s.settimeout(left())
    data, addr = s.recvfrom(2048)
    assert addr == (srv, 123), addr
    assert len(data) == 48 and data[0] & 7 == 4, data  # mode 4
    assert data[24:32] == t1, "origin must echo our transmit timestamp"
    t2, t3 = struct.unpack(">QQ", data[32:48])
    assert 0 < t2 <= t3, (t2, t3)
    answered += 1
print("answered", answered)
# Not ours: another port on the served address, and port 123 on an address
# zeitgeberd does not serve. The kernel has no listener: port unreachable.
for dst in ((srv, 5000), (other, 123)):
    c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    c.settimeout(left())
    c.connect(dst)
    c.send(b"x" * 48)
    try:
        c.recv(2048)
        raise SystemExit("unexpected answer from %s" % (dst,))
    except ConnectionRefusedError:
        print("kernel refused", dst)
PYEOF
N=20
zg_in_ns timeout "$(zg_left 20)" "$PY" "$WORK/client.py" "$SRV" "$OTHER" "$N" \
  >"$WORK/client.log" 2>&1 || { cat "$WORK/client.log"; fail "UDP client"; }
cat "$WORK/client.log"
zg_in_ns ping -c 3 -i 0.2 -w "$(zg_left 5)" "$SRV" >/dev/null || fail "kernel did not answer ping"
echo "ping answered by the kernel"

port=$(sed -n 's/.*metrics on .*(port \([0-9]*\)).*/\1/p' "$WORK/app.log")
# Counters are published once per --stats_interval: the first scrape that
# has every reply.
zg_wait_metric 5 "$port" "$WORK/metrics.txt" zeitgeber_frames_replied_total \
  'kind="ntp"' "$N" || { grep frames_replied "$WORK/metrics.txt"; fail "replies not counted"; }
promtool check metrics <"$WORK/metrics.txt" || fail "promtool check metrics"
grep -q "^zeitgeber_frames_replied_total{kind=\"ntp\".*} $N\$" \
  "$WORK/metrics.txt" || { grep frames_replied "$WORK/metrics.txt"; fail "replied count"; }

zg_stop "$APP_PID" 10; rc=$ZG_STOP_RC; APP_PID=
[ "$rc" -eq 0 ] || fail "exit code $rc after SIGTERM"
grep -q "final counters: rx_packets=$N .*tx_packets=$N " "$WORK/app.log" ||
  fail "final counters"
grep -q "final xdp $ZG_RIG_HOST_IF: steered=$N " "$WORK/app.log" ||
  fail "XDP steered count"
ip link show "$ZG_RIG_HOST_IF" | grep -q "prog/xdp" && fail "XDP program left attached"
grep "final" "$WORK/app.log"
echo "PASS"
