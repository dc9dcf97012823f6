// SPDX-License-Identifier: Apache-2.0
// The control thread's side of drain and anycast (fleet_control.h).
#include "dataplane/daemon/fleet_control.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {
namespace {

constexpr int64_t kFileCheckNs = 100'000'000;

bool Exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

void Advance(prometheus::Counter* c, double total) {
  if (c != nullptr && total > c->Value()) c->Increment(total - c->Value());
}

}  // namespace

FleetControl::FleetControl(FleetConfig config, Hooks hooks)
    : config_(std::move(config)),
      hooks_(std::move(hooks)),
      drain_(config_.drain_grace, config_.drain_file,
             config_.force_undrain_file),
      policy_(config_.anycast) {}

FleetControl::~FleetControl() = default;

absl::Status FleetControl::Start() {
  if (!config_.anycast_enabled()) {
    LogInfo(
        absl::StrCat("drain: grace ", absl::FormatDuration(config_.drain_grace),
                     config_.drain_file.empty()
                         ? ""
                         : absl::StrCat(", drain file ", config_.drain_file),
                     "; no anycast route (no --bird_socket)"));
    return absl::OkStatus();
  }
  auto bird = servo::BirdControl::Start(
      {.socket_path = config_.bird_socket,
       .protocol = config_.bird_protocol,
       .check_interval = config_.bird_check_interval,
       .io_timeout = absl::Seconds(1),
       .log = [](const std::string& m) { LogInfo(m); }});
  if (!bird.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bird_socket: ", bird.status().message()));
  }
  bird_ = std::move(*bird);
  LogInfo(absl::StrCat(
      "anycast: route in BIRD protocol ", config_.bird_protocol, " via ",
      config_.bird_socket, "; announced once healthy for ",
      absl::FormatDuration(config_.anycast.announce_after),
      ", withdrawn when unhealthy for ",
      absl::FormatDuration(config_.anycast.withdraw_after), ", drain grace ",
      absl::FormatDuration(config_.drain_grace)));
  return absl::OkStatus();
}

void FleetControl::SetOperatorDrain(bool drain, const std::string& who) {
  drain_.SetOperatorRequest(drain, who);
}

void FleetControl::ReadFiles(int64_t mono_ns) {
  if (mono_ns < next_file_check_) return;
  next_file_check_ = mono_ns + kFileCheckNs;
  files_.drain_file = Exists(config_.drain_file);
  files_.force_undrain_file = Exists(config_.force_undrain_file);
}

void FleetControl::Audit(
    std::vector<std::pair<std::string, servo::AuditValue>> values) {
  if (hooks_.audit) hooks_.audit(std::move(values));
}

void FleetControl::Step(const servo::HealthInputs& health, int64_t mono_ns) {
  ReadFiles(mono_ns);
  servo::DrainInputs in = files_;
  in.stopping = stopping_;
  if (std::optional<servo::DrainChange> c = drain_.Update(in, mono_ns)) {
    LogInfo(absl::StrCat("drain: ", servo::DrainStateName(c->from), " -> ",
                         servo::DrainStateName(c->to), " (", c->why, ")"));
    Audit({{"reason", absl::StrCat("drain: ", c->why)},
           {"drain_state", std::string(servo::DrainStateName(c->to))},
           {"was", std::string(servo::DrainStateName(c->from))}});
  }
  const servo::HealthVerdict verdict = servo::JudgeHealth(health);
  if (std::optional<servo::RouteChange> r =
          policy_.Update(verdict, drain_.draining(), mono_ns)) {
    withdrawn_why_ = r->why;
    if (bird_ != nullptr) {
      bird_->Want(r->announce);
      LogInfo(
          absl::StrCat("anycast: ", r->announce ? "announcing" : "withdrawing",
                       " the route (", r->why, ")"));
      Audit({{"reason", absl::StrCat("anycast: ", r->why)},
             {"anycast", std::string(r->announce ? "announce" : "withdraw")}});
    }
  }
  if (hooks_.alarms == nullptr) return;
  hooks_.alarms->SetDraining(
      drain_.draining(),
      drain_.draining() ? absl::StrCat(servo::DrainStateName(drain_.state()),
                                       ": ", drain_.reason())
                        : std::string("serving"),
      mono_ns);
  if (bird_ == nullptr) return;
  hooks_.alarms->SetWithdrawn(!policy_.announce(),
                              policy_.announce()
                                  ? std::string("announced")
                                  : absl::StrCat("withdrawn: ", withdrawn_why_),
                              mono_ns);
  const std::shared_ptr<const servo::BirdStatus> b = bird_->Status();
  if (b == nullptr) return;
  hooks_.alarms->SetBgpSpeakerUnreachable(
      !b->reachable,
      b->reachable
          ? absl::StrCat("BIRD reachable: ", b->version)
          : absl::StrCat("BIRD at ", config_.bird_socket, ": ", b->error),
      mono_ns);
}

void FleetControl::WithdrawForExit(absl::Duration wait) {
  if (bird_ == nullptr) return;
  bird_->Want(false);
  const absl::Time deadline = absl::Now() + wait;
  for (;;) {
    const std::shared_ptr<const servo::BirdStatus> b = bird_->Status();
    if (b != nullptr && b->reachable && b->in_effect && !b->want_announce) {
      LogInfo("anycast: route withdrawn for the exit");
      break;
    }
    if (absl::Now() >= deadline) {
      LogWarning(absl::StrCat(
          "anycast: BIRD did not confirm the withdrawal within ",
          absl::FormatDuration(wait),
          b != nullptr && !b->error.empty() ? absl::StrCat(": ", b->error)
                                            : std::string()));
      break;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  bird_.reset();
}

absl::Status FleetControl::AddMetrics(prometheus::Registry& registry) {
  state_gauge_ = &prometheus::BuildGauge()
                      .Name("zeitgeber_drain_state")
                      .Help(
                          "The drain state: 0 SERVING, 1 DRAINING (route "
                          "withdrawn, still answering), 2 DRAINED")
                      .Register(registry)
                      .Add({});
  auto& transitions =
      prometheus::BuildCounter()
          .Name("zeitgeber_drain_transitions_total")
          .Help("Changes of the drain state, by the state entered")
          .Register(registry);
  for (servo::DrainState s :
       {servo::DrainState::kServing, servo::DrainState::kDraining,
        servo::DrainState::kDrained}) {
    transitions_[static_cast<int>(s)] =
        &transitions.Add({{"to", servo::DrainStateName(s)}});
  }
  if (bird_ == nullptr) {
    UpdateMetrics();
    return absl::OkStatus();
  }
  announced_ = &prometheus::BuildGauge()
                    .Name("zeitgeber_anycast_announced")
                    .Help(
                        "1 while zeitgeberd wants its anycast route "
                        "announced (healthy, not draining)")
                    .Register(registry)
                    .Add({});
  healthy_ = &prometheus::BuildGauge()
                  .Name("zeitgeber_anycast_healthy")
                  .Help(
                      "1 while the server passes its health checks "
                      "(reference within the holdover spec, every worker "
                      "progressing, no serving port down)")
                  .Register(registry)
                  .Add({});
  auto& changes = prometheus::BuildCounter()
                      .Name("zeitgeber_anycast_changes_total")
                      .Help(
                          "Decisions to announce or withdraw the anycast "
                          "route, by action")
                      .Register(registry);
  announces_ = &changes.Add({{"action", "announce"}});
  withdraws_ = &changes.Add({{"action", "withdraw"}});
  bird_reachable_ = &prometheus::BuildGauge()
                         .Name("zeitgeber_bgp_speaker_reachable")
                         .Help(
                             "1 if the last exchange with BIRD's control "
                             "socket succeeded")
                         .Register(registry)
                         .Add({});
  bird_in_effect_ = &prometheus::BuildGauge()
                         .Name("zeitgeber_bgp_speaker_in_effect")
                         .Help(
                             "1 if BIRD reports the route protocol in the "
                             "state zeitgeberd wants (up: announced, down: "
                             "withdrawn)")
                         .Register(registry)
                         .Add({});
  bird_failures_ = &prometheus::BuildCounter()
                        .Name("zeitgeber_bgp_speaker_failures_total")
                        .Help(
                            "Failed connections, commands or replies on "
                            "BIRD's control socket")
                        .Register(registry)
                        .Add({});
  UpdateMetrics();
  return absl::OkStatus();
}

void FleetControl::UpdateMetrics() {
  if (state_gauge_ == nullptr) return;
  state_gauge_->Set(static_cast<double>(drain_.state()));
  for (int s = 0; s < 3; ++s) {
    Advance(transitions_[s], static_cast<double>(drain_.changes_to(
                                 static_cast<servo::DrainState>(s))));
  }
  if (announced_ == nullptr) return;
  announced_->Set(policy_.announce() ? 1 : 0);
  healthy_->Set(policy_.healthy() ? 1 : 0);
  Advance(announces_, static_cast<double>(policy_.announcements()));
  Advance(withdraws_, static_cast<double>(policy_.withdrawals()));
  const std::shared_ptr<const servo::BirdStatus> b =
      bird_ ? bird_->Status() : nullptr;
  bird_reachable_->Set(b != nullptr && b->reachable ? 1 : 0);
  bird_in_effect_->Set(b != nullptr && b->in_effect ? 1 : 0);
  if (b != nullptr) Advance(bird_failures_, static_cast<double>(b->failures));
}

}  // namespace zg::dataplane
