#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Exactly N NTPv4 client requests to SERVER, paced at RATE per second.

  ntp_burst.py SERVER N RATE

Sends from one UDP socket and exits without reading replies (the test
counts them in a capture). Prints {"sent": N, "seconds": S}.
"""
import json
import socket
import struct
import sys
import time


def main():
    server, n, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    start = time.perf_counter()
    for i in range(n):
        due = start + i / rate
        while time.perf_counter() < due:
            pass
        t1 = struct.pack(">II", int(time.time()) + 2208988800, i)
        while True:
            try:
                s.sendto(bytes([0x23, 0, 6, 0xEC]) + bytes(36) + t1,
                         (server, 123))
                break
            except BlockingIOError:
                time.sleep(0.0001)
    print(json.dumps({"sent": n, "seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
