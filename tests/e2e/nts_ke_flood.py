#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An NTS-KE connection flood from one address, for nts_ke_flood_test.

  nts_ke_flood.py SOURCE SERVER PORT CONNECTIONS SECONDS

Keeps CONNECTIONS TCP connections from SOURCE to SERVER:PORT open for
SECONDS (or until SIGTERM): every connection the server closes (or that fails) is opened
again, at most CONNECTIONS a second, so the flood holds as many as it can
the whole time. One
connection in 15 sends the first bytes of a TLS ClientHello and stops
there; the others send nothing. Prints "holding N" to stderr once the first
CONNECTIONS are open, then, at the end, one JSON object on stdout:
{"opened": total connects, "closed_by_server": N, "held": open at the end}.
"""
import errno
import json
import resource
import select
import signal
import socket
import sys
import time

stop = False


def on_term(signum, frame):
    global stop
    stop = True

# A TLS record header (handshake, TLS 1.0) and the start of a ClientHello
# whose length promises more than ever comes.
PARTIAL_HELLO = bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC])


def main():
    signal.signal(signal.SIGTERM, on_term)
    source, server, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    wanted, seconds = int(sys.argv[4]), float(sys.argv[5])
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted + 256), hard))
    family = socket.AF_INET6 if ":" in server else socket.AF_INET
    poller = select.epoll()
    conns = {}  # fd -> (socket, sends the partial ClientHello)
    opened = closed_by_server = 0

    def open_one():
        nonlocal opened
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((source, 0))
        err = s.connect_ex((server, port))
        if err not in (0, errno.EINPROGRESS):
            s.close()
            return
        opened += 1
        partial = opened % 15 == 0
        conns[s.fileno()] = (s, partial)
        poller.register(s.fileno(), select.EPOLLOUT | select.EPOLLIN)

    for _ in range(wanted):
        open_one()
    print(f"holding {len(conns)}", file=sys.stderr, flush=True)
    end = time.monotonic() + seconds
    budget, refill_at = wanted, time.monotonic() + 1
    while time.monotonic() < end and not stop:
        if time.monotonic() >= refill_at:
            budget, refill_at = wanted, refill_at + 1
        for fd, events in poller.poll(0.05):
            s, partial = conns[fd]
            if events & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if data:
                    continue  # the server said something: keep holding
                poller.unregister(fd)
                del conns[fd]
                s.close()
                closed_by_server += 1
                continue
            if events & select.EPOLLOUT:  # connected
                if partial:
                    try:
                        s.send(PARTIAL_HELLO)
                    except OSError:
                        pass
                poller.modify(fd, select.EPOLLIN)
        while len(conns) < wanted and budget > 0:
            before = len(conns)
            open_one()
            budget -= 1
            if len(conns) == before:
                break
    held = len(conns)
    for s, _ in conns.values():
        s.close()
    print(json.dumps({"opened": opened, "closed_by_server": closed_by_server,
                      "held": held}), flush=True)


if __name__ == "__main__":
    main()
