// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/config.h"

#include <string>

#include "absl/flags/marshalling.h"
#include "absl/strings/match.h"
#include "bench/loadgen/request_table.h"
#include "gtest/gtest.h"

namespace zg::bench {
namespace config_test {
namespace {

template <typename T>
bool Parse(const std::string& text, T* out, std::string* error) {
  return absl::ParseFlag(text, out, error);
}

TEST(RateFlagTest, ParsesNumbersSuffixesAndMax) {
  std::string err;
  Rate r;
  ASSERT_TRUE(Parse("250000", &r, &err)) << err;
  EXPECT_EQ(r.pps, 250000);
  ASSERT_TRUE(Parse("2.5e5", &r, &err));
  EXPECT_EQ(r.pps, 250000);
  ASSERT_TRUE(Parse("250k", &r, &err));
  EXPECT_EQ(r.pps, 250000);
  ASSERT_TRUE(Parse("1.5M", &r, &err));
  EXPECT_EQ(r.pps, 1.5e6);
  ASSERT_TRUE(Parse("1G", &r, &err));
  EXPECT_EQ(r.pps, 1e9);
  ASSERT_TRUE(Parse("max", &r, &err));
  EXPECT_TRUE(r.IsMax());
  EXPECT_EQ(absl::UnparseFlag(r), "max");
  ASSERT_TRUE(Parse("12345", &r, &err));
  EXPECT_EQ(absl::UnparseFlag(r), "12345");
}

TEST(RateFlagTest, RejectsNonsenseWithAHint) {
  for (const char* bad :
       {"", "fast", "-5", "0", "1.5X", "M", "nan", "inf", "1e400"}) {
    std::string err;
    Rate r;
    EXPECT_FALSE(Parse(bad, &r, &err)) << bad;
    EXPECT_TRUE(absl::StrContains(err, "'max'")) << bad << ": " << err;
  }
}

TEST(TargetFlagTest, ParsesIpv4AndIpv6WithOptionalPort) {
  std::string err;
  Target t;
  ASSERT_TRUE(Parse("10.99.0.1", &t, &err)) << err;
  EXPECT_EQ(t.host, "10.99.0.1");
  EXPECT_EQ(t.port, 123);
  EXPECT_FALSE(t.IsIpv6());
  ASSERT_TRUE(Parse("10.99.0.1:1123", &t, &err));
  EXPECT_EQ(t.host, "10.99.0.1");
  EXPECT_EQ(t.port, 1123);
  ASSERT_TRUE(Parse("fd99::1", &t, &err));
  EXPECT_EQ(t.host, "fd99::1");
  EXPECT_EQ(t.port, 123);
  EXPECT_TRUE(t.IsIpv6());
  ASSERT_TRUE(Parse("[fd99::1]:4123", &t, &err));
  EXPECT_EQ(t.host, "fd99::1");
  EXPECT_EQ(t.port, 4123);
  ASSERT_TRUE(Parse("[::1]", &t, &err));
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, 123);
  EXPECT_EQ(absl::UnparseFlag(t), "[::1]:123");
  ASSERT_TRUE(Parse("10.0.0.1:5", &t, &err));
  EXPECT_EQ(absl::UnparseFlag(t), "10.0.0.1:5");
}

TEST(TargetFlagTest, EmptyIsUnsetAndRoundTrips) {
  std::string err;
  Target t{"10.0.0.1", 5};
  ASSERT_TRUE(Parse("", &t, &err));
  EXPECT_TRUE(t.host.empty());
  EXPECT_EQ(absl::UnparseFlag(t), "");  // abseil re-parses the default
  LoadgenOptions o;
  EXPECT_TRUE(absl::StrContains(ValidateOptions(o, 1).message(), "--target"));
}

TEST(TargetFlagTest, RejectsMalformedTargets) {
  for (const char* bad :
       {":123", "10.0.0.1:", "10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:http",
        "[fd99::1", "[fd99::1]123", "[]:123", "[fd99::1]:"}) {
    std::string err;
    Target t;
    EXPECT_FALSE(Parse(bad, &t, &err)) << bad;
    EXPECT_FALSE(err.empty()) << bad;
  }
}

TEST(MixFlagTest, ParsesKindsAndWeights) {
  std::string err;
  TrafficMix m;
  ASSERT_TRUE(Parse("ntp4", &m, &err)) << err;
  ASSERT_EQ(m.weights.size(), 1u);
  EXPECT_EQ(m.weights[0].first, TrafficKind::kNtp4);
  ASSERT_TRUE(Parse("ntp", &m, &err));
  EXPECT_EQ(m.weights[0].first, TrafficKind::kNtp4);
  ASSERT_TRUE(Parse("ntp4:90,ptp:10", &m, &err));
  ASSERT_EQ(m.weights.size(), 2u);
  EXPECT_EQ(m.weights[1].first, TrafficKind::kPtpDelayReq);
  EXPECT_EQ(m.weights[1].second, 10u);
  EXPECT_TRUE(m.Has(TrafficKind::kPtpDelayReq));
  EXPECT_FALSE(m.Has(TrafficKind::kNtp3));
  EXPECT_EQ(absl::UnparseFlag(m), "ntp4:90,ptp:10");
  for (const char* bad :
       {"", "sntp", "ntp4:0", "ntp4:x", "ntp4,ntp4", "ntp4:90,,ptp"}) {
    EXPECT_FALSE(Parse(bad, &m, &err)) << bad;
  }
}

TEST(MixFlagTest, PtpUnicastStandsAlone) {
  std::string err;
  TrafficMix m;
  ASSERT_TRUE(Parse("ptp_unicast", &m, &err)) << err;
  EXPECT_TRUE(m.ptp_unicast);
  EXPECT_EQ(AbslUnparseFlag(m), "ptp_unicast");
  EXPECT_FALSE(Parse("ptp_unicast:50,ntp4:50", &m, &err));
  ASSERT_TRUE(Parse("ptp", &m, &err)) << err;
  EXPECT_FALSE(m.ptp_unicast);
}

TEST(MixFlagTest, ClientsGetKindsInProportion) {
  TrafficMix m;
  std::string err;
  ASSERT_TRUE(Parse("ntp4:70,ntp3:20,ptp:10", &m, &err));
  int counts[3] = {};
  const uint32_t n = 1000;
  for (uint32_t i = 0; i < n; ++i) {
    ++counts[static_cast<int>(m.KindOf(i, n))];
  }
  EXPECT_EQ(counts[0], 700);
  EXPECT_EQ(counts[1], 200);
  EXPECT_EQ(counts[2], 100);
  // Every lane of 4 sees the same mix (lanes take every 4th client).
  int lane0[3] = {};
  for (uint32_t i = 0; i < n; i += 4) {
    ++lane0[static_cast<int>(m.KindOf(i, n))];
  }
  EXPECT_EQ(lane0[0], 175);
  EXPECT_EQ(lane0[1], 50);
  EXPECT_EQ(lane0[2], 25);
}

LoadgenOptions Good() {
  LoadgenOptions o;
  o.target.host = "10.99.0.1";
  return o;
}

void ExpectError(const LoadgenOptions& o, uint32_t lanes,
                 const std::string& needle) {
  const absl::Status s = ValidateOptions(o, lanes);
  EXPECT_FALSE(s.ok()) << needle;
  EXPECT_TRUE(absl::StrContains(s.message(), needle))
      << "wanted '" << needle << "' in: " << s.message();
}

TEST(ValidateOptionsTest, DefaultsWithATargetAreValid) {
  EXPECT_TRUE(ValidateOptions(Good(), 1).ok());
  LoadgenOptions o = Good();
  o.sweep = true;
  EXPECT_TRUE(ValidateOptions(o, 2).ok());
}

TEST(ValidateOptionsTest, EachBadFlagNamesItself) {
  ExpectError(LoadgenOptions(), 1, "--target");
  ExpectError(Good(), 0, "lcores");
  LoadgenOptions o = Good();
  o.duration = absl::ZeroDuration();
  ExpectError(o, 1, "--duration");
  o = Good();
  o.duration = absl::Hours(25);
  ExpectError(o, 1, "--duration");
  o = Good();
  o.clients = 0;
  ExpectError(o, 1, "--clients");
  o = Good();
  o.clients = 2;
  ExpectError(o, 4, "--clients");
  o = Good();
  o.clients = 1u << 23;
  o.source_addresses = 1u << 10;
  ExpectError(o, 1, "more lcores");
  o.clients = 1u << 23;
  EXPECT_TRUE(ValidateOptions(o, 2).ok());
  o = Good();
  o.source_addresses = 300;
  ExpectError(o, 1, "--source_addresses");
  o = Good();
  o.source_port = 70000;
  ExpectError(o, 1, "--source_port");
  o = Good();
  o.clients = 100'000;
  ExpectError(o, 1, "--source_addresses");
  o = Good();
  o.mix.weights.clear();
  ExpectError(o, 1, "--mix");
  o = Good();
  o.timeout = absl::ZeroDuration();
  ExpectError(o, 1, "--timeout");
  o = Good();
  o.burst = 0;
  ExpectError(o, 1, "--burst");
  o = Good();
  o.burst = 4096;
  ExpectError(o, 1, "--burst");
  o = Good();
  o.rate.pps = 0.5;
  ExpectError(o, 1, "--rate");
  o = Good();
  o.arp_timeout = absl::ZeroDuration();
  ExpectError(o, 1, "--arp_timeout");
}

TEST(ValidateOptionsTest, SweepFlagsAreCheckedOnlyForASweep) {
  LoadgenOptions o = Good();
  o.sweep_loss = 2;
  EXPECT_TRUE(ValidateOptions(o, 1).ok());
  o.sweep = true;
  ExpectError(o, 1, "--sweep_loss");
  o = Good();
  o.sweep = true;
  o.sweep_resolution = 0;
  ExpectError(o, 1, "--sweep_resolution");
  o = Good();
  o.sweep = true;
  o.sweep_trial = absl::ZeroDuration();
  ExpectError(o, 1, "--sweep_trial");
  o = Good();
  o.sweep = true;
  o.rate.pps = 500;
  ExpectError(o, 1, "--sweep_min_rate");
  o = Good();
  o.sweep = true;
  o.sweep_max_trials = 0;
  ExpectError(o, 1, "--sweep_max_trials");
}

TEST(ChooseDepthTest, WindowCoversTwiceTheTimeout) {
  // 1 Mpps over 1000 clients with a 200 ms timeout: 400 requests per client
  // in two timeouts -> 512.
  EXPECT_EQ(ChooseDepth(1e6, 1000, absl::Milliseconds(200)), 512u);
  EXPECT_GE(absl::ToDoubleSeconds(TrackingWindow(512, 1e6, 1000)), 0.4);
  // Slow rate: depth 1 is plenty.
  EXPECT_EQ(ChooseDepth(100, 1000, absl::Milliseconds(200)), 1u);
  // One client at line rate: capped at the 16-bit sequence space.
  EXPECT_EQ(ChooseDepth(15e6, 1, absl::Seconds(1)), RequestTable::kMaxDepth);
  // Many clients: capped so the table fits.
  const uint32_t d = ChooseDepth(0, 1u << 20, absl::Seconds(1));
  EXPECT_LE(uint64_t{d} << 20, RequestTable::kMaxSlots);
  EXPECT_EQ(d, 4u);
  EXPECT_EQ(TrackingWindow(4, 0, 10), absl::InfiniteDuration());
}

}  // namespace
}  // namespace config_test
}  // namespace zg::bench
