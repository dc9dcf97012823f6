// SPDX-License-Identifier: Apache-2.0
// An access list on the data plane: who may query (NTP) or negotiate (PTP),
// decided per source address in O(1) by DPDK's longest-prefix-match tables,
// rte_lpm for IPv4 and rte_lpm6 for IPv6. The rules and what they mean
// (most specific prefix wins, chrony-style defaults) are
// core::AccessRules in core/net/access_rules.h; this class is their fast form
// and is tested against core::DecideByScan.
//
// Built once on the control thread (setup: allocates, returns absl::Status),
// then never changed: any number of worker lcores may call the lookups at
// once, with no locks, no allocation, no syscalls. A reload builds a new
// AccessList next to the old one (table names are unique per instance) and
// frees the old one only after a grace period in which no worker still uses
// it.
//
//   // control thread, at start-up or reload:
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<AccessList> acl,
//                       AccessList::Create(config.access.ntp, "ntp"));
//   // worker, per request (info: the core::FrameInfo of core/net/frame.h):
//   const core::AccessVerdict v = info.ip_version == 4
//       ? acl->Check(info.src_ipv4)      // core::Ipv4Addr, host order
//       : acl->Check(info.src_ipv6);     // core::Ipv6Addr, wire order
//   ++stats.acl[static_cast<int>(v)];    // "ACL hits", by verdict
//   if (!core::IsAllowed(v)) { /* drop, or KoD DENY (--ntp_deny_action) */ }
//
//   // PTP negotiation, from wire-order octets:
//   acl->CheckIpv4Wire(addr.octets.data()) / acl->CheckIpv6(addr.octets.data())
//   // a whole burst of IPv4 sources at once (host order):
//   uint32_t src[32];  core::AccessVerdict out[32];
//   acl->CheckBulk(src, out, n);
//
// An empty list (no --*_allow / --*_deny) allocates no table and answers
// kAllowDefault without touching memory. Memory: each family with a rule
// longer than /0 costs one rte_lpm or rte_lpm6 table of 64 MiB (DPDK's flat
// 2^24-entry first level) plus 1 KiB per second-level group (IPv4: one per
// prefix longer than /24; IPv6: one per 8 bits beyond /24), from the EAL's
// memory (hugepages) on `socket_id`. memory_bytes() says how much.
#ifndef ZG_DATAPLANE_TRUST_ACCESS_LIST_H_
#define ZG_DATAPLANE_TRUST_ACCESS_LIST_H_

#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_memory.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/base/byte_order.h"
#include "core/net/access_rules.h"
#include "core/net/net_headers.h"

namespace zg::dataplane {

class AccessList {
 public:
  // Validates `rules` (core::ValidateAccessRules; `list` names the flags in
  // errors: "ntp" -> --ntp_allow/--ntp_deny, and tags the table names) and
  // builds the tables. Needs the EAL. Errors: invalid rules, or no memory
  // for the tables (the message gives the size).
  static absl::StatusOr<std::unique_ptr<AccessList>> Create(
      const core::AccessRules& rules, absl::string_view list,
      int socket_id = SOCKET_ID_ANY);
  ~AccessList();  // frees the tables: only once no worker uses them
  AccessList(const AccessList&) = delete;
  AccessList& operator=(const AccessList&) = delete;

  // The verdict for one IPv4 source, host byte order (core::Ipv4Addr::value,
  // as core::FrameInfo::src_ipv4 holds it; 10.0.0.1 == 0x0A000001).
  core::AccessVerdict Check(core::Ipv4Addr src) const {
    return CheckIpv4(src.value);
  }
  core::AccessVerdict CheckIpv4(uint32_t src_host_order) const {
    uint32_t hop;
    if (lpm4_ != nullptr && rte_lpm_lookup(lpm4_, src_host_order, &hop) == 0) {
      return static_cast<core::AccessVerdict>(hop);
    }
    return default4_;
  }
  // The same from the 4 address bytes in wire (network) order, as a frame or
  // core::PtpUnicastAddress::octets holds them.
  core::AccessVerdict CheckIpv4Wire(const uint8_t* src4) const {
    return CheckIpv4(core::LoadBe32(src4));
  }
  // The verdict for one IPv6 source: its 16 bytes in wire order.
  core::AccessVerdict Check(const core::Ipv6Addr& src) const {
    return CheckIpv6(src.b.data());
  }
  core::AccessVerdict CheckIpv6(const uint8_t* src16) const {
    uint32_t hop;
    if (lpm6_ != nullptr && rte_lpm6_lookup(lpm6_, src16, &hop) == 0) {
      return static_cast<core::AccessVerdict>(hop);
    }
    return default6_;
  }
  // Either family (setup code, tests).
  core::AccessVerdict Check(const core::IpAddress& src) const {
    return src.is_v6() ? Check(src.v6) : Check(src.v4);
  }
  // Verdicts for n IPv4 sources (host order), four at a time by
  // rte_lpm_lookupx4. For a whole burst (see the benchmark for its gain over
  // n single lookups).
  static constexpr uint32_t kBulk = 32;  // a burst; any n works
  void CheckBulk(const uint32_t* src_host_order, core::AccessVerdict* out,
                 uint32_t n) const;

  // No rule at all: every lookup is kAllowDefault.
  bool empty() const { return rules_ == 0; }
  uint32_t rule_count() const { return rules_; }
  // Bytes of EAL memory the tables take (0 for an empty list).
  uint64_t memory_bytes() const { return memory_bytes_; }
  // For logs: "ntp: 3 allow, 1 deny (...); default deny; 64.0 MiB".
  const std::string& description() const { return description_; }

 private:
  AccessList() = default;
  absl::Status Build(const core::AccessRules& rules, absl::string_view list,
                     int socket_id);

  // Written by Create (control thread) before the list is published;
  // read-only after (workers).
  rte_lpm* lpm4_ = nullptr;   // null: no IPv4 rule longer than /0
  rte_lpm6* lpm6_ = nullptr;  // null: no IPv6 rule longer than /0
  core::AccessVerdict default4_ = core::AccessVerdict::kAllowDefault;
  core::AccessVerdict default6_ = core::AccessVerdict::kAllowDefault;
  uint32_t rules_ = 0;
  uint64_t memory_bytes_ = 0;
  std::string description_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_ACCESS_LIST_H_
