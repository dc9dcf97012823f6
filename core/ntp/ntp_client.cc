// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client.h"

#include <cstring>

namespace zg::core {

void BuildNtpClientRequest(uint8_t* out, uint8_t version, int8_t poll_log2,
                           NtpTimestamp transmit) {
  std::memset(out, 0, kNtpHeaderSize);
  out[0] = NtpLiVnMode(NtpLeapIndicator::kNoWarning, version, NtpMode::kClient);
  out[2] = static_cast<uint8_t>(poll_log2);
  StoreNtpTimestamp(out + kNtpOffsetTransmitTime, transmit);
}

const char* NtpReplyStatusName(NtpReplyStatus status) {
  switch (status) {
    case NtpReplyStatus::kOk:
      return "ok";
    case NtpReplyStatus::kTooShort:
      return "too_short";
    case NtpReplyStatus::kBadVersion:
      return "bad_version";
    case NtpReplyStatus::kNotServerMode:
      return "not_server_mode";
    case NtpReplyStatus::kOriginMismatch:
      return "origin_mismatch";
    case NtpReplyStatus::kKissOfDeath:
      return "kiss_of_death";
    case NtpReplyStatus::kZeroTimestamp:
      return "zero_timestamp";
    case NtpReplyStatus::kUnsynchronized:
      return "unsynchronized";
    case NtpReplyStatus::kClockOutOfRange:
      return "clock_out_of_range";
    case NtpReplyStatus::kCount:
      break;
  }
  return "unknown";
}

namespace {

bool IsActionableKiss(NtpKiss kiss) {
  return kiss == NtpKiss::kRate || kiss == NtpKiss::kDeny ||
         kiss == NtpKiss::kRestrict || kiss == NtpKiss::kNtsNak;
}

// Offsets and delay. Every timestamp lies within 2^31 s of t4, so each
// difference is below 2^32 s (4.3e18 ns) and the sums below 6.5e18 ns: no
// int64 overflow.
void ComputeSample(NtpClientSample* s) {
  const NtpHeader& h = s->header;
  s->t1 = NtpToUtc(h.origin_time, s->t4);
  s->t2 = NtpToUtc(h.receive_time, s->t4);
  s->t3 = NtpToUtc(h.transmit_time, s->t4);
  s->offset_ns = ((s->t2 - s->t1) + (s->t3 - s->t4)) / 2;
  s->delay_ns = (s->t4 - s->t1) - (s->t3 - s->t2);
}

}  // namespace

NtpReplyStatus ParseNtpServerReply(const uint8_t* payload, uint32_t len,
                                   NtpTimestamp request_transmit, UtcNs t4,
                                   NtpClientSample* out) {
  *out = NtpClientSample{};
  if (!ParseNtpHeader(payload, len, &out->header)) {
    return NtpReplyStatus::kTooShort;
  }
  const NtpHeader& h = out->header;
  out->kiss = ClassifyNtpKiss(h);
  if (h.version < kNtpMinVersion || h.version > kNtpVersion) {
    return NtpReplyStatus::kBadVersion;
  }
  if (h.mode != NtpMode::kServer) return NtpReplyStatus::kNotServerMode;
  if (h.origin_time != request_transmit) {
    return NtpReplyStatus::kOriginMismatch;
  }
  if (IsActionableKiss(out->kiss)) return NtpReplyStatus::kKissOfDeath;
  if (h.receive_time.IsZero() || h.transmit_time.IsZero()) {
    return NtpReplyStatus::kZeroTimestamp;
  }
  if (t4 < kNtpClientMinPivot || t4 > kNtpClientMaxPivot) {
    return NtpReplyStatus::kClockOutOfRange;
  }
  out->t4 = t4;
  ComputeSample(out);
  if (h.leap == NtpLeapIndicator::kUnsynchronized || h.stratum == 0 ||
      h.stratum >= kNtpMaxStratum) {
    return NtpReplyStatus::kUnsynchronized;
  }
  return NtpReplyStatus::kOk;
}

}  // namespace zg::core
