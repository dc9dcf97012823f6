// SPDX-License-Identifier: Apache-2.0
#include "core/nts/nts_server.h"

#include <cstring>

#include "core/base/byte_order.h"

namespace zg::core {
namespace {

constexpr uint32_t Pad4(uint32_t n) { return (n + 3) & ~uint32_t{3}; }

// Fields seen by the walk (the counts catch duplicates).
struct Seen {
  uint32_t uids = 0, cookies = 0, auths = 0;
  uint32_t placeholder_length = 0;  // of the first placeholder's body
  bool placeholder_lengths_differ = false;
};

// The authenticator's body at `field` (its whole field, RFC 8915 5.6).
bool ParseAuthenticator(const NtpExtensionField& field, NtsRequestFields* out) {
  const uint32_t body = field.length - 4u;
  const uint32_t nonce_len = LoadBe16(field.value);
  const uint32_t ct_len = LoadBe16(field.value + 2);
  if (nonce_len < 1 || ct_len < kAesSivTagSize) return false;
  const uint32_t nonce_room = Pad4(nonce_len);
  // Room for the nonce and ciphertext, and the padding rule: as if the
  // nonce were at least 16 bytes.
  const uint32_t min_nonce_room =
      nonce_room > kNtsServerNonceSize ? nonce_room : kNtsServerNonceSize;
  if (4 + min_nonce_room + Pad4(ct_len) > body) return false;
  out->auth_offset = field.offset;
  out->nonce_offset = field.offset + 8;
  out->nonce_length = nonce_len;
  out->ciphertext_offset = out->nonce_offset + nonce_room;
  out->ciphertext_length = ct_len;
  return true;
}

// One field of the walk; false: malformed.
bool Visit(const NtpExtensionField& f, uint32_t len, Seen* seen,
           NtsRequestFields* out) {
  const uint32_t body = f.length - 4u;
  switch (static_cast<NtsFieldType>(f.type)) {
    case NtsFieldType::kUniqueIdentifier:
      if (++seen->uids > 1 || body < kNtsMinUniqueIdSize) return false;
      out->uid_offset = f.offset;
      out->uid_length = f.length;
      return true;
    case NtsFieldType::kCookie:
      if (++seen->cookies > 1) return false;
      out->cookie_offset = f.offset + 4;
      out->cookie_length = body;
      return true;
    case NtsFieldType::kCookiePlaceholder:
      if (out->placeholders++ == 0) {
        seen->placeholder_length = body;
      } else if (body != seen->placeholder_length) {
        seen->placeholder_lengths_differ = true;
      }
      return true;
    case NtsFieldType::kAuthenticator:
      // The last field: nothing unauthenticated after it.
      if (++seen->auths > 1 || f.offset + f.length != len) return false;
      return ParseAuthenticator(f, out);
  }
  return true;  // other fields: authenticated by the AD, ignored
}

}  // namespace

const char* NtsFailureName(NtsFailure f) {
  switch (f) {
    case NtsFailure::kNone:
      return "none";
    case NtsFailure::kMalformed:
      return "malformed";
    case NtsFailure::kMissingUid:
      return "missing_uid";
    case NtsFailure::kMissingCookie:
      return "missing_cookie";
    case NtsFailure::kMissingAuthenticator:
      return "missing_authenticator";
    case NtsFailure::kCookieBadLength:
      return "cookie_bad_length";
    case NtsFailure::kCookieUnknownKey:
      return "cookie_unknown_key";
    case NtsFailure::kCookieBadTag:
      return "cookie_bad_tag";
    case NtsFailure::kBadAuthenticator:
      return "bad_authenticator";
    case NtsFailure::kReplyTooLong:
      return "reply_too_long";
    case NtsFailure::kCount:
      break;
  }
  return "unknown";
}

NtsFailure ParseNtsRequest(const uint8_t* payload, uint32_t len,
                           NtsRequestFields* out) {
  *out = NtsRequestFields{};
  if (len < kNtpHeaderSize || len % 4 != 0) return NtsFailure::kMalformed;
  NtpExtensionWalker walker(payload, len);
  NtpExtensionField field;
  NtpExtensionWalker::Step step;
  Seen seen;
  while ((step = walker.Next(&field)) == NtpExtensionWalker::Step::kField) {
    if (!Visit(field, len, &seen, out)) return NtsFailure::kMalformed;
  }
  // A legacy MAC after the fields is unauthenticated data.
  if (step != NtpExtensionWalker::Step::kEnd) return NtsFailure::kMalformed;
  if (seen.uids == 0) return NtsFailure::kMissingUid;
  if (seen.cookies == 0) return NtsFailure::kMissingCookie;
  if (seen.auths == 0) return NtsFailure::kMissingAuthenticator;
  if (seen.placeholder_lengths_differ ||
      (out->placeholders != 0 &&
       seen.placeholder_length != out->cookie_length)) {
    return NtsFailure::kMalformed;
  }
  return NtsFailure::kNone;
}

NtsFailure NtsServer::Check(uint8_t* payload, uint32_t len,
                            const NtsCookieKeystore& keystore,
                            NtsRequestState* state) {
  NtsRequestFields& f = state->fields;
  const NtsFailure parsed = ParseNtsRequest(payload, len, &f);
  if (parsed != NtsFailure::kNone) return parsed;
  switch (
      keystore.Open(payload + f.cookie_offset, f.cookie_length, &state->keys)) {
    case NtsCookieError::kOk:
      break;
    case NtsCookieError::kBadLength:
      return NtsFailure::kCookieBadLength;
    case NtsCookieError::kUnknownKey:
      return NtsFailure::kCookieUnknownKey;
    case NtsCookieError::kBadTag:
      return NtsFailure::kCookieBadTag;
  }
  c2s_.SetKey(state->keys.c2s.data());
  const AesSivInput ad[] = {{payload, f.auth_offset},
                            {payload + f.nonce_offset, f.nonce_length}};
  uint8_t* ct = payload + f.ciphertext_offset;
  // Any encrypted fields are decrypted in place (and ignored).
  if (!c2s_.Open(ad, ct, f.ciphertext_length, ct + kAesSivTagSize)) {
    return NtsFailure::kBadAuthenticator;
  }
  return NtsFailure::kNone;
}

uint32_t NtsServer::WriteReply(uint8_t* payload, uint32_t request_len,
                               const NtsRequestState& state,
                               const NtsCookieKeystore& keystore,
                               NtsSealJob* job) {
  const NtsRequestFields& f = state.fields;
  uint32_t cookies = 1 + f.placeholders;
  if (cookies > kNtsMaxReplyCookies) cookies = kNtsMaxReplyCookies;
  const uint32_t plaintext = cookies * kNtsCookieFieldSize;
  const uint32_t auth = kNtpHeaderSize + f.uid_length;
  const uint32_t unpadded = auth + kNtsReplyAuthOverhead + plaintext;
  if (unpadded > request_len) return 0;
  // The UID first (its bytes are the request's: memmove), then the
  // authenticator after it, overwriting the request's fields.
  std::memmove(payload + kNtpHeaderSize, payload + f.uid_offset, f.uid_length);
  uint8_t* a = payload + auth;
  StoreBe16(a, static_cast<uint16_t>(NtsFieldType::kAuthenticator));
  StoreBe16(a + 2, static_cast<uint16_t>(request_len - auth));
  StoreBe16(a + 4, static_cast<uint16_t>(kNtsServerNonceSize));
  StoreBe16(a + 6, static_cast<uint16_t>(kAesSivTagSize + plaintext));
  random_->Fill(a + 8, kNtsServerNonceSize);
  // Plaintext: the cookie fields, after the (not yet computed) tag.
  uint8_t* p = a + 8 + kNtsServerNonceSize + kAesSivTagSize;
  for (uint32_t i = 0; i < cookies; ++i, p += kNtsCookieFieldSize) {
    StoreBe16(p, static_cast<uint16_t>(NtsFieldType::kCookie));
    StoreBe16(p + 2, static_cast<uint16_t>(kNtsCookieFieldSize));
    uint8_t nonce[16];
    random_->Fill(nonce, sizeof(nonce));
    keystore.Seal(state.keys, nonce, p + 4);
  }
  std::memset(p, 0, request_len - unpadded);  // additional padding
  job->s2c = state.keys.s2c;
  job->ad_length = static_cast<uint16_t>(auth);
  job->plaintext_length = static_cast<uint16_t>(plaintext);
  return request_len;
}

void SealNtsReply(const AesSiv& s2c, uint8_t* payload, const NtsSealJob& job) {
  const uint8_t* nonce = payload + job.ad_length + 8;
  uint8_t* out = payload + job.ad_length + 8 + kNtsServerNonceSize;
  const AesSivInput ad[] = {{payload, job.ad_length},
                            {nonce, kNtsServerNonceSize}};
  // In place: the plaintext is at out + 16. Cannot fail (2 components).
  s2c.Seal(ad, out + kAesSivTagSize, job.plaintext_length, out);
}

uint32_t WriteNtsKiss(uint8_t* payload, const NtpRequestCheck& check,
                      uint32_t kiss_code, int8_t min_poll_log2,
                      const NtsRequestFields& fields) {
  const uint32_t n =
      WriteNtpKissOfDeath(payload, check, kiss_code, min_poll_log2);
  if (fields.uid_length == 0) return n;
  std::memmove(payload + n, payload + fields.uid_offset, fields.uid_length);
  return n + fields.uid_length;
}

}  // namespace zg::core
