// SPDX-License-Identifier: Apache-2.0
#include "core/base/byte_order.h"

#include <cstdint>

#include "gtest/gtest.h"
// All three wire-format headers in one translation unit: before
// core/base/byte_order.h, net_headers.h and ptp_fields.h each defined
// zg::core::LoadBe16 and friends, so this did not compile.
#include "core/net/net_headers.h"
#include "core/ntp/ntp_wire.h"
#include "core/ptp/ptp_fields.h"

namespace zg::core {
namespace byte_order_test {
namespace {

TEST(ByteOrderTest, BigEndianLoadsAndStoresAtAnyAlignment) {
  uint8_t buf[24] = {};
  for (int off = 0; off < 8; ++off) {
    StoreBe32(buf + off, 0x0A630001);
    EXPECT_EQ(buf[off], 0x0A);
    EXPECT_EQ(buf[off + 3], 0x01);
    EXPECT_EQ(LoadBe32(buf + off), 0x0A630001u);
    StoreBe16(buf + off, 0x86DD);
    EXPECT_EQ(buf[off], 0x86);
    EXPECT_EQ(LoadBe16(buf + off), 0x86DD);
    StoreBe64(buf + off, 0x0102030405060708);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(buf[off + i], i + 1);
    EXPECT_EQ(LoadBe64(buf + off), 0x0102030405060708u);
  }
}

TEST(ByteOrderTest, FortyEightBitsAreSixBytesAndDropTheHighBits) {
  uint8_t buf[8] = {0xEE, 0, 0, 0, 0, 0, 0, 0xEE};
  StoreBe48(buf + 1, 0xFFFF123456789ABC);
  const uint8_t want[8] = {0xEE, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xEE};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(buf[i], want[i]) << i;
  EXPECT_EQ(LoadBe48(buf + 1), 0x123456789ABCu);
}

TEST(ByteOrderTest, NativeLoadsMatchMemoryOrder) {
  const uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(Load16(b), HostToBe16(0x0102));
  EXPECT_EQ(Load32(b), HostToBe32(0x01020304));
  EXPECT_EQ(Load64(b), HostToBe64(0x0102030405060708));
  static_assert(HostToBe16(HostToBe16(0x1234)) == 0x1234);
  static_assert(HostToBe32(HostToBe32(0x12345678)) == 0x12345678);
}

TEST(ByteOrderTest, NtpAndPtpFieldsUseTheSameOrder) {
  uint8_t buf[10];
  StoreNtpTimestamp(buf, NtpTimestamp{0xE8F5A1B3, 0x11223344});
  EXPECT_EQ(LoadBe64(buf), 0xE8F5A1B311223344u);
  StorePtpTimestamp(buf, PtpTimestamp{0x123456789ABC, 999'999'999});
  EXPECT_EQ(LoadBe48(buf), 0x123456789ABCu);
  EXPECT_EQ(LoadBe32(buf + 6), 999'999'999u);
}

}  // namespace
}  // namespace byte_order_test
}  // namespace zg::core
