// SPDX-License-Identifier: Apache-2.0
// A per-worker CSPRNG for NTS nonces (cookie and reply nonces, RFC 8915):
// the AES-128-CTR keystream under a key seeded from the OS, rekeyed from its
// own output every 2^20 blocks (16 MiB: fast key erasure, so a state read
// later does not reveal output from before the last rekey).
//
// Seeding (FromOs: getrandom) is setup, on the control thread; Fill is the
// hot path: no syscall, lock or allocation, about a memcpy per call with an
// 8-block AES-NI refill every 256 bytes. One instance per worker, never
// shared (not thread-safe); not copyable, so two workers never emit the same
// stream.
//
//   ZG_ASSIGN_OR_RETURN(AesCtrRandom rng, AesCtrRandom::FromOs());
//   uint8_t nonce[16];
//   rng.Fill(nonce, sizeof(nonce));
#ifndef ZG_CORE_CRYPTO_AES_CTR_RANDOM_H_
#define ZG_CORE_CRYPTO_AES_CTR_RANDOM_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "core/crypto/aes_block.h"

namespace zg::core {

class AesCtrRandom {
 public:
  static constexpr size_t kSeedSize = 32;  // AES-128 key || initial counter
  static constexpr uint64_t kRekeyBlocks = uint64_t{1} << 20;

  // A generator seeded with 32 bytes from getrandom(2) (blocks until the
  // kernel's pool is initialised, as at early boot).
  static absl::StatusOr<AesCtrRandom> FromOs();
  // Deterministic for a given seed (tests, reproducible benchmarks).
  explicit AesCtrRandom(const uint8_t* seed32);

  AesCtrRandom(const AesCtrRandom&) = delete;
  AesCtrRandom& operator=(const AesCtrRandom&) = delete;
  // The moved-from generator is wiped and must not be used again.
  AesCtrRandom(AesCtrRandom&& other) noexcept;
  AesCtrRandom& operator=(AesCtrRandom&& other) noexcept;
  ~AesCtrRandom();

  // Writes n random bytes to out.
  void Fill(uint8_t* out, size_t n) {
    if (n <= kBufBytes - pos_) {
      __builtin_memcpy(out, buf_ + pos_, n);
      pos_ += n;
      return;
    }
    FillSlow(out, n);
  }

 private:
  static constexpr size_t kBufBytes = 256;  // 16 blocks per refill

  void Rekey(const uint8_t* seed32);
  void Refill();
  void FillSlow(uint8_t* out, size_t n);
  void Wipe();

  // All fields: written and read by the owning thread only.
  alignas(16) uint8_t rk_[aes::kAes128RoundKeyBytes];
  alignas(16) uint8_t ctr_[16];  // next counter block
  alignas(16) uint8_t buf_[kBufBytes];
  size_t pos_ = kBufBytes;  // bytes of buf_ already handed out
  uint64_t blocks_ = 0;     // blocks produced under the current key
};

}  // namespace zg::core

#endif  // ZG_CORE_CRYPTO_AES_CTR_RANDOM_H_
