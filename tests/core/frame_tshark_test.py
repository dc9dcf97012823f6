#!/usr/bin/env python3
"""Dissects zeitgeber's replies with tshark (an implementation none of us
wrote): every IP/UDP/ICMP/ICMPv6 checksum must validate, nothing may be
malformed, and each frame must match the display filter in the manifest.

  frame_tshark_test.py DUMPER   (DUMPER: the frame_tshark_dump binary)
"""
import os
import subprocess
import sys
import tempfile


def tshark(*args):
    return subprocess.run(
        ["tshark", "-n", "-o", "ip.check_checksum:TRUE",
         "-o", "udp.check_checksum:TRUE", *args],
        check=True, capture_output=True, text=True, timeout=120).stdout


def main():
    with tempfile.TemporaryDirectory() as d:
        pcap, manifest = os.path.join(d, "f.pcap"), os.path.join(d, "f.txt")
        subprocess.run([sys.argv[1], pcap, manifest], check=True, timeout=60)
        frames = []
        with open(manifest) as fh:
            for line in fh:
                num, name, flt = line.rstrip("\n").split("\t")
                frames.append((int(num), name, flt))
        failures = []
        # Checksums and malformed packets, frame by frame.
        verbose = tshark("-r", pcap, "-V")
        blocks = verbose.split("\nFrame ")
        for num, name, _ in frames:
            block = next((b for b in blocks
                          if b.startswith("%d:" % num) or
                          b.startswith("Frame %d:" % num)), None)
            if block is None:
                failures.append("%s: not dissected" % name)
                continue
            status = [l.strip() for l in block.splitlines()
                      if "checksum status:" in l.lower()]
            bad = [s for s in status if "Good" not in s]
            if bad or "Malformed" in block:
                failures.append("%s: %s" % (name, bad or "malformed"))
            if "reply" in name and not status and not name.startswith(
                    ("arp", "built_ptp_l2")):
                failures.append("%s: no checksum was validated" % name)
        # Field expectations, in one pass.
        flt = " || ".join("(frame.number==%d && (%s))" % (n, f)
                          for n, _, f in frames)
        matched = set(int(x) for x in tshark(
            "-r", pcap, "-Y", flt, "-T", "fields",
            "-e", "frame.number").split())
        for num, name, f in frames:
            if num not in matched:
                failures.append("%s: does not match %s" % (name, f))
        for f in failures:
            print("FAIL", f)
        print("%d frames dissected, %d failures" % (len(frames), len(failures)))
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
