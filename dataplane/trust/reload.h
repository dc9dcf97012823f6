// SPDX-License-Identifier: Apache-2.0
// What a component sees when zeitgeberd reloads its configuration (SIGHUP):
// the re-read flags (ReloadArgs) and the plan its new configuration is
// staged into (ReloadPlan). The daemon (dataplane/daemon/config_reload.h)
// asks every component to build and validate first, and publishes only when
// all of them succeeded: one invalid value anywhere and nothing changes.
//
// A flag is reloadable when a component of this binary says it applies it
// on reload (PipelineFactory::ReloadableFlags: the NTP policy and the
// plugins list theirs); any other flag changed in the flagfile is reported
// as needing a restart. During PipelineFactory::Reload (control thread), the
// reloadable abseil flags already hold their re-read values and
// reload.config is the DaemonConfig they make, so a component rebuilds its
// configuration with the same function it used in Configure(), then stages
// the publication:
//
//   std::vector<std::string> MyPlugin::ReloadableFlags() const {
//     return {"ntp_ratelimit", "ntp_ratelimit_kod"};
//   }
//   absl::Status MyPlugin::Reload(const ReloadArgs& reload) {
//     // From reload.config (as Configure got it), or from the flags:
//     // CollectRepeatedFlag(reload.args, "ntp_allow") for repeated flags,
//     // absl::GetFlag(FLAGS_ntp_ratelimit) for the others.
//     ZG_ASSIGN_OR_RETURN(std::unique_ptr<const Limits> next,
//                         BuildLimits(*reload.config));
//     reload.plan->StagePublish(limits_, std::move(next),
//                               absl::StrCat("rate limit: ",
//                               next->Describe()));
//     return absl::OkStatus();    // an error: nothing staged is published
//   }
#ifndef ZG_DATAPLANE_TRUST_RELOAD_H_
#define ZG_DATAPLANE_TRUST_RELOAD_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "dataplane/trust/config_swap.h"

namespace zg::dataplane {

struct DaemonConfig;  // dataplane/daemon/flags.h

// The publications of one reload, staged by the components' Reload() and
// run by the daemon only if every component accepted its new values.
// Control thread only.
class ReloadPlan {
 public:
  // `publish` runs at Commit (it must not fail: validate before staging);
  // `change` describes the config it puts in force, for the log and the
  // audit log ("" to say nothing).
  void Stage(std::string change, absl::AnyInvocable<void() &&> publish);
  // The common case: publish `next` into `target`.
  template <typename T>
  void StagePublish(SwappableConfig<T>& target, std::unique_ptr<const T> next,
                    std::string change) {
    Stage(std::move(change),
          [target = &target, next = std::move(next)]() mutable {
            // Cannot fail: `next` is not null (checked when staged).
            target->Publish(std::move(next)).IgnoreError();
          });
  }
  // Runs every staged publication, in staging order. Once.
  void Commit();
  size_t staged() const { return publish_.size(); }
  // The staged publications' descriptions (the non-empty ones).
  const std::vector<std::string>& changes() const { return changes_; }

 private:
  std::vector<absl::AnyInvocable<void() &&>> publish_;
  std::vector<std::string> changes_;
};

struct ReloadArgs {
  // zeitgeberd's flags as at start, with every --flagfile re-read and
  // expanded in place (no --flagfile left): pass it to CollectRepeatedFlag.
  std::vector<std::string> args;
  // The DaemonConfig those flags make now (DaemonConfigFromFlags): what
  // Configure() got at start, with the reloadable values re-read (the
  // others as at start). Not null.
  const DaemonConfig* config = nullptr;
  // Where Reload stages its new configuration. Not null.
  ReloadPlan* plan = nullptr;
};

// `args` with every --flagfile=F1,F2 (or "--flagfile F") replaced by the
// lines of its files, recursively, in order; '#' comments and blank lines
// dropped. An unreadable file is an error.
absl::StatusOr<std::vector<std::string>> ExpandFlagfiles(
    const std::vector<std::string>& args);

// Every value of --NAME in `args` and in the flagfiles they name (recursively),
// in order. For repeated flags, which abseil would otherwise reduce to the
// last occurrence. Used at start-up and on reload alike.
absl::StatusOr<std::vector<std::string>> CollectRepeatedFlag(
    const std::vector<std::string>& args, const std::string& name);

// One flag as it appears in expanded args: its name (after "--"/"-", before
// "=") and every token of its occurrences, in order.
struct FlagOccurrences {
  std::string name;
  std::vector<std::string> values;  // "" for a bare "--flag"
};
// The flags of expanded args, sorted by name. "--" ends the flags.
std::vector<FlagOccurrences> GroupFlags(const std::vector<std::string>& args);

// How the re-read flags differ from a baseline.
struct FlagDiff {
  std::vector<std::string> reloadable;     // changed and reloadable
  std::vector<std::string> needs_restart;  // changed, applied only on restart
  std::vector<std::string> unknown;        // not a flag of this binary
  // "name: old -> new" for every changed flag, reloadable or not.
  std::vector<std::string> descriptions;
};
FlagDiff DiffFlags(const std::vector<std::string>& before,
                   const std::vector<std::string>& after,
                   const std::vector<std::string>& reloadable);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_RELOAD_H_
