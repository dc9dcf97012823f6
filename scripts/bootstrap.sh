#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every build and test dependency of zeitgeber from Debian 12's apt
# repositories. Non-interactive and idempotent: packages already present are
# skipped, so a second run costs one dpkg query.
#
#   sudo scripts/bootstrap.sh        # or as root
set -euo pipefail

PACKAGES=(
  # Build
  build-essential pkg-config meson ninja-build python3 python3-pyelftools ccache
  clang clang-14 llvm lld libclang-rt-14-dev libfuzzer-14-dev clang-format
  # Libraries
  libdpdk-dev dpdk dpdk-dev libabsl-dev libgtest-dev libgmock-dev googletest
  libbenchmark-dev prometheus-cpp-dev libbpf-dev libxdp-dev libssl-dev
  libnuma-dev libpcap-dev libelf-dev zlib1g-dev linux-libc-dev
  nlohmann-json3-dev
  nettle-dev  # AES-256-CMAC for NTP keys; our AES-SIV/CMAC tested against it
  libsystemd-dev  # sd_notify, the watchdog, the journal's priorities
  # The service: systemd-analyze verify/security on the unit, and the Debian
  # package built (dpkg-buildpackage, debhelper) and installed by the tests
  systemd debhelper dpkg-dev
  # Real peers and tools the tests run against
  iproute2 iputils-ping ethtool chrony ntpsec-ntpdate linuxptp tshark tcpdump
  gpsd gpsd-clients pps-tools prometheus xdp-tools bpftool curl jq procps
  tzdata util-linux kmod
  openssl  # the NTS-KE tests make a test CA and certificates with its CLI
  # SNMP: the AgentX subagent (libsnmp-dev), the master agent, walk/set/trap
  # tools and the MIB check (pysmi with pysnmp's compiled base MIBs)
  libsnmp-dev snmpd snmptrapd snmp python3-pysmi python3-pysnmp4
  prometheus-alertmanager  # amtool checks doc/alerts/alertmanager.yml
  bird2  # the anycast route's BGP speaker and the rig's top-of-rack router
  # The status page: civetweb, bcrypt (libxcrypt) and argon2 hashes; the
  # tests make hashes with htpasswd and argon2 and load the page in Debian's
  # headless Chromium, driven over DevTools by python3-websocket
  libcivetweb-dev libcrypt-dev libargon2-dev apache2-utils argon2 chromium
  python3-websocket
  # Documentation: the man pages are made with pandoc; man renders them in
  # the command_line test
  pandoc man-db
)

# ntpsec's ntpd, a second independent NTS client for the e2e tests. Its
# Debian package conflicts with chrony (both provide time-daemon), so it is
# not installed: the .deb is downloaded and unpacked into a private prefix
# that only the tests use (ZG_NTPSEC_PREFIX). Its libraries (libbsd0,
# libcap2, libssl3) are chrony's and the system's too; python3-ntp (ntpq) is
# not needed for ntpd.
ZG_NTPSEC_PREFIX=${ZG_NTPSEC_PREFIX:-/opt/zeitgeber-peers/ntpsec}
install_private_ntpsec() {
  if [ -x "$ZG_NTPSEC_PREFIX/usr/sbin/ntpd" ]; then
    echo "bootstrap: ntpsec ntpd present in $ZG_NTPSEC_PREFIX"
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt's _apt user writes the download there
  (cd "$tmp" && apt-get download ntpsec >/dev/null 2>&1) ||
    { $SUDO apt-get update -qq && (cd "$tmp" && apt-get download ntpsec >/dev/null); }
  $SUDO mkdir -p "$ZG_NTPSEC_PREFIX"
  $SUDO dpkg-deb -x "$tmp"/ntpsec_*.deb "$ZG_NTPSEC_PREFIX"
  rm -rf "$tmp"
  "$ZG_NTPSEC_PREFIX/usr/sbin/ntpd" --version >/dev/null ||
    { echo "bootstrap: $ZG_NTPSEC_PREFIX/usr/sbin/ntpd does not run" >&2; return 1; }
  echo "bootstrap: ntpsec ntpd unpacked into $ZG_NTPSEC_PREFIX"
}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages present"
  install_private_ntpsec
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer once, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian's chrony/gpsd packages start their services on install; the tests
# start their own instances in namespaces, so stop the system ones if they
# started (harmless where there is no init system).
for svc in chrony gpsd gpsd.socket snmpd snmptrapd snmptrapd.socket \
    prometheus-alertmanager bird; do
  $SUDO systemctl stop "$svc" >/dev/null 2>&1 || true
done
install_private_ntpsec
echo "bootstrap: done"
