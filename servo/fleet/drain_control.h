// SPDX-License-Identifier: Apache-2.0
// DrainControl: whether the server is in service, leaving it, or out of it
// (SERVING -> DRAINING -> DRAINED), from what asks it to leave:
//   - the operator: `zgctl drain` until `zgctl undrain`;
//   - a drain file (--drain_file, as ptp4u's): drained while it exists;
//   - a force-undrain file (--force_undrain_file): while it exists, neither
//     the drain file nor `zgctl drain` drains (the operator's override when
//     automation keeps a drain file in place);
//   - stopping (SIGTERM with an anycast route): nothing overrides it.
//
// DRAINING starts the moment one of them asks: the anycast route is
// withdrawn first (servo/fleet/anycast_policy.h) while the server goes on
// answering whoever still reaches it, for --drain_grace; then DRAINED: safe
// to stop. Clearing every request returns to SERVING from either state.
// The server answers in every state: draining moves the clients away, it
// never drops one that still arrives.
//
//   DrainControl drain(absl::Seconds(5), "/run/zeitgeber/drain",
//                      "/run/zeitgeber/force-undrain");
//   drain.SetOperatorRequest(true, "zgctl drain (uid 0, pid 42)");
//   for (;;) {  // control thread, each pass
//     if (auto c = drain.Update({.drain_file = Exists(f)}, mono_ns)) Audit(*c);
//   }
//
// Control thread only.
#ifndef ZG_SERVO_FLEET_DRAIN_CONTROL_H_
#define ZG_SERVO_FLEET_DRAIN_CONTROL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/time/time.h"

namespace zg::servo {

enum class DrainState : uint8_t { kServing = 0, kDraining = 1, kDrained = 2 };
// "SERVING", "DRAINING", "DRAINED".
const char* DrainStateName(DrainState s);

// What the control thread saw this pass besides the operator's request.
struct DrainInputs {
  bool drain_file = false;          // --drain_file exists
  bool force_undrain_file = false;  // --force_undrain_file exists
  bool stopping = false;            // a stop with a grace is under way
};

// One change of state, for the log, the audit log and the metrics.
struct DrainChange {
  DrainState from = DrainState::kServing;
  DrainState to = DrainState::kServing;
  std::string why;  // "zgctl drain (uid 0, pid 42)", "drain file ... exists"
};

class DrainControl {
 public:
  // The files' paths only name them in the reasons given.
  explicit DrainControl(absl::Duration grace, std::string drain_file = "",
                        std::string force_undrain_file = "")
      : grace_(grace),
        drain_file_(std::move(drain_file)),
        force_undrain_file_(std::move(force_undrain_file)) {}

  // The operator's request (zgctl drain: true, undrain: false) and who made
  // it; applied by the next Update.
  void SetOperatorRequest(bool drain, std::string who);

  // Advances the state; returns the change, if any.
  std::optional<DrainChange> Update(const DrainInputs& in, int64_t mono_ns);

  DrainState state() const { return state_; }
  // Whether anything asks to drain now (DRAINING or DRAINED).
  bool draining() const { return state_ != DrainState::kServing; }
  // Why it is draining ("" while SERVING).
  const std::string& reason() const { return reason_; }
  bool operator_request() const { return operator_drain_; }
  // When the current state began (monotonic ns; 0 before the first change).
  int64_t since_mono_ns() const { return since_mono_ns_; }
  // What is left of the grace while DRAINING (0 otherwise).
  absl::Duration grace_left(int64_t mono_ns) const;
  absl::Duration grace() const { return grace_; }
  // Changes of state since start, per target state.
  uint64_t changes_to(DrainState s) const {
    return changes_[static_cast<int>(s)];
  }

 private:
  enum class Asker : uint8_t { kNone, kStopping, kOperator, kDrainFile };
  Asker Ask(const DrainInputs& in) const;
  std::string Why(Asker asker) const;
  std::string WhyServing(const DrainInputs& in) const;

  absl::Duration grace_;
  std::string drain_file_;
  std::string force_undrain_file_;
  Asker asker_ = Asker::kNone;  // who asked for the current drain
  bool operator_drain_ = false;
  std::string operator_who_;
  DrainState state_ = DrainState::kServing;
  std::string reason_;
  int64_t since_mono_ns_ = 0;
  uint64_t changes_[3] = {0, 0, 0};
};

}  // namespace zg::servo

#endif  // ZG_SERVO_FLEET_DRAIN_CONTROL_H_
