// SPDX-License-Identifier: Apache-2.0
#include "core/nts/nts_server.h"

#include <cstring>

#include "core/base/byte_order.h"

namespace zg::core {
namespace {

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
  const uint32_t nonce_room = NtpPad4(nonce_len);
  // Room for the nonce and ciphertext, and the padding rule: as if the
  // nonce were at least 16 bytes.
  const uint32_t min_nonce_room =
      nonce_room > kNtsServerNonceSize ? nonce_room : kNtsServerNonceSize;
  if (4 + min_nonce_room + NtpPad4(ct_len) > body) return false;
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
  NtsCheckOp op{payload, len, state};
  CheckBatch({&op, 1}, keystore);
  return op.result;
}

void NtsServer::CheckBatch(std::span<NtsCheckOp> ops,
                           const NtsCookieKeystore& keystore) {
  for (size_t at = 0; at < ops.size(); at += kNtsBatch) {
    const size_t end =
        ops.size() - at < kNtsBatch ? ops.size() : at + kNtsBatch;
    // Parse; the cookies of those that parse, opened together.
    NtsCookieOpenOp cookies[kNtsBatch];
    NtsCheckOp* parsed[kNtsBatch];
    size_t n = 0;
    for (size_t j = at; j < end; ++j) {
      NtsCheckOp& op = ops[j];
      NtsRequestFields& f = op.state->fields;
      op.result = ParseNtsRequest(op.payload, op.len, &f);
      if (op.result != NtsFailure::kNone) continue;
      cookies[n] = {op.payload + f.cookie_offset, f.cookie_length,
                    &op.state->keys};
      parsed[n++] = &op;
    }
    keystore.Open({cookies, n});
    // The C2S keys of the cookies that opened, then their authenticators.
    AesSiv* sivs[kNtsBatch];
    const uint8_t* keys[kNtsBatch];
    NtsCheckOp* opened[kNtsBatch];
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
      NtsCheckOp& op = *parsed[i];
      switch (cookies[i].result) {
        case NtsCookieError::kOk:
          sivs[m] = &c2s_[m];
          keys[m] = op.state->keys.c2s.data();
          opened[m++] = &op;
          continue;
        case NtsCookieError::kBadLength:
          op.result = NtsFailure::kCookieBadLength;
          continue;
        case NtsCookieError::kUnknownKey:
          op.result = NtsFailure::kCookieUnknownKey;
          continue;
        case NtsCookieError::kBadTag:
          op.result = NtsFailure::kCookieBadTag;
          continue;
      }
    }
    AesSiv::SetKeyBatch({sivs, m}, {keys, m});
    AesSivInput ad[kNtsBatch][2];
    AesSivOpenOp auth[kNtsBatch];
    for (size_t i = 0; i < m; ++i) {
      const NtsCheckOp& op = *opened[i];
      const NtsRequestFields& f = op.state->fields;
      ad[i][0] = {op.payload, f.auth_offset};
      ad[i][1] = {op.payload + f.nonce_offset, f.nonce_length};
      uint8_t* ct = op.payload + f.ciphertext_offset;
      // Any encrypted fields are decrypted in place (and ignored).
      auth[i] = {&c2s_[i], ad[i], ct, f.ciphertext_length, ct + kAesSivTagSize};
    }
    AesSiv::OpenBatch({auth, m});
    for (size_t i = 0; i < m; ++i) {
      opened[i]->result =
          auth[i].ok ? NtsFailure::kNone : NtsFailure::kBadAuthenticator;
    }
  }
}

uint32_t NtsServer::WriteReply(uint8_t* payload, uint32_t request_len,
                               const NtsRequestState& state,
                               const NtsCookieKeystore& keystore,
                               NtsSealJob* job, uint32_t max_cookies) {
  const uint32_t n =
      QueueReply(payload, request_len, state, keystore, job, max_cookies);
  SealCookies(keystore);
  return n;
}

uint32_t NtsServer::QueueReply(uint8_t* payload, uint32_t request_len,
                               const NtsRequestState& state,
                               const NtsCookieKeystore& keystore,
                               NtsSealJob* job, uint32_t max_cookies) {
  const NtsRequestFields& f = state.fields;
  if (max_cookies > kNtsMaxReplyCookies) max_cookies = kNtsMaxReplyCookies;
  if (max_cookies < 1) max_cookies = 1;
  uint32_t cookies = 1 + f.placeholders;
  if (cookies > max_cookies) cookies = max_cookies;
  const uint32_t plaintext = cookies * kNtsCookieFieldSize;
  const uint32_t auth = kNtpHeaderSize + f.uid_length;
  const uint32_t unpadded = auth + kNtsReplyAuthOverhead + plaintext;
  if (unpadded > request_len) return 0;
  if (pending_count_ + cookies > pending_.size()) SealCookies(keystore);
  // The UID first (its bytes are the request's: memmove), then the
  // authenticator after it, overwriting the request's fields.
  std::memmove(payload + kNtpHeaderSize, payload + f.uid_offset, f.uid_length);
  uint8_t* a = payload + auth;
  StoreBe16(a, static_cast<uint16_t>(NtsFieldType::kAuthenticator));
  StoreBe16(a + 2, static_cast<uint16_t>(request_len - auth));
  StoreBe16(a + 4, static_cast<uint16_t>(kNtsServerNonceSize));
  StoreBe16(a + 6, static_cast<uint16_t>(kAesSivTagSize + plaintext));
  random_->Fill(a + 8, kNtsServerNonceSize);
  // Plaintext: the cookie fields, after the (not yet computed) tag; each
  // cookie's nonce where the cookie keeps it, its seal left for
  // SealCookies.
  uint8_t* p = a + 8 + kNtsServerNonceSize + kAesSivTagSize;
  for (uint32_t i = 0; i < cookies; ++i, p += kNtsCookieFieldSize) {
    StoreBe16(p, static_cast<uint16_t>(NtsFieldType::kCookie));
    StoreBe16(p + 2, static_cast<uint16_t>(kNtsCookieFieldSize));
    uint8_t* cookie = p + 4;
    random_->Fill(cookie + kNtsCookieNonceOffset, 16);
    pending_[pending_count_++] = {&state.keys, cookie + kNtsCookieNonceOffset,
                                  cookie};
  }
  std::memset(p, 0, request_len - unpadded);  // additional padding
  job->s2c = state.keys.s2c;
  job->ad_length = static_cast<uint16_t>(auth);
  job->plaintext_length = static_cast<uint16_t>(plaintext);
  return request_len;
}

void NtsServer::SealCookies(const NtsCookieKeystore& keystore) {
  keystore.Seal({pending_.data(), pending_count_});
  pending_count_ = 0;
}

void SealNtsReply(const AesSiv& s2c, uint8_t* payload, const NtsSealJob& job) {
  const NtsReplySealOp op{&s2c, payload, &job};
  SealNtsReplies({&op, 1});
}

void SealNtsReplies(std::span<const NtsReplySealOp> ops) {
  AesSivInput ad[kNtsBatch][2];
  AesSivSealOp seal[kNtsBatch];
  for (size_t at = 0; at < ops.size(); at += kNtsBatch) {
    const size_t n = ops.size() - at < kNtsBatch ? ops.size() - at : kNtsBatch;
    for (size_t i = 0; i < n; ++i) {
      const NtsReplySealOp& op = ops[at + i];
      const NtsSealJob& job = *op.job;
      uint8_t* nonce = op.payload + job.ad_length + 8;
      uint8_t* out = nonce + kNtsServerNonceSize;
      ad[i][0] = {op.payload, job.ad_length};
      ad[i][1] = {nonce, kNtsServerNonceSize};
      // In place: the plaintext is at out + 16.
      seal[i] = {op.s2c, ad[i], out + kAesSivTagSize, job.plaintext_length,
                 out};
    }
    AesSiv::SealBatch({seal, n});  // cannot fail: 2 components
  }
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
