// SPDX-License-Identifier: Apache-2.0
// The --port value's parser (port_spec.h).
#include "dataplane/daemon/port_spec.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"

namespace zg::dataplane {
namespace {

absl::Status Bad(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "--port=\"", absl::CHexEscape(text.substr(0, 200)), "\": ", why,
      " (expected: PORT [address=CIDR[,CIDR...]]... [vlan=N])"));
}

}  // namespace

absl::StatusOr<PortSpec> ParsePortSpec(absl::string_view text) {
  if (text.size() > kMaxPortSpecBytes) return Bad(text, "too long");
  std::vector<absl::string_view> words =
      absl::StrSplit(text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (words.empty()) {
    return Bad(text, "empty: give a DPDK port id (0) or name (net_af_xdp0)");
  }
  PortSpec p;
  p.name = std::string(words[0]);
  if (p.name.find('=') != std::string::npos) {
    return Bad(text, "the first word must be the port, not a key=value");
  }
  for (char c : p.name) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return Bad(text, "the port name has a non-printable character");
    }
  }
  for (size_t i = 1; i < words.size(); ++i) {
    const absl::string_view w = words[i];
    const size_t eq = w.find('=');
    if (eq == absl::string_view::npos) {
      return Bad(text, absl::StrCat("\"", w, "\" is not key=value"));
    }
    const absl::string_view key = w.substr(0, eq);
    const absl::string_view value = w.substr(eq + 1);
    if (key == "address") {
      for (absl::string_view a :
           absl::StrSplit(value, ',', absl::SkipEmpty())) {
        absl::StatusOr<InterfaceAddress> addr = ParseInterfaceAddress(a);
        if (!addr.ok()) return Bad(text, addr.status().message());
        if (p.addresses.size() >= kMaxPortAddresses) {
          return Bad(text, absl::StrCat("more than ", kMaxPortAddresses,
                                        " addresses"));
        }
        p.addresses.push_back(*addr);
      }
      if (value.empty()) return Bad(text, "address= needs an address");
    } else if (key == "vlan") {
      uint32_t v = 0;
      if (p.vlan_id.has_value()) return Bad(text, "vlan= given twice");
      if (!absl::SimpleAtoi(value, &v) || v > 4094) {
        return Bad(text, "vlan= must be 0 (untagged) .. 4094");
      }
      p.vlan_id = static_cast<uint16_t>(v);
    } else {
      return Bad(text,
                 absl::StrCat("unknown key \"", key, "\" (address, vlan)"));
    }
  }
  return p;
}

absl::StatusOr<std::vector<ServedPort>> ResolvePorts(
    const std::vector<std::string>& values,
    const std::vector<InterfaceAddress>& default_addresses,
    uint16_t default_vlan) {
  if (values.size() > kMaxPorts) {
    return absl::InvalidArgumentError(absl::StrCat(
        values.size(), " --port flags: at most ", kMaxPorts, " ports"));
  }
  std::vector<ServedPort> out;
  for (const std::string& v : values) {
    ZG_ASSIGN_OR_RETURN(PortSpec spec, ParsePortSpec(v));
    for (const ServedPort& o : out) {
      if (o.name == spec.name) {
        return absl::InvalidArgumentError(
            absl::StrCat("--port ", spec.name, " is given twice"));
      }
    }
    ServedPort p;
    p.name = std::move(spec.name);
    p.addresses =
        spec.addresses.empty() ? default_addresses : std::move(spec.addresses);
    p.vlan_id = spec.vlan_id.value_or(default_vlan);
    out.push_back(std::move(p));
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        "no --port: give a DPDK port id (0) or name (net_af_xdp0)");
  }
  return out;
}

}  // namespace zg::dataplane
