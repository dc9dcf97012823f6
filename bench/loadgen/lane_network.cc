// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/lane_network.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace zg::bench {

core::IpAddress AddressAt(const core::IpAddress& first, uint32_t offset) {
  core::IpAddress a = first;
  if (a.is_v6()) {
    core::StoreBe32(a.v6.b.data() + 12,
                    core::LoadBe32(first.v6.b.data() + 12) + offset);
  } else {
    a.v4.value += offset;
  }
  return a;
}

uint64_t AddressOffsetOf(const core::FrameInfo& info,
                         const core::IpAddress& first) {
  if (info.ip_version == 4 && !first.is_v6()) {
    return info.dst_ipv4.value >= first.v4.value
               ? info.dst_ipv4.value - first.v4.value
               : UINT64_MAX;
  }
  if (info.ip_version == 6 && first.is_v6()) {
    const uint8_t* d = info.dst_ipv6.b.data();
    const uint8_t* f = first.v6.b.data();
    if (std::memcmp(d, f, 12) != 0) return UINT64_MAX;
    const uint32_t dl = core::LoadBe32(d + 12);
    const uint32_t fl = core::LoadBe32(f + 12);
    return dl >= fl ? dl - fl : UINT64_MAX;
  }
  return UINT64_MAX;
}

absl::StatusOr<LaneNetwork> BuildLaneNetwork(const LoadgenOptions& o,
                                             const core::MacAddr& port_mac,
                                             uint16_t vlan_id) {
  LaneNetwork net;
  net.src_mac = port_mac;
  if (vlan_id != 0) net.vlan_id = vlan_id;
  net.ntp_port = o.target.port;
  net.source_addresses = o.source_addresses;
  absl::StatusOr<core::IpAddress> target = core::ParseIpAddress(o.target.host);
  if (!target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--target=", o.target.host, ": ", target.status().message()));
  }
  net.target = *target;
  if (o.source_ip.empty()) {
    net.first_source = AddressAt(net.target, 1);
  } else {
    absl::StatusOr<core::IpAddress> src = core::ParseIpAddress(o.source_ip);
    if (!src.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--source_ip=", o.source_ip, ": ", src.status().message()));
    }
    net.first_source = *src;
  }
  if (net.first_source.family != net.target.family) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--source_ip=", net.first_source.ToString(), " and --target=",
        net.target.ToString(), " are of different address families"));
  }
  ZG_ASSIGN_OR_RETURN(net.local,
                      core::LocalAddresses::Create(port_mac, net.vlan_id));
  const absl::Status added =
      net.first_source.is_v6()
          ? net.local.AddIpv6Range(net.first_source.v6, o.source_addresses)
          : net.local.AddIpv4Range(net.first_source.v4, o.source_addresses);
  if (!added.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("client addresses (--source_ip, --source_addresses): ",
                     added.message()));
  }
  const int target_index = net.target.is_v6()
                               ? net.local.FindIpv6(net.target.v6.b.data())
                               : net.local.FindIpv4(net.target.v4);
  if (target_index >= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the client addresses ", net.first_source.ToString(),
                     " + ", o.source_addresses, " include the target ",
                     net.target.ToString(), "; move --source_ip"));
  }
  return net;
}

}  // namespace zg::bench
