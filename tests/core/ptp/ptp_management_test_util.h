// SPDX-License-Identifier: Apache-2.0
// Test helpers for the PTP management tests (ptp_management_test.cc,
// ptp_management_wire_test.cc): the grandmaster's and the client's
// identities, the grandmaster's data sets, a request as pmc builds one, and
// a byte diff for failure messages.
#ifndef ZG_TESTS_CORE_PTP_PTP_MANAGEMENT_TEST_UTIL_H_
#define ZG_TESTS_CORE_PTP_PTP_MANAGEMENT_TEST_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"

namespace zg::core::testing {

using Bytes = std::vector<uint8_t>;

inline constexpr PtpClockIdentity kGmClock{
    {0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55}};
inline constexpr PtpPortIdentity kGmPort{kGmClock, 1};
inline constexpr PtpPortIdentity kClientPort{
    {{0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11}}, 0x0203};

inline PtpDataSets GmDataSets() {
  PtpDataSets ds;
  ds.default_ds = {true, false, 1, 1, {6, 0x21, 0x4E5D}, 128, kGmClock, 24};
  ds.current_ds = {0, PtpCorrection{0}, PtpCorrection{0x18000}};
  ds.parent_ds.parent_port_identity = kGmPort;
  ds.parent_ds.grandmaster_priority1 = 1;
  ds.parent_ds.grandmaster_clock_quality = {6, 0x21, 0x4E5D};
  ds.parent_ds.grandmaster_identity = kGmClock;
  ds.time_properties_ds = {37,   false, false, true,
                           true, true,  true,  PtpTimeSource::kGnss};
  ds.port_ds.port_identity = kGmPort;
  ds.port_ds.port_state = PtpPortState::kMaster;
  ds.port_ds.log_min_delay_req_interval = -3;
  return ds;
}

// A request as pmc builds one: targetPortIdentity all ones, boundary hops
// 1/1, the dataField zero-padded to the data set's size unless `empty`.
inline Bytes Request(PtpManagementAction action, uint16_t id,
                     size_t data_length, uint16_t sequence_id = 7) {
  PtpHeader h;
  h.message_type = PtpMessageType::kManagement;
  h.domain_number = 24;
  h.source_port_identity = kClientPort;
  h.sequence_id = sequence_id;
  h.log_message_interval = kPtpLogIntervalUnspecified;
  const PtpManagement f{PtpPortIdentity::All(), 3, 1, action};
  const Bytes data(data_length, 0);
  Bytes out(200);
  out.resize(WritePtpManagementMessage(h, f, id, data, out));
  EXPECT_FALSE(out.empty());
  return out;
}

// Where two messages differ, for failure messages.
inline std::string Diff(const Bytes& a, const Bytes& b) {
  std::string s = "sizes " + std::to_string(a.size()) + "/" +
                  std::to_string(b.size()) + "; differ at";
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) {
      s += " [" + std::to_string(i) + "] " + std::to_string(a[i]) + "/" +
           std::to_string(b[i]);
    }
  }
  return s;
}

}  // namespace zg::core::testing

#endif  // ZG_TESTS_CORE_PTP_PTP_MANAGEMENT_TEST_UTIL_H_
