// SPDX-License-Identifier: Apache-2.0
// Fuzzes the control socket's request parser (servo/api/control_protocol.h)
// with arbitrary lines: no crash, no sanitizer report; a line is either a
// request of this protocol's version with a command and an object of
// arguments, or an error reply; every reply it leads to is one line that a
// client parses back to the same outcome and code. Client-side reply
// parsing of the same bytes must not crash either.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "servo/api/control_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::servo;
  if (size > kMaxControlRequestBytes) return 0;  // the server cuts it first
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const ParsedRequest p = ParseControlRequest(line);
  Reply reply = p.error;
  if (p.request.has_value()) {
    if (p.request->version != kControlProtocolVersion ||
        p.request->command.empty() || !p.request->args.is_object()) {
      __builtin_trap();
    }
    reply = Reply::Ok(nlohmann::json::object());
  } else if (p.error.ok) {
    __builtin_trap();  // neither a request nor an error
  }
  const std::string out = FormatReply(reply, p.command, p.id);
  if (out.empty() || out.find('\n') != out.size() - 1) __builtin_trap();
  const std::optional<Reply> back = ParseReply(out);
  if (!back.has_value() || back->ok != reply.ok ||
      (!reply.ok && back->code != reply.code)) {
    __builtin_trap();
  }
  (void)ParseReply(line);
  return 0;
}
