#!/usr/bin/env python3
"""Regenerates the synthetic leap-seconds.list test files in this folder.

Their #h lines are computed here with Python's hashlib (independently of
core/time/leap_seconds.cc): SHA-1 over the digits of the #$ line, the #@ line and
each data line up to its '#', in file order. The real data lines come from
leap-seconds.list (Debian's copy of the IERS file).

  python3 tests/data/gen_leap_lists.py
"""
import hashlib
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def sha1_words(lines):
    digits = ""
    for line in lines:
        if line.startswith("#$") or line.startswith("#@"):
            digits += re.sub(r"[^0-9]", "", line[2:])
        elif line[:1].isdigit():
            digits += re.sub(r"[^0-9]", "", line.split("#")[0])
    h = hashlib.sha1(digits.encode()).hexdigest()
    return [h[i:i + 8] for i in range(0, 40, 8)]


def write(name, header, updated, expires, data, drop_zeros=False):
    lines = ["# " + h for h in header] + [
        "#", "#$\t%d" % updated, "#@\t%d" % expires, "#"] + data + ["#"]
    words = sha1_words(lines)
    if drop_zeros:
        words = [w.lstrip("0") or "0" for w in words]
    lines.append("#h\t" + " ".join(words))
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    with open(os.path.join(HERE, "leap-seconds.list")) as f:
        real = [l for l in f.read().splitlines() if l[:1].isdigit()]
    assert len(real) == 28 and real[-1].startswith("3692217600")
    # A negative leap at the end of 2026-12-31 and a positive one at the end
    # of 2036-12-31 (NTP seconds beyond 2^32). #$ is chosen so that a hash
    # word has a leading zero, which is written without it.
    write("leap-seconds-synthetic.list",
          ["Synthetic leap-seconds.list for zeitgeber tests (NOT real data).",
           "The real entries 1972..2017, a hypothetical negative leap second",
           "at the end of 2026-12-31 (TAI-UTC 37 -> 36) and a positive one at",
           "the end of 2036-12-31 (36 -> 37). Made by gen_leap_lists.py."],
          4000864000, 4339008000,
          real + ["4007750400\t36\t# 1 Jan 2027 (synthetic, negative)",
                  "4323369600\t37\t# 1 Jan 2037 (synthetic, NTP era 1)"],
          drop_zeros=True)
    # What the IERS file said in July 2016: the 2016-12-31 leap announced,
    # expiring 2017-06-28 (older than the built-in table).
    write("leap-seconds-2016.list",
          ["leap-seconds.list as of 2016-07-08 (real entries, expiry",
           "2017-06-28). Made by gen_leap_lists.py."],
          3676924800, 3707596800, real)
    # A valid file that disagrees with the built-in table: the last leap
    # moved to 2017-07-01.
    write("leap-seconds-disagrees.list",
          ["Valid but wrong: the 2016-12-31 leap moved to 2017-06-30.",
           "Made by gen_leap_lists.py."],
          3960835200, 3991593600,
          real[:-1] + ["3707856000\t37\t# 1 Jul 2017 (wrong on purpose)"])


if __name__ == "__main__":
    main()
