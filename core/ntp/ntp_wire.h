// SPDX-License-Identifier: Apache-2.0
// NTP wire format (RFC 5905): the 48-byte header, extension fields and the
// legacy MAC trailer (RFC 7822), NTS field types (RFC 8915), request
// validation with counted drop reasons, and Kiss-o'-Death packets.
//
// Everything here works on the UDP payload only (no IP/UDP headers), never
// reads or writes outside [payload, payload + len), never allocates and never
// throws, so the data plane can call it per packet. The server side is
//
//   const NtpRequestCheck check = ValidateNtpRequest(payload, len);
//   if (check.drop != NtpDrop::kNone) { ++drops[Index(check.drop)]; return; }
//   ... answer (core/ntp/ntp_reply.h) or send a KoD:
//   uint32_t reply_len = WriteNtpKissOfDeath(payload, check, kNtpKissRate, 6);
//
// and a client (zg-loadgen, tests) reads a reply with ParseNtpHeader and
// ClassifyNtpKiss, or the whole-sample helper in core/ntp/ntp_reply.h.
//
// Policy decisions, all in ValidateNtpRequest:
//  - Versions 1..4 are answered and the reply echoes the request's version
//    (as ntpd, ntpsec and chrony do). Version 1 (RFC 1059) has no mode field:
//    those three bits were unused, so a v1 request with mode 0 is a client
//    request; v1 with mode 3 is too. Versions 0 and 5..7 are dropped.
//  - Only client requests (mode 3) are answered; every other mode has its own
//    drop reason, so a counter shows symmetric peers, stray server replies
//    (reflection), broadcasts, ntpq (mode 6) and ntpdc monlist (mode 7) probes.
//  - A request carrying a MAC (symmetric key or MS-SNTP authenticator, or a
//    crypto-NAK) is dropped: we hold no keys, an authenticating client
//    discards an unauthenticated reply anyway, and a crypto-NAK is itself
//    unauthenticated and spoofable. With NtpMacHandling::kReport (a server
//    with --ntp_keys) a 20- or 24-byte symmetric MAC is reported instead. NTS
//    requests (RFC 8915) are dropped for the same reason unless the server
//    has NTS keys (NtpNtsHandling::kReport: core/nts/nts_server.h checks them).
//    Unknown extension fields are ignored (RFC 7822): the request is answered
//    and the fields are not echoed.
//  - A zero transmit timestamp is dropped: it would become the reply's origin
//    timestamp, and RFC 5905 clients discard a reply whose origin is zero.
//  - Lengths that are not a multiple of 4 are malformed (as chrony decides):
//    every NTP field and trailer is made of 32-bit words.
#ifndef ZG_CORE_NTP_NTP_WIRE_H_
#define ZG_CORE_NTP_NTP_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/byte_order.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

inline constexpr uint32_t kNtpHeaderSize = 48;
inline constexpr uint8_t kNtpVersion = 4;      // what we speak
inline constexpr uint8_t kNtpMinVersion = 1;   // oldest we answer
inline constexpr uint8_t kNtpMaxStratum = 16;  // RFC 5905 MAXSTRAT
// RFC 7822: an extension field is at least 16 bytes (4 header + 12 value).
inline constexpr uint32_t kNtpMinExtensionFieldSize = 16;
// Legacy MAC trailers: key id + MD5 (RFC 5905) or key id + SHA-1.
inline constexpr uint32_t kNtpMacMd5Size = 20;
inline constexpr uint32_t kNtpMacSha1Size = 24;
// RFC 1305 key id + 64-bit DES-CBC digest (NTPv2/v3 only).
inline constexpr uint32_t kNtpMacDesSize = 12;
// Crypto-NAK: a MAC of only a zero key id.
inline constexpr uint32_t kNtpCryptoNakSize = 4;

// Byte offsets of the header fields.
inline constexpr uint32_t kNtpOffsetRootDelay = 4;
inline constexpr uint32_t kNtpOffsetRootDispersion = 8;
inline constexpr uint32_t kNtpOffsetReferenceId = 12;
inline constexpr uint32_t kNtpOffsetReferenceTime = 16;
inline constexpr uint32_t kNtpOffsetOriginTime = 24;
inline constexpr uint32_t kNtpOffsetReceiveTime = 32;
inline constexpr uint32_t kNtpOffsetTransmitTime = 40;

enum class NtpMode : uint8_t {
  kReserved = 0,  // NTPv1: no mode field (all three bits zero)
  kSymmetricActive = 1,
  kSymmetricPassive = 2,
  kClient = 3,
  kServer = 4,
  kBroadcast = 5,
  kControl = 6,  // ntpq (RFC 1305 appendix B / RFC 9327)
  kPrivate = 7,  // ntpdc, e.g. the monlist amplification probe
};

// The refid as the big-endian value of its four bytes: "GPS" (padded with a
// NUL) is 0x47505300. ClockModel::reference_id uses the same convention.
constexpr uint32_t NtpRefId(const char (&code)[5]) {
  return (uint32_t{static_cast<uint8_t>(code[0])} << 24) |
         (uint32_t{static_cast<uint8_t>(code[1])} << 16) |
         (uint32_t{static_cast<uint8_t>(code[2])} << 8) |
         uint32_t{static_cast<uint8_t>(code[3])};
}

// Kiss codes we send (RFC 5905 section 7.4) and the NTS NAK (RFC 8915).
inline constexpr uint32_t kNtpKissRate = NtpRefId("RATE");
inline constexpr uint32_t kNtpKissDeny = NtpRefId("DENY");
inline constexpr uint32_t kNtpKissRestrict = NtpRefId("RSTR");
inline constexpr uint32_t kNtpKissNtsNak = NtpRefId("NTSN");

// The 48-byte NTP header, decoded to host order.
struct NtpHeader {
  NtpLeapIndicator leap = NtpLeapIndicator::kNoWarning;
  uint8_t version = kNtpVersion;  // 0..7 as on the wire
  NtpMode mode = NtpMode::kClient;
  uint8_t stratum = 0;
  int8_t poll_log2 = 0;       // log2 seconds
  int8_t precision_log2 = 0;  // log2 seconds
  NtpShort root_delay;
  NtpShort root_dispersion;
  uint32_t reference_id = 0;  // see NtpRefId()
  NtpTimestamp reference_time;
  NtpTimestamp origin_time;    // T1 as echoed by a server
  NtpTimestamp receive_time;   // T2
  NtpTimestamp transmit_time;  // T3 (T1 in a request)
  friend constexpr bool operator==(const NtpHeader&,
                                   const NtpHeader&) = default;
};

// Decodes the first 48 bytes; false (and *out untouched) if len < 48.
bool ParseNtpHeader(const uint8_t* payload, uint32_t len, NtpHeader* out);
// Encodes `h` into out[0..47].
void SerializeNtpHeader(const NtpHeader& h, uint8_t* out);

// ---- Field access (used by the in-place builders) -------------------------

inline NtpTimestamp LoadNtpTimestamp(const uint8_t* p) {
  return NtpTimestamp::FromU64(LoadBe64(p));
}
inline void StoreNtpTimestamp(uint8_t* p, NtpTimestamp ts) {
  StoreBe64(p, ts.ToU64());
}
constexpr uint8_t NtpLiVnMode(NtpLeapIndicator li, uint8_t version,
                              NtpMode mode) {
  return static_cast<uint8_t>((static_cast<uint8_t>(li) << 6) |
                              ((version & 7) << 3) |
                              static_cast<uint8_t>(mode));
}

// ---- Extension fields and MAC (RFC 7822) ----------------------------------

// NTS extension field types (RFC 8915 section 5.7).
enum class NtsFieldType : uint16_t {
  kUniqueIdentifier = 0x0104,
  kCookie = 0x0204,
  kCookiePlaceholder = 0x0304,
  kAuthenticator = 0x0404,
};

// An extension field's value padded to a whole number of 32-bit words.
constexpr uint32_t NtpPad4(uint32_t n) { return (n + 3) & ~uint32_t{3}; }

struct NtpExtensionField {
  uint16_t type = 0;
  uint16_t length = 0;             // whole field, header included
  const uint8_t* value = nullptr;  // length - 4 bytes
  uint32_t offset = 0;             // of the field within the payload
};

// Walks the extension fields after the header of an NTPv4 message:
//
//   NtpExtensionWalker walker(payload, len);
//   NtpExtensionField field;
//   NtpExtensionWalker::Step step;
//   while ((step = walker.Next(&field)) == NtpExtensionWalker::Step::kField) {
//     ...
//   }
//   // step is kEnd, kMac (walker.mac_offset()/mac_size()) or kMalformed.
//
// RFC 7822 rules: a field has a 16-bit type and a 16-bit length that counts
// the whole field, is at least 16 and a multiple of 4, and lies inside the
// message. What remains after the last field is nothing, or a legacy MAC,
// recognised by its size alone (20 bytes: key id + MD5, 24: key id + SHA-1);
// a 4-byte zero key id directly after the header is a crypto-NAK. A walker
// over a message shorter than the header reports kMalformed.
class NtpExtensionWalker {
 public:
  enum class Step : uint8_t { kField, kMac, kEnd, kMalformed };

  NtpExtensionWalker(const uint8_t* payload, uint32_t len)
      : payload_(payload), len_(len), offset_(kNtpHeaderSize) {}

  // The next step; after kMac, kEnd or kMalformed it keeps returning that.
  // Inline: an NTS request's walks (the trailer's, then the NTS fields')
  // take it once per field, its placeholders included.
  Step Next(NtpExtensionField* field);

  // Valid after Next() returned kMac.
  uint32_t mac_offset() const { return offset_; }
  uint32_t mac_size() const { return len_ - offset_; }

 private:
  const uint8_t* payload_;
  uint32_t len_;
  uint32_t offset_;
  Step done_ = Step::kField;  // kField while walking
};

inline NtpExtensionWalker::Step NtpExtensionWalker::Next(
    NtpExtensionField* field) {
  if (done_ != Step::kField) return done_;
  if (len_ < kNtpHeaderSize || offset_ > len_) return done_ = Step::kMalformed;
  const uint32_t remaining = len_ - offset_;
  if (remaining == 0) return done_ = Step::kEnd;
  if (remaining == kNtpMacMd5Size || remaining == kNtpMacSha1Size) {
    return done_ = Step::kMac;
  }
  if (offset_ == kNtpHeaderSize && remaining == kNtpCryptoNakSize &&
      LoadBe32(payload_ + offset_) == 0) {
    return done_ = Step::kMac;
  }
  if (remaining < kNtpMinExtensionFieldSize) return done_ = Step::kMalformed;
  const uint8_t* p = payload_ + offset_;
  const uint16_t length = LoadBe16(p + 2);
  if (length < kNtpMinExtensionFieldSize || length % 4 != 0 ||
      length > remaining) {
    return done_ = Step::kMalformed;
  }
  field->type = LoadBe16(p);
  field->length = length;
  field->value = p + 4;
  field->offset = offset_;
  offset_ += length;
  return Step::kField;
}

// What follows the header, summarised.
enum class NtpMacKind : uint8_t {
  kNone = 0,
  kSymmetric,  // key id + digest (DES, MD5, SHA-1, or any size in NTPv1..3)
  kMsSntp,     // NTPv3, key id != 0, all-zero 16-byte digest (MS-SNTP)
  kCryptoNak,  // 4-byte zero key id
};
struct NtpTrailer {
  bool malformed = false;
  uint16_t extension_fields = 0;  // all fields, NTS included
  uint16_t nts_fields = 0;        // of the four NTS types
  NtpMacKind mac = NtpMacKind::kNone;
  uint32_t mac_offset = 0;
  uint32_t mac_size = 0;
  uint32_t mac_key_id = 0;
};
// Summarises the bytes after the header for a message of `version`. NTPv4 is
// walked as RFC 7822 says; NTPv1..v3 have no extension fields, so a trailer
// there must be a legacy authenticator (12, 20 or 24 bytes).
NtpTrailer ParseNtpTrailer(const uint8_t* payload, uint32_t len,
                           uint8_t version);

// ---- Request validation ---------------------------------------------------

// Why a request got no reply. Names (NtpDropName) are stable metric labels.
enum class NtpDrop : uint8_t {
  kNone = 0,            // valid client request: answer it
  kTooShort,            // shorter than the 48-byte header
  kBadLength,           // length not a multiple of 4
  kBadVersion,          // version 0 or 5..7
  kModeReserved,        // mode 0 in NTPv2..v4
  kModeSymmetric,       // mode 1 or 2 (we do not peer)
  kModeServer,          // mode 4: a reply sent to us (reflection?)
  kModeBroadcast,       // mode 5
  kModeControl,         // mode 6 (ntpq)
  kModePrivate,         // mode 7 (ntpdc, monlist)
  kMalformedExtension,  // bad extension field or trailer (RFC 7822)
  kMacPresent,          // authenticated request; we hold no keys
  kNtsUnsupported,      // NTS extension fields (RFC 8915)
  kZeroTransmit,        // transmit timestamp zero: no usable origin
  kCount
};
inline constexpr size_t kNtpDropCount = static_cast<size_t>(NtpDrop::kCount);
const char* NtpDropName(NtpDrop drop);

struct NtpRequestCheck {
  NtpDrop drop = NtpDrop::kNone;
  uint8_t version = 0;  // as received (meaningful when drop != kTooShort)
  NtpTrailer trailer;   // extension fields / MAC seen
};

// What ValidateNtpRequest does with a symmetric-key MAC trailer.
enum class NtpMacHandling : uint8_t {
  // Drop it (kMacPresent): the caller holds no keys.
  kDrop,
  // Report it: a symmetric MAC of 20 or 24 bytes (key id + MD5/AES-CMAC or
  // SHA-1 digest) passes with drop == kNone, trailer.mac == kSymmetric and
  // its place and key id in the trailer, for an authenticator
  // (core/ntp/ntp_mac.h) to check. Forms no key can verify (DES, crypto-NAK,
  // MS-SNTP) are still kMacPresent: chrony answers none of them either
  // (ntp_auth.c check_symmetric_auth wants at least 20 bytes).
  kReport,
};

// What ValidateNtpRequest does with NTS extension fields (RFC 8915).
enum class NtpNtsHandling : uint8_t {
  // Drop the request (kNtsUnsupported): the server has no NTS keys.
  kDrop,
  // Report it: an NTPv4 request with any NTS field passes with drop ==
  // kNone and trailer.nts_fields != 0 (a trailing MAC, which NTS forbids,
  // is not checked here), for core/nts/nts_server.h to check. The other
  // checks (version, mode, length, framing, zero transmit) still apply.
  kReport,
};

// Validates a client request (the UDP payload). Reads only
// payload[0..len); never writes.
NtpRequestCheck ValidateNtpRequest(
    const uint8_t* payload, uint32_t len,
    NtpMacHandling mac_handling = NtpMacHandling::kDrop,
    NtpNtsHandling nts_handling = NtpNtsHandling::kDrop);

// ---- Kiss-o'-Death --------------------------------------------------------

// Rewrites a validated request (check.drop == kNone) into a KoD reply in
// place: LI=3, the request's version, mode 4, stratum 0, refid `kiss_code`,
// poll = max(request poll, min_poll_log2), origin = the client's transmit
// timestamp; receive and transmit repeat it so that no local time is revealed
// (as ntpd does). Returns the reply length (48: no extension fields).
uint32_t WriteNtpKissOfDeath(uint8_t* payload, const NtpRequestCheck& check,
                             uint32_t kiss_code, int8_t min_poll_log2);

// How a client should read a server packet's stratum / refid.
enum class NtpKiss : uint8_t {
  kNotKiss = 0,  // stratum != 0: an ordinary packet
  kRate,         // reduce the polling rate (RFC 5905 7.4)
  kDeny,         // access denied: stop
  kRestrict,     // access restricted: stop
  kNtsNak,       // NTS cookie not accepted (RFC 8915)
  kOther,        // stratum 0 with another code (INIT, unsynchronised, ...)
};
NtpKiss ClassifyNtpKiss(const NtpHeader& h);
const char* NtpKissName(NtpKiss kiss);

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_WIRE_H_
