// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/ports.h"

#include <cstdint>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/port/interface_address.h"
#include "dataplane/trust/reload.h"

// --address values, validated by abseil occurrence by occurrence; every
// occurrence is gathered by CollectRepeatedFlag.
struct ZgAddressList {
  std::vector<std::string> values;
};
bool AbslParseFlag(absl::string_view text, ZgAddressList* out,
                   std::string* error) {
  out->values.clear();
  for (absl::string_view v : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    absl::StatusOr<zg::dataplane::InterfaceAddress> a =
        zg::dataplane::ParseInterfaceAddress(v);
    if (!a.ok()) {
      *error = std::string(a.status().message());
      return false;
    }
    out->values.emplace_back(v);
  }
  return true;
}
std::string AbslUnparseFlag(const ZgAddressList& list) {
  return absl::StrJoin(list.values, ",");
}

ABSL_FLAG(ZgAddressList, address, {},
          "Address to serve, ADDR/PREFIX (IPv4 or IPv6), e.g. 192.0.2.10/24. "
          "Repeat the flag or separate with commas for several.");
ABSL_FLAG(int32_t, vlan, 0,
          "802.1Q VLAN id the addresses live on; 0 for untagged frames.");
ABSL_FLAG(std::string, port, "0",
          "DPDK port to serve on: its id or name (net_af_xdp0, 0000:3b:00.0).");
ABSL_FLAG(int32_t, rx_desc, 1024, "RX descriptors per queue.");
ABSL_FLAG(int32_t, tx_desc, 1024, "TX descriptors per queue.");
ABSL_FLAG(int32_t, mtu, 0, "Port MTU; 0 keeps the device's.");
ABSL_FLAG(int32_t, mbufs_per_socket, 0,
          "mbufs in each NUMA socket's pool; 0 sizes it from the queues.");
ABSL_FLAG(bool, tx_checksum_offload, true,
          "Let the NIC compute IPv4/UDP checksums where it can.");
ABSL_FLAG(bool, xdp_steering, true,
          "AF_XDP with xdp_prog=: load --address and --vlan into the XDP "
          "program's maps so only NTP/PTP to them reaches zeitgeberd.");

namespace zg::dataplane {
namespace {

absl::StatusOr<uint16_t> InRange(const char* flag, int32_t v, int32_t lo,
                                 int32_t hi, const char* meaning) {
  if (v < lo || v > hi) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, "=", v, ": must be ", lo, "..", hi, " (", meaning, ")"));
  }
  return static_cast<uint16_t>(v);
}

}  // namespace

absl::Status ReadPortFlags(const std::vector<std::string>& args,
                           DaemonConfig& c) {
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> address_values,
                      CollectRepeatedFlag(args, "address"));
  for (const std::string& value : address_values) {
    for (absl::string_view v : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      absl::StatusOr<InterfaceAddress> a = ParseInterfaceAddress(v);
      if (!a.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--address: ", a.status().message()));
      }
      c.addresses.push_back(*a);
    }
  }
  ZG_ASSIGN_OR_RETURN(c.vlan_id, InRange("vlan", absl::GetFlag(FLAGS_vlan), 0,
                                         4094, "0 means untagged"));
  c.port = absl::GetFlag(FLAGS_port);
  if (c.port.empty()) {
    return absl::InvalidArgumentError(
        "--port is empty: give a DPDK port id (0) or name (net_af_xdp0)");
  }
  ZG_ASSIGN_OR_RETURN(
      c.rx_desc, InRange("rx_desc", absl::GetFlag(FLAGS_rx_desc), 64, 16384,
                         "descriptors per queue"));
  ZG_ASSIGN_OR_RETURN(
      c.tx_desc, InRange("tx_desc", absl::GetFlag(FLAGS_tx_desc), 64, 16384,
                         "descriptors per queue"));
  const int32_t mtu = absl::GetFlag(FLAGS_mtu);
  if (mtu != 0) {
    ZG_ASSIGN_OR_RETURN(c.mtu,
                        InRange("mtu", mtu, 576, 9216, "0 keeps the device's"));
  }
  const int32_t mbufs = absl::GetFlag(FLAGS_mbufs_per_socket);
  if (mbufs != 0 && (mbufs < 1023 || mbufs > (1 << 24))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--mbufs_per_socket=", mbufs, ": must be 0 (auto) or 1023..16777216"));
  }
  c.mbufs_per_socket = static_cast<uint32_t>(mbufs);
  c.tx_checksum_offload = absl::GetFlag(FLAGS_tx_checksum_offload);
  c.xdp_steering = absl::GetFlag(FLAGS_xdp_steering);
  return absl::OkStatus();
}

}  // namespace zg::dataplane
