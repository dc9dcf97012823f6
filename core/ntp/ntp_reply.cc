// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_reply.h"

#include <cstring>

namespace zg::core {
namespace {

int8_t ClampPoll(int8_t poll_log2) {
  if (poll_log2 < kNtpReplyMinPollLog2) return kNtpReplyMinPollLog2;
  if (poll_log2 > kNtpReplyMaxPollLog2) return kNtpReplyMaxPollLog2;
  return poll_log2;
}

NtpTimestamp TaiToNtp(TaiNs t, const ClockModel& model) {
  return UtcToNtp(model.TaiToUtc(t));
}

// RFC 5905: a zero reference timestamp means "never synchronised".
NtpTimestamp ReferenceTimestamp(const ClockModel& model) {
  if (model.reference_time.value == 0) return NtpTimestamp{};
  return TaiToNtp(model.reference_time, model);
}

}  // namespace

uint32_t WriteNtpReply(uint8_t* payload, const NtpRequestCheck& check,
                       TaiNs rx_time, const ClockModel& model) {
  const int8_t poll = ClampPoll(static_cast<int8_t>(payload[2]));
  const bool synced = model.IsSynchronized(rx_time) && model.stratum >= 1 &&
                      model.stratum < kNtpMaxStratum;
  const int64_t bound_ns = model.ErrorBoundNs(rx_time);
  const NtpLeapIndicator li =
      synced ? model.NtpLeapAt(rx_time) : NtpLeapIndicator::kUnsynchronized;
  const NtpTimestamp rx_ntp = TaiToNtp(rx_time, model);

  // T1: the client's transmit timestamp becomes our origin timestamp.
  std::memcpy(payload + kNtpOffsetOriginTime, payload + kNtpOffsetTransmitTime,
              8);
  payload[0] = NtpLiVnMode(li, check.version, NtpMode::kServer);
  payload[1] = synced ? model.stratum : kNtpUnsynchronizedWireStratum;
  payload[2] = static_cast<uint8_t>(poll);
  payload[3] = static_cast<uint8_t>(model.precision_log2);
  StoreBe32(payload + kNtpOffsetRootDelay,
            NtpShortCeilFromNanos(model.root_delay_ns).ToU32());
  StoreBe32(payload + kNtpOffsetRootDispersion,
            NtpShortCeilFromNanos(synced || bound_ns > kNtpMaxDispersionNs
                                      ? bound_ns
                                      : kNtpMaxDispersionNs)
                .ToU32());
  StoreBe32(payload + kNtpOffsetReferenceId,
            synced ? model.reference_id : kNtpUnsynchronizedRefId);
  StoreNtpTimestamp(payload + kNtpOffsetReferenceTime,
                    ReferenceTimestamp(model));
  StoreNtpTimestamp(payload + kNtpOffsetReceiveTime, rx_ntp);
  StoreNtpTimestamp(payload + kNtpOffsetTransmitTime, rx_ntp);
  return kNtpHeaderSize;
}

NtpDrop BuildNtpReply(uint8_t* payload, uint32_t len, TaiNs rx_time,
                      const ClockModel& model, uint32_t* reply_len) {
  const NtpRequestCheck check = ValidateNtpRequest(payload, len);
  if (check.drop != NtpDrop::kNone) {
    *reply_len = 0;
    return check.drop;
  }
  *reply_len = WriteNtpReply(payload, check, rx_time, model);
  return NtpDrop::kNone;
}

void StampNtpTransmit(uint8_t* payload, TaiNs tx_time,
                      const ClockModel& model) {
  StoreNtpTimestamp(payload + kNtpOffsetTransmitTime, TaiToNtp(tx_time, model));
}

NtpReplyPacket BuildNtpReply(std::span<const uint8_t> request, TaiNs rx_time,
                             TaiNs tx_time, const ClockModel& model) {
  NtpReplyPacket reply;
  const uint32_t len = request.size() > UINT32_MAX
                           ? UINT32_MAX
                           : static_cast<uint32_t>(request.size());
  const NtpRequestCheck check = ValidateNtpRequest(request.data(), len);
  reply.drop = check.drop;
  if (check.drop != NtpDrop::kNone) return reply;
  std::memcpy(reply.bytes.data(), request.data(), kNtpHeaderSize);
  reply.size = WriteNtpReply(reply.bytes.data(), check, rx_time, model);
  StampNtpTransmit(reply.bytes.data(), tx_time, model);
  return reply;
}

}  // namespace zg::core
