// SPDX-License-Identifier: Apache-2.0
// What a grandmaster port does with each received PTP message, decided from
// its common header, the port's configuration and state, and how the message
// arrived: answer it (Delay_Req, Pdelay_Req), feed it to the BMCA
// (Announce), to unicast negotiation (Signaling) or to the management
// responder, or drop it for a named reason. Malformed, unexpected and
// out-of-domain messages are dropped and counted by reason (PtpPortDrop).
//
//   PtpRxContext ctx{&config, state, identity, /*unicast=*/!info.dst_multicast,
//                    PtpUnicastTransport::kUdpIpv4, /*event_port=*/true};
//   PtpRxDecision d = DecidePtpRx(payload, ctx);
//   switch (d.action) {
//     case PtpRxAction::kAnswerDelayReq: ... PtpDelayReqToDelayResp ...
//     case PtpRxAction::kDrop: ++drops[static_cast<size_t>(d.drop)]; ...
//   }
//
// Reads the 34-octet header only (ParsePtpHeader); the handler chosen then
// checks the body. Pure, allocation-free.
#ifndef ZG_CORE_PTP_PTP_DISPATCH_H_
#define ZG_CORE_PTP_PTP_DISPATCH_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_unicast_table.h"
#include "core/ptp/ptp_wire.h"

namespace zg::core {

enum class PtpRxAction : uint8_t {
  kDrop = 0,
  kAnswerDelayReq,   // Delay_Req -> Delay_Resp (in place)
  kAnswerPdelayReq,  // Pdelay_Req -> Pdelay_Resp + Pdelay_Resp_Follow_Up
  kAnnounce,         // foreign master: BMCA
  kSignaling,        // unicast negotiation
  kManagement,       // pmc
};

// Why the port dropped a PTP message. Names suit metric labels.
enum class PtpPortDrop : uint8_t {
  kNone = 0,
  kMalformed,            // header does not parse (see PtpRxDecision::parse)
  kWrongDomain,          // domainNumber or sdoId not served
  kFromSelf,             // our own message, looped back
  kWrongTransport,       // a transport this port does not serve
  kWrongUdpPort,         // event message on 320 or general message on 319
  kNotMaster,            // Delay_Req while LISTENING or PASSIVE
  kWrongDelayMechanism,  // Delay_Req on a P2P port, Pdelay_Req on E2E
  kMulticastNotServed,   // multicast Delay_Req where the profile has none
  kUnicastNotServed,     // unicast Delay_Req where the profile has none
  kNoGrant,              // unicast Delay_Req without a Delay_Resp grant
  kNegotiationOff,       // Signaling while unicast negotiation is off
  kUnexpectedType,       // Sync, Follow_Up, Delay_Resp, Pdelay_Resp(_FU)
  kCount,
};
const char* PtpPortDropName(PtpPortDrop drop);
inline constexpr size_t kPtpPortDropCount =
    static_cast<size_t>(PtpPortDrop::kCount);

struct PtpRxContext {
  const PtpPortConfig* config = nullptr;
  PtpPortState state = PtpPortState::kInitializing;
  PtpClockIdentity self;  // our clock identity
  bool unicast = false;   // sent to our unicast address (not a PTP group)
  PtpUnicastTransport transport = PtpUnicastTransport::kUdpIpv4;
  bool event_port = false;  // arrived on UDP 319 (ignored for Layer 2)
};

struct PtpRxDecision {
  PtpRxAction action = PtpRxAction::kDrop;
  PtpPortDrop drop = PtpPortDrop::kNone;
  PtpDrop parse = PtpDrop::kOk;  // the header parse result
  PtpHeader header;              // valid unless parse != kOk
};

PtpRxDecision DecidePtpRx(std::span<const uint8_t> payload,
                          const PtpRxContext& ctx);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_DISPATCH_H_
