// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's unicast PTP subscribers (bench/loadgen/ptp_subscribers.h)
// against zeitgeberd's real PTP worker: the PtpPlugin of the --ptp_* flags
// (G.8275.2, unicast negotiation) in the protocol pipeline on an in-process
// ring port (tests/dataplane/ptp/ptp_pipeline_fixture.h), polled by the
// test. 100 subscribers, each on its own address, negotiate Announce, Sync
// and Delay_Resp grants, then receive Syncs at the granted 8/s for about
// 2.5 s. Every grant is granted, Syncs come at the granted rate with no gap,
// every Follow_Up pairs and every Delay_Req is answered. Bounded: about 3 s.
//
// Then the same with two workers, as zeitgeberd runs them on a NIC that
// spreads its queues by RSS on IP addresses only (dataplane/port/port.cc):
// the test is the NIC and steers each frame with the Toeplitz hash of its
// addresses. Each subscriber's grants and Syncs live with the worker its
// address hashes to, Delay_Resp grants are enforced on both, and a Delay_Req
// without a grant is refused on either. Where the port does not steer by
// address only, enforcement is off (and the plugin warns at start).
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_thash.h>

#include <array>
#include <chrono>
#include <memory>

#include "bench/loadgen/ptp_subscriber_frame.h"
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

// The RSS key most NICs start with (Intel's, also mlx5's default).
constexpr uint8_t kRssKey[40] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};

// The queue a NIC hashing IPv4 addresses only (RTE_ETH_RSS_IP) picks for a
// frame from `src` to the server, with the default redirection table
// (entry i -> queue i % queues).
uint16_t RssQueue(core::Ipv4Addr src, unsigned queues) {
  uint32_t tuple[2] = {src.value, kServerIp.value};
  const uint32_t hash = rte_softrss(tuple, 2, kRssKey);
  return static_cast<uint16_t>((hash % 128) % queues);
}

core::Ipv4Addr SubscriberAddress(uint64_t offset) {
  return core::Ipv4Addr{kFirstSubscriber.value + static_cast<uint32_t>(offset)};
}

class PtpSubscribersWorkerTest : public PtpPipelineTest {
 protected:
  // Builds one subscriber's message into a frame and puts it on the RX ring
  // of the queue RSS picks; false when the ring or pool is full.
  bool Inject(const bench::PtpSubscriberMessage& m, const uint8_t* payload) {
    rte_mbuf* mb = rte_pktmbuf_alloc(pool_);
    if (mb == nullptr) return false;
    core::UdpFrameSpec spec;
    spec.src_mac = kClientMac;
    spec.dst_mac = server_mac_;
    spec.dst_ip = core::IpAddress::V4(kServerIp);
    const uint32_t len = bench::FramePtpSubscriberMessage(
        m, core::IpAddress::V4(kFirstSubscriber), payload, &spec,
        rte_pktmbuf_mtod(mb, uint8_t*), rte_pktmbuf_tailroom(mb));
    mb->data_len = static_cast<uint16_t>(len);
    mb->pkt_len = len;
    const uint16_t q = RssQueue(SubscriberAddress(m.address_offset),
                                static_cast<unsigned>(ring_.rx.size()));
    if (len == 0 || rte_ring_enqueue(ring_.rx[q], mb) != 0) {
      rte_pktmbuf_free(mb);
      return false;
    }
    return true;
  }

  // What the workers sent: to the engine (null: dropped) where it is for a
  // subscriber; Delay_Resps to kClientIp are counted. Counts frames a worker
  // sent to a subscriber whose address RSS gives another worker.
  void Deliver(bench::PtpSubscriberEngine* e) {
    static const core::LocalAddresses local = [] {
      auto l = *core::LocalAddresses::Create(kClientMac, std::nullopt);
      EXPECT_TRUE(l.AddIpv4Range(kFirstSubscriber, kSubscribers).ok());
      EXPECT_TRUE(l.AddIpv4(kClientIp).ok());
      return l;
    }();
    const unsigned queues = static_cast<unsigned>(ring_.tx.size());
    rte_mbuf* out[64];
    unsigned n;
    for (uint16_t q = 0; q < queues; ++q) {
      while ((n = rte_ring_dequeue_burst(
                  ring_.tx[q], reinterpret_cast<void**>(out), 64, nullptr)) !=
             0) {
        const uint64_t rx_tsc = core::ReadTsc();
        for (unsigned i = 0; i < n; ++i) {
          const uint8_t* f = rte_pktmbuf_mtod(out[i], const uint8_t*);
          const core::FrameInfo info =
              core::ClassifyFrame(f, out[i]->data_len, local);
          const bool ptp = info.kind == core::FrameKind::kPtpEvent ||
                           info.kind == core::FrameKind::kPtpGeneral;
          if (ptp && info.dst_ipv4 == kClientIp) {
            core::PtpMessage m;
            if (core::ParsePtpMessage(
                    {f + info.payload_offset, info.payload_len}, &m) ==
                    core::PtpDrop::kOk &&
                m.header.message_type == PtpMessageType::kDelayResp) {
              ++delay_resps_to_client_;
            }
          } else if (ptp) {
            if (RssQueue(info.dst_ipv4, queues) != q) ++from_other_worker_;
            if (e != nullptr) {
              e->OnFrame(info.dst_ipv4.value - kFirstSubscriber.value,
                         info.dst_port, f + info.payload_offset,
                         info.payload_len, rx_tsc);
            }
          } else {
            ++not_for_subscribers_;
          }
          rte_pktmbuf_free(out[i]);
        }
      }
    }
  }

  // Polls the workers for `ms` milliseconds, stepping the control side;
  // what they send goes to Deliver (subscribers' frames are dropped).
  void PollFor(int ms) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      for (auto& w : workers_) w->PollOnce();
      Deliver(nullptr);
    }
    Tick();
  }

  // G.8275.2 with unicast negotiation on `workers` workers, MASTER.
  void StartG8275(const std::string& tag, unsigned workers,
                  bool steers_by_address = true) {
    absl::SetFlag(&FLAGS_ptp_profile, "g8275.2");
    absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
    absl::SetFlag(&FLAGS_ptp_log_sync_interval, -1000);  // profile default
    // The port's own Announce interval: MASTER after 3 x 2^-3 s (LISTENING
    // first); the subscribers' unicast Announces go at their grant's.
    absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
    Start(tag, workers, steers_by_address);
    Run(10);
  }

  // kSubscribers subscribers negotiate and are served for 2.5 s; checks
  // that every grant was honoured and every message came.
  void ServeSubscribers();

  // A G.8275.2 Delay_Req from kClientIp, which negotiated nothing.
  core::PtpMessage UngrantedDelayReq() {
    core::PtpMessage m = ClientMessage(core::PtpDelayReq{});
    m.header.domain_number = 44;
    return m;
  }

  uint64_t not_for_subscribers_ = 0;  // multicast, ARP, ...
  uint64_t from_other_worker_ = 0;    // sent by a worker RSS does not pick
  uint64_t delay_resps_to_client_ = 0;
};

void PtpSubscribersWorkerTest::ServeSubscribers() {
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
    for (int i = 0; i < 4; ++i) {
      for (auto& w : workers_) w->PollOnce();
    }
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

TEST_F(PtpSubscribersWorkerTest, HundredSubscribersGrantedAndServed) {
  StartG8275("ptpsubs", 1);
  ServeSubscribers();
}

TEST_F(PtpSubscribersWorkerTest,
       TwoWorkersEachServeTheSubscribersRssGivesThem) {
  StartG8275("ptpsubs2", 2);
  std::array<uint32_t, 2> owned = {0, 0};
  for (uint32_t i = 0; i < kSubscribers; ++i) {
    ++owned[RssQueue(SubscriberAddress(i), 2)];
  }
  std::printf("RSS on addresses: worker 0 owns %u subscribers, worker 1 %u\n",
              owned[0], owned[1]);
  // The hash spreads them: both workers have subscribers to serve.
  ASSERT_GE(owned[0], kSubscribers / 4);
  ASSERT_GE(owned[1], kSubscribers / 4);

  ServeSubscribers();  // every grant honoured, every Delay_Req answered
  EXPECT_EQ(from_other_worker_, 0u);
  // Each worker holds the subscriptions of the addresses it owns.
  PollFor(200);  // the workers publish their tables' sizes now and then
  ASSERT_EQ(ptp_.stats().size(), 2u);
  EXPECT_EQ(ptp_.stats()[0]->unicast_subscribers.Load(), owned[0]);
  EXPECT_EQ(ptp_.stats()[1]->unicast_subscribers.Load(), owned[1]);

  // Grants are enforced on both workers: a Delay_Req from an address that
  // negotiated nothing gets no Delay_Resp, whichever worker it reaches.
  core::PtpMessage req = UngrantedDelayReq();
  const uint64_t refused_before = Dropped("ptp_no_grant");
  for (uint16_t q = 0; q < 2; ++q) {
    InjectPtp(req, false, core::kPtpEventPort, 0, kClientIp, q);
  }
  PollFor(50);
  EXPECT_EQ(delay_resps_to_client_, 0u);
  EXPECT_EQ(Dropped("ptp_no_grant") - refused_before, 2u);
  EXPECT_EQ(from_other_worker_, 0u);
}

// Where a client's event and general messages may reach different workers,
// a grant cannot be checked where its Delay_Req lands: not enforced.
TEST_F(PtpSubscribersWorkerTest, TwoWorkersNotSteeredByAddressAnswerWithout) {
  StartG8275("ptpsubs3", 2, /*steers_by_address=*/false);
  core::PtpMessage req = UngrantedDelayReq();
  for (uint16_t q = 0; q < 2; ++q) {
    InjectPtp(req, false, core::kPtpEventPort, 0, kClientIp, q);
  }
  const std::vector<Sent> out = Run(50);
  const auto resps = OfType(out, PtpMessageType::kDelayResp);
  ASSERT_EQ(resps.size(), 2u);
  EXPECT_NE(resps[0]->queue, resps[1]->queue);
  EXPECT_EQ(Dropped("ptp_no_grant"), 0u);
}

}  // namespace
}  // namespace zg::dataplane::ptp_test
