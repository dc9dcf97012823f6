// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_wire.h"

#include <algorithm>
#include <cstring>

#include "core/ptp/ptp_fields.h"
#include "core/ptp/ptp_tlv.h"

namespace zg::core {
namespace {

// Offsets in the common header (Table 35).
constexpr size_t kOffType = 0;
constexpr size_t kOffVersion = 1;
constexpr size_t kOffLength = 2;
constexpr size_t kOffDomain = 4;
constexpr size_t kOffMinorSdoId = 5;
constexpr size_t kOffFlags = 6;
constexpr size_t kOffCorrection = 8;
constexpr size_t kOffTypeSpecific = 16;
constexpr size_t kOffSourcePort = 20;
constexpr size_t kOffSequenceId = 30;
constexpr size_t kOffControl = 32;
constexpr size_t kOffLogInterval = 33;
constexpr size_t kOffBody = kPtpHeaderLength;
// Offset of the port identity that follows the body timestamp.
constexpr size_t kOffBodyPort = kOffBody + kPtpTimestampLength;

constexpr uint8_t kVersionPtp = 2;
// unicastFlag and twoStepFlag as bits of flagField octet 0 (the high byte).
constexpr uint8_t kUnicastOctet0 =
    static_cast<uint16_t>(PtpFlag::kUnicast) >> 8;
constexpr uint8_t kTwoStepOctet0 =
    static_cast<uint16_t>(PtpFlag::kTwoStep) >> 8;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

void WriteHeader(const PtpHeader& h, PtpMessageType type, size_t length,
                 uint8_t* p) {
  p[kOffType] =
      static_cast<uint8_t>((h.major_sdo_id << 4) | static_cast<uint8_t>(type));
  p[kOffVersion] = static_cast<uint8_t>((h.minor_version << 4) | kVersionPtp);
  StoreBe16(p + kOffLength, static_cast<uint16_t>(length));
  p[kOffDomain] = h.domain_number;
  p[kOffMinorSdoId] = h.minor_sdo_id;
  StoreBe16(p + kOffFlags, h.flags.bits);
  StorePtpCorrection(p + kOffCorrection, h.correction);
  StoreBe32(p + kOffTypeSpecific, h.message_type_specific);
  StorePtpPortIdentity(p + kOffSourcePort, h.source_port_identity);
  StoreBe16(p + kOffSequenceId, h.sequence_id);
  p[kOffControl] = h.control_field;
  p[kOffLogInterval] = static_cast<uint8_t>(h.log_message_interval);
}

// Timestamp then port identity: Delay_Resp, Pdelay_Resp, Pdelay_Resp_FU.
template <class Body>
Body ReadStampAndPort(const uint8_t* p) {
  return {LoadPtpTimestamp(p + kOffBody),
          LoadPtpPortIdentity(p + kOffBodyPort)};
}
void WriteStampAndPort(PtpTimestamp t, const PtpPortIdentity& id, uint8_t* p) {
  StorePtpTimestamp(p + kOffBody, t);
  StorePtpPortIdentity(p + kOffBodyPort, id);
}

PtpAnnounce ReadAnnounce(const uint8_t* p) {
  const uint8_t* b = p + kOffBody;
  PtpAnnounce a;
  a.origin_timestamp = LoadPtpTimestamp(b);
  a.current_utc_offset = static_cast<int16_t>(LoadBe16(b + 10));
  // b[12] reserved.
  a.grandmaster_priority1 = b[13];
  a.grandmaster_clock_quality = LoadPtpClockQuality(b + 14);
  a.grandmaster_priority2 = b[18];
  a.grandmaster_identity = LoadPtpClockIdentity(b + 19);
  a.steps_removed = LoadBe16(b + 27);
  a.time_source = static_cast<PtpTimeSource>(b[29]);
  return a;
}
void WriteAnnounce(const PtpAnnounce& a, uint8_t* p) {
  uint8_t* b = p + kOffBody;
  StorePtpTimestamp(b, a.origin_timestamp);
  StoreBe16(b + 10, static_cast<uint16_t>(a.current_utc_offset));
  b[12] = 0;
  b[13] = a.grandmaster_priority1;
  StorePtpClockQuality(b + 14, a.grandmaster_clock_quality);
  b[18] = a.grandmaster_priority2;
  StorePtpClockIdentity(b + 19, a.grandmaster_identity);
  StoreBe16(b + 27, a.steps_removed);
  b[29] = static_cast<uint8_t>(a.time_source);
}

PtpManagement ReadManagement(const uint8_t* p) {
  const uint8_t* b = p + kOffBody;
  PtpManagement m;
  m.target_port_identity = LoadPtpPortIdentity(b);
  m.starting_boundary_hops = b[10];
  m.boundary_hops = b[11];
  m.action = static_cast<PtpManagementAction>(b[12] & 0x0F);
  // b[13] reserved.
  return m;
}
void WriteManagement(const PtpManagement& m, uint8_t* p) {
  uint8_t* b = p + kOffBody;
  StorePtpPortIdentity(b, m.target_port_identity);
  b[10] = m.starting_boundary_hops;
  b[11] = m.boundary_hops;
  b[12] = static_cast<uint8_t>(m.action);
  b[13] = 0;
}

// Reads the body of a message whose header checked out (so the fixed length
// of its type is in the buffer).
PtpDrop ReadBody(PtpMessageType type, const uint8_t* p, PtpBody* body) {
  switch (type) {
    case PtpMessageType::kSync:
      *body = PtpSync{LoadPtpTimestamp(p + kOffBody)};
      break;
    case PtpMessageType::kDelayReq:
      *body = PtpDelayReq{LoadPtpTimestamp(p + kOffBody)};
      break;
    case PtpMessageType::kPdelayReq:
      *body = PtpPdelayReq{LoadPtpTimestamp(p + kOffBody)};
      break;
    case PtpMessageType::kFollowUp:
      *body = PtpFollowUp{LoadPtpTimestamp(p + kOffBody)};
      break;
    case PtpMessageType::kPdelayResp:
      *body = ReadStampAndPort<PtpPdelayResp>(p);
      break;
    case PtpMessageType::kDelayResp:
      *body = ReadStampAndPort<PtpDelayResp>(p);
      break;
    case PtpMessageType::kPdelayRespFollowUp:
      *body = ReadStampAndPort<PtpPdelayRespFollowUp>(p);
      break;
    case PtpMessageType::kAnnounce:
      *body = ReadAnnounce(p);
      break;
    case PtpMessageType::kSignaling:
      *body = PtpSignaling{LoadPtpPortIdentity(p + kOffBody)};
      break;
    case PtpMessageType::kManagement: {
      const PtpManagement m = ReadManagement(p);
      if (static_cast<uint8_t>(m.action) > 4) return PtpDrop::kBadAction;
      *body = m;
      return PtpDrop::kOk;
    }
  }
  // Every type with a timestamp has it first in the body; Signaling and
  // Management have none.
  if (type != PtpMessageType::kSignaling &&
      !PtpTimestampIsValid(LoadPtpTimestamp(p + kOffBody))) {
    return PtpDrop::kBadTimestamp;
  }
  return PtpDrop::kOk;
}

// The body's timestamp if it has one (for validation before writing).
bool BodyTimestampValid(const PtpBody& body) {
  return std::visit(
      Overloaded{
          [](const PtpSignaling&) { return true; },
          [](const PtpManagement& m) {
            return static_cast<uint8_t>(m.action) <= 4;
          },
          [](const PtpSync& b) {
            return PtpTimestampIsValid(b.origin_timestamp);
          },
          [](const PtpDelayReq& b) {
            return PtpTimestampIsValid(b.origin_timestamp);
          },
          [](const PtpPdelayReq& b) {
            return PtpTimestampIsValid(b.origin_timestamp);
          },
          [](const PtpFollowUp& b) {
            return PtpTimestampIsValid(b.precise_origin_timestamp);
          },
          [](const PtpDelayResp& b) {
            return PtpTimestampIsValid(b.receive_timestamp);
          },
          [](const PtpPdelayResp& b) {
            return PtpTimestampIsValid(b.request_receipt_timestamp);
          },
          [](const PtpPdelayRespFollowUp& b) {
            return PtpTimestampIsValid(b.response_origin_timestamp);
          },
          [](const PtpAnnounce& b) {
            return PtpTimestampIsValid(b.origin_timestamp);
          },
      },
      body);
}

void WriteBody(const PtpBody& body, uint8_t* p) {
  std::visit(Overloaded{
                 [p](const PtpSync& b) {
                   StorePtpTimestamp(p + kOffBody, b.origin_timestamp);
                 },
                 [p](const PtpDelayReq& b) {
                   StorePtpTimestamp(p + kOffBody, b.origin_timestamp);
                 },
                 [p](const PtpPdelayReq& b) {
                   StorePtpTimestamp(p + kOffBody, b.origin_timestamp);
                   std::memset(p + kOffBodyPort, 0, kPtpPortIdentityLength);
                 },
                 [p](const PtpFollowUp& b) {
                   StorePtpTimestamp(p + kOffBody, b.precise_origin_timestamp);
                 },
                 [p](const PtpDelayResp& b) {
                   WriteStampAndPort(b.receive_timestamp,
                                     b.requesting_port_identity, p);
                 },
                 [p](const PtpPdelayResp& b) {
                   WriteStampAndPort(b.request_receipt_timestamp,
                                     b.requesting_port_identity, p);
                 },
                 [p](const PtpPdelayRespFollowUp& b) {
                   WriteStampAndPort(b.response_origin_timestamp,
                                     b.requesting_port_identity, p);
                 },
                 [p](const PtpAnnounce& b) { WriteAnnounce(b, p); },
                 [p](const PtpSignaling& b) {
                   StorePtpPortIdentity(p + kOffBody, b.target_port_identity);
                 },
                 [p](const PtpManagement& b) { WriteManagement(b, p); },
             },
             body);
}

// The checks every in-place reply makes on its request: what ParsePtpMessage
// checks, plus type and domain. Reads only what it needs.
PtpDrop CheckRequest(std::span<const uint8_t> req, PtpMessageType type,
                     const PtpReplyConfig& config) {
  PtpHeader h;
  const PtpDrop drop = ParsePtpHeader(req, &h);
  if (drop != PtpDrop::kOk) return drop;
  if (h.message_type != type) return PtpDrop::kWrongType;
  if (h.domain_number != config.domain_number ||
      h.sdo_id() != (config.sdo_id & 0x0FFF)) {
    return PtpDrop::kWrongDomain;
  }
  const uint8_t* p = req.data();
  if (!PtpTimestampIsValid(LoadPtpTimestamp(p + kOffBody))) {
    return PtpDrop::kBadTimestamp;
  }
  const size_t fixed = PtpFixedLength(type);
  if (!PtpTlvsWellFormed(req.subspan(fixed, h.message_length - fixed))) {
    return PtpDrop::kBadTlv;
  }
  return PtpDrop::kOk;
}

// Header fields common to both in-place replies. Call after the request's
// sourcePortIdentity has been copied out.
void RewriteReplyHeader(uint8_t* p, PtpMessageType type, uint8_t flags0,
                        const PtpReplyConfig& config, int8_t log_interval) {
  p[kOffType] =
      static_cast<uint8_t>((p[kOffType] & 0xF0) | static_cast<uint8_t>(type));
  p[kOffVersion] =
      static_cast<uint8_t>(((config.minor_version & 0x0F) << 4) | kVersionPtp);
  StoreBe16(p + kOffLength, static_cast<uint16_t>(PtpFixedLength(type)));
  // domainNumber and minorSdoId stay.
  p[kOffFlags] = flags0;
  p[kOffFlags + 1] = 0;
  std::memset(p + kOffTypeSpecific, 0, 4);
  StorePtpPortIdentity(p + kOffSourcePort, config.port_identity);
  // sequenceId stays.
  p[kOffControl] = PtpControlFieldFor(type);
  p[kOffLogInterval] = static_cast<uint8_t>(log_interval);
}

}  // namespace

const char* PtpMessageTypeName(PtpMessageType type) {
  switch (type) {
    case PtpMessageType::kSync:
      return "SYNC";
    case PtpMessageType::kDelayReq:
      return "DELAY_REQ";
    case PtpMessageType::kPdelayReq:
      return "PDELAY_REQ";
    case PtpMessageType::kPdelayResp:
      return "PDELAY_RESP";
    case PtpMessageType::kFollowUp:
      return "FOLLOW_UP";
    case PtpMessageType::kDelayResp:
      return "DELAY_RESP";
    case PtpMessageType::kPdelayRespFollowUp:
      return "PDELAY_RESP_FOLLOW_UP";
    case PtpMessageType::kAnnounce:
      return "ANNOUNCE";
    case PtpMessageType::kSignaling:
      return "SIGNALING";
    case PtpMessageType::kManagement:
      return "MANAGEMENT";
  }
  return "RESERVED";
}

PtpMessageClass PtpClassifyMessage(std::span<const uint8_t> payload) {
  if (payload.size() < 2 || (payload[kOffVersion] & 0x0F) != kVersionPtp) {
    return PtpMessageClass::kInvalid;
  }
  const uint8_t type = payload[kOffType] & 0x0F;
  if (!PtpIsKnownMessageType(type)) return PtpMessageClass::kInvalid;
  return PtpIsEventMessage(static_cast<PtpMessageType>(type))
             ? PtpMessageClass::kEvent
             : PtpMessageClass::kGeneral;
}

PtpMessageType PtpBodyType(const PtpBody& body) {
  return std::visit(
      Overloaded{
          [](const PtpSync&) { return PtpMessageType::kSync; },
          [](const PtpDelayReq&) { return PtpMessageType::kDelayReq; },
          [](const PtpPdelayReq&) { return PtpMessageType::kPdelayReq; },
          [](const PtpPdelayResp&) { return PtpMessageType::kPdelayResp; },
          [](const PtpFollowUp&) { return PtpMessageType::kFollowUp; },
          [](const PtpDelayResp&) { return PtpMessageType::kDelayResp; },
          [](const PtpPdelayRespFollowUp&) {
            return PtpMessageType::kPdelayRespFollowUp;
          },
          [](const PtpAnnounce&) { return PtpMessageType::kAnnounce; },
          [](const PtpSignaling&) { return PtpMessageType::kSignaling; },
          [](const PtpManagement&) { return PtpMessageType::kManagement; },
      },
      body);
}

bool operator==(const PtpMessage& a, const PtpMessage& b) {
  return a.header == b.header && a.body == b.body &&
         std::ranges::equal(a.tlvs, b.tlvs);
}

const char* PtpDropName(PtpDrop drop) {
  switch (drop) {
    case PtpDrop::kOk:
      return "ok";
    case PtpDrop::kTruncated:
      return "truncated";
    case PtpDrop::kBadVersion:
      return "bad_version";
    case PtpDrop::kUnknownType:
      return "unknown_type";
    case PtpDrop::kLengthBeyondBuffer:
      return "length_beyond_buffer";
    case PtpDrop::kLengthBelowMinimum:
      return "length_below_minimum";
    case PtpDrop::kBadTimestamp:
      return "bad_timestamp";
    case PtpDrop::kBadTlv:
      return "bad_tlv";
    case PtpDrop::kBadAction:
      return "bad_action";
    case PtpDrop::kWrongType:
      return "wrong_type";
    case PtpDrop::kWrongDomain:
      return "wrong_domain";
    case PtpDrop::kNoRoom:
      return "no_room";
    case PtpDrop::kCount:
      break;
  }
  return "unknown";
}

PtpDrop ParsePtpHeader(std::span<const uint8_t> buf, PtpHeader* out) {
  if (buf.size() < kPtpHeaderLength) return PtpDrop::kTruncated;
  const uint8_t* p = buf.data();
  if ((p[kOffVersion] & 0x0F) != kVersionPtp) return PtpDrop::kBadVersion;
  const uint8_t type = p[kOffType] & 0x0F;
  if (!PtpIsKnownMessageType(type)) return PtpDrop::kUnknownType;
  const uint16_t length = LoadBe16(p + kOffLength);
  if (length > buf.size()) return PtpDrop::kLengthBeyondBuffer;
  if (length < PtpFixedLength(static_cast<PtpMessageType>(type))) {
    return PtpDrop::kLengthBelowMinimum;
  }
  out->major_sdo_id = p[kOffType] >> 4;
  out->message_type = static_cast<PtpMessageType>(type);
  out->minor_version = p[kOffVersion] >> 4;
  out->version = kVersionPtp;
  out->message_length = length;
  out->domain_number = p[kOffDomain];
  out->minor_sdo_id = p[kOffMinorSdoId];
  out->flags.bits = LoadBe16(p + kOffFlags);
  out->correction = LoadPtpCorrection(p + kOffCorrection);
  out->message_type_specific = LoadBe32(p + kOffTypeSpecific);
  out->source_port_identity = LoadPtpPortIdentity(p + kOffSourcePort);
  out->sequence_id = LoadBe16(p + kOffSequenceId);
  out->control_field = p[kOffControl];
  out->log_message_interval = static_cast<int8_t>(p[kOffLogInterval]);
  return PtpDrop::kOk;
}

PtpDrop ParsePtpMessage(std::span<const uint8_t> buf, PtpMessage* out) {
  PtpDrop drop = ParsePtpHeader(buf, &out->header);
  if (drop != PtpDrop::kOk) return drop;
  drop = ReadBody(out->header.message_type, buf.data(), &out->body);
  if (drop != PtpDrop::kOk) return drop;
  const size_t fixed = PtpFixedLength(out->header.message_type);
  const std::span<const uint8_t> tlvs =
      buf.subspan(fixed, out->header.message_length - fixed);
  if (!PtpTlvsWellFormed(tlvs)) return PtpDrop::kBadTlv;
  out->tlvs = tlvs;
  return PtpDrop::kOk;
}

size_t SerializePtpMessage(const PtpMessage& msg, std::span<uint8_t> out) {
  const PtpHeader& h = msg.header;
  if (h.version != kVersionPtp || h.major_sdo_id > 0x0F ||
      h.minor_version > 0x0F) {
    return 0;
  }
  const PtpMessageType type = PtpBodyType(msg.body);
  const size_t length = PtpFixedLength(type) + msg.tlvs.size();
  if (length > kPtpMaxMessageLength || length > out.size()) return 0;
  if (!BodyTimestampValid(msg.body) || !PtpTlvsWellFormed(msg.tlvs)) return 0;
  uint8_t* p = out.data();
  WriteHeader(h, type, length, p);
  WriteBody(msg.body, p);
  if (!msg.tlvs.empty()) {
    std::memcpy(p + PtpFixedLength(type), msg.tlvs.data(), msg.tlvs.size());
  }
  return length;
}

bool PtpAddToCorrectionField(std::span<uint8_t> msg, PtpCorrection delta) {
  if (msg.size() < kPtpHeaderLength) return false;
  uint8_t* c = msg.data() + kOffCorrection;
  // Two's complement wrap-around, as the field itself does.
  StoreBe64(c, LoadBe64(c) + static_cast<uint64_t>(delta.scaled_ns));
  return true;
}

PtpDrop PtpDelayReqToDelayResp(std::span<uint8_t> buf, size_t request_length,
                               const PtpReplyConfig& config,
                               TaiNs receive_time) {
  const std::span<const uint8_t> req =
      buf.first(std::min(request_length, buf.size()));
  const PtpDrop drop = CheckRequest(req, PtpMessageType::kDelayReq, config);
  if (drop != PtpDrop::kOk) return drop;
  if (buf.size() < kPtpDelayRespLength) return PtpDrop::kNoRoom;
  uint8_t* p = buf.data();
  // requestingPortIdentity <- the request's sourcePortIdentity.
  std::memmove(p + kOffBodyPort, p + kOffSourcePort, kPtpPortIdentityLength);
  const bool unicast = (p[kOffFlags] & kUnicastOctet0) != 0;
  RewriteReplyHeader(
      p, PtpMessageType::kDelayResp, unicast ? kUnicastOctet0 : 0, config,
      unicast ? kPtpLogIntervalUnspecified : config.log_min_delay_req_interval);
  // correctionField stays: t4 has no sub-nanosecond part to subtract.
  StorePtpTimestamp(p + kOffBody, TaiToPtp(receive_time));
  return PtpDrop::kOk;
}

PtpDrop PtpPdelayReqToPdelayResp(std::span<uint8_t> buf, size_t request_length,
                                 const PtpReplyConfig& config,
                                 TaiNs receive_time,
                                 PtpCorrection* request_correction) {
  const std::span<const uint8_t> req =
      buf.first(std::min(request_length, buf.size()));
  const PtpDrop drop = CheckRequest(req, PtpMessageType::kPdelayReq, config);
  if (drop != PtpDrop::kOk) return drop;
  // A checked Pdelay_Req already has the 54 octets a Pdelay_Resp needs.
  uint8_t* p = buf.data();
  *request_correction = LoadPtpCorrection(p + kOffCorrection);
  std::memmove(p + kOffBodyPort, p + kOffSourcePort, kPtpPortIdentityLength);
  const bool unicast = (p[kOffFlags] & kUnicastOctet0) != 0;
  RewriteReplyHeader(
      p, PtpMessageType::kPdelayResp,
      static_cast<uint8_t>(kTwoStepOctet0 | (unicast ? kUnicastOctet0 : 0)),
      config, kPtpLogIntervalUnspecified);
  StorePtpCorrection(p + kOffCorrection, PtpCorrection{0});
  StorePtpTimestamp(p + kOffBody, TaiToPtp(receive_time));
  return PtpDrop::kOk;
}

}  // namespace zg::core
