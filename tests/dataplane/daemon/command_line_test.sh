#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --help, --version and the man pages of zeitgeberd and zg-loadgen, on the
# built binaries (no EAL is started):
#  - `-- --help` exits 0 and lists, under its group titles, every flag that
#    the program's own code defines (the "Flags from" files of --helpfull in
#    its folders), so a flag defined outside a help group fails here;
#    --helpshort answers the same;
#  - `--version` before or after the "--" names the version, the commit,
#    the compiler and DPDK;
#  - `man -l` renders each man page without a warning, and the page lists
#    every flag of --help.
#   tests/dataplane/daemon/command_line_test.sh ZEITGEBERD ZG_LOADGEN \
#       ZEITGEBERD.8 ZG_LOADGEN.1
set -uo pipefail
OUT=$(mktemp -d /tmp/zg_cmdline.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The long flag names in a --help or man text ("--name", "--[no]name",
# "--name=KIND"); the builtins --help=SUBSTRING etc. count as their names.
flag_names() { grep -oE -- '--(\[no\])?[a-z][a-z0-9_]*' "$1" | sed 's/^--//; s/^\[no\]//' | sort -u; }

# The flags --helpfull shows from the files whose path matches $2.
own_flags() {
  awk -v own_re="$2" '/^  Flags from /{own = ($3 ~ own_re)} own && /^    --/{sub(/^    --/, ""); sub(/ .*/, ""); print}' "$1" | sort -u
}

# check_program BINARY NAME MAN_PAGE OWN_FILES_RE GROUP_TITLE...: the flags
# of the files matching OWN_FILES_RE (an awk regex) are the program's own.
check_program() {
  local bin=$1 name=$2 man=$3 own_re=$4; shift 4
  "$bin" -- --help >"$OUT/help" 2>&1 || fail "$name -- --help: rc $?"
  for title in "$@"; do
    grep -qx -- "$title:" "$OUT/help" || fail "$name --help: no group '$title'"
  done
  "$bin" -- --helpfull >"$OUT/helpfull" 2>&1
  own_flags "$OUT/helpfull" "$own_re" >"$OUT/own"
  [ -s "$OUT/own" ] || fail "$name --helpfull: no flags of its own"
  flag_names "$OUT/help" >"$OUT/listed"
  missing=$(comm -23 "$OUT/own" "$OUT/listed")
  [ -z "$missing" ] || fail "$name -- --help leaves out: $(echo $missing).
A flag shows in --help only from a help group: define it in the file of its
group (dataplane/daemon/flags/, doc/contributing.md) or name it in the
program's ProgramHelp."
  echo "ok: $name -- --help lists all $(wc -l <"$OUT/own") of its flags"

  for args in "--version" "-- --version"; do
    # shellcheck disable=SC2086
    "$bin" $args >"$OUT/version" 2>&1 || fail "$name $args: rc $?"
    for want in "^$name [0-9]" "^git: ." "^compiler: " "^DPDK: DPDK [0-9]"; do
      grep -q -- "$want" "$OUT/version" || { cat "$OUT/version"; fail "$name $args: no '$want'"; }
    done
  done
  echo "ok: $name --version: $(head -1 "$OUT/version"), $(grep '^git:' "$OUT/version")"

  [ -f "$man" ] || fail "no man page $man"
  MANWIDTH=100 LC_ALL=C.UTF-8 man --warnings -l "$man" >"$OUT/man" 2>"$OUT/man.err" ||
    fail "man -l $man: rc $?"
  [ ! -s "$OUT/man.err" ] || { cat "$OUT/man.err"; fail "man -l $man warns"; }
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS"; do
    grep -q "^$section" "$OUT/man" || fail "$man: no $section section"
  done
  flag_names "$OUT/man" >"$OUT/in_man"
  missing=$(comm -23 "$OUT/listed" "$OUT/in_man")
  [ -z "$missing" ] || fail "$man leaves out: $(echo $missing)"
  echo "ok: man -l $(basename "$man"): $(wc -l <"$OUT/man") lines, every flag of --help"
}

# zeitgeberd: every flag but abseil's. zg-loadgen links the data plane's
# NTS flags (it reads two of them) but owns only bench/'s.
check_program "$1" zeitgeberd "$3" '^(dataplane|core|servo)/' "Ports and addresses" "Timestamps" "NTP" "PTP" \
  "Trust: access lists, rate limits, NTP keys" "NTS" "Time sources, servo and holdover" \
  "Metrics" "Alarms and SNMP" "Drain and anycast" "Status page" "Daemon" \
  "Flag files and help"
check_program "$2" zg-loadgen "$4" '^bench/' "Target and port" "Traffic" "Flag files and help"

"$1" -- --help --help_format=bogus >/dev/null 2>&1 && fail "--help_format=bogus accepted"
# abseil's --helpshort would list the main file's flags: none.
"$1" -- --helpshort >"$OUT/helpshort" 2>&1 || fail "--helpshort: rc $?"
cmp -s "$OUT/helpshort" <("$1" -- --help 2>&1) || fail "--helpshort is not --help"
echo PASS
