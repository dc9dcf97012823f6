// SPDX-License-Identifier: Apache-2.0
#include "dataplane/worker/frame_classifier.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace zg::dataplane {

absl::StatusOr<FrameDropIndex> RegisterFrameNames(CounterNames& names) {
  for (uint8_t k = 1; k < core::kFrameKindCount; ++k) {
    ZG_RETURN_IF_ERROR(names.SetKindName(
        k, core::FrameKindName(static_cast<core::FrameKind>(k))));
  }
  // FrameDrop 1..kCount-1, then the classifier's own two reasons.
  std::array<absl::string_view, core::kFrameDropCount + 1> reasons;
  for (size_t d = 1; d < core::kFrameDropCount; ++d) {
    reasons[d - 1] = core::FrameDropName(static_cast<core::FrameDrop>(d));
  }
  reasons[core::kFrameDropCount - 1] = "not_served";
  reasons[core::kFrameDropCount] = "unknown_port";
  FrameDropIndex index;
  ZG_ASSIGN_OR_RETURN(index.base, names.AddDropReasonList("frame", reasons));
  return index;
}

absl::StatusOr<PortAddressTable> BuildPortAddresses(const WorkerSetup& setup) {
  std::optional<uint16_t> vlan;
  if (setup.vlan_id != 0) vlan = setup.vlan_id;
  PortAddressTable table;
  for (const WorkerPort& port : setup.ports) {
    absl::StatusOr<core::LocalAddresses> local = core::LocalAddresses::Create(
        core::MacAddr::Load(port.mac.addr_bytes), vlan);
    if (!local.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("port ", port.port_id, ": ", local.status().message()));
    }
    for (const InterfaceAddress& a : setup.addresses) {
      const core::IpAddress ip =
          a.family == InterfaceAddress::kIpv4
              ? core::IpAddress::V4(core::Ipv4Addr::Load(a.bytes.data()))
              : core::IpAddress::V6(core::Ipv6Addr::Load(a.bytes.data()));
      if (absl::Status s = local->Add(ip); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--address=", a.ToString(), " on port ", port.port_id,
                         ": ", s.message()));
      }
    }
    table.emplace_back(port.port_id, std::move(*local));
  }
  return table;
}

}  // namespace zg::dataplane
