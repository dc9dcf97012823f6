// SPDX-License-Identifier: Apache-2.0
// Reading the audit log back (servo/audit/audit_log.h writes it): the
// records of the current file and the newest rotated one (path.1), filtered
// by time and event kind, for `zgctl audit [--since TIME] [--kind KIND]
// [--follow]`. Runs on an operator thread; the control thread keeps writing
// (whole lines, O_APPEND), and an unterminated last line is left for later.
//
// A cursor ("<inode>:<offset>", opaque to clients) marks where a reply
// stopped; the next query from it reads only what was appended since, and
// follows the file through a rotation (path -> path.1). That is how
// --follow polls without re-reading the file.
//
//   AuditQuery q;  q.kinds = {"source_down"};  q.limit = 50;
//   ZG_ASSIGN_OR_RETURN(AuditQueryResult r, QueryAuditLog(path, q));
//   // r.records: the last 50 source_down records; r.cursor: the end
//   q.cursor = r.cursor;  // later: only what was appended since
#ifndef ZG_SERVO_API_AUDIT_QUERY_H_
#define ZG_SERVO_API_AUDIT_QUERY_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time/time_types.h"

namespace zg::servo {

struct AuditQuery {
  std::optional<core::UtcNs> since;  // records at or after (their "utc")
  std::vector<std::string> kinds;    // "event" names; empty: every kind
  // Without a cursor: the last `limit` matching records. With one: the
  // first `limit` after it.
  size_t limit = 100;
  std::string cursor;  // from a previous result; "" for none
};

struct AuditQueryResult {
  std::vector<nlohmann::json> records;  // oldest first, as written
  std::string cursor;                   // after the last line read
  // More matched than `limit` (without a cursor: older ones left out; with
  // one: the next query continues).
  bool truncated = false;
  // The cursor's file was rotated away past path.1: records may be missing.
  bool gap = false;
};

// Checks a kind name against the audit events (AuditEventName). The error
// lists the valid ones.
absl::Status ValidateAuditKind(const std::string& kind);

absl::StatusOr<AuditQueryResult> QueryAuditLog(const std::string& path,
                                               const AuditQuery& query);

}  // namespace zg::servo

#endif  // ZG_SERVO_API_AUDIT_QUERY_H_
