#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints the ninja targets that some meson test suites need, one per line.

  scripts/suite_targets.py BUILD_DIR [--suite NAME]... [--target-suffix SUFFIX]...
                           [--product]

For every test in one of the suites: the targets it `depends` on and its own
executable when that lives in BUILD_DIR. --target-suffix adds every target
whose name ends so (e.g. _fuzzer). --product adds every target defined
outside tests/ (the libraries, zeitgeberd, zg-loadgen, the benchmarks, the
XDP programs): what the release stage must prove builds. Paths are relative to BUILD_DIR, ready for
`ninja -C BUILD_DIR $(...)`: a build of only what a stage runs (the TSan
build compiles the tsan suite's targets, not the whole tree).
"""
import argparse
import json
import os
import subprocess
import sys


def introspect(build_dir, what):
  out = subprocess.run(['meson', 'introspect', build_dir, what], check=True,
                       capture_output=True, text=True).stdout
  return json.loads(out)


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument('build_dir')
  ap.add_argument('--suite', action='append', default=[])
  ap.add_argument('--target-suffix', action='append', default=[])
  ap.add_argument('--product', action='store_true')
  a = ap.parse_args()
  build = os.path.realpath(a.build_dir)
  targets = introspect(build, '--targets')
  by_id = {t['id']: t for t in targets}
  files = set()
  for t in introspect(build, '--tests'):
    suites = {s.split(':', 1)[-1] for s in t['suite']}
    if not suites & set(a.suite):
      continue
    for dep in t.get('depends', []):
      if dep in by_id:
        files.update(by_id[dep]['filename'])
    exe = os.path.realpath(t['cmd'][0])
    if exe.startswith(build + os.sep):
      files.add(exe)
  src = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
  tests_dir = os.path.join(src, 'tests') + os.sep
  for t in targets:
    if any(t['name'].endswith(s) for s in a.target_suffix):
      files.update(t['filename'])
    if a.product and not os.path.realpath(t['defined_in']).startswith(tests_dir):
      files.update(t['filename'])
  if not files:
    sys.exit(f'no targets for suites {a.suite} in {a.build_dir}')
  for f in sorted(files):
    print(os.path.relpath(f, build))


if __name__ == '__main__':
  main()
