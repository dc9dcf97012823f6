// Fuzzes the emulated NIC's devargs parser (tests/dataplane/testing/
// emulated_nic_args.h: ParseEmulatedNicArgs) on any bytes as text. Checks:
//  - no crash or UB (ASan/UBSan), whatever the bytes;
//  - a rejection says why; what is accepted is in range (queues, ring,
//    resolution, loss probability) and formats (EmulatedNicArgs) to text
//    that parses back to the same config.
// Seeds: tests/fuzz/corpus/emulated_nic_args/.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "tests/dataplane/testing/emulated_nic_args.h"
#include "tests/fuzz/fuzz_check.h"

using zg::dataplane::testing::EmulatedNicArgs;
using zg::dataplane::testing::EmulatedNicConfig;
using zg::dataplane::testing::ParseEmulatedNicArgs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<EmulatedNicConfig> c = ParseEmulatedNicArgs(text);
  if (!c.ok()) {
    ZG_FUZZ_CHECK(!c.status().message().empty());
    return 0;
  }
  ZG_FUZZ_CHECK(c->queues >= 1 && c->ring_size >= 2 && c->resolution_ns >= 1);
  ZG_FUZZ_CHECK(c->tx_stamp_loss >= 0 && c->tx_stamp_loss <= 1);
  const std::string formatted = EmulatedNicArgs(*c);
  const absl::StatusOr<EmulatedNicConfig> again =
      ParseEmulatedNicArgs(formatted);
  ZG_FUZZ_CHECK(again.ok() && EmulatedNicArgs(*again) == formatted);
  return 0;
}
