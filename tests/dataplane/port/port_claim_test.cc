// SPDX-License-Identifier: Apache-2.0
// PortClaim: which devices the EAL options name, and one holder per device
// (a second claim waits, then fails naming the holder; a released claim can
// be taken again). No EAL, no devices: lock files in a temporary directory.
#include "dataplane/port/port_claim.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace port_claim_test {
namespace {

using ::testing::HasSubstr;

std::vector<ClaimedDevice> Devices(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return DevicesInEalArgs(argv);
}

TEST(PortClaimTest, FindsAfXdpInterfacesAndPciDevices) {
  const std::vector<ClaimedDevice> d = Devices(
      {"-l", "0-2", "--vdev=net_af_xdp0,iface=eth1,xdp_prog=/x/zg_xdp.o",
       "--vdev", "net_af_xdp1,iface=eth2", "--vdev=net_ring0", "-a",
       "3b:00.0,rxq_cqe_comp_en=0", "--allow=0000:AF:00.1", "-a0000:5e:00.0",
       "--vdev=net_af_xdp2"});
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].key, "af_xdp-eth1");
  EXPECT_EQ(d[0].label, "net_af_xdp0 (interface eth1)");
  EXPECT_EQ(d[0].iface, "eth1");
  EXPECT_TRUE(d[0].xdp_prog);
  EXPECT_EQ(d[1].key, "af_xdp-eth2");
  EXPECT_FALSE(d[1].xdp_prog);
  EXPECT_EQ(d[2].key, "pci-0000:3b:00.0");
  EXPECT_EQ(d[2].iface, "");
  EXPECT_EQ(d[3].key, "pci-0000:af:00.1");
  EXPECT_EQ(d[4].key, "pci-0000:5e:00.0");
  // Options that merely start like ours are not device options.
  EXPECT_TRUE(Devices({"--vdevx=net_af_xdp0,iface=eth1", "--allowed"}).empty());
}

TEST(PortClaimTest, OneHolderPerDevice) {
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("claim");
  ASSERT_TRUE(dir.ok()) << dir.status();
  std::string a = "-a", pci = "0000:3b:00.0";
  std::vector<char*> args = {a.data(), pci.data()};
  absl::StatusOr<std::unique_ptr<PortClaim>> first =
      PortClaim::Acquire(args, absl::Milliseconds(50), dir->path());
  ASSERT_TRUE(first.ok()) << first.status();

  const absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<PortClaim>> second =
      PortClaim::Acquire(args, absl::Milliseconds(200), dir->path());
  ASSERT_FALSE(second.ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(200)) << "did not wait";
  EXPECT_THAT(second.status().message(),
              HasSubstr(absl::StrCat("0000:3b:00.0 is in use by ")));
  EXPECT_THAT(second.status().message(),
              HasSubstr(absl::StrCat("(pid ", getpid(), ")")));
  EXPECT_THAT(second.status().message(), HasSubstr("one zeitgeberd per port"));

  first->reset();  // the holder ends
  absl::StatusOr<std::unique_ptr<PortClaim>> third =
      PortClaim::Acquire(args, absl::Milliseconds(50), dir->path());
  EXPECT_TRUE(third.ok()) << third.status();
}

}  // namespace
}  // namespace port_claim_test
}  // namespace zg::dataplane
