// zg-loadgen's unicast PTP subscribers (bench/loadgen/ptp_subscribers.h)
// against zeitgeberd's real PTP worker: the PtpPlugin of the --ptp_* flags
// (G.8275.2, unicast negotiation) in the protocol pipeline on an in-process
// ring port (tests/dataplane/ptp/ptp_pipeline_fixture.h), polled by the
// test. 100 subscribers, each on its own address, negotiate Announce, Sync
// and Delay_Resp grants, then receive Syncs at the granted 8/s for about
// 2.5 s. Every grant is granted, Syncs come at the granted rate with no gap,
// every Follow_Up pairs and every Delay_Req is answered. Bounded: about 3 s.
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <chrono>
#include <cstring>
#include <memory>

#include "bench/loadgen/ptp_subscribers.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/time/tsc.h"
#include "gtest/gtest.h"
#include "tests/dataplane/ptp/ptp_pipeline_fixture.h"

namespace zg::dataplane::ptp_test {
namespace {

constexpr uint32_t kSubscribers = 100;
const core::Ipv4Addr kFirstSubscriber =
    core::Ipv4Addr::FromOctets(10, 1, 0, 100);

class PtpSubscribersWorkerTest : public PtpPipelineTest {
 protected:
  // Builds one subscriber's message into a frame and puts it on the
  // worker's RX ring; false when the ring or pool is full.
  bool Inject(const bench::PtpSubscriberMessage& m, const uint8_t* payload) {
    rte_mbuf* mb = rte_pktmbuf_alloc(pool_);
    if (mb == nullptr) return false;
    uint8_t* buf = rte_pktmbuf_mtod(mb, uint8_t*);
    core::UdpFrameSpec spec;
    spec.src_mac = kClientMac;
    spec.dst_mac = server_mac_;
    spec.src_ip = core::IpAddress::V4(
        core::Ipv4Addr{kFirstSubscriber.value + m.address_offset});
    spec.dst_ip = core::IpAddress::V4(kServerIp);
    spec.src_port = m.port;
    spec.dst_port = m.port;
    core::FrameInfo info;
    const uint32_t len =
        core::BuildUdpFrame(buf, 2000, spec, m.payload_len, &info);
    if (len == 0) {
      rte_pktmbuf_free(mb);
      return false;
    }
    std::memcpy(buf + info.payload_offset, payload, m.payload_len);
    core::FinalizeUdpChecksum(buf, info);
    mb->data_len = static_cast<uint16_t>(len);
    mb->pkt_len = len;
    if (rte_ring_enqueue(ring_.rx[0], mb) != 0) {
      rte_pktmbuf_free(mb);
      return false;
    }
    return true;
  }

  // What the worker sent, to the engine.
  void Deliver(bench::PtpSubscriberEngine* e) {
    static const core::LocalAddresses local = [] {
      auto l = *core::LocalAddresses::Create(kClientMac, std::nullopt);
      EXPECT_TRUE(l.AddIpv4Range(kFirstSubscriber, kSubscribers).ok());
      return l;
    }();
    rte_mbuf* out[64];
    unsigned n;
    while ((n = rte_ring_dequeue_burst(
                ring_.tx[0], reinterpret_cast<void**>(out), 64, nullptr)) !=
           0) {
      const uint64_t rx_tsc = core::ReadTsc();
      for (unsigned i = 0; i < n; ++i) {
        const uint8_t* f = rte_pktmbuf_mtod(out[i], const uint8_t*);
        const core::FrameInfo info =
            core::ClassifyFrame(f, out[i]->data_len, local);
        if (info.kind == core::FrameKind::kPtpEvent ||
            info.kind == core::FrameKind::kPtpGeneral) {
          e->OnFrame(info.dst_ipv4.value - kFirstSubscriber.value,
                     info.dst_port, f + info.payload_offset, info.payload_len,
                     rx_tsc);
        } else {
          ++not_for_subscribers_;
        }
        rte_pktmbuf_free(out[i]);
      }
    }
  }

  uint64_t not_for_subscribers_ = 0;  // multicast, ARP, ...
};

TEST_F(PtpSubscribersWorkerTest, HundredSubscribersGrantedAndServed) {
  absl::SetFlag(&FLAGS_ptp_profile, "g8275.2");
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  absl::SetFlag(&FLAGS_ptp_log_sync_interval, -1000);  // profile default
  // The port's own Announce interval: MASTER after 3 x 2^-3 s (LISTENING
  // first); the subscribers' unicast Announces go at their grant's.
  absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
  Start("ptpsubs");
  Run(10);

  const uint64_t hz = testing::TscHz();
  bench::PtpSubscriberConfig c;
  c.subscribers = kSubscribers;
  c.domain = 44;                 // G.8275.2
  c.log_interval = {0, -3, -3};  // Announce 1/s, Sync and Delay_Resp 8/s
  c.duration_s = 300;
  c.tsc_hz = hz;
  c.start_tsc = core::ReadTsc();
  c.spread_ticks = hz / 10;  // all asked within 100 ms
  c.reply_timeout_ticks = hz / 2;
  c.retry_ticks = hz;
  auto created = bench::PtpSubscriberEngine::Create(c);
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<bench::PtpSubscriberEngine> e = std::move(*created);
  // The generator's clock is the server's: offsets are stamping error.
  e->SetClock(LockedModel(t0_));

  const uint64_t send_until = c.start_tsc + hz * 5 / 2;  // 2.5 s
  const uint64_t drain_until = send_until + hz / 5;      // + 200 ms
  uint64_t next_tick = 0;
  uint64_t inject_failed = 0;
  uint8_t payload[bench::kPtpSubscriberMaxPayload];
  for (uint64_t now = core::ReadTsc(); now < drain_until;
       now = core::ReadTsc()) {
    bench::PtpSubscriberMessage m;
    while (now < send_until && e->Next(now, payload, &m)) {
      if (!Inject(m, payload)) {
        ++inject_failed;
        continue;
      }
      e->Sent(&m, 1, core::ReadTsc());
    }
    for (int i = 0; i < 4; ++i) worker_->PollOnce();
    Deliver(e.get());
    if (now >= next_tick) {
      Tick();
      next_tick = now + hz / 20;
    }
  }
  e->Finish(send_until);
  const bench::PtpSubscriberSummary s = e->Summarize();
  const bench::PtpSubscriberCounts& k = s.counts;
  std::printf("%s", bench::FormatPtpSubscriberSummary(s).c_str());

  EXPECT_EQ(inject_failed, 0u);
  for (size_t g = 0; g < bench::kPtpSubGrants; ++g) {
    EXPECT_EQ(k.asked[g], kSubscribers) << bench::PtpSubGrantName(g);
    EXPECT_EQ(k.granted[g], kSubscribers) << bench::PtpSubGrantName(g);
    EXPECT_EQ(k.refused[g] + k.reduced[g], 0u) << bench::PtpSubGrantName(g);
    EXPECT_EQ(s.min_granted_log[g], c.log_interval[g]);
    EXPECT_EQ(s.max_granted_log[g], c.log_interval[g]);
  }
  EXPECT_EQ(k.ask_timeouts, 0u);
  EXPECT_EQ(k.subscribers_all_granted, kSubscribers);
  // Syncs at the granted 8/s: about 19 each in 2.4 s, none missing.
  ASSERT_EQ(s.sync_rates.size(), kSubscribers);
  EXPECT_NEAR(s.SyncRateQuantile(0.5), 8.0, 0.4);
  EXPECT_GT(s.SyncRateQuantile(0), 7.0);
  EXPECT_LT(s.SyncRateQuantile(1), 9.0);
  EXPECT_GE(k.syncs, kSubscribers * 15);
  EXPECT_EQ(k.syncs_missed_sequence, 0u);
  EXPECT_LE(k.syncs_missed_schedule, kSubscribers / 10);
  EXPECT_EQ(k.subscribers_without_sync, 0u);
  // Two-step: every Sync has its Follow_Up.
  EXPECT_EQ(k.one_step_syncs, 0u);
  EXPECT_EQ(k.syncs_with_follow_up + k.syncs_follow_up_pending, k.syncs);
  EXPECT_LE(k.syncs_follow_up_pending, kSubscribers / 10);
  EXPECT_EQ(k.syncs_without_follow_up + k.follow_ups_unmatched, 0u);
  // Announce at 1/s: every subscriber got some.
  EXPECT_EQ(k.subscribers_without_announce, 0u);
  EXPECT_GE(k.announces, kSubscribers * 2);
  // Delay_Req at the granted 8/s, every one answered.
  EXPECT_GE(k.delay_reqs, kSubscribers * 15);
  EXPECT_EQ(k.delay_resps_answered, k.delay_reqs);
  EXPECT_EQ(k.delay_reqs_unanswered + k.delay_resps_unmatched, 0u);
  EXPECT_GT(s.path_delay_ns.count(), 0u);
  EXPECT_GT(s.offset_ns.count(), 0u);
  EXPECT_EQ(k.DefectTotal(), 0u) << bench::FormatPtpSubscriberSummary(s);
}

}  // namespace
}  // namespace zg::dataplane::ptp_test
