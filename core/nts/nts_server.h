// SPDX-License-Identifier: Apache-2.0
// The server side of NTS-protected NTP (RFC 8915 section 5) for the
// workers: the extension-field walk of a request, its cookie opened and its
// authenticator verified, and the reply's fields written in place, with the
// reply's seal split off so that it runs after T3 is written.
//
// Per request (all in the request's buffer; no allocation, lock, syscall):
//
//   NtsServer server(&random);                     // per worker
//   NtsRequestState st;
//   NtsFailure f = server.Check(payload, len, keystore, &st);
//   if (NtsFailureIsNak(f)) len = WriteNtsKiss(payload, check, kNtpKissNtsNak,
//                                              0, st.fields);   // NTS NAK
//   else if (f != NtsFailure::kNone) drop, counted as NtsFailureName(f);
//   WriteNtpReply(payload, check, rx, model);      // the 48-byte header
//   NtsSealJob job;
//   uint32_t n = server.WriteReply(payload, len, st, keystore, &job);
//   if (n == 0) drop (kReplyTooLong);
//   ... later, just before tx_burst:
//   siv.SetKey(job.s2c.data());
//   StampNtpTransmit(payload, tx_time, model);     // T3
//   SealNtsReply(siv, payload, job);               // covers T3
//
// Request rules (RFC 8915 section 5.7, as chrony 4.3's server applies them,
// nts_ntp_server.c NNS_CheckRequestAuth):
//   - RFC 7822 framing after the 48-byte header (4-byte aligned fields of at
//     least 16 bytes); a legacy MAC trailer is "malformed": nothing may
//     follow the authenticator unauthenticated;
//   - exactly one Unique Identifier (body >= 32 bytes), exactly one NTS
//     Cookie, any number of Cookie Placeholders whose bodies are as long as
//     the cookie's, exactly one NTS Authenticator and Encrypted Extension
//     Fields field, the last one; other fields are ignored (they are
//     authenticated: the AD covers them);
//   - authenticator body: nonce length >= 1, ciphertext length >= 16, both
//     padded to 4 bytes within the body, and (the padding rule of 5.6) room
//     for a 16-byte nonce: a reply with our 16-byte nonce is then never
//     longer than the request;
//   - the cookie opens under the keystore's window (else an NTS NAK: KoD
//     "NTSN", stratum 0, the Unique Identifier echoed, no authenticator);
//   - the authenticator opens under the cookie's C2S key, AD = the header
//     and every field before the authenticator, nonce the last component.
//     A failure gets an NTS NAK too: RFC 8915 5.7 says the server SHOULD
//     NAK a request it cannot authenticate, and chrony does (the NAK is
//     shorter than the request and carries no time).
//     Encrypted extension fields the client sent are decrypted in place and
//     ignored.
// Reply: header + the Unique Identifier + an authenticator whose plaintext
// is one NTS Cookie field (104 bytes) per cookie and placeholder received
// (at most kNtsMaxReplyCookies), new cookies sealed under the keystore's
// current key with nonces from the worker's CSPRNG; our nonce is 16 bytes;
// additional padding makes the reply exactly as long as the request (as
// chrony does), and a reply that would be longer is refused.
#ifndef ZG_CORE_NTS_NTS_SERVER_H_
#define ZG_CORE_NTS_NTS_SERVER_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/crypto/aes_ctr_random.h"
#include "core/crypto/aes_siv.h"
#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_cookie.h"

namespace zg::core {

inline constexpr uint32_t kNtsMinUniqueIdSize = 32;  // body, RFC 8915 5.3
inline constexpr uint32_t kNtsMaxReplyCookies = 8;   // chrony NTS_MAX_COOKIES
inline constexpr uint32_t kNtsServerNonceSize = 16;  // our replies' nonce
// An NTS Cookie field of ours: type, length, kNtsCookieSize bytes.
inline constexpr uint32_t kNtsCookieFieldSize = 4 + kNtsCookieSize;
// The fixed part of our reply authenticator: field header, nonce and
// ciphertext lengths, nonce, tag.
inline constexpr uint32_t kNtsReplyAuthOverhead =
    4 + 4 + kNtsServerNonceSize + kAesSivTagSize;

// Why an NTS request got no regular reply. Names (NtsFailureName) are stable
// metric labels: drops are frames_dropped_total{reason="ntp_nts_<name>"},
// NAKs ntp_nts_naks_total{reason="<name>"}.
enum class NtsFailure : uint8_t {
  kNone = 0,
  kMalformed,             // framing, duplicates, order, lengths (see above)
  kMissingUid,            // no Unique Identifier
  kMissingCookie,         // no NTS Cookie
  kMissingAuthenticator,  // no NTS Authenticator
  kCookieBadLength,       // NAK: not one of our cookies' size
  kCookieUnknownKey,      // NAK: key id outside the window
  kCookieBadTag,          // NAK: forged, corrupted, another master key
  kBadAuthenticator,      // NAK: the authenticator does not open
  kReplyTooLong,          // the reply would be longer than the request
  kCount
};
inline constexpr size_t kNtsFailureCount =
    static_cast<size_t>(NtsFailure::kCount);
// "none", "malformed", "missing_uid", "missing_cookie",
// "missing_authenticator", "cookie_bad_length", "cookie_unknown_key",
// "cookie_bad_tag", "bad_authenticator", "reply_too_long".
const char* NtsFailureName(NtsFailure f);
// Whether `f` is answered with an NTS NAK rather than dropped.
constexpr bool NtsFailureIsNak(NtsFailure f) {
  return f == NtsFailure::kCookieBadLength ||
         f == NtsFailure::kCookieUnknownKey || f == NtsFailure::kCookieBadTag ||
         f == NtsFailure::kBadAuthenticator;
}

// Where a request's NTS fields are: byte offsets within the payload.
struct NtsRequestFields {
  uint32_t uid_offset = 0;     // the Unique Identifier field (header included)
  uint32_t uid_length = 0;     // whole field
  uint32_t cookie_offset = 0;  // the cookie's body
  uint32_t cookie_length = 0;  // body
  uint32_t placeholders = 0;
  uint32_t auth_offset = 0;  // the authenticator field: the AD's length
  uint32_t nonce_offset = 0;
  uint32_t nonce_length = 0;
  uint32_t ciphertext_offset = 0;  // V || C
  uint32_t ciphertext_length = 0;
};

// Walks and checks the NTS fields of an NTPv4 request payload[0..len)
// (len a multiple of 4, >= 48). Reads only payload[0..len). kNone, or
// kMalformed / kMissing*: then only the offsets found so far are set (a
// NAK needs uid_length != 0).
NtsFailure ParseNtsRequest(const uint8_t* payload, uint32_t len,
                           NtsRequestFields* out);

// Written by Check, read by WriteReply of the same request.
struct NtsRequestState {
  NtsRequestFields fields;
  NtsKeys keys;  // from the cookie
};

// Written by WriteReply, read by SealNtsReply after T3 (it survives the
// other frames of the burst: the worker keeps it per frame).
struct NtsSealJob {
  std::array<uint8_t, kNtsKeySize> s2c{};
  uint16_t ad_length = 0;         // header + Unique Identifier field
  uint16_t plaintext_length = 0;  // the new cookies' fields
};

// One worker's NTS server state: the AES-SIV context that C2S keys are
// prepared in, and the worker's CSPRNG. Used by its worker alone.
class NtsServer {
 public:
  // `random` must outlive this object.
  explicit NtsServer(AesCtrRandom* random) : random_(random) {}

  // Parses the request, opens its cookie with `keystore` and verifies its
  // authenticator (encrypted fields are decrypted in place: the request's
  // bytes after the nonce change). kNone: *state holds the fields and keys.
  NtsFailure Check(uint8_t* payload, uint32_t len,
                   const NtsCookieKeystore& keystore, NtsRequestState* state);

  // After the reply's 48-byte header is written (WriteNtpReply): moves the
  // Unique Identifier to offset 48 and writes the authenticator (nonce from
  // the CSPRNG, fresh cookies in plaintext, padding) so that the reply is
  // request_len bytes; the seal is left to SealNtsReply. Returns the reply
  // length, or 0 (payload untouched past the header) when it would be
  // longer than the request.
  uint32_t WriteReply(uint8_t* payload, uint32_t request_len,
                      const NtsRequestState& state,
                      const NtsCookieKeystore& keystore, NtsSealJob* job);

 private:
  AesCtrRandom* random_;
  AesSiv c2s_;  // per request: SetKey(cookie's C2S), then Open
};

// Encrypts and authenticates a reply WriteReply prepared: `s2c` has
// SetKey(job.s2c). AD = payload[0..job.ad_length), which covers T3: call
// after StampNtpTransmit.
void SealNtsReply(const AesSiv& s2c, uint8_t* payload, const NtsSealJob& job);

// A Kiss-o'-Death for an NTS request (WriteNtpKissOfDeath, `kiss_code`
// kNtpKissNtsNak for a NAK) with the request's Unique Identifier field
// (fields.uid_length != 0) moved to offset 48 and nothing else: RFC 8915
// 5.7's NAK, and what chrony sends for a rate-limit KoD to an NTS client.
// Returns the reply length.
uint32_t WriteNtsKiss(uint8_t* payload, const NtpRequestCheck& check,
                      uint32_t kiss_code, int8_t min_poll_log2,
                      const NtsRequestFields& fields);

}  // namespace zg::core

#endif  // ZG_CORE_NTS_NTS_SERVER_H_
