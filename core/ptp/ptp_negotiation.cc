// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_negotiation.h"

#include <array>
#include <variant>

#include "core/ptp/ptp_tlv.h"

namespace zg::core {
namespace {

constexpr size_t kStageBytes =
    kPtpMaxNegotiationTlvs *
    (kPtpTlvHeaderLength + kPtpUnicastGrantValueLength);

// 1588 7.5.2.4: all ones addresses every clock / port. linuxptp's client
// sends all zeros until it has learnt our identity from a first GRANT.
bool TargetsUs(const PtpPortIdentity& target, const PtpPortIdentity& us) {
  const bool clock_ok = target.clock_identity == us.clock_identity ||
                        target.clock_identity == PtpClockIdentity::All();
  const bool port_ok = target.port_number == us.port_number ||
                       target.port_number == kPtpAllPorts;
  return (clock_ok && port_ok) || target == PtpPortIdentity{};
}

struct Stage {
  std::array<uint8_t, kStageBytes> bytes{};
  size_t used = 0;
  size_t tlvs = 0;
  std::span<uint8_t> rest() { return std::span(bytes).subspan(used); }
};

void AnswerRequest(const PtpTlv& tlv, const PtpUnicastClientKey& key,
                   const PtpSignalingContext& ctx, PtpUnicastService& service,
                   Stage* stage, PtpSignalingAnswer* a) {
  PtpUnicastRequest req;
  if (!ParsePtpUnicastRequestTlv(tlv, &req)) {
    ++a->ignored;
    return;
  }
  const PtpGrantDecision d = service.Request(key, ctx.path, req, ctx.serving,
                                             ctx.now_mono_ns, ctx.from_port);
  // 1588-2019 16.1.4.2: a refusal is durationField 0; a reduced grant
  // carries the (longer) logInterMessagePeriod granted.
  PtpUnicastGrant grant;
  grant.message_type = req.message_type;
  grant.log_inter_message_period = d.log_interval;
  grant.duration_s = d.granted() ? d.duration_s : 0;
  grant.renewal_invited = d.granted();
  stage->used += WritePtpUnicastGrantTlv(grant, stage->rest());
  ++stage->tlvs;
  ++(d.granted() ? a->granted : a->denied);
  if (d.reduction != PtpGrantReduction::kNone) ++a->reduced;
}

void AnswerCancel(const PtpTlv& tlv, const PtpUnicastClientKey& key,
                  const PtpSignalingContext& ctx, PtpUnicastService& service,
                  Stage* stage, PtpSignalingAnswer* a) {
  PtpUnicastCancel cancel;
  if (!ParsePtpUnicastCancelTlv(tlv, &cancel)) {
    ++a->ignored;
    return;
  }
  if (service.Cancel(key, cancel.message_type, ctx.from_port) ==
      PtpCancelResult::kWrongSource) {
    ++a->cancels_refused;
  }
  // 16.1.4.3/4: acknowledged whether or not a grant existed (and when the
  // grant is another port's and stays: the same answer, so a forger learns
  // nothing, and no larger than the CANCEL).
  stage->used += WritePtpUnicastCancelTlv(
      PtpTlvType::kAcknowledgeCancelUnicastTransmission, cancel, stage->rest());
  ++stage->tlvs;
  ++a->cancelled;
}

}  // namespace

const char* PtpSignalingResultName(PtpSignalingResult r) {
  switch (r) {
    case PtpSignalingResult::kReplied:
      return "replied";
    case PtpSignalingResult::kNothingToDo:
      return "nothing_to_do";
    case PtpSignalingResult::kMalformed:
      return "malformed";
    case PtpSignalingResult::kWrongDomain:
      return "wrong_domain";
    case PtpSignalingResult::kNotForUs:
      return "not_for_us";
    case PtpSignalingResult::kFromSelf:
      return "from_self";
    case PtpSignalingResult::kNoRoom:
      return "no_room";
    case PtpSignalingResult::kSilenced:
      return "silenced";
    case PtpSignalingResult::kCount:
      break;
  }
  return "unknown";
}

PtpSignalingAnswer AnswerPtpSignaling(std::span<const uint8_t> request,
                                      const PtpSignalingContext& ctx,
                                      PtpUnicastService& service,
                                      uint16_t* sequence_id,
                                      std::span<uint8_t> out) {
  PtpSignalingAnswer a;
  PtpMessage msg;
  a.drop = ParsePtpMessage(request, &msg);
  if (a.drop == PtpDrop::kOk &&
      msg.header.message_type != PtpMessageType::kSignaling) {
    a.drop = PtpDrop::kWrongType;
  }
  if (a.drop != PtpDrop::kOk) return a;
  const PtpHeader& h = msg.header;
  if (h.domain_number != ctx.port.domain_number ||
      h.sdo_id() != (ctx.port.sdo_id & 0x0FFF)) {
    a.result = PtpSignalingResult::kWrongDomain;
    return a;
  }
  if (h.source_port_identity.clock_identity ==
      ctx.port.port_identity.clock_identity) {
    a.result = PtpSignalingResult::kFromSelf;
    return a;
  }
  const auto& body = std::get<PtpSignaling>(msg.body);
  if (!TargetsUs(body.target_port_identity, ctx.port.port_identity)) {
    a.result = PtpSignalingResult::kNotForUs;
    return a;
  }
  const PtpUnicastClientKey key{ctx.from, h.source_port_identity};
  Stage stage;
  PtpTlvReader reader(msg.tlvs);
  PtpTlv tlv;
  while (reader.Next(&tlv)) {
    const bool request_tlv =
        tlv.type == PtpTlvType::kRequestUnicastTransmission;
    const bool cancel_tlv = tlv.type == PtpTlvType::kCancelUnicastTransmission;
    if ((!request_tlv && !cancel_tlv) || stage.tlvs == kPtpMaxNegotiationTlvs) {
      ++a.ignored;
    } else if (request_tlv) {
      AnswerRequest(tlv, key, ctx, service, &stage, &a);
    } else {
      AnswerCancel(tlv, key, ctx, service, &stage, &a);
    }
  }
  if (stage.tlvs == 0) {
    a.result = PtpSignalingResult::kNothingToDo;
    return a;
  }
  // A reply that grants nothing is a pure reflection towards a source that
  // may be forged: rate-limited (the decisions above stand).
  if (a.granted == 0 && !service.AllowRefusalReply(ctx.now_mono_ns)) {
    a.result = PtpSignalingResult::kSilenced;
    return a;
  }
  PtpMessage reply;
  reply.header.major_sdo_id =
      static_cast<uint8_t>((ctx.port.sdo_id >> 8) & 0x0F);
  reply.header.minor_sdo_id = static_cast<uint8_t>(ctx.port.sdo_id);
  reply.header.minor_version = ctx.port.minor_version & 0x0F;
  reply.header.domain_number = ctx.port.domain_number;
  reply.header.flags.Set(PtpFlag::kUnicast);
  reply.header.source_port_identity = ctx.port.port_identity;
  reply.header.sequence_id = *sequence_id;
  reply.header.control_field = PtpControlFieldFor(PtpMessageType::kSignaling);
  reply.header.log_message_interval = kPtpLogIntervalUnspecified;
  reply.body = PtpSignaling{h.source_port_identity};
  reply.tlvs = std::span<const uint8_t>(stage.bytes).first(stage.used);
  a.length = SerializePtpMessage(reply, out);
  if (a.length == 0) {
    a.result = PtpSignalingResult::kNoRoom;
    return a;
  }
  ++*sequence_id;
  a.result = PtpSignalingResult::kReplied;
  return a;
}

}  // namespace zg::core
