// SPDX-License-Identifier: Apache-2.0
// Live changes of the reference sources: what an operator (`zgctl source
// add|delete|priority|enable|disable`, served by the control socket's
// thread) or the flagfile reload (SIGHUP, `zgctl reload`) asks of the
// control thread, and what it answers. ControlPlane (control_plane.h) takes
// the requests; this file has the plain types, their JSON, and the ticket a
// caller on another thread waits on.
//
//   SourceChangeRequest req;
//   req.action = SourceAction::kAdd;
//   req.spec = "sim:better,priority=1";   // the --source syntax
//   req.uid = peer_uid;                   // SO_PEERCRED, for the audit log
//   req.origin = "zgctl";
//   SourceChangeResult r = control->ChangeSources(req, absl::Seconds(5));
//   reply["result"] = SourceChangeResultJson(r);   // doc/zgctl.md
//
// The JSON (doc/zgctl.md, "Sources changes"):
//   {"ok":true,"action":"add","persistent":false,"selected":"sim:better",
//    "changes":[{"source":"sim:better","change":"added",
//                "spec":"sim:better,priority=1","priority":1,
//                "enabled":true}]}
//   {"ok":false,"action":"add","persistent":false,"changes":[],
//    "error":"--source=sim:x,bogus=1: unknown option 'bogus' for sim ..."}
#ifndef ZG_SERVO_CONTROL_SOURCE_CHANGE_H_
#define ZG_SERVO_CONTROL_SOURCE_CHANGE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "nlohmann/json_fwd.hpp"
#include "servo/sources/source_factory.h"
#include "servo/sources/source_spec.h"

namespace zg::servo {

enum class SourceAction : uint8_t {
  kAdd,         // spec: a new source
  kDelete,      // name
  kPriority,    // name, priority
  kEnable,      // name: selectable again
  kDisable,     // name: measured, never selected (chrony's noselect)
  kReplaceAll,  // specs: the whole set, as the flagfile has it (reload)
};
// "add", "delete", "priority", "enable", "disable", "replace_all".
const char* SourceActionName(SourceAction action);

struct SourceChangeRequest {
  SourceAction action = SourceAction::kAdd;
  std::string spec;                // kAdd: one --source value
  std::string name;                // kDelete, kPriority, kEnable, kDisable
  int priority = 0;                // kPriority: -1000..1000 (lower preferred)
  std::vector<std::string> specs;  // kReplaceAll: every --source, in order
  // Who asked, for the audit log: the caller's uid (SO_PEERCRED) when known,
  // and the surface ("zgctl", "reload (SIGHUP)").
  std::optional<uint32_t> uid;
  std::string origin;
  // The change comes from the flagfile (a reload), so it survives a
  // restart; every other change lasts until the next restart or reload.
  bool from_flagfile = false;
};

// What one request did to one source.
struct SourceChangeEntry {
  std::string source;  // its name
  // "added", "removed", "replaced" (same name, new spec), "priority",
  // "enabled", "disabled", "unchanged".
  std::string change;
  std::string spec;  // the --source value in force (removed: the old one)
  int priority = 0;  // in force (removed: the last one)
  bool enabled = true;
};

struct SourceChangeResult {
  bool ok = false;
  std::string error;  // !ok: why; the sources in force did not change
  SourceAction action = SourceAction::kAdd;
  bool persistent = false;  // survives a restart (only a flagfile change)
  std::vector<SourceChangeEntry> changes;
  // The selected source once the change took effect ("" for none); unset
  // when the answer was given before the next control step.
  std::optional<std::string> selected;
};

nlohmann::json SourceChangeResultJson(const SourceChangeResult& result);

// A request parsed and its new sources built (ControlPlane::Prepare...):
// everything that can fail without looking at the sources in force.
struct PreparedSourceChange {
  SourceChangeRequest request;
  absl::Status status;            // parse or build error
  std::vector<SourceSpec> specs;  // kAdd: one; kReplaceAll: each, in order
  // Parallel to specs: the built source, or none where an identical spec
  // (SourceSpecKey) was in force when prepared (kept, not rebuilt).
  std::vector<BuiltSource> built;
  // Set by ControlPlane::PrepareSourceChangeNow for kReplaceAll: the names
  // in force after it, and whether it changes anything at all.
  std::vector<std::string> names_after;
  bool changes_anything = true;
};

// `spec.text` without its priority= option: two specs with the same key
// make the same source (a priority is changed in place, not rebuilt).
std::string SourceSpecKey(const SourceSpec& spec);

// A request queued for the control thread, and its answer. The caller's
// thread waits on it; the control thread takes it and completes it.
class SourceChangeTicket {
 public:
  explicit SourceChangeTicket(SourceAction action) : action_(action) {}

  // Any thread but the control thread: waits up to `timeout` for the
  // answer. A request the control thread has not taken by then is
  // withdrawn (it will never apply) and the answer says so; one it has
  // taken is waited for to the end (applying is bounded: no I/O but the
  // audit log).
  SourceChangeResult Wait(absl::Duration timeout);

  // Any thread: `done` gets the answer once it is in, on the thread that
  // completes the ticket (the control thread, or the submitting one for a
  // request refused at once), or here if it is in already. It must not
  // block (the control socket's thread wakes itself). At most one; a
  // request with one is never withdrawn (it is applied at the next Tick).
  void OnDone(std::function<void(const SourceChangeResult&)> done);

  // Control thread: true if the request is still wanted (then it must be
  // completed), false if withdrawn.
  bool Take();
  void Complete(SourceChangeResult result);

 private:
  enum class State : uint8_t { kQueued, kTaken, kDone, kWithdrawn };
  const SourceAction action_;
  std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kQueued;  // guarded by mu_
  SourceChangeResult result_;     // guarded by mu_; set when kDone
  std::function<void(const SourceChangeResult&)> done_;  // guarded by mu_
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_SOURCE_CHANGE_H_
