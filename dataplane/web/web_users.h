// SPDX-License-Identifier: Apache-2.0
// WebUsers: the status page's --status_users file, in htpasswd format (one
// `user:hash` a line; `#` comments and blank lines allowed). Only the
// password hashes Debian's libraries verify without a home-grown KDF:
//   bcrypt  $2a$ $2b$ $2y$     (htpasswd -B; libxcrypt's crypt_rn)
//   argon2  $argon2id$ $argon2i$ $argon2d$   (argon2 CLI; libargon2)
// Any other scheme (MD5-crypt $apr1$, {SHA}, plain text, crypt(3) DES) is
// refused at load with the line that carries it.
//
//   ZG_ASSIGN_OR_RETURN(WebUsers users, WebUsers::Load("/etc/zg/users"));
//   if (users.Verify("ops", password)) ...
//
// Verify() is thread-safe (the page's request threads) and runs one hash at a
// time: a bcrypt check costs tens of milliseconds and an argon2 one its
// memory parameter, so concurrent logins queue instead of multiplying CPU and
// memory. An unknown user costs one hash as well, so timing does not tell
// which users exist.
#ifndef ZG_DATAPLANE_WEB_WEB_USERS_H_
#define ZG_DATAPLANE_WEB_WEB_USERS_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace zg::dataplane {

// What one login may cost at most. Logins are checked one at a time (see
// WebUsers), so a hash that takes minutes would lock every operator out:
// such hashes are refused at load, with the parameter and its limit.
// argon2: memory (KiB; RFC 9106's second recommended setting), passes,
// lanes (libargon2 runs a thread per lane). bcrypt: the cost, log2 of the
// rounds (14: about a second; htpasswd -B makes 5).
inline constexpr uint32_t kMaxArgon2MemoryKib = 64 * 1024;
inline constexpr uint32_t kMaxArgon2Passes = 10;
inline constexpr uint32_t kMaxArgon2Lanes = 16;
inline constexpr int kMaxBcryptCost = 14;

// Whether `hash` is a bcrypt or argon2 hash this build can verify, with its
// parameters within the limits above; the error names the scheme found or
// the parameter over its limit.
absl::Status CheckPasswordHash(absl::string_view hash);
// Verifies `password` against a hash that passed CheckPasswordHash.
bool VerifyPasswordHash(const std::string& hash, absl::string_view password);

class WebUsers {
 public:
  // `origin` names the file in messages ("--status_users=/etc/zg/users").
  static absl::StatusOr<WebUsers> Parse(absl::string_view text,
                                        absl::string_view origin);
  // Reads an owner-only file (chmod 600), at most 1 MiB.
  static absl::StatusOr<WebUsers> Load(const std::string& path);

  bool Verify(absl::string_view user, absl::string_view password) const;
  size_t size() const { return hashes_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> hashes_;
  // Serialises the hash checks (see above). Shared by copies.
  std::shared_ptr<std::mutex> hashing_ = std::make_shared<std::mutex>();
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WEB_WEB_USERS_H_
