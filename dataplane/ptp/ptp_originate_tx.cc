// SPDX-License-Identifier: Apache-2.0
// PtpWorker's origination side, as the worker's FrameSource: each poll
// first sends the follow-ups that are ready (ptp_follow_up.cc; one per
// two-step Sync already sent, so they neither starve the schedule nor wait
// behind it), then builds what the schedule says is due: multicast Announce
// and Sync (worker 0 only) and Announce and Sync to this worker's unicast
// subscribers as the scheduler spreads them, in full bursts; and, for
// one-step Syncs, writes the software TX stamp into the Sync itself (or,
// send-on-timestamp, its exact launch time: ptp_tx_schedule.cc).
//
// Batches. A multicast Sync goes first and alone in its tx_burst: the
// stamps around that call bracket it alone. Unicast Syncs share a burst
// (up to --ptp_sync_batch): with a million subscribers at 1 Hz a tx_burst
// per Sync (on AF_XDP a syscall) would not fit in a core. A software t1 of
// a Sync that is not first is the burst's stamp moved by the wire time of
// the frames ahead of it at the link speed (BatchBefore): no frame can
// leave sooner. With timesync the one TX latch still takes one Sync at a
// time; send-on-timestamp gives every frame its own exact launch time.
//
// When a poll's work does not fit (budget, batch limit, pending ring),
// what is due stays due and the next poll comes at once; a unicast timer a
// whole interval late is skipped and counted (ptp_scheduler.h), and how late
// the others leave is counted too (zeitgeber_ptp_unicast_lateness_seconds).
#include <algorithm>

#include "core/net/frame_build.h"
#include "core/net/net_headers.h"
#include "core/time/tx_launch.h"
#include "dataplane/ptp/ptp_worker.h"

namespace zg::dataplane {
namespace {

using core::PtpMessageType;
using core::PtpUnicastTransport;

// Unicast timers fired per poll, and expired grants swept per poll.
constexpr uint32_t kSweepPerPoll = 64;

uint8_t TransportBit(PtpUnicastTransport t) {
  switch (t) {
    case PtpUnicastTransport::kUdpIpv4:
      return core::kPtpTransportUdpIpv4;
    case PtpUnicastTransport::kUdpIpv6:
      return core::kPtpTransportUdpIpv6;
    default:
      return core::kPtpTransportL2;
  }
}

}  // namespace

uint16_t PtpWorker::Produce(const SourceContext& ctx, rte_mbuf** out,
                            uint16_t room) {
  RefreshSnapshot();
  RefreshPolicies();  // a reload takes effect even while nothing arrives
  batch_n_ = 0;
  tx_scheduler_ = ctx.scheduler;  // launch times: ptp_tx_schedule.cc
  // The hardware stamp of the last TX-stamped frame, if it is in
  // (ptp_tx_stamp.h): frees the latch for the next Sync of this poll.
  timesync_.BeginPoll();
  PollTxStamp(ctx.tsc);
  const int64_t mono = runtime_->mono().Ns(ctx.tsc);
  const core::TaiNs now = ctx.tsc_model->RawToTai(ctx.tsc);
  uint16_t n = 0;
  batch_closed_ = false;
  deferred_ = false;
  batch_syncs_ = 0;
  ProduceFollowUps(out, &n, room);
  if (templates_ok_) {
    ProduceMulticast(mono, now, out, &n, room);
    ProduceUnicast(mono, now, out, &n, room);
  }
  batch_n_ = n;
  if (config_.subscriber_export != nullptr) {  // zgctl: a slice per poll
    config_.subscriber_export->Step(
        service_ != nullptr ? &service_->table() : nullptr,
        core::PtpUnicastService::Seconds(mono));
  }
  next_poll_tsc_ = ctx.tsc + poll_period_tsc_;
  if (service_ != nullptr) {
    // Unicast timers fall due at slot starts: look again at the next one,
    // so they leave when due rather than up to a poll period later.
    using Wheel = core::PtpUnicastScheduler;
    const int64_t to_slot = Wheel::SlotStartNs(Wheel::SlotOf(mono) + 1) - mono;
    next_poll_tsc_ =
        std::min(next_poll_tsc_, ctx.tsc + runtime_->mono().Ticks(to_slot));
  }
  // More to send (a Sync closed the batch, or it filled): come back now.
  if (batch_closed_ || deferred_ || n == room) next_poll_tsc_ = ctx.tsc;
  if ((++polls_ & 1023) == 0) PublishServiceStats();
  return n;
}

bool PtpWorker::Originate(PtpMessageType type, const Dest& d, uint16_t seq,
                          int8_t log_interval, bool unicast, core::TaiNs now,
                          rte_mbuf** out, uint16_t* n, uint16_t room) {
  const bool sync = type == PtpMessageType::kSync;
  // A lone Sync goes first in its tx_burst and closes it; unicast Syncs
  // share one, up to the batch limit (see the top of this file).
  const bool alone = sync && (!unicast || config_.port.unicast_sync_batch <= 1);
  if (*n >= room || batch_closed_ || (alone && *n > 0) ||
      (sync && !alone && batch_syncs_ >= config_.port.unicast_sync_batch)) {
    return false;
  }
  const size_t kind = static_cast<size_t>(sync ? core::PtpTimerKind::kSync
                                               : core::PtpTimerKind::kAnnounce);
  const bool two_step = sync && config_.port.two_step;
  // Timesync: the port's one TX latch holds one frame's stamp; a Sync due
  // while it is taken waits for it (the caller defers it to the next poll).
  bool hw_stamp = false;
  if (two_step && timesync_.tx()) {
    if (!timesync_.usable()) {
      stats_->stamps.tx[static_cast<size_t>(PtpTxStampResult::kNoModel)].Add(1);
    } else if (!timesync_.AcquireTx()) {
      if (!sync_deferred_) stats_->stamps.syncs_deferred.Add(1);
      sync_deferred_ = true;
      return false;
    } else {
      hw_stamp = true;
    }
  }
  if (sync) sync_deferred_ = false;
  std::array<uint8_t, core::kPtpAnnounceLength> msg;
  const size_t len =
      sync ? templates_.WriteSync(msg, seq, log_interval, unicast,
                                  core::TaiToPtp(now))
           : templates_.WriteAnnounce(msg, seq, log_interval, unicast,
                                      core::TaiToPtp(now));
  if (len == 0) {  // cannot encode: skip (counted), do not stall
    if (hw_stamp) timesync_.ReleaseTx();
    stats_->originate_unbuilt[kind].Add(1);
    return true;
  }
  int32_t slot = -1;
  if (two_step && (slot = ReservePending()) < 0) {
    if (hw_stamp) timesync_.ReleaseTx();
    return false;
  }
  rte_mbuf* m = rte_pktmbuf_alloc(config_.pool);
  if (m == nullptr ||
      !Frame(m, d, msg.data(), static_cast<uint16_t>(len), &batch_info_[*n])) {
    if (m == nullptr) stats_->mbuf_alloc_failures.Add(1);
    if (m != nullptr) {
      rte_pktmbuf_free(m);
      stats_->originate_unbuilt[kind].Add(1);
    }
    if (slot >= 0)
      pending_[static_cast<uint32_t>(slot)].state = Pending::kCancelled;
    if (hw_stamp) timesync_.ReleaseTx();
    return m != nullptr;  // a frame that cannot be built is skipped
  }
  if (hw_stamp) m->ol_flags |= RTE_MBUF_F_TX_IEEE1588_TMST;
  if (slot >= 0) {
    Pending& p = pending_[static_cast<uint32_t>(slot)];
    p.hw_stamp = hw_stamp;
    p.unicast = unicast;
    p.sequence_id = seq;
    p.log_interval = log_interval;
    p.dest = d;
    p.dest.port = core::kPtpGeneralPort;
  }
  AddToBatch(m, slot, sync && !two_step, out, n);
  if (alone) {
    batch_closed_ = true;
  } else if (sync) {
    ++batch_syncs_;
  }
  stats_->sent[static_cast<size_t>(type)].Add(1);
  return true;
}

void PtpWorker::ProduceMulticast(int64_t mono, core::TaiNs now, rte_mbuf** out,
                                 uint16_t* n, uint16_t room) {
  if (config_.worker_index != 0 || !config_.port.multicast_service ||
      snapshot_.state != core::PtpPortState::kMaster) {
    // Start afresh when serving again.
    next_announce_ns_ = next_sync_ns_ = 0;
    multicast_left_ = {0, 0};
    return;
  }
  const PtpUnicastTransport kTransports[] = {PtpUnicastTransport::kUdpIpv4,
                                             PtpUnicastTransport::kUdpIpv6,
                                             PtpUnicastTransport::kL2};
  for (const bool sync : {true, false}) {
    uint8_t& left = multicast_left_[sync ? 0 : 1];
    int64_t& next = sync ? next_sync_ns_ : next_announce_ns_;
    uint16_t& seq = sync ? sync_seq_ : announce_seq_;
    const int8_t log = sync ? config_.port.log_sync_interval
                            : config_.port.log_announce_interval;
    if (left == 0) {
      if (mono < next) continue;
      left = config_.port.transports;
      const int64_t period = core::PtpLogIntervalNs(log);
      next =
          (next == 0 || mono - next > period) ? mono + period : next + period;
    }
    for (PtpUnicastTransport t : kTransports) {
      if ((left & TransportBit(t)) == 0) continue;
      Dest d;
      d.transport = t;
      d.ttl = 1;
      d.port = sync ? core::kPtpEventPort : core::kPtpGeneralPort;
      if (t == PtpUnicastTransport::kL2) {
        d.mac = core::kPtpPrimaryMac;
      } else if (t == PtpUnicastTransport::kUdpIpv6) {
        d.ip = core::IpAddress::V6(core::kPtpPrimaryIpv6);
        d.mac = core::kPtpPrimaryIpv6.MulticastMac();
        d.local_index = static_cast<uint8_t>(std::max(
            0, config_.local.Ipv6SourceIndexFor(core::kPtpPrimaryIpv6)));
      } else {
        d.ip = core::IpAddress::V4(core::kPtpPrimaryIpv4);
        d.mac = core::Ipv4MulticastMac(core::kPtpPrimaryIpv4);
      }
      if (!Originate(sync ? PtpMessageType::kSync : PtpMessageType::kAnnounce,
                     d, seq, log, false, now, out, n, room)) {
        deferred_ = true;
        return;  // the rest of this interval's set goes next poll
      }
      left = static_cast<uint8_t>(left & ~TransportBit(t));
    }
    ++seq;  // every transport got this interval's message
  }
}

PtpWorker::Dest PtpWorker::SubscriberDest(const core::PtpUnicastSubscriber& s,
                                          core::PtpTimerKind kind) const {
  Dest d;
  d.transport = s.key.address.transport;
  d.mac.b = s.path.mac;
  d.vlan_tci = s.path.vlan_tci;
  d.local_index = s.path.local_index;
  d.port = kind == core::PtpTimerKind::kSync ? core::kPtpEventPort
                                             : core::kPtpGeneralPort;
  if (d.transport == PtpUnicastTransport::kUdpIpv6) {
    d.ip =
        core::IpAddress::V6(core::Ipv6Addr::Load(s.key.address.octets.data()));
  } else if (d.transport == PtpUnicastTransport::kUdpIpv4) {
    d.ip =
        core::IpAddress::V4(core::Ipv4Addr::Load(s.key.address.octets.data()));
  }
  return d;
}

void PtpWorker::ProduceUnicast(int64_t mono, core::TaiNs now, rte_mbuf** out,
                               uint16_t* n, uint16_t room) {
  if (service_ == nullptr) return;
  const bool serving = snapshot_.state == core::PtpPortState::kMaster;
  service_->Poll(
      mono, static_cast<uint32_t>(room - *n), serving,
      [&](const core::PtpUnicastSubscriber& s, core::PtpTimerKind kind,
          uint16_t seq, int8_t log) {
        if ((config_.port.transports & TransportBit(s.key.address.transport)) ==
            0) {
          return true;  // transport turned off: nothing to send, keep phase
        }
        if (!Originate(
                kind == core::PtpTimerKind::kSync ? PtpMessageType::kSync
                                                  : PtpMessageType::kAnnounce,
                SubscriberDest(s, kind), seq, log, true, now, out, n, room)) {
          deferred_ = true;
          return false;
        }
        return true;
      });
  service_->SweepExpired(mono, kSweepPerPoll);
}

void PtpWorker::BeforeTx(rte_mbuf** frames, uint16_t n, const TxStamp& tx) {
  if (config_.port.two_step) return;
  for (uint16_t i = 0; i < n && i < batch_n_; ++i) {
    // One-step: the Sync carries its own (software) transmit time, which
    // must be written before the frame leaves.
    if (!batch_one_step_[i]) continue;
    uint8_t* f = rte_pktmbuf_mtod(frames[i], uint8_t*);
    const core::FrameInfo& info = batch_info_[i];
    const TxStamp at = tx_scheduler_ != nullptr ? tx : BatchBefore(tx, i);
    core::PtpSetBodyTimestamp({f + info.payload_offset, info.payload_len},
                              core::TaiToPtp(OneStepOrigin(frames[i], at)));
    if (info.ip_version != 0) core::FinaliseUdpChecksum(f, info);
  }
}

void PtpWorker::AddToBatch(rte_mbuf* m, int32_t slot, bool one_step,
                           rte_mbuf** out, uint16_t* n) {
  batch_pending_[*n] = slot;
  batch_one_step_[*n] = one_step;
  batch_wire_ns_[*n] = core::FrameWireTimeNs(m->pkt_len, config_.link_mbps);
  out[(*n)++] = m;
}

TxStamp PtpWorker::BatchBefore(const TxStamp& before, uint16_t i) const {
  TxStamp t = before;
  for (uint16_t j = 0; j < i && j < batch_n_; ++j)
    t.tai = t.tai + batch_wire_ns_[j];
  return t;
}

TxStamp PtpWorker::BatchAfter(const TxStamp& after, uint16_t i,
                              uint16_t n) const {
  TxStamp t = after;
  for (uint16_t j = i + 1; j < n && j < batch_n_; ++j) {
    t.tai = t.tai - batch_wire_ns_[j];
  }
  return t;
}

}  // namespace zg::dataplane
