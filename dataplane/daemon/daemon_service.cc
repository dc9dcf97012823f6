// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's operator side (daemon_service.h).
#include "dataplane/daemon/daemon_service.h"

#include <time.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/ptp/ptp_subscriber_export.h"
#include "dataplane/daemon/log.h"
#include "servo/api/source_command.h"
#include "servo/api/status_commands.h"
#include "servo/api/status_json.h"

namespace zg::dataplane {
namespace {

using nlohmann::json;

int64_t MonoNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

core::UtcNs WallUtc() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return {int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec};
}

std::string Who(const servo::Caller& c) {
  return absl::StrCat("uid ", c.uid, ", pid ", c.pid);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonService>> DaemonService::Start(
    Options options, Hooks hooks, const servo::DataplaneView* dataplane) {
  std::unique_ptr<DaemonService> s(
      new DaemonService(std::move(options), std::move(hooks)));
  s->board_.dataplane = dataplane;
  if (s->hooks_.control != nullptr) {
    s->board_.control = &s->hooks_.control->snapshots();
  }
  ZG_RETURN_IF_ERROR(servo::AddStatusCommands(
      s->table_, s->board_, {.audit_log = s->options_.audit_log}));
  ZG_RETURN_IF_ERROR(s->AddChangeCommands());
  if (s->hooks_.control != nullptr) {
    ZG_RETURN_IF_ERROR(
        servo::AddSourceCommand(s->table_, s->hooks_.control,
                                [](const std::string& m) { LogInfo(m); }));
  }
  ZG_RETURN_IF_ERROR(s->AddClientsCommand());
  if (!s->options_.socket.path.empty()) {
    ZG_ASSIGN_OR_RETURN(
        s->server_, servo::ControlServer::Start(
                        {.path = s->options_.socket.path,
                         .group = s->options_.socket.group,
                         .log = [](const std::string& m) { LogWarning(m); }},
                        &s->table_));
    LogInfo(absl::StrCat(
        "control socket ", s->options_.socket.path,
        " (zgctl --socket=", s->options_.socket.path, "); group ",
        s->options_.socket.group.empty() ? std::string("zeitgeberd's")
                                         : s->options_.socket.group,
        " may read, root and uid ", geteuid(), " may change"));
  }
  return s;
}

DaemonService::DaemonService(Options options, Hooks hooks)
    : options_(std::move(options)),
      hooks_(std::move(hooks)),
      table_(geteuid()),
      start_mono_ns_(MonoNs()) {
  service_.version = options_.version;
  service_.pid = getpid();
  service_.uid = geteuid();
  service_.started_utc = WallUtc();
  service_.drain_changed_utc = service_.started_utc;
  service_.control_socket = options_.socket.path;
}

DaemonService::~DaemonService() = default;

absl::Status DaemonService::AddChangeCommands() {
  auto post = [this](std::function<servo::Reply()> work,
                     const servo::CommandCall& call) -> servo::CommandOutcome {
    return requests_.Post(std::move(work), call.wake);
  };
  ZG_RETURN_IF_ERROR(table_.Add(
      {.name = "reload",
       .summary = "what SIGHUP does: reopen the audit log, reload the leap "
                  "file and the flagfile's reloadable flags",
       .access = servo::CommandAccess::kChange,
       .run = [this,
               post](const servo::CommandCall& c) -> servo::CommandOutcome {
         if (auto e = servo::CheckArgs(c.args, {})) return *e;
         return post([this, who = c.caller] { return Reload(who); }, c);
       }}));
  for (const bool drain : {true, false}) {
    ZG_RETURN_IF_ERROR(table_.Add(
        {.name = drain ? "drain" : "undrain",
         .summary = drain ? "mark the server DRAINING (then DRAINED)"
                          : "mark the server SERVING again",
         .access = servo::CommandAccess::kChange,
         .run = [this, post,
                 drain](const servo::CommandCall& c) -> servo::CommandOutcome {
           if (auto e = servo::CheckArgs(c.args, {})) return *e;
           return post(
               [this, drain, who = c.caller] { return SetDrain(drain, who); },
               c);
         }}));
  }
  ZG_RETURN_IF_ERROR(table_.Add(
      {.name = "ptp_subscribers",
       .summary = "the busiest PTP unicast subscribers (args: top)",
       .run = [this](const servo::CommandCall& c) -> servo::CommandOutcome {
         if (auto e = servo::CheckArgs(c.args, {"top"})) return *e;
         const int64_t top = c.args.value("top", int64_t{20});
         if (top < 1 || top > core::PtpSubscriberExport::kMaxTop) {
           return servo::Reply::Error(
               servo::ErrorCode::kBadArgument,
               absl::StrCat("top must be 1..",
                            core::PtpSubscriberExport::kMaxTop));
         }
         return requests_.PostAsync(
             [this, top](const servo::ControlRequestQueue::Complete& done) {
               if (!hooks_.ptp_subscribers) {
                 done(servo::Reply::Error(servo::ErrorCode::kUnavailable,
                                          "no PTP in this server"));
                 return;
               }
               hooks_.ptp_subscribers(
                   static_cast<uint32_t>(top),
                   [done](absl::StatusOr<servo::PtpSubscribers> r) {
                     done(r.ok()
                              ? servo::Reply::Ok(servo::PtpSubscribersJson(*r))
                              : servo::Reply::Error(
                                    r.status().code() ==
                                            absl::StatusCode::kDeadlineExceeded
                                        ? servo::ErrorCode::kTimeout
                                        : servo::ErrorCode::kUnavailable,
                                    std::string(r.status().message())));
                   });
             },
             c.wake);
       }}));
  ZG_RETURN_IF_ERROR(table_.Add(
      {.name = "loglevel",
       .summary = "show or set the log level (info, warning, error)",
       .access = servo::CommandAccess::kChange,
       .reads_without_args = true,
       .run = [this,
               post](const servo::CommandCall& c) -> servo::CommandOutcome {
         if (auto e = servo::CheckArgs(c.args, {"level"})) return *e;
         if (c.args.empty()) {
           return servo::Reply::Ok({{"level", LogLevelName(GetLogLevel())}});
         }
         const std::string level = c.args.at("level").get<std::string>();
         if (!ParseLogLevel(level)) {
           return servo::Reply::Error(
               servo::ErrorCode::kBadArgument,
               absl::StrCat("log level \"", level,
                            "\": one of info, warning, error"));
         }
         return post([this, level,
                      who = c.caller] { return ChangeLogLevel(level, who); },
                     c);
       }}));
  return absl::OkStatus();
}

absl::Status DaemonService::AddClientsCommand() {
  return table_.Add(
      {.name = "clients",
       .summary = "NTP clients: requests, drops, KoD, authentication, last "
                  "seen (args: top, sort, address)",
       .run = [this](const servo::CommandCall& c) -> servo::CommandOutcome {
         absl::StatusOr<core::NtpClientQuery> q =
             core::ParseNtpClientQuery(c.args);
         if (!q.ok()) {
           return servo::Reply::Error(servo::ErrorCode::kBadArgument,
                                      std::string(q.status().message()));
         }
         if (!hooks_.ntp_clients) {
           return servo::Reply::Error(servo::ErrorCode::kUnavailable,
                                      "this server keeps no NTP client "
                                      "records");
         }
         // The socket's thread reads the workers' tables (bounded: one
         // pass, the `top` kept); no worker and no control thread waits.
         absl::StatusOr<json> r = hooks_.ntp_clients(*q);
         if (!r.ok()) {
           return servo::Reply::Error(servo::ErrorCode::kUnavailable,
                                      std::string(r.status().message()));
         }
         return servo::Reply::Ok(std::move(*r));
       }});
}

void DaemonService::Audit(
    const std::string& command, const servo::Caller& who,
    std::vector<std::pair<std::string, servo::AuditValue>> values) {
  if (hooks_.control == nullptr) return;
  values.insert(values.begin(), {{"reason", absl::StrCat("zgctl ", command)},
                                 {"uid", int64_t{who.uid}},
                                 {"pid", int64_t{who.pid}}});
  hooks_.control->RecordConfigChange(std::move(values));
}

servo::Reply DaemonService::Reload(const servo::Caller& who) {
  if (!hooks_.reload) {
    return servo::Reply::Error(servo::ErrorCode::kUnavailable,
                               "this server cannot reload");
  }
  LogInfo(absl::StrCat("zgctl reload (", Who(who), ")"));
  const int64_t start = MonoNs();
  const ReloadOutcome o =
      hooks_.reload(absl::StrCat("zgctl reload (", Who(who), ")"));
  // The control thread ran nothing else meanwhile (a long one shows as a
  // late tick in `zgctl status`).
  const double took_s = static_cast<double>(MonoNs() - start) * 1e-9;
  json data = {{"outcome", o.ok ? "ok" : "rejected"},
               {"duration_s", took_s},
               {"changed", o.changed},
               {"in_force", o.components},
               {"needs_restart", o.needs_restart}};
  if (hooks_.control != nullptr) {
    data["leap_table"] = hooks_.control->leap_table().Describe();
  }
  // What it did to the reference sources (--source); null: nothing.
  data["sources"] =
      o.sources ? servo::SourceChangeResultJson(*o.sources) : json(nullptr);
  if (o.ok) return servo::Reply::Ok(std::move(data));
  data["error"] = o.error;
  servo::Reply r = servo::Reply::Error(
      servo::ErrorCode::kFailed,
      absl::StrCat("reload rejected, the old configuration stays: ", o.error));
  r.data = std::move(data);
  return r;
}

servo::Reply DaemonService::SetDrain(bool drain, const servo::Caller& who) {
  const servo::DrainState before = service_.drain;
  const servo::DrainState after = drain ? (before == servo::DrainState::kServing
                                               ? servo::DrainState::kDraining
                                               : before)
                                        : servo::DrainState::kServing;
  if (after != before) {
    service_.drain = after;
    service_.drain_changed_utc = WallUtc();
    service_.drain_changed_by = who.uid;
    LogInfo(absl::StrCat("zgctl ", drain ? "drain" : "undrain", " (", Who(who),
                         "): ", servo::DrainStateName(before), " -> ",
                         servo::DrainStateName(after)));
    Audit(drain ? "drain" : "undrain", who,
          {{"drain_state", std::string(servo::DrainStateName(after))},
           {"was", std::string(servo::DrainStateName(before))}});
  }
  return servo::Reply::Ok(servo::ServiceJson(service_));
}

servo::Reply DaemonService::ChangeLogLevel(const std::string& level,
                                           const servo::Caller& who) {
  const std::string before = LogLevelName(GetLogLevel());
  // Said before a change to warning/error would hide it.
  LogInfo(absl::StrCat("zgctl loglevel ", level, " (", Who(who), ")"));
  SetLogLevel(*ParseLogLevel(level));
  Audit("loglevel", who, {{"level", level}, {"was", before}});
  return servo::Reply::Ok({{"level", level}, {"previous", before}});
}

void DaemonService::AfterTick(const servo::TickStats& tick) {
  requests_.RunPending();
  if (service_.drain == servo::DrainState::kDraining) {
    // No drain step is registered yet (the fleet features add them): done.
    service_.drain = servo::DrainState::kDrained;
    service_.drain_changed_utc = WallUtc();
    LogInfo("drain: DRAINING -> DRAINED (no drain step to wait for)");
    if (hooks_.control != nullptr) {
      hooks_.control->RecordConfigChange(
          {{"reason", std::string("drain complete (no drain step to wait "
                                  "for)")},
           {"drain_state", std::string("DRAINED")},
           {"was", std::string("DRAINING")},
           {"requested_by_uid", int64_t{service_.drain_changed_by}}});
    }
  }
  Publish(tick);
}

void DaemonService::Publish(const servo::TickStats& tick) {
  service_.uptime_ns = MonoNs() - start_mono_ns_;
  service_.log_level = LogLevelName(GetLogLevel());
  service_.control_tick = tick;
  service_.control_requests = requests_.ran();
  board_.service.Publish(
      std::make_shared<const servo::ServiceStatus>(service_));
}

}  // namespace zg::dataplane
