// SPDX-License-Identifier: Apache-2.0
// Reads a secret from a file only its owner may read or write (the NTP
// keyfile, the NTS master key): the one owner-only secret-file reader.
// What it returns is zeroed (OPENSSL_cleanse) when it is destroyed, and so
// is every buffer it read through.
//
//   ZG_ASSIGN_OR_RETURN(SecretBytes text,
//       ReadOwnerOnlyFile(path, {.flag = "--ntp_keys",
//                                .what = "a keyfile",
//                                .max_bytes = 1 << 20}));
//   Parse(text.view());
//
// Control thread, at start-up and on reload: setup code, it returns an
// operator-actionable error (the flag, the path, what is wrong, the fix).
#ifndef ZG_DATAPLANE_TRUST_SECRET_FILE_H_
#define ZG_DATAPLANE_TRUST_SECRET_FILE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace zg::dataplane {

// Secret bytes, zeroed when destroyed or overwritten. Move-only.
class SecretBytes {
 public:
  explicit SecretBytes(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  SecretBytes(SecretBytes&& other) noexcept = default;
  SecretBytes& operator=(SecretBytes&& other) noexcept;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes();

  std::span<const uint8_t> bytes() const { return bytes_; }
  absl::string_view view() const {
    return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size()};
  }

 private:
  void Wipe();
  std::vector<uint8_t> bytes_;
};

struct SecretFileSpec {
  absl::string_view flag;  // the flag that named the file: "--ntp_keys"
  absl::string_view what;  // the secret, for messages: "a keyfile"
  size_t max_bytes = 0;    // a larger file is refused
};

// Opens `path`, checks that it is a regular file with no group or other
// permission bits (mode & 077 == 0: chmod 600 or 400) and at most
// spec.max_bytes long (also while it is read), and returns its bytes.
absl::StatusOr<SecretBytes> ReadOwnerOnlyFile(const std::string& path,
                                              const SecretFileSpec& spec);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_SECRET_FILE_H_
