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
constexpr size_t kNonceOffset = 4;
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

// The AES-SIV keys of periods [first, first + count) under `master`.
absl::Status DeriveWindow(std::span<const uint8_t> master, uint64_t first,
                          size_t count, AesSiv* siv) {
  uint8_t key[kAesSivKeySize];
  for (size_t i = 0; i < count; ++i) {
    absl::Status s = DerivePeriodKey(master, first + i, key);
    if (!s.ok()) {
      OPENSSL_cleanse(key, sizeof(key));
      return s;
    }
    siv[i].SetKey(key);
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
  ZG_RETURN_IF_ERROR(
      DeriveWindow(master, ks.first_period_, ks.key_count_, ks.siv_.data()));
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
                                  ks.previous_siv_.data()));
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
  StoreBe32(cookie_out + kKeyIdOffset, current_key_id());
  std::memcpy(cookie_out + kNonceOffset, nonce16, 16);
  uint8_t* plain = cookie_out + kSealedOffset + kAesSivTagSize;
  std::memcpy(plain, keys.c2s.data(), kNtsKeySize);
  std::memcpy(plain + kNtsKeySize, keys.s2c.data(), kNtsKeySize);
  const AesSivInput ad[] = {{cookie_out + kKeyIdOffset, 4},
                            {cookie_out + kNonceOffset, 16}};
  siv_[current_period_ - first_period_].Seal(ad, plain, kPlainSize,
                                             cookie_out + kSealedOffset);
}

NtsCookieError NtsCookieKeystore::Open(const uint8_t* cookie, size_t len,
                                       NtsKeys* out) const {
  if (len != kNtsCookieSize) return NtsCookieError::kBadLength;
  // The key id is the period's low 32 bits: its distance from the first
  // period of the window, modulo 2^32, picks the key (wrap included).
  const uint32_t index =
      LoadBe32(cookie + kKeyIdOffset) - static_cast<uint32_t>(first_period_);
  if (index >= key_count_) return NtsCookieError::kUnknownKey;
  const AesSivInput ad[] = {{cookie + kKeyIdOffset, 4},
                            {cookie + kNonceOffset, 16}};
  uint8_t plain[kPlainSize];
  bool ok = siv_[index].Open(ad, cookie + kSealedOffset,
                             kAesSivTagSize + kPlainSize, plain);
  if (!ok && has_previous_) {
    ok = previous_siv_[index].Open(ad, cookie + kSealedOffset,
                                   kAesSivTagSize + kPlainSize, plain);
  }
  if (ok) {
    std::memcpy(out->c2s.data(), plain, kNtsKeySize);
    std::memcpy(out->s2c.data(), plain + kNtsKeySize, kNtsKeySize);
  }
  OPENSSL_cleanse(plain, sizeof(plain));
  return ok ? NtsCookieError::kOk : NtsCookieError::kBadTag;
}

}  // namespace zg::core
