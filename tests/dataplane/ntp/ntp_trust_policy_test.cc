// SPDX-License-Identifier: Apache-2.0
// The NTP trust policy (dataplane/ntp/ntp_trust_policy.h) in zeitgeberd's
// protocol pipeline on a ring port: its configuration from flag values, rate
// limiting per client with KoD RATE, the reply's poll raised to the
// interval, the counters, and the burst prefetch step in the worker loop.
#include "dataplane/ntp/ntp_trust_policy.h"

#include "absl/flags/flag.h"
#include "core/net/ip_prefix.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/flags/trust.h"
#include "dataplane/trust/reload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"

namespace zg::dataplane::testing {
namespace ntp_trust_policy_test {
namespace {

using ::testing::HasSubstr;

TEST(NtpTrustConfigTest, FromFlagValues) {
  absl::StatusOr<NtpTrustConfig> c = BuildNtpTrustConfig("", false, 1000);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->rate_limit.has_value());
  EXPECT_FALSE(BuildNtpTrustConfig("off", true, 1000)->rate_limit.has_value());
  c = BuildNtpTrustConfig("on", true, 1000);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->rate_limit, core::NtpRateLimitConfig{});
  EXPECT_TRUE(c->rate_kod);
  c = BuildNtpTrustConfig("interval=-2,burst=4", false, 10'000'000);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rate_limit, (core::NtpRateLimitConfig{-2, 4, 2}));
  EXPECT_EQ(c->clients_max, 10'000'000u);
}

TEST(NtpTrustConfigTest, ErrorsNameTheFlag) {
  absl::StatusOr<NtpTrustConfig> c = BuildNtpTrustConfig("burst=0", false, 1);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--ntp_ratelimit"));
  c = BuildNtpTrustConfig("on", false, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--ntp_clients_max=0"));
}

TEST(NtpTrustConfigTest, ClientsAreSplitBetweenWorkers) {
  EXPECT_EQ(NtpTrustPolicyFactory::PerWorkerClients(1'000'000, 4), 250'000u);
  EXPECT_EQ(NtpTrustPolicyFactory::PerWorkerClients(10, 3), 4u);
  EXPECT_EQ(NtpTrustPolicyFactory::PerWorkerClients(10, 0), 10u);
}

class NtpTrustPipelineTest : public NtpPipelineTest {
 protected:
  void SetUpTrust(const char* ratelimit, bool kod, bool prefetch = true,
                  const AccessConfig& access = {}) {
    absl::StatusOr<NtpTrustConfig> c =
        BuildNtpTrustConfig(ratelimit, kod, 4096);
    ASSERT_TRUE(c.ok()) << c.status();
    c->prefetch = prefetch;
    trust_.SetConfig(*c);
    ASSERT_TRUE(trust_.ConfigureShared(access).ok());
    SetUpServer(std::nullopt, &trust_);
  }
  static AccessConfig Access(const char* allow, const char* deny,
                             NtpDenyAction action) {
    AccessConfig a;
    if (*allow) a.ntp.allow = *core::ParseNetworkPrefixList(allow);
    if (*deny) a.ntp.deny = *core::ParseNetworkPrefixList(deny);
    a.ntp_deny_action = action;
    return a;
  }
  uint64_t Acl(core::AccessVerdict v) const {
    return trust_.worker_stats().at(0)->acl[static_cast<size_t>(v)].Load();
  }
  std::vector<std::vector<uint8_t>> Requests(const ClientFlow& flow, int n) {
    return std::vector<std::vector<uint8_t>>(
        n, UdpFrame(flow, NtpRequest(4, kT1, /*poll_log2=*/3)));
  }
  // The frames of `e` as NTP headers seen by the client of `flow`.
  std::vector<core::NtpHeader> Headers(const Exchange& e,
                                       const ClientFlow& flow) {
    std::vector<core::NtpHeader> out;
    for (const rte_mbuf* m : e.out) {
      absl::StatusOr<ClientView> v = ReceiveAtClient(flow, m);
      EXPECT_TRUE(v.ok()) << v.status();
      if (!v.ok()) continue;
      core::NtpHeader h;
      EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
      out.push_back(h);
    }
    return out;
  }

  NtpTrustPolicyFactory trust_;
};

TEST_F(NtpTrustPipelineTest, NothingConfiguredInstallsNoPolicy) {
  SetUpTrust("", true);
  EXPECT_TRUE(trust_.worker_stats().empty());
  Exchange e = Run(Requests(Flow4(), 32));
  EXPECT_EQ(e.out.size(), 32u);
  Free(e);
}

TEST_F(NtpTrustPipelineTest, FloodGetsBurstOneKissAndTheLeak) {
  SetUpTrust("interval=10,burst=2,leak=4", /*kod=*/true);
  Exchange e = Run(Requests(Flow4(), 32));
  const std::vector<core::NtpHeader> replies = Headers(e, Flow4());
  int answers = 0, kisses = 0;
  for (const core::NtpHeader& h : replies) {
    EXPECT_GE(h.poll_log2, 10) << "poll raised to the interval";
    if (core::ClassifyNtpKiss(h) == core::NtpKiss::kRate) {
      ++kisses;
      EXPECT_EQ(h.stratum, 0);
      EXPECT_EQ(h.leap, core::NtpLeapIndicator::kUnsynchronized);
    } else {
      EXPECT_EQ(h.stratum, 1);
      ++answers;
    }
  }
  const NtpTrustWorkerStats& s = *trust_.worker_stats().at(0);
  EXPECT_EQ(kisses, 1) << "one KoD per client per 2^interval s";
  EXPECT_EQ(s.kod_rate.Load(), 1u);
  EXPECT_EQ(uint64_t(answers), 2 + s.rate_answered_leak.Load());
  EXPECT_EQ(s.rate_dropped.Load() + s.rate_answered_leak.Load(), 29u);
  EXPECT_EQ(e.delta.dropped[trust_.drop_rate_limited()], s.rate_dropped.Load());
  EXPECT_EQ(s.clients_tracked.Load(), 1u);
  Free(e);

  // Another client (IPv6) has a bucket of its own.
  e = Run(Requests(Flow6(), 2));
  EXPECT_EQ(Headers(e, Flow6()).size(), 2u);
  EXPECT_EQ(s.clients_tracked.Load(), 2u);
  Free(e);
}

TEST_F(NtpTrustPipelineTest, WithoutKodExcessIsDroppedOrLeaked) {
  SetUpTrust("interval=10,burst=1,leak=1", /*kod=*/false, /*prefetch=*/false);
  Exchange e = Run(Requests(Flow4(), 32));
  for (const core::NtpHeader& h : Headers(e, Flow4())) {
    EXPECT_NE(core::ClassifyNtpKiss(h), core::NtpKiss::kRate);
    EXPECT_GE(h.poll_log2, 10);
  }
  const NtpTrustWorkerStats& s = *trust_.worker_stats().at(0);
  EXPECT_EQ(e.out.size(), 1 + s.rate_answered_leak.Load());
  EXPECT_GT(s.rate_answered_leak.Load(), 4u) << "about half of 31";
  EXPECT_EQ(s.kod_rate.Load(), 0u);
  Free(e);
}

TEST_F(NtpTrustPipelineTest, PoliteClientsAreAnswered) {
  SetUpTrust("interval=-4,burst=8", /*kod=*/true);
  // 16 clients, 2 requests each, in one burst: all within their buckets.
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 16; ++i) {
    ClientFlow f = Flow4();
    f.client_ip = core::IpAddress::V4(
        core::Ipv4Addr{core::testing::kPeer4.value + uint32_t(i)});
    frames.push_back(UdpFrame(f, NtpRequest(4, kT1)));
    frames.push_back(UdpFrame(f, NtpRequest(4, kT1)));
  }
  Exchange e = Run(frames);
  EXPECT_EQ(e.out.size(), 32u);
  EXPECT_EQ(trust_.worker_stats().at(0)->clients_tracked.Load(), 16u);
  Free(e);
}

TEST_F(NtpTrustPipelineTest, DeniedClientsAreDropped) {
  SetUpTrust("", false, true,
             Access("10.99.0.0/24", "10.99.0.2/32", NtpDenyAction::kDrop));
  Exchange e = Run(Requests(Flow4(), 3));
  EXPECT_TRUE(e.out.empty());
  EXPECT_EQ(e.delta.dropped[trust_.drop_acl_denied()], 3u);
  EXPECT_EQ(Acl(core::AccessVerdict::kDenyRule), 3u);
  Free(e);
  // Another address of the allowed prefix is served; IPv6 falls to the
  // default, which with an allow list is deny.
  ClientFlow other = Flow4();
  other.client_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 99, 0, 7));
  e = Run(Requests(other, 2));
  EXPECT_EQ(Headers(e, other).size(), 2u);
  EXPECT_EQ(Acl(core::AccessVerdict::kAllowRule), 2u);
  Free(e);
  e = Run(Requests(Flow6(), 1));
  EXPECT_TRUE(e.out.empty());
  EXPECT_EQ(Acl(core::AccessVerdict::kDenyDefault), 1u);
  Free(e);
}

TEST_F(NtpTrustPipelineTest, DeniedClientsGetKissOfDenyWithinTheirBucket) {
  SetUpTrust("interval=10,burst=2,leak=4", /*kod=*/true, true,
             Access("", "10.99.0.2/32", NtpDenyAction::kKod));
  Exchange e = Run(Requests(Flow4(), 32));
  const NtpTrustWorkerStats& s = *trust_.worker_stats().at(0);
  size_t deny = 0;
  for (const core::NtpHeader& h : Headers(e, Flow4())) {
    EXPECT_EQ(core::ClassifyNtpKiss(h), core::NtpKiss::kDeny);
    EXPECT_EQ(h.stratum, 0);
    ++deny;
  }
  // The bucket (2), its one KoD and the leak: never one per request.
  EXPECT_GE(deny, 3u);
  EXPECT_LT(deny, 16u);
  EXPECT_EQ(s.kod_deny.Load(), deny);
  EXPECT_EQ(e.delta.dropped[trust_.drop_acl_denied()], 32 - deny);
  Free(e);
  // Allowed (by default) clients are rate limited as usual.
  ClientFlow other = Flow4();
  other.client_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 99, 0, 7));
  e = Run(Requests(other, 2));
  EXPECT_EQ(Headers(e, other).size(), 2u);
  EXPECT_EQ(Acl(core::AccessVerdict::kAllowDefault), 2u);
  Free(e);
}

TEST_F(NtpTrustPipelineTest, ReloadChangesTheRateLimit) {
  SetUpTrust("interval=10,burst=4,leak=4", /*kod=*/false);
  Exchange e = Run(Requests(Flow4(), 4));
  EXPECT_EQ(e.out.size(), 4u);
  Free(e);
  absl::SetFlag(&FLAGS_ntp_ratelimit, "interval=10,burst=40,leak=4");
  DaemonConfig config;
  ReloadPlan plan;
  ReloadArgs args;
  args.config = &config;
  args.plan = &plan;
  ASSERT_TRUE(trust_.Reload(args).ok());
  EXPECT_EQ(plan.staged(), 1u);
  plan.Commit();
  // A new client gets the new burst.
  ClientFlow other = Flow4();
  other.client_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 99, 0, 7));
  e = Run(Requests(other, 32));
  EXPECT_EQ(e.out.size(), 32u);
  Free(e);
  // Turning rate limiting off needs a restart: rejected, nothing staged.
  absl::SetFlag(&FLAGS_ntp_ratelimit, "off");
  ReloadPlan plan2;
  args.plan = &plan2;
  const absl::Status s = trust_.Reload(args);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("needs a restart"));
  EXPECT_EQ(plan2.staged(), 0u);
  absl::SetFlag(&FLAGS_ntp_ratelimit, "");
}

}  // namespace
}  // namespace ntp_trust_policy_test
}  // namespace zg::dataplane::testing
