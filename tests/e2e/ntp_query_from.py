#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One NTP client request from a given source address.

  ntp_query_from.py SERVER SOURCE [TIMEOUT_S]

Sends one NTPv4 client request from SOURCE (bound, port chosen by the
kernel) to SERVER:123 and waits up to TIMEOUT_S (default 2) for the reply.
Prints one JSON object: {"reply": false} when none came, else
{"reply": true, "stratum": N, "refid": "DENY" or the hex refid,
"origin_ok": true/false}. Always exits 0 (the caller judges).
"""
import json
import os
import socket
import struct
import sys
import time

NTP_UNIX_OFFSET = 2208988800


def main():
    server, source = sys.argv[1], sys.argv[2]
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((source, 0))
    s.settimeout(timeout)
    t1 = struct.pack(">I", int(time.time()) + NTP_UNIX_OFFSET) + os.urandom(4)
    s.sendto(bytes([0x23, 0, 6, 0xEC]) + bytes(36) + t1, (server, 123))
    try:
        data, _ = s.recvfrom(2048)
    except socket.timeout:
        print(json.dumps({"reply": False}))
        return
    refid = data[12:16]
    text = refid.decode("ascii") if all(32 <= b < 127 for b in refid) else refid.hex()
    print(json.dumps({"reply": True, "stratum": data[1], "refid": text,
                      "origin_ok": data[24:32] == t1}))


if __name__ == "__main__":
    main()
