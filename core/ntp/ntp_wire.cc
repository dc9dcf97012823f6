// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_wire.h"

namespace zg::core {
namespace {

bool IsNtsField(uint16_t type) {
  switch (static_cast<NtsFieldType>(type)) {
    case NtsFieldType::kUniqueIdentifier:
    case NtsFieldType::kCookie:
    case NtsFieldType::kCookiePlaceholder:
    case NtsFieldType::kAuthenticator:
      return true;
  }
  return false;
}

bool AllZero(const uint8_t* p, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// NTPv1..v3: no extension fields; anything after the header is an
// authenticator (RFC 1305 appendix C and its MD5/SHA-1 successors).
void ParseLegacyTrailer(const uint8_t* payload, uint32_t len, uint8_t version,
                        NtpTrailer* t) {
  const uint32_t size = len - kNtpHeaderSize;
  if (size < 4) {
    t->malformed = true;
    return;
  }
  const uint8_t* mac = payload + kNtpHeaderSize;
  const uint32_t key_id = LoadBe32(mac);
  t->mac_offset = kNtpHeaderSize;
  t->mac_size = size;
  t->mac_key_id = key_id;
  // MS-SNTP (Windows domain time): key id (RID) and a zero digest, either
  // 16 bytes or the extended 68-byte form.
  if (version == 3 && key_id != 0 &&
      ((size == 20 && AllZero(mac + 4, 16)) ||
       (size == 72 && AllZero(mac + 8, 64)))) {
    t->mac = NtpMacKind::kMsSntp;
    return;
  }
  if (size == kNtpMacDesSize || size == kNtpMacMd5Size ||
      size == kNtpMacSha1Size) {
    t->mac = NtpMacKind::kSymmetric;
    return;
  }
  t->malformed = true;
}

}  // namespace

bool ParseNtpHeader(const uint8_t* payload, uint32_t len, NtpHeader* out) {
  if (len < kNtpHeaderSize) return false;
  const uint8_t b0 = payload[0];
  out->leap = static_cast<NtpLeapIndicator>(b0 >> 6);
  out->version = (b0 >> 3) & 7;
  out->mode = static_cast<NtpMode>(b0 & 7);
  out->stratum = payload[1];
  out->poll_log2 = static_cast<int8_t>(payload[2]);
  out->precision_log2 = static_cast<int8_t>(payload[3]);
  out->root_delay = NtpShort::FromU32(LoadBe32(payload + 4));
  out->root_dispersion = NtpShort::FromU32(LoadBe32(payload + 8));
  out->reference_id = LoadBe32(payload + kNtpOffsetReferenceId);
  out->reference_time = LoadNtpTimestamp(payload + kNtpOffsetReferenceTime);
  out->origin_time = LoadNtpTimestamp(payload + kNtpOffsetOriginTime);
  out->receive_time = LoadNtpTimestamp(payload + kNtpOffsetReceiveTime);
  out->transmit_time = LoadNtpTimestamp(payload + kNtpOffsetTransmitTime);
  return true;
}

void SerializeNtpHeader(const NtpHeader& h, uint8_t* out) {
  out[0] = NtpLiVnMode(h.leap, h.version, h.mode);
  out[1] = h.stratum;
  out[2] = static_cast<uint8_t>(h.poll_log2);
  out[3] = static_cast<uint8_t>(h.precision_log2);
  StoreBe32(out + kNtpOffsetRootDelay, h.root_delay.ToU32());
  StoreBe32(out + kNtpOffsetRootDispersion, h.root_dispersion.ToU32());
  StoreBe32(out + kNtpOffsetReferenceId, h.reference_id);
  StoreNtpTimestamp(out + kNtpOffsetReferenceTime, h.reference_time);
  StoreNtpTimestamp(out + kNtpOffsetOriginTime, h.origin_time);
  StoreNtpTimestamp(out + kNtpOffsetReceiveTime, h.receive_time);
  StoreNtpTimestamp(out + kNtpOffsetTransmitTime, h.transmit_time);
}

NtpTrailer ParseNtpTrailer(const uint8_t* payload, uint32_t len,
                           uint8_t version) {
  NtpTrailer t;
  if (len < kNtpHeaderSize) {
    t.malformed = true;
    return t;
  }
  if (len == kNtpHeaderSize) return t;
  if (version < 4) {
    ParseLegacyTrailer(payload, len, version, &t);
    return t;
  }
  NtpExtensionWalker walker(payload, len);
  NtpExtensionField field;
  NtpExtensionWalker::Step step;
  while ((step = walker.Next(&field)) == NtpExtensionWalker::Step::kField) {
    ++t.extension_fields;
    if (IsNtsField(field.type)) ++t.nts_fields;
  }
  if (step == NtpExtensionWalker::Step::kMalformed) {
    t.malformed = true;
  } else if (step == NtpExtensionWalker::Step::kMac) {
    t.mac_offset = walker.mac_offset();
    t.mac_size = walker.mac_size();
    t.mac_key_id = LoadBe32(payload + t.mac_offset);
    t.mac = t.mac_size == kNtpCryptoNakSize ? NtpMacKind::kCryptoNak
                                            : NtpMacKind::kSymmetric;
  }
  return t;
}

const char* NtpDropName(NtpDrop drop) {
  switch (drop) {
    case NtpDrop::kNone:
      return "none";
    case NtpDrop::kTooShort:
      return "too_short";
    case NtpDrop::kBadLength:
      return "bad_length";
    case NtpDrop::kBadVersion:
      return "bad_version";
    case NtpDrop::kModeReserved:
      return "mode_reserved";
    case NtpDrop::kModeSymmetric:
      return "mode_symmetric";
    case NtpDrop::kModeServer:
      return "mode_server";
    case NtpDrop::kModeBroadcast:
      return "mode_broadcast";
    case NtpDrop::kModeControl:
      return "mode_control";
    case NtpDrop::kModePrivate:
      return "mode_private";
    case NtpDrop::kMalformedExtension:
      return "malformed_extension";
    case NtpDrop::kMacPresent:
      return "mac_present";
    case NtpDrop::kNtsUnsupported:
      return "nts_unsupported";
    case NtpDrop::kZeroTransmit:
      return "zero_transmit";
    case NtpDrop::kCount:
      break;
  }
  return "unknown";
}

namespace {

NtpDrop ModeDrop(NtpMode mode, uint8_t version) {
  switch (mode) {
    case NtpMode::kClient:
      return NtpDrop::kNone;
    case NtpMode::kReserved:
      // RFC 1059 (NTPv1) had no mode field: zero there means "client".
      return version == 1 ? NtpDrop::kNone : NtpDrop::kModeReserved;
    case NtpMode::kSymmetricActive:
    case NtpMode::kSymmetricPassive:
      return NtpDrop::kModeSymmetric;
    case NtpMode::kServer:
      return NtpDrop::kModeServer;
    case NtpMode::kBroadcast:
      return NtpDrop::kModeBroadcast;
    case NtpMode::kControl:
      return NtpDrop::kModeControl;
    case NtpMode::kPrivate:
      return NtpDrop::kModePrivate;
  }
  return NtpDrop::kModeReserved;
}

}  // namespace

NtpRequestCheck ValidateNtpRequest(const uint8_t* payload, uint32_t len,
                                   NtpMacHandling mac_handling,
                                   NtpNtsHandling nts_handling) {
  NtpRequestCheck c;
  if (len < 1) {
    c.drop = NtpDrop::kTooShort;
    return c;
  }
  // Version and mode first, so mode 6/7 probes (often shorter than 48 bytes)
  // are counted as what they are.
  c.version = (payload[0] >> 3) & 7;
  if (c.version < kNtpMinVersion || c.version > kNtpVersion) {
    c.drop = NtpDrop::kBadVersion;
    return c;
  }
  c.drop = ModeDrop(static_cast<NtpMode>(payload[0] & 7), c.version);
  if (c.drop != NtpDrop::kNone) return c;
  if (len < kNtpHeaderSize) {
    c.drop = NtpDrop::kTooShort;
    return c;
  }
  if (len % 4 != 0) {
    c.drop = NtpDrop::kBadLength;
    return c;
  }
  c.trailer = ParseNtpTrailer(payload, len, c.version);
  const bool nts_reported =
      nts_handling == NtpNtsHandling::kReport && c.trailer.nts_fields != 0;
  if (c.trailer.malformed) {
    c.drop = NtpDrop::kMalformedExtension;
  } else if (nts_reported) {
    // The NTS check (core/nts/nts_server.h) rejects a trailing MAC.
    if (LoadNtpTimestamp(payload + kNtpOffsetTransmitTime).IsZero()) {
      c.drop = NtpDrop::kZeroTransmit;
    }
  } else if (c.trailer.mac != NtpMacKind::kNone &&
             !(mac_handling == NtpMacHandling::kReport &&
               c.trailer.mac == NtpMacKind::kSymmetric &&
               (c.trailer.mac_size == kNtpMacMd5Size ||
                c.trailer.mac_size == kNtpMacSha1Size))) {
    c.drop = NtpDrop::kMacPresent;
  } else if (c.trailer.nts_fields != 0) {
    c.drop = NtpDrop::kNtsUnsupported;
  } else if (LoadNtpTimestamp(payload + kNtpOffsetTransmitTime).IsZero()) {
    c.drop = NtpDrop::kZeroTransmit;
  }
  return c;
}

uint32_t WriteNtpKissOfDeath(uint8_t* payload, const NtpRequestCheck& check,
                             uint32_t kiss_code, int8_t min_poll_log2) {
  const int8_t request_poll = static_cast<int8_t>(payload[2]);
  const NtpTimestamp client_tx =
      LoadNtpTimestamp(payload + kNtpOffsetTransmitTime);
  payload[0] = NtpLiVnMode(NtpLeapIndicator::kUnsynchronized, check.version,
                           NtpMode::kServer);
  payload[1] = 0;  // stratum 0: the refid is a kiss code
  payload[2] = static_cast<uint8_t>(
      request_poll > min_poll_log2 ? request_poll : min_poll_log2);
  payload[3] = 0;
  StoreBe32(payload + kNtpOffsetRootDelay, 0);
  StoreBe32(payload + kNtpOffsetRootDispersion, 0);
  StoreBe32(payload + kNtpOffsetReferenceId, kiss_code);
  StoreNtpTimestamp(payload + kNtpOffsetReferenceTime, NtpTimestamp{});
  StoreNtpTimestamp(payload + kNtpOffsetOriginTime, client_tx);
  StoreNtpTimestamp(payload + kNtpOffsetReceiveTime, client_tx);
  StoreNtpTimestamp(payload + kNtpOffsetTransmitTime, client_tx);
  return kNtpHeaderSize;
}

NtpKiss ClassifyNtpKiss(const NtpHeader& h) {
  if (h.stratum != 0) return NtpKiss::kNotKiss;
  switch (h.reference_id) {
    case kNtpKissRate:
      return NtpKiss::kRate;
    case kNtpKissDeny:
      return NtpKiss::kDeny;
    case kNtpKissRestrict:
      return NtpKiss::kRestrict;
    case kNtpKissNtsNak:
      return NtpKiss::kNtsNak;
    default:
      return NtpKiss::kOther;
  }
}

const char* NtpKissName(NtpKiss kiss) {
  switch (kiss) {
    case NtpKiss::kNotKiss:
      return "none";
    case NtpKiss::kRate:
      return "RATE";
    case NtpKiss::kDeny:
      return "DENY";
    case NtpKiss::kRestrict:
      return "RSTR";
    case NtpKiss::kNtsNak:
      return "NTSN";
    case NtpKiss::kOther:
      return "other";
  }
  return "unknown";
}

}  // namespace zg::core
