// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_originate.h"

#include <cstring>

#include "core/ptp/ptp_fields.h"

namespace zg::core {
namespace {

PtpHeader BaseHeader(const PtpReplyConfig& port, PtpMessageType type) {
  PtpHeader h;
  h.major_sdo_id = static_cast<uint8_t>((port.sdo_id >> 8) & 0x0F);
  h.minor_sdo_id = static_cast<uint8_t>(port.sdo_id);
  h.minor_version = port.minor_version;
  h.domain_number = port.domain_number;
  h.source_port_identity = port.port_identity;
  h.control_field = PtpControlFieldFor(type);
  return h;
}

template <size_t N>
size_t Emit(const std::array<uint8_t, N>& tmpl, std::span<uint8_t> out,
            uint16_t sequence_id, int8_t log_interval, bool unicast,
            PtpTimestamp t) {
  if (out.size() < N || !PtpTimestampIsValid(t)) return 0;
  uint8_t* p = out.data();
  std::memcpy(p, tmpl.data(), N);
  constexpr uint8_t kUnicastOctet0 = 0x04;
  if (unicast) p[kPtpOffsetFlags] |= kUnicastOctet0;
  StoreBe16(p + kPtpOffsetSequenceId, sequence_id);
  p[kPtpOffsetLogInterval] = static_cast<uint8_t>(log_interval);
  StorePtpTimestamp(p + kPtpOffsetBodyTimestamp, t);
  return N;
}

}  // namespace

bool PtpOriginTemplates::Build(const PtpReplyConfig& port,
                               const PtpGrandmasterView& gm, bool two_step) {
  two_step_ = two_step;
  PtpMessage m;
  m.header = BaseHeader(port, PtpMessageType::kAnnounce);
  m.header.flags = PtpAnnounceFlags(gm);
  m.body = MakePtpAnnounceBody(gm, PtpTimestamp{});
  if (SerializePtpMessage(m, announce_) != kPtpAnnounceLength) return false;

  m.header = BaseHeader(port, PtpMessageType::kSync);
  m.header.flags.Set(PtpFlag::kTwoStep, two_step);
  m.body = PtpSync{};
  if (SerializePtpMessage(m, sync_) != kPtpSyncLength) return false;

  m.header = BaseHeader(port, PtpMessageType::kFollowUp);
  m.body = PtpFollowUp{};
  return SerializePtpMessage(m, follow_up_) == kPtpFollowUpLength;
}

size_t PtpOriginTemplates::WriteAnnounce(std::span<uint8_t> out,
                                         uint16_t sequence_id,
                                         int8_t log_interval, bool unicast,
                                         PtpTimestamp origin) const {
  return Emit(announce_, out, sequence_id, log_interval, unicast, origin);
}

size_t PtpOriginTemplates::WriteSync(std::span<uint8_t> out,
                                     uint16_t sequence_id, int8_t log_interval,
                                     bool unicast, PtpTimestamp origin) const {
  return Emit(sync_, out, sequence_id, log_interval, unicast, origin);
}

size_t PtpOriginTemplates::WriteFollowUp(std::span<uint8_t> out,
                                         uint16_t sequence_id,
                                         int8_t log_interval, bool unicast,
                                         PtpTimestamp precise_origin) const {
  return Emit(follow_up_, out, sequence_id, log_interval, unicast,
              precise_origin);
}

bool PtpSetBodyTimestamp(std::span<uint8_t> msg, PtpTimestamp t) {
  if (msg.size() < kPtpOffsetBodyTimestamp + kPtpTimestampLength ||
      !PtpTimestampIsValid(t)) {
    return false;
  }
  StorePtpTimestamp(msg.data() + kPtpOffsetBodyTimestamp, t);
  return true;
}

size_t WritePtpPdelayRespFollowUp(std::span<uint8_t> out,
                                  const PtpReplyConfig& port,
                                  const PtpHeader& pdelay_req,
                                  PtpTimestamp response_origin,
                                  PtpCorrection request_correction) {
  PtpMessage m;
  m.header = BaseHeader(port, PtpMessageType::kPdelayRespFollowUp);
  m.header.major_sdo_id = pdelay_req.major_sdo_id;
  m.header.minor_sdo_id = pdelay_req.minor_sdo_id;
  m.header.domain_number = pdelay_req.domain_number;
  m.header.flags.Set(PtpFlag::kUnicast,
                     pdelay_req.flags.Has(PtpFlag::kUnicast));
  m.header.correction = request_correction;
  m.header.sequence_id = pdelay_req.sequence_id;
  m.header.log_message_interval = kPtpLogIntervalUnspecified;
  m.body =
      PtpPdelayRespFollowUp{response_origin, pdelay_req.source_port_identity};
  return SerializePtpMessage(m, out);
}

}  // namespace zg::core
