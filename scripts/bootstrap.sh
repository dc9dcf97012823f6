#!/usr/bin/env bash
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
  nettle-dev  # tests compare our AES-SIV with nettle's (chrony's)
  # Real peers and tools the tests run against
  iproute2 iputils-ping ethtool chrony ntpsec-ntpdate linuxptp tshark tcpdump
  gpsd gpsd-clients pps-tools prometheus xdp-tools bpftool curl jq procps
  tzdata util-linux kmod
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer once, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian's chrony/gpsd packages start their services on install; the tests
# start their own instances in namespaces, so stop the system ones if they
# started (harmless where there is no init system).
for svc in chrony gpsd gpsd.socket; do
  $SUDO systemctl stop "$svc" >/dev/null 2>&1 || true
done
echo "bootstrap: done"
