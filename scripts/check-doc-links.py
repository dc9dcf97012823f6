#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Lists every relative markdown link ([text](path) in the README, doc/ and
# the other tracked .md files) whose target does not exist; exit 1 if any.
# Run by scripts/format.sh --check.
#   scripts/check-doc-links.py
import os
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def main():
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    files = subprocess.run(
        ["git", "-C", root, "ls-files", "--cached", "--others",
         "--exclude-standard", "*.md"],
        capture_output=True, text=True, check=True).stdout.split()
    bad = []
    for f in files:
        path = os.path.join(root, f)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as md:
            text = md.read()
        for target in LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor in the same page
            linked = os.path.join(os.path.dirname(path), target.split("#")[0])
            if not os.path.exists(linked):
                bad.append(f"{f}: broken link ({target})")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
