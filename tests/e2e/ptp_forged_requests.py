#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A storm of forged PTP unicast negotiation messages, as raw frames.

  ptp_forged_requests.py IFACE DST_MAC DST_IP DOMAIN SECONDS RATE \
      SLAVE_IP SLAVE_CLOCK_ID

Sends, from IFACE (an AF_PACKET socket: every source address is forged),
RATE Signaling messages a second for SECONDS to DST_IP:320 (DST_MAC): first
20 REQUESTs (Sync 2^-7 s, Announce 2^-3 s, Delay_Resp 2^-7 s, 1000 s) from
one address, 10.97.0.1, each with a new portIdentity (the per-source limit,
before the budget is spent), then a repeating pattern of 20:
  - 18 such REQUESTs from 2000 spoofed sources in 10.96.0.0/16, each its
    own portIdentity;
  - 1 from 10.97.0.1 with a new portIdentity;
  - 1 CANCEL of Sync in the name of the real slave (SLAVE_IP, its
    portIdentity SLAVE_CLOCK_ID-1) from UDP port 40000+ (not the port its
    grant was made to: it must be ignored).
With TRIGGER (an optional 9th argument, a path), writes "ready" to stderr
once set up and waits for TRIGGER to exist before it starts (so the caller
can start it early: on a loaded host a Python start can take seconds).
Writes "started" to stderr when the first frame is sent and "t=N sent=M"
each second after, then one JSON object {"sent": N, "requests": R,
"cancels": C, "seconds": S} to stdout at the end.
"""
import json
import os
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ptp_signaling(domain, clock_id, port, seq, tlvs):
    length = 44 + len(tlvs)
    header = struct.pack(
        "!BBHBBH8s4s8sHHBb",
        0x0C,  # majorSdoId 0, messageType Signaling
        0x12,  # minorVersionPTP 1, versionPTP 2
        length, domain, 0,
        0x0400,  # unicastFlag
        bytes(8), bytes(4), clock_id, port, seq,
        5, 0x7F)
    target = b"\xff" * 10  # every clock, every port
    return header + target + tlvs


def request_tlv(message_type, log_interval, duration):
    return struct.pack("!HHBbI", 0x0004, 6, message_type << 4, log_interval,
                       duration)


def cancel_tlv(message_type):
    return struct.pack("!HHBB", 0x0006, 2, message_type << 4, 0)


def frame(src_mac, dst_mac, src_ip, dst_ip, sport, payload):
    udp_len = 8 + len(payload)
    pseudo = src_ip + dst_ip + struct.pack("!BBH", 0, 17, udp_len)
    udp = struct.pack("!HHHH", sport, 320, udp_len, 0) + payload
    csum = checksum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", csum) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0x4000, 64,
                     17, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + udp


def main():
    iface, dst_mac, dst_ip, domain, seconds, rate, slave_ip, slave_id = \
        sys.argv[1:9]
    domain, seconds, rate = int(domain), float(seconds), int(rate)
    dst_mac = bytes.fromhex(dst_mac.replace(":", ""))
    dst_ip = socket.inet_aton(dst_ip)
    slave_ip = socket.inet_aton(slave_ip)
    slave_id = bytes.fromhex(slave_id.replace(".", ""))
    with open("/sys/class/net/%s/address" % iface) as f:
        src_mac = bytes.fromhex(f.read().strip().replace(":", ""))
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((iface, 0))
    want = (request_tlv(0x0, -7, 1000) + request_tlv(0xB, -3, 1000) +
            request_tlv(0x9, -7, 1000))
    sent = requests = cancels = 0
    if len(sys.argv) > 9:
        print("ready", file=sys.stderr, flush=True)
        while not os.path.exists(sys.argv[9]):
            time.sleep(0.01)
    start = time.monotonic()
    batch = max(1, rate // 100)  # every 10 ms
    seq = 0
    reported = 0
    print("started", file=sys.stderr, flush=True)
    while time.monotonic() - start < seconds:
        elapsed = int(time.monotonic() - start)
        if elapsed > reported:
            reported = elapsed
            print("t=%d sent=%d" % (elapsed, sent), file=sys.stderr, flush=True)
        for _ in range(batch):
            k = sent % 20 if sent >= 20 else 18
            seq = (seq + 1) & 0xFFFF
            if k < 18:
                i = sent % 2000
                src = bytes([10, 96, i // 250, i % 250 + 1])
                clock = bytes([0x02, 0x96, i // 250, 0xFF, 0xFE, i % 250, 0, 1])
                msg = ptp_signaling(domain, clock, 1, seq, want)
                pkt = frame(src_mac, dst_mac, src, dst_ip, 320, msg)
                requests += 1
            elif k == 18:
                clock = bytes([0x02, 0x97, 0, 0xFF, 0xFE]) + \
                    struct.pack("!I", sent)[1:]
                msg = ptp_signaling(domain, clock, 1, seq, want)
                pkt = frame(src_mac, dst_mac, bytes([10, 97, 0, 1]), dst_ip,
                            320, msg)
                requests += 1
            else:
                msg = ptp_signaling(domain, slave_id, 1, seq, cancel_tlv(0x0))
                pkt = frame(src_mac, dst_mac, slave_ip, dst_ip,
                            40000 + cancels % 1000, msg)
                cancels += 1
            sock.send(pkt)
            sent += 1
        next_at = start + sent / rate
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    print(json.dumps({"sent": sent, "requests": requests, "cancels": cancels,
                      "seconds": round(time.monotonic() - start, 2)}))


if __name__ == "__main__":
    main()
