// SPDX-License-Identifier: Apache-2.0
// AccessList (dataplane/trust/access_list.h) on the test EAL: the rte_lpm and
// rte_lpm6 tables give the verdicts core::DecideByScan gives, for hand-made
// rules and for 10k random prefixes; lookups from two lcores at once agree.
#include "dataplane/trust/access_list.h"

#include <rte_launch.h>
#include <rte_lcore.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/net/ip_prefix.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace access_list_test {
namespace {

using core::AccessRules;
using core::AccessVerdict;
using core::IpAddress;
using core::IpPrefix;
using ::testing::HasSubstr;

std::vector<IpPrefix> P(const char* list) {
  return core::ParseNetworkPrefixList(list).value();
}
IpAddress A(const char* text) { return core::ParseIpAddress(text).value(); }

AccessVerdict Check(const AccessList& acl, const IpAddress& a) {
  return a.is_v6() ? acl.Check(a.v6) : acl.Check(a.v4);
}

std::unique_ptr<AccessList> Make(const AccessRules& rules) {
  absl::StatusOr<std::unique_ptr<AccessList>> acl =
      AccessList::Create(rules, "test");
  EXPECT_TRUE(acl.ok()) << acl.status();
  return acl.ok() ? std::move(*acl) : nullptr;
}

TEST(AccessListTest, EmptyListAllowsEverythingWithoutTables) {
  auto acl = Make({});
  ASSERT_NE(acl, nullptr);
  EXPECT_TRUE(acl->empty());
  EXPECT_EQ(acl->memory_bytes(), 0u);
  EXPECT_EQ(Check(*acl, A("192.0.2.1")), AccessVerdict::kAllowDefault);
  EXPECT_EQ(Check(*acl, A("2001:db8::1")), AccessVerdict::kAllowDefault);
  const uint32_t src[3] = {1, 2, 0xffffffff};
  AccessVerdict out[3];
  acl->CheckBulk(src, out, 3);
  for (AccessVerdict v : out) EXPECT_EQ(v, AccessVerdict::kAllowDefault);
}

TEST(AccessListTest, MostSpecificWinsInBothFamilies) {
  const AccessRules rules{
      .allow = P("10.0.0.0/8,10.9.9.0/24,10.9.9.8/31,2001:db8::/32,"
                 "2001:db8:bad:1::/64"),
      .deny = P("10.9.0.0/16,10.9.9.9,2001:db8:bad::/48,2001:db8:bad:1::1")};
  auto acl = Make(rules);
  ASSERT_NE(acl, nullptr);
  EXPECT_EQ(acl->rule_count(), 9u);
  const std::vector<std::pair<const char*, AccessVerdict>> cases = {
      {"10.1.1.1", AccessVerdict::kAllowRule},
      {"10.9.1.1", AccessVerdict::kDenyRule},
      {"10.9.9.1", AccessVerdict::kAllowRule},
      {"10.9.9.8", AccessVerdict::kAllowRule},
      {"10.9.9.9", AccessVerdict::kDenyRule},  // /32 beats the /31
      {"11.0.0.1", AccessVerdict::kDenyDefault},
      {"2001:db8:1::1", AccessVerdict::kAllowRule},
      {"2001:db8:bad::1", AccessVerdict::kDenyRule},
      {"2001:db8:bad:1::2", AccessVerdict::kAllowRule},
      {"2001:db8:bad:1::1", AccessVerdict::kDenyRule},
      {"2001:db9::1", AccessVerdict::kDenyDefault},
  };
  for (const auto& [addr, want] : cases) {
    EXPECT_EQ(Check(*acl, A(addr)), want) << addr;
    EXPECT_EQ(acl->Check(A(addr)), want) << addr;
    uint8_t wire[16];
    if (A(addr).is_v6()) {
      A(addr).v6.Store(wire);
      EXPECT_EQ(acl->CheckIpv6(wire), want) << addr;
    } else {
      A(addr).v4.Store(wire);
      EXPECT_EQ(acl->CheckIpv4Wire(wire), want) << addr;
    }
    EXPECT_EQ(core::DecideByScan(rules, A(addr)), want) << addr;
  }
}

TEST(AccessListTest, DefaultsFollowTheAllowRules) {
  // Deny only: open elsewhere, IPv6 untouched (no IPv6 table at all).
  auto deny_only = Make({.deny = P("192.0.2.0/24")});
  ASSERT_NE(deny_only, nullptr);
  EXPECT_EQ(Check(*deny_only, A("192.0.2.5")), AccessVerdict::kDenyRule);
  EXPECT_EQ(Check(*deny_only, A("198.51.100.1")), AccessVerdict::kAllowDefault);
  EXPECT_EQ(Check(*deny_only, A("2001:db8::1")), AccessVerdict::kAllowDefault);
  deny_only.reset();
  // An IPv4 allow closes IPv6 too.
  auto v4_only = Make({.allow = P("10.0.0.0/8")});
  ASSERT_NE(v4_only, nullptr);
  EXPECT_EQ(Check(*v4_only, A("10.0.0.1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(Check(*v4_only, A("2001:db8::1")), AccessVerdict::kDenyDefault);
}

TEST(AccessListTest, SlashZeroRulesDecideTheirFamily) {
  // rte_lpm takes depths 1..32 only: /0 is the family's default, as a rule.
  auto acl = Make({.allow = P("2001:db8::/32"), .deny = P("0.0.0.0/0")});
  ASSERT_NE(acl, nullptr);
  EXPECT_EQ(Check(*acl, A("192.0.2.1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(Check(*acl, A("2001:db8::1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(Check(*acl, A("2001:db9::1")), AccessVerdict::kDenyDefault);
  acl.reset();
  auto all = Make({.allow = P("all"), .deny = P("10.0.0.0/8,::1")});
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(Check(*all, A("10.1.1.1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(Check(*all, A("11.1.1.1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(Check(*all, A("::1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(Check(*all, A("::2")), AccessVerdict::kAllowRule);
}

TEST(AccessListTest, ConflictsAreRejectedWithTheFlagNames) {
  absl::StatusOr<std::unique_ptr<AccessList>> acl = AccessList::Create(
      {.allow = P("10.0.0.0/8"), .deny = P("10.0.0.0/8")}, "ptp");
  ASSERT_FALSE(acl.ok());
  EXPECT_EQ(acl.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(acl.status().message(),
              HasSubstr("10.0.0.0/8 is in both --ptp_allow and --ptp_deny"));
}

TEST(AccessListTest, SeveralListsLiveSideBySide) {
  // Same tag twice (a reload builds the new list while the old one serves).
  auto old_list = Make({.deny = P("10.0.0.0/8")});
  auto new_list = Make({.allow = P("10.0.0.0/8")});
  ASSERT_NE(old_list, nullptr);
  ASSERT_NE(new_list, nullptr);
  EXPECT_EQ(Check(*old_list, A("10.0.0.1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(Check(*new_list, A("10.0.0.1")), AccessVerdict::kAllowRule);
  old_list.reset();
  EXPECT_EQ(Check(*new_list, A("10.0.0.1")), AccessVerdict::kAllowRule);
  EXPECT_THAT(new_list->description(),
              HasSubstr("test: 1 allow, 0 deny (1 IPv4, 0 IPv6); default "
                        "deny; 64.0 MiB"));
}

TEST(AccessListTest, OutOfMemoryIsAClearError) {
  // 64 MiB per IPv4 table: the test EAL's 256 MiB runs out within 8.
  std::vector<std::unique_ptr<AccessList>> lists;
  absl::Status last;
  for (int i = 0; i < 8 && last.ok(); ++i) {
    absl::StatusOr<std::unique_ptr<AccessList>> acl =
        AccessList::Create({.deny = P("10.0.0.0/8")}, "ntp");
    if (acl.ok()) lists.push_back(std::move(*acl));
    last = acl.status();
  }
  EXPECT_EQ(last.code(), absl::StatusCode::kResourceExhausted) << last;
  EXPECT_THAT(last.message(),
              HasSubstr("cannot create the IPv4 access-list table zgntp4_"));
  EXPECT_THAT(last.message(), HasSubstr("give the EAL more memory"));
}

// ---- 10k random prefixes -------------------------------------------------

// An independent reference: every rule in a map by (family, length, masked
// address); an address tries its 129 (or 33) prefixes, longest first.
class MapReference {
 public:
  explicit MapReference(const AccessRules& rules) : rules_(rules) {
    for (const IpPrefix& p : rules.allow) map_[Key(p)] = true;
    for (const IpPrefix& p : rules.deny) map_[Key(p)] = false;
  }
  AccessVerdict Decide(const IpAddress& a) const {
    for (int len = a.is_v6() ? 128 : 32; len >= 0; --len) {
      auto it = map_.find(
          Key(core::MaskPrefix(IpPrefix{a, static_cast<uint8_t>(len)})));
      if (it != map_.end()) {
        return it->second ? AccessVerdict::kAllowRule
                          : AccessVerdict::kDenyRule;
      }
    }
    return rules_.default_verdict();
  }

 private:
  using KeyType = std::array<uint8_t, 18>;  // family, length, address
  static KeyType Key(const IpPrefix& p) {
    KeyType k{};
    k[0] = static_cast<uint8_t>(p.addr.family);
    k[1] = p.length;
    if (p.addr.is_v6()) {
      std::copy(p.addr.v6.b.begin(), p.addr.v6.b.end(), k.begin() + 2);
    } else {
      p.addr.v4.Store(k.data() + 2);
    }
    return k;
  }
  const AccessRules& rules_;
  std::map<KeyType, bool> map_;
};

struct RandomRules {
  AccessRules rules;
  std::vector<IpAddress> probes;  // inside rules (mostly) and anywhere
};

IpAddress RandomAddress(std::mt19937_64& rng, bool v6) {
  if (!v6) return IpAddress::V4(core::Ipv4Addr{static_cast<uint32_t>(rng())});
  core::Ipv6Addr a;
  for (auto& b : a.b) b = static_cast<uint8_t>(rng());
  return IpAddress::V6(a);
}

// `a` with its first p.length bits replaced by p's: an address inside p.
IpAddress InsidePrefix(const IpPrefix& p, IpAddress a) {
  if (!p.addr.is_v6()) {
    const uint32_t mask = p.length == 0 ? 0 : ~uint32_t{0} << (32 - p.length);
    a.v4.value = (p.addr.v4.value & mask) | (a.v4.value & ~mask);
    return a;
  }
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(p.length - 8 * i, 0, 8);
    const uint8_t mask = static_cast<uint8_t>(0xff00 >> keep);
    a.v6.b[i] =
        (p.addr.v6.b[i] & mask) | (a.v6.b[i] & static_cast<uint8_t>(~mask));
  }
  return a;
}

// `n` prefixes, alternating families, random lengths (IPv4 8..32, IPv6
// 16..128) and verdicts, a third of them nested inside an earlier one so that
// most-specific-wins is exercised; `probes` addresses, three in four inside a
// random rule (random host bits), the rest anywhere.
RandomRules MakeRandomRules(int n, int probes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  RandomRules r;
  std::set<std::string> seen;
  std::vector<IpPrefix> all;
  while (static_cast<int>(all.size()) < n) {
    const bool v6 = all.size() % 2 == 1;
    const int max_len = v6 ? 128 : 32;
    const int min_len = v6 ? 16 : 8;
    IpAddress base = RandomAddress(rng, v6);
    int len = min_len + static_cast<int>(rng() % (max_len - min_len + 1));
    if (all.size() > 2 && rng() % 3 == 0) {
      const IpPrefix& outer = all[rng() % all.size()];
      if (outer.addr.is_v6() == v6 && outer.length < max_len) {
        base = InsidePrefix(outer, base);
        len = outer.length + 1 +
              static_cast<int>(rng() % (max_len - outer.length));
      }
    }
    const IpPrefix p =
        core::MaskPrefix(IpPrefix{base, static_cast<uint8_t>(len)});
    if (!seen.insert(p.ToString()).second) continue;
    all.push_back(p);
    (rng() % 2 == 0 ? r.rules.allow : r.rules.deny).push_back(p);
  }
  for (int i = 0; i < probes; ++i) {
    if (i % 4 == 3) {
      r.probes.push_back(RandomAddress(rng, i % 8 == 7));
      continue;
    }
    const IpPrefix& p = all[rng() % all.size()];
    r.probes.push_back(InsidePrefix(p, RandomAddress(rng, p.addr.is_v6())));
  }
  return r;
}

TEST(AccessListTest, TenThousandRandomPrefixesMatchTheReferences) {
  const RandomRules r = MakeRandomRules(10000, 50000, 12);
  auto acl = Make(r.rules);
  ASSERT_NE(acl, nullptr);
  EXPECT_EQ(acl->rule_count(), 10000u);
  const MapReference ref(r.rules);
  int by_verdict[core::kAccessVerdictCount] = {};
  for (const IpAddress& a : r.probes) {
    const AccessVerdict v = Check(*acl, a);
    ASSERT_EQ(v, ref.Decide(a)) << a;
    ++by_verdict[static_cast<int>(v)];
  }
  // Both rule verdicts and the default all occur.
  EXPECT_GT(by_verdict[static_cast<int>(AccessVerdict::kAllowRule)], 1000);
  EXPECT_GT(by_verdict[static_cast<int>(AccessVerdict::kDenyRule)], 1000);
  EXPECT_GT(by_verdict[static_cast<int>(AccessVerdict::kDenyDefault)], 1000);
  // The scanning reference agrees too (on fewer probes: it is O(rules)).
  for (size_t i = 0; i < r.probes.size(); i += 100) {
    ASSERT_EQ(core::DecideByScan(r.rules, r.probes[i]), ref.Decide(r.probes[i]))
        << r.probes[i];
  }
  // Bulk IPv4 lookups, in a length that is not a multiple of kBulk.
  std::vector<uint32_t> v4;
  for (const IpAddress& a : r.probes) {
    if (!a.is_v6()) v4.push_back(a.v4.value);
  }
  v4.resize(v4.size() - v4.size() % AccessList::kBulk + 7);
  std::vector<AccessVerdict> out(v4.size());
  acl->CheckBulk(v4.data(), out.data(), static_cast<uint32_t>(v4.size()));
  for (size_t i = 0; i < v4.size(); ++i) {
    ASSERT_EQ(out[i], acl->CheckIpv4(v4[i])) << i;
  }
}

// ---- Lookups from several lcores at once -----------------------------------

struct SharedLookup {
  const AccessList* acl = nullptr;  // main: w before launch; worker: r
  const std::vector<IpAddress>* probes = nullptr;  // likewise
  std::vector<AccessVerdict> out;  // worker: w; main: r after join
};

int LookupAll(void* arg) {
  auto* s = static_cast<SharedLookup*>(arg);
  for (int round = 0; round < 20; ++round) {
    for (size_t i = 0; i < s->probes->size(); ++i) {
      s->out[i] = Check(*s->acl, (*s->probes)[i]);
    }
  }
  return 0;
}

TEST(AccessListTest, WorkerLcoresLookUpConcurrently) {
  const RandomRules r = MakeRandomRules(2000, 20000, 7);
  auto acl = Make(r.rules);
  ASSERT_NE(acl, nullptr);
  const unsigned worker = rte_get_next_lcore(-1, 1, 0);
  ASSERT_LT(worker, RTE_MAX_LCORE) << "the test EAL has a worker lcore";
  SharedLookup shared{acl.get(), &r.probes,
                      std::vector<AccessVerdict>(r.probes.size())};
  ASSERT_EQ(rte_eal_remote_launch(LookupAll, &shared, worker), 0);
  SharedLookup mine{acl.get(), &r.probes,
                    std::vector<AccessVerdict>(r.probes.size())};
  LookupAll(&mine);
  ASSERT_EQ(rte_eal_wait_lcore(worker), 0);
  EXPECT_EQ(shared.out, mine.out);
  const MapReference ref(r.rules);
  for (size_t i = 0; i < r.probes.size(); i += 7) {
    ASSERT_EQ(mine.out[i], ref.Decide(r.probes[i]));
  }
}

}  // namespace
}  // namespace access_list_test
}  // namespace zg::dataplane
