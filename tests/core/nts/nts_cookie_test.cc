// SPDX-License-Identifier: Apache-2.0
// Tests of the fleet NTS cookies (core/nts/nts_cookie.h).
//
// The period keys are checked against HKDF-SHA256 computed outside the code
// under test (Python's cryptography package):
//   HKDF(SHA256, length=32, salt=b"zeitgeber nts cookie",
//        info=period.to_bytes(8, "big")).derive(bytes(range(32)))
//   period 20000 -> 18b94f4ae97f97965290a3d440e3c6c5
//                   03ad319f0340dea7709fca83f4fa5238
// and a whole cookie sealed there with that HKDF and AESSIV(key).encrypt(
// keys, [key_id, nonce]) (tests/fuzz/corpus/nts_cookie/current_period: key
// id 20254, nonce 00..0f, keys 0x40..0x7f).
#include "core/nts/nts_cookie.h"

#include <cstring>
#include <vector>

#include "core/base/byte_order.h"
#include "core/crypto/aes_siv.h"
#include "gtest/gtest.h"
#include "tests/util/hex.h"

namespace zg::core {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Master(uint8_t base = 0) {
  Bytes m(32);
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint8_t>(base + i);
  return m;
}

NtsKeys Keys(uint8_t seed) {
  NtsKeys k;
  for (size_t i = 0; i < kNtsKeySize; ++i) {
    k.c2s[i] = static_cast<uint8_t>(seed + i);
    k.s2c[i] = static_cast<uint8_t>(seed * 3 + i);
  }
  return k;
}

const uint8_t kNonce[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

NtsCookieKeystore Make(int64_t unix_s, const NtsKeystoreConfig& c = {},
                       const Bytes& master = Master()) {
  absl::StatusOr<NtsCookieKeystore> ks =
      NtsCookieKeystore::Derive(master, c, unix_s);
  EXPECT_TRUE(ks.ok()) << ks.status();
  return *std::move(ks);
}

Bytes SealWith(const NtsCookieKeystore& ks, const NtsKeys& keys) {
  Bytes cookie(kNtsCookieSize);
  ks.Seal(keys, kNonce, cookie.data());
  return cookie;
}

void ExpectOpens(const NtsCookieKeystore& ks, const Bytes& cookie,
                 const NtsKeys& want) {
  NtsKeys got;
  ASSERT_EQ(ks.Open(cookie.data(), cookie.size(), &got), NtsCookieError::kOk);
  EXPECT_EQ(got.c2s, want.c2s);
  EXPECT_EQ(got.s2c, want.s2c);
}

constexpr int64_t kDay = 86400;
constexpr int64_t kT = 20000 * kDay + 1234;  // in period 20000 (2024-10-04)

TEST(NtsCookieTest, RoundTripAndLayout) {
  const NtsCookieKeystore ks = Make(kT);
  EXPECT_EQ(ks.current_period(), 20000u);
  EXPECT_EQ(ks.current_key_id(), 20000u);
  EXPECT_EQ(ks.current_period_end_unix_s(), 20001 * kDay);
  const Bytes cookie = SealWith(ks, Keys(9));
  EXPECT_EQ(LoadBe32(cookie.data()), 20000u);
  EXPECT_EQ(0, std::memcmp(cookie.data() + 4, kNonce, 16));
  ExpectOpens(ks, cookie, Keys(9));
}

TEST(NtsCookieTest, PeriodKeyIsHkdfSha256OfTheMasterKey) {
  const Bytes cookie = SealWith(Make(kT), Keys(5));
  AesSiv siv;
  siv.SetKey(testutil::FromHex("18b94f4ae97f97965290a3d440e3c6c5"
                               "03ad319f0340dea7709fca83f4fa5238")
                 .data());
  const AesSivInput ad[] = {{cookie.data(), 4}, {cookie.data() + 4, 16}};
  uint8_t plain[64];
  ASSERT_TRUE(siv.Open(ad, cookie.data() + 20, 80, plain));
  const NtsKeys k = Keys(5);
  EXPECT_EQ(0, std::memcmp(plain, k.c2s.data(), 32));
  EXPECT_EQ(0, std::memcmp(plain + 32, k.s2c.data(), 32));
}

TEST(NtsCookieTest, OpensACookieSealedByAnotherImplementation) {
  const Bytes cookie = testutil::FromHex(
      "00004f1e000102030405060708090a0b0c0d0e0f0fc076f692366289f1c089687755"
      "53e09afdcb6b268db3a202c2c5e75ace27a3e1aa88b01d4460e272cee77e14d9579d"
      "2f59afb2eae540ac66d4d38434e0918e46dbccc22bfcecca1cc8a5bcb784ff4c");
  const NtsCookieKeystore ks = Make(1'750'000'000);
  NtsKeys keys;
  for (size_t i = 0; i < kNtsKeySize; ++i) {
    keys.c2s[i] = static_cast<uint8_t>(0x40 + i);
    keys.s2c[i] = static_cast<uint8_t>(0x60 + i);
  }
  ExpectOpens(ks, cookie, keys);
  uint8_t nonce[16];
  for (int i = 0; i < 16; ++i) nonce[i] = static_cast<uint8_t>(i);
  Bytes again(kNtsCookieSize);
  ks.Seal(keys, nonce, again.data());
  EXPECT_EQ(again, cookie);
}

TEST(NtsCookieTest, EveryPeriodOfTheWindowOpensAndNoOther) {
  NtsKeystoreConfig c;
  c.window_past = 3;
  c.window_future = 2;
  const NtsCookieKeystore ks = Make(kT, c);
  for (int64_t d = -6; d <= 6; ++d) {
    const Bytes cookie = SealWith(Make(kT + d * kDay, c), Keys(1));
    NtsKeys got;
    const NtsCookieError e = ks.Open(cookie.data(), cookie.size(), &got);
    if (d >= -3 && d <= 2) {
      EXPECT_EQ(e, NtsCookieError::kOk) << d;
    } else {
      EXPECT_EQ(e, NtsCookieError::kUnknownKey) << d;
    }
  }
}

TEST(NtsCookieTest, OtherMasterKeyIsBadTag) {
  const Bytes cookie = SealWith(Make(kT, {}, Master(100)), Keys(2));
  NtsKeys got;
  EXPECT_EQ(Make(kT).Open(cookie.data(), cookie.size(), &got),
            NtsCookieError::kBadTag);
}

// A master-key rollover: the keystore of the new key with the old one as
// `previous` opens the old key's cookies of every period in the window,
// seals only under the new key, and still refuses a third key's cookies.
TEST(NtsCookieTest, PreviousMasterKeysCookiesStillOpen) {
  const int64_t now = 1'800'000'000;
  const NtsKeystoreConfig c;
  const NtsCookieKeystore old_key = Make(now, c, Master(0));
  absl::StatusOr<NtsCookieKeystore> rolled =
      NtsCookieKeystore::Derive(Master(100), c, now, Master(0));
  ASSERT_TRUE(rolled.ok()) << rolled.status();
  EXPECT_TRUE(rolled->accepts_previous());
  EXPECT_FALSE(Make(now, c, Master(100)).accepts_previous());
  // Cookies the old key sealed in each past period of the window.
  for (uint32_t back = 0; back <= c.window_past; ++back) {
    const NtsCookieKeystore then =
        Make(now - static_cast<int64_t>(back * c.period_s), c, Master(0));
    ExpectOpens(*rolled, SealWith(then, Keys(7)), Keys(7));
  }
  ExpectOpens(*rolled, SealWith(old_key, Keys(8)), Keys(8));
  // New cookies are the new key's: the old key alone cannot open them.
  const Bytes fresh = SealWith(*rolled, Keys(9));
  ExpectOpens(Make(now, c, Master(100)), fresh, Keys(9));
  NtsKeys got;
  EXPECT_EQ(old_key.Open(fresh.data(), fresh.size(), &got),
            NtsCookieError::kBadTag);
  // Without `previous`, and for a third key, the old cookies are bad tags.
  const Bytes old_cookie = SealWith(old_key, Keys(10));
  EXPECT_EQ(Make(now, c, Master(100))
                .Open(old_cookie.data(), old_cookie.size(), &got),
            NtsCookieError::kBadTag);
  const Bytes third = SealWith(Make(now, c, Master(200)), Keys(11));
  EXPECT_EQ(rolled->Open(third.data(), third.size(), &got),
            NtsCookieError::kBadTag);
  // A short previous key is refused like a short master key.
  EXPECT_FALSE(
      NtsCookieKeystore::Derive(Master(100), c, now, Bytes(16, 1)).ok());
}

TEST(NtsCookieTest, BadLengthAndEveryTamperedByte) {
  const NtsCookieKeystore ks = Make(kT);
  Bytes cookie = SealWith(ks, Keys(3));
  NtsKeys got;
  EXPECT_EQ(ks.Open(cookie.data(), 99, &got), NtsCookieError::kBadLength);
  EXPECT_EQ(ks.Open(cookie.data(), 0, &got), NtsCookieError::kBadLength);
  Bytes longer = cookie;
  longer.push_back(0);
  EXPECT_EQ(ks.Open(longer.data(), longer.size(), &got),
            NtsCookieError::kBadLength);
  for (size_t i = 0; i < cookie.size(); ++i) {
    for (uint8_t flip : {0x01, 0x80}) {
      cookie[i] ^= flip;
      const NtsCookieError e = ks.Open(cookie.data(), cookie.size(), &got);
      if (i < 4) {  // the key id: another period, in the window or not
        EXPECT_NE(e, NtsCookieError::kOk) << i;
      } else {
        EXPECT_EQ(e, NtsCookieError::kBadTag) << i;
      }
      cookie[i] ^= flip;
    }
  }
  ExpectOpens(ks, cookie, Keys(3));
}

TEST(NtsCookieTest, IndependentlyDerivedKeystoresInteroperate) {
  // Two servers of a fleet, started at different times in the same window.
  const NtsCookieKeystore a = Make(kT);
  const NtsCookieKeystore b = Make(kT + kDay);
  ExpectOpens(b, SealWith(a, Keys(4)), Keys(4));
  ExpectOpens(a, SealWith(Make(kT + 3), Keys(6)), Keys(6));
}

TEST(NtsCookieTest, RejectsBadConfigAndNegativeTime) {
  EXPECT_FALSE(NtsCookieKeystore::Derive(Bytes(31, 1), {}, kT).ok());
  NtsKeystoreConfig c;
  c.period_s = 0;
  EXPECT_FALSE(NtsCookieKeystore::Derive(Master(), c, kT).ok());
  c = {};
  c.window_past = 17;
  EXPECT_FALSE(NtsCookieKeystore::Derive(Master(), c, kT).ok());
  c = {};
  c.window_future = 17;
  EXPECT_FALSE(NtsCookieKeystore::Derive(Master(), c, kT).ok());
  absl::StatusOr<NtsCookieKeystore> neg =
      NtsCookieKeystore::Derive(Master(), {}, -1);
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("before 1970"), std::string::npos);
  c = {};
  c.window_past = 16;
  c.window_future = 16;
  EXPECT_TRUE(NtsCookieKeystore::Derive(Master(), c, kT).ok());
  EXPECT_TRUE(NtsCookieKeystore::Derive(Bytes(64, 7), {}, kT).ok());
}

TEST(NtsCookieTest, EpochStartKeepsThePeriodsThatExist) {
  const NtsCookieKeystore ks = Make(0);  // no periods before 0
  EXPECT_EQ(ks.current_period(), 0u);
  ExpectOpens(ks, SealWith(ks, Keys(7)), Keys(7));
  ExpectOpens(ks, SealWith(Make(kDay), Keys(7)), Keys(7));
  ExpectOpens(Make(2 * kDay), SealWith(ks, Keys(7)), Keys(7));
  Bytes far = SealWith(Make(3 * kDay), Keys(7));
  NtsKeys got;
  EXPECT_EQ(ks.Open(far.data(), far.size(), &got), NtsCookieError::kUnknownKey);
}

TEST(NtsCookieTest, Years2038And2106AndKeyIdWrap) {
  for (int64_t t : {int64_t{1} << 31, (int64_t{1} << 32) + 5,
                    int64_t{253402300799}}) {  // 2038, 2106, 9999-12-31
    const NtsCookieKeystore ks = Make(t);
    ExpectOpens(ks, SealWith(Make(t - kDay), Keys(8)), Keys(8));
    EXPECT_GT(ks.current_period_end_unix_s(), t);
    EXPECT_LE(ks.current_period_end_unix_s(), t + kDay);
  }
  // 1-second periods: period 2^32 + 1 has key id 1; the window reaches back
  // over the wrap to period 2^32 - 1 (key id 0xffffffff).
  NtsKeystoreConfig c;
  c.period_s = 1;
  const int64_t wrap = int64_t{1} << 32;
  const NtsCookieKeystore ks = Make(wrap + 1, c);
  EXPECT_EQ(ks.current_key_id(), 1u);
  const Bytes before = SealWith(Make(wrap - 1, c), Keys(10));
  EXPECT_EQ(LoadBe32(before.data()), 0xffffffffu);
  ExpectOpens(ks, before, Keys(10));
  ExpectOpens(ks, SealWith(Make(wrap, c), Keys(11)), Keys(11));
  ExpectOpens(ks, SealWith(Make(wrap + 2, c), Keys(12)), Keys(12));
  // Period 2 has the key id of period 2^32 + 2, which is in the window: the
  // window picks that period's key, under which the cookie is a bad tag.
  NtsKeys got;
  const Bytes old = SealWith(Make(2, c), Keys(13));
  EXPECT_EQ(ks.Open(old.data(), old.size(), &got), NtsCookieError::kBadTag);
  const Bytes gone = SealWith(Make(wrap - 2, c), Keys(13));
  EXPECT_EQ(ks.Open(gone.data(), gone.size(), &got),
            NtsCookieError::kUnknownKey);
}

TEST(NtsCookieTest, HugeTimesDoNotOverflow) {
  const NtsCookieKeystore ks = Make(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ks.current_period_end_unix_s(),
            std::numeric_limits<int64_t>::max());
  ExpectOpens(ks, SealWith(ks, Keys(14)), Keys(14));
}

TEST(NtsCookieTest, ErrorNames) {
  EXPECT_STREQ(NtsCookieErrorName(NtsCookieError::kOk), "ok");
  EXPECT_STREQ(NtsCookieErrorName(NtsCookieError::kBadLength), "bad_length");
  EXPECT_STREQ(NtsCookieErrorName(NtsCookieError::kUnknownKey), "unknown_key");
  EXPECT_STREQ(NtsCookieErrorName(NtsCookieError::kBadTag), "bad_tag");
}

}  // namespace
}  // namespace zg::core
