#include "dataplane/trust/nts_master_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/nts/nts_cookie.h"

namespace zg::dataplane {
namespace {

int HexValue(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(uint8_t c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Hex digits then only whitespace, an even number of digits: decoded into
// `out` (and true); anything else leaves it empty (false: raw bytes).
bool DecodeHexText(std::span<const uint8_t> text, std::vector<uint8_t>* out) {
  size_t digits = 0;
  while (digits < text.size() && HexValue(text[digits]) >= 0) ++digits;
  for (size_t i = digits; i < text.size(); ++i) {
    if (!IsSpace(text[i])) return false;
  }
  if (digits == 0 || digits % 2 != 0) return false;
  out->resize(digits / 2);
  for (size_t i = 0; i < digits / 2; ++i) {
    (*out)[i] = static_cast<uint8_t>(HexValue(text[2 * i]) << 4 |
                                     HexValue(text[2 * i + 1]));
  }
  return true;
}

absl::StatusOr<std::vector<uint8_t>> ReadOwnerOnlyFile(
    const std::string& path, std::vector<uint8_t>* buf) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("--nts_master_key: cannot open ",
                                            path, ": ", std::strerror(errno)));
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st;  // fstat on the open file: what we check is what we read
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(absl::StrCat("--nts_master_key: cannot stat ",
                                            path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_master_key: ", path, " is not a regular file"));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "--nts_master_key: %s has mode %04o: the NTS master key must be "
        "readable by its owner only (chmod 600 %s)",
        path, st.st_mode & 07777, path));
  }
  if (st.st_size > static_cast<off_t>(kMaxNtsMasterKeyFileBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_master_key: ", path, " is larger than ",
                     kMaxNtsMasterKeyFileBytes, " bytes: not a key file"));
  }
  buf->assign(kMaxNtsMasterKeyFileBytes + 1, 0);
  size_t got = 0;
  while (got < buf->size()) {
    const ssize_t n = read(fd, buf->data() + got, buf->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(absl::StrCat(
          "--nts_master_key: cannot read ", path, ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxNtsMasterKeyFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_master_key: ", path, " is larger than ",
                     kMaxNtsMasterKeyFileBytes, " bytes: not a key file"));
  }
  std::vector<uint8_t> data(buf->begin(), buf->begin() + got);
  return data;
}

}  // namespace

NtsMasterKey& NtsMasterKey::operator=(NtsMasterKey&& other) noexcept {
  if (this != &other) {
    Wipe();
    bytes_ = std::move(other.bytes_);
  }
  return *this;
}

NtsMasterKey::~NtsMasterKey() { Wipe(); }

void NtsMasterKey::Wipe() {
  if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
}

absl::StatusOr<NtsMasterKey> LoadNtsMasterKey(const std::string& path) {
  std::vector<uint8_t> buf;
  absl::Cleanup wipe_buf = [&buf] {
    if (!buf.empty()) OPENSSL_cleanse(buf.data(), buf.size());
  };
  absl::StatusOr<std::vector<uint8_t>> text = ReadOwnerOnlyFile(path, &buf);
  if (!text.ok()) return text.status();
  NtsMasterKey raw(std::move(*text));  // wiped whichever way we return
  std::vector<uint8_t> decoded;
  decoded.reserve(kMaxNtsMasterKeyFileBytes / 2);
  const bool hex = DecodeHexText(raw.bytes(), &decoded);
  NtsMasterKey key(
      hex ? std::move(decoded)
          : std::vector<uint8_t>(raw.bytes().begin(), raw.bytes().end()));
  if (key.bytes().size() < core::kNtsMasterKeyMinSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--nts_master_key: %s holds a %d-byte key (read as %s); at least %d "
        "bytes are needed: (umask 077; openssl rand -hex 32 > %s)",
        path, key.bytes().size(), hex ? "hex text" : "raw bytes",
        core::kNtsMasterKeyMinSize, path));
  }
  return key;
}

}  // namespace zg::dataplane
