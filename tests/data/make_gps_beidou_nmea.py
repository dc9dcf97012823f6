#!/usr/bin/env python3
"""Writes gpsd_gps_beidou.nmea: five one-second epochs (2024-03-10T12:00:00Z
to 12:00:04Z) from a receiver tracking GPS and BeiDou, for gpsfake.

Per epoch: $GNRMC, $GNGGA (9 used), $GPGSA (GPS PRNs in use), $BDGSA
(BeiDou PRNs in use), $GPGSV (7 GPS in view), $BDGSV (6 BeiDou in view).
gpsfake replays the log's own time; gpsd reports it in TPV (and TOFF), so the
expected values are fixed: GPS 7 seen / 5 used, BeiDou 6 seen / 4 used.

  python3 tests/data/make_gps_beidou_nmea.py > tests/data/gpsd_gps_beidou.nmea

With --start=UNIX_SECONDS --epochs=N it writes N epochs from that time
instead (a live-looking receiver for tests that run for minutes).
"""
import argparse
import functools
import sys
import time


def sentence(body):
    checksum = functools.reduce(lambda a, c: a ^ ord(c), body, 0)
    return "$%s*%02X\r\n" % (body, checksum)


GPS = [(2, 45, 120, 42), (5, 60, 200, 45), (12, 30, 300, 40), (15, 20, 45, 38),
       (18, 75, 90, 47), (25, 10, 250, 30), (29, 5, 170, 25)]
GPS_USED = [2, 5, 12, 15, 18]
BEIDOU = [(6, 50, 140, 41), (9, 40, 210, 39), (14, 65, 320, 44),
          (21, 25, 60, 37), (23, 15, 100, 33), (28, 8, 280, 28)]
BEIDOU_USED = [6, 9, 14, 21]


def gsv(talker, sats):
    n = (len(sats) + 3) // 4
    out = []
    for i in range(n):
        fields = ",".join("%02d,%02d,%03d,%02d" % s for s in sats[i * 4:(i + 1) * 4])
        out.append(sentence("%sGSV,%d,%d,%02d,%s" % (talker, n, i + 1, len(sats), fields)))
    return out


def gsa(talker, used, system_id):
    prns = ["%02d" % p for p in used] + [""] * (12 - len(used))
    return sentence("%sGSA,A,3,%s,1.8,1.0,1.5,%d" % (talker, ",".join(prns), system_id))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--start", type=int, default=1710072000)  # 2024-03-10T12Z
    ap.add_argument("--epochs", type=int, default=5)
    args = ap.parse_args()
    lines = []
    for second in range(args.epochs):
        tm = time.gmtime(args.start + second)
        t = time.strftime("%H%M%S.00", tm)
        date = time.strftime("%d%m%y", tm)
        lines.append(sentence(
            "GNRMC,%s,A,3958.2300,N,11623.4800,E,0.0,0.0,%s,,,A,V" % (t, date)))
        lines.append(sentence(
            "GNGGA,%s,3958.2300,N,11623.4800,E,1,09,1.0,52.0,M,-8.0,M,," % t))
        lines.append(gsa("GP", GPS_USED, 1))
        lines.append(gsa("BD", BEIDOU_USED, 4))
        lines += gsv("GP", GPS)
        lines += gsv("BD", BEIDOU)
    sys.stdout.write("".join(lines))


if __name__ == "__main__":
    main()
