// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTS cookie opener (core/nts/nts_cookie.h: NtsCookieKeystore::
// Open) and AES-SIV under it (core/crypto/aes_siv.h) with any bytes.
// Checks:
//  - Open never crashes (ASan/UBSan) and answers kBadLength exactly when
//    the input is not kNtsCookieSize bytes;
//  - a cookie that opens is one the keystore seals again byte for byte
//    (same key id, nonce and keys: AES-SIV is deterministic);
//  - keys and nonce taken from the input seal into a cookie that opens to
//    the same keys, and any byte changed makes it fail;
//  - AES-SIV over the input split into AD components and plaintext: Seal
//    then Open round-trips in place, the AES-NI and portable paths give the
//    same bytes, and the input as V || C under that AD never crashes Open.
//
// The keystore is derived from a fixed master key at a fixed time (unix
// 1750000000, period 20254 of one day, window 2 back and 1 ahead); the seeds
// in tests/fuzz/corpus/nts_cookie/ include cookies sealed under it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/crypto/aes_block.h"
#include "core/crypto/aes_siv.h"
#include "core/nts/nts_cookie.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

const NtsCookieKeystore& Keystore() {
  static const NtsCookieKeystore* ks = [] {
    uint8_t master[32];
    for (int i = 0; i < 32; ++i) master[i] = static_cast<uint8_t>(i);
    return new NtsCookieKeystore(
        *NtsCookieKeystore::Derive(master, {}, 1'750'000'000));
  }();
  return *ks;
}

void FuzzOpen(const uint8_t* data, size_t size) {
  const NtsCookieKeystore& ks = Keystore();
  NtsKeys keys;
  const NtsCookieError e = ks.Open(data, size, &keys);
  ZG_FUZZ_CHECK((e == NtsCookieError::kBadLength) == (size != kNtsCookieSize));
  if (e != NtsCookieError::kOk) return;
  const uint32_t key_id = uint32_t{data[0]} << 24 | uint32_t{data[1]} << 16 |
                          uint32_t{data[2]} << 8 | data[3];
  if (key_id != ks.current_key_id()) return;
  uint8_t again[kNtsCookieSize];
  ks.Seal(keys, data + 4, again);
  ZG_FUZZ_CHECK(std::memcmp(again, data, kNtsCookieSize) == 0);
}

void FuzzRoundTrip(const uint8_t* data, size_t size) {
  uint8_t material[2 * kNtsKeySize + 16] = {0};
  std::memcpy(material, data, std::min(size, sizeof(material)));
  NtsKeys keys;
  std::memcpy(keys.c2s.data(), material, kNtsKeySize);
  std::memcpy(keys.s2c.data(), material + kNtsKeySize, kNtsKeySize);
  uint8_t cookie[kNtsCookieSize];
  Keystore().Seal(keys, material + 2 * kNtsKeySize, cookie);
  NtsKeys back;
  ZG_FUZZ_CHECK(Keystore().Open(cookie, sizeof(cookie), &back) ==
                NtsCookieError::kOk);
  ZG_FUZZ_CHECK(back.c2s == keys.c2s && back.s2c == keys.s2c);
  const size_t at = size > 0 ? data[size - 1] % kNtsCookieSize : 0;
  cookie[at] ^= 0x01;
  ZG_FUZZ_CHECK(Keystore().Open(cookie, sizeof(cookie), &back) !=
                NtsCookieError::kOk);
}

// The first byte's low two bits: AD components (0..3); the next bytes their
// lengths; the rest is the plaintext.
void FuzzSiv(const uint8_t* data, size_t size) {
  if (size < 33) return;
  AesSiv siv;
  siv.SetKey(data);
  data += 32;
  size -= 32;
  const size_t n = data[0] & 3;
  size_t at = 1;
  AesSivInput ad[3];
  for (size_t i = 0; i < n; ++i) {
    const size_t want = at < size ? data[at] : 0;
    ++at;
    const size_t len = std::min(want, size - std::min(at, size));
    ad[i] = {data + std::min(at, size), len};
    at = std::min(at + len, size);
  }
  const std::span<const AesSivInput> ads(ad, n);
  const size_t len = size - at;
  std::vector<uint8_t> out(16 + len), in_place(16 + len), back(len);
  ZG_FUZZ_CHECK(siv.Seal(ads, data + at, len, out.data()));
  if (AesSiv::UsesAesNi()) {
    aes::ForcePortableForTesting(true);
    AesSiv portable;
    std::vector<uint8_t> key_copy(data - 32, data);
    portable.SetKey(key_copy.data());
    std::vector<uint8_t> p(16 + len);
    ZG_FUZZ_CHECK(portable.Seal(ads, data + at, len, p.data()));
    aes::ForcePortableForTesting(false);
    ZG_FUZZ_CHECK(p == out);
  }
  if (len != 0) std::memcpy(in_place.data() + 16, data + at, len);
  ZG_FUZZ_CHECK(siv.Seal(ads, in_place.data() + 16, len, in_place.data()));
  ZG_FUZZ_CHECK(in_place == out);
  ZG_FUZZ_CHECK(
      siv.Open(ads, in_place.data(), in_place.size(), in_place.data() + 16));
  ZG_FUZZ_CHECK(len == 0 ||
                std::memcmp(in_place.data() + 16, data + at, len) == 0);
  // The input's tail as V || C: garbage, must not crash.
  if (len >= 16) siv.Open(ads, data + at, len, back.data());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzOpen(data, size);
  FuzzRoundTrip(data, size);
  FuzzSiv(data, size);
  return 0;
}
