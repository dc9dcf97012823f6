#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `meson install --destdir` of a built tree: every installed piece is there
# (zeitgeberd, zg-loadgen, zgctl, the XDP programs, the unit, the sysusers
# entry, the sample EAL options and flagfile, the docs, the man pages); the unit
# passes `systemd-analyze verify` with its paths pointed into the destdir and
# keeps its hardening (`systemd-analyze security` exposure at most 3.0);
# its CPUAffinity= is the sample's EAL -l; the installed zeitgeberd starts
# with the installed sample flagfile (on a net_ring port) and stops cleanly.
#   tests/dataplane/daemon/zeitgeberd_install_test.sh BUILD_DIR
set -uo pipefail
BUILD=$(realpath "$1")
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze missing"; exit 77; }
WORK=$(mktemp -d /tmp/zg_install.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
DEST=$WORK/dest
fail() { echo "FAIL: $*"; exit 1; }

meson install -C "$BUILD" --destdir "$DEST" --no-rebuild --quiet ||
  fail "meson install --destdir"
opt() {  # the build's value of meson option $1
  meson introspect "$BUILD" --buildoptions | python3 -c \
    'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]][0])' "$1"
}
prefix=$(opt prefix) libdir=$(opt libdir) sysconfdir=$(opt sysconfdir)
case "$sysconfdir" in /*) etc=$sysconfdir ;; *) etc=$prefix/$sysconfdir ;; esac
unit=$(find "$DEST" -path '*/systemd/system/zeitgeberd.service')
for f in "$prefix/sbin/zeitgeberd" "$prefix/bin/zg-loadgen" \
         "$prefix/bin/zgctl" \
         "$prefix/$libdir/zeitgeber/zg_xdp.o" "$prefix/$libdir/zeitgeber/zg_xdp_hwts.o" \
         "$etc/default/zeitgeberd" "$etc/zeitgeber/zeitgeberd.flags" \
         "$prefix/share/doc/zeitgeber/service.md" "$prefix/share/doc/zeitgeber/deployment.md" \
         "$prefix/share/doc/zeitgeber/zgctl.md"; do
  [ -e "$DEST$f" ] || fail "not installed: $f"
done
# The man pages, where this build makes them (-Dman, pandoc).
if [ -f "$BUILD/doc/zeitgeberd.8" ]; then
  for f in "$prefix/share/man/man8/zeitgeberd.8" "$prefix/share/man/man1/zg-loadgen.1" \
           "$prefix/share/man/man1/zgctl.1"; do
    [ -e "$DEST$f" ] || fail "not installed: $f"
  done
fi
[ -n "$unit" ] || fail "no zeitgeberd.service installed"
[ -n "$(find "$DEST" -path '*/sysusers.d/zeitgeber.conf')" ] || fail "no sysusers.d entry"
echo "installed: $(find "$DEST" -type f | wc -l) files under $prefix, unit $(dirname "${unit#"$DEST"}")"

# The unit's own paths (binary, EAL options, flagfile) lead into the destdir.
sed -E "s#(=|--flagfile=)(/(usr|etc)/)#\1$DEST\2#g" "$unit" >"$WORK/zeitgeberd.service"
grep -q "^ExecStart=$DEST$prefix/sbin/zeitgeberd " "$WORK/zeitgeberd.service" ||
  fail "ExecStart is not the installed zeitgeberd: $(grep ^ExecStart "$unit")"
out=$(systemd-analyze verify --man=no "$WORK/zeitgeberd.service" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ] || fail "systemd-analyze verify (rc $rc): $out"
echo "ok: systemd-analyze verify"
score=$(systemd-analyze security --offline=yes --threshold=30 --no-pager \
  "$WORK/zeitgeberd.service" 2>&1 | sed -n 's/.*Overall exposure level for zeitgeberd.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "no exposure level from systemd-analyze security"
awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' ||
  fail "systemd-analyze security: exposure $score > 3.0 (hardening lost?)"
echo "ok: systemd-analyze security: exposure $score"

cores=$(sed -n 's/^CPUAffinity=//p' "$unit")
eal_l=$(sed -n 's/^ZEITGEBERD_EAL=".*-l \([^ ]*\) .*/\1/p' "$DEST$etc/default/zeitgeberd")
[ -n "$cores" ] && [ "$cores" = "$eal_l" ] ||
  fail "CPUAffinity=$cores but the sample's EAL -l is '$eal_l'"
echo "ok: CPUAffinity=$cores is the sample's -l"

# The sample flagfile as zeitgeberd reads it; the port and the paths that
# need a real system are overridden after it (the last value counts).
timeout 60 "$DEST$prefix/sbin/zeitgeberd" --no-huge -m 256 --no-shconf --no-pci \
  --no-telemetry --file-prefix "zginst$$" --log-level=lib.eal:error -l 0-1 \
  --vdev=net_ring0 -- --flagfile="$DEST$etc/zeitgeber/zeitgeberd.flags" \
  --port=net_ring0 --metrics_address= --status_address= --audit_log="$WORK/audit.jsonl" \
  --control_socket="$WORK/zg.sock" \
  --run_for=1s >"$WORK/zg.log" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q "stopped in" "$WORK/zg.log" ||
  { cat "$WORK/zg.log"; fail "installed zeitgeberd with the sample flagfile: rc $rc"; }
echo "ok: the installed zeitgeberd runs the sample flagfile"
echo PASS
