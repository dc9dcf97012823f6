#include "dataplane/ntp/ntp_handler.h"

#include <array>
#include <cstring>

#include "core/base/status_macros.h"
#include "core/net/frame_build.h"
#include "core/ntp/ntp_reply.h"
#include "dataplane/port/tx_checksum.h"

namespace zg::dataplane {
namespace {

// Written by Handle, read by FinaliseTx of the same frame.
struct NtpTxNote {
  bool software_checksum = false;  // UpdateUdpChecksum after writing T3
};

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
      core::ValidateNtpRequest(payload, p.info.payload_len);
  if (check.drop != core::NtpDrop::kNone) {
    return HandleResult::Drop(ntp_drops_.Of(check.drop));
  }
  const NtpPolicyVerdict verdict =
      policy_ == nullptr ? NtpPolicyVerdict::Answer()
                         : policy_->Check(p.info, check, pkt.rx.tai);
  uint32_t payload_len = 0;
  switch (verdict.action) {
    case NtpPolicyVerdict::Action::kAnswer:
      payload_len = core::WriteNtpReply(payload, check, pkt.rx.tai,
                                        ModelFor(pkt.rx, burst));
      RaisePoll(payload, verdict.answer_min_poll_log2);
      break;
    case NtpPolicyVerdict::Action::kKiss:
      payload_len = core::WriteNtpKissOfDeath(payload, check, verdict.kiss_code,
                                              verdict.kiss_min_poll_log2);
      break;
    case NtpPolicyVerdict::Action::kDrop:
      return HandleResult::Drop(verdict.drop_reason);
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
    return HandleResult::Transmit();
  }
  pkt.NoteAs<NtpTxNote>() = {!offloaded};
  return HandleResult::TransmitFinalise();
}

void NtpHandler::FinaliseTx(Packet& pkt, const TxStamp& tx) {
  const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
  uint8_t* frame = pkt.data();
  uint8_t* payload = frame + p.info.payload_offset;
  uint8_t* t3 = payload + core::kNtpOffsetTransmitTime;
  uint8_t before[8];
  std::memcpy(before, t3, sizeof(before));
  core::StampNtpTransmit(payload, tx.tai, *tx.tsc_model);
  if (pkt.NoteAs<NtpTxNote>().software_checksum) {
    core::UpdateUdpChecksum(frame, p.info, core::kNtpOffsetTransmitTime, before,
                            t3, sizeof(before));
  }
}

}  // namespace zg::dataplane
