// SPDX-License-Identifier: Apache-2.0
// --ntp_interleave and --ntp_interleave_slots (dataplane/daemon/flags/
// ntp.h) and the NtpInterleaveFactory that reads them
// (dataplane/ntp/ntp_interleave.h), without an EAL: defaults, bounds with
// messages that name the flag, one table per worker sized as asked (and
// rounded up), none when turned off, the metric families it exports; and
// the worker side keeps an exact launch time over the after-stamp.
#include "dataplane/daemon/flags/ntp.h"

#include <array>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/collectable.h"

namespace zg::dataplane {
namespace ntp_test {
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
  std::vector<std::string> names;
  for (const auto& family : f.ScrapeCollectable()->Collect()) {
    names.push_back(family.name);
    if (family.name == "zeitgeber_ntp_interleave_slots") {
      ASSERT_EQ(family.metric.size(), 1u);
      EXPECT_EQ(family.metric[0].gauge.value, 1024);
    }
    if (family.name == "zeitgeber_ntp_interleave_evictions_total") {
      EXPECT_EQ(family.metric.size(), 2u);  // one per worker
    }
  }
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"zeitgeber_ntp_interleave_requests_total",
                          "zeitgeber_ntp_interleave_evictions_total",
                          "zeitgeber_ntp_interleave_unsaved_total",
                          "zeitgeber_ntp_interleave_slots"}));

  NtpInterleaveFactory off;
  off.SetConfig({.enabled = false});
  EXPECT_EQ(off.ScrapeCollectable(), nullptr);
  absl::StatusOr<std::unique_ptr<NtpWorkerInterleave>> none = off.Create(setup);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST(NtpWorkerInterleaveTest, AnExactLaunchTimeIsKeptOverTheAfterStamp) {
  NtpInterleaveFactory f;
  f.SetConfig({.enabled = true, .slots = 64});
  std::unique_ptr<NtpWorkerInterleave> x = *f.Create(WorkerSetup{});
  // A validated v4 request in interleaved form; the reply written over it.
  std::array<uint8_t, core::kNtpHeaderSize> p = {};
  p[0] = core::NtpLiVnMode(core::NtpLeapIndicator::kNoWarning, 4,
                           core::NtpMode::kClient);
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetOriginTime, {7, 9});
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetReceiveTime, {1, 2});
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetTransmitTime, {3, 4});
  const core::NtpRequestCheck check =
      core::ValidateNtpRequest(p.data(), core::kNtpHeaderSize);
  const core::NtpInterleavedRequest req =
      NtpWorkerInterleave::Inspect(p.data(), check);
  ASSERT_TRUE(req.looks_interleaved);
  const core::NtpTimestamp t2{0xe8fe6f80u, 0x10000000u};
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetReceiveTime, t2);
  const NtpWorkerInterleave::Applied a = x->Apply(p.data(), req);
  ASSERT_NE(a.slot, core::kNtpInterleaveNoSlot);
  EXPECT_FALSE(a.interleaved);
  const core::NtpTimestamp sent_t2 =
      core::LoadNtpTimestamp(p.data() + core::kNtpOffsetReceiveTime);
  EXPECT_EQ(sent_t2, core::TagNtpRx(t2));
  const core::NtpTimestamp launch{0xe8fe6f80u, 0x10004000u};
  x->SetExactTx(a.slot, launch);
  core::ClockModel model;  // identity-ish: any model, the stamp is ignored
  x->AfterTx(a.slot, TxStamp{core::TaiNs{123}, 1, &model}, true);
  // The client's next request names reply 1's T2.
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetOriginTime, sent_t2);
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetReceiveTime, {5, 6});
  const core::NtpInterleavedRequest next =
      NtpWorkerInterleave::Inspect(p.data(), check);
  core::StoreNtpTimestamp(p.data() + core::kNtpOffsetReceiveTime,
                          {0xe8fe6f81u, 0});
  const NtpWorkerInterleave::Applied b = x->Apply(p.data(), next);
  EXPECT_TRUE(b.interleaved);
  EXPECT_EQ(core::LoadNtpTimestamp(p.data() + core::kNtpOffsetTransmitTime),
            launch);
  EXPECT_EQ(core::LoadNtpTimestamp(p.data() + core::kNtpOffsetOriginTime),
            (core::NtpTimestamp{5, 6}));
  EXPECT_EQ(f.stats(0).interleaved.Load(), 1u);
}

}  // namespace
}  // namespace ntp_test
}  // namespace zg::dataplane
