// SPDX-License-Identifier: Apache-2.0
// The read commands (status_commands.h).
#include "servo/api/status_commands.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "servo/alarms/alarm_json.h"
#include "servo/api/audit_query.h"
#include "servo/api/status_json.h"

namespace zg::servo {
namespace {

using nlohmann::json;

Reply NotYet(const char* what) {
  return Reply::Error(
      ErrorCode::kUnavailable,
      absl::StrCat("no ", what,
                   " published yet (the daemon is starting); try again"));
}

// A command with no arguments reading the control plane's snapshot.
Command ControlCommand(std::string name, std::string summary,
                       const StatusBoard& board,
                       json (*to_json)(const ControlPlaneStatus&)) {
  return {.name = std::move(name),
          .summary = std::move(summary),
          .run = [&board, to_json](const CommandCall& c) -> CommandOutcome {
            if (auto e = CheckArgs(c.args, {})) return *e;
            std::shared_ptr<const ControlPlaneStatus> s =
                board.control != nullptr ? board.control->Status() : nullptr;
            if (s == nullptr) return NotYet("control-plane status");
            return Reply::Ok(to_json(*s));
          }};
}

// The same for the data plane's sample.
Command DataplaneCommand(std::string name, std::string summary,
                         const StatusBoard& board,
                         json (*to_json)(const DataplaneStatus&)) {
  return {.name = std::move(name),
          .summary = std::move(summary),
          .run = [&board, to_json](const CommandCall& c) -> CommandOutcome {
            if (auto e = CheckArgs(c.args, {})) return *e;
            if (board.dataplane == nullptr) {
              return Reply::Error(ErrorCode::kUnavailable,
                                  "this server has no data plane");
            }
            std::shared_ptr<const DataplaneStatus> d = board.dataplane->Read();
            if (d == nullptr) return NotYet("data-plane sample");
            return Reply::Ok(to_json(*d));
          }};
}

json PtpOf(const DataplaneStatus& d) { return PtpJson(d.ptp); }

Reply Audit(const CommandCall& c, const StatusCommandOptions& options) {
  if (auto e = CheckArgs(c.args, {"since_utc_ns", "kind", "limit", "cursor"})) {
    return *e;
  }
  if (options.audit_log.empty()) {
    return Reply::Error(ErrorCode::kUnavailable,
                        "no audit log: zeitgeberd runs without --audit_log");
  }
  AuditQuery q;
  if (auto it = c.args.find("since_utc_ns"); it != c.args.end()) {
    q.since = core::UtcNs{it->get<int64_t>()};
  }
  if (auto it = c.args.find("kind"); it != c.args.end()) {
    const json kinds = it->is_array() ? *it : json::array({*it});
    for (const json& k : kinds) {
      const std::string kind = k.get<std::string>();
      if (absl::Status s = ValidateAuditKind(kind); !s.ok()) {
        return Reply::Error(ErrorCode::kBadArgument, std::string(s.message()));
      }
      q.kinds.push_back(kind);
    }
  }
  if (auto it = c.args.find("limit"); it != c.args.end()) {
    const int64_t limit = it->get<int64_t>();
    if (limit < 1 || static_cast<size_t>(limit) > options.max_audit_records) {
      return Reply::Error(
          ErrorCode::kBadArgument,
          absl::StrCat("limit must be 1..", options.max_audit_records));
    }
    q.limit = static_cast<size_t>(limit);
  }
  if (auto it = c.args.find("cursor"); it != c.args.end()) {
    q.cursor = it->get<std::string>();
  }
  absl::StatusOr<AuditQueryResult> r = QueryAuditLog(options.audit_log, q);
  if (!r.ok()) {
    return Reply::Error(r.status().code() == absl::StatusCode::kInvalidArgument
                            ? ErrorCode::kBadArgument
                            : ErrorCode::kUnavailable,
                        std::string(r.status().message()));
  }
  return Reply::Ok({{"path", options.audit_log},
                    {"records", r->records},
                    {"cursor", r->cursor},
                    {"truncated", r->truncated},
                    {"gap", r->gap}});
}

}  // namespace

absl::Status AddStatusCommands(CommandTable& table, const StatusBoard& board,
                               StatusCommandOptions options) {
  ZG_RETURN_IF_ERROR(table.Add(ControlCommand(
      "tracking", "the served clock: state, reference, offset, error bound",
      board, &TrackingJson)));
  ZG_RETURN_IF_ERROR(table.Add(ControlCommand(
      "sources", "every reference source: selection, offset, jitter, reach",
      board, &SourcesJson)));
  ZG_RETURN_IF_ERROR(table.Add(ControlCommand(
      "sourcestats", "sample statistics per source; GNSS fix and satellites",
      board, &SourceStatsJson)));
  ZG_RETURN_IF_ERROR(table.Add(ControlCommand(
      "leap", "the leap-second table, its expiry and a pending leap", board,
      &LeapJson)));
  ZG_RETURN_IF_ERROR(table.Add(DataplaneCommand(
      "workers", "each worker: packets, rates, drops, last progress", board,
      &WorkersJson)));
  ZG_RETURN_IF_ERROR(table.Add(DataplaneCommand(
      "ports", "each port: link, counters, rates, stamping plan", board,
      &PortsJson)));
  ZG_RETURN_IF_ERROR(table.Add(DataplaneCommand(
      "serverstats", "requests, replies and drops by kind and reason", board,
      &ServerStatsJson)));
  ZG_RETURN_IF_ERROR(table.Add(DataplaneCommand(
      "ptp", "the PTP ports: state, BMCA data, messages, unicast grants", board,
      &PtpOf)));
  ZG_RETURN_IF_ERROR(table.Add(
      {.name = "status",
       .summary = "the daemon: version, uptime, drain state, control tick",
       .run = [&board](const CommandCall& c) -> CommandOutcome {
         if (auto e = CheckArgs(c.args, {})) return *e;
         std::shared_ptr<const ServiceStatus> s = board.service.Load();
         if (s == nullptr) return NotYet("service status");
         return Reply::Ok(ServiceJson(*s));
       }}));
  ZG_RETURN_IF_ERROR(table.Add(
      {.name = "alarms",
       .summary = "the alarms raised and the latest alarm events (args: "
                  "all: the cleared alarms too)",
       .run = [&board](const CommandCall& c) -> CommandOutcome {
         if (auto e = CheckArgs(c.args, {"all"})) return *e;
         const auto all = c.args.find("all");
         if (all != c.args.end() && !all->is_boolean()) {
           return Reply::Error(ErrorCode::kBadArgument,
                               "'all' must be true or false");
         }
         std::shared_ptr<const AlarmTable> t =
             board.control != nullptr ? board.control->Alarms() : nullptr;
         if (t == nullptr) return NotYet("alarm table");
         return Reply::Ok(AlarmTableJson(
             *t, /*active_only=*/all == c.args.end() || !all->get<bool>()));
       }}));
  ZG_RETURN_IF_ERROR(
      table.Add({.name = "audit",
                 .summary = "audit log records, by time and kind",
                 .run = [options](const CommandCall& c) -> CommandOutcome {
                   return Audit(c, options);
                 }}));
  ZG_RETURN_IF_ERROR(
      table.Add({.name = "help",
                 .summary = "the commands this server knows",
                 .run = [&table](const CommandCall&) -> CommandOutcome {
                   return Reply::Ok(table.Help());
                 }}));
  return absl::OkStatus();
}

}  // namespace zg::servo
