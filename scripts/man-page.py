#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Makes a man page: the markdown page from doc/man/ with its @FLAGS@ line
# replaced by the program's flags (`PROGRAM -- --help --help_format=markdown`,
# captured by meson), through pandoc. Run by doc/meson.build. With
# --verbatim, FLAGS is plain text (zgctl --help) and goes in as a literal
# block.
#   scripts/man-page.py [--verbatim] PANDOC PAGE.md FLAGS.md OUT VERSION
import subprocess
import sys


def main(pandoc, page, flags, out, version, verbatim=False):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    with open(flags, encoding="utf-8") as f:
        options = f.read()
    if verbatim:
        if not options.strip():
            sys.exit(f"{flags}: the program printed no usage")
        options = "".join("    " + line if line.strip() else "\n"
                          for line in options.splitlines(keepends=True))
    if text.count("@FLAGS@\n") != 1:
        sys.exit(f"{page}: expected one @FLAGS@ line")
    text = text.replace("@FLAGS@\n", options)
    # Smart quotes off: "--flag" must stay two hyphens.
    subprocess.run([pandoc, "--standalone", "--from=markdown-smart",
                    "--to=man", f"--metadata=footer:zeitgeber {version}",
                    "--output", out], input=text.encode(), check=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    verbatim = args[:1] == ["--verbatim"]
    if verbatim:
        args = args[1:]
    if len(args) != 5:
        sys.exit("usage: man-page.py [--verbatim] PANDOC PAGE.md FLAGS.md OUT "
                 "VERSION")
    main(*args, verbatim=verbatim)
