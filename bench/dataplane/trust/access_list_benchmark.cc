// SPDX-License-Identifier: Apache-2.0
// Cost of an access-list lookup (dataplane/trust/access_list.h) at 10k
// random prefixes, next to baselines measured in the same run:
//
//   list:0  an empty list (no --*_allow/--*_deny): no table, no memory read
//   list:1  one prefix per family: the same rte_lpm/rte_lpm6 code path, with
//           tables that stay in cache
//   list:2  10k random IPv4 prefixes (/8../32) and 10k random IPv6 prefixes
//           (/16../128), random verdicts, a third nested inside another
//   list:3  (IPv6 only) 10k random IPv6 subnets, /16../64: rte_lpm6 reads
//           one tbl8 per 8 bits past /24 of the matching prefix, in a chain,
//           so long IPv6 prefixes cost a cache miss per byte
//
// Each iteration looks up 32 source addresses (a burst), from 4096 per family:
// random addresses (inside:0), or addresses inside a random rule of the list
// (inside:1; for IPv6 these walk the deepest tbl8 chains). Single lookups
// (Check) per family, and IPv4 in bulk (CheckBulk, rte_lpm_lookup_bulk). The
// summary at the end gives ns per lookup and the 10k / 1-prefix ratio (best
// repetition by CPU time):
//
//   build/bench/access_list_benchmark --benchmark_repetitions=3
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/dataplane/bench_main.h"
#include "benchmark/benchmark.h"
#include "core/net/access_rules.h"
#include "core/net/ip_prefix.h"
#include "dataplane/port/eal.h"
#include "dataplane/trust/access_list.h"

namespace zg::dataplane {
namespace {

using core::AccessVerdict;
using core::IpAddress;
using core::IpPrefix;

constexpr int kBurst = 32;
constexpr int kProbes = 4096;  // per family, a power of two
constexpr int kPrefixes = 10000;

IpAddress RandomAddress(std::mt19937_64& rng, bool v6) {
  if (!v6) return IpAddress::V4(core::Ipv4Addr{static_cast<uint32_t>(rng())});
  core::Ipv6Addr a;
  for (auto& b : a.b) b = static_cast<uint8_t>(rng());
  return IpAddress::V6(a);
}

// `a` with its first p.length bits replaced by p's.
IpAddress Inside(const IpPrefix& p, IpAddress a) {
  IpAddress out = a;
  if (!p.addr.is_v6()) {
    const uint32_t mask = p.length == 0 ? 0 : ~uint32_t{0} << (32 - p.length);
    out.v4.value = (p.addr.v4.value & mask) | (a.v4.value & ~mask);
    return out;
  }
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(p.length - 8 * i, 0, 8);
    const uint8_t mask = static_cast<uint8_t>(0xff00 >> keep);
    out.v6.b[i] =
        (p.addr.v6.b[i] & mask) | (a.v6.b[i] & static_cast<uint8_t>(~mask));
  }
  return out;
}

// 10k prefixes of one family, /min_len../max_len, a third nested inside an
// earlier one.
std::vector<IpPrefix> RandomPrefixes(std::mt19937_64& rng, bool v6, int min_len,
                                     int max_len) {
  std::vector<IpPrefix> out;
  std::set<std::string> seen;
  while (static_cast<int>(out.size()) < kPrefixes) {
    IpAddress base = RandomAddress(rng, v6);
    int len = min_len + static_cast<int>(rng() % (max_len - min_len + 1));
    if (out.size() > 2 && rng() % 3 == 0) {
      const IpPrefix& outer = out[rng() % out.size()];
      if (outer.length < max_len) {
        base = Inside(outer, base);
        len = outer.length + 1 +
              static_cast<int>(rng() % (max_len - outer.length));
      }
    }
    const IpPrefix p =
        core::MaskPrefix(IpPrefix{base, static_cast<uint8_t>(len)});
    if (seen.insert(p.ToString()).second) out.push_back(p);
  }
  return out;
}

struct Fixture {
  // empty, one prefix, 10k, 10k IPv6 subnets
  std::unique_ptr<AccessList> lists[4];
  // [inside] probes per family; v6_subnet: inside list 3's prefixes.
  std::vector<uint32_t> v4[2];
  std::vector<core::Ipv6Addr> v6[2];
  std::vector<core::Ipv6Addr> v6_subnet;
};

Fixture& Get() {
  static Fixture* f = [] {
    auto* fx = new Fixture;
    std::mt19937_64 rng(20261202);
    core::AccessRules big;
    std::vector<IpPrefix> all[2] = {RandomPrefixes(rng, false, 8, 32),
                                    RandomPrefixes(rng, true, 16, 128)};
    for (const auto& family : all) {
      for (const IpPrefix& p : family) {
        (rng() % 2 == 0 ? big.allow : big.deny).push_back(p);
      }
    }
    const std::vector<IpPrefix> subnets = RandomPrefixes(rng, true, 16, 64);
    core::AccessRules subnet_rules;
    for (const IpPrefix& p : subnets) {
      (rng() % 2 == 0 ? subnet_rules.allow : subnet_rules.deny).push_back(p);
    }
    const core::AccessRules one{
        .allow =
            core::ParseNetworkPrefixList("10.0.0.0/8,2001:db8::/32").value()};
    const core::AccessRules* rules[4] = {nullptr, &one, &big, &subnet_rules};
    for (int i = 0; i < 4; ++i) {
      auto acl = AccessList::Create(rules[i] ? *rules[i] : core::AccessRules{},
                                    "bench");
      if (!acl.ok()) {
        std::fprintf(stderr, "%s\n",
                     std::string(acl.status().message()).c_str());
        std::exit(2);
      }
      fx->lists[i] = std::move(*acl);
    }
    for (int k = 0; k < kProbes; ++k) {
      fx->v4[0].push_back(RandomAddress(rng, false).v4.value);
      fx->v6[0].push_back(RandomAddress(rng, true).v6);
      const IpPrefix& p4 = all[0][rng() % all[0].size()];
      fx->v4[1].push_back(Inside(p4, RandomAddress(rng, false)).v4.value);
      const IpPrefix& p6 = all[1][rng() % all[1].size()];
      fx->v6[1].push_back(Inside(p6, RandomAddress(rng, true)).v6);
      const IpPrefix& s6 = subnets[rng() % subnets.size()];
      fx->v6_subnet.push_back(Inside(s6, RandomAddress(rng, true)).v6);
    }
    std::fprintf(stderr, "10k list: %s\n10k IPv6 subnets: %s\n",
                 fx->lists[2]->description().c_str(),
                 fx->lists[3]->description().c_str());
    return fx;
  }();
  return *f;
}

void BM_Ipv4(benchmark::State& state) {
  Fixture& f = Get();
  const AccessList& acl = *f.lists[state.range(0)];
  const std::vector<uint32_t>& probes = f.v4[state.range(1)];
  uint32_t next = 0;
  unsigned allowed = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBurst; ++i) {
      allowed += core::IsAllowed(acl.CheckIpv4(probes[next++ % kProbes]));
    }
  }
  benchmark::DoNotOptimize(allowed);
  state.SetItemsProcessed(state.iterations() * kBurst);
}

void BM_Ipv6(benchmark::State& state) {
  Fixture& f = Get();
  const AccessList& acl = *f.lists[state.range(0)];
  const std::vector<core::Ipv6Addr>& probes =
      state.range(0) == 3 && state.range(1) == 1 ? f.v6_subnet
                                                 : f.v6[state.range(1)];
  uint32_t next = 0;
  unsigned allowed = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBurst; ++i) {
      allowed += core::IsAllowed(acl.Check(probes[next++ % kProbes]));
    }
  }
  benchmark::DoNotOptimize(allowed);
  state.SetItemsProcessed(state.iterations() * kBurst);
}

void BM_Ipv4Bulk(benchmark::State& state) {
  Fixture& f = Get();
  const AccessList& acl = *f.lists[state.range(0)];
  const std::vector<uint32_t>& probes = f.v4[state.range(1)];
  uint32_t next = 0;
  AccessVerdict out[kBurst];
  unsigned allowed = 0;
  for (auto _ : state) {
    acl.CheckBulk(probes.data() + next, out, kBurst);
    next = (next + kBurst) % kProbes;
    allowed += core::IsAllowed(out[0]) + core::IsAllowed(out[kBurst - 1]);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(allowed);
  state.SetItemsProcessed(state.iterations() * kBurst);
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"list", "inside"});
  for (int list = 0; list < 3; ++list) {
    for (int inside = 0; inside < 2; ++inside) b->Args({list, inside});
  }
}
BENCHMARK(BM_Ipv4)->Apply(Args);
BENCHMARK(BM_Ipv6)->Apply(Args)->Args({3, 0})->Args({3, 1});
BENCHMARK(BM_Ipv4Bulk)->Apply(Args);

// Per benchmark and probe kind: ns per lookup for the empty, 1-prefix and
// 10k lists, and 10k / 1-prefix.
void Summarise(const bench::BestTimeReporter& r) {
  const auto per_lookup = [&](const std::string& run) {
    std::optional<double> ns = r.BestNs(run);
    if (ns) *ns /= kBurst;
    return ns;
  };
  for (const char* bm : {"BM_Ipv4", "BM_Ipv6", "BM_Ipv4Bulk"}) {
    for (int inside = 0; inside < 2; ++inside) {
      double ns[3] = {};
      bool all = true;
      for (int list = 0; list < 3; ++list) {
        const std::optional<double> it =
            per_lookup(absl::StrCat(bm, "/list:", list, "/inside:", inside));
        all = all && it.has_value();
        if (it) ns[list] = *it;
      }
      if (!all) continue;
      std::printf(
          "%-11s %-13s 10k prefixes %6.2f ns/lookup; 1 prefix %5.2f; "
          "empty list %5.2f; 10k/1-prefix = %.2f\n",
          bm, inside ? "inside-a-rule" : "random", ns[2], ns[1], ns[0],
          ns[2] / ns[1]);
      if (const std::optional<double> subnet =
              per_lookup(absl::StrCat(bm, "/list:3/inside:", inside))) {
        std::printf(
            "%-11s %-13s 10k subnets /16../64 %6.2f ns/lookup; "
            "10k-subnets/1-prefix = %.2f\n",
            bm, inside ? "inside-a-rule" : "random", *subnet, *subnet / ns[1]);
      }
    }
  }
}

}  // namespace
}  // namespace zg::dataplane

int main(int argc, char** argv) {
  // Four lists: about 420 MiB of tables (64 MiB per family's first level).
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "access_list_benchmark", .memory_mb = 640},
      zg::dataplane::Summarise);
}
