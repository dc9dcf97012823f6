// SPDX-License-Identifier: Apache-2.0
// --port values (dataplane/daemon/port_spec.h): the port's own addresses
// and VLAN, the defaults for a port without them, and the errors; and two
// ports from a flagfile through ParseDaemonFlags.
#include "dataplane/daemon/port_spec.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/reflection.h"
#include "dataplane/daemon/flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace port_spec_test {
namespace {

using ::testing::HasSubstr;

InterfaceAddress Addr(const char* text) { return *ParseInterfaceAddress(text); }

TEST(PortSpecTest, NameOnly) {
  auto p = ParsePortSpec("0000:3b:00.0");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "0000:3b:00.0");
  EXPECT_TRUE(p->addresses.empty());
  EXPECT_FALSE(p->vlan_id.has_value());
}

TEST(PortSpecTest, AddressesAndVlan) {
  auto p = ParsePortSpec(
      "  net_af_xdp1\taddress=198.51.100.10/24,2001:db8::10/64 "
      "address=198.51.100.11/24 vlan=30 ");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "net_af_xdp1");
  ASSERT_EQ(p->addresses.size(), 3u);
  EXPECT_EQ(p->addresses[1].ToString(), "2001:db8::10/64");
  EXPECT_EQ(p->vlan_id, 30);
}

TEST(PortSpecTest, Errors) {
  for (const char* bad :
       {"", "   ", "address=10.0.0.1/24", "p address=", "p address=10.0.0.1",
        "p vlan=4095", "p vlan=x", "p vlan=1 vlan=2", "p color=red", "p x",
        "p address=224.0.0.1/4"}) {
    auto p = ParsePortSpec(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_THAT(p.status().message(), HasSubstr("--port=")) << bad;
    }
  }
  EXPECT_FALSE(ParsePortSpec(std::string(kMaxPortSpecBytes + 1, 'a')).ok());
}

TEST(ResolvePortsTest, DefaultsAndDuplicates) {
  const std::vector<InterfaceAddress> defaults = {Addr("192.0.2.10/24")};
  auto r = ResolvePorts(
      {"net_af_xdp0", "net_af_xdp1 address=10.1.0.1/24 vlan=7"}, defaults, 5);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].addresses, defaults);
  EXPECT_EQ((*r)[0].vlan_id, 5);
  EXPECT_EQ((*r)[1].addresses[0].ToString(), "10.1.0.1/24");
  EXPECT_EQ((*r)[1].vlan_id, 7);
  auto dup = ResolvePorts({"p0", "p0 vlan=1"}, defaults, 0);
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("given twice"));
  std::vector<std::string> many(kMaxPorts + 1);
  for (size_t i = 0; i < many.size(); ++i) many[i] = "p" + std::to_string(i);
  EXPECT_FALSE(ResolvePorts(many, defaults, 0).ok());
}

TEST(ParseDaemonFlagsPortsTest, TwoPortsFromAFlagfile) {
  absl::FlagSaver saver;
  char path[] = "/tmp/zg-port-spec-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path)
      << "--address=192.0.2.10/24\n"
         "--port=net_af_xdp0\n"
         "--port=net_af_xdp1 address=198.51.100.10/24 vlan=30\n";
  std::vector<std::string> args = {"zeitgeberd",
                                   std::string("--flagfile=") + path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  auto c = ParseDaemonFlags(argv);
  unlink(path);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->ports.size(), 2u);
  EXPECT_EQ(c->port, "net_af_xdp0");
  EXPECT_EQ(c->ports[0].addresses[0].ToString(), "192.0.2.10/24");
  EXPECT_EQ(c->ports[0].vlan_id, 0);
  EXPECT_EQ(c->ports[1].name, "net_af_xdp1");
  EXPECT_EQ(c->ports[1].addresses[0].ToString(), "198.51.100.10/24");
  EXPECT_EQ(c->ports[1].vlan_id, 30);
  // Every address served, on any port.
  ASSERT_EQ(c->addresses.size(), 2u);
}

}  // namespace
}  // namespace port_spec_test
}  // namespace zg::dataplane
