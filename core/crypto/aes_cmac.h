// SPDX-License-Identifier: Apache-2.0
// AES-128-CMAC (RFC 4493) with a prepared key: the MAC of NTP's AES128
// symmetric keys (RFC 8573, core/ntp/ntp_mac.h). It is S2V's CMAC
// (core/crypto/aes_siv.h) on its own: AES-NI lanes where the CPU has them
// (core/crypto/aesni_lanes_inl.h), so a batch of MACs under many keys runs
// interleaved, and the portable block code elsewhere (same bytes). A call
// allocates nothing, takes no lock and makes no syscall.
//
// Ours rather than nettle's cmac_aes128 or OpenSSL's CMAC because a worker
// MACs a burst's requests together (nettle and OpenSSL take one message
// at a time, about 70 and 150 ns for 48 bytes here, against about 20 for
// three AES blocks); bench/core/ntp/ntp_mac_benchmark.cc compares the
// three in one run.
//
//   AesCmac128 cmac;
//   cmac.SetKey(key16);
//   uint8_t mac[16];
//   cmac.Compute(msg, len, mac);
//   AesCmac128::ComputeBatch(ops);          // many messages, many keys
#ifndef ZG_CORE_CRYPTO_AES_CMAC_H_
#define ZG_CORE_CRYPTO_AES_CMAC_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace zg::core {

inline constexpr size_t kAesCmacKeySize = 16;
inline constexpr size_t kAesCmacSize = 16;

class AesCmac128;

// One message of a batch.
struct AesCmacOp {
  const AesCmac128* key = nullptr;
  const uint8_t* data = nullptr;
  size_t len = 0;
  uint8_t* mac = nullptr;  // kAesCmacSize bytes
};

class AesCmac128 {
 public:
  AesCmac128();
  ~AesCmac128();  // wipes the key schedule
  AesCmac128(const AesCmac128&) = default;
  AesCmac128& operator=(const AesCmac128&) = default;

  // The AES-128 key schedule and the subkeys of key[0..16).
  void SetKey(const uint8_t* key16);
  // mac[0..16) = CMAC(data[0..len)).
  void Compute(const uint8_t* data, size_t len, uint8_t* mac) const;
  // Every op's MAC, the blocks of all of them interleaved.
  static void ComputeBatch(std::span<const AesCmacOp> ops);

 private:
  alignas(16) uint8_t rk_[11 * 16];
  alignas(16) uint8_t k1_[16];
  alignas(16) uint8_t k2_[16];
};

}  // namespace zg::core

#endif  // ZG_CORE_CRYPTO_AES_CMAC_H_
