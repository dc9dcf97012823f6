// SPDX-License-Identifier: Apache-2.0
// NTS cookies (RFC 8915 section 6) that any server of a fleet can open: the
// cookie key of each period is derived from one master key that every
// server of the fleet holds (anycast), so no state or RPC is shared.
//
// Period key: HKDF-SHA256(IKM = master key, salt = "zeitgeber nts cookie",
// info = period number as 8 bytes big-endian) -> 32 bytes, an
// AEAD_AES_SIV_CMAC_256 key. period = floor(unix_seconds / period_s); its
// key id is the low 32 bits of the period number.
//
// Cookie (kNtsCookieSize = 100 bytes, as chrony's):
//   key id      4   big-endian, the period that sealed it
//   nonce      16   random (the sealer's CSPRNG)
//   V          16   AES-SIV tag; AD = {key id, nonce}
//   C          64   C2S key (32) || S2C key (32), encrypted
// Only AEAD 15 is served, so the algorithm is not stored. S2V's state after
// the key id is computed once per period key (AesSivPrefix), so a cookie
// costs the CMACs of its nonce and keys only, and a batch of them runs on
// the VAES lanes' cookie kernel (core/crypto/vaes_lanes.h).
//
// An NtsCookieKeystore is immutable once derived: the control thread
// derives one for the current period (Derive) and publishes it to each
// worker; at a period boundary it derives the next one. Open/Seal
// allocate nothing, lock nothing, make no syscalls. The batch forms seal
// or open many cookies with their AES interleaved (AesSiv::SealBatch): a
// reply's eight cookies, or a burst's, cost about what two do alone.
#ifndef ZG_CORE_NTS_NTS_COOKIE_H_
#define ZG_CORE_NTS_NTS_COOKIE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "core/crypto/aes_siv.h"

namespace zg::core {

inline constexpr size_t kNtsCookieSize = 100;
inline constexpr size_t kNtsCookieNonceOffset = 4;  // after the key id
inline constexpr size_t kNtsKeySize = 32;           // C2S, S2C (AEAD 15)
inline constexpr size_t kNtsMasterKeyMinSize = 32;
inline constexpr uint16_t kNtsAeadAesSivCmac256 = 15;

// The two keys of one NTS association (RFC 8915 section 5.1). A cookie's
// plaintext is these 64 bytes as they lie here (C2S || S2C).
struct NtsKeys {
  std::array<uint8_t, kNtsKeySize> c2s{};
  std::array<uint8_t, kNtsKeySize> s2c{};
};
static_assert(sizeof(NtsKeys) == 2 * kNtsKeySize);

enum class NtsCookieError : uint8_t {
  kOk = 0,
  kBadLength,   // not kNtsCookieSize bytes
  kUnknownKey,  // key id outside the accepted window
  kBadTag,      // forged, corrupted or sealed under another master key
};
const char* NtsCookieErrorName(NtsCookieError e);  // "bad_length", ...

struct NtsKeystoreConfig {
  uint64_t period_s = 86400;   // --nts_key_period
  uint32_t window_past = 2;    // --nts_key_window: periods before the
  uint32_t window_future = 1;  // current one, and after it, accepted
};

// One cookie of a batch Seal: keys in, nonce (may be cookie_out + 4: it
// is then left where it is), the kNtsCookieSize bytes out.
struct NtsCookieSealOp {
  const NtsKeys* keys = nullptr;
  const uint8_t* nonce16 = nullptr;
  uint8_t* cookie_out = nullptr;
};
// One cookie of a batch Open, then its result and (kOk) keys.
struct NtsCookieOpenOp {
  const uint8_t* cookie = nullptr;
  size_t len = 0;
  NtsKeys* out = nullptr;
  NtsCookieError result = NtsCookieError::kOk;  // written by Open
};

class NtsCookieKeystore {
 public:
  // Derives the keys of periods [p - past, p + future], p the period of
  // unix_s. master.size() >= kNtsMasterKeyMinSize; period_s >= 1; the
  // window at most 16 periods each way.
  static absl::StatusOr<NtsCookieKeystore> Derive(
      std::span<const uint8_t> master, const NtsKeystoreConfig& config,
      int64_t unix_s);
  // As Derive, and cookies sealed under `previous` (the master key a reload
  // replaced) still open: when a cookie's tag fails under `master`, the
  // same period's key of `previous` is tried. A fleet rolls its master key
  // server by server without NAKing every client; only `master` seals.
  // An empty `previous` is Derive.
  static absl::StatusOr<NtsCookieKeystore> Derive(
      std::span<const uint8_t> master, const NtsKeystoreConfig& config,
      int64_t unix_s, std::span<const uint8_t> previous);
  // Whether a previous master key's cookies are accepted too.
  bool accepts_previous() const { return has_previous_; }

  uint64_t current_period() const { return current_period_; }
  uint32_t current_key_id() const {
    return static_cast<uint32_t>(current_period_);
  }
  // Unix second at which the current period ends (derive the next one).
  int64_t current_period_end_unix_s() const;

  // Seals `keys` under the current period's key with `nonce`.
  void Seal(const NtsKeys& keys, const uint8_t* nonce16,
            uint8_t* cookie_out) const;
  // Opens a cookie sealed under any period of the window.
  NtsCookieError Open(const uint8_t* cookie, size_t len, NtsKeys* out) const;
  // Every op as Seal / Open above, the AES of all of them interleaved.
  void Seal(std::span<const NtsCookieSealOp> ops) const;
  void Open(std::span<NtsCookieOpenOp> ops) const;

 private:
  NtsCookieKeystore() = default;
  static constexpr size_t kMaxKeys = 33;
  NtsKeystoreConfig config_;
  uint64_t current_period_ = 0;
  uint64_t first_period_ = 0;  // of siv_[0]
  size_t key_count_ = 0;
  std::array<AesSiv, kMaxKeys> siv_;
  // S2V after each period's key id (the AD's first component, the same
  // for every cookie of the period), under siv_ and previous_siv_.
  std::array<AesSivPrefix, kMaxKeys> key_id_prefix_;
  bool has_previous_ = false;
  std::array<AesSiv, kMaxKeys> previous_siv_;  // same periods as siv_
  std::array<AesSivPrefix, kMaxKeys> previous_key_id_prefix_;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTS_NTS_COOKIE_H_
