#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Many NTP clients at once, for the two-worker e2e test.

  ntp_many_clients.py SERVER4 SERVER6 PER_SOURCE SOURCE_ADDR...

Opens PER_SOURCE UDP sockets on each source address (each gets its own
ephemeral port, so every socket is a distinct client flow), sends one NTPv4
client request from each to SERVER4 or SERVER6 (by the source's family),
then waits up to 10 s for the replies. A reply counts as an answer when it
is 48 bytes, mode 4, from port 123 of the server, stratum 1..15 and echoes
the request's transmit timestamp as its origin. Prints one JSON object:
{"sent": N, "answered": M, "problems": [...]} and exits 0 iff M == N.
"""
import json
import os
import select
import socket
import struct
import sys
import time

NTP_UNIX_OFFSET = 2208988800


def main():
    server4, server6, per_source = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sources = sys.argv[4:]
    pending = {}
    for src in sources:
        family = socket.AF_INET6 if ":" in src else socket.AF_INET
        server = server6 if family == socket.AF_INET6 else server4
        for _ in range(per_source):
            s = socket.socket(family, socket.SOCK_DGRAM)
            s.bind((src, 0))
            s.setblocking(False)
            t1 = struct.pack(">I", int(time.time()) + NTP_UNIX_OFFSET) + os.urandom(4)
            s.sendto(bytes([0x23, 0, 6, 0xEC]) + bytes(36) + t1, (server, 123))
            pending[s.fileno()] = (s, t1, src, server)
    sent = len(pending)
    answered = 0
    problems = []
    deadline = time.monotonic() + 10
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select(list(pending), [], [], 0.5)
        for fd in ready:
            s, t1, src, server = pending.pop(fd)
            data, addr = s.recvfrom(2048)
            ok = (len(data) == 48 and data[0] & 7 == 4 and 1 <= data[1] <= 15
                  and data[24:32] == t1 and addr[0] == server and addr[1] == 123)
            if ok:
                answered += 1
            else:
                problems.append("bad reply to %s port %d: %s"
                                % (src, s.getsockname()[1], data.hex()))
            s.close()
    for s, _, src, _ in pending.values():
        problems.append("no reply to %s port %d" % (src, s.getsockname()[1]))
    print(json.dumps({"sent": sent, "answered": answered, "problems": problems}))
    return 0 if answered == sent else 1


if __name__ == "__main__":
    sys.exit(main())
