// SPDX-License-Identifier: Apache-2.0
// Tests of AEAD_AES_SIV_CMAC_256 (core/crypto/aes_siv.h) and its AES-128
// block code (core/crypto/aes_block.h), on every path: the VAES lanes and
// the AES-NI lanes where the CPU has them, and the portable code, each
// forced by the test hooks.
//
// Expected values do not come from the code under test: the FIPS-197
// appendix C.1 block, the RFC 5297 appendix A.1 and A.2 vectors, and
// OpenSSL 3's own AES-128-SIV (EVP_CIPHER_fetch "AES-128-SIV") on random
// keys, components and lengths 1..300 (its EVP interface cannot seal an
// empty plaintext: EVP_EncryptUpdate of 0 bytes never reaches the cipher),
// and nettle's siv_cmac_aes128 (the AES-SIV
// that chrony uses) for the NTS shape {AD, nonce} at lengths 0..300.
#include "core/crypto/aes_siv.h"

#include <nettle/siv-cmac.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

#include "core/crypto/aes_block.h"
#include "gtest/gtest.h"
#include "tests/core/crypto/aes_paths.h"
#include "tests/util/hex.h"

namespace zg::core {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Hex(const std::string& s) { return testutil::FromHex(s); }
std::string ToHex(const Bytes& b) { return testutil::ToHex(b); }

// OpenSSL's AES-128-SIV: AD components, then the plaintext; returns V || C.
Bytes OpensslSeal(const Bytes& key, const std::vector<Bytes>& ad,
                  const Bytes& pt) {
  static EVP_CIPHER* const cipher =
      EVP_CIPHER_fetch(nullptr, "AES-128-SIV", nullptr);
  EXPECT_NE(cipher, nullptr);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EXPECT_EQ(EVP_EncryptInit_ex2(ctx, cipher, key.data(), nullptr, nullptr), 1);
  static const uint8_t kDummy = 0;  // OpenSSL reads in == NULL as "final"
  int outl = 0;
  for (const Bytes& c : ad) {
    EXPECT_EQ(
        EVP_EncryptUpdate(ctx, nullptr, &outl, c.empty() ? &kDummy : c.data(),
                          static_cast<int>(c.size())),
        1);
  }
  Bytes out(16 + pt.size() + 16);
  EXPECT_EQ(EVP_EncryptUpdate(ctx, out.data() + 16, &outl,
                              pt.empty() ? &kDummy : pt.data(),
                              static_cast<int>(pt.size())),
            1);
  int fin = 0;
  EXPECT_EQ(EVP_EncryptFinal_ex(ctx, out.data() + 16 + outl, &fin), 1);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out.data()), 1);
  EVP_CIPHER_CTX_free(ctx);
  out.resize(16 + pt.size());
  return out;
}

// nettle's AEAD interface: S2V(AD, nonce, plaintext); nonce non-empty.
Bytes NettleSeal(const Bytes& key, const Bytes& ad, const Bytes& nonce,
                 const Bytes& pt) {
  siv_cmac_aes128_ctx ctx;
  siv_cmac_aes128_set_key(&ctx, key.data());
  Bytes out(16 + pt.size());
  siv_cmac_aes128_encrypt_message(&ctx, nonce.size(), nonce.data(), ad.size(),
                                  ad.data(), out.size(), out.data(), pt.data());
  return out;
}

std::vector<AesSivInput> Inputs(const std::vector<Bytes>& ad) {
  std::vector<AesSivInput> in;
  for (const Bytes& c : ad) in.push_back({c.data(), c.size()});
  return in;
}

Bytes Seal(const AesSiv& siv, const std::vector<Bytes>& ad, const Bytes& pt) {
  Bytes out(16 + pt.size());
  EXPECT_TRUE(siv.Seal(Inputs(ad), pt.data(), pt.size(), out.data()));
  return out;
}

bool Open(const AesSiv& siv, const std::vector<Bytes>& ad, const Bytes& in,
          Bytes* pt) {
  pt->assign(in.size() - 16, 0xee);
  return siv.Open(Inputs(ad), in.data(), in.size(), pt->data());
}

class AesSivTest : public AesPathTest {};

Bytes RandomBytes(std::mt19937& rng, size_t n) {
  Bytes b(n);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

TEST_P(AesSivTest, Fips197Block) {
  alignas(16) uint8_t rk[aes::kAes128RoundKeyBytes];
  const Bytes key = Hex("000102030405060708090a0b0c0d0e0f");
  const Bytes pt = Hex("00112233445566778899aabbccddeeff");
  aes::ExpandKey128(key.data(), rk);
  Bytes out(16);
  aes::EncryptBlock(rk, pt.data(), out.data());
  EXPECT_EQ(ToHex(out), "69c4e0d86a7b0430d8cdb78070b4c55a");
}

TEST_P(AesSivTest, Rfc5297A1Deterministic) {
  AesSiv siv;
  siv.SetKey(Hex("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0"
                 "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
                 .data());
  const std::vector<Bytes> ad = {
      Hex("101112131415161718191a1b1c1d1e1f2021222324252627")};
  const Bytes pt = Hex("112233445566778899aabbccddee");
  const Bytes out = Seal(siv, ad, pt);
  EXPECT_EQ(ToHex(out),
            "85632d07c6e8f37f950acd320a2ecc93"
            "40c02b9690c4dc04daef7f6afe5c");
  Bytes back;
  ASSERT_TRUE(Open(siv, ad, out, &back));
  EXPECT_EQ(back, pt);
}

TEST_P(AesSivTest, Rfc5297A2NonceBased) {
  AesSiv siv;
  siv.SetKey(Hex("7f7e7d7c7b7a79787776757473727170"
                 "404142434445464748494a4b4c4d4e4f")
                 .data());
  const std::vector<Bytes> ad = {
      Hex("00112233445566778899aabbccddeeffdeaddadadeaddadaffeeddccbbaa9988"
          "7766554433221100"),
      Hex("102030405060708090a0"), Hex("09f911029d74e35bd84156c5635688c0")};
  const Bytes pt =
      Hex("7468697320697320736f6d6520706c61696e7465787420746f20656e6372797074"
          "207573696e67205349562d414553");
  const Bytes out = Seal(siv, ad, pt);
  EXPECT_EQ(ToHex(out),
            "7bdb6e3b432667eb06f4d14bff2fbd0f"
            "cb900f2fddbe404326601965c889bf17dba77ceb094fa663b7a3f748ba8af829"
            "ea64ad544a272e9c485b62a3fd5c0d");
  Bytes back;
  ASSERT_TRUE(Open(siv, ad, out, &back));
  EXPECT_EQ(back, pt);
}

TEST_P(AesSivTest, MatchesOpensslOnRandomInputs) {
  std::mt19937 rng(5297);
  auto bytes = [&rng](size_t n) { return RandomBytes(rng, n); };
  for (size_t len = 1; len <= 300; ++len) {
    for (size_t ncomp = 0; ncomp <= 3; ++ncomp) {
      const Bytes key = bytes(32);
      std::vector<Bytes> ad;
      for (size_t i = 0; i < ncomp; ++i) ad.push_back(bytes(rng() % 70));
      const Bytes pt = bytes(len);
      AesSiv siv;
      siv.SetKey(key.data());
      const Bytes ours = Seal(siv, ad, pt);
      ASSERT_EQ(ToHex(ours), ToHex(OpensslSeal(key, ad, pt)))
          << "len " << len << " components " << ncomp;
      Bytes back;
      ASSERT_TRUE(Open(siv, ad, ours, &back)) << len;
      ASSERT_EQ(back, pt);
    }
  }
}

TEST_P(AesSivTest, MatchesNettleOnNtsShapedInputs) {
  std::mt19937 rng(8915);
  auto bytes = [&rng](size_t n) { return RandomBytes(rng, n); };
  for (size_t len = 0; len <= 300; ++len) {
    for (size_t ad_len : {size_t{0}, size_t{4}, size_t{84}, rng() % 200}) {
      const Bytes key = bytes(32), ad = bytes(ad_len), nonce = bytes(16),
                  pt = bytes(len);
      AesSiv siv;
      siv.SetKey(key.data());
      const Bytes ours = Seal(siv, {ad, nonce}, pt);
      ASSERT_EQ(ToHex(ours), ToHex(NettleSeal(key, ad, nonce, pt)))
          << "len " << len << " ad " << ad_len;
      Bytes back;
      ASSERT_TRUE(Open(siv, {ad, nonce}, ours, &back)) << len;
      ASSERT_EQ(back, pt);
    }
  }
}

// Reply-sized messages (an 8-cookie reply seals 832 bytes), whose CTR
// runs whole vectors of eight under their own keys on the VAES lanes:
// alone and in one batch, where their remainders share vectors; against
// nettle.
TEST_P(AesSivTest, LongMessagesMatchNettle) {
  std::mt19937 rng(832);
  auto bytes = [&rng](size_t n) { return RandomBytes(rng, n); };
  std::vector<size_t> lens = {511, 512, 513, 832, 1023, 1024, 1100, 2048};
  for (size_t len = 520; len < 1200; len += 37) lens.push_back(len);
  std::vector<Bytes> keys, ad, nonce, pt, sealed;
  std::vector<AesSiv> sivs(lens.size());
  std::vector<std::vector<AesSivInput>> inputs(lens.size());
  std::vector<AesSivSealOp> batch(lens.size());
  for (size_t i = 0; i < lens.size(); ++i) {
    keys.push_back(bytes(32));
    ad.push_back(bytes(84));
    nonce.push_back(bytes(16));
    pt.push_back(bytes(lens[i]));
    sivs[i].SetKey(keys[i].data());
    const Bytes want = NettleSeal(keys[i], ad[i], nonce[i], pt[i]);
    ASSERT_EQ(ToHex(Seal(sivs[i], {ad[i], nonce[i]}, pt[i])), ToHex(want))
        << "len " << lens[i];
    inputs[i] = {{ad[i].data(), ad[i].size()},
                 {nonce[i].data(), nonce[i].size()}};
    sealed.emplace_back(16 + lens[i]);
    batch[i] = {&sivs[i], inputs[i], pt[i].data(), lens[i], sealed[i].data()};
  }
  ASSERT_TRUE(AesSiv::SealBatch(batch));
  for (size_t i = 0; i < lens.size(); ++i) {
    ASSERT_EQ(ToHex(sealed[i]),
              ToHex(NettleSeal(keys[i], ad[i], nonce[i], pt[i])))
        << "batch, len " << lens[i];
    Bytes back;
    ASSERT_TRUE(Open(sivs[i], {ad[i], nonce[i]}, sealed[i], &back));
    ASSERT_EQ(back, pt[i]);
  }
}

TEST_P(AesSivTest, ComponentLengthsAroundBlockEdges) {
  std::mt19937 rng(16);
  const Bytes key =
      Hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  AesSiv siv;
  siv.SetKey(key.data());
  for (size_t a = 0; a <= 50; ++a) {
    for (size_t len : {1, 15, 16, 17, 31, 32, 33, 64, 100}) {
      Bytes c0(a), c1(16), pt(len);
      for (uint8_t& x : c0) x = static_cast<uint8_t>(rng());
      for (uint8_t& x : pt) x = static_cast<uint8_t>(rng());
      const std::vector<Bytes> ad = {c0, c1};
      ASSERT_EQ(ToHex(Seal(siv, ad, pt)), ToHex(OpensslSeal(key, ad, pt)))
          << a << " " << len;
    }
  }
}

TEST_P(AesSivTest, EveryBitFlipIsRejected) {
  AesSiv siv;
  siv.SetKey(Hex("0f0e0d0c0b0a09080706050403020100"
                 "1f1e1d1c1b1a19181716151413121110")
                 .data());
  std::vector<Bytes> ad = {Hex("0102030405060708090a0b0c0d0e0f1011121314"),
                           Hex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")};
  const Bytes pt(40, 0x5a);
  Bytes sealed = Seal(siv, ad, pt);
  Bytes back;
  for (size_t bit = 0; bit < 8 * sealed.size(); ++bit) {
    sealed[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
    ASSERT_FALSE(Open(siv, ad, sealed, &back)) << "V||C bit " << bit;
    EXPECT_EQ(back, Bytes(pt.size(), 0)) << "plaintext wiped on failure";
    sealed[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
  }
  for (Bytes& c : ad) {
    for (size_t bit = 0; bit < 8 * c.size(); ++bit) {
      c[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
      ASSERT_FALSE(Open(siv, ad, sealed, &back)) << "AD bit " << bit;
      c[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
    }
  }
  ASSERT_TRUE(Open(siv, ad, sealed, &back));
  EXPECT_EQ(back, pt);
  // A component more, or fewer, or another key.
  std::vector<Bytes> more = ad;
  more.push_back({});
  EXPECT_FALSE(Open(siv, more, sealed, &back));
  EXPECT_FALSE(Open(siv, {ad[0]}, sealed, &back));
  AesSiv other;
  other.SetKey(Bytes(32, 1).data());
  EXPECT_FALSE(Open(other, ad, sealed, &back));
}

TEST_P(AesSivTest, InPlaceSealAndOpen) {
  AesSiv siv;
  siv.SetKey(Bytes(32, 7).data());
  const std::vector<Bytes> ad = {Bytes(4, 1), Bytes(16, 2)};
  for (size_t len : {0, 5, 16, 64, 100, 129, 228}) {
    Bytes pt(len);
    for (size_t i = 0; i < len; ++i) pt[i] = static_cast<uint8_t>(i * 7);
    Bytes buf(16 + len);
    std::copy(pt.begin(), pt.end(), buf.begin() + 16);
    ASSERT_TRUE(siv.Seal(Inputs(ad), buf.data() + 16, len, buf.data()));
    EXPECT_EQ(buf, Seal(siv, ad, pt)) << len;
    ASSERT_TRUE(siv.Open(Inputs(ad), buf.data(), buf.size(), buf.data() + 16));
    EXPECT_EQ(Bytes(buf.begin() + 16, buf.end()), pt) << len;
  }
}

TEST_P(AesSivTest, RejectsShortInputAndTooManyComponents) {
  AesSiv siv;
  siv.SetKey(Bytes(32, 3).data());
  uint8_t buf[32] = {0};
  EXPECT_FALSE(siv.Open({}, buf, 15, buf + 16));
  const std::vector<Bytes> nine(kAesSivMaxComponents + 1, Bytes(1, 0));
  EXPECT_FALSE(siv.Seal(Inputs(nine), buf, 0, buf));
  EXPECT_FALSE(siv.Open(Inputs(nine), buf, 16, buf + 16));
  const std::vector<Bytes> eight(kAesSivMaxComponents, Bytes(3, 9));
  const Bytes pt(20, 4);
  EXPECT_EQ(ToHex(Seal(siv, eight, pt)),
            ToHex(OpensslSeal(Bytes(32, 3), eight, pt)));
}

TEST_P(AesSivTest, CtrKeystreamMatchesBlockEncryption) {
  alignas(16) uint8_t rk[aes::kAes128RoundKeyBytes];
  const Bytes key(16, 0x42);
  aes::ExpandKey128(key.data(), rk);
  Bytes ctr = Hex("00000000000000007ffffffffffffffe");
  for (size_t len : {0, 1, 16, 17, 64, 65, 127, 128, 129, 300}) {
    Bytes ks(len);
    aes::Ctr128(rk, ctr.data(), nullptr, ks.data(), len);
    Bytes c = ctr;
    for (size_t off = 0; off < len; off += 16) {
      uint8_t block[16];
      aes::EncryptBlockPortable(rk, c.data(), block);
      for (size_t i = 0; i < 16 && off + i < len; ++i) {
        ASSERT_EQ(ks[off + i], block[i]) << len << " at " << off + i;
      }
      for (int i = 15; i >= 8 && ++c[i] == 0; --i) {
      }
    }
  }
}

// A batch of 40 messages (more than one chunk) under 5 keys, components
// and lengths mixed: each op gives what Seal and Open give alone, and a
// tampered op fails alone.
TEST_P(AesSivTest, BatchesMatchSingleCalls) {
  std::mt19937 rng(40);
  auto bytes = [&rng](size_t n) { return RandomBytes(rng, n); };
  constexpr size_t kKeys = 5, kOps = 40;
  std::vector<Bytes> keys;
  std::vector<AesSiv> sivs(kKeys), batch_keyed(kKeys);
  std::vector<AesSiv*> targets;
  std::vector<const uint8_t*> key_ptrs;
  for (size_t k = 0; k < kKeys; ++k) {
    keys.push_back(bytes(32));
    sivs[k].SetKey(keys[k].data());
    targets.push_back(&batch_keyed[k]);
    key_ptrs.push_back(keys[k].data());
  }
  AesSiv::SetKeyBatch(targets, key_ptrs);
  std::vector<std::vector<Bytes>> ads(kOps);
  std::vector<std::vector<AesSivInput>> inputs(kOps);
  std::vector<Bytes> pts(kOps), sealed(kOps), back(kOps);
  std::vector<AesSivSealOp> seal(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    const size_t ncomp = rng() % 4;
    for (size_t c = 0; c < ncomp; ++c) ads[i].push_back(bytes(rng() % 200));
    inputs[i] = Inputs(ads[i]);
    pts[i] = bytes(i % 7 == 0 ? 0 : rng() % 900);
    sealed[i].resize(16 + pts[i].size());
    seal[i] = {&batch_keyed[i % kKeys], inputs[i], pts[i].data(), pts[i].size(),
               sealed[i].data()};
  }
  ASSERT_TRUE(AesSiv::SealBatch(seal));
  for (size_t i = 0; i < kOps; ++i) {
    ASSERT_EQ(ToHex(sealed[i]), ToHex(Seal(sivs[i % kKeys], ads[i], pts[i])))
        << "op " << i;
  }
  sealed[17][3] ^= 1;
  std::vector<AesSivOpenOp> open(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    back[i].assign(pts[i].size(), 0xee);
    open[i] = {&sivs[i % kKeys], inputs[i], sealed[i].data(), sealed[i].size(),
               back[i].data()};
  }
  AesSiv::OpenBatch(open);
  for (size_t i = 0; i < kOps; ++i) {
    if (i == 17) {
      EXPECT_FALSE(open[i].ok);
      EXPECT_EQ(back[i], Bytes(pts[i].size(), 0));
      continue;
    }
    ASSERT_TRUE(open[i].ok) << "op " << i;
    EXPECT_EQ(back[i], pts[i]) << "op " << i;
  }
}

// One key for the whole batch, as the cookies of a burst are sealed and
// opened (the lane engines share its round keys), more ops than a chunk
// and not a multiple of four; checked against nettle.
TEST_P(AesSivTest, BatchUnderOneKeyMatchesNettle) {
  std::mt19937 rng(8915);
  auto bytes = [&rng](size_t n) { return RandomBytes(rng, n); };
  constexpr size_t kOps = 37;
  const Bytes key = bytes(32);
  AesSiv siv;
  siv.SetKey(key.data());
  std::vector<Bytes> ad(kOps), nonce(kOps), pt(kOps), sealed(kOps);
  std::vector<std::vector<AesSivInput>> inputs(kOps);
  std::vector<AesSivSealOp> seal(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    ad[i] = bytes(4);
    nonce[i] = bytes(16);
    pt[i] = bytes(i % 5 == 0 ? 100 : 64);
    inputs[i] = {{ad[i].data(), ad[i].size()},
                 {nonce[i].data(), nonce[i].size()}};
    sealed[i].resize(16 + pt[i].size());
    seal[i] = {&siv, inputs[i], pt[i].data(), pt[i].size(), sealed[i].data()};
  }
  ASSERT_TRUE(AesSiv::SealBatch(seal));
  std::vector<Bytes> back(kOps);
  std::vector<AesSivOpenOp> open(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    ASSERT_EQ(ToHex(sealed[i]), ToHex(NettleSeal(key, ad[i], nonce[i], pt[i])))
        << "op " << i;
    back[i].assign(pt[i].size(), 0xee);
    open[i] = {&siv, inputs[i], sealed[i].data(), sealed[i].size(),
               back[i].data()};
  }
  AesSiv::OpenBatch(open);
  for (size_t i = 0; i < kOps; ++i) {
    ASSERT_TRUE(open[i].ok) << "op " << i;
    EXPECT_EQ(back[i], pt[i]) << "op " << i;
  }
}

// Batches of the NTS cookie's shape (one key, a 4-byte key id folded into a
// prefix, a 16-byte nonce, 64 bytes of plaintext), which the VAES path runs
// on its own kernel, at sizes around its vector of four and its chunk of
// 32, half of them in place; against nettle (AD = the key id). A batch
// whose ops hold equal prefixes at different addresses takes the chain
// engine, and one without a prefix is S2V(nonce, pt), as OpenSSL's; both
// must give the same bytes. A tampered op fails alone, its plaintext
// cleared.
TEST_P(AesSivTest, CookieShapedBatchesWithAPrefixMatchNettle) {
  std::mt19937 rng(5297);
  auto bytes = [&rng](size_t n) { return RandomBytes(rng, n); };
  const Bytes key = bytes(32), key_id = bytes(4);
  AesSiv siv;
  siv.SetKey(key.data());
  const AesSivInput lead[] = {{key_id.data(), key_id.size()}};
  const AesSivPrefix prefix = siv.Prefix(lead), same_prefix = prefix;
  enum class Variant { kPrefix, kPrefixCopies, kNoPrefix };
  for (const Variant variant :
       {Variant::kPrefix, Variant::kPrefixCopies, Variant::kNoPrefix}) {
    for (const size_t n : {1, 3, 4, 5, 31, 32, 33, 70}) {
      SCOPED_TRACE(::testing::Message()
                   << "variant " << static_cast<int>(variant) << ", " << n
                   << " ops");
      std::vector<Bytes> nonce(n), pt(n), sealed(n);
      std::vector<AesSivInput> input(n);
      std::vector<AesSivSealOp> seal(n);
      for (size_t i = 0; i < n; ++i) {
        nonce[i] = bytes(16);
        pt[i] = bytes(64);
        input[i] = {nonce[i].data(), 16};
        sealed[i].assign(16 + 64, 0);
        const bool in_place = i % 2 == 1;
        if (in_place) std::copy(pt[i].begin(), pt[i].end(), &sealed[i][16]);
        const AesSivPrefix* p = variant == Variant::kNoPrefix ? nullptr
                                : variant == Variant::kPrefixCopies && i == 0
                                    ? &same_prefix
                                    : &prefix;
        const uint8_t* from = in_place ? &sealed[i][16] : pt[i].data();
        seal[i] = {&siv, {&input[i], 1}, from, 64, sealed[i].data(), p};
      }
      ASSERT_TRUE(AesSiv::SealBatch(seal));
      for (size_t i = 0; i < n; ++i) {
        const Bytes want = variant == Variant::kNoPrefix
                               ? OpensslSeal(key, {nonce[i]}, pt[i])
                               : NettleSeal(key, key_id, nonce[i], pt[i]);
        ASSERT_EQ(ToHex(sealed[i]), ToHex(want)) << "op " << i;
      }
      const size_t tampered = n / 2;
      sealed[tampered][(rng() % 80)] ^= static_cast<uint8_t>(1u << (rng() % 8));
      std::vector<Bytes> back(n);
      std::vector<AesSivOpenOp> open(n);
      for (size_t i = 0; i < n; ++i) {
        back[i].assign(64, 0xee);
        const bool in_place = i % 3 == 0;
        open[i] = {&siv,
                   {&input[i], 1},
                   sealed[i].data(),
                   sealed[i].size(),
                   in_place ? &sealed[i][16] : back[i].data(),
                   false,
                   seal[i].prefix};
      }
      AesSiv::OpenBatch(open);
      for (size_t i = 0; i < n; ++i) {
        const Bytes got =
            i % 3 == 0 ? Bytes(&sealed[i][16], &sealed[i][80]) : back[i];
        if (i == tampered) {
          EXPECT_FALSE(open[i].ok);
          EXPECT_EQ(got, Bytes(64, 0));
          continue;
        }
        ASSERT_TRUE(open[i].ok) << "op " << i;
        EXPECT_EQ(got, pt[i]) << "op " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, AesSivTest, kAesPaths, AesPathName);

}  // namespace
}  // namespace zg::core
