// Fuzzes the emulated NIC's PTP filter (tests/dataplane/testing/
// ptp_event_match.h: IsPtpEventFrame) on arbitrary frames. Checks:
//  - nothing reads outside the frame (ASan; an exact-size copy);
//  - a match needs at least an Ethernet header and a PTP messageType byte;
//  - bytes after the frame never turn a match into a non-match (the filter
//    reads fixed offsets, as a NIC's does).
// Seeds: tests/fuzz/corpus/ptp_event_match/ (L2, VLAN, UDP/IPv4, UDP/IPv6).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tests/dataplane/testing/ptp_event_match.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> frame(data, data + size);
  const bool event = zg::dataplane::testing::IsPtpEventFrame(frame);
  if (!event) return 0;
  ZG_FUZZ_CHECK(size >= 15);
  frame.resize(size + 64, 0xff);
  ZG_FUZZ_CHECK(zg::dataplane::testing::IsPtpEventFrame(frame));
  return 0;
}
