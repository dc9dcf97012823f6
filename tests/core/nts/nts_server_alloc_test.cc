// SPDX-License-Identifier: Apache-2.0
// Proves that the workers' NTS path (core/nts/nts_server.h) allocates
// nothing per request: operator new and OpenSSL's allocator count
// (tests/util/alloc_count.h), and 1000 chrony-shaped requests (with 3
// placeholders) go through ValidateNtpRequest, NtsServer::Check, the reply
// header, WriteReply, SetKey and SealNtsReply, and 1000 with a foreign
// cookie through Check and the NAK, between two reads of the counts.
#include <cstring>
#include <vector>

#include "core/crypto/aes_ctr_random.h"
#include "core/ntp/ntp_reply.h"
#include "core/nts/nts_server.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"
#include "tests/util/alloc_count.h"

namespace zg::core {
namespace {

constexpr int64_t kUnixS = 1'800'000'000;

TEST(NtsServerAllocTest, RepliesAndNaksAllocateNothing) {
  ASSERT_TRUE(testutil::AllocationHooksInstalled())
      << "OpenSSL allocated before the hook was installed";
  absl::StatusOr<NtsCookieKeystore> ks =
      NtsCookieKeystore::Derive(testing::TestMasterKey(1), {}, kUnixS);
  absl::StatusOr<NtsCookieKeystore> other =
      NtsCookieKeystore::Derive(testing::TestMasterKey(2), {}, kUnixS);
  absl::StatusOr<AesCtrRandom> rng = AesCtrRandom::FromOs();
  ASSERT_TRUE(ks.ok() && other.ok() && rng.ok());
  NtsServer server(&*rng);
  const NtsKeys keys = testing::TestKeys(5);
  testing::NtsClientSpec spec;
  spec.cookie = testing::MintCookie(*ks, keys);
  spec.c2s = keys.c2s;
  spec.placeholders = 3;
  const std::vector<uint8_t> good = testing::BuildNtsRequest(spec);
  spec.cookie = testing::MintCookie(*other, keys);
  const std::vector<uint8_t> foreign = testing::BuildNtsRequest(spec);
  std::vector<uint8_t> buf(good.size());
  ClockModel model;
  model.tai_anchor = TaiNs{(kUnixS + 37) * kNanosPerSecond};
  model.ns_per_tick_q32 = uint64_t{1} << 32;
  model.max_extrapolation_ns = 3600 * kNanosPerSecond;
  model.state = SyncState::kLocked;
  model.stratum = 1;
  AesSiv s2c;
  EXPECT_GT(testutil::AllocationCount(), 0) << "the hooks count nothing";

  const long before = testutil::AllocationCount();
  for (int i = 0; i < 1000; ++i) {
    std::memcpy(buf.data(), good.data(), good.size());
    const uint32_t len = static_cast<uint32_t>(good.size());
    const NtpRequestCheck check = ValidateNtpRequest(
        buf.data(), len, NtpMacHandling::kDrop, NtpNtsHandling::kReport);
    ASSERT_EQ(check.drop, NtpDrop::kNone);
    NtsRequestState st;
    ASSERT_EQ(server.Check(buf.data(), len, *ks, &st), NtsFailure::kNone);
    WriteNtpReply(buf.data(), check, model.tai_anchor, model);
    NtsSealJob job;
    ASSERT_EQ(server.WriteReply(buf.data(), len, st, *ks, &job), len);
    s2c.SetKey(job.s2c.data());
    StampNtpTransmit(buf.data(), model.tai_anchor + 1000, model);
    SealNtsReply(s2c, buf.data(), job);

    std::memcpy(buf.data(), foreign.data(), foreign.size());
    ASSERT_EQ(server.Check(buf.data(), len, *ks, &st),
              NtsFailure::kCookieBadTag);
    ASSERT_EQ(WriteNtsKiss(buf.data(), check, kNtpKissNtsNak, 0, st.fields),
              48u + 36u);
  }
  EXPECT_EQ(testutil::AllocationCount(), before);
}

}  // namespace
}  // namespace zg::core
