// SPDX-License-Identifier: Apache-2.0
// Proves the per-request MAC calls allocate nothing: operator new and
// OpenSSL's allocator count (tests/util/alloc_count.h), and Verify/Sign of
// every key type run 1000 times between two reads of the count. The set-up
// (NtpMacer::Create) allocates, as it may.
#include <vector>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "gtest/gtest.h"
#include "tests/util/alloc_count.h"

namespace zg::core {
namespace {

TEST(NtpMacAllocTest, VerifyAndSignAllocateNothing) {
  ASSERT_TRUE(testutil::AllocationHooksInstalled())
      << "OpenSSL allocated before the hook was installed";
  absl::StatusOr<NtpKeyTable> t = ParseNtpKeys(
      "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
      "2 AES256 HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a3"
      "0914dff4\n"
      "3 MD5 correct-horse\n"
      "4 SHA1 correct-horse\n");
  ASSERT_TRUE(t.ok()) << t.status();
  auto macer = NtpMacer::Create(*t);
  ASSERT_TRUE(macer.ok()) << macer.status();
  EXPECT_GT(testutil::AllocationCount(), 0) << "the hooks count nothing";
  std::vector<uint8_t> b(48 + 24, 0);
  b[0] = 0x23;
  StoreBe64(b.data() + 40, 0xe8fe6f8080000001ull);
  for (uint32_t id = 1; id <= 4; ++id) {
    const uint16_t k = static_cast<uint16_t>((*macer)->Find(id));
    const long before = testutil::AllocationCount();
    for (int i = 0; i < 1000; ++i) {
      b[47] = static_cast<uint8_t>(i);
      const uint32_t n = (*macer)->Sign(k, b.data(), 48);
      ASSERT_NE(n, 0u);
      NtpTrailer trailer;
      trailer.mac = NtpMacKind::kSymmetric;
      trailer.mac_offset = 48;
      trailer.mac_size = n;
      trailer.mac_key_id = id;
      ASSERT_EQ((*macer)->Verify(b.data(), trailer).verdict,
                NtpMacVerdict::kOk);
    }
    EXPECT_EQ(testutil::AllocationCount() - before, 0) << "key " << id;
  }
}

}  // namespace
}  // namespace zg::core
