// SPDX-License-Identifier: Apache-2.0
// Fuzzes the --source parser (servo/sources/source_spec.h) with arbitrary text:
// no crash, no sanitizer report; every accepted spec keeps its text, names a
// known kind, has sane intervals and timeouts, and parses again to the same
// kind and intervals.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "servo/sources/source_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::servo;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<SourceSpec> s = ParseSourceSpec(text);
  if (!s.ok()) return 0;
  if (s->text != text || size > kMaxSourceSpecBytes) __builtin_trap();
  if (s->poll_interval_ns < 10'000'000 || s->poll_interval_ns > 60'000'000'000)
    __builtin_trap();
  if (s->sample_interval_ns <= 0) __builtin_trap();
  if (s->priority && (*s->priority < -1000 || *s->priority > 1000))
    __builtin_trap();
  const bool has_path =
      s->kind == SourceKind::kPhc || s->kind == SourceKind::kPps;
  if (has_path && (s->device_path.empty() || s->device_path[0] != '/'))
    __builtin_trap();
  if (s->kind == SourceKind::kGpsd &&
      (s->gpsd.port == 0 || s->gpsd.host.empty()))
    __builtin_trap();
  absl::StatusOr<SourceSpec> again = ParseSourceSpec(s->text);
  if (!again.ok() || again->kind != s->kind ||
      again->poll_interval_ns != s->poll_interval_ns) {
    __builtin_trap();
  }
  return 0;
}
