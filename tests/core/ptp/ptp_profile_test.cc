// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_profile.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_profile_test {
namespace {

using ::testing::HasSubstr;

constexpr PtpProfileId kAll[] = {
    PtpProfileId::kDefaultE2E, PtpProfileId::kDefaultP2P,
    PtpProfileId::kG8275_2, PtpProfileId::kEnterpriseHybrid};

TEST(PtpProfile, NamesRoundTrip) {
  for (PtpProfileId id : kAll) {
    auto parsed = ParsePtpProfileName(PtpProfileName(id));
    ASSERT_TRUE(parsed.ok()) << PtpProfileName(id);
    EXPECT_EQ(*parsed, id);
    EXPECT_EQ(GetPtpProfile(id).id, id);
  }
  EXPECT_EQ(*ParsePtpProfileName("g8275_2"), PtpProfileId::kG8275_2);
  const auto bad = ParsePtpProfileName("gptp");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'gptp'"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("g8275.2"));
}

TEST(PtpProfile, Transports) {
  EXPECT_EQ(*ParsePtpTransports("udp4"), kPtpTransportUdpIpv4);
  EXPECT_EQ(*ParsePtpTransports("udp4,l2"),
            kPtpTransportUdpIpv4 | kPtpTransportL2);
  EXPECT_EQ(*ParsePtpTransports("all"),
            kPtpTransportUdpIpv4 | kPtpTransportUdpIpv6 | kPtpTransportL2);
  EXPECT_EQ(PtpTransportsToString(*ParsePtpTransports("l2,udp6")), "udp6,l2");
  const auto bad = ParsePtpTransports("udp4,ethernet");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'ethernet'"));
  EXPECT_FALSE(ParsePtpTransports("").ok());
}

TEST(PtpProfile, EveryDefaultConfigIsValid) {
  for (PtpProfileId id : kAll) {
    const PtpPortConfig c = DefaultPtpPortConfig(id);
    EXPECT_TRUE(ValidatePtpPortConfig(c).ok())
        << PtpProfileName(id) << ": " << ValidatePtpPortConfig(c).message();
  }
}

TEST(PtpProfile, ProfileDefaults) {
  const PtpPortConfig g = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  EXPECT_EQ(g.domain_number, 44);
  EXPECT_FALSE(g.multicast_service);
  EXPECT_TRUE(g.unicast_negotiation);
  EXPECT_EQ(g.grant_limits.max_duration_s, 1000u);
  EXPECT_TRUE(GetPtpProfile(PtpProfileId::kG8275_2).alternate_bmca);
  const PtpPortConfig p = DefaultPtpPortConfig(PtpProfileId::kDefaultP2P);
  EXPECT_EQ(p.delay_mechanism, PtpDelayMechanism::kP2P);
  EXPECT_TRUE(p.grant_limits.For(PtpGrantType::kPdelayResp).allowed);
  EXPECT_FALSE(p.grant_limits.For(PtpGrantType::kDelayResp).allowed);
  const PtpPortConfig e = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  EXPECT_EQ(e.log_announce_interval, 1);
  EXPECT_EQ(e.announce_receipt_timeout, 3);
  EXPECT_TRUE(e.multicast_service);
  EXPECT_FALSE(e.unicast_negotiation);
}

TEST(PtpProfile, OutOfRangeNamesFieldValueAndRange) {
  PtpPortConfig c = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  c.log_sync_interval = -8;
  absl::Status s = ValidatePtpPortConfig(c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "log_sync_interval -8 is outside the g8275.2 profile's range "
            "[-7, 0]");

  c = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  c.domain_number = 0;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("domain 0 is outside"));

  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.announce_receipt_timeout = 1;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("announce_receipt_timeout 1"));
  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.log_announce_interval = 5;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c.log_announce_interval = 4;
  EXPECT_TRUE(ValidatePtpPortConfig(c).ok());
  c.log_min_delay_req_interval = -1;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c = DefaultPtpPortConfig(PtpProfileId::kEnterpriseHybrid);
  c.log_sync_interval = -7;
  c.log_min_delay_req_interval = -7;
  EXPECT_TRUE(ValidatePtpPortConfig(c).ok());
}

TEST(PtpProfile, ProfileRules) {
  PtpPortConfig c = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  c.priority1 = 100;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("fixes priority1 at 128"));

  c = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  c.multicast_service = true;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("unicast only"));

  c = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  c.unicast_negotiation = false;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("requires unicast negotiation on"));

  c = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  c.transports = kPtpTransportL2;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("transports 'l2' not allowed"));

  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.multicast_service = false;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("would send no Sync"));
  c.unicast_negotiation = true;
  EXPECT_TRUE(ValidatePtpPortConfig(c).ok());

  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.delay_mechanism = PtpDelayMechanism::kP2P;
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("E2E delay mechanism"));

  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.transports = 0;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.local_priority = 0;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.minor_version = 16;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.max_unicast_clients = 0;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
}

TEST(PtpProfile, GrantLimitsChecked) {
  PtpPortConfig c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.grant_limits.per_type[1].log_interval = {-11, 0};
  EXPECT_THAT(std::string(ValidatePtpPortConfig(c).message()),
              HasSubstr("SYNC [-11, 0]"));
  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.grant_limits.per_type[0].log_interval = {2, 1};
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  c.grant_limits.min_duration_s = 0;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
  c.grant_limits.min_duration_s = 100;
  c.grant_limits.max_duration_s = 99;
  EXPECT_FALSE(ValidatePtpPortConfig(c).ok());
}

TEST(PtpProfile, LogIntervalNs) {
  EXPECT_EQ(PtpLogIntervalNs(0), 1'000'000'000);
  EXPECT_EQ(PtpLogIntervalNs(1), 2'000'000'000);
  EXPECT_EQ(PtpLogIntervalNs(5), 32'000'000'000);
  EXPECT_EQ(PtpLogIntervalNs(-1), 500'000'000);
  EXPECT_EQ(PtpLogIntervalNs(-4), 62'500'000);
  EXPECT_EQ(PtpLogIntervalNs(-7), 7'812'500);
  EXPECT_EQ(PtpLogIntervalNs(-10), 976'563);  // 976562.5 rounded
}

TEST(PtpProfile, GrantIndex) {
  PtpGrantType g;
  EXPECT_TRUE(PtpGrantIndexOf(PtpMessageType::kAnnounce, &g));
  EXPECT_EQ(g, PtpGrantType::kAnnounce);
  EXPECT_TRUE(PtpGrantIndexOf(PtpMessageType::kPdelayResp, &g));
  EXPECT_EQ(g, PtpGrantType::kPdelayResp);
  EXPECT_FALSE(PtpGrantIndexOf(PtpMessageType::kFollowUp, &g));
  for (size_t i = 0; i < kPtpGrantTypeCount; ++i) {
    const auto type = PtpGrantMessageType(static_cast<PtpGrantType>(i));
    ASSERT_TRUE(PtpGrantIndexOf(type, &g));
    EXPECT_EQ(static_cast<size_t>(g), i);
  }
}

}  // namespace
}  // namespace ptp_profile_test
}  // namespace zg::core
