// SPDX-License-Identifier: Apache-2.0
// The owner-only secret-file reader (dataplane/trust/secret_file.h).
#include "dataplane/trust/secret_file.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace zg::dataplane {

SecretBytes& SecretBytes::operator=(SecretBytes&& other) noexcept {
  if (this != &other) {
    Wipe();
    bytes_ = std::move(other.bytes_);
  }
  return *this;
}

SecretBytes::~SecretBytes() { Wipe(); }

void SecretBytes::Wipe() {
  if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
}

absl::StatusOr<SecretBytes> ReadOwnerOnlyFile(const std::string& path,
                                              const SecretFileSpec& spec) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(spec.flag, ": cannot open ", path,
                                            ": ", std::strerror(errno)));
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st;  // fstat on the open file: what we check is what we read
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(absl::StrCat(spec.flag, ": cannot stat ", path,
                                            ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.flag, ": ", path, " is not a regular file"));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s: %s has mode %04o: %s must be readable by its owner only (chmod "
        "600 %s)",
        spec.flag, path, st.st_mode & 07777, spec.what, path));
  }
  const auto too_large = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.flag, ": ", path, " is larger than ", spec.max_bytes,
                     " bytes: not ", spec.what));
  };
  if (st.st_size > static_cast<off_t>(spec.max_bytes)) return too_large();
  // One byte more than allowed: a file that grew since fstat is refused.
  std::vector<uint8_t> buf(spec.max_bytes + 1, 0);
  absl::Cleanup wipe = [&buf] { OPENSSL_cleanse(buf.data(), buf.size()); };
  size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = read(fd, buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(absl::StrCat(spec.flag, ": cannot read ", path,
                                              ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > spec.max_bytes) return too_large();
  return SecretBytes(std::vector<uint8_t>(buf.begin(), buf.begin() + got));
}

}  // namespace zg::dataplane
