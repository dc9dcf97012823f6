// SPDX-License-Identifier: Apache-2.0
// Audit log queries (audit_query.h).
#include "servo/api/audit_query.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/time/time_format.h"
#include "servo/audit/audit_log.h"

namespace zg::servo {
namespace {

using nlohmann::json;

struct Cursor {
  uint64_t inode = 0;
  uint64_t offset = 0;
};

std::optional<Cursor> ParseCursor(const std::string& text) {
  const std::vector<std::string> parts = absl::StrSplit(text, ':');
  Cursor c;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &c.inode) ||
      !absl::SimpleAtoi(parts[1], &c.offset)) {
    return std::nullopt;
  }
  return c;
}

// Hands each complete line of `path` from `offset` on to `line` until it
// returns false; returns the inode and the offset after the last line it
// took (absent file: nullopt).
template <typename Fn>
absl::StatusOr<std::optional<Cursor>> ReadLines(const std::string& path,
                                                uint64_t offset, Fn line) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<Cursor>();
    return absl::UnavailableError(
        absl::StrCat("audit log ", path, ": ", std::strerror(errno)));
  }
  struct stat st {};
  fstat(fd, &st);
  // A file shorter than the cursor was truncated: start again.
  if (offset > static_cast<uint64_t>(st.st_size)) offset = 0;
  Cursor end{static_cast<uint64_t>(st.st_ino), offset};
  std::string buf;
  std::string chunk(64 * 1024, '\0');
  uint64_t pos = offset;
  bool more = true;
  while (more) {
    const ssize_t n =
        pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(pos));
    if (n <= 0) break;
    pos += static_cast<uint64_t>(n);
    buf.append(chunk.data(), static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; more && (nl = buf.find('\n', start)) != std::string::npos;
         start = nl + 1) {
      if (!line(std::string_view(buf).substr(start, nl - start))) {
        more = false;
        break;
      }
      end.offset += nl + 1 - start;
    }
    buf.erase(0, start);
  }
  close(fd);
  return std::optional<Cursor>(end);
}

bool Matches(const json& r, const AuditQuery& q, const std::string& since) {
  if (!q.kinds.empty()) {
    const auto e = r.find("event");
    if (e == r.end() || !e->is_string() ||
        std::find(q.kinds.begin(), q.kinds.end(), e->get<std::string>()) ==
            q.kinds.end()) {
      return false;
    }
  }
  if (!since.empty()) {
    // Fixed-width RFC 3339 (FormatUtc): string order is time order.
    const auto u = r.find("utc");
    if (u == r.end() || !u->is_string() || u->get<std::string>() < since) {
      return false;
    }
  }
  return true;
}

uint64_t InodeOf(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

}  // namespace

absl::Status ValidateAuditKind(const std::string& kind) {
  std::vector<std::string> names;
  for (int i = 0; i < kAuditEventCount; ++i) {
    const char* name = AuditEventName(static_cast<AuditEvent>(i));
    if (kind == name) return absl::OkStatus();
    names.push_back(name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown audit kind \"", kind,
                   "\"; kinds: ", absl::StrJoin(names, ", ")));
}

absl::StatusOr<AuditQueryResult> QueryAuditLog(const std::string& path,
                                               const AuditQuery& query) {
  AuditQueryResult out;
  const std::string since =
      query.since ? core::FormatUtc(*query.since) : std::string();
  const bool forward = !query.cursor.empty();
  std::deque<json> kept;
  auto take = [&](std::string_view line) {
    if (forward && kept.size() >= query.limit) {
      out.truncated = true;
      return false;
    }
    json r = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (r.is_discarded() || !r.is_object() || !Matches(r, query, since)) {
      return true;
    }
    kept.push_back(std::move(r));
    if (!forward && kept.size() > query.limit) {
      kept.pop_front();
      out.truncated = true;
    }
    return true;
  };
  // Which files, from where: the cursor's file (path, or path.1 after a
  // rotation) from its offset, then path from the start.
  const std::string rotated = absl::StrCat(path, ".1");
  std::vector<std::pair<std::string, uint64_t>> plan;
  if (forward) {
    const std::optional<Cursor> c = ParseCursor(query.cursor);
    if (!c) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad audit cursor \"", query.cursor, "\""));
    }
    if (InodeOf(path) == c->inode) {
      plan.push_back({path, c->offset});
    } else {
      if (InodeOf(rotated) == c->inode) {
        plan.push_back({rotated, c->offset});
      } else {
        out.gap = true;
      }
      plan.push_back({path, 0});
    }
  } else {
    plan.push_back({rotated, 0});
    plan.push_back({path, 0});
  }
  bool stopped = false;
  std::optional<Cursor> end;
  for (const auto& [file, offset] : plan) {
    if (stopped) break;
    absl::StatusOr<std::optional<Cursor>> r =
        ReadLines(file, offset, [&](std::string_view line) {
          stopped = !take(line);
          return !stopped;
        });
    if (!r.ok()) return r.status();
    if (r->has_value()) end = **r;
  }
  out.records.assign(kept.begin(), kept.end());
  if (end) out.cursor = absl::StrCat(end->inode, ":", end->offset);
  return out;
}

}  // namespace zg::servo
