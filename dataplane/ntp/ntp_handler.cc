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

using NtpTxNote = NtpHandler::TxNote;
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

uint8_t* PayloadOf(Packet& pkt) {
  return pkt.data() + pkt.ParseAs<ParsedFrame>().info.payload_offset;
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

void NtpHandler::BeginBurst(std::span<Packet* const> frames,
                            const BurstContext& burst) {
  Prepare(frames, burst, /*prefetched=*/prefetch_);
  next_request_ = 0;
}

HandleResult NtpHandler::Handle(Packet& pkt, const BurstContext& burst) {
  if (next_request_ < n_requests_ && requests_[next_request_].pkt == &pkt) {
    return requests_[next_request_++].result;
  }
  // Not seen by BeginBurst: this frame alone, the same way (its note holds
  // no hint: the policy hashes the client itself).
  Packet* const one[] = {&pkt};
  Prepare(one, burst, /*prefetched=*/false);
  n_requests_ = 0;
  return requests_[0].result;
}

// Each step over every request before the next: the policy's lookups were
// prefetched before the validation, and the MACs and NTS crypto of the
// burst run interleaved.
void NtpHandler::Prepare(std::span<Packet* const> frames,
                         const BurstContext& burst, bool prefetched) {
  const size_t n = frames.size();
  n_requests_ = n;
  const auto macs = auth_ != nullptr ? core::NtpMacHandling::kReport
                                     : core::NtpMacHandling::kDrop;
  const auto nts = nts_ != nullptr ? core::NtpNtsHandling::kReport
                                   : core::NtpNtsHandling::kDrop;
  for (size_t i = 0; i < n; ++i) {
    Request& r = requests_[i];
    r.pkt = frames[i];
    // Prefetch's hint, before the note is written.
    r.hint = prefetched ? r.pkt->NoteAs<NtpPolicyHint>() : NtpPolicyHint{};
    const core::FrameInfo& info = r.pkt->ParseAs<ParsedFrame>().info;
    r.check = core::ValidateNtpRequest(r.pkt->data() + info.payload_offset,
                                       info.payload_len, macs, nts);
    r.note = NtpTxNote{};
    r.done = r.check.drop != core::NtpDrop::kNone;
    if (r.done) r.result = HandleResult::Drop(ntp_drops_.Of(r.check.drop));
  }
  for (size_t i = 0; i < n; ++i) {
    Request& r = requests_[i];
    if (r.done) continue;
    r.verdict = NtpPolicyVerdict::Answer();
    if (policy_ == nullptr) continue;
    r.verdict = policy_->CheckHinted(r.pkt->ParseAs<ParsedFrame>().info,
                                     r.check, r.pkt->rx.tai, r.hint);
    if (r.verdict.action == NtpPolicyVerdict::Action::kDrop) {
      r.done = true;
      r.result = HandleResult::Drop(r.verdict.drop_reason);
    }
  }
  // The MACs and NTS after the policy's drops and before its KoD, in
  // chrony's order (NCR_ProcessRxUnknown: access and rate-limit drops
  // first, then NAU_CheckRequestAuth, then KoD RATE): a flood the policy
  // drops costs no crypto, and a request with a bad MAC gets no KoD.
  if (auth_ != nullptr) VerifyMacs(n);
  if (nts_ != nullptr) CheckNts(n);
  for (size_t i = 0; i < n; ++i) {
    Request& r = requests_[i];
    if (r.done) continue;
    r.result = r.check.trailer.nts_fields != 0
                   ? ReplyNts(r, nts_states_[i], burst)
                   : Reply(r, burst);
  }
  if (nts_ != nullptr) nts_->FinishReplies();
}

void NtpHandler::VerifyMacs(size_t n) {
  std::array<core::NtpMacVerifyOp, kBurstSize> ops;
  std::array<Request*, kBurstSize> of;
  std::array<NtpWorkerAuth::Verdict, kBurstSize> v;
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    Request& r = requests_[i];
    if (r.done || r.check.trailer.nts_fields != 0 ||
        r.check.trailer.mac != core::NtpMacKind::kSymmetric) {
      continue;
    }
    ops[m] = {PayloadOf(*r.pkt), r.check.trailer, {}};
    of[m++] = &r;
  }
  if (m == 0) return;
  auth_->VerifyBatch({ops.data(), m}, v.data());
  for (size_t j = 0; j < m; ++j) {
    Request& r = *of[j];
    if (!v[j].ok) {
      r.done = true;
      r.result = HandleResult::Drop(v[j].drop_reason);
      Report(r, NtpRequestOutcome::Result::kAuthFailed);
      continue;
    }
    r.note.macer = v[j].macer;
    r.note.key_index = v[j].key_index;
  }
}

void NtpHandler::CheckNts(size_t n) {
  std::array<core::NtsCheckOp, kBurstSize> ops;
  std::array<Request*, kBurstSize> of;
  std::array<NtsWorkerAuth::Verdict, kBurstSize> v;
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    Request& r = requests_[i];
    if (r.done || r.check.trailer.nts_fields == 0) continue;
    const core::FrameInfo& info = r.pkt->ParseAs<ParsedFrame>().info;
    ops[m] = {PayloadOf(*r.pkt), info.payload_len, &nts_states_[i]};
    of[m++] = &r;
  }
  if (m == 0) return;
  nts_->CheckBatch({ops.data(), m}, v.data());
  for (size_t j = 0; j < m; ++j) {
    Request& r = *of[j];
    r.nts = v[j];
    if (v[j].action == NtsWorkerAuth::Verdict::Action::kDrop) {
      r.done = true;
      r.result = HandleResult::Drop(v[j].drop_reason);
      Report(r, NtpRequestOutcome::Result::kAuthFailed);
    }
  }
}

HandleResult NtpHandler::Reply(Request& r, const BurstContext& burst) {
  Packet& pkt = *r.pkt;
  ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  uint8_t* frame = pkt.data();
  uint8_t* payload = frame + p.info.payload_offset;
  const NtpPolicyVerdict& verdict = r.verdict;
  NtpTxNote note = r.note;
  uint32_t payload_len = 0;
  switch (verdict.action) {
    case NtpPolicyVerdict::Action::kAnswer: {
      const core::NtpInterleavedRequest xreq =
          InspectInterleave(interleave_.get(), payload, r.check);
      payload_len = core::WriteNtpReply(payload, r.check, pkt.rx.tai,
                                        ModelFor(pkt.rx, burst));
      ApplyInterleave(interleave_.get(), payload, xreq, note);
      RaisePoll(payload, verdict.answer_min_poll_log2);
      if (note.macer != nullptr || interleave_ != nullptr) {
        Report(r, NtpRequestOutcome::Result::kAnswered, note.interleaved,
               r.check.trailer.mac_key_id);
      }
      break;
    }
    case NtpPolicyVerdict::Action::kKiss:
      payload_len = core::WriteNtpKissOfDeath(
          payload, r.check, verdict.kiss_code, verdict.kiss_min_poll_log2);
      Report(r, NtpRequestOutcome::Result::kKissed);
      break;
    case NtpPolicyVerdict::Action::kDrop:
      return HandleResult::Drop(verdict.drop_reason);
  }
  if (note.macer != nullptr) {
    // The same key's trailer, no longer than the request's (its MAC had
    // this size, or Verify failed). Zero until signed: a KoD now, a reply
    // after T3 (FinaliseTx, EndFinalise).
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

HandleResult NtpHandler::ReplyNts(Request& r, core::NtsRequestState& st,
                                  const BurstContext& burst) {
  Packet& pkt = *r.pkt;
  ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  uint8_t* frame = pkt.data();
  uint8_t* payload = frame + p.info.payload_offset;
  const uint32_t len = p.info.payload_len;
  const NtpPolicyVerdict& verdict = r.verdict;
  uint32_t payload_len = 0;
  uint16_t slot = 0;
  NtpTxNote note;
  const bool answer = r.nts.action == NtsWorkerAuth::Verdict::Action::kAnswer &&
                      verdict.action == NtpPolicyVerdict::Action::kAnswer;
  switch (r.nts.action) {
    case NtsWorkerAuth::Verdict::Action::kDrop:
      return HandleResult::Drop(r.nts.drop_reason);  // CheckNts reported it
    case NtsWorkerAuth::Verdict::Action::kNak:
      Report(r, NtpRequestOutcome::Result::kAuthFailed);
      payload_len = core::WriteNtsKiss(payload, r.check, core::kNtpKissNtsNak,
                                       0, st.fields);
      break;
    case NtsWorkerAuth::Verdict::Action::kAnswer:
      if (!answer) {  // the policy's KoD
        payload_len = core::WriteNtsKiss(payload, r.check, verdict.kiss_code,
                                         verdict.kiss_min_poll_log2, st.fields);
        Report(r, NtpRequestOutcome::Result::kKissed);
        break;
      }
      {
        const core::NtpInterleavedRequest xreq =
            InspectInterleave(interleave_.get(), payload, r.check);
        core::WriteNtpReply(payload, r.check, pkt.rx.tai,
                            ModelFor(pkt.rx, burst));
        ApplyInterleave(interleave_.get(), payload, xreq, note);
      }
      Report(r, NtpRequestOutcome::Result::kAnswered, note.interleaved);
      RaisePoll(payload, verdict.answer_min_poll_log2);
      payload_len = nts_->QueueReply(payload, len, st, &slot);
      if (payload_len == 0) return HandleResult::Drop(nts_->reply_too_long());
      break;
  }
  const uint32_t frame_len = core::PrepareUdpReply(
      frame, p.info, *p.local, static_cast<uint16_t>(payload_len), &p.info);
  if (frame_len == 0) {
    return HandleResult::Drop(frame_drops_.Of(core::FrameDrop::kReplyTooLong));
  }
  pkt.Trim(static_cast<uint16_t>(frame_len));
  // A KoD is complete now. A reply is sealed after T3: a software checksum
  // waits for that, an offloaded one is set up now.
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

void NtpHandler::FinaliseNts(Packet& pkt, const TxStamp& tx,
                             const NtpTxNote& note) {
  uint8_t* payload = PayloadOf(pkt);
  // The S2C key schedule was prepared in BeginBurst: T3 now, the seal with
  // the group's in EndFinalise, and nothing else until tx_burst but the
  // other replies of the batch (and the software checksum, which the
  // seal's bytes need).
  const uint64_t now = core::ReadTsc();
  // Scheduled (send-on-timestamp): the launch time is exact, seal or not;
  // else --ntp_tx_stamp: plus the estimated part of tx_burst still to come.
  const core::TaiNs t3 =
      tx.scheduled ? tx.tai : tx.tsc_model->RawToTai(now + tx.kick_ticks);
  if (!note.interleaved) {  // an interleaved reply's T3 is final
    core::StampNtpTransmit(payload, t3, *tx.tsc_model);
    if (interleave_ != nullptr) NtpWorkerInterleave::TagTransmit(payload);
  }
  if (interleave_ != nullptr) KeepTx(note.xleave_slot, t3, tx);
  last_mac_tsc_ = now;  // later replies of the batch read the TSC again
  nts_->QueueSeal(payload, note.key_index);
  nts_queued_ = true;
  if (note.software_checksum) nts_checksums_[n_nts_checksums_++] = &pkt;
}

void NtpHandler::FinaliseTx(Packet& pkt, const TxStamp& tx) {
  const NtpTxNote note = pkt.NoteAs<NtpTxNote>();
  if (note.nts) {
    FinaliseNts(pkt, tx, note);
    return;
  }
  const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
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
    // The batch's stamp was read before MACs or seals ran (a group's take
    // tens of ns each). An authenticated reply, and any reply after MACs
    // ran in this batch, reads the TSC again, so its T3 lags its departure
    // only by the MACs and seals after it: T3 is early (by those; with
    // --ntp_tx_stamp=before also by tx_burst), never late, and the lag
    // shows up as path delay in the client's measurement (within its error
    // bound), not as an offset the bound does not cover. Batches without
    // MACs keep the one stamp.
    const uint64_t now = core::ReadTsc();
    tx_time = tx.tsc_model->RawToTai(now + tx.kick_ticks);
    if (mac) last_mac_tsc_ = now;
  }
  if (!note.interleaved) {  // an interleaved reply's T3 is final
    core::StampNtpTransmit(payload, tx_time, *tx.tsc_model);
    if (interleave_ != nullptr) NtpWorkerInterleave::TagTransmit(payload);
  }
  if (interleave_ != nullptr) KeepTx(note.xleave_slot, tx_time, tx);
  if (mac) {  // signed with the group's in EndFinalise, then the checksum
    if (n_mac_seals_ == mac_seals_.size()) EndFinalise();
    MacSeal& m = mac_seals_[n_mac_seals_++];
    m.pkt = &pkt;
    m.macer = note.macer;
    m.op = {note.key_index, payload, core::kNtpHeaderSize, 0};
    m.software_checksum = note.software_checksum;
    m.span = span;
    std::memcpy(m.before, before, span);
    return;
  }
  if (note.software_checksum) {
    core::UpdateUdpChecksum(frame, p.info, core::kNtpOffsetTransmitTime, before,
                            t3, span);
  }
}

void NtpHandler::EndFinalise() {
  if (n_mac_seals_ == 0 && !nts_queued_) return;
  // The MACs, one batch per macer (one per burst, unless a reload swapped
  // it), then the checksums over T3 and the trailer.
  for (size_t i = 0; i < n_mac_seals_;) {
    const core::NtpMacer* macer = mac_seals_[i].macer;
    std::array<core::NtpMacSignOp, kBurstSize> ops;
    size_t m = 0;
    const size_t first = i;
    for (; i < n_mac_seals_ && mac_seals_[i].macer == macer; ++i) {
      ops[m++] = mac_seals_[i].op;
    }
    auth_->SignBatch(*macer, {ops.data(), m});
    for (size_t j = 0; j < m; ++j) {
      MacSeal& s = mac_seals_[first + j];
      if (!s.software_checksum) continue;
      const ParsedFrame& p = s.pkt->ParseAs<ParsedFrame>();
      uint8_t* payload = PayloadOf(*s.pkt);
      core::UpdateUdpChecksum(s.pkt->data(), p.info,
                              core::kNtpOffsetTransmitTime, s.before,
                              payload + core::kNtpOffsetTransmitTime, s.span);
    }
  }
  n_mac_seals_ = 0;
  if (nts_queued_) {
    nts_->SealQueued();
    for (size_t i = 0; i < n_nts_checksums_; ++i) {
      Packet& pkt = *nts_checksums_[i];
      FinaliseUdpChecksum(pkt.mbuf, pkt.ParseAs<ParsedFrame>().info,
                          TxOffloads{});
    }
    n_nts_checksums_ = 0;
    nts_queued_ = false;
  }
  last_mac_tsc_ = core::ReadTsc();
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
