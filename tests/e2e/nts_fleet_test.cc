// SPDX-License-Identifier: Apache-2.0
// nts_fleet: two zeitgeberd instances that share one NTS master key accept
// each other's cookies with no shared state (RFC 8915 cookies sealed under
// a key derived from the master key per period, core/nts/nts_cookie.h);
// with another master key, the second answers with an NTS NAK.
//
// Instance 1 serves rig A, instance 2 rig B, instance 3 (the other master
// key) rig C: three veth rigs, three subnets. The test process does NTS-KE
// with instance 1 (kernel TCP on rig A's address,
// bench/loadgen/nts_ke_client.h); nts_query in rig B's (C's) namespace then
// sends NTS requests with those keys and cookies to instance 2 (3).
//
// Needs root; skipped until zeitgeberd has the NTS flags. 8-9 s measured here.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/loadgen/nts_ke_client.h"
#include "gtest/gtest.h"
#include "tests/e2e/nts_test_util.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/hex.h"
#include "tests/util/netns.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace nts_fleet_test {
namespace {

using testutil::CommandResult;
using testutil::NetnsRig;
using testutil::RigConfig;

class NtsFleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
    if (!testutil::ProgramAvailable("openssl")) GTEST_SKIP() << "no openssl";
    ASSERT_TRUE(ZeitgeberdHasNts())
        << "$ZG_ZEITGEBERD unset, or that zeitgeberd has no NTS flags";
    absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("ntsf");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    absl::StatusOr<TestPki> pki = MakeTestPki(*dir_, {kNtsName4});
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_ = *pki;
    absl::StatusOr<std::string> k1 = WriteMasterKey(*dir_, "fleet.key");
    absl::StatusOr<std::string> k2 = WriteMasterKey(*dir_, "other.key");
    ASSERT_TRUE(k1.ok() && k2.ok());
    fleet_key_ = *k1;
    other_key_ = *k2;
    a_.name = testutil::UniqueRigName("zgfa");
    b_.name = testutil::UniqueRigName("zgfb");
    b_.server_cidr = "10.98.0.1/24";
    b_.client_cidr = "10.98.0.2/24";
    b_.server_cidr6 = "fd98::1/64";
    b_.client_cidr6 = "fd98::2/64";
    c_.name = testutil::UniqueRigName("zgfc");
    c_.server_cidr = "10.95.0.1/24";
    c_.client_cidr = "10.95.0.2/24";
    c_.server_cidr6 = "fd95::1/64";
    c_.client_cidr6 = "fd95::2/64";
    for (auto [config, rig] :
         {std::pair{&a_, &rig_a_}, {&b_, &rig_b_}, {&c_, &rig_c_}}) {
      absl::StatusOr<std::unique_ptr<NetnsRig>> r = NetnsRig::Create(*config);
      ASSERT_TRUE(r.ok()) << r.status();
      *rig = std::move(*r);
    }
  }

  absl::StatusOr<std::unique_ptr<Zeitgeberd>> Start(const NetnsRig& rig,
                                                    const RigConfig& config,
                                                    const std::string& key,
                                                    const std::string& ke) {
    ZeitgeberdOptions options;
    options.extra_flags = NtsServerFlags(pki_, key, {ke});
    return Zeitgeberd::Start(rig, config, options);
  }

  // nts_query in `rig` with the session's keys and its cookie `i`.
  CommandResult Query(const NetnsRig& rig, const bench::NtsKeSession& s,
                      size_t i) {
    absl::StatusOr<CommandResult> r =
        NtsQuery(rig.ns(), {rig.server_ip(), testutil::ToHex(s.keys.c2s),
                            testutil::ToHex(s.keys.s2c),
                            testutil::ToHex(s.cookies.at(i))});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : CommandResult{};
  }

  std::unique_ptr<testutil::TempDir> dir_;
  TestPki pki_;
  std::string fleet_key_, other_key_;
  RigConfig a_, b_, c_;
  // Destroyed after the servers.
  std::unique_ptr<NetnsRig> rig_a_, rig_b_, rig_c_;
};

TEST_F(NtsFleetTest, SharedMasterKeyAcceptsCookiesAnotherKeyNaks) {
  absl::StatusOr<std::unique_ptr<Zeitgeberd>> one =
      Start(*rig_a_, a_, fleet_key_, rig_a_->server_ip() + ":4460");
  ASSERT_TRUE(one.ok()) << one.status();
  absl::StatusOr<std::unique_ptr<Zeitgeberd>> two =
      Start(*rig_b_, b_, fleet_key_, rig_b_->server_ip() + ":4461");
  ASSERT_TRUE(two.ok()) << two.status();

  bench::NtsKeClientOptions ke;
  ke.host = rig_a_->server_ip();
  ke.port = 4460;
  ke.ca_file = pki_.ca_pem;
  ke.server_name = kNtsName4;
  absl::StatusOr<bench::NtsKeSession> s;
  testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
    s = bench::RunNtsKeHandshake(ke);
    return s.ok();
  });
  ASSERT_TRUE(s.ok()) << s.status() << "\n" << (*one)->Log();
  ASSERT_EQ(s->cookies.size(), 8u);

  // Instance 2 opens instance 1's cookies: two of them, two replies.
  for (size_t i : {0u, 1u}) {
    const CommandResult r = Query(*rig_b_, *s, i);
    EXPECT_TRUE(absl::StartsWith(r.stdout_text, "status=ok"))
        << "cookie " << i << ": " << r.stdout_text << r.stderr_text << "\n"
        << (*two)->Log();
  }
  EXPECT_TRUE((*two)->Stop().ok()) << (*two)->Log();
  two->reset();

  // Instance 3 (rig C) with another master key NAKs the same cookies.
  absl::StatusOr<std::unique_ptr<Zeitgeberd>> other =
      Start(*rig_c_, c_, other_key_, rig_c_->server_ip() + ":4462");
  ASSERT_TRUE(other.ok()) << other.status();
  const CommandResult r = Query(*rig_c_, *s, 2);
  EXPECT_TRUE(absl::StartsWith(r.stdout_text, "status=nak"))
      << r.stdout_text << r.stderr_text << "\n"
      << (*other)->Log();
  EXPECT_TRUE((*other)->Stop().ok());
  EXPECT_TRUE((*one)->Stop().ok());
}

}  // namespace
}  // namespace nts_fleet_test
}  // namespace zg::e2e
