#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package on this machine, from build to purge:
#  - scripts/package-deb.sh --reuse packages the release build as it is
#    (nothing compiled: the package steps only);
#  - dpkg -i installs it: the system user exists, the two files in /etc are
#    conffiles, the unit is installed but not enabled, zeitgeberd and
#    zg-loadgen run from their installed paths (--version) and their man
#    pages are there;
#  - an upgrade (the same package, version +1) keeps an edited conffile;
#  - dpkg -r removes it but leaves the configuration; dpkg -P purges that
#    too, and what zeitgeberd made at run time: no file is left behind
#    (every path under /etc /lib /usr /var /opt compared with before).
#   tests/dataplane/daemon/zeitgeberd_package_test.sh SOURCE_DIR BUILD_DIR
# Needs root (dpkg) and a build configured with --prefix=/usr (the release
# build); exits 77 (skip) otherwise. Purges the package on any exit.
set -uo pipefail
SRC=$(realpath "$1") BUILD=$(realpath "$2")
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (dpkg -i)"; exit 77; }
for t in dpkg-buildpackage dh systemd-sysusers deb-systemd-helper; do
  command -v $t >/dev/null || { echo "SKIP: $t missing (scripts/bootstrap.sh)"; exit 77; }
done
if dpkg-query -W -f='${Status}' zeitgeber 2>/dev/null | grep -q installed; then
  echo "FAIL: the zeitgeber package is installed on this machine already; this test would replace it"
  exit 1
fi
WORK=$(mktemp -d /tmp/zg_package.XXXXXX)
cleanup() {
  dpkg -P zeitgeber >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Every path in the trees a package touches, but dpkg's and debconf's own
# records and the logs of what ran.
snapshot() {
  find /etc /lib /usr /var /opt -xdev \( -path /var/lib/dpkg -o -path /var/log \
    -o -path /var/cache -o -path /var/tmp -o -path /var/lib/apt \) -prune -o -print |
    sort >"$1"
}

snapshot "$WORK/before"
start=$(date +%s)
ZG_DEB_OUT=$WORK/deb "$SRC/scripts/package-deb.sh" --reuse "$BUILD" >"$WORK/build.log" 2>&1 ||
  { tail -30 "$WORK/build.log"; fail "scripts/package-deb.sh --reuse"; }
deb=$(ls "$WORK"/deb/zeitgeber_*_*.deb)
echo "built $(basename "$deb") in $(( $(date +%s) - start )) s"

dpkg -i "$deb" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "dpkg -i"; }
getent passwd zeitgeber >/dev/null || fail "no system user zeitgeber after install"
conffiles=$(dpkg-query -W -f='${Conffiles}' zeitgeber)
for f in /etc/default/zeitgeberd /etc/zeitgeber/zeitgeberd.flags; do
  grep -q "^ $f " <<<"$conffiles" || fail "$f is not a conffile: $conffiles"
done
[ -f /lib/systemd/system/zeitgeberd.service ] || fail "no unit installed"
[ -e /etc/systemd/system/multi-user.target.wants/zeitgeberd.service ] &&
  fail "zeitgeberd.service was enabled on install (it needs its port configured first)"
out=$(/usr/sbin/zeitgeberd --version 2>&1) ||
  fail "/usr/sbin/zeitgeberd --version: $out"
grep -q "^zeitgeberd $(dpkg-deb -f "$deb" Version | sed 's/-.*//')" <<<"$out" ||
  fail "/usr/sbin/zeitgeberd --version does not name the package's version: $out"
echo "ok: /usr/sbin/zeitgeberd --version: $(head -1 <<<"$out")"
/usr/bin/zg-loadgen --version >/dev/null 2>&1 || fail "/usr/bin/zg-loadgen --version"
for page in /usr/share/man/man8/zeitgeberd.8.gz /usr/share/man/man1/zg-loadgen.1.gz \
            /usr/share/man/man1/zgctl.1.gz; do
  [ -f "$page" ] || fail "no man page $page"
done
# zgctl(1) carries zgctl's own usage: its commands are there.
zcat /usr/share/man/man1/zgctl.1.gz | grep -q "source add SPEC" ||
  fail "zgctl(1) lacks zgctl --help's commands"
echo "ok: man pages zeitgeberd(8), zg-loadgen(1), zgctl(1)"

# An upgrade keeps the operator's edit of a conffile.
echo "--address=198.51.100.7/24  # local edit" >>/etc/zeitgeber/zeitgeberd.flags
dpkg-deb -R "$deb" "$WORK/next"
version=$(dpkg-deb -f "$deb" Version)
sed -i "s/^Version: .*/Version: $version+1/" "$WORK/next/DEBIAN/control"
dpkg-deb -Zgzip -z1 -b "$WORK/next" "$WORK/next.deb" >/dev/null
dpkg -i "$WORK/next.deb" >"$WORK/upgrade.log" 2>&1 || { cat "$WORK/upgrade.log"; fail "upgrade"; }
[ "$(dpkg-query -W -f='${Version}' zeitgeber)" = "$version+1" ] || fail "upgrade: version"
grep -q "local edit" /etc/zeitgeber/zeitgeberd.flags || fail "upgrade lost the edited conffile"
echo "ok: upgraded $version -> $version+1, the edited conffile kept"

# What the service makes at run time (StateDirectory=, LogsDirectory=),
# so that purge has it to remove.
install -d -o zeitgeber -g zeitgeber /var/lib/zeitgeber /var/log/zeitgeber
echo '{}' >/var/log/zeitgeber/audit.jsonl
dpkg -r zeitgeber >"$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log"; fail "dpkg -r"; }
[ -e /usr/sbin/zeitgeberd ] && fail "dpkg -r left /usr/sbin/zeitgeberd"
[ -f /etc/zeitgeber/zeitgeberd.flags ] || fail "dpkg -r removed the configuration"
dpkg -P zeitgeber >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg -P"; }
snapshot "$WORK/after"
left=$(comm -13 "$WORK/before" "$WORK/after")
gone=$(comm -23 "$WORK/before" "$WORK/after")
[ -z "$left" ] || fail "left behind after purge: $left"
[ -z "$gone" ] || fail "removed by the package, and there before it: $gone"
echo "ok: removed, then purged: no file left behind"
echo PASS
