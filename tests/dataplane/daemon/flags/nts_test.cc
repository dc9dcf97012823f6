// SPDX-License-Identifier: Apache-2.0
// The NTS cookie-key flags (dataplane/daemon/flags/nts.h) and the master key
// file reader (dataplane/ntp/nts_auth.h ReadNtsMasterKey): the period in
// seconds or as a duration, the window, raw and hex keys, and the
// operator-facing errors (short key, group-readable file, missing file).
#include "dataplane/daemon/flags/nts.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "dataplane/ntp/nts_auth.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace nts_test {
namespace {

using ::testing::HasSubstr;

TEST(NtsFlagsTest, PeriodInSecondsOrAsADuration) {
  EXPECT_EQ(*ParseNtsKeyPeriod("86400"), 86400u);
  EXPECT_EQ(*ParseNtsKeyPeriod("24h"), 86400u);
  EXPECT_EQ(*ParseNtsKeyPeriod("90m"), 5400u);
  EXPECT_EQ(*ParseNtsKeyPeriod("1"), 1u);
  for (const char* bad : {"0", "0s", "1.5s", "-5", "abc", "", "20y"}) {
    absl::StatusOr<uint64_t> p = ParseNtsKeyPeriod(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_THAT(p.status().message(), HasSubstr("--nts_key_period"));
  }
}

TEST(NtsFlagsTest, WindowIsPastCommaFuture) {
  EXPECT_EQ(*ParseNtsKeyWindow("2,1"), (std::pair<uint32_t, uint32_t>{2, 1}));
  EXPECT_EQ(*ParseNtsKeyWindow("0,0"), (std::pair<uint32_t, uint32_t>{0, 0}));
  EXPECT_EQ(*ParseNtsKeyWindow("16,16"),
            (std::pair<uint32_t, uint32_t>{16, 16}));
  for (const char* bad : {"2", "17,1", "1,17", "a,b", "1,2,3", "-1,1"}) {
    absl::StatusOr<std::pair<uint32_t, uint32_t>> w = ParseNtsKeyWindow(bad);
    ASSERT_FALSE(w.ok()) << bad;
    EXPECT_THAT(w.status().message(), HasSubstr("--nts_key_window"));
  }
}

TEST(NtsFlagsTest, DefaultsAreOffOneDayTwoBackOneAhead) {
  absl::StatusOr<NtsConfig> c = ReadNtsFlags();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->enabled());
  EXPECT_EQ(c->keystore.period_s, 86400u);
  EXPECT_EQ(c->keystore.window_past, 2u);
  EXPECT_EQ(c->keystore.window_future, 1u);
}

class MasterKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testutil::TempDir::Create("nts-master-key");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    path_ = dir_->File("nts.key");
  }
  void Write(const std::string& bytes, mode_t mode = 0600) {
    std::ofstream(path_, std::ios::binary) << bytes;
    ASSERT_EQ(chmod(path_.c_str(), mode), 0);
  }
  std::unique_ptr<testutil::TempDir> dir_;
  std::string path_;
};

TEST_F(MasterKeyTest, RawBytesOrHex) {
  std::string raw(40, '\0');
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i * 7);
  Write(raw);
  absl::StatusOr<std::vector<uint8_t>> k = ReadNtsMasterKey(path_);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(std::string(k->begin(), k->end()), raw);
  Write("00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF\n");
  k = ReadNtsMasterKey(path_);
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->size(), 32u);
  EXPECT_EQ((*k)[0], 0x00);
  EXPECT_EQ((*k)[15], 0xff);
  EXPECT_EQ((*k)[31], 0xff);
}

TEST_F(MasterKeyTest, OperatorFacingErrors) {
  Write(std::string(31, 'x'));
  absl::StatusOr<std::vector<uint8_t>> k = ReadNtsMasterKey(path_);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("at least 32 bytes"));
  Write(std::string(32, 'x'), 0640);
  k = ReadNtsMasterKey(path_);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("chmod 600"));
  k = ReadNtsMasterKey(dir_->File("missing"));
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("cannot open"));
}

TEST(NtsFlagsTest, MaxCookiesPerReply) {
  absl::StatusOr<NtsConfig> c = ReadNtsFlags();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->max_cookies_per_reply, 8u);
  absl::SetFlag(&FLAGS_nts_max_cookies_per_reply, 2);
  c = ReadNtsFlags();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->max_cookies_per_reply, 2u);
  for (int bad : {0, 9, -1}) {
    absl::SetFlag(&FLAGS_nts_max_cookies_per_reply, bad);
    c = ReadNtsFlags();
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_THAT(c.status().message(), HasSubstr("--nts_max_cookies_per_reply"));
  }
  absl::SetFlag(&FLAGS_nts_max_cookies_per_reply, 8);
}

}  // namespace
}  // namespace nts_test
}  // namespace zg::dataplane
