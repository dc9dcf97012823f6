#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Makes a man page: the markdown page from doc/man/ with its @FLAGS@ line
# replaced by the program's flags (`PROGRAM -- --help --help_format=markdown`,
# captured by meson), through pandoc. Run by doc/meson.build.
#   scripts/man-page.py PANDOC PAGE.md FLAGS.md OUT VERSION
import subprocess
import sys


def main(pandoc, page, flags, out, version):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    with open(flags, encoding="utf-8") as f:
        options = f.read()
    if text.count("@FLAGS@\n") != 1:
        sys.exit(f"{page}: expected one @FLAGS@ line")
    text = text.replace("@FLAGS@\n", options)
    # Smart quotes off: "--flag" must stay two hyphens.
    subprocess.run([pandoc, "--standalone", "--from=markdown-smart",
                    "--to=man", f"--metadata=footer:zeitgeber {version}",
                    "--output", out], input=text.encode(), check=True)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit("usage: man-page.py PANDOC PAGE.md FLAGS.md OUT VERSION")
    main(*sys.argv[1:])
