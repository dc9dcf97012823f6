// SPDX-License-Identifier: Apache-2.0
// The --status_users file: parsing and bcrypt/argon2 verification.
#include "dataplane/web/web_users.h"

#include <argon2.h>
#include <crypt.h>
#include <openssl/crypto.h>

#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/base/status_macros.h"
#include "dataplane/trust/secret_file.h"

namespace zg::dataplane {
namespace {

enum class Scheme { kNone, kBcrypt, kArgon2i, kArgon2d, kArgon2id };

Scheme SchemeOf(absl::string_view hash) {
  if (absl::StartsWith(hash, "$2a$") || absl::StartsWith(hash, "$2b$") ||
      absl::StartsWith(hash, "$2y$")) {
    return Scheme::kBcrypt;
  }
  if (absl::StartsWith(hash, "$argon2id$")) return Scheme::kArgon2id;
  if (absl::StartsWith(hash, "$argon2i$")) return Scheme::kArgon2i;
  if (absl::StartsWith(hash, "$argon2d$")) return Scheme::kArgon2d;
  return Scheme::kNone;
}

absl::string_view SchemeGuess(absl::string_view hash) {
  if (absl::StartsWith(hash, "$apr1$")) return "MD5-crypt ($apr1$)";
  if (absl::StartsWith(hash, "{SHA}")) return "SHA-1 ({SHA})";
  if (absl::StartsWith(hash, "$1$")) return "MD5-crypt ($1$)";
  if (absl::StartsWith(hash, "$5$")) return "SHA-256-crypt ($5$)";
  if (absl::StartsWith(hash, "$6$")) return "SHA-512-crypt ($6$)";
  if (absl::StartsWith(hash, "$y$")) return "yescrypt ($y$)";
  return "plain text or crypt(3) DES";
}

// The parameters of "$argon2id$v=19$m=65536,t=3,p=4$salt$hash" (the
// version field is optional, as in libargon2's encoding).
struct Argon2Params {
  uint32_t m = 0, t = 0, p = 0;
};
absl::StatusOr<Argon2Params> Argon2ParamsOf(absl::string_view hash) {
  const std::vector<absl::string_view> fields = absl::StrSplit(hash, '$');
  size_t at = 2;  // "", "argon2id", then [v=19], m=...,t=...,p=...
  if (at < fields.size() && absl::StartsWith(fields[at], "v=")) ++at;
  if (at >= fields.size()) {
    return absl::InvalidArgumentError("an argon2 hash without m=,t=,p=");
  }
  Argon2Params out;
  bool m = false, t = false, p = false;
  for (absl::string_view kv : absl::StrSplit(fields[at], ',')) {
    uint32_t v = 0;
    const absl::string_view name = kv.substr(0, 2);
    if (kv.size() < 3 || !absl::SimpleAtoi(kv.substr(2), &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("an argon2 parameter that is not NAME=NUMBER: ", kv));
    }
    if (name == "m=") {
      out.m = v, m = true;
    } else if (name == "t=") {
      out.t = v, t = true;
    } else if (name == "p=") {
      out.p = v, p = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("an argon2 parameter other than m, t, p: ", kv));
    }
  }
  if (!m || !t || !p) {
    return absl::InvalidArgumentError("an argon2 hash without m=,t=,p=");
  }
  return out;
}

absl::Status CheckArgon2(absl::string_view hash) {
  ZG_ASSIGN_OR_RETURN(const Argon2Params a, Argon2ParamsOf(hash));
  if (a.m > kMaxArgon2MemoryKib) {
    return absl::InvalidArgumentError(
        absl::StrCat("argon2 memory m=", a.m, " KiB is over the ",
                     kMaxArgon2MemoryKib, " KiB this server allows"));
  }
  if (a.t == 0 || a.t > kMaxArgon2Passes) {
    return absl::InvalidArgumentError(
        absl::StrCat("argon2 passes t=", a.t, " are outside the 1..",
                     kMaxArgon2Passes, " this server allows"));
  }
  if (a.p == 0 || a.p > kMaxArgon2Lanes) {
    return absl::InvalidArgumentError(
        absl::StrCat("argon2 lanes p=", a.p, " are outside the 1..",
                     kMaxArgon2Lanes, " this server allows"));
  }
  return absl::OkStatus();
}

// "$2y$NN$" + 53 characters of salt and hash, NN the cost.
absl::Status CheckBcrypt(absl::string_view hash) {
  if (hash.size() != 60 || hash[6] != '$') {
    return absl::InvalidArgumentError("a bcrypt hash is 60 characters");
  }
  int cost = 0;
  if (!absl::ascii_isdigit(hash[4]) || !absl::ascii_isdigit(hash[5]) ||
      !absl::SimpleAtoi(hash.substr(4, 2), &cost) || cost < 4) {
    return absl::InvalidArgumentError("a bcrypt hash without its cost");
  }
  if (cost > kMaxBcryptCost) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bcrypt cost ", cost, " is over the ", kMaxBcryptCost,
        " this server allows (htpasswd -B -C ", kMaxBcryptCost, ")"));
  }
  return absl::OkStatus();
}

// A bcrypt hash (cost 10, htpasswd's default) of a random password,
// checked for unknown users.
constexpr char kDecoyHash[] =
    "$2y$10$opTiD9VgQuil9Cb7N3CNq.VPwEFbOl/oYmtgk/py9PH08aIZ9a49i";

}  // namespace

absl::Status CheckPasswordHash(absl::string_view hash) {
  switch (SchemeOf(hash)) {
    case Scheme::kBcrypt:
      return CheckBcrypt(hash);
    case Scheme::kArgon2i:
    case Scheme::kArgon2d:
    case Scheme::kArgon2id:
      return CheckArgon2(hash);
    case Scheme::kNone:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(SchemeGuess(hash),
                   " is not accepted: use bcrypt (htpasswd -B) or argon2 "
                   "(argon2 SALT -id -e)"));
}

bool VerifyPasswordHash(const std::string& hash, absl::string_view password) {
  const std::string pw(password);
  switch (SchemeOf(hash)) {
    case Scheme::kBcrypt: {
      crypt_data data;
      std::memset(&data, 0, sizeof(data));
      const char* out = crypt_rn(pw.c_str(), hash.c_str(), &data, sizeof(data));
      const bool ok = out != nullptr && std::strlen(out) == hash.size() &&
                      CRYPTO_memcmp(out, hash.data(), hash.size()) == 0;
      OPENSSL_cleanse(&data, sizeof(data));
      return ok;
    }
    case Scheme::kArgon2i:
      return argon2_verify(hash.c_str(), pw.data(), pw.size(), Argon2_i) ==
             ARGON2_OK;
    case Scheme::kArgon2d:
      return argon2_verify(hash.c_str(), pw.data(), pw.size(), Argon2_d) ==
             ARGON2_OK;
    case Scheme::kArgon2id:
      return argon2_verify(hash.c_str(), pw.data(), pw.size(), Argon2_id) ==
             ARGON2_OK;
    case Scheme::kNone:
      break;
  }
  return false;
}

absl::StatusOr<WebUsers> WebUsers::Parse(absl::string_view text,
                                         absl::string_view origin) {
  WebUsers users;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    const auto where = [&] { return absl::StrCat(origin, " line ", line_no); };
    if (colon == absl::string_view::npos || colon == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), ": expected USER:HASH (htpasswd format)"));
    }
    const absl::string_view user = line.substr(0, colon);
    const absl::string_view hash = line.substr(colon + 1);
    if (absl::Status s = CheckPasswordHash(hash); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), " (user ", user, "): ", s.message()));
    }
    if (!users.hashes_.emplace(std::string(user), std::string(hash)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), ": user ", user, " appears twice"));
    }
  }
  if (users.hashes_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ": no users (add one with htpasswd -B)"));
  }
  return users;
}

absl::StatusOr<WebUsers> WebUsers::Load(const std::string& path) {
  ZG_ASSIGN_OR_RETURN(SecretBytes text,
                      ReadOwnerOnlyFile(path, {.flag = "--status_users",
                                               .what = "a password file",
                                               .max_bytes = 1 << 20}));
  return Parse(text.view(), absl::StrCat("--status_users=", path));
}

bool WebUsers::Verify(absl::string_view user,
                      absl::string_view password) const {
  const auto it = hashes_.find(user);
  const std::string& hash =
      it == hashes_.end() ? std::string(kDecoyHash) : it->second;
  std::lock_guard<std::mutex> lock(*hashing_);
  const bool ok = VerifyPasswordHash(hash, password);
  return ok && it != hashes_.end();
}

}  // namespace zg::dataplane
