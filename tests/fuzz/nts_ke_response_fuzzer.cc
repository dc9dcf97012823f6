// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTS-KE client's record parser (bench/loadgen/nts_ke_client.h
// ParseNtsKeResponse) on arbitrary bytes: no read past the end (exact-size
// heap copy under ASan), and what it accepts is consistent: every cookie
// is non-empty and no larger than the input, and parsing a prefix never
// fails where the whole input parsed (a short tail means "read more").
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bench/loadgen/nts_ke_client.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  std::vector<uint8_t> buf(data, data + size);
  buf.shrink_to_fit();
  absl::StatusOr<zg::bench::NtsKeResponse> r =
      zg::bench::ParseNtsKeResponse(buf);
  if (!r.ok()) return 0;
  size_t total = 0;
  for (const std::vector<uint8_t>& c : r->cookies) {
    ZG_FUZZ_CHECK(!c.empty());
    total += c.size() + 4;
  }
  ZG_FUZZ_CHECK(total <= size);
  const std::vector<uint8_t> half(buf.begin(), buf.begin() + size / 2);
  ZG_FUZZ_CHECK(zg::bench::ParseNtsKeResponse(half).ok());
  return 0;
}
