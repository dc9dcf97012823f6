// PtpWorker's pending ring: the messages whose follow-up waits for a TX
// stamp, a two-step Sync (its Follow_Up, reserved by Originate in
// ptp_originate_tx.cc) and a Pdelay_Resp (its Pdelay_Resp_Follow_Up,
// reserved by AnswerPdelayReq in ptp_answer.cc). A slot is reserved when
// the message is built, stamped once it is sent (AfterTx for a Sync,
// FinaliseTx for a Pdelay_Resp) and its follow-up is sent, in ring order,
// by ProduceFollowUps on a later poll.
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
  Pending& p = pending_[pkt.NoteAs<HandleNote>().pending & (kPending - 1)];
  if (p.state != Pending::kWaiting || !p.pdelay) return;
  p.tx = tx.tai;  // t3: the software stamp just before tx_burst
  p.state = Pending::kReady;
  ++ready_follow_ups_;
}

void PtpWorker::AfterTx(uint16_t n, uint16_t sent, const TxStamp& before,
                        const TxStamp& after) {
  (void)after;
  for (uint16_t i = 0; i < n && i < batch_n_; ++i) {
    const int32_t slot = batch_pending_[i];
    batch_pending_[i] = -1;
    if (slot < 0) continue;
    Pending& p = pending_[static_cast<uint32_t>(slot)];
    if (p.state != Pending::kWaiting) continue;
    if (i < sent) {
      // t1: the stamp just before tx_burst. The frame is in the kernel (or
      // on the wire) within the call, but on a busy host the call can
      // return long after (softirqs, preemption): `after` is no better,
      // nor is the middle (measured on the veth rig under load: ptp4l's
      // median offset +4 us with `before`, -15 us with the middle, as
      // net_af_xdp's kick runs the peer's whole receive path in softirq).
      p.tx = before.tai;
      p.state = Pending::kReady;
      ++ready_follow_ups_;
    } else {
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
      } else {
        batch_pending_[n] = -1;
        batch_one_step_[n] = false;
        out[n++] = m;
        stats_->sent[static_cast<size_t>(type)].Add(1);
      }
      --ready_follow_ups_;
    }
    p.state = Pending::kFree;
    ++pending_tail_;
  }
}

}  // namespace zg::dataplane
