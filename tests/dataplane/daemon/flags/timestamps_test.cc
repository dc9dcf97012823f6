// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/timestamps.h"

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace timestamps_test {
namespace {

using ::testing::HasSubstr;

TEST(TxScheduleFlagsTest, Defaults) {
  StampFlags f;
  ASSERT_TRUE(ReadTxScheduleFlags(&f).ok());
  EXPECT_EQ(f.tx_schedule, TxScheduleMode::kOff);
  EXPECT_EQ(f.tx_schedule_lead_ns, 20'000);
}

TEST(TxScheduleFlagsTest, ParsesModes) {
  TxScheduleMode m = TxScheduleMode::kOff;
  ASSERT_TRUE(ParseTxScheduleMode("auto", &m).ok());
  EXPECT_EQ(m, TxScheduleMode::kAuto);
  ASSERT_TRUE(ParseTxScheduleMode("OFF", &m).ok());
  EXPECT_EQ(m, TxScheduleMode::kOff);
  const absl::Status s = ParseTxScheduleMode("on", &m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("--tx_schedule=on"));
  EXPECT_THAT(s.message(), HasSubstr("'off' or 'auto'"));
}

TEST(TxScheduleFlagsTest, LeadIsBounded) {
  int64_t ns = -1;
  ASSERT_TRUE(CheckTxScheduleLead(absl::Microseconds(1), &ns).ok());
  EXPECT_EQ(ns, 1'000);
  ASSERT_TRUE(CheckTxScheduleLead(absl::Milliseconds(10), &ns).ok());
  EXPECT_EQ(ns, 10'000'000);
  for (const absl::Duration bad :
       {absl::ZeroDuration(), absl::Nanoseconds(999), absl::Microseconds(-5),
        absl::Milliseconds(11), absl::InfiniteDuration()}) {
    ns = 7;
    const absl::Status s = CheckTxScheduleLead(bad, &ns);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("--tx_schedule_lead="));
    EXPECT_THAT(s.message(), HasSubstr("1us..10ms"));
    EXPECT_EQ(ns, 7);  // untouched
  }
}

TEST(TxScheduleFlagsTest, ReadsTheFlags) {
  absl::SetFlag(&FLAGS_tx_schedule, "auto");
  absl::SetFlag(&FLAGS_tx_schedule_lead, absl::Microseconds(5));
  StampFlags f;
  ASSERT_TRUE(ReadTxScheduleFlags(&f).ok());
  EXPECT_EQ(f.tx_schedule, TxScheduleMode::kAuto);
  EXPECT_EQ(f.tx_schedule_lead_ns, 5'000);
  absl::SetFlag(&FLAGS_tx_schedule_lead, absl::ZeroDuration());
  EXPECT_FALSE(ReadTxScheduleFlags(&f).ok());
  absl::SetFlag(&FLAGS_tx_schedule, "sometimes");
  absl::SetFlag(&FLAGS_tx_schedule_lead, absl::Microseconds(20));
  EXPECT_FALSE(ReadTxScheduleFlags(&f).ok());
  absl::SetFlag(&FLAGS_tx_schedule, "off");
}

}  // namespace
}  // namespace timestamps_test
}  // namespace zg::dataplane
