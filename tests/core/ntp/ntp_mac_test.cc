// SPDX-License-Identifier: Apache-2.0
// Known-answer and behaviour tests of the NTP MACs (core/ntp/ntp_mac.h).
//
// Expected values do not come from the code under test:
//  - RFC 4493 section 4 examples (AES-128-CMAC of 0, 16, 40, 64 bytes);
//  - the 48-byte request kRequest below, written to hdr.bin and MACed with
//      openssl mac -cipher AES-128-CBC
//        -macopt hexkey:2b7e151628aed2a6abf7158809cf4f3c -in hdr.bin CMAC
//        -> 64A0484BE6192AE0774779606130F464
//      openssl mac -cipher AES-256-CBC -macopt hexkey:603deb1015ca71be2b73ae
//        f0857d77811f352c073b6108d72d9810a30914dff4 -in hdr.bin CMAC
//        -> 7C8810ABADD52A54B9F791D36B5FA897
//      python3 -c "import hashlib; print(hashlib.md5(b'correct-horse' +
//        open('hdr.bin','rb').read()).hexdigest())"
//        -> 889cd4880167d12cc23a2e360dacd853 (sha1: ffb2f9479ffe40e3e0e1ca2f
//           ba7b3e6eb1f0b035)
#include "core/ntp/ntp_mac.h"

#include <array>
#include <string>
#include <vector>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_wire.h"
#include "gtest/gtest.h"
#include "tests/util/hex.h"

namespace zg::core {
namespace ntp_mac_test {
namespace {

constexpr char kKeys[] =
    "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
    "2 AES256 "
    "HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4\n"
    "3 MD5 ASCII:correct-horse\n"
    "4 SHA1 correct-horse\n";

std::vector<uint8_t> Hex(const std::string& s) { return testutil::FromHex(s); }
std::string ToHex(const uint8_t* p, size_t n) {
  return testutil::ToHex(absl::MakeConstSpan(p, n));
}

// LI=0 VN=4 mode 3, poll 6, precision -20, T1 e8fe6f80.80000001.
std::vector<uint8_t> Request() {
  std::vector<uint8_t> b(48, 0);
  b[0] = 0x23;
  b[2] = 6;
  b[3] = 0xec;
  StoreBe64(b.data() + 40, 0xe8fe6f8080000001ull);
  return b;
}

class NtpMacTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<NtpKeyTable> t = ParseNtpKeys(kKeys);
    ASSERT_TRUE(t.ok()) << t.status();
    auto m = NtpMacer::Create(*t);
    ASSERT_TRUE(m.ok()) << m.status();
    macer_ = std::move(*m);
  }
  uint16_t Index(uint32_t id) {
    const int i = macer_->Find(id);
    EXPECT_GE(i, 0);
    return static_cast<uint16_t>(i);
  }
  std::unique_ptr<NtpMacer> macer_;
};

TEST_F(NtpMacTest, Rfc4493Aes128CmacVectors) {
  const std::vector<uint8_t> m =
      Hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
          "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
  const std::pair<uint32_t, const char*> vectors[] = {
      {0, "bb1d6929e95937287fa37d129b756746"},
      {16, "070a16b46b4d4144f79bdd9dd04a287c"},
      {40, "dfa66747de9ae63030ca32611497c827"},
      {64, "51f0bebf7e3b9d92fc49741779363cfe"},
  };
  for (auto [len, want] : vectors) {
    uint8_t out[kNtpMaxDigestSize];
    ASSERT_EQ(macer_->Compute(Index(1), m.data(), len, out), 16u);
    EXPECT_EQ(ToHex(out, 16), want) << len;
  }
}

TEST_F(NtpMacTest, NtpHeaderVectorsFromOpensslAndHashlib) {
  const std::vector<uint8_t> req = Request();
  const std::pair<uint32_t, const char*> vectors[] = {
      {1, "64a0484be6192ae0774779606130f464"},
      {2, "7c8810abadd52a54b9f791d36b5fa897"},
      {3, "889cd4880167d12cc23a2e360dacd853"},
      {4, "ffb2f9479ffe40e3e0e1ca2fba7b3e6eb1f0b035"},
  };
  for (auto [id, want] : vectors) {
    uint8_t out[kNtpMaxDigestSize];
    const uint32_t n = macer_->Compute(Index(id), req.data(), 48, out);
    EXPECT_EQ(ToHex(out, n), want) << id;
  }
}

// The MAC covers the header and the extension fields before it.
NtpRequestCheck Check(const std::vector<uint8_t>& b) {
  return ValidateNtpRequest(b.data(), static_cast<uint32_t>(b.size()),
                            NtpMacHandling::kReport);
}

TEST_F(NtpMacTest, SignThenVerifyEveryType) {
  for (uint32_t id : {1u, 2u, 3u, 4u}) {
    std::vector<uint8_t> b = Request();
    b.resize(48 + 24);
    const uint32_t n = macer_->Sign(Index(id), b.data(), 48);
    ASSERT_EQ(n, NtpKeyMacSize(macer_->type(Index(id))));
    b.resize(48 + n);
    EXPECT_EQ(LoadBe32(b.data() + 48), id);
    const NtpRequestCheck c = Check(b);
    ASSERT_EQ(c.drop, NtpDrop::kNone) << id;
    ASSERT_EQ(c.trailer.mac, NtpMacKind::kSymmetric);
    EXPECT_EQ(c.trailer.mac_key_id, id);
    const NtpMacCheck v = macer_->Verify(b.data(), c.trailer);
    EXPECT_EQ(v.verdict, NtpMacVerdict::kOk) << id;
    EXPECT_EQ(macer_->key_id(v.key_index), id);
    // One flipped bit anywhere in the header or digest fails.
    for (size_t i : {size_t{1}, size_t{40}, size_t{47}, b.size() - 1}) {
      std::vector<uint8_t> bad = b;
      bad[i] ^= 1;
      const NtpRequestCheck cb = Check(bad);
      ASSERT_EQ(cb.drop, NtpDrop::kNone);
      EXPECT_EQ(macer_->Verify(bad.data(), cb.trailer).verdict,
                NtpMacVerdict::kBadMac)
          << id << " byte " << i;
    }
  }
}

TEST_F(NtpMacTest, ExtensionFieldsAreCovered) {
  std::vector<uint8_t> b = Request();
  // A 16-byte unknown extension field, then the MAC.
  const uint8_t ef[16] = {0x12, 0x34, 0x00, 0x10, 1, 2, 3, 4, 5, 6, 7, 8};
  b.insert(b.end(), ef, ef + 16);
  b.resize(64 + 20);
  ASSERT_EQ(macer_->Sign(Index(1), b.data(), 64), 20u);
  NtpRequestCheck c = Check(b);
  ASSERT_EQ(c.drop, NtpDrop::kNone);
  EXPECT_EQ(c.trailer.extension_fields, 1);
  EXPECT_EQ(c.trailer.mac_offset, 64u);
  EXPECT_EQ(macer_->Verify(b.data(), c.trailer).verdict, NtpMacVerdict::kOk);
  b[56] ^= 0x80;  // inside the extension field's value
  c = Check(b);
  EXPECT_EQ(macer_->Verify(b.data(), c.trailer).verdict,
            NtpMacVerdict::kBadMac);
}

TEST_F(NtpMacTest, UnknownKeyAndWrongLength) {
  std::vector<uint8_t> b = Request();
  b.resize(48 + 20);
  StoreBe32(b.data() + 48, 99);
  NtpRequestCheck c = Check(b);
  ASSERT_EQ(c.drop, NtpDrop::kNone);
  EXPECT_EQ(macer_->Verify(b.data(), c.trailer).verdict,
            NtpMacVerdict::kUnknownKey);
  // A 24-byte (SHA-1 sized) MAC with an AES key id, a 20-byte one with the
  // SHA-1 key: chrony's check_auth refuses both.
  b.resize(48 + 24);
  StoreBe32(b.data() + 48, 1);
  c = Check(b);
  EXPECT_EQ(macer_->Verify(b.data(), c.trailer).verdict,
            NtpMacVerdict::kBadLength);
  b.resize(48 + 20);
  StoreBe32(b.data() + 48, 4);
  c = Check(b);
  EXPECT_EQ(macer_->Verify(b.data(), c.trailer).verdict,
            NtpMacVerdict::kBadLength);
}

TEST(NtpMacWireTest, ReportOnlyVerifiableForms) {
  std::vector<uint8_t> b = Request();
  b.resize(48 + 20);
  StoreBe32(b.data() + 48, 7);
  b[60] = 1;
  auto len = [](const std::vector<uint8_t>& v) {
    return static_cast<uint32_t>(v.size());
  };
  // Default: dropped as before.
  EXPECT_EQ(ValidateNtpRequest(b.data(), len(b)).drop, NtpDrop::kMacPresent);
  EXPECT_EQ(ValidateNtpRequest(b.data(), len(b), NtpMacHandling::kReport).drop,
            NtpDrop::kNone);
  // Crypto-NAK, DES (v3, 12 bytes) and MS-SNTP stay dropped.
  std::vector<uint8_t> nak = Request();
  nak.resize(52);
  EXPECT_EQ(
      ValidateNtpRequest(nak.data(), len(nak), NtpMacHandling::kReport).drop,
      NtpDrop::kMacPresent);
  std::vector<uint8_t> des = Request();
  des[0] = 0x1b;  // v3
  des.resize(60);
  StoreBe32(des.data() + 48, 7);
  EXPECT_EQ(
      ValidateNtpRequest(des.data(), len(des), NtpMacHandling::kReport).drop,
      NtpDrop::kMacPresent);
  std::vector<uint8_t> ms = Request();
  ms[0] = 0x1b;
  ms.resize(68);
  StoreBe32(ms.data() + 48, 7);
  EXPECT_EQ(
      ValidateNtpRequest(ms.data(), len(ms), NtpMacHandling::kReport).drop,
      NtpDrop::kMacPresent);
  // A v3 request with a 20-byte MAC and a non-zero digest is checkable.
  ms[60] = 1;
  EXPECT_EQ(
      ValidateNtpRequest(ms.data(), len(ms), NtpMacHandling::kReport).drop,
      NtpDrop::kNone);
}

}  // namespace
}  // namespace ntp_mac_test
}  // namespace zg::core
