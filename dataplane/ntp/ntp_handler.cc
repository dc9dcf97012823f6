// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/ntp_handler.h"

#include <array>
#include <cstring>

#include "core/base/status_macros.h"
#include "core/net/frame_build.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_reply.h"
#include "core/time/tsc.h"
#include "dataplane/port/tx_checksum.h"

namespace zg::dataplane {
namespace {

// Written by Handle, read by FinaliseTx and AfterTx of the same frame.
struct NtpTxNote {
  bool software_checksum : 1 = false;  // UpdateUdpChecksum after writing T3
  bool nts : 1 = false;  // an NTS reply: key_index is its seal slot
  // An interleaved reply: T3 (the previous reply's) was written in Handle.
  bool interleaved : 1 = false;
  uint16_t key_index = 0;  // of `macer`
  // Saved for interleaved mode: AfterTx gives the slot its transmit time.
  uint32_t xleave_slot = core::kNtpInterleaveNoSlot;
  // Non-null: append the MAC of key_index after T3. Valid until the burst
  // ends (NtpWorkerAuth::Verdict::macer).
  const core::NtpMacer* macer = nullptr;
};
static_assert(sizeof(NtpTxNote) <= kNoteScratchBytes);

// The model the frame's receive stamp was converted with.
const core::ClockModel& ModelFor(const RxStamp& rx, const BurstContext& b) {
  return rx.clock == RawClockKind::kNic && b.nic_model != nullptr
             ? *b.nic_model
             : *b.tsc_model;
}

// The policy's minimum poll (rate limiting: its interval) in the reply, as
// chrony answers MAX(ratelimit interval, request poll). Before the checksum.
void RaisePoll(uint8_t* payload, int8_t min_poll_log2) {
  int8_t& poll = reinterpret_cast<int8_t&>(payload[2]);
  if (min_poll_log2 != NtpPolicyVerdict::kNoMinPoll && poll < min_poll_log2) {
    poll = min_poll_log2;
  }
}

// Interleaved mode (null: off): the request's timestamps, read before the
// reply overwrites them, then applied to the reply just written.
core::NtpInterleavedRequest InspectInterleave(
    const NtpWorkerInterleave* x, const uint8_t* payload,
    const core::NtpRequestCheck& check) {
  return x != nullptr ? NtpWorkerInterleave::Inspect(payload, check)
                      : core::NtpInterleavedRequest{};
}
void ApplyInterleave(NtpWorkerInterleave* x, uint8_t* payload,
                     const core::NtpInterleavedRequest& request,
                     NtpTxNote& note) {
  if (x == nullptr) return;
  const NtpWorkerInterleave::Applied a = x->Apply(payload, request);
  note.xleave_slot = a.slot;
  note.interleaved = a.interleaved;
}

}  // namespace

absl::StatusOr<NtpDropIndex> RegisterNtpNames(CounterNames& names) {
  std::array<absl::string_view, core::kNtpDropCount - 1> reasons;
  for (size_t d = 1; d < core::kNtpDropCount; ++d) {
    reasons[d - 1] = core::NtpDropName(static_cast<core::NtpDrop>(d));
  }
  NtpDropIndex index;
  ZG_ASSIGN_OR_RETURN(index.base, names.AddDropReasonList("ntp", reasons));
  return index;
}

HandleResult NtpHandler::Handle(Packet& pkt, const BurstContext& burst) {
  ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  uint8_t* frame = pkt.data();
  uint8_t* payload = frame + p.info.payload_offset;
  const core::NtpRequestCheck check =
      core::ValidateNtpRequest(payload, p.info.payload_len,
                               auth_ != nullptr ? core::NtpMacHandling::kReport
                                                : core::NtpMacHandling::kDrop,
                               nts_ != nullptr ? core::NtpNtsHandling::kReport
                                               : core::NtpNtsHandling::kDrop);
  if (check.drop != core::NtpDrop::kNone) {
    return HandleResult::Drop(ntp_drops_.Of(check.drop));
  }
  const NtpPolicyVerdict verdict =
      policy_ == nullptr ? NtpPolicyVerdict::Answer()
                         : policy_->Check(p.info, check, pkt.rx.tai);
  if (verdict.action == NtpPolicyVerdict::Action::kDrop) {
    return HandleResult::Drop(verdict.drop_reason);
  }
  if (check.trailer.nts_fields != 0) {  // only with nts_ (kReport)
    return HandleNts(pkt, burst, check, verdict);
  }
  // The MAC after the policy's drop and before its KoD, in chrony's order
  // (NCR_ProcessRxUnknown: access and rate-limit drops first, then
  // NAU_CheckRequestAuth, then KoD RATE): a flood the policy drops costs no
  // MAC, and a request with a bad MAC gets no KoD.
  NtpTxNote note;
  if (auth_ != nullptr && check.trailer.mac == core::NtpMacKind::kSymmetric) {
    const NtpWorkerAuth::Verdict v = auth_->Verify(payload, check);
    if (!v.ok) {
      Report(NtpRequestOutcome::Result::kAuthFailed);
      return HandleResult::Drop(v.drop_reason);
    }
    note.macer = v.macer;
    note.key_index = v.key_index;
  }
  uint32_t payload_len = 0;
  switch (verdict.action) {
    case NtpPolicyVerdict::Action::kAnswer: {
      const core::NtpInterleavedRequest xreq =
          InspectInterleave(interleave_.get(), payload, check);
      payload_len = core::WriteNtpReply(payload, check, pkt.rx.tai,
                                        ModelFor(pkt.rx, burst));
      ApplyInterleave(interleave_.get(), payload, xreq, note);
      RaisePoll(payload, verdict.answer_min_poll_log2);
      if (note.macer != nullptr || interleave_ != nullptr) {
        Report(NtpRequestOutcome::Result::kAnswered, note.interleaved,
               check.trailer.mac_key_id);
      }
      break;
    }
    case NtpPolicyVerdict::Action::kKiss:
      payload_len = core::WriteNtpKissOfDeath(payload, check, verdict.kiss_code,
                                              verdict.kiss_min_poll_log2);
      Report(NtpRequestOutcome::Result::kKissed);
      break;
    case NtpPolicyVerdict::Action::kDrop:
      return HandleResult::Drop(verdict.drop_reason);
  }
  if (note.macer != nullptr) {
    // The same key's trailer, no longer than the request's (its MAC had
    // this size, or Verify failed). Zero until signed: a KoD now, a reply
    // in FinaliseTx once T3 is final.
    const uint32_t trailer =
        NtpWorkerAuth::TrailerSize(*note.macer, note.key_index);
    std::memset(payload + payload_len, 0, trailer);
    if (verdict.action == NtpPolicyVerdict::Action::kKiss) {
      auth_->Sign(*note.macer, note.key_index, payload, payload_len);
    }
    payload_len += trailer;
  }
  // The reply's addressing; p.info then describes the reply.
  const uint32_t frame_len = core::PrepareUdpReply(
      frame, p.info, *p.local, static_cast<uint16_t>(payload_len), &p.info);
  if (frame_len == 0) {
    return HandleResult::Drop(frame_drops_.Of(core::FrameDrop::kReplyTooLong));
  }
  pkt.Trim(static_cast<uint16_t>(frame_len));
  const bool offloaded = FinaliseUdpChecksum(pkt.mbuf, p.info, burst.offloads);
  // A Kiss-o'-Death reveals no time: it is complete as it is.
  if (verdict.action == NtpPolicyVerdict::Action::kKiss) {
    pkt.NoteAs<NtpTxNote>() = NtpTxNote{};  // for AfterTx: nothing saved
    return HandleResult::Transmit();
  }
  note.software_checksum = !offloaded;
  pkt.NoteAs<NtpTxNote>() = note;
  return HandleResult::TransmitFinalise();
}

HandleResult NtpHandler::HandleNts(Packet& pkt, const BurstContext& burst,
                                   const core::NtpRequestCheck& check,
                                   const NtpPolicyVerdict& verdict) {
  ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  uint8_t* frame = pkt.data();
  uint8_t* payload = frame + p.info.payload_offset;
  const uint32_t len = p.info.payload_len;
  // As for MACs: the policy's drops first, then the crypto, then its KoD.
  core::NtsRequestState st;
  const NtsWorkerAuth::Verdict v = nts_->Check(payload, len, &st);
  uint32_t payload_len = 0;
  uint16_t slot = 0;
  NtpTxNote note;
  const bool answer = v.action == NtsWorkerAuth::Verdict::Action::kAnswer &&
                      verdict.action == NtpPolicyVerdict::Action::kAnswer;
  switch (v.action) {
    case NtsWorkerAuth::Verdict::Action::kDrop:
      Report(NtpRequestOutcome::Result::kAuthFailed);
      return HandleResult::Drop(v.drop_reason);
    case NtsWorkerAuth::Verdict::Action::kNak:
      Report(NtpRequestOutcome::Result::kAuthFailed);
      payload_len = core::WriteNtsKiss(payload, check, core::kNtpKissNtsNak, 0,
                                       st.fields);
      break;
    case NtsWorkerAuth::Verdict::Action::kAnswer:
      if (!answer) {  // the policy's KoD
        payload_len = core::WriteNtsKiss(payload, check, verdict.kiss_code,
                                         verdict.kiss_min_poll_log2, st.fields);
        Report(NtpRequestOutcome::Result::kKissed);
        break;
      }
      {
        const core::NtpInterleavedRequest xreq =
            InspectInterleave(interleave_.get(), payload, check);
        core::WriteNtpReply(payload, check, pkt.rx.tai,
                            ModelFor(pkt.rx, burst));
        ApplyInterleave(interleave_.get(), payload, xreq, note);
      }
      Report(NtpRequestOutcome::Result::kAnswered, note.interleaved);
      RaisePoll(payload, verdict.answer_min_poll_log2);
      payload_len = nts_->WriteReply(payload, len, st, &slot);
      if (payload_len == 0) return HandleResult::Drop(nts_->reply_too_long());
      break;
  }
  const uint32_t frame_len = core::PrepareUdpReply(
      frame, p.info, *p.local, static_cast<uint16_t>(payload_len), &p.info);
  if (frame_len == 0) {
    return HandleResult::Drop(frame_drops_.Of(core::FrameDrop::kReplyTooLong));
  }
  pkt.Trim(static_cast<uint16_t>(frame_len));
  // A KoD is complete now. A reply is sealed in FinaliseTx: a software
  // checksum waits for that, an offloaded one is set up now.
  if (!answer || burst.offloads.udp_checksum) {
    FinaliseUdpChecksum(pkt.mbuf, p.info, burst.offloads);
  }
  if (!answer) {
    pkt.NoteAs<NtpTxNote>() = NtpTxNote{};  // for AfterTx: nothing saved
    return HandleResult::Transmit();
  }
  note.nts = true;
  note.key_index = slot;
  note.software_checksum = !burst.offloads.udp_checksum;
  pkt.NoteAs<NtpTxNote>() = note;
  return HandleResult::TransmitFinalise();
}

void NtpHandler::FinaliseNts(Packet& pkt, const TxStamp& tx, uint16_t slot,
                             bool software_checksum, bool interleaved,
                             uint32_t xleave_slot) {
  const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  uint8_t* payload = pkt.data() + p.info.payload_offset;
  // The S2C key schedule was prepared in Handle: T3, the seal, and nothing
  // else until tx_burst but the other replies of the batch (and the
  // software checksum, which the seal's bytes need).
  const uint64_t now = core::ReadTsc();
  // Scheduled (send-on-timestamp): the launch time is exact, seal or not;
  // else --ntp_tx_stamp: plus the estimated part of tx_burst still to come.
  const core::TaiNs t3 =
      tx.scheduled ? tx.tai : tx.tsc_model->RawToTai(now + tx.kick_ticks);
  if (!interleaved) {  // an interleaved reply's T3 is final
    core::StampNtpTransmit(payload, t3, *tx.tsc_model);
    if (interleave_ != nullptr) NtpWorkerInterleave::TagTransmit(payload);
  }
  if (interleave_ != nullptr) KeepTx(xleave_slot, t3, tx);
  nts_->Seal(payload, slot);
  last_mac_tsc_ = now;
  if (software_checksum) {
    FinaliseUdpChecksum(pkt.mbuf, p.info, TxOffloads{});
  }
}

void NtpHandler::FinaliseTx(Packet& pkt, const TxStamp& tx) {
  const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  const NtpTxNote note = pkt.NoteAs<NtpTxNote>();
  if (note.nts) {
    FinaliseNts(pkt, tx, note.key_index, note.software_checksum,
                note.interleaved, note.xleave_slot);
    return;
  }
  uint8_t* frame = pkt.data();
  uint8_t* payload = frame + p.info.payload_offset;
  uint8_t* t3 = payload + core::kNtpOffsetTransmitTime;
  // T3, then (authenticated) the MAC trailer right after the header: one
  // contiguous span for the checksum update.
  const bool mac = note.macer != nullptr;
  const uint32_t span =
      8 + (mac ? NtpWorkerAuth::TrailerSize(*note.macer, note.key_index) : 0);
  uint8_t before[8 + 4 + core::kNtpMaxDigestSize];
  std::memcpy(before, t3, span);
  // --ntp_tx_stamp: the batch's stamp plus the estimate of when the batch
  // leaves (0 for "before": tx.tai itself); scheduled: the launch time.
  core::TaiNs tx_time =
      tx.scheduled || tx.leave_ticks == 0
          ? tx.tai
          : tx.tsc_model->RawToTai(tx.tsc_ticks + tx.leave_ticks);
  if (!tx.scheduled && (mac || last_mac_tsc_ > tx.tsc_ticks)) {
    // The batch's stamp was read before any reply was MACed; each MAC takes
    // ~0.1-0.2 us. An authenticated reply, and any reply after one in this
    // batch (a MAC ran since the batch's stamp), reads the TSC again, so
    // its T3 lags its departure only by the MACs of the replies after it:
    // T3 is early (by those MACs; with --ntp_tx_stamp=before also by
    // tx_burst), never late, and the lag shows up as path delay in the
    // client's measurement (within its error bound), not as an offset the
    // bound does not cover. Batches without MACs keep the one stamp.
    const uint64_t now = core::ReadTsc();
    tx_time = tx.tsc_model->RawToTai(now + tx.kick_ticks);
    if (mac) last_mac_tsc_ = now;
  }
  if (!note.interleaved) {  // an interleaved reply's T3 is final
    core::StampNtpTransmit(payload, tx_time, *tx.tsc_model);
    if (interleave_ != nullptr) NtpWorkerInterleave::TagTransmit(payload);
  }
  if (interleave_ != nullptr) KeepTx(note.xleave_slot, tx_time, tx);
  if (mac) {
    auth_->Sign(*note.macer, note.key_index, payload, core::kNtpHeaderSize);
  }
  if (note.software_checksum) {
    core::UpdateUdpChecksum(frame, p.info, core::kNtpOffsetTransmitTime, before,
                            t3, span);
  }
}

void NtpHandler::KeepTx(uint32_t slot, core::TaiNs t3, const TxStamp& tx) {
  if (!tx.scheduled) {
    interleave_->BeforeTx(slot, t3, *tx.tsc_model);
  } else if (slot != core::kNtpInterleaveNoSlot) {
    // The launch time, exact (an interleaved reply's own, not its T3).
    interleave_->SetExactTx(slot,
                            core::UtcToNtp(tx.tsc_model->TaiToUtc(tx.tai)));
  }
}

void NtpHandler::AfterTx(Packet& pkt, const TxStamp& after, bool sent) {
  const NtpTxNote note = pkt.NoteAs<NtpTxNote>();
  if (note.xleave_slot == core::kNtpInterleaveNoSlot) return;
  interleave_->AfterTx(note.xleave_slot, after, sent);
}

}  // namespace zg::dataplane
