// SPDX-License-Identifier: Apache-2.0
// Proves that the per-request NTS crypto allocates nothing: the global
// operator new and OpenSSL's allocator (CRYPTO_set_mem_functions, installed
// by a static initializer before OpenSSL's first allocation) count, and one
// reply's worth of calls (cookie open, two SetKey, authenticator verify,
// cookie seal, reply seal, nonces) runs 1000 times between two reads of the
// counts. The set-up (HKDF in Derive, getrandom) allocates, as it may.
#include <vector>

#include "core/crypto/aes_ctr_random.h"
#include "core/crypto/aes_siv.h"
#include "core/nts/nts_cookie.h"
#include "gtest/gtest.h"
#include "tests/util/alloc_count.h"

namespace zg::core {
namespace {

TEST(NtsCryptoAllocTest, OneReplysCryptoAllocatesNothing) {
  ASSERT_TRUE(testutil::AllocationHooksInstalled())
      << "OpenSSL allocated before the hook was installed";
  std::vector<uint8_t> master(32, 0x5a);
  absl::StatusOr<NtsCookieKeystore> ks =
      NtsCookieKeystore::Derive(master, {}, 1'750'000'000);
  ASSERT_TRUE(ks.ok()) << ks.status();
  absl::StatusOr<AesCtrRandom> rng = AesCtrRandom::FromOs();
  ASSERT_TRUE(rng.ok()) << rng.status();
  EXPECT_GT(testutil::AllocationCount(), 0) << "the hooks count nothing";

  NtsKeys keys;
  keys.c2s[0] = 1;
  keys.s2c[0] = 2;
  uint8_t nonce[16] = {0};
  uint8_t cookie[kNtsCookieSize];
  ks->Seal(keys, nonce, cookie);
  std::vector<uint8_t> req_ad(188, 3), reply_ad(84, 4);
  uint8_t req_tag[16];
  AesSiv c2s, s2c;
  c2s.SetKey(keys.c2s.data());
  const AesSivInput req[] = {{req_ad.data(), req_ad.size()}, {nonce, 16}};
  ASSERT_TRUE(c2s.Seal(req, nullptr, 0, req_tag));
  uint8_t reply[16 + 104] = {0};

  const long before = testutil::AllocationCount();
  for (int i = 0; i < 1000; ++i) {
    NtsKeys k;
    ASSERT_EQ(ks->Open(cookie, sizeof(cookie), &k), NtsCookieError::kOk);
    c2s.SetKey(k.c2s.data());
    s2c.SetKey(k.s2c.data());
    ASSERT_TRUE(c2s.Open(req, req_tag, sizeof(req_tag), nullptr));
    uint8_t fresh[16];
    rng->Fill(fresh, sizeof(fresh));
    ks->Seal(k, fresh, reply + 16 + 4);
    rng->Fill(fresh, sizeof(fresh));
    const AesSivInput rep[] = {{reply_ad.data(), reply_ad.size()}, {fresh, 16}};
    ASSERT_TRUE(s2c.Seal(rep, reply + 16, 104, reply));
    ASSERT_TRUE(s2c.Open(rep, reply, sizeof(reply), reply + 16));
  }
  EXPECT_EQ(testutil::AllocationCount(), before);
}

}  // namespace
}  // namespace zg::core
