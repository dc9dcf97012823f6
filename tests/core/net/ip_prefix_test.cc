// SPDX-License-Identifier: Apache-2.0
#include "core/net/ip_prefix.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ip_prefix_test {
namespace {

using ::testing::HasSubstr;

IpPrefix V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t len) {
  return IpPrefix{IpAddress::V4(Ipv4Addr::FromOctets(a, b, c, d)), len};
}
IpPrefix V6(const char* addr, uint8_t len) {
  return IpPrefix{IpAddress::V6(ParseIpv6Addr(addr).value()), len};
}

TEST(IpPrefixTest, ParsesNetworksAndHosts) {
  EXPECT_EQ(ParseNetworkPrefix("192.0.2.0/24").value(), V4(192, 0, 2, 0, 24));
  EXPECT_EQ(ParseNetworkPrefix("192.0.2.7").value(), V4(192, 0, 2, 7, 32));
  EXPECT_EQ(ParseNetworkPrefix("0.0.0.0/0").value(), V4(0, 0, 0, 0, 0));
  EXPECT_EQ(ParseNetworkPrefix("2001:db8::/32").value(), V6("2001:db8::", 32));
  EXPECT_EQ(ParseNetworkPrefix("2001:db8::7").value(), V6("2001:db8::7", 128));
  EXPECT_EQ(ParseNetworkPrefix("::/0").value(), V6("::", 0));
  EXPECT_EQ(ParseNetworkPrefix("2001:db8:0:80::/57").value(),
            V6("2001:db8:0:80::", 57));
}

TEST(IpPrefixTest, HostBitsNameTheValueAndSuggestTheMaskedPrefix) {
  absl::Status s = ParseNetworkPrefix("192.0.2.1/24").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"192.0.2.1/24\""));
  EXPECT_THAT(s.message(), HasSubstr("write 192.0.2.0/24 for the network"));
  EXPECT_THAT(s.message(), HasSubstr("192.0.2.1/32 for the one host"));
  s = ParseNetworkPrefix("2001:db8::1/32").status();
  EXPECT_THAT(s.message(), HasSubstr("write 2001:db8::/32"));
  EXPECT_THAT(s.message(), HasSubstr("2001:db8::1/128"));
  // A bit just past a length that is not a byte boundary.
  s = ParseNetworkPrefix("10.128.0.0/9").status();
  EXPECT_TRUE(s.ok()) << s;
  s = ParseNetworkPrefix("10.64.0.0/9").status();
  EXPECT_THAT(s.message(), HasSubstr("write 10.0.0.0/9"));
  s = ParseNetworkPrefix("2001:db8:0:c0::/57").status();
  EXPECT_THAT(s.message(), HasSubstr("write 2001:db8:0:80::/57"));
}

TEST(IpPrefixTest, RejectsMalformedValuesClearly) {
  for (const char* bad : {"", "10.0.0.0/33", "2001:db8::/129", "10.0.0/8",
                          "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/ 8",
                          "fe80::1%eth0", "host.example", "10.0.0.0/8/8"}) {
    const absl::Status s = ParseNetworkPrefix(bad).status();
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_FALSE(s.message().empty()) << bad;
  }
  EXPECT_THAT(ParseNetworkPrefix("10.0.0.0/33").status().message(),
              HasSubstr("/0../32"));
  EXPECT_THAT(ParseNetworkPrefix("all").status().message(),
              HasSubstr("only in a prefix list"));
}

TEST(IpPrefixTest, RejectsIpv4MappedIpv6WithTheIpv4Prefix) {
  const absl::Status s = ParseNetworkPrefix("::ffff:10.0.0.0/104").status();
  EXPECT_THAT(s.message(), HasSubstr("write the IPv4 prefix 10.0.0.0/8"));
  // Shorter than /96 it also covers other addresses: allowed.
  EXPECT_TRUE(ParseNetworkPrefix("::/80").ok());
}

TEST(IpPrefixTest, ListsSplitOnCommasAndSpellAllAsBothSlashZeros) {
  EXPECT_EQ(ParseNetworkPrefixList("10.0.0.0/8, 2001:db8::/32,").value(),
            (std::vector<IpPrefix>{V4(10, 0, 0, 0, 8), V6("2001:db8::", 32)}));
  EXPECT_EQ(ParseNetworkPrefixList("all").value(),
            (std::vector<IpPrefix>{V4(0, 0, 0, 0, 0), V6("::", 0)}));
  EXPECT_EQ(ParseNetworkPrefixList("ALL").value().size(), 2u);
  EXPECT_TRUE(ParseNetworkPrefixList("").value().empty());
  EXPECT_TRUE(ParseNetworkPrefixList(" , ").value().empty());
}

TEST(IpPrefixTest, ListErrorsGiveThePosition) {
  const absl::Status s =
      ParseNetworkPrefixList("10.0.0.0/8,192.0.2.1/24").status();
  EXPECT_THAT(s.message(), HasSubstr("item 2 of \"10.0.0.0/8,192.0.2.1/24\""));
  EXPECT_THAT(s.message(), HasSubstr("write 192.0.2.0/24"));
  // One item: the bare message.
  EXPECT_THAT(
      std::string(ParseNetworkPrefixList("192.0.2.1/24").status().message()),
      ::testing::StartsWith("prefix \"192.0.2.1/24\""));
}

TEST(IpPrefixTest, MaskAndContains) {
  EXPECT_EQ(MaskPrefix(V4(192, 0, 2, 77, 26)), V4(192, 0, 2, 64, 26));
  EXPECT_EQ(MaskPrefix(V4(192, 0, 2, 77, 0)), V4(0, 0, 0, 0, 0));
  EXPECT_EQ(MaskPrefix(V6("2001:db8:ffff::1", 36)), V6("2001:db8:f000::", 36));
  const IpPrefix net = V4(192, 0, 2, 64, 26);
  EXPECT_TRUE(
      PrefixContains(net, IpAddress::V4(Ipv4Addr::FromOctets(192, 0, 2, 127))));
  EXPECT_FALSE(
      PrefixContains(net, IpAddress::V4(Ipv4Addr::FromOctets(192, 0, 2, 128))));
  EXPECT_FALSE(PrefixContains(
      V4(0, 0, 0, 0, 0), IpAddress::V6(ParseIpv6Addr("2001:db8::").value())));
  EXPECT_TRUE(PrefixContains(
      V6("::", 0), IpAddress::V6(ParseIpv6Addr("2001:db8::").value())));
  EXPECT_TRUE(
      PrefixContains(V6("2001:db8::", 32),
                     IpAddress::V6(ParseIpv6Addr("2001:db8:1::").value())));
  EXPECT_FALSE(
      PrefixContains(V6("2001:db8::", 32),
                     IpAddress::V6(ParseIpv6Addr("2001:db9::").value())));
}

}  // namespace
}  // namespace ip_prefix_test
}  // namespace zg::core
