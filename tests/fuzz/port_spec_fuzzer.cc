// SPDX-License-Identifier: Apache-2.0
// Fuzzes the --port value parser (dataplane/daemon/port_spec.h) with
// arbitrary text: no crash, no sanitizer report; an accepted spec has a
// non-empty name without '=', at most kMaxPortAddresses addresses and a
// VLAN within 0..4094.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dataplane/daemon/port_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::dataplane;
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<PortSpec> p = ParsePortSpec(text);
  if (!p.ok()) return 0;
  if (p->name.empty() || p->name.find('=') != std::string::npos)
    __builtin_trap();
  if (p->addresses.size() > kMaxPortAddresses) __builtin_trap();
  if (p->vlan_id.has_value() && *p->vlan_id > 4094) __builtin_trap();
  return 0;
}
