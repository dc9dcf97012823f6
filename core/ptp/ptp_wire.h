// SPDX-License-Identifier: Apache-2.0
// IEEE 1588-2019 (PTP v2 and v2.1) messages on the wire: the 34-byte common
// header, the bodies of all ten message types, and the in-place rewrites a
// grandmaster answers with at line rate (Delay_Req -> Delay_Resp,
// Pdelay_Req -> Pdelay_Resp).
//
// This is the PTP message only: the UDP payload (ports 319/320) or the
// payload of an Ethernet frame with Ethertype 0x88F7. Framing (kPtpEventPort,
// kPtpGeneralPort, kEtherTypePtp, the PTP group addresses) is
// core/net/net_headers.h and core/net/frame.h.
// TLVs are core/ptp/ptp_tlv.h; management data sets are
// core/ptp/ptp_management.h.
//
// Everything here is pure, allocation-free and exception-free. Parsers
// bounds-check every length before reading: the buffer must hold the common
// header, messageLength must be at least the fixed length of its type and no
// more than the buffer (bytes past messageLength, e.g. Ethernet padding, are
// ignored), and the bytes from the end of the fixed body to messageLength
// must be a well-formed TLV chain. A parse failure is a PtpDrop reason, meant
// for per-reason drop counters.
//
//   PtpMessage msg;
//   const PtpDrop drop = ParsePtpMessage(payload, &msg);
//   if (drop != PtpDrop::kOk) { ++drops[static_cast<size_t>(drop)]; return; }
//   if (const auto* announce = std::get_if<PtpAnnounce>(&msg.body)) { ... }
//
//   // Grandmaster hot path: the mbuf has room for 54 bytes.
//   if (PtpDelayReqToDelayResp({data, room}, len, reply_config, rx_tai) ==
//       PtpDrop::kOk) { /* send kPtpDelayRespLength bytes */ }
#ifndef ZG_CORE_PTP_PTP_WIRE_H_
#define ZG_CORE_PTP_PTP_WIRE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>

#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

// messageType (IEEE 1588-2019 Table 36). The enum holds any 4-bit value;
// only the named ones are valid on the wire.
enum class PtpMessageType : uint8_t {
  kSync = 0x0,
  kDelayReq = 0x1,
  kPdelayReq = 0x2,
  kPdelayResp = 0x3,
  kFollowUp = 0x8,
  kDelayResp = 0x9,
  kPdelayRespFollowUp = 0xA,
  kAnnounce = 0xB,
  kSignaling = 0xC,
  kManagement = 0xD,
};
inline constexpr size_t kPtpMessageTypeCount =
    16;  // nibble values, for counters

// Whether a messageType nibble names a defined message type.
constexpr bool PtpIsKnownMessageType(uint8_t nibble) {
  return nibble <= 0x3 || (nibble >= 0x8 && nibble <= 0xD);
}
// Event messages (types 0-3) are timestamped and use UDP port 319.
constexpr bool PtpIsEventMessage(PtpMessageType type) {
  return static_cast<uint8_t>(type) <= 0x3;
}
// "SYNC", "DELAY_REQ", ... ("RESERVED" for undefined nibbles).
const char* PtpMessageTypeName(PtpMessageType type);

// What the dispatcher does with a PTP payload, from its first two bytes:
// event (timestamp it), general, or invalid (unknown type, not version 2,
// shorter than two bytes). Does not validate the rest.
enum class PtpMessageClass : uint8_t { kInvalid = 0, kEvent = 1, kGeneral = 2 };
PtpMessageClass PtpClassifyMessage(std::span<const uint8_t> payload);

// ---- Lengths (octets) -------------------------------------------------------
inline constexpr size_t kPtpHeaderLength = 34;
inline constexpr size_t kPtpSyncLength = 44;
inline constexpr size_t kPtpDelayReqLength = 44;
inline constexpr size_t kPtpPdelayReqLength = 54;
inline constexpr size_t kPtpPdelayRespLength = 54;
inline constexpr size_t kPtpFollowUpLength = 44;
inline constexpr size_t kPtpDelayRespLength = 54;
inline constexpr size_t kPtpPdelayRespFollowUpLength = 54;
inline constexpr size_t kPtpAnnounceLength = 64;
inline constexpr size_t kPtpSignalingLength = 44;
inline constexpr size_t kPtpManagementLength = 48;
inline constexpr size_t kPtpMaxMessageLength =
    0xFFFF;  // messageLength is 16 bits

// Header plus fixed body of `type`, without TLVs; 0 for undefined types.
constexpr size_t PtpFixedLength(PtpMessageType type) {
  switch (type) {
    case PtpMessageType::kSync:
      return kPtpSyncLength;
    case PtpMessageType::kDelayReq:
      return kPtpDelayReqLength;
    case PtpMessageType::kPdelayReq:
      return kPtpPdelayReqLength;
    case PtpMessageType::kPdelayResp:
      return kPtpPdelayRespLength;
    case PtpMessageType::kFollowUp:
      return kPtpFollowUpLength;
    case PtpMessageType::kDelayResp:
      return kPtpDelayRespLength;
    case PtpMessageType::kPdelayRespFollowUp:
      return kPtpPdelayRespFollowUpLength;
    case PtpMessageType::kAnnounce:
      return kPtpAnnounceLength;
    case PtpMessageType::kSignaling:
      return kPtpSignalingLength;
    case PtpMessageType::kManagement:
      return kPtpManagementLength;
  }
  return 0;
}

// controlField values (Table 42). Deprecated in 1588-2019 but still sent for
// version 1 hardware: Sync 0, Delay_Req 1, Follow_Up 2, Delay_Resp 3,
// Management 4, all others 5.
constexpr uint8_t PtpControlFieldFor(PtpMessageType type) {
  switch (type) {
    case PtpMessageType::kSync:
      return 0;
    case PtpMessageType::kDelayReq:
      return 1;
    case PtpMessageType::kFollowUp:
      return 2;
    case PtpMessageType::kDelayResp:
      return 3;
    case PtpMessageType::kManagement:
      return 4;
    default:
      return 5;
  }
}

// logMessageInterval for messages that have none (unicast Delay_Resp,
// Pdelay_*, Management, Signaling).
inline constexpr int8_t kPtpLogIntervalUnspecified = 0x7F;

// ---- Identities -------------------------------------------------------------
struct PtpClockIdentity {
  std::array<uint8_t, 8> octets{};
  friend constexpr bool operator==(const PtpClockIdentity&,
                                   const PtpClockIdentity&) = default;
  // The wildcard (all ones) used in targetPortIdentity.
  static constexpr PtpClockIdentity All() {
    return {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}};
  }
  // EUI-64 from an EUI-48 MAC, as linuxptp and most PTP stacks derive it:
  // OUI, FF FE, then the NIC-specific three octets.
  static constexpr PtpClockIdentity FromMac(const std::array<uint8_t, 6>& m) {
    return {{m[0], m[1], m[2], 0xFF, 0xFE, m[3], m[4], m[5]}};
  }
};

inline constexpr uint16_t kPtpAllPorts = 0xFFFF;

struct PtpPortIdentity {
  PtpClockIdentity clock_identity;
  uint16_t port_number = 0;
  friend constexpr bool operator==(const PtpPortIdentity&,
                                   const PtpPortIdentity&) = default;
  static constexpr PtpPortIdentity All() {
    return {PtpClockIdentity::All(), kPtpAllPorts};
  }
};

// ---- Header -----------------------------------------------------------------

// flagField bits (Table 37), as the 16-bit big-endian value of the two
// octets: octet 0 is the high byte.
enum class PtpFlag : uint16_t {
  kAlternateMaster = 0x0100,
  kTwoStep = 0x0200,
  kUnicast = 0x0400,
  kProfileSpecific1 = 0x2000,
  kProfileSpecific2 = 0x4000,
  kLeap61 = 0x0001,
  kLeap59 = 0x0002,
  kCurrentUtcOffsetValid = 0x0004,
  kPtpTimescale = 0x0008,
  kTimeTraceable = 0x0010,
  kFrequencyTraceable = 0x0020,
  kSynchronizationUncertain = 0x0040,
};

// The flagField. Keeps reserved bits so a parsed message re-serialises
// byte for byte.
struct PtpFlags {
  uint16_t bits = 0;
  constexpr bool Has(PtpFlag f) const {
    return (bits & static_cast<uint16_t>(f)) != 0;
  }
  constexpr PtpFlags& Set(PtpFlag f, bool on = true) {
    const uint16_t m = static_cast<uint16_t>(f);
    bits =
        on ? static_cast<uint16_t>(bits | m) : static_cast<uint16_t>(bits & ~m);
    return *this;
  }
  friend constexpr bool operator==(PtpFlags, PtpFlags) = default;
};

struct PtpHeader {
  uint8_t major_sdo_id = 0;  // 4 bits (transportSpecific in 1588-2008)
  PtpMessageType message_type = PtpMessageType::kSync;
  uint8_t minor_version = 1;    // minorVersionPTP, 4 bits: 0 = 2008, 1 = 2019
  uint8_t version = 2;          // versionPTP, 4 bits: always 2
  uint16_t message_length = 0;  // octets: header + body + TLVs
  uint8_t domain_number = 0;
  uint8_t minor_sdo_id = 0;
  PtpFlags flags;
  PtpCorrection correction;  // scaled nanoseconds (ns * 2^16)
  uint32_t message_type_specific = 0;
  PtpPortIdentity source_port_identity;
  uint16_t sequence_id = 0;
  uint8_t control_field = 0;
  int8_t log_message_interval = 0;  // log2 seconds

  // The 12-bit sdoId: majorSdoId (high 4 bits) and minorSdoId.
  constexpr uint16_t sdo_id() const {
    return static_cast<uint16_t>(((major_sdo_id & 0x0F) << 8) | minor_sdo_id);
  }
  friend constexpr bool operator==(const PtpHeader&,
                                   const PtpHeader&) = default;
};

// ---- Bodies -----------------------------------------------------------------
// Every PtpTimestamp below must have nanoseconds < 1e9 and seconds < 2^48:
// the parser drops messages that break this (PtpDrop::kBadTimestamp) and the
// serializer refuses to write them.

struct PtpSync {
  PtpTimestamp origin_timestamp;
  friend constexpr bool operator==(const PtpSync&, const PtpSync&) = default;
};
struct PtpDelayReq {
  PtpTimestamp origin_timestamp;
  friend constexpr bool operator==(const PtpDelayReq&,
                                   const PtpDelayReq&) = default;
};
struct PtpPdelayReq {
  PtpTimestamp origin_timestamp;  // followed by 10 reserved octets
  friend constexpr bool operator==(const PtpPdelayReq&,
                                   const PtpPdelayReq&) = default;
};
struct PtpPdelayResp {
  PtpTimestamp request_receipt_timestamp;
  PtpPortIdentity requesting_port_identity;
  friend constexpr bool operator==(const PtpPdelayResp&,
                                   const PtpPdelayResp&) = default;
};
struct PtpFollowUp {
  PtpTimestamp precise_origin_timestamp;
  friend constexpr bool operator==(const PtpFollowUp&,
                                   const PtpFollowUp&) = default;
};
struct PtpDelayResp {
  PtpTimestamp receive_timestamp;
  PtpPortIdentity requesting_port_identity;
  friend constexpr bool operator==(const PtpDelayResp&,
                                   const PtpDelayResp&) = default;
};
struct PtpPdelayRespFollowUp {
  PtpTimestamp response_origin_timestamp;
  PtpPortIdentity requesting_port_identity;
  friend constexpr bool operator==(const PtpPdelayRespFollowUp&,
                                   const PtpPdelayRespFollowUp&) = default;
};
struct PtpAnnounce {
  PtpTimestamp origin_timestamp;
  int16_t current_utc_offset = 0;  // seconds, TAI - UTC
  uint8_t grandmaster_priority1 = 128;
  PtpClockQuality grandmaster_clock_quality;
  uint8_t grandmaster_priority2 = 128;
  PtpClockIdentity grandmaster_identity;
  uint16_t steps_removed = 0;
  PtpTimeSource time_source = PtpTimeSource::kInternalOscillator;
  friend constexpr bool operator==(const PtpAnnounce&,
                                   const PtpAnnounce&) = default;
};
struct PtpSignaling {
  PtpPortIdentity target_port_identity;
  friend constexpr bool operator==(const PtpSignaling&,
                                   const PtpSignaling&) = default;
};

// actionField (Table 57). Values 5-15 are reserved and dropped.
enum class PtpManagementAction : uint8_t {
  kGet = 0,
  kSet = 1,
  kResponse = 2,
  kCommand = 3,
  kAcknowledge = 4,
};
struct PtpManagement {
  PtpPortIdentity target_port_identity;
  uint8_t starting_boundary_hops = 0;
  uint8_t boundary_hops = 0;
  PtpManagementAction action = PtpManagementAction::kGet;
  friend constexpr bool operator==(const PtpManagement&,
                                   const PtpManagement&) = default;
};

// One alternative per message type.
using PtpBody = std::variant<PtpSync, PtpDelayReq, PtpPdelayReq, PtpPdelayResp,
                             PtpFollowUp, PtpDelayResp, PtpPdelayRespFollowUp,
                             PtpAnnounce, PtpSignaling, PtpManagement>;

// The message type a body is sent as.
PtpMessageType PtpBodyType(const PtpBody& body);

// A parsed (or to-be-serialised) message. `tlvs` points into the parsed
// buffer (or the caller's TLV bytes, for serialising): it lives no longer
// than that buffer. It is always a well-formed TLV chain (core/ptp/ptp_tlv.h).
struct PtpMessage {
  PtpHeader header;
  PtpBody body;
  std::span<const uint8_t> tlvs;
  // Compares header, body and TLV bytes (not where the TLV bytes live).
  friend bool operator==(const PtpMessage& a, const PtpMessage& b);
};

// ---- Parsing ----------------------------------------------------------------

// Why a message was dropped. Names (PtpDropName) suit metric labels.
enum class PtpDrop : uint8_t {
  kOk = 0,              // not dropped
  kTruncated,           // buffer shorter than the 34-octet header
  kBadVersion,          // versionPTP is not 2 (minorVersionPTP is any)
  kUnknownType,         // messageType is a reserved value
  kLengthBeyondBuffer,  // messageLength larger than the buffer
  kLengthBelowMinimum,  // messageLength shorter than the type's fixed length
  kBadTimestamp,        // a body timestamp with nanoseconds >= 1e9
  kBadTlv,              // TLV area is not a well-formed chain of even TLVs
  kBadAction,           // management actionField is a reserved value
  kWrongType,           // not the message type this function handles
  kWrongDomain,         // domainNumber or sdoId not the one served
  kNoRoom,              // the buffer cannot hold the reply
  kCount,
};
const char* PtpDropName(PtpDrop drop);

// Parses and checks the common header: length of the buffer, versionPTP,
// messageType, messageLength against the type's fixed length and the buffer.
// Does not look at the body or TLVs.
PtpDrop ParsePtpHeader(std::span<const uint8_t> buf, PtpHeader* out);

// Parses a whole message: header, body, and the TLV chain up to
// messageLength. On kOk, out->tlvs points into `buf`.
PtpDrop ParsePtpMessage(std::span<const uint8_t> buf, PtpMessage* out);

// ---- Serialising ------------------------------------------------------------

// Writes `msg` into `out`. messageType comes from the body and messageLength
// from the fixed length plus msg.tlvs; header.message_type and
// header.message_length are ignored. Returns the length written, or 0 when
// `out` is too small or msg is invalid (versionPTP not 2, a 4-bit field out
// of range, a bad timestamp, TLVs not a well-formed chain, over 65535 octets).
size_t SerializePtpMessage(const PtpMessage& msg, std::span<uint8_t> out);

// Adds `delta` to the correctionField of the message in `msg` (one-step
// residence/turnaround corrections). False if msg is shorter than a header.
bool PtpAddToCorrectionField(std::span<uint8_t> msg, PtpCorrection delta);

// ---- In-place replies (grandmaster hot path) --------------------------------

// The answering port. Written by the control thread, copied by workers.
struct PtpReplyConfig {
  PtpPortIdentity port_identity;  // sourcePortIdentity of every reply
  uint8_t domain_number = 0;      // requests for other domains: kWrongDomain
  uint16_t sdo_id = 0;            // 12-bit sdoId served; others: kWrongDomain
  uint8_t minor_version = 1;      // minorVersionPTP of replies (0..15)
  int8_t log_min_delay_req_interval = 0;  // Delay_Resp logMessageInterval
};

// Rewrites the Delay_Req in the first `request_length` octets of `buf` into
// the Delay_Resp that answers it (IEEE 1588-2019 11.3.2): messageLength 54,
// sequenceId, correctionField, domainNumber and sdoId kept,
// requestingPortIdentity = the request's sourcePortIdentity, sourcePortIdentity
// = config.port_identity, receiveTimestamp = `receive_time` (t4), unicastFlag
// copied from the request (a unicast Delay_Resp gets logMessageInterval 0x7F,
// a multicast one config.log_min_delay_req_interval), other flags cleared,
// controlField 3. TLVs in the request are not carried over.
//
// The reply is 54 octets and the request 44: a Delay_Resp is larger than the
// Delay_Req it answers by design of the protocol. This is the one exception to
// "a reply is never larger than its request"; the caller must pass a buffer
// (mbuf data room) of at least kPtpDelayRespLength octets in `buf`, else
// kNoRoom and `buf` is untouched. Any drop leaves `buf` untouched.
//
// The request is checked exactly as ParsePtpMessage checks it (header,
// timestamp, TLV chain), plus type (kWrongType) and domain/sdoId
// (kWrongDomain).
PtpDrop PtpDelayReqToDelayResp(std::span<uint8_t> buf, size_t request_length,
                               const PtpReplyConfig& config,
                               TaiNs receive_time);

// Rewrites a Pdelay_Req (54 octets) in place into the two-step Pdelay_Resp
// (IEEE 1588-2019 11.4.2; as linuxptp answers): same length, sequenceId,
// domainNumber and sdoId kept, requestReceiptTimestamp = `receive_time`
// (t2), requestingPortIdentity = the request's sourcePortIdentity,
// twoStepFlag set, unicastFlag copied, correctionField 0, controlField 5,
// logMessageInterval 0x7F. The request's correctionField, which the
// Pdelay_Resp_Follow_Up must carry, is stored in *request_correction.
PtpDrop PtpPdelayReqToPdelayResp(std::span<uint8_t> buf, size_t request_length,
                                 const PtpReplyConfig& config,
                                 TaiNs receive_time,
                                 PtpCorrection* request_correction);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_WIRE_H_
