// SPDX-License-Identifier: Apache-2.0
// Parsing and formatting of control-socket messages (control_protocol.h).
#include "servo/api/control_protocol.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 11> kErrorNames = {
    "bad_request",          "unsupported_version",
    "unknown_command",      "bad_argument",
    "permission_denied",    "too_large",
    "too_many_connections", "timeout",
    "unavailable",          "failed",
    "shutting_down"};

}  // namespace

const char* ErrorCodeName(ErrorCode code) {
  const auto i = static_cast<size_t>(code);
  return i < kErrorNames.size() ? kErrorNames[i] : "failed";
}

std::optional<ErrorCode> ParseErrorCode(std::string_view name) {
  for (size_t i = 0; i < kErrorNames.size(); ++i) {
    if (name == kErrorNames[i]) return static_cast<ErrorCode>(i);
  }
  return std::nullopt;
}

ParsedRequest ParseControlRequest(std::string_view line) {
  ParsedRequest out;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    out.error = Reply::Error(
        ErrorCode::kBadRequest,
        "malformed JSON: a request is one JSON object on one line, e.g. "
        "{\"version\":1,\"command\":\"tracking\"}");
    return out;
  }
  if (!j.is_object()) {
    out.error =
        Reply::Error(ErrorCode::kBadRequest, "a request must be a JSON object");
    return out;
  }
  if (auto it = j.find("id"); it != j.end()) out.id = *it;
  if (auto it = j.find("command"); it != j.end() && it->is_string()) {
    out.command = it->get<std::string>();
  }
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) {
    out.error = Reply::Error(
        ErrorCode::kBadRequest,
        absl::StrCat("\"version\" (an integer) is required; this server "
                     "speaks version ",
                     kControlProtocolVersion));
    return out;
  }
  if (version->get<int64_t>() != kControlProtocolVersion) {
    out.error = Reply::Error(
        ErrorCode::kUnsupportedVersion,
        absl::StrCat("protocol version ", version->dump(),
                     " is not supported; this zeitgeberd speaks version ",
                     kControlProtocolVersion));
    out.error.data = {{"supported_versions", {kControlProtocolVersion}}};
    return out;
  }
  const auto command = j.find("command");
  if (command == j.end() || !command->is_string() ||
      command->get<std::string>().empty()) {
    out.error = Reply::Error(ErrorCode::kBadRequest,
                             "\"command\" (a non-empty string) is required");
    return out;
  }
  ControlRequest r;
  r.command = command->get<std::string>();
  r.id = out.id;
  if (auto it = j.find("args"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      out.error = Reply::Error(ErrorCode::kBadRequest,
                               "\"args\" must be a JSON object");
      return out;
    }
    r.args = std::move(*it);
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "version" && key != "command" && key != "args" && key != "id") {
      out.error = Reply::Error(
          ErrorCode::kBadRequest,
          absl::StrCat("unknown field \"", key,
                       "\" (a request has version, command, args, id)"));
      return out;
    }
  }
  out.request = std::move(r);
  return out;
}

std::string FormatReply(const Reply& reply, const std::string& command,
                        const json& id) {
  json j = {{"version", kControlProtocolVersion}};
  if (!id.is_null()) j["id"] = id;
  if (!command.empty()) j["command"] = command;
  j["ok"] = reply.ok;
  if (reply.ok) {
    j["data"] = reply.data.is_null() ? json::object() : reply.data;
  } else {
    j["error"] = {{"code", ErrorCodeName(reply.code)},
                  {"message", reply.message}};
    if (!reply.data.is_null()) j["data"] = reply.data;
  }
  // Invalid UTF-8 (a source name, a path) is replaced, never thrown on.
  std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  return line;
}

std::string FormatRequest(const std::string& command, const json& args,
                          int version) {
  json j = {{"version", version}, {"command", command}};
  if (!args.is_null() && !args.empty()) j["args"] = args;
  std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  return line;
}

std::optional<Reply> ParseReply(std::string_view line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const auto ok = j.find("ok");
  if (ok == j.end() || !ok->is_boolean()) return std::nullopt;
  Reply r;
  r.ok = ok->get<bool>();
  if (auto it = j.find("data"); it != j.end()) r.data = *it;
  if (r.ok) return r;
  const auto e = j.find("error");
  if (e == j.end() || !e->is_object()) return std::nullopt;
  const auto code = e->find("code");
  const auto message = e->find("message");
  if (code == e->end() || !code->is_string()) return std::nullopt;
  r.code =
      ParseErrorCode(code->get<std::string>()).value_or(ErrorCode::kFailed);
  r.message = message != e->end() && message->is_string()
                  ? message->get<std::string>()
                  : code->get<std::string>();
  return r;
}

}  // namespace zg::servo
