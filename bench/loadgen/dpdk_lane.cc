// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/dpdk_lane.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>
#include <rte_pause.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "bench/loadgen/ptp_subscriber_frame.h"
#include "core/net/frame_build.h"
#include "core/net/l2l3_responder.h"
#include "core/net/net_headers.h"
#include "core/time/tsc.h"

namespace zg::bench {

absl::StatusOr<int> RegisterRxTscField() {
  static const rte_mbuf_dynfield kField = {
      "zg_loadgen_rx_tsc", sizeof(uint64_t), alignof(uint64_t), 0};
  const int offset = rte_mbuf_dynfield_register(&kField);
  if (offset < 0) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot register the mbuf field for handed-off RX stamps: ",
        rte_strerror(rte_errno)));
  }
  return offset;
}

LaneFrameStats& LaneFrameStats::operator+=(const LaneFrameStats& o) {
  rx_frames += o.rx_frames;
  tx_requests += o.tx_requests;
  tx_ring_full += o.tx_ring_full;
  tx_unsent += o.tx_unsent;
  alloc_failed += o.alloc_failed;
  l2_answered += o.l2_answered;
  handed_off += o.handed_off;
  handoff_dropped += o.handoff_dropped;
  for (size_t i = 0; i < drops.size(); ++i) drops[i] += o.drops[i];
  return *this;
}

DpdkLane::DpdkLane(uint32_t index, dataplane::QueuePair queue,
                   rte_mempool* pool, const LaneNetwork* net,
                   const core::PublishedClock* clock)
    : index_(index), queue_(queue), pool_(pool), net_(net), clock_(clock) {
  spec_.src_mac = net->src_mac;
  spec_.dst_mac = net->dst_mac;
  spec_.vlan_id = net->vlan_id;
  spec_.src_ip = net->first_source;
  spec_.dst_ip = net->target;
  // Every request's payload starts at the same offset.
  uint8_t scratch[128];
  core::FrameInfo info;
  core::BuildUdpFrame(scratch, sizeof(scratch), spec_, 0, &info);
  payload_offset_ = info.payload_offset;
  publish_ticks_ = rte_get_tsc_hz() / 1000;
}

void DpdkLane::SetRings(std::vector<rte_ring*> inbox,
                        std::vector<rte_ring*> outbox) {
  inbox_ = std::move(inbox);
  outbox_ = std::move(outbox);
}

void DpdkLane::Prepare(std::unique_ptr<LaneEngine> engine, RateController pace,
                       const LanePlan& plan) {
  subs_.reset();
  engine_ = std::move(engine);
  pace_.emplace(pace);
  plan_ = plan;
  plan_.burst = std::clamp<uint32_t>(plan.burst, 1, kMaxBurst);
  stats_ = {};
  Publish(false, 0);
}

void DpdkLane::PrepareSubscribers(
    std::unique_ptr<PtpSubscriberEngine> subscribers, const LanePlan& plan) {
  engine_.reset();
  pace_.reset();
  subs_ = std::move(subscribers);
  plan_ = plan;
  plan_.burst = std::clamp<uint32_t>(plan.burst, 1, kMaxBurst);
  stats_ = {};
  Publish(false, 0);
}

void DpdkLane::RunSubscribers(const std::atomic<bool>* abort) {
  subs_->SetClock(clock_.Refresh());
  while (core::ReadTsc() < plan_.start_tsc) rte_pause();
  uint64_t send_end = 0;
  uint64_t drain_until = 0;
  uint64_t next_publish = 0;
  for (;;) {
    const uint64_t now = core::ReadTsc();
    subs_->SetClock(clock_.Refresh());
    if (send_end == 0) {
      if (now >= plan_.stop_tsc ||
          (abort != nullptr && abort->load(std::memory_order_relaxed))) {
        send_end = now;
        drain_until = now + plan_.drain_ticks;
        DropPending();
      } else {
        SendSubscribers(now);
      }
    } else if (now >= drain_until) {
      break;
    }
    Receive();
    ReceiveHandoffs();
    FlushL2();
    if (now >= next_publish) {
      Publish(false, send_end);
      next_publish = now + publish_ticks_;
    }
  }
  subs_->Finish(send_end);
  Publish(true, send_end);
}

void DpdkLane::SendSubscribers(uint64_t now_tsc) {
  if (n_pending_ == 0) {
    const uint32_t n = plan_.burst;
    if (rte_pktmbuf_alloc_bulk(pool_, tx_.data(), n) != 0) {
      ++stats_.alloc_failed;
      return;
    }
    uint32_t built = 0;
    while (built < n) {
      rte_mbuf* m = tx_[built];
      uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
      PtpSubscriberMessage& r = sub_msgs_[built];
      if (!subs_->Next(now_tsc, data + payload_offset_, &r)) break;
      const uint32_t len =
          FramePtpSubscriberMessage(r, net_->first_source, nullptr, &spec_,
                                    data, rte_pktmbuf_tailroom(m));
      m->data_len = static_cast<uint16_t>(len);
      m->pkt_len = len;
      ++built;
    }
    if (built < n) rte_pktmbuf_free_bulk(tx_.data() + built, n - built);
    n_pending_ = static_cast<uint16_t>(built);
  }
  if (n_pending_ == 0) return;
  const uint64_t tx_tsc = core::ReadTsc();
  const uint16_t sent =
      rte_eth_tx_burst(queue_.port_id, queue_.queue_id, tx_.data(), n_pending_);
  subs_->Sent(sub_msgs_.data(), sent, tx_tsc);
  stats_.tx_requests += sent;
  if (sent < n_pending_) {
    ++stats_.tx_ring_full;
    std::copy(tx_.begin() + sent, tx_.begin() + n_pending_, tx_.begin());
    std::copy(sub_msgs_.begin() + sent, sub_msgs_.begin() + n_pending_,
              sub_msgs_.begin());
  }
  n_pending_ = static_cast<uint16_t>(n_pending_ - sent);
}

int DpdkLane::Entry(void* arg) {
  auto* lane = static_cast<DpdkLane*>(arg);
  lane->Run(lane->abort_);
  return 0;
}

void DpdkLane::Run(const std::atomic<bool>* abort) {
  if (subs_ != nullptr) return RunSubscribers(abort);
  engine_->SetClock(clock_.Refresh());
  while (core::ReadTsc() < plan_.start_tsc) rte_pause();
  pace_->Start(plan_.start_tsc);
  uint64_t send_end = 0;
  uint64_t drain_until = 0;
  uint64_t next_publish = 0;
  for (;;) {
    const uint64_t now = core::ReadTsc();
    engine_->SetClock(clock_.Refresh());
    if (send_end == 0) {
      const bool quota_met = plan_.quota != 0 &&
                             engine_->measurements().counts.sent >= plan_.quota;
      if (now >= plan_.stop_tsc || quota_met ||
          (abort != nullptr && abort->load(std::memory_order_relaxed))) {
        send_end = now;
        drain_until = now + plan_.drain_ticks;
        DropPending();
      } else {
        Send(now);
      }
    } else if (now >= drain_until) {
      break;
    }
    Receive();
    ReceiveHandoffs();
    FlushL2();
    if (now >= next_publish) {
      Publish(false, send_end);
      next_publish = now + publish_ticks_;
    }
  }
  engine_->Finish();
  Publish(true, send_end);
}

void DpdkLane::Send(uint64_t now_tsc) {
  if (n_pending_ == 0) Build(now_tsc);
  if (n_pending_ == 0) return;
  const uint64_t tx_tsc = core::ReadTsc();
  const uint16_t sent =
      rte_eth_tx_burst(queue_.port_id, queue_.queue_id, tx_.data(), n_pending_);
  engine_->Sent(requests_.data(), sent, tx_tsc);
  pace_->OnSent(sent);
  stats_.tx_requests += sent;
  if (sent < n_pending_) {
    // The TX ring is full: keep the rest, built, for the next try (their
    // T1 is taken when they do leave).
    ++stats_.tx_ring_full;
    std::copy(tx_.begin() + sent, tx_.begin() + n_pending_, tx_.begin());
    std::copy(requests_.begin() + sent, requests_.begin() + n_pending_,
              requests_.begin());
  }
  n_pending_ = static_cast<uint16_t>(n_pending_ - sent);
}

void DpdkLane::Build(uint64_t now_tsc) {
  uint32_t n = std::min(pace_->Due(now_tsc), plan_.burst);
  if (plan_.quota != 0) {
    const uint64_t left = plan_.quota - engine_->measurements().counts.sent;
    n = static_cast<uint32_t>(std::min<uint64_t>(n, left));
  }
  if (n == 0) return;
  if (rte_pktmbuf_alloc_bulk(pool_, tx_.data(), n) != 0) {
    ++stats_.alloc_failed;
    return;
  }
  const core::TaiNs now = engine_->clock().RawToTai(now_tsc);
  for (uint32_t i = 0; i < n; ++i) {
    rte_mbuf* m = tx_[i];
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    OutgoingRequest& r = requests_[i];
    r = engine_->Next(data + payload_offset_, now);
    spec_.src_ip = AddressAt(net_->first_source, r.source.address_offset);
    spec_.src_port = r.source.port;
    spec_.dst_port = r.dst_port;
    core::FrameInfo info;
    const uint32_t len = core::BuildUdpFrame(data, rte_pktmbuf_tailroom(m),
                                             spec_, r.payload_len, &info);
    core::FinaliseUdpChecksum(data, info);
    m->data_len = static_cast<uint16_t>(len);
    m->pkt_len = len;
  }
  n_pending_ = static_cast<uint16_t>(n);
}

void DpdkLane::DropPending() {
  if (n_pending_ == 0) return;
  stats_.tx_unsent += n_pending_;
  rte_pktmbuf_free_bulk(tx_.data(), n_pending_);
  n_pending_ = 0;
}

void DpdkLane::Receive() {
  const uint16_t n =
      rte_eth_rx_burst(queue_.port_id, queue_.queue_id, rx_.data(), kRxBurst);
  if (n == 0) return;
  const uint64_t rx_tsc = core::ReadTsc();
  stats_.rx_frames += n;
  for (uint16_t i = 0; i < n; ++i) Handle(rx_[i], rx_tsc, false);
}

void DpdkLane::ReceiveHandoffs() {
  for (rte_ring* ring : inbox_) {
    if (ring == nullptr) continue;
    const unsigned n = rte_ring_sc_dequeue_burst(
        ring, reinterpret_cast<void**>(rx_.data()), kRxBurst, nullptr);
    for (unsigned i = 0; i < n; ++i) {
      rte_mbuf* m = rx_[i];
      Handle(m, *RTE_MBUF_DYNFIELD(m, net_->rx_tsc_offset, uint64_t*), true);
    }
  }
}

void DpdkLane::Handle(rte_mbuf* m, uint64_t rx_tsc, bool handed_off) {
  if (m->nb_segs != 1) {  // requests and replies are small: never chained
    ++stats_.drops[static_cast<size_t>(core::FrameDrop::kEthTooLong)];
    rte_pktmbuf_free(m);
    return;
  }
  const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
  const core::FrameInfo info =
      core::ClassifyFrame(data, m->data_len, net_->local);
  switch (info.kind) {
    case core::FrameKind::kArpRequest:
    case core::FrameKind::kNeighborSolicitation:
    case core::FrameKind::kIcmpEchoRequest:
    case core::FrameKind::kIcmp6EchoRequest:
      return AnswerL2(m, info);
    case core::FrameKind::kDrop: {
      // A frame from the target that failed its checks is an invalid reply;
      // anything else was not for us.
      const bool from_target = (info.ip_version == 4 && !net_->target.is_v6() &&
                                info.src_ipv4 == net_->target.v4) ||
                               (info.ip_version == 6 && net_->target.is_v6() &&
                                info.src_ipv6 == net_->target.v6);
      if (from_target && info.drop != core::FrameDrop::kIpv4NotOurs &&
          info.drop != core::FrameDrop::kIpv6NotOurs && engine_ != nullptr) {
        engine_->CountDefect(ReplyDefect::kBadFrame);
      } else {
        ++stats_.drops[static_cast<size_t>(info.drop)];
      }
      break;
    }
    default:
      if (info.l4_protocol == core::kIpProtoUdp &&
          HandleUdp(m, info, rx_tsc, handed_off)) {
        return;  // handed to its lane
      }
      break;
  }
  rte_pktmbuf_free(m);
}

bool DpdkLane::HandleUdp(rte_mbuf* m, const core::FrameInfo& info,
                         uint64_t rx_tsc, bool handed_off) {
  const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
  const ReplyAddress from{
      .from_target = info.ip_version == 6 ? info.src_ipv6 == net_->target.v6
                                          : info.src_ipv4 == net_->target.v4,
      .dst_address_offset = AddressOffsetOf(info, net_->first_source),
      .src_port = info.src_port,
      .dst_port = info.dst_port};
  const uint8_t* payload = data + info.payload_offset;
  if (subs_ != nullptr) {
    const uint32_t lanes = subs_->lanes();
    const uint32_t owner =
        from.dst_address_offset < UINT64_MAX
            ? static_cast<uint32_t>(from.dst_address_offset % lanes)
            : index_;
    if (!from.from_target) {
      subs_->CountDefect(PtpSubscriberDefect::kNotFromTarget);
      return false;
    }
    if (!handed_off && owner != index_ && owner < outbox_.size() &&
        outbox_[owner] != nullptr) {
      *RTE_MBUF_DYNFIELD(m, net_->rx_tsc_offset, uint64_t*) = rx_tsc;
      if (rte_ring_sp_enqueue(outbox_[owner], m) == 0) {
        ++stats_.handed_off;
        return true;
      }
      ++stats_.handoff_dropped;
      return false;
    }
    subs_->OnFrame(from.dst_address_offset, from.dst_port, payload,
                   info.payload_len, rx_tsc);
    return false;
  }
  if (!handed_off && outbox_.size() > 1) {
    const std::optional<uint32_t> owner = OwnerLaneOf(
        engine_->space(), net_->ntp_port, from, payload, info.payload_len);
    if (owner.has_value() && *owner != index_ && *owner < outbox_.size()) {
      *RTE_MBUF_DYNFIELD(m, net_->rx_tsc_offset, uint64_t*) = rx_tsc;
      if (rte_ring_sp_enqueue(outbox_[*owner], m) == 0) {
        ++stats_.handed_off;
        return true;
      }
      ++stats_.handoff_dropped;
      return false;
    }
  }
  engine_->OnReply(from, payload, info.payload_len, rx_tsc);
  return false;
}

void DpdkLane::AnswerL2(rte_mbuf* m, const core::FrameInfo& info) {
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t cap = m->data_len + rte_pktmbuf_tailroom(m);
  core::FrameDrop drop = core::FrameDrop::kNone;
  const uint32_t len = core::AnswerL2L3(data, cap, info, net_->local, &drop);
  if (len == 0) {
    ++stats_.drops[static_cast<size_t>(drop)];
    rte_pktmbuf_free(m);
    return;
  }
  m->data_len = static_cast<uint16_t>(len);
  m->pkt_len = len;
  l2_[n_l2_++] = m;
  if (n_l2_ == l2_.size()) FlushL2();
}

void DpdkLane::FlushL2() {
  if (n_l2_ == 0) return;
  const uint16_t sent =
      rte_eth_tx_burst(queue_.port_id, queue_.queue_id, l2_.data(), n_l2_);
  stats_.l2_answered += sent;
  if (sent < n_l2_) rte_pktmbuf_free_bulk(l2_.data() + sent, n_l2_ - sent);
  n_l2_ = 0;
}

void DpdkLane::Publish(bool done, uint64_t send_end_tsc) {
  LaneProgress p;
  if (subs_ != nullptr) {
    const PtpSubscriberCounts& c = subs_->counts();
    p.counts.sent = c.delay_reqs;
    p.counts.answered = c.delay_resps_answered;
    p.invalid = c.DefectTotal();
  } else {
    p.counts = engine_->Counts();
    p.counts.skipped = pace_->skipped();
    p.invalid = engine_->measurements().DefectTotal();
  }
  p.send_end_tsc = send_end_tsc;
  p.done = done;
  progress_.Write(p);
}

void DpdkLane::Flush() {
  for (int pass = 0; pass < 64; ++pass) {
    uint16_t n =
        rte_eth_rx_burst(queue_.port_id, queue_.queue_id, rx_.data(), kRxBurst);
    if (n > 0) rte_pktmbuf_free_bulk(rx_.data(), n);
    for (rte_ring* ring : inbox_) {
      if (ring == nullptr) continue;
      const unsigned k = rte_ring_sc_dequeue_burst(
          ring, reinterpret_cast<void**>(rx_.data()), kRxBurst, nullptr);
      if (k > 0) rte_pktmbuf_free_bulk(rx_.data(), k);
      n += static_cast<uint16_t>(k);
    }
    if (n == 0) return;
  }
}

}  // namespace zg::bench
