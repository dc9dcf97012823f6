// SPDX-License-Identifier: Apache-2.0
// Fuzzes the two parsers of the emulated timestamping NIC (TEST-ONLY code in
// tests/dataplane/testing/, one target to keep CI's fuzz stage short) with
// each input both as a frame and as text:
//  - ptp_event_match.h IsPtpEventFrame: nothing read outside the frame
//    (ASan; an exact-size copy); a match needs at least an Ethernet header
//    and a messageType byte; bytes after the frame never undo a match (the
//    filter reads fixed offsets, as a NIC's does);
//  - emulated_nic_args.h ParseEmulatedNicArgs: a rejection says why; what is
//    accepted is in range and formats (EmulatedNicArgs) to text that parses
//    back to the same config.
// Seeds: tests/fuzz/corpus/emulated_nic/ (PTP frames: L2, VLAN, UDP/IPv4,
// UDP/IPv6; args_*: devargs).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tests/dataplane/testing/emulated_nic_args.h"
#include "tests/dataplane/testing/ptp_event_match.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using zg::dataplane::testing::EmulatedNicArgs;
using zg::dataplane::testing::EmulatedNicConfig;
using zg::dataplane::testing::IsPtpEventFrame;
using zg::dataplane::testing::ParseEmulatedNicArgs;

void FuzzPtpFilter(const uint8_t* data, size_t size) {
  std::vector<uint8_t> frame(data, data + size);
  if (!IsPtpEventFrame(frame)) return;
  ZG_FUZZ_CHECK(size >= 15);
  frame.resize(size + 64, 0xff);
  ZG_FUZZ_CHECK(IsPtpEventFrame(frame));
}

void FuzzArgs(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<EmulatedNicConfig> c = ParseEmulatedNicArgs(text);
  if (!c.ok()) {
    ZG_FUZZ_CHECK(!c.status().message().empty());
    return;
  }
  ZG_FUZZ_CHECK(c->queues >= 1 && c->ring_size >= 2 && c->resolution_ns >= 1);
  ZG_FUZZ_CHECK(c->tx_stamp_loss >= 0 && c->tx_stamp_loss <= 1);
  const std::string formatted = EmulatedNicArgs(*c);
  const absl::StatusOr<EmulatedNicConfig> again =
      ParseEmulatedNicArgs(formatted);
  ZG_FUZZ_CHECK(again.ok() && EmulatedNicArgs(*again) == formatted);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzPtpFilter(data, size);
  FuzzArgs(data, size);
  return 0;
}
