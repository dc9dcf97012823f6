#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The MIB check (mib_check.py) passes on doc/ZEITGEBER-MIB.txt and fails on
# broken copies of it: a syntax error, an import the base modules do not
# have, an object moved to another OID, an object the agent does not serve.
#   mib_check_test.sh SRCDIR
set -euo pipefail
src=$1
check=$src/tests/snmp/mib_check.py
mib=$src/doc/ZEITGEBER-MIB.txt
oids=$src/dataplane/snmp/zeitgeber_oids.h
"$check" "$mib" "$oids"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails() {  # NAME SED-EXPR: the check must reject the edited MIB
  sed "$2" "$mib" >"$tmp/ZEITGEBER-MIB.txt"
  if cmp -s "$mib" "$tmp/ZEITGEBER-MIB.txt"; then
    echo "FAIL: $1: the edit changed nothing"; exit 1
  fi
  if "$check" "$tmp/ZEITGEBER-MIB.txt" "$oids" >"$tmp/out" 2>&1; then
    cat "$tmp/out"; echo "FAIL: $1: accepted"; exit 1
  fi
  echo "ok: $1 rejected: $(grep -m1 -iE 'error|exception|failed' "$tmp/out" || tail -1 "$tmp/out")"
}
fails "syntax error" 's/    ::= { zgClock 1 }/    { zgClock 1 }/'
fails "unknown import" 's/DisplayString, TruthValue/DisplayString, TruthValue, NoSuchType/'
fails "moved object" 's/::= { zgClock 5 }/::= { zgClock 55 }/'
fails "unserved object" 's/    ::= { zgControl 3 }/    ::= { zgControl 3 }\nzgExtra OBJECT-TYPE\n    SYNTAX Integer32\n    MAX-ACCESS read-only\n    STATUS current\n    DESCRIPTION "x"\n    ::= { zgControl 4 }/'
echo "mib_check: the MIB passes, 4 broken copies rejected"
