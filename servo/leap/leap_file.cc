// SPDX-License-Identifier: Apache-2.0
#include "servo/leap/leap_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "core/time/time_format.h"

namespace zg::servo {
namespace {

constexpr char kRefresh[] =
    "install a current leap-seconds.list (Debian package tzdata, or "
    "https://hpiers.obspm.fr/iers/bul/bulc/ntp/leap-seconds.list)";

std::string ErrnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

std::string Date(core::UtcNs t) { return core::FormatUtc(t).substr(0, 10); }

// The whole file, if it is a regular file of at most `max_bytes`. Opened
// non-blocking so that a FIFO or device at `path` cannot hang the caller.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path,
                                          size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    return absl::Status(err == ENOENT ? absl::StatusCode::kNotFound
                                      : absl::StatusCode::kPermissionDenied,
                        absl::StrFormat("cannot open: %s", ErrnoText(err)));
  }
  const absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st = {};
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(
        absl::StrFormat("cannot stat: %s", ErrnoText(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError("not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%d bytes, more than the %d a leap-seconds.list can be",
                        st.st_size, max_bytes));
  }
  std::string text;
  char buf[8192];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::DataLossError(
          absl::StrFormat("read failed: %s", ErrnoText(errno)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) {  // grew while we read it
      return absl::FailedPreconditionError(absl::StrFormat(
          "more than the %d bytes a leap-seconds.list can be", max_bytes));
    }
  }
  return text;
}

std::string ExpiredWarning(const std::string& what, const core::LeapTable& t) {
  return absl::StrFormat(
      "%s expired on %s: a leap second announced since then may be missing; "
      "%s",
      what, Date(t.expiry()), kRefresh);
}

// Built-in leap seconds the file contradicts (a wrong file, or a file for
// another purpose); empty if it agrees with every one it could know about.
std::string Disagreement(const core::LeapTable& file,
                         const core::LeapTable& built_in) {
  for (const core::LeapEntry& e : built_in.entries()) {
    if (e.utc >= file.last_update()) break;  // the file could not know it
    const int32_t says = file.TaiMinusUtc(e.utc);
    if (says != e.tai_minus_utc_s) {
      return absl::StrFormat(
          "it says TAI-UTC is %d s on %s, the built-in table says %d s", says,
          Date(e.utc), e.tai_minus_utc_s);
    }
  }
  return "";
}

}  // namespace

LeapTableLoad LoadLeapTable(const std::string& path, core::UtcNs now) {
  LeapTableLoad out;  // starts with the built-in table
  const std::string built_in_desc = out.table.Describe();
  absl::StatusOr<core::LeapTable> file = [&]() {
    absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxLeapFileBytes);
    if (!text.ok()) return absl::StatusOr<core::LeapTable>(text.status());
    return core::LeapTable::Parse(*text);
  }();
  if (!file.ok()) {
    out.warnings.push_back(absl::StrFormat(
        "leap-second file %s: %s; using the built-in table (%s)", path,
        file.status().message(), built_in_desc));
  } else if (!file->IsExpired(now)) {
    out.table = *std::move(file);
  } else if (file->expiry() > out.table.expiry()) {
    out.table = *std::move(file);
    out.warnings.push_back(ExpiredWarning(
        absl::StrFormat("leap-second file %s (still used: newer than the "
                        "built-in table)",
                        path),
        out.table));
  } else {
    out.warnings.push_back(absl::StrFormat(
        "leap-second file %s expired on %s; using the built-in table (%s)",
        path, Date(file->expiry()), built_in_desc));
  }
  if (out.table.is_built_in()) {
    if (out.table.IsExpired(now)) {
      out.warnings.push_back(
          ExpiredWarning("the built-in leap-second table", out.table));
    }
    return out;
  }
  const std::string differs =
      Disagreement(out.table, core::LeapTable::BuiltIn());
  if (!differs.empty()) {
    out.warnings.push_back(absl::StrFormat(
        "leap-second file %s disagrees with the built-in table (%s); it is "
        "used as given: check that it is the IERS leap-seconds.list",
        path, differs));
  }
  return out;
}

}  // namespace zg::servo
