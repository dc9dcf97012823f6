// SPDX-License-Identifier: Apache-2.0
// BIRD's control-socket replies (bird_cli.h).
#include "servo/fleet/bird_cli.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace zg::servo {

std::string BirdReply::Text() const {
  std::string out;
  for (const BirdReplyLine& l : lines) {
    const absl::string_view t = absl::StripAsciiWhitespace(l.text);
    if (t.empty()) continue;
    if (!out.empty()) out += "; ";
    absl::StrAppend(&out, t);
  }
  return out;
}

BirdReplyReader::Result BirdReplyReader::Feed(absl::string_view line) {
  if (line.size() > kMaxBirdLineBytes ||
      reply_.lines.size() >= kMaxBirdReplyLines) {
    return kMalformed;
  }
  if (!line.empty() && line[0] == ' ') {
    if (last_code_ < 0) return kMalformed;  // continues nothing
    reply_.lines.push_back({last_code_, std::string(line.substr(1))});
    return kMore;
  }
  if (line.size() < 5) return kMalformed;
  int code = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(line[i]))) {
      return kMalformed;
    }
    code = code * 10 + (line[i] - '0');
  }
  if (line[4] != '-' && line[4] != ' ') return kMalformed;
  last_code_ = code;
  reply_.lines.push_back({code, std::string(line.substr(5))});
  if (line[4] == '-') return kMore;
  reply_.code = code;
  return kDone;
}

BirdReply BirdReplyReader::Take() {
  BirdReply r = std::move(reply_);
  reply_ = BirdReply{};
  last_code_ = -1;
  return r;
}

std::optional<std::string> BirdProtocolState(const BirdReply& reply,
                                             absl::string_view name) {
  for (const BirdReplyLine& l : reply.lines) {
    if (l.code != 1002) continue;
    std::vector<absl::string_view> cols =
        absl::StrSplit(l.text, ' ', absl::SkipEmpty());
    // Name Proto Table State Since Info
    if (cols.size() >= 4 && cols[0] == name) return std::string(cols[3]);
  }
  return std::nullopt;
}

absl::Status ValidateBirdSymbol(absl::string_view name) {
  bool ok = !name.empty() && name.size() <= 64 &&
            (absl::ascii_isalpha(static_cast<unsigned char>(name[0])) ||
             name[0] == '_');
  for (const char c : name) {
    ok = ok && (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "BIRD protocol name \"", absl::CHexEscape(name),
      "\": letters, digits and '_', starting with a letter or '_', at most "
      "64 characters (the name of a protocol in bird.conf)"));
}

}  // namespace zg::servo
