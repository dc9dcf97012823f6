// SPDX-License-Identifier: Apache-2.0
// NtsClientAssociation against a tiny NTS server written here from RFC 8915
// section 5 (its AEAD is OpenSSL's AES-128-SIV, not core's AesSiv, so the two
// sides share no code): round trips refill the cookie jar, the server accepts
// the client's authenticator, an NTS NAK is recognised by its identifier,
// every tampered byte of a reply is rejected, and the per-request calls
// allocate nothing.
#include "core/nts/nts_client.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <vector>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_client.h"
#include "gtest/gtest.h"
#include "tests/util/alloc_count.h"

namespace zg::core {
namespace {

using Bytes = std::vector<uint8_t>;

// CMAC-AES-128 (OpenSSL EVP_MAC) of data under key[0..16).
void Cmac(const uint8_t* key, const uint8_t* data, size_t len, uint8_t* out) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "CMAC", nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  char cipher[] = "AES-128-CBC";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string("cipher", cipher, 0),
      OSSL_PARAM_construct_end()};
  size_t n = 0;
  EVP_MAC_init(ctx, key, 16, params);
  EVP_MAC_update(ctx, data, len);
  EVP_MAC_final(ctx, out, &n, 16);
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
}
void Dbl(uint8_t* d) {
  const uint8_t carry = d[0] >> 7;
  for (int i = 0; i < 15; ++i) d[i] = uint8_t(d[i] << 1 | d[i + 1] >> 7);
  d[15] = uint8_t(d[15] << 1) ^ (carry ? 0x87 : 0);
}
// RFC 5297 section 2.4 S2V for components {ad, nonce} and an EMPTY
// plaintext (OpenSSL's EVP AES-SIV cannot take one): V, written out
// step by step from the RFC.
void S2vEmpty(const uint8_t* key, const Bytes& ad, const uint8_t* nonce,
              size_t nonce_len, uint8_t* v) {
  uint8_t d[16], c[16];
  const uint8_t zero[16] = {};
  Cmac(key, zero, 16, d);
  Dbl(d);
  Cmac(key, ad.data(), ad.size(), c);
  for (int i = 0; i < 16; ++i) d[i] ^= c[i];
  Dbl(d);
  Cmac(key, nonce, nonce_len, c);
  for (int i = 0; i < 16; ++i) d[i] ^= c[i];
  // Sn = "" is shorter than 16: T = dbl(D) xor pad(Sn), pad = 0x80 0...
  Dbl(d);
  d[0] ^= 0x80;
  Cmac(key, d, 16, v);
}

// AEAD_AES_SIV_CMAC_256 through OpenSSL: components ad..., nonce; returns
// V || C, or (open) the plaintext; false on a bad tag.
bool OsslSiv(bool seal, const uint8_t* key, const Bytes& ad,
             const uint8_t* nonce, size_t nonce_len, const uint8_t* in,
             size_t in_len, Bytes* out) {
  if (!seal && in_len == 16) {  // a request's authenticator: V only
    uint8_t v[16];
    S2vEmpty(key, ad, nonce, nonce_len, v);
    out->clear();
    return std::memcmp(v, in, 16) == 0;
  }
  EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, "AES-128-SIV", nullptr);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  bool ok = c != nullptr && ctx != nullptr &&
            EVP_CipherInit_ex2(ctx, c, key, nullptr, seal ? 1 : 0, nullptr);
  int n = 0;
  const size_t body = seal ? in_len : in_len - 16;
  if (ok && !seal) {
    ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16,
                             const_cast<uint8_t*>(in)) == 1;
  }
  ok = ok && EVP_CipherUpdate(ctx, nullptr, &n, ad.data(),
                              static_cast<int>(ad.size())) == 1;
  ok = ok && EVP_CipherUpdate(ctx, nullptr, &n, nonce,
                              static_cast<int>(nonce_len)) == 1;
  Bytes data(body + 16);
  const uint8_t* src = seal ? in : in + 16;
  ok = ok &&
       EVP_CipherUpdate(ctx, data.data(), &n, src, static_cast<int>(body)) == 1;
  ok = ok && EVP_CipherFinal_ex(ctx, data.data() + body, &n) == 1;
  if (ok && seal) {
    uint8_t tag[16];
    ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1;
    out->assign(tag, tag + 16);
    out->insert(out->end(), data.begin(), data.begin() + body);
  } else if (ok) {
    out->assign(data.begin(), data.begin() + body);
  }
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
  return ok;
}

void PutField(Bytes* b, uint16_t type, const Bytes& body) {
  const size_t len = 4 + ((body.size() + 3) & ~size_t{3});
  b->push_back(static_cast<uint8_t>(type >> 8));
  b->push_back(static_cast<uint8_t>(type));
  b->push_back(static_cast<uint8_t>(len >> 8));
  b->push_back(static_cast<uint8_t>(len));
  b->insert(b->end(), body.begin(), body.end());
  b->resize(b->size() + (len - 4 - body.size()), 0);
}

// The reference server's cookie: C2S || S2C in clear, then a serial and
// zeros to 100 bytes (a client never looks inside).
Bytes TestCookie(const NtsKeys& k, uint8_t serial) {
  Bytes c(k.c2s.begin(), k.c2s.end());
  c.insert(c.end(), k.s2c.begin(), k.s2c.end());
  c.push_back(serial);
  c.resize(kNtsCookieSize, 0);
  return c;
}

// RFC 8915 section 5 server: checks a request, answers with fresh cookies.
struct RefServer {
  uint8_t serial = 0;
  bool Answer(const Bytes& req, Bytes* reply, bool nak = false) {
    Bytes uid, cookie;
    uint32_t placeholders = 0;
    size_t at = 48;
    while (at + 4 <= req.size()) {
      const uint16_t type = LoadBe16(&req[at]);
      const uint16_t len = LoadBe16(&req[at + 2]);
      if (len < 16 || at + len > req.size()) return false;
      const Bytes body(req.begin() + at + 4, req.begin() + at + len);
      if (type == 0x0104) uid = body;
      if (type == 0x0204) cookie = body;
      if (type == 0x0304) ++placeholders;
      if (type == 0x0404) {
        const uint16_t nl = LoadBe16(&body[0]);
        const uint16_t cl = LoadBe16(&body[2]);
        if (cookie.size() < 64) return false;
        Bytes plain;
        if (!OsslSiv(false, cookie.data(), Bytes(req.begin(), req.begin() + at),
                     &body[4], nl, &body[4 + ((nl + 3) & ~3)], cl, &plain)) {
          return false;
        }
        break;
      }
      at += len;
    }
    if (uid.size() != 32) return false;
    NtsKeys keys;
    std::memcpy(keys.c2s.data(), cookie.data(), 32);
    std::memcpy(keys.s2c.data(), cookie.data() + 32, 32);
    Bytes r(48, 0);
    r[0] = nak ? 0xE4 : 0x24;  // LI 3 (NAK) / 0, v4, mode 4
    r[1] = nak ? 0 : 2;
    if (nak) StoreBe32(&r[12], kNtpKissNtsNak);
    std::memcpy(&r[24], &req[40], 8);  // origin = client's transmit
    StoreBe64(&r[32], 0xe8fe6f8080000000ull);
    StoreBe64(&r[40], 0xe8fe6f8080001000ull);
    PutField(&r, 0x0104, uid);
    if (!nak) {
      Bytes plain;
      for (uint32_t i = 0; i <= placeholders; ++i) {
        PutField(&plain, 0x0204, TestCookie(keys, ++serial));
      }
      const Bytes ad = r;
      uint8_t nonce[16];
      for (int i = 0; i < 16; ++i) nonce[i] = static_cast<uint8_t>(0xA0 + i);
      Bytes ct;
      if (!OsslSiv(true, keys.s2c.data(), ad, nonce, 16, plain.data(),
                   plain.size(), &ct)) {
        return false;
      }
      Bytes body = {0, 16, static_cast<uint8_t>(ct.size() >> 8),
                    static_cast<uint8_t>(ct.size())};
      body.insert(body.end(), nonce, nonce + 16);
      body.insert(body.end(), ct.begin(), ct.end());
      PutField(&r, 0x0404, body);
    }
    *reply = r;
    return true;
  }
};

class NtsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t i = 0; i < 32; ++i) {
      keys_.c2s[i] = static_cast<uint8_t>(i);
      keys_.s2c[i] = static_cast<uint8_t>(0x80 + i);
    }
    for (size_t i = 0; i < 32; ++i) uid_[i] = static_cast<uint8_t>(3 * i + 1);
    for (size_t i = 0; i < 16; ++i) nonce_[i] = static_cast<uint8_t>(7 * i);
    assoc_.SetKeys(keys_);
  }
  void Fill(int n) {
    for (int i = 0; i < n; ++i) {
      const Bytes c = TestCookie(keys_, static_cast<uint8_t>(200 + i));
      ASSERT_TRUE(assoc_.PushCookie(c.data(), c.size()));
    }
  }
  Bytes Request(bool consume = true) {
    NtsRequestSpec spec;
    spec.transmit = NtpTimestamp::FromU64(0x1122334455667788ull);
    spec.unique_id = uid_;
    spec.nonce = nonce_;
    spec.placeholders = assoc_.PlaceholdersToRefill();
    Bytes b(1024);
    const uint32_t n =
        assoc_.BuildRequest(spec, consume, b.data(), uint32_t(b.size()));
    b.resize(n);
    return b;
  }
  NtsKeys keys_;
  uint8_t uid_[32];
  uint8_t nonce_[16];
  NtsClientAssociation assoc_;
  RefServer server_;
};

TEST_F(NtsClientTest, RequestLayout) {
  Fill(8);
  const Bytes req = Request();
  ASSERT_EQ(req.size(), NtsRequestSize(kNtsCookieSize, 0));
  EXPECT_EQ(req.size(), 48u + 36 + 104 + 40);
  EXPECT_EQ(req[0], 0x23);  // LI 0, v4, mode 3
  EXPECT_EQ(LoadBe64(&req[40]), 0x1122334455667788ull);
  EXPECT_EQ(LoadBe16(&req[48]), 0x0104);
  EXPECT_EQ(LoadBe16(&req[50]), 36);
  EXPECT_EQ(0, std::memcmp(&req[52], uid_, 32));
  EXPECT_EQ(LoadBe16(&req[84]), 0x0204);
  EXPECT_EQ(LoadBe16(&req[86]), 104);
  EXPECT_EQ(LoadBe16(&req[188]), 0x0404);
  EXPECT_EQ(LoadBe16(&req[190]), 40);
  EXPECT_EQ(LoadBe16(&req[192]), 16);  // nonce length
  EXPECT_EQ(LoadBe16(&req[194]), 16);  // ciphertext length: V only
  EXPECT_EQ(assoc_.cookies(), 7u);
  const NtpRequestCheck check =
      ValidateNtpRequest(req.data(), uint32_t(req.size()));
  EXPECT_FALSE(check.trailer.malformed);
  EXPECT_EQ(check.trailer.nts_fields, 3);
}

TEST_F(NtsClientTest, RoundTripRefillsTheJar) {
  Fill(3);
  const Bytes req = Request();
  EXPECT_EQ(req.size(), NtsRequestSize(kNtsCookieSize, 5));
  Bytes reply;
  ASSERT_TRUE(server_.Answer(req, &reply)) << "server rejected our request";
  EXPECT_LE(reply.size(), req.size());
  const NtsReplyCheck c = assoc_.VerifyReply(
      reply.data(), uint32_t(reply.size()), uid_, /*store_cookies=*/true);
  EXPECT_EQ(c.status, NtsReplyStatus::kOk) << NtsReplyStatusName(c.status);
  EXPECT_EQ(c.cookies, 6u);
  EXPECT_EQ(c.cookies_stored, 6u);
  EXPECT_EQ(assoc_.cookies(), 8u);
  NtpClientSample s;
  EXPECT_EQ(ParseNtpServerReply(reply.data(), uint32_t(reply.size()),
                                NtpTimestamp::FromU64(0x1122334455667788ull),
                                UtcNs{1'700'000'000 * kNanosPerSecond}, &s),
            NtpReplyStatus::kOk);
  // Eight more exchanges, each spending a cookie and getting one back.
  for (int i = 0; i < 8; ++i) {
    const Bytes r2 = Request();
    ASSERT_TRUE(server_.Answer(r2, &reply));
    EXPECT_EQ(
        assoc_.VerifyReply(reply.data(), uint32_t(reply.size()), uid_, true)
            .status,
        NtsReplyStatus::kOk);
    EXPECT_EQ(assoc_.cookies(), 8u);
  }
}

TEST_F(NtsClientTest, ServerRejectsATamperedRequest) {
  Fill(1);
  Bytes req = Request();
  Bytes reply;
  ASSERT_TRUE(server_.Answer(req, &reply));
  req[47] ^= 1;  // transmit timestamp, covered by the authenticator
  EXPECT_FALSE(server_.Answer(req, &reply));
}

TEST_F(NtsClientTest, NakIsRecognisedByItsIdentifier) {
  Fill(2);
  const Bytes req = Request();
  Bytes nak;
  ASSERT_TRUE(server_.Answer(req, &nak, /*nak=*/true));
  EXPECT_TRUE(IsNtsNak(nak.data(), uint32_t(nak.size()), uid_));
  EXPECT_EQ(
      assoc_.VerifyReply(nak.data(), uint32_t(nak.size()), uid_, true).status,
      NtsReplyStatus::kNak);
  uint8_t other[32] = {};
  EXPECT_FALSE(IsNtsNak(nak.data(), uint32_t(nak.size()), other));
  EXPECT_EQ(
      assoc_.VerifyReply(nak.data(), uint32_t(nak.size()), other, true).status,
      NtsReplyStatus::kUniqueIdMismatch);
  EXPECT_EQ(assoc_.cookies(), 1u);
}

TEST_F(NtsClientTest, EveryTamperedReplyByteIsRejected) {
  Fill(8);
  const Bytes req = Request(/*consume=*/false);
  Bytes reply;
  ASSERT_TRUE(server_.Answer(req, &reply));
  for (size_t i = 0; i < reply.size(); ++i) {
    Bytes bad = reply;
    bad[i] ^= 0x10;
    const NtsReplyCheck c =
        assoc_.VerifyReply(bad.data(), uint32_t(bad.size()), uid_, false);
    EXPECT_NE(c.status, NtsReplyStatus::kOk) << "byte " << i;
  }
  // Truncated anywhere: rejected too.
  for (size_t n = 0; n < reply.size(); n += 4) {
    EXPECT_NE(assoc_.VerifyReply(reply.data(), uint32_t(n), uid_, false).status,
              NtsReplyStatus::kOk)
        << "length " << n;
  }
  EXPECT_EQ(
      assoc_.VerifyReply(reply.data(), uint32_t(reply.size()), uid_, false)
          .status,
      NtsReplyStatus::kOk);
}

TEST_F(NtsClientTest, WrongKeyIsABadTag) {
  Fill(1);
  const Bytes req = Request(false);
  Bytes reply;
  ASSERT_TRUE(server_.Answer(req, &reply));
  NtsKeys other = keys_;
  other.s2c[0] ^= 1;
  NtsClientAssociation b;
  b.SetKeys(other);
  EXPECT_EQ(
      b.VerifyReply(reply.data(), uint32_t(reply.size()), uid_, true).status,
      NtsReplyStatus::kBadTag);
  EXPECT_EQ(b.cookies(), 0u);
}

TEST_F(NtsClientTest, NoCookieOrNoRoomBuildsNothing) {
  uint8_t buf[512];
  NtsRequestSpec spec;
  spec.unique_id = uid_;
  spec.nonce = nonce_;
  EXPECT_EQ(assoc_.BuildRequest(spec, true, buf, sizeof buf), 0u);
  Fill(1);
  EXPECT_EQ(assoc_.BuildRequest(spec, true, buf, 227), 0u);
  spec.placeholders = kNtsMaxCookies;
  EXPECT_EQ(assoc_.BuildRequest(spec, true, buf, sizeof buf), 0u);
  spec.placeholders = 0;
  spec.nonce = nullptr;
  EXPECT_EQ(assoc_.BuildRequest(spec, true, buf, sizeof buf), 0u);
  EXPECT_EQ(assoc_.cookies(), 1u);
  const Bytes big(kNtsClientMaxCookieSize + 1, 1);
  EXPECT_FALSE(assoc_.PushCookie(big.data(), big.size()));
}

TEST_F(NtsClientTest, PerRequestCallsAllocateNothing) {
  Fill(8);
  const Bytes req = Request(false);
  Bytes reply;
  ASSERT_TRUE(server_.Answer(req, &reply));
  uint8_t buf[512];
  NtsRequestSpec spec;
  spec.unique_id = uid_;
  spec.nonce = nonce_;
  ASSERT_TRUE(testutil::AllocationHooksInstalled());
  const long before = testutil::AllocationCount();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_NE(assoc_.BuildRequest(spec, false, buf, sizeof buf), 0u);
    ASSERT_EQ(
        assoc_.VerifyReply(reply.data(), uint32_t(reply.size()), uid_, false)
            .status,
        NtsReplyStatus::kOk);
  }
  EXPECT_EQ(testutil::AllocationCount(), before);
}

}  // namespace
}  // namespace zg::core
