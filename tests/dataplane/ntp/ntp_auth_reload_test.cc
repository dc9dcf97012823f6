// SPDX-License-Identifier: Apache-2.0
// Reloading the NTP keys (NtpAuthFactory::Reload, dataplane/ntp/ntp_auth.h):
// a changed keyfile is staged for every worker and in force only after the
// plan commits; an unchanged one stages nothing; a broken one (bad line,
// mode 0644) or turning keys on or off is rejected and the old keys stay.
// No EAL: the workers' authenticators are used directly.
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_wire.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/trust/reload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace ntp_auth_reload_test {
namespace {

using ::testing::HasSubstr;

constexpr char kKeysA[] = "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n";
constexpr char kKeysB[] =
    "1 AES128 HEX:000102030405060708090a0b0c0d0e0f\n"
    "5 SHA1 ASCII:correct-horse-battery\n";

class NtpAuthReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testutil::TempDir::Create("ntp-auth-reload");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    path_ = dir_->File("ntp.keys");
    Write(kKeysA);
    config_.ntp_keys = path_;
    ASSERT_TRUE(auth_.Configure(config_).ok());
    ASSERT_TRUE(auth_.RegisterNames(names_).ok());
    for (unsigned w = 0; w < 2; ++w) {
      WorkerSetup setup;
      setup.worker_index = w;
      auto a = auth_.Create(setup);
      ASSERT_TRUE(a.ok()) << a.status();
      ASSERT_NE(*a, nullptr);
      workers_.push_back(std::move(*a));
    }
  }
  void Write(const std::string& text, mode_t mode = 0600) {
    std::ofstream(path_) << text;
    ASSERT_EQ(chmod(path_.c_str(), mode), 0);
  }
  // Whether worker `w` accepts a request MACed with key `id` of `keys`.
  bool Accepts(size_t w, const char* keys, uint32_t id) {
    auto table = core::ParseNtpKeys(keys);
    auto client = core::NtpMacer::Create(*table);
    std::vector<uint8_t> req(48 + 24, 0);
    req[0] = 0x23;
    req[47] = 1;
    const uint32_t n = (*client)->Sign(
        static_cast<uint16_t>((*client)->Find(id)), req.data(), 48);
    req.resize(48 + n);
    const core::NtpRequestCheck c =
        core::ValidateNtpRequest(req.data(), static_cast<uint32_t>(req.size()),
                                 core::NtpMacHandling::kReport);
    EXPECT_EQ(c.drop, core::NtpDrop::kNone);
    return workers_[w]->Verify(req.data(), c).ok;
  }
  absl::Status Reload(ReloadPlan* plan) {
    ReloadArgs args;
    args.config = &config_;
    args.plan = plan;
    return auth_.Reload(args);
  }

  std::unique_ptr<testutil::TempDir> dir_;
  std::string path_;
  DaemonConfig config_;
  CounterNames names_;
  NtpAuthFactory auth_;
  std::vector<std::unique_ptr<NtpWorkerAuth>> workers_;
};

TEST_F(NtpAuthReloadTest, ChangedKeysAreInForceAfterCommitOnEveryWorker) {
  Write(kKeysB);
  ReloadPlan plan;
  ASSERT_TRUE(Reload(&plan).ok());
  ASSERT_EQ(plan.staged(), 1u);
  ASSERT_EQ(plan.changes().size(), 1u);
  EXPECT_THAT(plan.changes()[0], HasSubstr("ntp keys: 2 from " + path_));
  for (size_t w = 0; w < 2; ++w) {
    EXPECT_TRUE(Accepts(w, kKeysA, 1)) << "not before the commit";
    EXPECT_FALSE(Accepts(w, kKeysB, 5));
  }
  plan.Commit();
  for (size_t w = 0; w < 2; ++w) {
    EXPECT_FALSE(Accepts(w, kKeysA, 1)) << "the old secret of key 1";
    EXPECT_TRUE(Accepts(w, kKeysB, 1));
    EXPECT_TRUE(Accepts(w, kKeysB, 5));
  }
  EXPECT_EQ(auth_.keys()->size(), 2u);
  // The same file again: nothing to publish.
  ReloadPlan again;
  ASSERT_TRUE(Reload(&again).ok());
  EXPECT_EQ(again.staged(), 0u);
}

TEST_F(NtpAuthReloadTest, BrokenFilesAndOnOffAreRejectedAndTheOldKeysStay) {
  struct Case {
    std::string text;
    mode_t mode;
    std::string path;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"1 AES128 HEX:00\n", 0600, path_, "line 1: key 1 of type AES128"},
      {kKeysB, 0644, path_, "readable by its owner only"},
      {kKeysB, 0600, "", "turning symmetric keys off needs a restart"},
      {"# none\n", 0600, path_, "holds no keys"},
  };
  for (const Case& c : cases) {
    Write(c.text, c.mode);
    config_.ntp_keys = c.path;
    ReloadPlan plan;
    const absl::Status s = Reload(&plan);
    EXPECT_FALSE(s.ok()) << c.message;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.message));
    EXPECT_EQ(plan.staged(), 0u);
    EXPECT_TRUE(Accepts(0, kKeysA, 1));
  }
  NtpAuthFactory off;
  ASSERT_TRUE(off.Configure(DaemonConfig{}).ok());
  config_.ntp_keys = path_;
  Write(kKeysA);
  ReloadPlan plan;
  ReloadArgs args;
  args.config = &config_;
  args.plan = &plan;
  const absl::Status s = off.Reload(args);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("turning symmetric keys on needs a restart"));
}

}  // namespace
}  // namespace ntp_auth_reload_test
}  // namespace zg::dataplane
