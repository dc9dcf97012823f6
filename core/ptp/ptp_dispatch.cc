// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_dispatch.h"

namespace zg::core {
namespace {

uint8_t TransportBit(PtpUnicastTransport t) {
  switch (t) {
    case PtpUnicastTransport::kUdpIpv4:
      return kPtpTransportUdpIpv4;
    case PtpUnicastTransport::kUdpIpv6:
      return kPtpTransportUdpIpv6;
    case PtpUnicastTransport::kL2:
      return kPtpTransportL2;
    case PtpUnicastTransport::kNone:
      break;
  }
  return 0;
}

PtpRxDecision Drop(PtpRxDecision d, PtpPortDrop why) {
  d.action = PtpRxAction::kDrop;
  d.drop = why;
  return d;
}

PtpRxDecision DecideDelayReq(PtpRxDecision d, const PtpRxContext& ctx,
                             const PtpProfile& profile) {
  if (ctx.config->delay_mechanism != PtpDelayMechanism::kE2E) {
    return Drop(d, PtpPortDrop::kWrongDelayMechanism);
  }
  if (ctx.state != PtpPortState::kMaster) {
    return Drop(d, PtpPortDrop::kNotMaster);
  }
  if (ctx.unicast ? !profile.unicast_delay_resp
                  : !profile.multicast_delay_resp) {
    return Drop(d, ctx.unicast ? PtpPortDrop::kUnicastNotServed
                               : PtpPortDrop::kMulticastNotServed);
  }
  d.action = PtpRxAction::kAnswerDelayReq;
  return d;
}

PtpRxDecision DecidePdelayReq(PtpRxDecision d, const PtpRxContext& ctx) {
  if (ctx.config->delay_mechanism != PtpDelayMechanism::kP2P) {
    return Drop(d, PtpPortDrop::kWrongDelayMechanism);
  }
  // Peer delay runs in every operational state, PASSIVE included (9.2.5).
  if (ctx.state == PtpPortState::kInitializing ||
      ctx.state == PtpPortState::kFaulty ||
      ctx.state == PtpPortState::kDisabled) {
    return Drop(d, PtpPortDrop::kNotMaster);
  }
  d.action = PtpRxAction::kAnswerPdelayReq;
  return d;
}

}  // namespace

const char* PtpPortDropName(PtpPortDrop drop) {
  switch (drop) {
    case PtpPortDrop::kNone:
      return "none";
    case PtpPortDrop::kMalformed:
      return "malformed";
    case PtpPortDrop::kWrongDomain:
      return "wrong_domain";
    case PtpPortDrop::kFromSelf:
      return "from_self";
    case PtpPortDrop::kWrongTransport:
      return "wrong_transport";
    case PtpPortDrop::kWrongUdpPort:
      return "wrong_udp_port";
    case PtpPortDrop::kNotMaster:
      return "not_master";
    case PtpPortDrop::kWrongDelayMechanism:
      return "wrong_delay_mechanism";
    case PtpPortDrop::kMulticastNotServed:
      return "multicast_not_served";
    case PtpPortDrop::kUnicastNotServed:
      return "unicast_not_served";
    case PtpPortDrop::kNoGrant:
      return "no_grant";
    case PtpPortDrop::kNegotiationOff:
      return "negotiation_off";
    case PtpPortDrop::kUnexpectedType:
      return "unexpected_type";
    case PtpPortDrop::kCount:
      break;
  }
  return "unknown";
}

PtpRxDecision DecidePtpRx(std::span<const uint8_t> payload,
                          const PtpRxContext& ctx) {
  PtpRxDecision d;
  d.parse = ParsePtpHeader(payload, &d.header);
  if (d.parse != PtpDrop::kOk) return Drop(d, PtpPortDrop::kMalformed);
  const PtpPortConfig& config = *ctx.config;
  if ((config.transports & TransportBit(ctx.transport)) == 0) {
    return Drop(d, PtpPortDrop::kWrongTransport);
  }
  const PtpMessageType type = d.header.message_type;
  if (ctx.transport != PtpUnicastTransport::kL2 &&
      PtpIsEventMessage(type) != ctx.event_port) {
    return Drop(d, PtpPortDrop::kWrongUdpPort);
  }
  if (d.header.domain_number != config.domain_number ||
      d.header.sdo_id() != 0) {
    return Drop(d, PtpPortDrop::kWrongDomain);
  }
  if (d.header.source_port_identity.clock_identity == ctx.self) {
    return Drop(d, PtpPortDrop::kFromSelf);
  }
  const PtpProfile& profile = GetPtpProfile(config.profile);
  switch (type) {
    case PtpMessageType::kDelayReq:
      return DecideDelayReq(d, ctx, profile);
    case PtpMessageType::kPdelayReq:
      return DecidePdelayReq(d, ctx);
    case PtpMessageType::kAnnounce:
      d.action = PtpRxAction::kAnnounce;
      return d;
    case PtpMessageType::kSignaling:
      if (!config.unicast_negotiation) {
        return Drop(d, PtpPortDrop::kNegotiationOff);
      }
      d.action = PtpRxAction::kSignaling;
      return d;
    case PtpMessageType::kManagement:
      d.action = PtpRxAction::kManagement;
      return d;
    default:
      return Drop(d, PtpPortDrop::kUnexpectedType);
  }
}

}  // namespace zg::core
