// SPDX-License-Identifier: Apache-2.0
#include "core/nts/nts_cookie.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"
#include "core/base/status_macros.h"

namespace zg::core {
namespace {

constexpr char kCookieSalt[] = "zeitgeber nts cookie";
constexpr uint32_t kMaxWindow = 16;
constexpr size_t kKeyIdOffset = 0;
constexpr size_t kNonceOffset = kNtsCookieNonceOffset;
constexpr size_t kSealedOffset = 20;  // V || C
constexpr size_t kPlainSize = 2 * kNtsKeySize;
static_assert(kSealedOffset + kAesSivTagSize + kPlainSize == kNtsCookieSize);

std::string OpensslError() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "no OpenSSL error queued";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// HKDF-SHA256(IKM = master, salt = kCookieSalt, info = period BE64).
absl::Status DerivePeriodKey(std::span<const uint8_t> master, uint64_t period,
                             uint8_t* key32) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  if (kdf == nullptr) {
    return absl::InternalError(
        absl::StrCat("NTS cookie keys: OpenSSL has no HKDF: ", OpensslError()));
  }
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  EVP_KDF_free(kdf);
  if (ctx == nullptr) {
    return absl::InternalError("NTS cookie keys: EVP_KDF_CTX_new failed");
  }
  uint8_t info[8];
  StoreBe64(info, period);
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
                                        const_cast<uint8_t*>(master.data()),
                                        master.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
                                        const_cast<char*>(kCookieSalt),
                                        sizeof(kCookieSalt) - 1),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info,
                                        sizeof(info)),
      OSSL_PARAM_construct_end(),
  };
  const int ok = EVP_KDF_derive(ctx, key32, kAesSivKeySize, params);
  EVP_KDF_CTX_free(ctx);
  if (ok != 1) {
    return absl::InternalError(
        absl::StrCat("NTS cookie keys: HKDF-SHA256 failed: ", OpensslError()));
  }
  return absl::OkStatus();
}

// The AES-SIV keys of periods [first, first + count) under `master`, and
// S2V's state after each one's key id.
absl::Status DeriveWindow(std::span<const uint8_t> master, uint64_t first,
                          size_t count, AesSiv* siv, AesSivPrefix* prefix) {
  uint8_t key[kAesSivKeySize];
  for (size_t i = 0; i < count; ++i) {
    absl::Status s = DerivePeriodKey(master, first + i, key);
    if (!s.ok()) {
      OPENSSL_cleanse(key, sizeof(key));
      return s;
    }
    siv[i].SetKey(key);
    uint8_t key_id[4];
    StoreBe32(key_id, static_cast<uint32_t>(first + i));
    const AesSivInput lead[] = {{key_id, sizeof(key_id)}};
    prefix[i] = siv[i].Prefix(lead);
  }
  OPENSSL_cleanse(key, sizeof(key));
  return absl::OkStatus();
}

}  // namespace

const char* NtsCookieErrorName(NtsCookieError e) {
  switch (e) {
    case NtsCookieError::kOk:
      return "ok";
    case NtsCookieError::kBadLength:
      return "bad_length";
    case NtsCookieError::kUnknownKey:
      return "unknown_key";
    case NtsCookieError::kBadTag:
      return "bad_tag";
  }
  return "unknown";
}

absl::StatusOr<NtsCookieKeystore> NtsCookieKeystore::Derive(
    std::span<const uint8_t> master, const NtsKeystoreConfig& config,
    int64_t unix_s) {
  if (master.size() < kNtsMasterKeyMinSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NTS master key: ", master.size(), " bytes, at least ",
        kNtsMasterKeyMinSize, " needed (e.g. head -c 32 /dev/urandom)"));
  }
  if (config.period_s < 1) {
    return absl::InvalidArgumentError("--nts_key_period must be >= 1 second");
  }
  if (config.window_past > kMaxWindow || config.window_future > kMaxWindow) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_key_window: at most ", kMaxWindow, " periods each way (past ",
        config.window_past, ", future ", config.window_future, ")"));
  }
  if (unix_s < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("NTS cookie keys: the clock reads ", unix_s,
                     " s, before 1970: the system clock is not set"));
  }
  NtsCookieKeystore ks;
  ks.config_ = config;
  ks.current_period_ = static_cast<uint64_t>(unix_s) / config.period_s;
  ks.first_period_ = ks.current_period_ >= config.window_past
                         ? ks.current_period_ - config.window_past
                         : 0;
  const uint64_t last = ks.current_period_ + config.window_future;
  ks.key_count_ = static_cast<size_t>(last - ks.first_period_ + 1);
  ZG_RETURN_IF_ERROR(DeriveWindow(master, ks.first_period_, ks.key_count_,
                                  ks.siv_.data(), ks.key_id_prefix_.data()));
  return ks;
}

absl::StatusOr<NtsCookieKeystore> NtsCookieKeystore::Derive(
    std::span<const uint8_t> master, const NtsKeystoreConfig& config,
    int64_t unix_s, std::span<const uint8_t> previous) {
  ZG_ASSIGN_OR_RETURN(NtsCookieKeystore ks, Derive(master, config, unix_s));
  if (previous.empty()) return ks;
  if (previous.size() < kNtsMasterKeyMinSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("NTS previous master key: ", previous.size(),
                     " bytes, at least ", kNtsMasterKeyMinSize, " needed"));
  }
  ZG_RETURN_IF_ERROR(DeriveWindow(previous, ks.first_period_, ks.key_count_,
                                  ks.previous_siv_.data(),
                                  ks.previous_key_id_prefix_.data()));
  ks.has_previous_ = true;
  return ks;
}

int64_t NtsCookieKeystore::current_period_end_unix_s() const {
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (current_period_ + 1 > limit / config_.period_s) {
    return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>((current_period_ + 1) * config_.period_s);
}

void NtsCookieKeystore::Seal(const NtsKeys& keys, const uint8_t* nonce16,
                             uint8_t* cookie_out) const {
  const NtsCookieSealOp op{&keys, nonce16, cookie_out};
  Seal({&op, 1});
}

NtsCookieError NtsCookieKeystore::Open(const uint8_t* cookie, size_t len,
                                       NtsKeys* out) const {
  NtsCookieOpenOp op{cookie, len, out};
  Open({&op, 1});
  return op.result;
}

namespace {

// Cookies per pass of the batch calls (their AD and plaintext on the stack).
constexpr size_t kCookieChunk = 32;

}  // namespace

void NtsCookieKeystore::Seal(std::span<const NtsCookieSealOp> ops) const {
  AesSivInput ad[kCookieChunk];
  AesSivSealOp seal[kCookieChunk];
  const size_t k = current_period_ - first_period_;
  for (size_t at = 0; at < ops.size(); at += kCookieChunk) {
    const size_t n =
        ops.size() - at < kCookieChunk ? ops.size() - at : kCookieChunk;
    for (size_t i = 0; i < n; ++i) {
      const NtsCookieSealOp& op = ops[at + i];
      uint8_t* c = op.cookie_out;
      StoreBe32(c + kKeyIdOffset, current_key_id());
      if (op.nonce16 != c + kNonceOffset) {
        std::memcpy(c + kNonceOffset, op.nonce16, 16);
      }
      // AD = {key id (the prefix), nonce}.
      ad[i] = {c + kNonceOffset, 16};
      seal[i] = {&siv_[k],
                 {&ad[i], 1},
                 reinterpret_cast<const uint8_t*>(op.keys),  // C2S || S2C
                 kPlainSize,
                 c + kSealedOffset,
                 &key_id_prefix_[k]};
    }
    AesSiv::SealBatch({seal, n});  // cannot fail: 1 component
  }
}

void NtsCookieKeystore::Open(std::span<NtsCookieOpenOp> ops) const {
  AesSivInput ad[kCookieChunk];
  AesSivOpenOp open[kCookieChunk];
  uint8_t plain[kCookieChunk][kPlainSize];
  NtsCookieOpenOp* of[kCookieChunk];
  uint32_t index[kCookieChunk];
  for (size_t at = 0; at < ops.size(); at += kCookieChunk) {
    const size_t end =
        ops.size() - at < kCookieChunk ? ops.size() : at + kCookieChunk;
    size_t n = 0;
    for (size_t j = at; j < end; ++j) {
      NtsCookieOpenOp& op = ops[j];
      if (op.len != kNtsCookieSize) {
        op.result = NtsCookieError::kBadLength;
        continue;
      }
      // The key id is the period's low 32 bits: its distance from the first
      // period of the window, modulo 2^32, picks the key (wrap included).
      const uint32_t k = LoadBe32(op.cookie + kKeyIdOffset) -
                         static_cast<uint32_t>(first_period_);
      if (k >= key_count_) {
        op.result = NtsCookieError::kUnknownKey;
        continue;
      }
      ad[n] = {op.cookie + kNonceOffset, 16};  // after the key id's prefix
      open[n] = {&siv_[k],
                 {&ad[n], 1},
                 op.cookie + kSealedOffset,
                 kAesSivTagSize + kPlainSize,
                 plain[n],
                 false,
                 &key_id_prefix_[k]};
      index[n] = k;
      of[n++] = &op;
    }
    AesSiv::OpenBatch({open, n});
    if (has_previous_) {  // the failures again, under the previous key
      AesSivOpenOp retry[kCookieChunk];
      size_t r = 0, which[kCookieChunk];
      for (size_t i = 0; i < n; ++i) {
        if (open[i].ok) continue;
        retry[r] = open[i];
        retry[r].siv = &previous_siv_[index[i]];
        retry[r].prefix = &previous_key_id_prefix_[index[i]];
        which[r++] = i;
      }
      AesSiv::OpenBatch({retry, r});
      for (size_t i = 0; i < r; ++i) open[which[i]].ok = retry[i].ok;
    }
    for (size_t i = 0; i < n; ++i) {
      NtsCookieOpenOp& op = *of[i];
      op.result = open[i].ok ? NtsCookieError::kOk : NtsCookieError::kBadTag;
      if (open[i].ok) {
        std::memcpy(op.out->c2s.data(), plain[i], kNtsKeySize);
        std::memcpy(op.out->s2c.data(), plain[i] + kNtsKeySize, kNtsKeySize);
      }
    }
    OPENSSL_cleanse(plain, sizeof(plain[0]) * n);
  }
}

}  // namespace zg::core
