// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/config_reload.h"

#include <algorithm>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace zg::dataplane {
namespace {

// Reloadable flags as they were before a reload, to put them back if the
// reload is rejected.
class FlagRollback {
 public:
  void Save(absl::CommandLineFlag* flag) {
    saved_.push_back({flag, flag->CurrentValue()});
  }
  void Restore() {
    std::string ignored;
    for (auto& [flag, value] : saved_) flag->ParseFrom(value, &ignored);
    saved_.clear();
  }

 private:
  std::vector<std::pair<absl::CommandLineFlag*, std::string>> saved_;
};

// Sets every defined reloadable flag from `args`: each occurrence is parsed
// in order (as abseil does at start; the last one wins), an absent flag gets
// its default.
absl::Status ApplyReloadable(const std::vector<std::string>& args,
                             const std::vector<std::string>& reloadable,
                             FlagRollback& rollback) {
  const std::vector<FlagOccurrences> given = GroupFlags(args);
  for (const std::string& name : reloadable) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) continue;  // not in this binary
    const auto it =
        std::find_if(given.begin(), given.end(),
                     [&](const FlagOccurrences& f) { return f.name == name; });
    std::vector<std::string> values;
    if (it == given.end()) {
      values.push_back(flag->DefaultValue());
    } else {
      values = it->values;
    }
    rollback.Save(flag);
    for (std::string& v : values) {
      if (v.empty() && flag->IsOfType<bool>()) v = "true";  // bare --flag
      std::string error;
      if (!flag->ParseFrom(v, &error)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, "=", v, ": ", error));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConfigReloader>> ConfigReloader::Create(
    Options options) {
  if (options.factory == nullptr) {
    return absl::InvalidArgumentError("ConfigReloader: no pipeline factory");
  }
  std::unique_ptr<ConfigReloader> r(new ConfigReloader(std::move(options)));
  r->reloadable_ = r->options_.reloadable.has_value()
                       ? *r->options_.reloadable
                       : r->options_.factory->ReloadableFlags();
  ZG_ASSIGN_OR_RETURN(r->baseline_, ExpandFlagfiles(r->options_.args));
  r->applied_ = r->baseline_;
  r->last_ok_ = absl::Now();
  return r;
}

absl::Status ConfigReloader::Run(ReloadOutcome& out) {
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> args,
                      ExpandFlagfiles(options_.args));
  const FlagDiff restart = DiffFlags(baseline_, args, reloadable_);
  if (!restart.unknown.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown flag(s) in the flagfile: --",
                     absl::StrJoin(restart.unknown, ", --")));
  }
  for (const std::string& d : restart.descriptions) {
    const std::string name = d.substr(0, d.find(':'));
    if (std::find(restart.needs_restart.begin(), restart.needs_restart.end(),
                  name) != restart.needs_restart.end()) {
      out.needs_restart.push_back(d);
    }
  }
  const FlagDiff change = DiffFlags(applied_, args, reloadable_);
  for (const std::string& d : change.descriptions) {
    const std::string name = d.substr(0, d.find(':'));
    if (std::find(change.reloadable.begin(), change.reloadable.end(), name) !=
        change.reloadable.end()) {
      out.changed.push_back(d);
    }
  }
  FlagRollback rollback;
  ReloadPlan plan;
  absl::Status s = ApplyReloadable(args, reloadable_, rollback);
  absl::StatusOr<DaemonConfig> config = DaemonConfig();
  if (s.ok() && options_.daemon_config) {
    config = DaemonConfigFromFlags(args);
    s = config.status();
  }
  if (s.ok()) s = options_.factory->Reload({args, &*config, &plan});
  if (!s.ok()) {
    rollback.Restore();
    return s;  // `plan` dies unpublished
  }
  out.components = plan.changes();
  plan.Commit();
  applied_ = args;
  return absl::OkStatus();
}

ReloadOutcome ConfigReloader::Reload(const std::string& reason) {
  ReloadOutcome out;
  const absl::Status s = Run(out);
  out.ok = s.ok();
  if (!s.ok()) out.error = std::string(s.message());
  Report(out, reason);
  return out;
}

void ConfigReloader::Report(const ReloadOutcome& out,
                            const std::string& reason) {
  for (const std::string& d : out.needs_restart) {
    LogWarning(absl::StrCat("reload: ", d, ": needs restart, not applied"));
  }
  std::vector<std::pair<std::string, servo::AuditValue>> v;
  v.push_back({"reason", reason});
  v.push_back({"outcome", std::string(out.ok ? "ok" : "rejected")});
  if (out.ok) {
    ++ok_;
    last_ok_ = absl::Now();
    const std::string what =
        out.changed.empty() ? "nothing" : absl::StrJoin(out.changed, "; ");
    const std::string in_force = absl::StrJoin(out.components, "; ");
    LogInfo(absl::StrCat("reload: ok; flags changed: ", what,
                         in_force.empty() ? "" : "; in force: ", in_force));
    v.push_back({"changed", what});
    if (!in_force.empty()) v.push_back({"in_force", in_force});
  } else {
    ++rejected_;
    LogError(absl::StrCat("reload rejected, the old configuration stays: ",
                          out.error));
    v.push_back({"error", out.error});
  }
  last_ok_flag_ = out.ok;
  if (!out.needs_restart.empty()) {
    v.push_back({"needs_restart", absl::StrJoin(out.needs_restart, "; ")});
  }
  if (options_.audit) options_.audit(std::move(v));
  UpdateMetrics();
}

absl::Status ConfigReloader::AddMetrics(prometheus::Registry& registry) {
  auto& reloads =
      prometheus::BuildCounter()
          .Name("zeitgeber_config_reloads_total")
          .Help(
              "Configuration reloads (SIGHUP), by outcome: ok, or rejected "
              "(the old configuration stayed in force)")
          .Register(registry);
  ok_counter_ = &reloads.Add({{"outcome", "ok"}});
  rejected_counter_ = &reloads.Add({{"outcome", "rejected"}});
  last_successful_ =
      &prometheus::BuildGauge()
           .Name("zeitgeber_config_last_reload_successful")
           .Help(
               "1 if the last configuration load (start-up or reload) "
               "succeeded, 0 if it was rejected")
           .Register(registry)
           .Add({});
  last_success_ =
      &prometheus::BuildGauge()
           .Name("zeitgeber_config_last_reload_success_timestamp_seconds")
           .Help(
               "When the configuration in force was loaded (start-up or "
               "the last successful reload), Unix seconds")
           .Register(registry)
           .Add({});
  pending_ = &prometheus::BuildGauge()
                  .Name("zeitgeber_config_retired_pending")
                  .Help(
                      "Replaced configurations not yet freed: waiting for "
                      "every worker to pass a burst boundary")
                  .Register(registry)
                  .Add({});
  UpdateMetrics();
  return absl::OkStatus();
}

void ConfigReloader::UpdateMetrics() {
  if (ok_counter_ == nullptr) return;
  ok_counter_->Increment(static_cast<double>(ok_) - ok_counter_->Value());
  rejected_counter_->Increment(static_cast<double>(rejected_) -
                               rejected_counter_->Value());
  last_successful_->Set(last_ok_flag_ ? 1 : 0);
  last_success_->Set(absl::ToDoubleSeconds(last_ok_ - absl::UnixEpoch()));
  pending_->Set(static_cast<double>(options_.epochs->pending()));
}

}  // namespace zg::dataplane
