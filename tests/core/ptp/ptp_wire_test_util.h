// SPDX-License-Identifier: Apache-2.0
// Test helpers for the PTP wire-format tests (ptp_wire_test.cc,
// ptp_wire_reply_test.cc): a common header assembled by hand from IEEE
// 1588-2019 Table 35, the identities and timestamp it and the known answers
// use, and the ptp4l fixture messages of tests/data/ptp/.
#ifndef ZG_TESTS_CORE_PTP_PTP_WIRE_TEST_UTIL_H_
#define ZG_TESTS_CORE_PTP_PTP_WIRE_TEST_UTIL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"
#include "tests/util/pcap_frames.h"

namespace zg::core::testing {

using Bytes = std::vector<uint8_t>;

inline Bytes Cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A common header assembled by hand from IEEE 1588-2019 Table 35: domain 24,
// minorSdoId 0, correctionField 1.5 ns (0x18000), messageTypeSpecific 0,
// sourcePortIdentity 00:11:22:ff:fe:33:44:55 port 1, sequenceId 0x1234.
inline Bytes HeaderBytes(uint8_t type_octet, uint8_t version_octet,
                         uint16_t length, uint8_t flags0, uint8_t flags1,
                         uint8_t control, uint8_t interval) {
  return {type_octet,
          version_octet,
          uint8_t(length >> 8),
          uint8_t(length),
          0x18,
          0x00,
          flags0,
          flags1,
          0x00,
          0x00,
          0x00,
          0x00,
          0x00,
          0x01,
          0x80,
          0x00,
          0x00,
          0x00,
          0x00,
          0x00,
          0x00,
          0x11,
          0x22,
          0xFF,
          0xFE,
          0x33,
          0x44,
          0x55,
          0x00,
          0x01,
          0x12,
          0x34,
          control,
          interval};
}

inline constexpr PtpClockIdentity kSourceClock{
    {0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55}};
inline constexpr PtpPortIdentity kSourcePort{kSourceClock, 1};

// 2023-11-14T22:13:20.123456789 TAI.
inline constexpr PtpTimestamp kTs1{1'700'000'000, 123'456'789};
inline const Bytes kTs1Bytes = {0x00, 0x00, 0x65, 0x53, 0xF1,
                                0x00, 0x07, 0x5B, 0xCD, 0x15};

// The PTP messages of tests/data/ptp/<name>, through ClassifyFrame.
inline std::vector<Bytes> Fixture(const char* name) {
  absl::StatusOr<std::vector<Bytes>> msgs =
      testutil::Ptp4lFixtureMessages(name);
  EXPECT_TRUE(msgs.ok()) << msgs.status();
  return msgs.ok() ? *std::move(msgs) : std::vector<Bytes>{};
}

}  // namespace zg::core::testing

#endif  // ZG_TESTS_CORE_PTP_PTP_WIRE_TEST_UTIL_H_
