#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Counts the test results of one or more meson test runs, case by case.

  scripts/test_report.py [--allow FILE] [--strict] LOGBASE...

LOGBASE is a run's log path without extension (meson test --logbase NAME
writes BUILD/meson-logs/NAME.json and NAME.junit.xml). GoogleTest binaries
(protocol 'gtest') count one result per case from the JUnit log; every other
test counts once from the JSON log. A gtest binary that meson failed (crash,
sanitizer report at exit, timeout) with no failed case counts one failure
more. A missing log (a stage that never ran its tests) is a failure.

Skips: with --strict (CI=true), a skipped test or case fails the run unless
FILE lists it: one `PATTERN  # reason` per line, PATTERN a test name
(`util_netns`) or test/case (`xdp_program/XdpProgramTest.*`, fnmatch
wildcards), the reason required.

Prints the skips, the failures, then one line, e.g.
  tests: 412 passed, 0 failed, 3 skipped
and exits 1 if anything failed (or an unlisted skip under --strict).
"""
import argparse
import fnmatch
import json
import os
import re
import sys
import xml.etree.ElementTree as et


def load_allow(path):
  allow = []
  if not path or not os.path.exists(path):
    return allow
  with open(path) as f:
    for n, line in enumerate(f, 1):
      line = line.strip()
      if not line or line.startswith('#'):
        continue
      m = re.match(r'^(\S+)\s+#\s*(\S.*)$', line)
      if not m:
        sys.exit(f'{path}:{n}: want "PATTERN  # reason", got: {line}')
      allow.append((m.group(1), m.group(2)))
  return allow


def short_name(pretty):
  # "zeitgeber:unit+core / frame" -> "frame"
  return pretty.split(' / ', 1)[-1]


def gtest_cases(junit_root, pretty):
  prefix = f'zeitgeber.{pretty}.'
  cases = []
  for suite in junit_root.iter('testsuite'):
    name = suite.get('name', '')
    if not name.startswith(prefix):
      continue
    gsuite = name[len(prefix):]
    for case in suite.iter('testcase'):
      tags = {c.tag for c in case}
      if 'failure' in tags or 'error' in tags:
        result = 'FAIL'
      elif 'skipped' in tags or case.get('status') == 'notrun':
        result = 'SKIP'
      else:
        result = 'OK'
      cases.append((f'{gsuite}.{case.get("name")}', result))
  return cases


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument('--allow')
  ap.add_argument('--strict', action='store_true')
  ap.add_argument('logbase', nargs='+')
  a = ap.parse_args()
  allow = load_allow(a.allow)
  passed = failed = skipped = 0
  failures, skips, unlisted = [], [], []
  for base in a.logbase:
    run = os.path.basename(base)
    if not os.path.exists(base + '.json'):
      failed += 1
      failures.append(f'{run}: no test log ({base}.json): the tests did not run')
      continue
    root = None
    if os.path.exists(base + '.junit.xml'):
      root = et.parse(base + '.junit.xml').getroot()
    with open(base + '.json') as f:
      entries = [json.loads(l) for l in f if l.strip()]
    names = [short_name(e['name']) for e in entries]
    for dup in sorted({n for n in names if names.count(n) > 1}):
      failed += 1
      failures.append(f'{run}: two tests named {dup}: meson writes both '
                      f'gtest logs to {dup}.xml; give them distinct names')
    for e in entries:
      test = short_name(e['name'])
      results = gtest_cases(root, e['name']) if root is not None else []
      if not results:
        results = [(None, e['result'])]
      elif e['result'] not in ('OK', 'SKIP', 'EXPECTEDFAIL') and \
          not any(r == 'FAIL' for _, r in results):
        results.append((None, e['result']))
      for case, r in results:
        ident = test if case is None else f'{test}/{case}'
        if r in ('OK', 'EXPECTEDFAIL'):
          passed += 1
        elif r == 'SKIP':
          skipped += 1
          ok = [why for pat, why in allow
                if fnmatch.fnmatchcase(ident, pat) or
                fnmatch.fnmatchcase(test, pat)]
          skips.append(f'{run}: {ident}' + (f' (allowed: {ok[0]})' if ok else ''))
          if not ok:
            unlisted.append(f'{run}: {ident}')
        else:
          failed += 1
          failures.append(f'{run}: {ident}: {r}')
  for s in skips:
    print(f'  skipped  {s}')
  for s in failures:
    print(f'  FAILED   {s}')
  if a.strict and unlisted:
    print(f'  {len(unlisted)} skip(s) not in {a.allow}: under CI=true a skip '
          'is a failure unless allow-listed with its reason')
  print(f'tests: {passed} passed, {failed} failed, {skipped} skipped')
  bad = failed > 0 or (a.strict and unlisted)
  sys.exit(1 if bad else 0)


if __name__ == '__main__':
  main()
