// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's DPDK side on an in-process ring port: a lane on the EAL's
// worker lcore sends real frames; a server thread on the other end of the
// rings answers them with zeitgeber's own core code (frame classification,
// NTP reply builder, ARP responder), or reflects them like testpmd 5tswap,
// or drops and duplicates on purpose. Short, bounded runs (suite
// 'integration').
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "bench/loadgen/dpdk_lane.h"
#include "bench/loadgen/generator_clock.h"
#include "bench/loadgen/lane_network.h"
#include "bench/loadgen/target_resolver.h"
#include "bench/loadgen/trial_runner.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/l2l3_responder.h"
#include "core/net/local_addresses.h"
#include "core/ntp/ntp_reply.h"
#include "core/time/tsc.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/worker.h"
#include "gtest/gtest.h"
#include "servo/clock/system_time.h"
#include "servo/clock/tsc_clock.h"
#include "tests/dataplane/testing/dpdk_env.h"

namespace zg::bench {
namespace {

constexpr core::MacAddr kServerMac{{0x02, 0, 0, 0, 0, 0x01}};
constexpr core::MacAddr kGeneratorMac{{0x02, 0, 0, 0, 0, 0x02}};
constexpr int64_t kServerHoldNs = 1000;  // T3 - T2 of every NTP reply

// The far end of the ring port, on a plain thread.
class FakeServer {
 public:
  enum class Mode { kNtp, kReflect, kSilent };
  struct Behaviour {
    Mode mode = Mode::kNtp;
    uint32_t drop_every = 0;  // drop request n when n % drop_every == 0
    uint32_t dup_every = 0;   // send reply n twice when n % dup_every == 0
    // Reply on the next queue, not the request's (as RSS may): the
    // generator's lanes must hand replies to each other.
    bool misroute = false;
  };

  FakeServer(const dataplane::testing::RingPort& ring, rte_mempool* pool,
             const core::PublishedClock* clock, Behaviour b)
      : ring_(ring), pool_(pool), clock_(clock), b_(b) {
    local_ = core::LocalAddresses::Create(kServerMac).value();
    EXPECT_TRUE(local_.AddIpv4(core::Ipv4Addr::FromOctets(10, 99, 0, 1)).ok());
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeServer() {
    stop_.store(true);
    thread_.join();
  }
  uint64_t requests() const { return requests_.load(); }
  uint64_t dropped() const { return dropped_.load(); }
  uint64_t duplicated() const { return duplicated_.load(); }
  uint64_t arp_answered() const { return arp_.load(); }

 private:
  void Loop() {
    void* objs[32];
    while (!stop_.load()) {
      unsigned total = 0;
      for (size_t q = 0; q < ring_.tx.size(); ++q) {
        const unsigned n =
            rte_ring_dequeue_burst(ring_.tx[q], objs, 32, nullptr);
        const size_t out = b_.misroute ? (q + 1) % ring_.rx.size() : q;
        for (unsigned i = 0; i < n; ++i) {
          Serve(static_cast<rte_mbuf*>(objs[i]), out);
        }
        total += n;
      }
      if (total == 0) std::this_thread::yield();
    }
  }
  void Send(rte_mbuf* m, size_t queue) {
    if (rte_ring_enqueue(ring_.rx[queue], m) != 0) rte_pktmbuf_free(m);
  }
  void Serve(rte_mbuf* m, size_t queue) {
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    const core::FrameInfo info = core::ClassifyFrame(data, m->data_len, local_);
    if (info.kind == core::FrameKind::kArpRequest) {
      core::FrameDrop drop;
      const uint32_t len = core::AnswerArpRequest(data, info, local_, &drop);
      if (len != 0 && b_.mode != Mode::kSilent) {
        m->data_len = static_cast<uint16_t>(len);
        m->pkt_len = len;
        ++arp_;
        return Send(m, queue);
      }
    } else if (info.kind == core::FrameKind::kNtp && b_.mode != Mode::kSilent) {
      const uint64_t k = ++requests_;
      if (b_.drop_every != 0 && k % b_.drop_every == 0) {
        ++dropped_;
      } else if (Answer(m, info)) {
        if (b_.dup_every != 0 && k % b_.dup_every == 0) {
          rte_mbuf* copy = rte_pktmbuf_copy(m, pool_, 0, UINT32_MAX);
          if (copy != nullptr) {
            ++duplicated_;
            Send(copy, queue);
          }
        }
        return Send(m, queue);
      }
    }
    rte_pktmbuf_free(m);
  }
  bool Answer(rte_mbuf* m, const core::FrameInfo& info) {
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    uint16_t payload_len = info.payload_len;
    if (b_.mode == Mode::kNtp) {
      core::ClockModel model;
      if (!clock_->TryRead(&model)) return false;
      model.stratum = 2;  // a synchronised server on the generator's clock
      const core::TaiNs rx = model.RawToTai(core::ReadTsc());
      const core::NtpReplyPacket r =
          core::BuildNtpReply(std::span<const uint8_t>(
                                  data + info.payload_offset, info.payload_len),
                              rx, rx + kServerHoldNs, model);
      if (r.drop != core::NtpDrop::kNone) return false;
      std::memcpy(data + info.payload_offset, r.bytes.data(), r.size);
      payload_len = static_cast<uint16_t>(r.size);
    }
    core::FrameInfo reply;
    const uint32_t len =
        core::PrepareUdpReply(data, info, local_, payload_len, &reply);
    if (len == 0) return false;
    core::FinaliseUdpChecksum(data, reply);
    m->data_len = static_cast<uint16_t>(len);
    m->pkt_len = len;
    return true;
  }

  dataplane::testing::RingPort ring_;
  rte_mempool* pool_;
  const core::PublishedClock* clock_;
  Behaviour b_;
  core::LocalAddresses local_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> requests_{0}, dropped_{0}, duplicated_{0}, arp_{0};
  std::thread thread_;
};

class LoadgenRingTest : public ::testing::Test {
 protected:
  void SetUp() override { SetUpPort(1); }
  void SetUpPort(uint16_t queues) {
    static int n = 0;
    ring_ = dataplane::testing::MakeRingPort(absl::StrCat("lg", n++), queues);
    auto port = dataplane::Port::Open(
        {.name = ring_.name, .num_queues = queues}, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    pool_ = pools_.ForSocket(SOCKET_ID_ANY).value();
    auto tsc = servo::TscClock::Create();
    ASSERT_TRUE(tsc.ok()) << tsc.status();
    tsc_ = std::move(*tsc);
    auto clock =
        GeneratorClock::Create(tsc_.get(), &servo::RealSystemClockOps(), {});
    ASSERT_TRUE(clock.ok()) << clock.status();
    clock_ = std::move(*clock);
    options_.clients = 64;
    options_.source_ip = "10.99.0.16";
    options_.source_addresses = 8;
    options_.source_port = 20000;
    std::string err;
    ASSERT_TRUE(AbslParseFlag("10.99.0.1", &options_.target, &err));
    // Ring ports have no MAC address (zg-loadgen --source_mac).
    auto net = BuildLaneNetwork(options_, kGeneratorMac, 0);
    ASSERT_TRUE(net.ok()) << net.status();
    net_ = std::move(*net);
    net_.dst_mac = kServerMac;
    net_.rx_tsc_offset = RegisterRxTscField().value();
  }

  // One lane per queue on the worker lcores; a 2 s reply timeout absorbs a
  // loaded machine's scheduling.
  absl::StatusOr<TrialOutcome> RunTrial(uint64_t count, bool reflector) {
    const std::vector<unsigned> lcores = dataplane::WorkerLcores();
    const uint32_t n = port_->num_queues();
    EXPECT_GE(lcores.size(), n);
    lanes_.clear();
    std::vector<LaneSlot> slots;
    for (uint32_t i = 0; i < n; ++i) {
      lanes_.push_back(
          std::make_unique<DpdkLane>(i, port_->queue(static_cast<uint16_t>(i)),
                                     pool_, &net_, &clock_->published()));
      slots.push_back({lanes_.back().get(), lcores[i]});
    }
    auto space = ClientSpace::Create({.clients = options_.clients,
                                      .addresses = options_.source_addresses,
                                      .first_port = 20000,
                                      .lanes = n});
    EXPECT_TRUE(space.ok());
    auto runner = TrialRunner::Create({.space = *space,
                                       .timeout = absl::Seconds(2),
                                       .burst = 16,
                                       .reflector = reflector},
                                      std::move(slots), clock_.get());
    if (!runner.ok()) return runner.status();
    return (*runner)->Run(
        {.rate_pps = 20'000, .duration = absl::Seconds(10), .count = count},
        nullptr);
  }

  dataplane::testing::RingPort ring_;
  dataplane::MbufPools pools_{8191};
  std::unique_ptr<dataplane::Port> port_;
  rte_mempool* pool_ = nullptr;
  std::unique_ptr<servo::TscClock> tsc_;
  std::unique_ptr<GeneratorClock> clock_;
  LoadgenOptions options_;
  LaneNetwork net_;
  std::vector<std::unique_ptr<DpdkLane>> lanes_;
};

TEST_F(LoadgenRingTest, EveryRequestAnsweredAndMeasured) {
  FakeServer server(ring_, pool_, &clock_->published(), {});
  auto t = RunTrial(2000, false);
  ASSERT_TRUE(t.ok()) << t.status();
  const RequestCounts& c = t->measurements.counts;
  EXPECT_EQ(c.sent, 2000u);
  EXPECT_EQ(server.requests(), 2000u);
  EXPECT_EQ(c.answered, 2000u);
  EXPECT_EQ(c.lost + c.late + c.bad_reply + c.unmatched + c.duplicate, 0u);
  EXPECT_TRUE(c.Consistent());
  EXPECT_EQ(t->measurements.DefectTotal(), 0u) << absl::StrJoin(
      t->measurements.DefectNames(), ", ", absl::PairFormatter("="));
  // At 20 kpps, 2000 requests take about 0.1 s.
  EXPECT_GT(t->sending_s, 0.05);
  EXPECT_GT(t->AsTrialResult().achieved_pps, 0);
  // The server held each request kServerHoldNs (NTP's 2^-32 s rounding).
  EXPECT_NEAR(t->measurements.residence_ns.min(), kServerHoldNs, 2);
  EXPECT_NEAR(t->measurements.residence_ns.max(), kServerHoldNs, 2);
  // Round trips are positive and the server shares our clock, so the offset
  // a client computes is half the path asymmetry: far below the round trip.
  EXPECT_EQ(t->measurements.rtt_ns.count(), 2000u);
  EXPECT_GT(t->measurements.rtt_ns.min(), 0u);
  const int64_t offset_p50 = t->measurements.offset_ns.Percentile(0.5);
  EXPECT_LT(std::abs(offset_p50),
            static_cast<int64_t>(t->measurements.rtt_ns.Percentile(0.5)));
}

TEST_F(LoadgenRingTest, LossAndDuplicatesAreCountedExactly) {
  FakeServer server(ring_, pool_, &clock_->published(),
                    {.drop_every = 10, .dup_every = 7});
  auto t = RunTrial(1400, false);
  ASSERT_TRUE(t.ok()) << t.status();
  const RequestCounts& c = t->measurements.counts;
  EXPECT_EQ(c.sent, 1400u);
  EXPECT_EQ(server.dropped(), 140u);
  EXPECT_EQ(c.lost, 140u);
  EXPECT_EQ(c.answered, 1260u);
  EXPECT_EQ(c.duplicate, server.duplicated());
  EXPECT_GT(c.duplicate, 0u);
  EXPECT_NEAR(c.Loss(), 0.1, 1e-9);
}

TEST_F(LoadgenRingTest, ReflectedRequestsCountInReflectorModeOnly) {
  FakeServer server(ring_, pool_, &clock_->published(),
                    {.mode = FakeServer::Mode::kReflect});
  auto t = RunTrial(500, true);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->measurements.counts.answered, 500u);
  EXPECT_EQ(t->measurements.residence_ns.count(), 0u);
  // As a server's replies, the echoes are invalid: every request is lost.
  auto u = RunTrial(200, false);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->measurements.counts.answered, 0u);
  EXPECT_EQ(u->measurements.counts.lost, 200u);
  EXPECT_EQ(u->measurements.counts.unmatched, 200u);
}

// Two lanes; the server answers every request on the other queue. Each
// lane hands the replies it gets to the lane that sent the request.
TEST_F(LoadgenRingTest, LanesHandRepliesToTheirOwners) {
  port_.reset();
  SetUpPort(2);
  FakeServer server(ring_, pool_, &clock_->published(), {.misroute = true});
  auto t = RunTrial(2000, false);
  ASSERT_TRUE(t.ok()) << t.status();
  const RequestCounts& c = t->measurements.counts;
  EXPECT_EQ(c.sent, 2000u);
  EXPECT_EQ(c.answered, 2000u);
  EXPECT_EQ(t->frames.handed_off, 2000u);
  EXPECT_EQ(t->frames.handoff_dropped, 0u);
  EXPECT_EQ(t->measurements.DefectTotal(), 0u) << absl::StrJoin(
      t->measurements.DefectNames(), ", ", absl::PairFormatter("="));
}

TEST_F(LoadgenRingTest, ArpResolvesTheServer) {
  FakeServer server(ring_, pool_, &clock_->published(), {});
  auto mac = ResolveTargetMac(port_->id(), 1, pool_, net_, absl::Seconds(5));
  ASSERT_TRUE(mac.ok()) << mac.status();
  EXPECT_EQ(*mac, kServerMac);
  EXPECT_GE(server.arp_answered(), 1u);
}

TEST_F(LoadgenRingTest, SilentServerIsAClearErrorNotAHang) {
  FakeServer server(ring_, pool_, &clock_->published(),
                    {.mode = FakeServer::Mode::kSilent});
  const absl::Time start = absl::Now();
  auto mac =
      ResolveTargetMac(port_->id(), 1, pool_, net_, absl::Milliseconds(600));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_FALSE(mac.ok());
  EXPECT_EQ(mac.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(absl::StrContains(mac.status().message(),
                                "no ARP reply from "
                                "10.99.0.1"))
      << mac.status();
  EXPECT_TRUE(absl::StrContains(mac.status().message(), "--target_mac"));
}

}  // namespace
}  // namespace zg::bench
