// SPDX-License-Identifier: Apache-2.0
// IEEE 1588-2019 TLVs (clause 14): a bounds-checked walker over a message's
// TLV area, and the TLVs a grandmaster reads and writes:
//   unicast negotiation (16.1): REQUEST_, GRANT_, CANCEL_ and
//     ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION,
//   PATH_TRACE (16.2), ALTERNATE_TIME_OFFSET_INDICATOR (16.3),
//   ORGANIZATION_EXTENSION (14.3; also the -2019 PROPAGATE/DO_NOT_PROPAGATE
//     types), passed through opaque,
//   MANAGEMENT and MANAGEMENT_ERROR_STATUS (15.5.2, 15.5.4): framing only;
//     the data sets are core/ptp/ptp_management.h.
//
// A TLV is type (16 bits), lengthField (16 bits, even: 14.1.1) and that many
// value octets; the chain must end exactly at messageLength. Parsed TLVs
// point into the message buffer (spans, string_views): no copies, no
// allocation. Writers fill a caller buffer and return the octets written,
// 0 when it is too small or the value cannot be encoded.
//
//   PtpTlvReader reader(msg.tlvs);
//   PtpTlv tlv;
//   while (reader.Next(&tlv)) {
//     PtpUnicastRequest req;
//     if (ParsePtpUnicastRequestTlv(tlv, &req)) { ... }
//   }
//   if (reader.malformed()) { /* drop: PtpDrop::kBadTlv */ }
#ifndef ZG_CORE_PTP_PTP_TLV_H_
#define ZG_CORE_PTP_PTP_TLV_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/ptp/ptp_wire.h"

namespace zg::core {

// tlvType (Table 52). The enum holds any 16-bit value.
enum class PtpTlvType : uint16_t {
  kManagement = 0x0001,
  kManagementErrorStatus = 0x0002,
  kOrganizationExtension = 0x0003,
  kRequestUnicastTransmission = 0x0004,
  kGrantUnicastTransmission = 0x0005,
  kCancelUnicastTransmission = 0x0006,
  kAcknowledgeCancelUnicastTransmission = 0x0007,
  kPathTrace = 0x0008,
  kAlternateTimeOffsetIndicator = 0x0009,
  kOrganizationExtensionPropagate = 0x4000,
  kOrganizationExtensionDoNotPropagate = 0x8000,
  kPad = 0x8008,
};

inline constexpr size_t kPtpTlvHeaderLength = 4;

struct PtpTlv {
  PtpTlvType type = PtpTlvType::kPad;
  std::span<const uint8_t> value;  // lengthField octets, inside the message
};

// Walks a TLV area. Each Next() checks that the 4-octet TLV header fits, that
// lengthField is even and that the value fits in what is left.
class PtpTlvReader {
 public:
  explicit PtpTlvReader(std::span<const uint8_t> area) : rest_(area) {}
  // The next TLV; false at the end of the area or at a malformed TLV (then
  // malformed() is true and the walk stays stopped).
  bool Next(PtpTlv* tlv);
  bool malformed() const { return malformed_; }

 private:
  std::span<const uint8_t> rest_;
  bool malformed_ = false;
};

// Whether `area` is, exactly, a chain of well-formed TLVs (empty is).
bool PtpTlvsWellFormed(std::span<const uint8_t> area);

// The first TLV of `type` in a well-formed area; false if none or malformed.
bool FindPtpTlv(std::span<const uint8_t> area, PtpTlvType type, PtpTlv* out);

// Writes one TLV. `value` must have an even length of at most 65534 octets.
size_t WritePtpTlv(PtpTlvType type, std::span<const uint8_t> value,
                   std::span<uint8_t> out);

// PTPText (5.3.9): a length octet and that many UTF-8 octets. Reads one from
// the front of `in`; false if it does not fit.
bool ReadPtpText(std::span<const uint8_t> in, std::string_view* text);

// ---- Unicast negotiation (16.1) ---------------------------------------------

// Message types a unicast grant may cover (16.1.4.1.3): Announce, Sync,
// Delay_Resp, Pdelay_Resp.
constexpr bool PtpIsUnicastNegotiable(PtpMessageType t) {
  return t == PtpMessageType::kAnnounce || t == PtpMessageType::kSync ||
         t == PtpMessageType::kDelayResp || t == PtpMessageType::kPdelayResp;
}

// REQUEST_UNICAST_TRANSMISSION: value 6 octets (messageType in the high
// nibble of octet 0, logInterMessagePeriod, durationField).
struct PtpUnicastRequest {
  PtpMessageType message_type = PtpMessageType::kSync;
  int8_t log_inter_message_period = 0;  // log2 seconds
  uint32_t duration_s = 0;
  friend constexpr bool operator==(const PtpUnicastRequest&,
                                   const PtpUnicastRequest&) = default;
};
inline constexpr size_t kPtpUnicastRequestValueLength = 6;

// GRANT_UNICAST_TRANSMISSION: value 8 octets (as the request, a reserved
// octet, and the flags octet whose bit 0 is R, renewal invited). A grant
// with duration_s 0 is a refusal.
struct PtpUnicastGrant {
  PtpMessageType message_type = PtpMessageType::kSync;
  int8_t log_inter_message_period = 0;
  uint32_t duration_s = 0;
  bool renewal_invited = false;
  friend constexpr bool operator==(const PtpUnicastGrant&,
                                   const PtpUnicastGrant&) = default;
};
inline constexpr size_t kPtpUnicastGrantValueLength = 8;

// CANCEL_ and ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION: value 2 octets
// (messageType in the high nibble, flags in the low nibble, a reserved
// octet). Flags as linuxptp reads them: bit 0 maintainRequest, bit 1
// maintainGrant.
inline constexpr uint8_t kPtpCancelMaintainRequest = 0x1;
inline constexpr uint8_t kPtpCancelMaintainGrant = 0x2;
struct PtpUnicastCancel {
  PtpMessageType message_type = PtpMessageType::kSync;
  uint8_t flags = 0;  // low 4 bits
  friend constexpr bool operator==(const PtpUnicastCancel&,
                                   const PtpUnicastCancel&) = default;
};
inline constexpr size_t kPtpUnicastCancelValueLength = 2;

// The parsers check the TLV type, the minimum value length (longer values are
// accepted and the extra octets ignored, as linuxptp does) and that the
// message type is negotiable.
bool ParsePtpUnicastRequestTlv(const PtpTlv& tlv, PtpUnicastRequest* out);
bool ParsePtpUnicastGrantTlv(const PtpTlv& tlv, PtpUnicastGrant* out);
// Accepts CANCEL_ or ACKNOWLEDGE_CANCEL_ (tlv.type says which).
bool ParsePtpUnicastCancelTlv(const PtpTlv& tlv, PtpUnicastCancel* out);

size_t WritePtpUnicastRequestTlv(const PtpUnicastRequest& req,
                                 std::span<uint8_t> out);
size_t WritePtpUnicastGrantTlv(const PtpUnicastGrant& grant,
                               std::span<uint8_t> out);
// `type` is kCancelUnicastTransmission or
// kAcknowledgeCancelUnicastTransmission.
size_t WritePtpUnicastCancelTlv(PtpTlvType type, const PtpUnicastCancel& c,
                                std::span<uint8_t> out);

// ---- PATH_TRACE (16.2) ------------------------------------------------------

// pathSequence: ClockIdentity values, 8 octets each, in the message buffer.
struct PtpPathTrace {
  std::span<const uint8_t> path_sequence;
  size_t size() const { return path_sequence.size() / 8; }
  PtpClockIdentity at(size_t i) const;  // i < size()
};
// False unless PATH_TRACE with a length that is a multiple of 8.
bool ParsePtpPathTraceTlv(const PtpTlv& tlv, PtpPathTrace* out);
size_t WritePtpPathTraceTlv(std::span<const PtpClockIdentity> path,
                            std::span<uint8_t> out);

// ---- ALTERNATE_TIME_OFFSET_INDICATOR (16.3) ---------------------------------

// keyField, currentOffset, jumpSeconds, timeOfNextJump (48 bits),
// displayName (PTPText), padded to an even length.
struct PtpAlternateTimeOffset {
  uint8_t key_field = 0;
  int32_t current_offset_s = 0;      // alternate timescale minus PTP time
  int32_t jump_seconds_s = 0;        // size of the next discontinuity
  uint64_t time_of_next_jump_s = 0;  // PTP seconds (48 bits)
  std::string_view display_name;     // into the message (or caller's text)
  friend constexpr bool operator==(const PtpAlternateTimeOffset&,
                                   const PtpAlternateTimeOffset&) = default;
};
bool ParsePtpAlternateTimeOffsetTlv(const PtpTlv& tlv,
                                    PtpAlternateTimeOffset* out);
// 0 if time_of_next_jump_s needs more than 48 bits or the name is > 255.
size_t WritePtpAlternateTimeOffsetTlv(const PtpAlternateTimeOffset& ato,
                                      std::span<uint8_t> out);

// ---- ORGANIZATION_EXTENSION (14.3) ------------------------------------------

// organizationId (OUI or CID), organizationSubType and opaque data. Type is
// kOrganizationExtension, kOrganizationExtensionPropagate or
// kOrganizationExtensionDoNotPropagate.
struct PtpOrganizationExtension {
  PtpTlvType type = PtpTlvType::kOrganizationExtension;
  std::array<uint8_t, 3> organization_id{};
  std::array<uint8_t, 3> organization_sub_type{};
  std::span<const uint8_t> data;  // into the message (or caller's bytes)
  friend bool operator==(const PtpOrganizationExtension& a,
                         const PtpOrganizationExtension& b);
};
constexpr bool PtpIsOrganizationExtension(PtpTlvType t) {
  return t == PtpTlvType::kOrganizationExtension ||
         t == PtpTlvType::kOrganizationExtensionPropagate ||
         t == PtpTlvType::kOrganizationExtensionDoNotPropagate;
}
bool ParsePtpOrganizationExtensionTlv(const PtpTlv& tlv,
                                      PtpOrganizationExtension* out);
// 0 if the data length is odd (the TLV length must be even).
size_t WritePtpOrganizationExtensionTlv(const PtpOrganizationExtension& org,
                                        std::span<uint8_t> out);

// ---- MANAGEMENT (15.5.2) and MANAGEMENT_ERROR_STATUS (15.5.4) ---------------

// managementId and dataField (into the message).
struct PtpManagementTlv {
  uint16_t management_id = 0;
  std::span<const uint8_t> data;
};
bool ParsePtpManagementTlv(const PtpTlv& tlv, PtpManagementTlv* out);
// An odd-length dataField is padded with one zero octet.
size_t WritePtpManagementTlv(uint16_t management_id,
                             std::span<const uint8_t> data,
                             std::span<uint8_t> out);

// managementErrorId, managementId, 4 reserved octets, optional displayData.
struct PtpManagementErrorStatusTlv {
  uint16_t management_error_id = 0;
  uint16_t management_id = 0;
  std::string_view display_data;  // empty when absent
};
inline constexpr size_t kPtpManagementErrorStatusMinValueLength = 8;
bool ParsePtpManagementErrorStatusTlv(const PtpTlv& tlv,
                                      PtpManagementErrorStatusTlv* out);
// displayData is written only when non-empty (at most 255 octets).
size_t WritePtpManagementErrorStatusTlv(const PtpManagementErrorStatusTlv& e,
                                        std::span<uint8_t> out);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_TLV_H_
