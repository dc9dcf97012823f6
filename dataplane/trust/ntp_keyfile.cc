#include "dataplane/trust/ntp_keyfile.h"

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

absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> LoadNtpKeyFile(
    const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("--ntp_keys: cannot open ", path,
                                            ": ", std::strerror(errno)));
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  // fstat on the open file: what we check is what we read.
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(absl::StrCat("--ntp_keys: cannot stat ", path,
                                            ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ntp_keys: ", path, " is not a regular file"));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "--ntp_keys: %s has mode %04o: a keyfile must be readable by its "
        "owner only (chmod 600 %s)",
        path, st.st_mode & 07777, path));
  }
  if (st.st_size > static_cast<off_t>(kMaxNtpKeyFileBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ntp_keys: ", path, " is larger than ",
                     kMaxNtpKeyFileBytes, " bytes"));
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  absl::Cleanup wipe = [&text] { OPENSSL_cleanse(text.data(), text.size()); };
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(absl::StrCat("--ntp_keys: cannot read ", path,
                                              ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  absl::StatusOr<core::NtpKeyTable> table = core::ParseNtpKeys(text);
  if (!table.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ntp_keys: ", path, ": ", table.status().message()));
  }
  return std::make_shared<const core::NtpKeyTable>(std::move(*table));
}

}  // namespace zg::dataplane
