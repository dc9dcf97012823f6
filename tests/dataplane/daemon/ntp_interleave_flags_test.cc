// --ntp_interleave and --ntp_interleave_slots (dataplane/daemon/
// ntp_interleave_flags.h) and the NtpInterleaveFactory that reads them
// (dataplane/ntp/ntp_interleave.h), without an EAL: defaults, bounds with
// messages that name the flag, one table per worker sized as asked (and
// rounded up), none when turned off, the metric families it exports.
#include "dataplane/daemon/ntp_interleave_flags.h"

#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"

namespace zg::dataplane {
namespace {

using ::testing::HasSubstr;

TEST(NtpInterleaveFlagsTest, OnByDefaultWith65536Slots) {
  absl::FlagSaver saver;
  absl::StatusOr<NtpInterleaveConfig> c = ReadNtpInterleaveFlags();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->slots, 65536u);
}

TEST(NtpInterleaveFlagsTest, SlotsOutOfRangeSayWhatToDo) {
  for (int64_t bad : {int64_t{0}, int64_t{63}, int64_t{1} << 24 | 1}) {
    absl::FlagSaver saver;
    absl::SetFlag(&FLAGS_ntp_interleave_slots, bad);
    absl::StatusOr<NtpInterleaveConfig> c = ReadNtpInterleaveFlags();
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_THAT(c.status().message(), HasSubstr("--ntp_interleave_slots="));
    EXPECT_THAT(c.status().message(), HasSubstr("64..16777216"));
  }
}

TEST(NtpInterleaveFactoryTest, OneRoundedTablePerWorkerOrNone) {
  NtpInterleaveFactory f;
  f.SetConfig({.enabled = true, .slots = 1000});
  WorkerSetup setup;
  for (unsigned w = 0; w < 2; ++w) {
    setup.worker_index = w;
    absl::StatusOr<std::unique_ptr<NtpWorkerInterleave>> x = f.Create(setup);
    ASSERT_TRUE(x.ok()) << x.status();
    ASSERT_NE(*x, nullptr);
    EXPECT_EQ((*x)->table().slots(), 1024u);
  }
  prometheus::Registry registry;
  ASSERT_TRUE(f.AddMetrics(registry).ok());
  std::vector<std::string> names;
  for (const auto& family : registry.Collect()) names.push_back(family.name);
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"zeitgeber_ntp_interleave_requests_total",
                          "zeitgeber_ntp_interleave_evictions_total",
                          "zeitgeber_ntp_interleave_unsaved_total",
                          "zeitgeber_ntp_interleave_slots"}));

  NtpInterleaveFactory off;
  off.SetConfig({.enabled = false});
  absl::StatusOr<std::unique_ptr<NtpWorkerInterleave>> none = off.Create(setup);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

}  // namespace
}  // namespace zg::dataplane
