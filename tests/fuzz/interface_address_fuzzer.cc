// SPDX-License-Identifier: Apache-2.0
// Fuzzes the operator-input parsers of the data plane: --address values
// (ParseInterfaceAddress, with a round-trip check) and PMD devargs
// (DevargValue).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "dataplane/port/interface_address.h"
#include "dataplane/port/xdp_steering.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<zg::dataplane::InterfaceAddress> a =
      zg::dataplane::ParseInterfaceAddress(text);
  if (a.ok()) {
    // Whatever parses must print and parse back to the same address.
    absl::StatusOr<zg::dataplane::InterfaceAddress> b =
        zg::dataplane::ParseInterfaceAddress(a->ToString());
    if (!b.ok() || !(*a == *b)) std::abort();
  }
  (void)zg::dataplane::DevargValue(text, "iface");
  (void)zg::dataplane::DevargValue(text, "xdp_prog");
  return 0;
}
