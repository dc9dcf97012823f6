// SPDX-License-Identifier: Apache-2.0
#include "core/nts/nts_client.h"

#include <openssl/rand.h>

#include <cstring>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_client.h"

namespace zg::core {

namespace {

void WriteFieldHeader(uint8_t* p, NtsFieldType type, uint32_t length) {
  StoreBe16(p, static_cast<uint16_t>(type));
  StoreBe16(p + 2, static_cast<uint16_t>(length));
}

// The parts of an NTS Authenticator and Encrypted Extension Fields EF
// (RFC 8915 section 5.6).
struct AuthField {
  const uint8_t* nonce = nullptr;
  uint32_t nonce_len = 0;
  const uint8_t* ciphertext = nullptr;  // V || C
  uint32_t ciphertext_len = 0;
};

bool ParseAuthField(const NtpExtensionField& f, AuthField* out) {
  const uint32_t body = f.length - 4u;
  if (body < 4) return false;
  out->nonce_len = LoadBe16(f.value);
  out->ciphertext_len = LoadBe16(f.value + 2);
  if (4 + NtpPad4(out->nonce_len) + NtpPad4(out->ciphertext_len) > body) {
    return false;
  }
  if (out->ciphertext_len < kAesSivTagSize) return false;
  out->nonce = f.value + 4;
  out->ciphertext = f.value + 4 + NtpPad4(out->nonce_len);
  return true;
}

// The Unique Identifier EF matches `uid` (constant time is not needed: the
// identifier is not a secret once sent).
bool UidMatches(const NtpExtensionField& f, const uint8_t* uid) {
  return f.length == kNtsUniqueIdFieldSize &&
         std::memcmp(f.value, uid, kNtsUniqueIdSize) == 0;
}

bool IsNakHeader(const uint8_t* payload) {
  return (payload[0] & 7) == static_cast<uint8_t>(NtpMode::kServer) &&
         payload[1] == 0 &&
         LoadBe32(payload + kNtpOffsetReferenceId) == kNtpKissNtsNak;
}

}  // namespace

const char* NtsReplyStatusName(NtsReplyStatus status) {
  switch (status) {
    case NtsReplyStatus::kOk:
      return "ok";
    case NtsReplyStatus::kTooShort:
      return "too_short";
    case NtsReplyStatus::kMalformed:
      return "malformed";
    case NtsReplyStatus::kNoUniqueId:
      return "no_unique_id";
    case NtsReplyStatus::kUniqueIdMismatch:
      return "unique_id_mismatch";
    case NtsReplyStatus::kNak:
      return "nak";
    case NtsReplyStatus::kNoAuthenticator:
      return "no_authenticator";
    case NtsReplyStatus::kBadAuthenticator:
      return "bad_authenticator";
    case NtsReplyStatus::kBadTag:
      return "bad_tag";
    case NtsReplyStatus::kBadPlaintext:
      return "bad_plaintext";
    case NtsReplyStatus::kCount:
      break;
  }
  return "unknown";
}

bool IsNtsNak(const uint8_t* payload, uint32_t len, const uint8_t* unique_id) {
  if (len < kNtpHeaderSize || !IsNakHeader(payload)) return false;
  NtpExtensionWalker walker(payload, len);
  NtpExtensionField f;
  while (walker.Next(&f) == NtpExtensionWalker::Step::kField) {
    if (f.type == static_cast<uint16_t>(NtsFieldType::kUniqueIdentifier)) {
      return UidMatches(f, unique_id);
    }
  }
  return false;
}

void NtsClientAssociation::SetKeys(const NtsKeys& keys) {
  c2s_.SetKey(keys.c2s.data());
  s2c_.SetKey(keys.s2c.data());
}

bool NtsClientAssociation::PushCookie(const uint8_t* cookie, size_t len) {
  if (count_ == kNtsMaxCookies || len == 0 || len > kNtsClientMaxCookieSize) {
    return false;
  }
  Cookie& c = jar_[(head_ + count_) % kNtsMaxCookies];
  c.len = static_cast<uint16_t>(len);
  std::memcpy(c.data.data(), cookie, len);
  ++count_;
  return true;
}

size_t NtsClientAssociation::next_cookie_size() const {
  return count_ == 0 ? 0 : jar_[head_].len;
}

uint32_t NtsClientAssociation::BuildRequest(const NtsRequestSpec& spec,
                                            bool consume_cookie, uint8_t* out,
                                            uint32_t cap) {
  if (count_ == 0 || spec.unique_id == nullptr || spec.nonce == nullptr ||
      spec.placeholders >= kNtsMaxCookies) {
    return 0;
  }
  const Cookie& cookie = jar_[head_];
  const uint32_t total = NtsRequestSize(cookie.len, spec.placeholders);
  if (cap < total) return 0;
  BuildNtpClientRequest(out, kNtpVersion, spec.poll_log2, spec.transmit);
  uint8_t* p = out + kNtpHeaderSize;
  WriteFieldHeader(p, NtsFieldType::kUniqueIdentifier, kNtsUniqueIdFieldSize);
  std::memcpy(p + 4, spec.unique_id, kNtsUniqueIdSize);
  p += kNtsUniqueIdFieldSize;
  const uint32_t cookie_field = NtsCookieFieldSize(cookie.len);
  WriteFieldHeader(p, NtsFieldType::kCookie, cookie_field);
  std::memcpy(p + 4, cookie.data.data(), cookie.len);
  std::memset(p + 4 + cookie.len, 0, cookie_field - 4 - cookie.len);
  p += cookie_field;
  for (uint32_t i = 0; i < spec.placeholders; ++i) {
    // RFC 8915 section 5.5: the body's content is ignored; zeros.
    WriteFieldHeader(p, NtsFieldType::kCookiePlaceholder, cookie_field);
    std::memset(p + 4, 0, cookie_field - 4);
    p += cookie_field;
  }
  const uint32_t ad_len = static_cast<uint32_t>(p - out);
  WriteFieldHeader(p, NtsFieldType::kAuthenticator, kNtsRequestAuthFieldSize);
  StoreBe16(p + 4, kNtsClientNonceSize);
  StoreBe16(p + 6, kAesSivTagSize);
  std::memcpy(p + 8, spec.nonce, kNtsClientNonceSize);
  const AesSivInput ad[] = {{out, ad_len}, {spec.nonce, kNtsClientNonceSize}};
  c2s_.Seal(ad, nullptr, 0, p + 8 + kNtsClientNonceSize);
  if (consume_cookie) {
    head_ = (head_ + 1) % kNtsMaxCookies;
    --count_;
  }
  return total;
}

NtsReplyCheck NtsClientAssociation::VerifyReply(const uint8_t* payload,
                                                uint32_t len,
                                                const uint8_t* unique_id,
                                                bool store_cookies) {
  NtsReplyCheck check;
  if (len < kNtpHeaderSize) return check;
  NtpExtensionWalker walker(payload, len);
  NtpExtensionField f;
  bool uid_seen = false;
  NtpExtensionWalker::Step step;
  while ((step = walker.Next(&f)) == NtpExtensionWalker::Step::kField) {
    if (f.type == static_cast<uint16_t>(NtsFieldType::kUniqueIdentifier)) {
      if (!UidMatches(f, unique_id)) {
        check.status = NtsReplyStatus::kUniqueIdMismatch;
        return check;
      }
      uid_seen = true;
    } else if (f.type == static_cast<uint16_t>(NtsFieldType::kAuthenticator)) {
      break;  // fields after it are unauthenticated: ignored
    }
  }
  if (step == NtpExtensionWalker::Step::kMalformed) {
    check.status = NtsReplyStatus::kMalformed;
    return check;
  }
  if (!uid_seen) {
    check.status = NtsReplyStatus::kNoUniqueId;
    return check;
  }
  if (IsNakHeader(payload)) {
    check.status = NtsReplyStatus::kNak;
    return check;
  }
  if (step != NtpExtensionWalker::Step::kField) {
    check.status = NtsReplyStatus::kNoAuthenticator;
    return check;
  }
  AuthField auth;
  if (!ParseAuthField(f, &auth) ||
      auth.ciphertext_len - kAesSivTagSize > plain_.size()) {
    check.status = NtsReplyStatus::kBadAuthenticator;
    return check;
  }
  const AesSivInput ad[] = {{payload, f.offset}, {auth.nonce, auth.nonce_len}};
  if (!s2c_.Open(ad, auth.ciphertext, auth.ciphertext_len, plain_.data())) {
    check.status = NtsReplyStatus::kBadTag;
    return check;
  }
  check.status =
      TakeCookies(auth.ciphertext_len - kAesSivTagSize, store_cookies, &check);
  return check;
}

NtsReplyStatus NtsClientAssociation::TakeCookies(uint32_t len, bool store,
                                                 NtsReplyCheck* check) {
  // The plaintext is a sequence of extension fields (RFC 8915 section 5.6);
  // each at least its 4-byte header, a multiple of 4, inside the plaintext.
  uint32_t at = 0;
  while (at < len) {
    if (len - at < 4) return NtsReplyStatus::kBadPlaintext;
    const uint16_t type = LoadBe16(plain_.data() + at);
    const uint16_t flen = LoadBe16(plain_.data() + at + 2);
    if (flen < 4 || flen % 4 != 0 || flen > len - at) {
      return NtsReplyStatus::kBadPlaintext;
    }
    if (type == static_cast<uint16_t>(NtsFieldType::kCookie) && flen > 4) {
      ++check->cookies;
      if (store && PushCookie(plain_.data() + at + 4, flen - 4u)) {
        ++check->cookies_stored;
      }
    }
    at += flen;
  }
  return NtsReplyStatus::kOk;
}

bool FillNtsRandom(uint8_t* out, size_t len) {
  return RAND_bytes(out, static_cast<int>(len)) == 1;
}

}  // namespace zg::core
