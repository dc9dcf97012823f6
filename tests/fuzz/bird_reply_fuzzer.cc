// SPDX-License-Identifier: Apache-2.0
// Fuzzes the BIRD control-socket reply reader (servo/fleet/bird_cli.h) with
// arbitrary text split into lines: no crash, no sanitizer report; a reply
// never holds more than kMaxBirdReplyLines lines or a line longer than
// kMaxBirdLineBytes, and a completed reply's code is the last line's.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_split.h"
#include "servo/fleet/bird_cli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::servo;
  const std::string text(reinterpret_cast<const char*>(data), size);
  BirdReplyReader reader;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const BirdReplyReader::Result r = reader.Feed(line);
    if (r == BirdReplyReader::kMalformed) return 0;
    if (r != BirdReplyReader::kDone) continue;
    const BirdReply reply = reader.Take();
    if (reply.lines.empty() || reply.lines.size() > kMaxBirdReplyLines)
      __builtin_trap();
    if (reply.lines.back().code != reply.code) __builtin_trap();
    for (const BirdReplyLine& l : reply.lines) {
      if (l.text.size() > kMaxBirdLineBytes) __builtin_trap();
    }
    (void)BirdProtocolState(reply, "zg_anycast");
    (void)reply.Text();
  }
  return 0;
}
