// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/access_list.h"

#include <rte_errno.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"

namespace zg::dataplane {
namespace {

using core::AccessVerdict;
using core::IpPrefix;

constexpr uint64_t kTbl24Bytes = uint64_t{1} << 24 << 2;  // 2^24 4-byte entries
constexpr uint64_t kTbl8GroupBytes = 256 * 4;

// One family's rules longer than /0, each with the verdict it gives.
struct FamilyRules {
  std::vector<std::pair<IpPrefix, AccessVerdict>> entries;
  AccessVerdict slash_zero = AccessVerdict::kAllowDefault;  // if has_slash_zero
  bool has_slash_zero = false;
};

void Split(const core::AccessRules& rules, FamilyRules* v4, FamilyRules* v6) {
  for (const auto* list : {&rules.allow, &rules.deny}) {
    const AccessVerdict verdict = list == &rules.allow
                                      ? AccessVerdict::kAllowRule
                                      : AccessVerdict::kDenyRule;
    for (const IpPrefix& p : *list) {
      FamilyRules* f = p.addr.is_v6() ? v6 : v4;
      if (p.length == 0) {
        f->has_slash_zero = true;
        f->slash_zero = verdict;
      } else {
        f->entries.emplace_back(p, verdict);
      }
    }
  }
}

// Unique per instance within the process, short enough for DPDK's derived
// names ("LPM_", "LRH_" and "HT_LRH_" prefixes within 32 bytes).
std::string TableName(absl::string_view list, char family) {
  static std::atomic<uint32_t> next{0};
  return absl::StrFormat("zg%.4s%c_%u", list, family,
                         next.fetch_add(1, std::memory_order_relaxed));
}

absl::Status NoTable(absl::string_view what, const std::string& name,
                     uint64_t bytes) {
  return absl::ResourceExhaustedError(absl::StrFormat(
      "cannot create the %s access-list table %s (%.1f MiB): %s; give the "
      "EAL more memory (hugepages, or -m with --no-huge)",
      what, name, static_cast<double>(bytes) / (1 << 20),
      rte_strerror(rte_errno)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<AccessList>> AccessList::Create(
    const core::AccessRules& rules, absl::string_view list, int socket_id) {
  ZG_RETURN_IF_ERROR(core::ValidateAccessRules(rules, list));
  std::unique_ptr<AccessList> acl(new AccessList());
  ZG_RETURN_IF_ERROR(acl->Build(rules, list, socket_id));
  return acl;
}

absl::Status AccessList::Build(const core::AccessRules& rules,
                               absl::string_view list, int socket_id) {
  FamilyRules v4;
  FamilyRules v6;
  Split(rules, &v4, &v6);
  rules_ = static_cast<uint32_t>(rules.allow.size() + rules.deny.size());
  default4_ = v4.has_slash_zero ? v4.slash_zero : rules.default_verdict();
  default6_ = v6.has_slash_zero ? v6.slash_zero : rules.default_verdict();

  if (!v4.entries.empty()) {
    // A tbl8 group per prefix longer than /24 at most.
    const uint32_t tbl8s = std::max<uint32_t>(
        1, std::count_if(v4.entries.begin(), v4.entries.end(),
                         [](const auto& e) { return e.first.length > 24; }));
    const rte_lpm_config config = {
        .max_rules = static_cast<uint32_t>(v4.entries.size()),
        .number_tbl8s = tbl8s};
    const std::string name = TableName(list, '4');
    const uint64_t bytes =
        kTbl24Bytes + tbl8s * kTbl8GroupBytes + config.max_rules * uint64_t{8};
    lpm4_ = rte_lpm_create(name.c_str(), socket_id, &config);
    if (lpm4_ == nullptr) return NoTable("IPv4", name, bytes);
    memory_bytes_ += bytes;
    for (const auto& [p, verdict] : v4.entries) {
      const int rc = rte_lpm_add(lpm4_, p.addr.v4.value, p.length,
                                 static_cast<uint32_t>(verdict));
      if (rc != 0) {
        return absl::InternalError(absl::StrCat(
            "rte_lpm_add(", p.ToString(), ") failed: ", rte_strerror(-rc)));
      }
    }
  }
  if (!v6.entries.empty()) {
    // A tbl8 group per 8 bits beyond /24 of each prefix, at most.
    uint32_t tbl8s = 1;
    for (const auto& e : v6.entries) {
      if (e.first.length > 24) tbl8s += (e.first.length - 24 + 7) / 8;
    }
    const rte_lpm6_config config = {
        .max_rules = static_cast<uint32_t>(v6.entries.size()),
        .number_tbl8s = tbl8s};
    const std::string name = TableName(list, '6');
    const uint64_t bytes = kTbl24Bytes + tbl8s * (kTbl8GroupBytes + 8) +
                           config.max_rules * uint64_t{64};
    lpm6_ = rte_lpm6_create(name.c_str(), socket_id, &config);
    if (lpm6_ == nullptr) return NoTable("IPv6", name, bytes);
    memory_bytes_ += bytes;
    for (const auto& [p, verdict] : v6.entries) {
      const int rc = rte_lpm6_add(lpm6_, p.addr.v6.b.data(), p.length,
                                  static_cast<uint32_t>(verdict));
      if (rc != 0) {
        return absl::InternalError(absl::StrCat(
            "rte_lpm6_add(", p.ToString(), ") failed: ", rte_strerror(-rc)));
      }
    }
  }
  description_ = absl::StrFormat(
      "%s: %s; %.1f MiB", list, core::DescribeAccessRules(rules),
      static_cast<double>(memory_bytes_) / (1 << 20));
  return absl::OkStatus();
}

AccessList::~AccessList() {
  if (lpm4_ != nullptr) rte_lpm_free(lpm4_);
  if (lpm6_ != nullptr) rte_lpm6_free(lpm6_);
}

void AccessList::CheckBulk(const uint32_t* src_host_order, AccessVerdict* out,
                           uint32_t n) const {
  if (lpm4_ == nullptr) {
    std::fill(out, out + n, default4_);
    return;
  }
  // Four at a time with rte_lpm_lookupx4 (SIMD first level, the tbl8 reads
  // of the four overlapping); kMiss marks an address no rule matched.
  constexpr uint32_t kMiss = 0xff;
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t hop[4];
    xmm_t ips;
    std::memcpy(&ips, src_host_order + i, sizeof(ips));
    rte_lpm_lookupx4(lpm4_, ips, hop, kMiss);
    for (int j = 0; j < 4; ++j) {
      out[i + j] =
          hop[j] == kMiss ? default4_ : static_cast<AccessVerdict>(hop[j]);
    }
  }
  for (; i < n; ++i) out[i] = CheckIpv4(src_host_order[i]);
}

}  // namespace zg::dataplane
