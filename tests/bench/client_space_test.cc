// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/client_space.h"

#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace zg::bench {
namespace client_space_test {
namespace {

TEST(ClientSpaceTest, EveryClientHasAUniqueEndpointThatMapsBack) {
  for (const ClientSpace::Config& c :
       {ClientSpace::Config{
            .clients = 1, .addresses = 1, .first_port = 1000, .lanes = 1},
        ClientSpace::Config{
            .clients = 1000, .addresses = 7, .first_port = 20000, .lanes = 3},
        ClientSpace::Config{
            .clients = 65535, .addresses = 1, .first_port = 1, .lanes = 2},
        ClientSpace::Config{.clients = 100'000,
        .addresses = 100,
        .first_port = 10000,
        .lanes = 4}}) {
    auto space = ClientSpace::Create(c);
    ASSERT_TRUE(space.ok()) << space.status();
    std::set<std::pair<uint32_t, uint16_t>> seen;
    std::vector<uint32_t> per_lane(c.lanes);
    for (uint32_t i = 0; i < c.clients; ++i) {
      const ClientEndpoint e = space->EndpointOf(i);
      EXPECT_LT(e.address_offset, c.addresses);
      EXPECT_GE(e.port, c.first_port);
      EXPECT_TRUE(seen.insert({e.address_offset, e.port}).second) << i;
      ASSERT_EQ(space->ClientOf(e.address_offset, e.port), i);
      const uint32_t lane = space->LaneOf(i);
      const uint32_t local = space->LocalIndexOf(i);
      EXPECT_EQ(space->GlobalIndex(lane, local), i);
      EXPECT_LT(local, space->ClientsInLane(lane));
      ++per_lane[lane];
    }
    uint32_t total = 0;
    for (uint32_t l = 0; l < c.lanes; ++l) {
      EXPECT_EQ(per_lane[l], space->ClientsInLane(l)) << l;
      total += space->ClientsInLane(l);
    }
    EXPECT_EQ(total, c.clients);
    EXPECT_EQ(space->ClientsInLane(c.lanes), 0u);
  }
}

TEST(ClientSpaceTest, AddressesVaryFirst) {
  auto space = ClientSpace::Create(
      {.clients = 6, .addresses = 3, .first_port = 500, .lanes = 1});
  ASSERT_TRUE(space.ok());
  EXPECT_EQ(space->EndpointOf(0).address_offset, 0u);
  EXPECT_EQ(space->EndpointOf(1).address_offset, 1u);
  EXPECT_EQ(space->EndpointOf(2).address_offset, 2u);
  EXPECT_EQ(space->EndpointOf(3).address_offset, 0u);
  EXPECT_EQ(space->EndpointOf(3).port, 501);
  EXPECT_EQ(space->ports_per_address(), 2u);
}

TEST(ClientSpaceTest, ForeignEndpointsAreNotClients) {
  auto space = ClientSpace::Create(
      {.clients = 10, .addresses = 4, .first_port = 500, .lanes = 2});
  ASSERT_TRUE(space.ok());
  EXPECT_FALSE(space->ClientOf(4, 500).has_value());  // address out of range
  EXPECT_FALSE(space->ClientOf(0, 499).has_value());  // port below range
  EXPECT_FALSE(space->ClientOf(2, 502).has_value());  // client 10: too many
  EXPECT_TRUE(space->ClientOf(1, 502).has_value());   // client 9
  EXPECT_FALSE(space->ClientOf(uint64_t{1} << 40, 500).has_value());
}

TEST(ClientSpaceTest, RejectsImpossibleLayouts) {
  EXPECT_FALSE(ClientSpace::Create({.clients = 0}).ok());
  EXPECT_FALSE(ClientSpace::Create({.clients = 4, .addresses = 5}).ok());
  EXPECT_FALSE(ClientSpace::Create({.clients = 4, .addresses = 0}).ok());
  EXPECT_FALSE(ClientSpace::Create({.clients = 4, .lanes = 5}).ok());
  EXPECT_FALSE(ClientSpace::Create({.clients = 4, .lanes = 0}).ok());
  EXPECT_FALSE(ClientSpace::Create({.clients = 4, .first_port = 0}).ok());
  // 70000 clients on one address do not fit in the port space.
  auto s = ClientSpace::Create({.clients = 70000, .first_port = 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--source_addresses"), std::string::npos);
  EXPECT_TRUE(
      ClientSpace::Create({.clients = 70000, .addresses = 2, .first_port = 1})
          .ok());
}

}  // namespace
}  // namespace client_space_test
}  // namespace zg::bench
