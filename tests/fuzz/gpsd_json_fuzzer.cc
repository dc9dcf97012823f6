// SPDX-License-Identifier: Apache-2.0
// Fuzzes what JSON from outside meets with arbitrary bytes (what anything
// listening on gpsd's port could send): the bounded nlohmann-json parse and
// the gpsd message parser — no crash, no exception, no sanitizer report,
// bounded work; every document that parses dumps and parses back to the same
// value. The same bytes as a string in an audit record (the audit log's
// writer) always give one line of JSON that parses back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/bounded_json.h"
#include "servo/audit/audit_log.h"
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
  const absl::string_view abseil_text(text.data(), text.size());
  absl::StatusOr<nlohmann::json> v = zg::core::ParseBoundedJson(abseil_text);
  if (v.ok()) {
    const std::string once = v->dump();
    absl::StatusOr<nlohmann::json> back =
        zg::core::ParseBoundedJson(once, {.max_input_bytes = 1 << 20});
    if (!back.ok() || *back != *v || back->dump() != once) __builtin_trap();
  }
  AuditRecord r;
  r.event = AuditEvent::kConfigChange;
  r.source = std::string(text);
  r.values = {{std::string(text), std::string(text)}};
  const std::string line = FormatAuditRecord(r, 1);
  if (line.find('\n') != line.size() - 1) __builtin_trap();
  absl::StatusOr<nlohmann::json> parsed =
      zg::core::ParseBoundedJson(line, {.max_input_bytes = 1 << 20});
  if (!parsed.ok()) __builtin_trap();
  const nlohmann::json* values = zg::core::JsonMember(*parsed, "values");
  if (values == nullptr || values->size() != 1 ||
      !values->begin()->is_string()) {
    __builtin_trap();
  }
  if (!text.empty() && zg::core::JsonString(*parsed, "source") == nullptr) {
    __builtin_trap();
  }
  return 0;
}
