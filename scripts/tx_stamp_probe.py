#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NTP client probe for scripts/measure-tx-stamp.sh: how far a server's
transmit timestamp (T3) is from the time its reply reached us.

Sends NTP client requests (mode 3) to SERVER:123, either one at a time or in
bursts of N sent by one sendmmsg(2) call (so they reach the server's RX ring
together and are answered in one TX batch), and receives the replies with
SO_TIMESTAMPNS: the kernel's receive time of each reply, CLOCK_REALTIME.

Scales: T3 is an NTP timestamp (UTC, seconds since 1900 plus a 2^-32 s
fraction); SO_TIMESTAMPNS is CLOCK_REALTIME (UTC, ns since 1970) on the same
host, so  rx - T3 = rx_ns - ((T3.sec - 2208988800) * 1e9 + T3.frac * 1e9 /
2^32), in ns. Positive: T3 is earlier than the reply's arrival.

Prints one JSON object: per mode the median and p90 of (rx - T3) in ns, the
count, and for bursts the median per arrival position.
"""
import argparse
import ctypes
import json
import os
import socket
import statistics
import struct
import time

NTP_UNIX = 2208988800
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class Msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(Iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


class Mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", Msghdr), ("len", ctypes.c_uint)]


libc = ctypes.CDLL(None, use_errno=True)


def request(seq):
    # LI 0, VN 4, mode 3; a unique transmit timestamp to match the reply.
    return struct.pack("!BBbb11I", 0x23, 0, 6, -20, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0x7a670000, seq)


def sendmmsg(sock, frames):
    n = len(frames)
    bufs = [ctypes.create_string_buffer(f, len(f)) for f in frames]
    iovs = (Iovec * n)()
    msgs = (Mmsghdr * n)()
    for i, b in enumerate(bufs):
        iovs[i].base = ctypes.cast(b, ctypes.c_void_p)
        iovs[i].len = len(frames[i])
        msgs[i].hdr.iov = ctypes.pointer(iovs[i])
        msgs[i].hdr.iovlen = 1
    sent = libc.sendmmsg(sock.fileno(), msgs, n, 0)
    if sent != n:
        raise OSError(ctypes.get_errno(), "sendmmsg sent %d of %d" % (sent, n))


def receive(sock, want, deadline):
    """Returns {seq: (rx_ns, t3_ns)} for up to `want` replies."""
    got = {}
    order = []
    while len(got) < want:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        sock.settimeout(left)
        try:
            data, anc, _, _ = sock.recvmsg(512, socket.CMSG_SPACE(16))
        except socket.timeout:
            break
        if len(data) < 48:
            continue
        rx_ns = None
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                rx_ns = sec * 1_000_000_000 + nsec
        fields = struct.unpack("!12I", data[:48])
        if fields[6] != 0x7a670000 or rx_ns is None:  # origin = our tx
            continue
        seq = fields[7]
        t3_ns = (fields[10] - NTP_UNIX) * 1_000_000_000 + (
            (fields[11] * 1_000_000_000) >> 32)
        got[seq] = (rx_ns, t3_ns)
        order.append(seq)
    return got, order


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    k = min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))
    return xs[k]


def summary(diffs):
    return {"n": len(diffs), "median_ns": statistics.median(diffs) if diffs
            else None, "p90_ns": pct(diffs, 90), "p10_ns": pct(diffs, 10)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--singles", type=int, default=300)
    ap.add_argument("--bursts", type=int, default=60)
    ap.add_argument("--burst", type=int, default=16)
    ap.add_argument("--gap", type=float, default=0.004, help="s between sends")
    a = ap.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    sock.connect((a.server, 123))
    seq = 1
    singles = []
    lost = 0
    for _ in range(a.singles):
        sock.send(request(seq))
        got, _ = receive(sock, 1, time.monotonic() + 0.2)
        if seq in got:
            rx, t3 = got[seq]
            singles.append(rx - t3)
        else:
            lost += 1
        seq += 1
        time.sleep(a.gap)
    bursts = []
    by_pos = [[] for _ in range(a.burst)]
    sizes = []
    for _ in range(a.bursts):
        frames = [request(seq + i) for i in range(a.burst)]
        first = seq
        seq += a.burst
        sendmmsg(sock, frames)
        got, order = receive(sock, a.burst, time.monotonic() + 0.3)
        lost += a.burst - len(got)
        # Arrival order = the server's TX order within its batch.
        for pos, s in enumerate(order):
            if first <= s < first + a.burst:
                rx, t3 = got[s]
                bursts.append(rx - t3)
                by_pos[pos].append(rx - t3)
        # How many replies of the burst shared one T3 batch stamp (equal
        # T3s: answered in one tx_burst, for "before").
        sizes.append(len({got[s][1] for s in got}))
        time.sleep(a.gap * 4)
    out = {"single": summary(singles), "burst": summary(bursts),
           "burst_size": a.burst, "lost": lost,
           "distinct_t3_per_burst_median": statistics.median(sizes)
           if sizes else None,
           "burst_by_position_median_ns": [
               statistics.median(p) if p else None for p in by_pos]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
