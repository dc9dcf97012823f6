// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_tlv.h"

#include <algorithm>
#include <cstring>

#include "core/ptp/ptp_fields.h"

namespace zg::core {
namespace {

constexpr size_t kMaxTlvValueLength = 0xFFFE;  // largest even 16-bit length

// Writes the 4-octet TLV header for a value of `value_length` octets and
// returns the start of the value, or nullptr if the TLV does not fit in
// `out` or its length is odd or too large.
uint8_t* BeginTlv(PtpTlvType type, size_t value_length,
                  std::span<uint8_t> out) {
  if (value_length % 2 != 0 || value_length > kMaxTlvValueLength ||
      out.size() < kPtpTlvHeaderLength + value_length) {
    return nullptr;
  }
  StoreBe16(out.data(), static_cast<uint16_t>(type));
  StoreBe16(out.data() + 2, static_cast<uint16_t>(value_length));
  return out.data() + kPtpTlvHeaderLength;
}

// The messageType nibble of a unicast negotiation TLV, if negotiable.
bool ReadNegotiableType(uint8_t octet, PtpMessageType* type) {
  const uint8_t nibble = octet >> 4;
  if (!PtpIsKnownMessageType(nibble)) return false;
  *type = static_cast<PtpMessageType>(nibble);
  return PtpIsUnicastNegotiable(*type);
}

// Value length of a PTPText of `n` octets plus what precedes it, padded even.
constexpr size_t PaddedEven(size_t n) { return n + (n % 2); }

}  // namespace

bool PtpTlvReader::Next(PtpTlv* tlv) {
  if (malformed_ || rest_.empty()) return false;
  if (rest_.size() < kPtpTlvHeaderLength) {
    malformed_ = true;
    return false;
  }
  const uint16_t length = LoadBe16(rest_.data() + 2);
  if (length % 2 != 0 || length > rest_.size() - kPtpTlvHeaderLength) {
    malformed_ = true;
    return false;
  }
  tlv->type = static_cast<PtpTlvType>(LoadBe16(rest_.data()));
  tlv->value = rest_.subspan(kPtpTlvHeaderLength, length);
  rest_ = rest_.subspan(kPtpTlvHeaderLength + length);
  return true;
}

bool PtpTlvsWellFormed(std::span<const uint8_t> area) {
  PtpTlvReader reader(area);
  PtpTlv tlv;
  while (reader.Next(&tlv)) {
  }
  return !reader.malformed();
}

bool FindPtpTlv(std::span<const uint8_t> area, PtpTlvType type, PtpTlv* out) {
  PtpTlvReader reader(area);
  PtpTlv tlv;
  while (reader.Next(&tlv)) {
    if (tlv.type == type) {
      *out = tlv;
      return true;
    }
  }
  return false;
}

size_t WritePtpTlv(PtpTlvType type, std::span<const uint8_t> value,
                   std::span<uint8_t> out) {
  uint8_t* v = BeginTlv(type, value.size(), out);
  if (v == nullptr) return 0;
  if (!value.empty()) std::memcpy(v, value.data(), value.size());
  return kPtpTlvHeaderLength + value.size();
}

bool ReadPtpText(std::span<const uint8_t> in, std::string_view* text) {
  if (in.empty() || in[0] > in.size() - 1) return false;
  *text = std::string_view(reinterpret_cast<const char*>(in.data() + 1), in[0]);
  return true;
}

// ---- Unicast negotiation ----------------------------------------------------

bool ParsePtpUnicastRequestTlv(const PtpTlv& tlv, PtpUnicastRequest* out) {
  if (tlv.type != PtpTlvType::kRequestUnicastTransmission ||
      tlv.value.size() < kPtpUnicastRequestValueLength) {
    return false;
  }
  const uint8_t* v = tlv.value.data();
  if (!ReadNegotiableType(v[0], &out->message_type)) return false;
  out->log_inter_message_period = static_cast<int8_t>(v[1]);
  out->duration_s = LoadBe32(v + 2);
  return true;
}

bool ParsePtpUnicastGrantTlv(const PtpTlv& tlv, PtpUnicastGrant* out) {
  if (tlv.type != PtpTlvType::kGrantUnicastTransmission ||
      tlv.value.size() < kPtpUnicastGrantValueLength) {
    return false;
  }
  const uint8_t* v = tlv.value.data();
  if (!ReadNegotiableType(v[0], &out->message_type)) return false;
  out->log_inter_message_period = static_cast<int8_t>(v[1]);
  out->duration_s = LoadBe32(v + 2);
  // v[6] reserved.
  out->renewal_invited = (v[7] & 0x01) != 0;
  return true;
}

bool ParsePtpUnicastCancelTlv(const PtpTlv& tlv, PtpUnicastCancel* out) {
  if ((tlv.type != PtpTlvType::kCancelUnicastTransmission &&
       tlv.type != PtpTlvType::kAcknowledgeCancelUnicastTransmission) ||
      tlv.value.size() < kPtpUnicastCancelValueLength) {
    return false;
  }
  if (!ReadNegotiableType(tlv.value[0], &out->message_type)) return false;
  out->flags = tlv.value[0] & 0x0F;
  return true;
}

size_t WritePtpUnicastRequestTlv(const PtpUnicastRequest& req,
                                 std::span<uint8_t> out) {
  if (!PtpIsUnicastNegotiable(req.message_type)) return 0;
  uint8_t* v = BeginTlv(PtpTlvType::kRequestUnicastTransmission,
                        kPtpUnicastRequestValueLength, out);
  if (v == nullptr) return 0;
  v[0] = static_cast<uint8_t>(static_cast<uint8_t>(req.message_type) << 4);
  v[1] = static_cast<uint8_t>(req.log_inter_message_period);
  StoreBe32(v + 2, req.duration_s);
  return kPtpTlvHeaderLength + kPtpUnicastRequestValueLength;
}

size_t WritePtpUnicastGrantTlv(const PtpUnicastGrant& grant,
                               std::span<uint8_t> out) {
  if (!PtpIsUnicastNegotiable(grant.message_type)) return 0;
  uint8_t* v = BeginTlv(PtpTlvType::kGrantUnicastTransmission,
                        kPtpUnicastGrantValueLength, out);
  if (v == nullptr) return 0;
  v[0] = static_cast<uint8_t>(static_cast<uint8_t>(grant.message_type) << 4);
  v[1] = static_cast<uint8_t>(grant.log_inter_message_period);
  StoreBe32(v + 2, grant.duration_s);
  v[6] = 0;
  v[7] = grant.renewal_invited ? 0x01 : 0x00;
  return kPtpTlvHeaderLength + kPtpUnicastGrantValueLength;
}

size_t WritePtpUnicastCancelTlv(PtpTlvType type, const PtpUnicastCancel& c,
                                std::span<uint8_t> out) {
  if ((type != PtpTlvType::kCancelUnicastTransmission &&
       type != PtpTlvType::kAcknowledgeCancelUnicastTransmission) ||
      !PtpIsUnicastNegotiable(c.message_type) || c.flags > 0x0F) {
    return 0;
  }
  uint8_t* v = BeginTlv(type, kPtpUnicastCancelValueLength, out);
  if (v == nullptr) return 0;
  v[0] = static_cast<uint8_t>((static_cast<uint8_t>(c.message_type) << 4) |
                              c.flags);
  v[1] = 0;
  return kPtpTlvHeaderLength + kPtpUnicastCancelValueLength;
}

// ---- PATH_TRACE -------------------------------------------------------------

PtpClockIdentity PtpPathTrace::at(size_t i) const {
  return LoadPtpClockIdentity(path_sequence.data() + i * 8);
}

bool ParsePtpPathTraceTlv(const PtpTlv& tlv, PtpPathTrace* out) {
  if (tlv.type != PtpTlvType::kPathTrace ||
      tlv.value.size() % kPtpClockIdentityLength != 0) {
    return false;
  }
  out->path_sequence = tlv.value;
  return true;
}

size_t WritePtpPathTraceTlv(std::span<const PtpClockIdentity> path,
                            std::span<uint8_t> out) {
  if (path.size() > kMaxTlvValueLength / kPtpClockIdentityLength) return 0;
  const size_t length = path.size() * kPtpClockIdentityLength;
  uint8_t* v = BeginTlv(PtpTlvType::kPathTrace, length, out);
  if (v == nullptr) return 0;
  for (const PtpClockIdentity& id : path) {
    StorePtpClockIdentity(v, id);
    v += kPtpClockIdentityLength;
  }
  return kPtpTlvHeaderLength + length;
}

// ---- ALTERNATE_TIME_OFFSET_INDICATOR ----------------------------------------

namespace {
constexpr size_t kAtoFixedLength = 15;  // key, offset, jump, next jump
}  // namespace

bool ParsePtpAlternateTimeOffsetTlv(const PtpTlv& tlv,
                                    PtpAlternateTimeOffset* out) {
  if (tlv.type != PtpTlvType::kAlternateTimeOffsetIndicator ||
      tlv.value.size() < kAtoFixedLength + 1) {
    return false;
  }
  const uint8_t* v = tlv.value.data();
  if (!ReadPtpText(tlv.value.subspan(kAtoFixedLength), &out->display_name)) {
    return false;
  }
  out->key_field = v[0];
  out->current_offset_s = static_cast<int32_t>(LoadBe32(v + 1));
  out->jump_seconds_s = static_cast<int32_t>(LoadBe32(v + 5));
  out->time_of_next_jump_s = LoadBe48(v + 9);
  return true;
}

size_t WritePtpAlternateTimeOffsetTlv(const PtpAlternateTimeOffset& ato,
                                      std::span<uint8_t> out) {
  if (ato.time_of_next_jump_s > kPtpSecondsMask ||
      ato.display_name.size() > 0xFF) {
    return 0;
  }
  const size_t unpadded = kAtoFixedLength + 1 + ato.display_name.size();
  const size_t length = PaddedEven(unpadded);
  uint8_t* v = BeginTlv(PtpTlvType::kAlternateTimeOffsetIndicator, length, out);
  if (v == nullptr) return 0;
  v[0] = ato.key_field;
  StoreBe32(v + 1, static_cast<uint32_t>(ato.current_offset_s));
  StoreBe32(v + 5, static_cast<uint32_t>(ato.jump_seconds_s));
  StoreBe48(v + 9, ato.time_of_next_jump_s);
  v[kAtoFixedLength] = static_cast<uint8_t>(ato.display_name.size());
  if (!ato.display_name.empty()) {
    std::memcpy(v + kAtoFixedLength + 1, ato.display_name.data(),
                ato.display_name.size());
  }
  if (length != unpadded) v[unpadded] = 0;
  return kPtpTlvHeaderLength + length;
}

// ---- ORGANIZATION_EXTENSION -------------------------------------------------

namespace {
constexpr size_t kOrgFixedLength = 6;  // organizationId + organizationSubType
}  // namespace

bool operator==(const PtpOrganizationExtension& a,
                const PtpOrganizationExtension& b) {
  return a.type == b.type && a.organization_id == b.organization_id &&
         a.organization_sub_type == b.organization_sub_type &&
         std::ranges::equal(a.data, b.data);
}

bool ParsePtpOrganizationExtensionTlv(const PtpTlv& tlv,
                                      PtpOrganizationExtension* out) {
  if (!PtpIsOrganizationExtension(tlv.type) ||
      tlv.value.size() < kOrgFixedLength) {
    return false;
  }
  out->type = tlv.type;
  std::memcpy(out->organization_id.data(), tlv.value.data(), 3);
  std::memcpy(out->organization_sub_type.data(), tlv.value.data() + 3, 3);
  out->data = tlv.value.subspan(kOrgFixedLength);
  return true;
}

size_t WritePtpOrganizationExtensionTlv(const PtpOrganizationExtension& org,
                                        std::span<uint8_t> out) {
  if (!PtpIsOrganizationExtension(org.type)) return 0;
  const size_t length = kOrgFixedLength + org.data.size();
  uint8_t* v = BeginTlv(org.type, length, out);
  if (v == nullptr) return 0;
  std::memcpy(v, org.organization_id.data(), 3);
  std::memcpy(v + 3, org.organization_sub_type.data(), 3);
  if (!org.data.empty()) {
    std::memcpy(v + kOrgFixedLength, org.data.data(), org.data.size());
  }
  return kPtpTlvHeaderLength + length;
}

// ---- MANAGEMENT and MANAGEMENT_ERROR_STATUS ---------------------------------

bool ParsePtpManagementTlv(const PtpTlv& tlv, PtpManagementTlv* out) {
  if (tlv.type != PtpTlvType::kManagement || tlv.value.size() < 2) {
    return false;
  }
  out->management_id = LoadBe16(tlv.value.data());
  out->data = tlv.value.subspan(2);
  return true;
}

size_t WritePtpManagementTlv(uint16_t management_id,
                             std::span<const uint8_t> data,
                             std::span<uint8_t> out) {
  const size_t length = PaddedEven(2 + data.size());
  uint8_t* v = BeginTlv(PtpTlvType::kManagement, length, out);
  if (v == nullptr) return 0;
  StoreBe16(v, management_id);
  if (!data.empty()) std::memcpy(v + 2, data.data(), data.size());
  if (length != 2 + data.size()) v[length - 1] = 0;
  return kPtpTlvHeaderLength + length;
}

bool ParsePtpManagementErrorStatusTlv(const PtpTlv& tlv,
                                      PtpManagementErrorStatusTlv* out) {
  if (tlv.type != PtpTlvType::kManagementErrorStatus ||
      tlv.value.size() < kPtpManagementErrorStatusMinValueLength) {
    return false;
  }
  const uint8_t* v = tlv.value.data();
  out->management_error_id = LoadBe16(v);
  out->management_id = LoadBe16(v + 2);
  // v[4..7] reserved.
  out->display_data = {};
  const auto rest = tlv.value.subspan(kPtpManagementErrorStatusMinValueLength);
  return rest.empty() || ReadPtpText(rest, &out->display_data);
}

size_t WritePtpManagementErrorStatusTlv(const PtpManagementErrorStatusTlv& e,
                                        std::span<uint8_t> out) {
  if (e.display_data.size() > 0xFF) return 0;
  const size_t text = e.display_data.empty() ? 0 : 1 + e.display_data.size();
  const size_t unpadded = kPtpManagementErrorStatusMinValueLength + text;
  const size_t length = PaddedEven(unpadded);
  uint8_t* v = BeginTlv(PtpTlvType::kManagementErrorStatus, length, out);
  if (v == nullptr) return 0;
  StoreBe16(v, e.management_error_id);
  StoreBe16(v + 2, e.management_id);
  std::memset(v + 4, 0, 4);
  if (text != 0) {
    v[8] = static_cast<uint8_t>(e.display_data.size());
    std::memcpy(v + 9, e.display_data.data(), e.display_data.size());
  }
  if (length != unpadded) v[unpadded] = 0;
  return kPtpTlvHeaderLength + length;
}

}  // namespace zg::core
