// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/aes_ctr_random.h"

#include <openssl/crypto.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"

namespace zg::core {

absl::StatusOr<AesCtrRandom> AesCtrRandom::FromOs() {
  uint8_t seed[kSeedSize];
  size_t got = 0;
  while (got < sizeof(seed)) {
    const ssize_t n = getrandom(seed + got, sizeof(seed) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(absl::StrCat(
          "NTS nonce generator: getrandom failed: ", std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  AesCtrRandom r(seed);
  OPENSSL_cleanse(seed, sizeof(seed));
  return r;
}

AesCtrRandom::AesCtrRandom(const uint8_t* seed32) { Rekey(seed32); }

AesCtrRandom::AesCtrRandom(AesCtrRandom&& other) noexcept {
  std::memcpy(rk_, other.rk_, sizeof(rk_));
  std::memcpy(ctr_, other.ctr_, sizeof(ctr_));
  std::memcpy(buf_, other.buf_, sizeof(buf_));
  pos_ = other.pos_;
  blocks_ = other.blocks_;
  other.Wipe();
}

AesCtrRandom& AesCtrRandom::operator=(AesCtrRandom&& other) noexcept {
  if (this != &other) {
    std::memcpy(rk_, other.rk_, sizeof(rk_));
    std::memcpy(ctr_, other.ctr_, sizeof(ctr_));
    std::memcpy(buf_, other.buf_, sizeof(buf_));
    pos_ = other.pos_;
    blocks_ = other.blocks_;
    other.Wipe();
  }
  return *this;
}

AesCtrRandom::~AesCtrRandom() { Wipe(); }

void AesCtrRandom::Wipe() {
  OPENSSL_cleanse(rk_, sizeof(rk_));
  OPENSSL_cleanse(ctr_, sizeof(ctr_));
  OPENSSL_cleanse(buf_, sizeof(buf_));
  pos_ = kBufBytes;
  blocks_ = 0;
}

void AesCtrRandom::Rekey(const uint8_t* seed32) {
  aes::ExpandKey128(seed32, rk_);
  std::memcpy(ctr_, seed32 + 16, 16);
  blocks_ = 0;
  pos_ = kBufBytes;
}

void AesCtrRandom::Refill() {
  if (blocks_ >= kRekeyBlocks) {
    // The next two blocks become the new key and counter; the old key is
    // overwritten.
    uint8_t seed[kSeedSize];
    aes::Ctr128(rk_, ctr_, nullptr, seed, sizeof(seed));
    Rekey(seed);
    OPENSSL_cleanse(seed, sizeof(seed));
  }
  aes::Ctr128(rk_, ctr_, nullptr, buf_, kBufBytes);
  // Ctr128 increments the low 64 bits of the counter (mod 2^64, distinct
  // blocks within one key's 2^20).
  StoreBe64(ctr_ + 8, LoadBe64(ctr_ + 8) + kBufBytes / 16);
  blocks_ += kBufBytes / 16;
  pos_ = 0;
}

void AesCtrRandom::FillSlow(uint8_t* out, size_t n) {
  while (n > 0) {
    if (pos_ == kBufBytes) Refill();
    const size_t take = n < kBufBytes - pos_ ? n : kBufBytes - pos_;
    std::memcpy(out, buf_ + pos_, take);
    pos_ += take;
    out += take;
    n -= take;
  }
}

}  // namespace zg::core
