// SPDX-License-Identifier: Apache-2.0
// Fuzzes the status page's --status_users parser (dataplane/web/
// web_users.h: htpasswd lines, bcrypt and argon2 hashes) with arbitrary
// text: no crash, no sanitizer report. An accepted file has a user; an
// accepted hash is bcrypt or argon2 with its cost within the limits (the
// bcrypt cost digits read here on their own). No Verify(): one bcrypt check
// costs milliseconds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "dataplane/web/web_users.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::dataplane;
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<WebUsers> users = WebUsers::Parse(text, "fuzz");
  if (users.ok() && users->size() == 0) __builtin_trap();
  if (!CheckPasswordHash(text).ok()) return 0;
  if (absl::StartsWith(text, "$argon2")) return 0;
  if (text.size() != 60 || text[0] != '$' || text[1] != '2') __builtin_trap();
  const int cost = (text[4] - '0') * 10 + (text[5] - '0');
  if (cost < 4 || cost > kMaxBcryptCost) __builtin_trap();
  return 0;
}
