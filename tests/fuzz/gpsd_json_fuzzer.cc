// Fuzzes the bounded JSON reader and the gpsd message parser with arbitrary
// bytes (what anything listening on gpsd's port could send): no crash, no
// sanitizer report, bounded work; and for every document that parses,
// Serialize -> Parse reproduces the same value and the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "servo/json.h"
#include "servo/sources/gpsd_messages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::servo;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<GpsdMessage> m = ParseGpsdMessage(text);
  if (m.ok()) {
    if (const auto* sky = std::get_if<GpsdSky>(&*m)) {
      const ConstellationCounts c = CountSatellites(sky->satellites);
      int seen = 0;
      for (const SatelliteCounts& k : c) {
        if (k.used > k.seen) __builtin_trap();
        seen += k.seen;
      }
      if (seen != static_cast<int>(sky->satellites.size())) __builtin_trap();
    }
  }
  absl::StatusOr<json::Value> v = json::Parse(text);
  if (v.ok()) {
    const std::string once = json::Serialize(*v);
    absl::StatusOr<json::Value> back = json::Parse(once);
    if (!back.ok()) __builtin_trap();
    if (!(*back == *v)) __builtin_trap();
    if (json::Serialize(*back) != once) __builtin_trap();
  }
  std::string quoted;
  json::AppendQuoted(&quoted, text);
  absl::StatusOr<json::Value> q =
      json::Parse(quoted, {.max_input_bytes = 1 << 20});
  if (!q.ok() || q->type() != json::Type::kString) __builtin_trap();
  return 0;
}
