#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds zeitgeber's Debian package (debian/, doc/service.md) with
# dpkg-buildpackage; the .deb, .buildinfo and .changes land in build-deb/.
#   scripts/package-deb.sh                  a clean build: meson in
#                                           obj-<triplet>/ with Debian's
#                                           build flags (hardening), only
#                                           what the package holds
#   scripts/package-deb.sh --reuse DIR      package DIR, a meson build
#                                           configured with --prefix=/usr
#                                           and built (build-rel/: CI);
#                                           nothing is compiled
#   scripts/package-deb.sh --lintian       also run lintian on the result
# ZG_DEB_OUT overrides build-deb/. Needs debhelper (scripts/bootstrap.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ZG_ROOT"
reuse= lint=
while [ $# -gt 0 ]; do
  case "$1" in
    --reuse) reuse=$(realpath "$2"); shift 2 ;;
    --lintian) lint=1; shift ;;
    *) zg_die "unknown argument '$1' (see the header of $0)" ;;
  esac
done
out=${ZG_DEB_OUT:-$ZG_ROOT/build-deb}
mkdir -p "$out"
out=$(realpath "$out")
if [ -n "$reuse" ]; then
  prefix=$(meson introspect "$reuse" --buildoptions |
    python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
  [ "$prefix" = /usr ] ||
    zg_die "$reuse has prefix $prefix: a package needs a build configured with --prefix=/usr"
  # What the package holds, built if it is not yet (nothing, in CI).
  mapfile -t targets < <(python3 -c '
import json, os, subprocess, sys
build = os.path.realpath(sys.argv[1])
def introspect(what):
    return json.loads(subprocess.run(["meson", "introspect", build, what],
                                     check=True, capture_output=True).stdout)
built = {f for t in introspect("--targets") for f in t["filename"]}
for f in introspect("--installed"):
    if f in built:
        print(os.path.relpath(f, build))' "$reuse")
  ninja -C "$reuse" "${targets[@]}" >/dev/null
fi
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
zg_log "dpkg-buildpackage: zeitgeber $version ($arch)${reuse:+, from $reuse}"
# From a reused build (no -g) the debug symbols package would be empty.
opts=${DEB_BUILD_OPTIONS:-}
[ -n "$reuse" ] && opts="$opts noautodbgsym"
DEB_BUILD_OPTIONS=$opts ZG_DEB_REUSE_BUILD=$reuse ZG_DEB_OUT=$out dpkg-buildpackage -b -us -uc \
  --buildinfo-option="-u$out" --changes-option="-u$out" \
  --buildinfo-file="$out/zeitgeber_${version}_${arch}.buildinfo" \
  --changes-file="$out/zeitgeber_${version}_${arch}.changes"
ls -l "$out"/*.deb
if [ -n "$lint" ]; then
  zg_log "lintian"
  lintian --info --display-info --pedantic "$out/zeitgeber_${version}_${arch}.changes"
fi
