// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's status page wired to the command table, the control
// thread's queue and the control plane's snapshots (status_page_service.h).
#include "dataplane/daemon/status_page_service.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/log.h"
#include "servo/api/status_json.h"

namespace zg::dataplane {
namespace {

// How long a page request waits for the control thread (a deferred reply).
constexpr auto kReplyTimeout = std::chrono::seconds(5);

// The changes the page offers (with a user).
constexpr const char* kPageChanges[] = {"drain", "undrain", "reload"};

std::optional<double> NumberOrNone(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

}  // namespace

int HttpStatusOf(const servo::Reply& reply) {
  // unavailable is an answer about this daemon (PTP off, no audit log):
  // the command ran, as for zgctl; 4xx: the request was wrong; 5xx: no
  // answer could be had.
  if (reply.ok || reply.code == servo::ErrorCode::kUnavailable) return 200;
  switch (reply.code) {
    case servo::ErrorCode::kBadRequest:
    case servo::ErrorCode::kBadArgument:
    case servo::ErrorCode::kUnsupportedVersion:
      return 400;
    case servo::ErrorCode::kPermissionDenied:
      return 403;
    case servo::ErrorCode::kUnknownCommand:
      return 404;
    case servo::ErrorCode::kTooLarge:
      return 413;
    case servo::ErrorCode::kTooManyConnections:
    case servo::ErrorCode::kUnavailable:  // (above)
    case servo::ErrorCode::kShuttingDown:
      return 503;
    case servo::ErrorCode::kTimeout:
      return 504;
    case servo::ErrorCode::kFailed:
      return 500;
  }
  return 500;
}

ApiReply StatusPageService::Run(const std::string& command,
                                const nlohmann::json& args,
                                const servo::Caller& caller) const {
  servo::ControlRequest request;
  request.command = command;
  request.args = args;
  auto mu = std::make_shared<std::mutex>();
  auto cv = std::make_shared<std::condition_variable>();
  servo::CommandOutcome outcome =
      hooks_.commands->Run(request, caller, [mu, cv] {
        std::lock_guard<std::mutex> lock(*mu);
        cv->notify_all();
      });
  servo::Reply reply;
  if (auto* now = std::get_if<servo::Reply>(&outcome)) {
    reply = std::move(*now);
  } else {
    std::shared_ptr<servo::DeferredReply> later =
        std::get<std::shared_ptr<servo::DeferredReply>>(std::move(outcome));
    std::unique_lock<std::mutex> lock(*mu);
    if (cv->wait_for(lock, kReplyTimeout, [&] { return later->done(); })) {
      reply = later->reply();
    } else {
      reply = servo::Reply::Error(servo::ErrorCode::kTimeout,
                                  "the control thread did not answer in 5 s");
    }
  }
  return {HttpStatusOf(reply), servo::FormatReply(reply, command, nullptr)};
}

absl::StatusOr<std::unique_ptr<StatusPageService>> StatusPageService::Start(
    StatusPageFlags flags, Hooks hooks) {
  std::unique_ptr<StatusPageService> s(new StatusPageService(std::move(hooks)));
  StatusPageService* self = s.get();
  StatusPageBackend b;
  const nlohmann::json help = self->hooks_.commands->Help();
  for (const nlohmann::json& c : help["commands"]) {
    const std::string name = c["name"].get<std::string>();
    if (!c["changes"].get<bool>() && name != "help") {
      b.read_commands.insert(name);
    }
  }
  for (const char* change : kPageChanges) {
    for (const nlohmann::json& c : help["commands"]) {
      if (c["name"] == change) b.change_commands.insert(change);
    }
  }
  // Reads run as anyone who reached the page; changes as the daemon's own
  // user (the page checked the user), audited with the page's user.
  const servo::Caller reader{.pid = getpid(), .uid = 65534, .gid = 65534};
  const servo::Caller owner{.pid = getpid(),
                            .uid = self->hooks_.commands->owner_uid(),
                            .gid = getegid()};
  b.read = [self, reader](const std::string& command,
                          const nlohmann::json& args) {
    return self->Run(command, args, reader);
  };
  b.change = [self, owner](const std::string& command,
                           const nlohmann::json& args, const std::string& user,
                           const std::string& client) {
    LogInfo(
        absl::StrCat("status page: ", command, " by ", user, " from ", client));
    servo::ControlPlane* control = self->hooks_.control;
    self->hooks_.requests->Post([control, command, user, client] {
      control->RecordConfigChange({{"via", std::string("status_page")},
                                   {"command", command},
                                   {"user", user},
                                   {"client", client}});
      return servo::Reply::Ok({});
    });
    return self->Run(command, args, owner);
  };
  b.audit = [self](const WebAccessEvent& e) {
    servo::ControlPlane* control = self->hooks_.control;
    // Bounded: a full queue drops the record (the throttle bounds how many
    // come anyway: max_failures per lockout).
    self->hooks_.requests->Post([control, e] {
      std::vector<std::pair<std::string, servo::AuditValue>> v = {
          {"surface", std::string("status_page")},
          {"client", e.client},
          {"user", e.user},
          {"failures", static_cast<int64_t>(e.failures)}};
      if (e.locked_s > 0) v.emplace_back("locked_s", e.locked_s);
      control->RecordAccessDenied(std::move(v));
      return servo::Reply::Ok({});
    });
  };
  b.sample = [self]() -> std::optional<HistorySample> {
    std::shared_ptr<const servo::ControlPlaneStatus> status =
        self->hooks_.control->snapshots().Status();
    if (status == nullptr) return std::nullopt;
    // tracking's own numbers: the plots and the cards agree.
    const nlohmann::json t = servo::TrackingJson(*status);
    HistorySample h;
    h.utc_s = absl::ToUnixSeconds(absl::Now());
    h.offset_ns = NumberOrNone(t, "offset_ns");
    h.frequency_ppb = NumberOrNone(t, "frequency_ppb").value_or(0);
    h.error_bound_ns = NumberOrNone(t, "error_bound_now_ns").value_or(0);
    return h;
  };
  flags.options.audit_log_path = self->hooks_.audit_log;
  flags.options.tls_shim_paths = CivetwebSslShimPaths();
  ZG_ASSIGN_OR_RETURN(
      self->page_, StatusPage::Start(std::move(flags.options), std::move(b)));
  return s;
}

}  // namespace zg::dataplane
