#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Known-answer frames for the tests/core/net/ frame tests and fuzz seeds.

Builds each frame with its own (naive, 16-bit-word) RFC 1071 checksum code,
independent of core/net/checksum.cc, and writes
  tests/core/testdata/frame_vectors.inc   C++ hex strings
  tests/fuzz/corpus/frame/<name>.bin       libFuzzer seeds
With --verify, every frame is also dissected by tshark with checksum
validation on, and any bad or malformed field fails the run:
  python3 tests/core/testdata/make_frame_vectors.py --verify
"""
import ipaddress
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

OUR_MAC = bytes.fromhex("020000000001")
PEER_MAC = bytes.fromhex("020000000002")
OUR4, PEER4 = "10.99.0.1", "10.99.0.2"
OUR6, PEER6 = "2001:db8::1", "2001:db8::2"


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip4(a):
    return ipaddress.IPv4Address(a).packed


def ip6(a):
    return ipaddress.IPv6Address(a).packed


def eth(dst, src, etype, vlan=None, qinq=None):
    h = dst + src
    if qinq is not None:
        h += struct.pack("!HH", 0x88A8, qinq)
    if vlan is not None:
        h += struct.pack("!HH", 0x8100, vlan)
    return h + struct.pack("!H", etype)


def ipv4(src, dst, proto, payload, options=b"", ttl=64, ident=0x1234):
    ihl = 5 + len(options) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 4 * ihl + len(payload),
                    ident, 0x4000, ttl, proto, 0, ip4(src), ip4(dst)) + options
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, hlim,
                       ip6(src), ip6(dst)) + payload


def udp4(src, dst, sport, dport, payload):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ph = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 17, len(u))
    c = csum(ph + u) or 0xFFFF
    return u[:6] + struct.pack("!H", c) + u[8:]


def l4v6(src, dst, nh, msg, coff):
    ph = ip6(src) + ip6(dst) + struct.pack("!I3xB", len(msg), nh)
    c = csum(ph + msg)
    if nh == 17:
        c = c or 0xFFFF
    return msg[:coff] + struct.pack("!H", c) + msg[coff + 2:]


def udp6(src, dst, sport, dport, payload):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    return l4v6(src, dst, 17, u, 6)


# An NTPv4 client request (mode 3) with a transmit timestamp.
NTP_REQ = bytes([0x23, 0, 6, 0xEC]) + b"\0" * 36 + bytes.fromhex(
    "e8f5a1b2c3d4e5f6")
# A PTPv2 Delay_Req (44 bytes) and an Announce-sized general message.
PTP_DELAY_REQ = bytes([0x01, 0x02]) + struct.pack("!H", 44) + b"\0" * 40
PTP_ANNOUNCE = bytes([0x0B, 0x02]) + struct.pack("!H", 64) + b"\0" * 60


def pad60(f):
    return f + b"\0" * max(0, 60 - len(f))


def frames():
    v = {}
    v["ntp4"] = eth(OUR_MAC, PEER_MAC, 0x0800) + ipv4(
        PEER4, OUR4, 17, udp4(PEER4, OUR4, 40000, 123, NTP_REQ))
    v["ntp6"] = eth(OUR_MAC, PEER_MAC, 0x86DD) + ipv6(
        PEER6, OUR6, 17, udp6(PEER6, OUR6, 40000, 123, NTP_REQ))
    v["ntp4_vlan100"] = eth(OUR_MAC, PEER_MAC, 0x0800, vlan=(5 << 13) | 100) + ipv4(
        PEER4, OUR4, 17, udp4(PEER4, OUR4, 40000, 123, NTP_REQ))
    v["ntp4_qinq"] = eth(OUR_MAC, PEER_MAC, 0x0800, vlan=100, qinq=7) + ipv4(
        PEER4, OUR4, 17, udp4(PEER4, OUR4, 40000, 123, NTP_REQ))
    # IPv4 with a router-alert option (RFC 2113), 4 bytes.
    v["ntp4_options"] = eth(OUR_MAC, PEER_MAC, 0x0800) + ipv4(
        PEER4, OUR4, 17, udp4(PEER4, OUR4, 40000, 123, NTP_REQ),
        options=bytes([0x94, 0x04, 0, 0]))
    # IPv6 hop-by-hop (PadN) then destination options (PadN), then UDP.
    hbh = bytes([60, 0, 1, 4, 0, 0, 0, 0])
    dst = bytes([17, 0, 1, 4, 0, 0, 0, 0])
    v["ntp6_ext"] = eth(OUR_MAC, PEER_MAC, 0x86DD) + ipv6(
        PEER6, OUR6, 0, hbh + dst + udp6(PEER6, OUR6, 40000, 123, NTP_REQ))
    v["ptp4_event_mcast"] = eth(bytes.fromhex("01005e000181"), PEER_MAC,
                                0x0800) + ipv4(
        PEER4, "224.0.1.129", 17,
        udp4(PEER4, "224.0.1.129", 319, 319, PTP_DELAY_REQ), ttl=1)
    v["ptp4_general"] = eth(OUR_MAC, PEER_MAC, 0x0800) + ipv4(
        PEER4, OUR4, 17, udp4(PEER4, OUR4, 320, 320, PTP_ANNOUNCE))
    v["ptp6_general_mcast"] = eth(bytes.fromhex("333300000181"), PEER_MAC,
                                  0x86DD) + ipv6(
        "fe80::2", "ff0e::181", 17,
        udp6("fe80::2", "ff0e::181", 320, 320, PTP_ANNOUNCE), hlim=1)
    v["ptp_l2"] = pad60(eth(bytes.fromhex("011b19000000"), PEER_MAC, 0x88F7) +
                        PTP_DELAY_REQ)
    v["arp_request"] = pad60(eth(b"\xff" * 6, PEER_MAC, 0x0806) + struct.pack(
        "!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, PEER_MAC, ip4(PEER4),
        b"\0" * 6, ip4(OUR4)))
    echo = struct.pack("!BBHHH", 8, 0, 0, 0x4242, 7) + bytes(range(56))
    echo = echo[:2] + struct.pack("!H", csum(echo)) + echo[4:]
    v["icmp_echo"] = eth(OUR_MAC, PEER_MAC, 0x0800) + ipv4(PEER4, OUR4, 1, echo)
    echo6 = struct.pack("!BBHHH", 128, 0, 0, 0x4242, 7) + bytes(range(56))
    v["icmp6_echo"] = eth(OUR_MAC, PEER_MAC, 0x86DD) + ipv6(
        PEER6, OUR6, 58, l4v6(PEER6, OUR6, 58, echo6, 2))
    sn = "ff02::1:ff00:1"
    ns = struct.pack("!BBHI16s", 135, 0, 0, 0, ip6(OUR6)) + bytes(
        [1, 1]) + PEER_MAC
    v["ns"] = eth(bytes.fromhex("3333ff000001"), PEER_MAC, 0x86DD) + ipv6(
        PEER6, sn, 58, l4v6(PEER6, sn, 58, ns, 2), hlim=255)
    ns_dad = struct.pack("!BBHI16s", 135, 0, 0, 0, ip6(OUR6))
    v["ns_dad"] = eth(bytes.fromhex("3333ff000001"), PEER_MAC, 0x86DD) + ipv6(
        "::", sn, 58, l4v6("::", sn, 58, ns_dad, 2), hlim=255)
    return v


def verify(v):
    bad = False
    for name, f in v.items():
        with tempfile.TemporaryDirectory() as d:
            txt, pcap = os.path.join(d, "f.txt"), os.path.join(d, "f.pcap")
            with open(txt, "w") as fh:
                fh.write("000000 " + " ".join("%02x" % b for b in f) + "\n")
            subprocess.run(["text2pcap", "-q", txt, pcap], check=True,
                           capture_output=True)
            out = subprocess.run(
                ["tshark", "-n", "-r", pcap, "-V",
                 "-o", "ip.check_checksum:TRUE",
                 "-o", "udp.check_checksum:TRUE"],
                check=True, capture_output=True, text=True).stdout
        status = [l.strip() for l in out.splitlines()
                  if "checksum status:" in l.lower()]
        problems = [l for l in out.splitlines()
                    if "Bad" in l or "Malformed" in l or "incorrect" in l]
        good = [s for s in status if "Good" in s]
        print("%-20s %3d bytes  %s" % (name, len(f), "; ".join(status) or
                                       "(no checksum)"))
        if problems or len(good) != len(status):
            print("   PROBLEM:", problems)
            bad = True
    return not bad


def main():
    v = frames()
    if "--verify" in sys.argv and not verify(v):
        sys.exit(1)
    with open(os.path.join(HERE, "frame_vectors.inc"), "w") as fh:
        fh.write("// SPDX-License-Identifier: Apache-2.0\n"
                 "// Generated by make_frame_vectors.py: do not edit.\n"
                 "// Checksums computed by that script (naive RFC 1071) and\n"
                 "// validated by tshark (--verify).\n")
        for name, f in v.items():
            cname = "k" + "".join(p.capitalize() for p in name.split("_"))
            fh.write("inline constexpr char %sHex[] =\n" % cname)
            h = f.hex()
            for i in range(0, len(h), 64):
                fh.write('    "%s"%s\n' % (h[i:i + 64],
                                          ";" if i + 64 >= len(h) else ""))
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus", "frame")
    os.makedirs(corpus, exist_ok=True)
    for name, f in v.items():
        with open(os.path.join(corpus, name + ".bin"), "wb") as fh:
            fh.write(f)


if __name__ == "__main__":
    main()
