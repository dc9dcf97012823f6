// SPDX-License-Identifier: Apache-2.0
// PtpWorker's pending ring: the messages whose follow-up waits for a TX
// stamp, a two-step Sync (its Follow_Up, reserved by Originate in
// ptp_originate_tx.cc) and a Pdelay_Resp (its Pdelay_Resp_Follow_Up,
// reserved by AnswerPdelayReq in ptp_answer.cc). A slot is reserved when
// the message is built, stamped once it is sent (AfterTx for a Sync,
// HandlerAfterTx for a Pdelay_Resp, once tx_burst took it) and its
// follow-up is sent, in ring order, by ProduceFollowUps on a later poll.
// Where the stamp comes from is the port's StampPlan: the TSC before or
// after tx_burst, or (kTimesync) the NIC's latch, which PollTxStamp reads
// on later polls (ptp_tx_stamp.h) while the slot stays kWaiting. A message
// that was not sent, or whose hardware stamp never came, gets no
// follow-up (counted).
#include "dataplane/ptp/ptp_worker.h"

namespace zg::dataplane {
namespace {

using core::PtpMessageType;

}  // namespace

int32_t PtpWorker::ReservePending() {
  if (pending_head_ - pending_tail_ == kPending) {
    stats_->follow_up_overflow.Add(1);
    return -1;
  }
  const uint32_t slot = pending_head_++ & (kPending - 1);
  pending_[slot] = Pending{};
  pending_[slot].state = Pending::kWaiting;
  return static_cast<int32_t>(slot);
}

void PtpWorker::FinaliseTx(Packet& pkt, const TxStamp& tx) {
  const int32_t slot = pkt.NoteAs<HandleNote>().pending;
  if (slot < 0) return;
  Pending& p = pending_[static_cast<uint32_t>(slot)];
  if (p.state != Pending::kWaiting || !p.pdelay) return;
  // t3 before tx_burst; ready only once tx_burst took it (HandlerAfterTx).
  p.tx = tx.tai;
}

void PtpWorker::HandlerAfterTx(Packet& pkt, const TxStamp& after, bool sent) {
  const int32_t slot = pkt.NoteAs<HandleNote>().pending;
  if (slot < 0) return;
  Pending& p = pending_[static_cast<uint32_t>(slot)];
  if (p.state != Pending::kWaiting || !p.pdelay) return;
  if (!sent) {  // no Pdelay_Resp, so no Pdelay_Resp_Follow_Up
    if (p.hw_stamp) timesync_.ReleaseTx();
    p.state = Pending::kCancelled;
    stats_->pdelay_resp_unsent.Add(1);
    return;
  }
  TxStamp before = after;
  before.tai = p.tx;  // FinaliseTx's
  Transmitted(p, slot, before, after);
}

void PtpWorker::Transmitted(Pending& p, int32_t slot, const TxStamp& before,
                            const TxStamp& after) {
  if (p.hw_stamp) {  // the NIC latched it: PollTxStamp collects it
    timesync_.AwaitTx(slot, after.tsc_ticks, before.tai);
    return;
  }
  // Software t1/t3 as the plan says (stamp_plan.h, kPtpSoftwareTxDefault:
  // before, measured closest to the peer's RX time: the kick runs the
  // peer's whole receive path before tx_burst returns). A timesync port
  // that fell back (latch busy, no model) uses `before`, counted there.
  const bool use_after = config_.stamps.ptp_tx == TxStampSource::kSoftwareAfter;
  p.tx = use_after ? after.tai : before.tai;
  if (!timesync_.tx()) {
    stats_->stamps
        .tx[static_cast<size_t>(use_after ? PtpTxStampResult::kSoftwareAfter
                                          : PtpTxStampResult::kSoftwareBefore)]
        .Add(1);
  }
  p.state = Pending::kReady;
  ++ready_follow_ups_;
}

void PtpWorker::PollTxStamp(uint64_t tsc) {
  const PtpTimesync::TxPoll r = timesync_.PollTx(tsc);
  if (r.what == PtpTimesync::TxPoll::kNothing) return;
  Pending& p = pending_[static_cast<uint32_t>(r.slot)];
  if (p.state != Pending::kWaiting) return;
  if (r.what == PtpTimesync::TxPoll::kStamped) {
    p.tx = r.tai;
    p.state = Pending::kReady;
    ++ready_follow_ups_;
  } else {
    p.state = Pending::kCancelled;  // counted by PollTx: no follow-up
  }
}

void PtpWorker::AfterTx(uint16_t n, uint16_t sent, const TxStamp& before,
                        const TxStamp& after) {
  for (uint16_t i = 0; i < n && i < batch_n_; ++i) {
    const int32_t slot = batch_pending_[i];
    batch_pending_[i] = -1;
    if (slot < 0) continue;
    Pending& p = pending_[static_cast<uint32_t>(slot)];
    if (p.state != Pending::kWaiting) continue;
    if (i < sent) {
      Transmitted(p, slot, BatchBefore(before, i), BatchAfter(after, i, sent));
    } else {
      if (p.hw_stamp) timesync_.ReleaseTx();
      p.state = Pending::kCancelled;
    }
  }
  batch_n_ = 0;
}

void PtpWorker::ProduceFollowUps(rte_mbuf** out, uint16_t* count,
                                 uint16_t room) {
  uint16_t& n = *count;
  while (pending_tail_ != pending_head_ && n < room) {
    Pending& p = pending_[pending_tail_ & (kPending - 1)];
    if (p.state == Pending::kWaiting) break;  // its TX has not happened yet
    if (p.state == Pending::kReady) {
      std::array<uint8_t, kMaxPtp> msg;
      size_t len;
      PtpMessageType type;
      if (p.pdelay) {
        len = core::WritePtpPdelayRespFollowUp(
            msg, reply_config_, p.request, core::TaiToPtp(p.tx), p.correction);
        type = PtpMessageType::kPdelayRespFollowUp;
      } else {
        len = templates_.WriteFollowUp(msg, p.sequence_id, p.log_interval,
                                       p.unicast, core::TaiToPtp(p.tx));
        type = PtpMessageType::kFollowUp;
      }
      rte_mbuf* m = rte_pktmbuf_alloc(config_.pool);
      if (m == nullptr) {
        stats_->mbuf_alloc_failures.Add(1);
        break;
      }
      if (len == 0 ||
          !Frame(m, p.dest, msg.data(), static_cast<uint16_t>(len))) {
        rte_pktmbuf_free(m);
        stats_->follow_ups_unbuilt.Add(1);
      } else {
        AddToBatch(m, -1, false, out, &n);
        stats_->sent[static_cast<size_t>(type)].Add(1);
      }
      --ready_follow_ups_;
    }
    p.state = Pending::kFree;
    ++pending_tail_;
  }
}

}  // namespace zg::dataplane
