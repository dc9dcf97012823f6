// SPDX-License-Identifier: Apache-2.0
// Fuzzes the tshark JSON reader of the test harness (tests/util/tshark.h,
// ParseTsharkJson) with any bytes: it must return packets or an error, never
// crash or throw (nlohmann-json exceptions are caught), and every packet it
// returns must answer its accessors (Summary, Clean, Field) safely.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "tests/util/tshark.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::testutil;
  const absl::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<DissectedPacket>> packets = ParseTsharkJson(json);
  if (!packets.ok()) {
    if (packets.status().message().empty()) __builtin_trap();
    return 0;
  }
  for (const DissectedPacket& p : *packets) {
    (void)p.Summary();
    if (p.Clean() !=
        (!p.malformed && p.ExpertAtLeast(ExpertSeverity::kWarning).empty())) {
      __builtin_trap();
    }
    (void)p.Field("frame.number");
    (void)CheckFields(p, {{"frame.number", "1"}});
  }
  (void)CheckClean(*packets);
  return 0;
}
