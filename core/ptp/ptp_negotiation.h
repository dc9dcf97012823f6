// SPDX-License-Identifier: Apache-2.0
// Answers unicast negotiation Signaling messages (IEEE 1588-2019 16.1,
// G.8265.1 / G.8275.2): each REQUEST_UNICAST_TRANSMISSION TLV gets a
// GRANT_UNICAST_TRANSMISSION (durationField 0 when refused, a longer
// logInterMessagePeriod when reduced), each CANCEL_UNICAST_TRANSMISSION an
// ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION (the grant ends only when the
// CANCEL comes from the address and UDP port it was made to), all in one
// Signaling reply addressed to the requester's port. Decisions and state
// are the shard's PtpUnicastService, with its admission limits.
//
// The reply is written to `out`, which may be the request's own buffer (the
// reply TLVs are staged on the stack first). The reply itself is at most 2
// octets per TLV larger than the request (a GRANT is 12 octets, a REQUEST
// 10), and at most kPtpMaxNegotiationTlvs TLVs are answered per message.
// But a GRANT is not the end of it: it is an amplifier by design. A grant
// of Sync and Announce makes the scheduler send a stream to the requester's
// address for the whole grant duration, and UDP source addresses can be
// forged. One forged 64-octet REQUEST (Sync + Announce TLVs) could get 128
// Sync + 128 Follow_Up + 8 Announce a second for 3600 s without admission
// limits; zeitgeberd's defaults (--ptp_min_log_interval_per_source=-4)
// bound it to 16 + 16 + 8 = 40 messages (3600 octets of UDP/IPv4 frames) a
// second, per source by --ptp_max_grants_per_source and in total by
// --ptp_tx_budget. Replies that grant nothing (pure reflections) are
// limited by the service's refusal bucket (--ptp_refusal_rate): past it the
// message is decided but not answered (kSilenced). doc/ptp.md ("Admission
// control") gives the numbers and tests/core/ptp/ptp_admission_test.cc
// proves them.
//
//   PtpSignalingAnswer a = AnswerPtpSignaling(payload, ctx, *service, out);
//   if (a.length > 0) { /* send a.length octets back to the requester */ }
//   ++signaling_results[static_cast<size_t>(a.result)];
//
// Hot-path safe: no allocation, bounded work.
#ifndef ZG_CORE_PTP_PTP_NEGOTIATION_H_
#define ZG_CORE_PTP_PTP_NEGOTIATION_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/ptp/ptp_unicast_service.h"
#include "core/ptp/ptp_unicast_table.h"
#include "core/ptp/ptp_wire.h"

namespace zg::core {

inline constexpr size_t kPtpMaxNegotiationTlvs = 8;

enum class PtpSignalingResult : uint8_t {
  kReplied = 0,  // `length` octets of reply in `out`
  kNothingToDo,  // no REQUEST or CANCEL TLV (e.g. only ACKNOWLEDGE_CANCEL)
  kMalformed,    // not a valid Signaling message (see `drop`)
  kWrongDomain,  // domainNumber or sdoId not ours
  kNotForUs,     // targetPortIdentity is another port
  kFromSelf,     // sent by our own clock
  kNoRoom,       // `out` too small for the reply
  kSilenced,     // granted nothing, and --ptp_refusal_rate was spent
  kCount,
};
const char* PtpSignalingResultName(PtpSignalingResult r);
inline constexpr size_t kPtpSignalingResultCount =
    static_cast<size_t>(PtpSignalingResult::kCount);

// Where the request came from and what the port is doing.
struct PtpSignalingContext {
  PtpReplyConfig port;  // our identity, domain, sdoId, minorVersionPTP
  PtpUnicastAddress from;
  uint16_t from_port = 0;  // UDP source port (0 for Layer 2)
  PtpUnicastReturnPath path;
  bool serving = false;  // port is MASTER
  int64_t now_mono_ns = 0;
};

struct PtpSignalingAnswer {
  PtpSignalingResult result = PtpSignalingResult::kMalformed;
  PtpDrop drop = PtpDrop::kOk;  // why, for kMalformed
  size_t length = 0;            // reply octets in `out`; 0: send nothing
  uint8_t granted = 0;          // REQUEST TLVs granted
  uint8_t denied = 0;           // REQUEST TLVs denied
  uint8_t reduced = 0;          // granted at a longer interval than asked
  uint8_t cancels_refused = 0;  // CANCELs from another UDP port: ignored
  uint8_t cancelled = 0;        // CANCEL TLVs acknowledged
  uint8_t ignored = 0;          // other, malformed or excess TLVs
};

// `sequence_id`: the port's Signaling sequence counter (used and advanced
// when a reply is written).
PtpSignalingAnswer AnswerPtpSignaling(std::span<const uint8_t> request,
                                      const PtpSignalingContext& ctx,
                                      PtpUnicastService& service,
                                      uint16_t* sequence_id,
                                      std::span<uint8_t> out);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_NEGOTIATION_H_
