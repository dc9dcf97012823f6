// SPDX-License-Identifier: Apache-2.0
// Unicast origination at scale through the real worker on a ring port
// hundreds of negotiated subscribers at 16 Syncs/s, the worker
// polled by the test and its output drained every poll.
//  - Follow_Ups go out right behind their Syncs, not only once the pending
//    ring fills (the old worker built them only in polls no Sync closed,
//    so while Syncs kept coming due they waited 256 Syncs and overflowed).
//  - Syncs share tx_bursts (--ptp_sync_batch) and each keeps its own t1:
//    a Sync behind another in one burst is stamped exactly one wire time
//    of the frame ahead of it later; --ptp_sync_batch=1 sends each alone.
#include <map>
#include <utility>

#include "core/time/tx_launch.h"
#include "tests/dataplane/ptp/ptp_pipeline_fixture.h"

ABSL_DECLARE_FLAG(int, ptp_sync_batch);

namespace zg::dataplane::ptp_test {
namespace ptp_origination_test {
namespace {

constexpr int kSubscribers = 384;
constexpr size_t kUdpPayload = 14 + 20 + 8;  // untagged IPv4

struct Out {
  PtpMessageType type;
  uint32_t dst_ip;  // as stored in the frame (network order)
  uint16_t seq;
  core::TaiNs t;  // Sync: originTimestamp; Follow_Up: preciseOrigin
  uint32_t len;   // frame length without FCS
};

class PtpOriginationTest : public PtpPipelineTest {
 protected:
  static core::Ipv4Addr Subscriber(int i) {
    return core::Ipv4Addr::FromOctets(10, 2, static_cast<uint8_t>(i / 200),
                                      static_cast<uint8_t>(i % 200 + 1));
  }
  // Every subscriber asks for Syncs at 2^-4 s for 60 s.
  void Subscribe() {
    const core::PtpMessage req =
        UnicastRequest({{PtpMessageType::kSync, -4, 60}});
    for (int i = 0; i < kSubscribers; ++i) {
      InjectPtp(req, false, core::kPtpGeneralPort, 0, Subscriber(i));
      if (i % 32 == 31) Poll(1);
    }
    Poll(1);
    out_.clear();
  }
  // Polls `polls` times (or for `ms` ms if ms > 0), draining the TX ring
  // after each poll in order.
  void Poll(int polls, int ms = 0) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    for (int i = 0;
         ms > 0 ? std::chrono::steady_clock::now() < until : i < polls; ++i) {
      worker_->PollOnce();
      for (rte_mbuf* m : testing::DrainRing(ring_.tx[0])) {
        Record(m);
        rte_pktmbuf_free(m);
      }
    }
  }
  void Record(rte_mbuf* m) {
    const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
    if (m->data_len <= kUdpPayload) return;
    core::PtpMessage msg;
    std::span<const uint8_t> ptp(f + kUdpPayload, m->data_len - kUdpPayload);
    if (core::ParsePtpMessage(ptp, &msg) != core::PtpDrop::kOk) return;
    Out o{msg.header.message_type, 0, msg.header.sequence_id, {}, m->pkt_len};
    std::memcpy(&o.dst_ip, f + 14 + 16, 4);
    if (const auto* s = std::get_if<core::PtpSync>(&msg.body)) {
      o.t = core::PtpToTai(s->origin_timestamp);
    } else if (const auto* fu = std::get_if<core::PtpFollowUp>(&msg.body)) {
      o.t = core::PtpToTai(fu->precise_origin_timestamp);
    }
    out_.push_back(o);
  }
  // Index in out_ of each unicast Sync, and of its Follow_Up (-1: none).
  std::vector<std::pair<size_t, ptrdiff_t>> PairSyncs() const {
    std::map<std::pair<uint32_t, uint16_t>, size_t> open;
    std::vector<std::pair<size_t, ptrdiff_t>> pairs;
    for (size_t i = 0; i < out_.size(); ++i) {
      const Out& o = out_[i];
      // Unicast only: 10/8 (the first octet is the low byte here).
      if ((o.dst_ip & 0xFF) != 10) continue;
      if (o.type == PtpMessageType::kSync) {
        open[{o.dst_ip, o.seq}] = pairs.size();
        pairs.push_back({i, -1});
      } else if (o.type == PtpMessageType::kFollowUp) {
        auto it = open.find({o.dst_ip, o.seq});
        if (it == open.end()) continue;
        pairs[it->second].second = static_cast<ptrdiff_t>(i);
        open.erase(it);
      }
    }
    return pairs;
  }
  std::vector<Out> out_;
};

TEST_F(PtpOriginationTest, FollowUpsKeepUpAndBatchedSyncsKeepTheirOwnT1) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  Start("ptporig");
  Subscribe();
  Poll(0, 1000);  // 384 x 16 = 6144 Syncs due in this second
  const auto pairs = PairSyncs();
  ASSERT_GE(pairs.size(), static_cast<size_t>(kSubscribers) * 14);
  EXPECT_EQ(ptp_.stats()[0]->follow_up_overflow.Load(), 0u);
  size_t unpaired = 0, far = 0, batched = 0;
  std::map<int64_t, int> t1s;
  for (size_t k = 0; k < pairs.size(); ++k) {
    const auto [sync, fu] = pairs[k];
    if (fu < 0) {
      // Only the last poll's Syncs may still wait for theirs.
      unpaired += sync + 2 * kBurstSize < out_.size();
      continue;
    }
    // The Follow_Up leaves in the next poll's burst: at most a burst of
    // Syncs and one of follow-ups between them.
    far += static_cast<size_t>(fu) - sync > 2 * kBurstSize;
    const int64_t t1 = out_[static_cast<size_t>(fu)].t.value;
    ++t1s[t1];
    // Two Syncs back to back in the output: if they shared a tx_burst, the
    // second's t1 is the first's plus the first frame's wire time.
    if (k > 0 && pairs[k - 1].first + 1 == sync && pairs[k - 1].second >= 0) {
      const int64_t prev =
          out_[static_cast<size_t>(pairs[k - 1].second)].t.value;
      batched += t1 - prev == core::FrameWireTimeNs(out_[sync - 1].len, 0);
    }
  }
  EXPECT_EQ(unpaired, 0u);
  EXPECT_EQ(far, 0u) << "Follow_Ups waited behind later Syncs";
  // Many Syncs shared a burst, and no two Syncs got one t1.
  EXPECT_GT(batched, pairs.size() / 4);
  for (const auto& [t, n] : t1s) ASSERT_EQ(n, 1) << "t1 " << t << " shared";
}

TEST_F(PtpOriginationTest, SyncBatchOfOneSendsEachSyncAlone) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  absl::SetFlag(&FLAGS_ptp_sync_batch, 1);
  Start("ptporig1");
  Subscribe();
  Poll(0, 500);
  const auto pairs = PairSyncs();
  ASSERT_GE(pairs.size(), static_cast<size_t>(kSubscribers) * 6);
  size_t batched = 0;
  for (size_t k = 1; k < pairs.size(); ++k) {
    if (pairs[k].second < 0 || pairs[k - 1].second < 0) continue;
    const int64_t d = out_[static_cast<size_t>(pairs[k].second)].t.value -
                      out_[static_cast<size_t>(pairs[k - 1].second)].t.value;
    batched += d == core::FrameWireTimeNs(out_[pairs[k].first].len, 0);
  }
  EXPECT_EQ(batched, 0u);
  EXPECT_EQ(ptp_.stats()[0]->follow_up_overflow.Load(), 0u);
}

TEST(PtpOriginationConfig, SyncBatchOutOfRangeIsAnError) {
  for (uint8_t bad : {0, 33}) {
    core::PtpPortConfig c =
        core::DefaultPtpPortConfig(core::PtpProfileId::kDefaultE2E);
    c.unicast_sync_batch = bad;
    const absl::Status s = core::ValidatePtpPortConfig(c);
    EXPECT_FALSE(s.ok()) << int{bad};
    EXPECT_NE(s.message().find("--ptp_sync_batch"), std::string::npos);
  }
}

}  // namespace
}  // namespace ptp_origination_test
}  // namespace zg::dataplane::ptp_test
