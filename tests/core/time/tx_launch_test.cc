// SPDX-License-Identifier: Apache-2.0
#include "core/time/tx_launch.h"

#include "gtest/gtest.h"

namespace zg::core {
namespace tx_launch_test {
namespace {

constexpr int64_t kS = kNanosPerSecond;

// A NIC clock in ns ticks with its own epoch, 25 ppm slow against TAI.
ClockModel NicModel() {
  ClockModel m;
  m.raw_anchor = 1'700'000'000'000'000'000;
  m.tai_anchor = TaiNs{1'800'000'037 * kS};
  m.ns_per_tick_q32 = static_cast<uint64_t>(4294967296.0 * (1 + 25e-6));
  m.state = SyncState::kLocked;
  return m;
}

TEST(TxLaunchTest, WireTimeAtLinkSpeed) {
  // 90 octets + 24 overhead = 912 bits: 91.2 ns at 10G, 9.12 ns at 100G.
  EXPECT_EQ(FrameWireTimeNs(90, 10'000), 92);
  EXPECT_EQ(FrameWireTimeNs(90, 100'000), 10);
  EXPECT_EQ(FrameWireTimeNs(90, 1'000), 912);
  // Short frames are padded to 60 octets; 0 Mb/s is the 10G default.
  EXPECT_EQ(FrameWireTimeNs(42, 1'000), FrameWireTimeNs(60, 1'000));
  EXPECT_EQ(FrameWireTimeNs(1514, 0), FrameWireTimeNs(1514, 10'000));
  EXPECT_EQ(FrameWireTimeNs(1514, 10'000), 1231);  // 12304 bits
}

TEST(TxLaunchTest, FirstLaunchIsLeadAheadAndExact) {
  const ClockModel nic = NicModel();
  TxLaunchSchedule s(20'000, 25'000);
  const TaiNs now = nic.tai_anchor + 123'456'789;
  const TxLaunch l = s.Next(now, nic, 90);
  // The first NIC tick at or after now + lead; its TAI is what it carries.
  EXPECT_EQ(l.raw, nic.TaiToRaw(now + 20'000));
  EXPECT_EQ(l.tai, nic.RawToTai(l.raw));
  EXPECT_GE(l.tai, now + 20'000);
  EXPECT_LT(l.tai, now + 20'002);
}

TEST(TxLaunchTest, BurstIsStrictlyIncreasingAndSpacedByWireTime) {
  const ClockModel nic = NicModel();
  for (const uint32_t mbps : {1'000u, 10'000u, 100'000u, 400'000u}) {
    TxLaunchSchedule s(5'000, mbps);
    const TaiNs now = nic.tai_anchor + kS;
    TxLaunch prev = s.Next(now, nic, 90);
    uint32_t prev_len = 90;
    for (int i = 0; i < 32; ++i) {
      const uint32_t len = i % 3 == 0 ? 1514 : 90;
      const TxLaunch l = s.Next(now, nic, len);  // the same "now": one burst
      EXPECT_GT(l.raw, prev.raw) << mbps << " " << i;
      EXPECT_GE(l.tai - prev.tai, FrameWireTimeNs(prev_len, mbps))
          << mbps << " " << i;
      // Not much more than needed (one tick of rounding).
      EXPECT_LE(l.tai - prev.tai, FrameWireTimeNs(prev_len, mbps) + 2);
      prev = l;
      prev_len = len;
    }
  }
}

TEST(TxLaunchTest, LaterBurstStartsFromNowWhenTheQueueIsIdle) {
  const ClockModel nic = NicModel();
  TxLaunchSchedule s(20'000, 10'000);
  const TaiNs now = nic.tai_anchor + kS;
  s.Next(now, nic, 90);
  const TxLaunch l = s.Next(now + 1'000'000, nic, 90);
  EXPECT_EQ(l.raw, nic.TaiToRaw(now + 1'020'000));
}

TEST(TxLaunchTest, StaysIncreasingWhenTheModelMovesBack) {
  ClockModel nic = NicModel();
  TxLaunchSchedule s(20'000, 100'000);
  const TaiNs now = nic.tai_anchor + kS;
  const TxLaunch a = s.Next(now, nic, 90);
  // A republished model that maps the same ticks 1 ms later: "now + lead"
  // is far before the previous launch's ticks; the raw time still rises.
  nic.tai_anchor = nic.tai_anchor + 1'000'000;
  const TxLaunch b = s.Next(now, nic, 90);
  EXPECT_GT(b.raw, a.raw);
  EXPECT_EQ(b.tai, nic.RawToTai(b.raw));
  s.Reset();
  const TxLaunch c = s.Next(now, nic, 90);
  EXPECT_EQ(c.raw, nic.TaiToRaw(now + 20'000));
}

}  // namespace
}  // namespace tx_launch_test
}  // namespace zg::core
