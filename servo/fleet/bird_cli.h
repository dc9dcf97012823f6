// SPDX-License-Identifier: Apache-2.0
// BIRD 2's control-socket protocol (the one birdc speaks; BIRD's user guide,
// "Remote control"), as much of it as zeitgeberd uses to drive its anycast
// route: one command per line; BIRD answers with lines
//   "CCCC-text"   a line of reply code CCCC, more follows
//   " text"       continues the previous line's code
//   "CCCC text"   the last line of the reply
// Codes: 0xxx success (0001 the welcome line on connect, 0000 end of
// output), 1xxx table rows, 2xxx table headings, 8xxx run-time errors,
// 9xxx parse errors. Seen from BIRD 2.0.12:
//   > disable zg_anycast      < 0009-zg_anycast: disabled  < 0000
//   > enable zg_anycast       < 0011-zg_anycast: enabled   < 0000
//   > show protocols zg_anycast
//   < 2002-Name       Proto      Table      State  Since         Info
//   < 1002-zg_anycast Static     master4    up     22:22:38.866
//   < 0000
//   > disable nosuch          < 9001 syntax error, unexpected
//   CF_SYM_UNDEFINED...
//
// BirdReplyReader takes the lines as they arrive (without "\n") and says
// when a reply is complete; replies past kMaxBirdReplyLines lines or lines
// past kMaxBirdLineBytes are malformed (a misbehaving peer cannot make us
// grow without bound).
//
//   BirdReplyReader r;
//   while (r.Feed(ReadLine()) == BirdReplyReader::kMore) {}
//   BirdReply reply = r.Take();
//   if (!reply.ok()) Log(reply.Text());
#ifndef ZG_SERVO_FLEET_BIRD_CLI_H_
#define ZG_SERVO_FLEET_BIRD_CLI_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace zg::servo {

inline constexpr size_t kMaxBirdReplyLines = 256;
inline constexpr size_t kMaxBirdLineBytes = 4096;

struct BirdReplyLine {
  int code = 0;
  std::string text;
};

struct BirdReply {
  int code = 0;  // the last line's code
  std::vector<BirdReplyLine> lines;
  // 0xxx..7xxx: the command succeeded.
  bool ok() const { return code < 8000; }
  // Every line's text, "; "-joined (for messages).
  std::string Text() const;
};

class BirdReplyReader {
 public:
  enum Result { kMore, kDone, kMalformed };
  // One line, without its "\n". After kDone, Take() the reply before the
  // next Feed; after kMalformed the connection should be dropped.
  Result Feed(absl::string_view line);
  BirdReply Take();

 private:
  BirdReply reply_;
  int last_code_ = -1;
};

// The State column of `show protocols NAME`'s reply for NAME ("up", "down",
// "start", ...), or nullopt if the reply has no row for it.
std::optional<std::string> BirdProtocolState(const BirdReply& reply,
                                             absl::string_view name);

// A BIRD symbol (protocol name): a letter or '_', then letters, digits and
// '_', at most 64 characters; so it can go into a command line as it is.
absl::Status ValidateBirdSymbol(absl::string_view name);

}  // namespace zg::servo

#endif  // ZG_SERVO_FLEET_BIRD_CLI_H_
