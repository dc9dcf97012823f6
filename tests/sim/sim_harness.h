// SPDX-License-Identifier: Apache-2.0
// SimHarness: runs a ClockDiscipline against a SimOscillator and SimReferences
// the way the control thread runs it (poll every source, AddSamples, Update,
// publish), and reports after every step how the published time compares
// with the truth.
//
//   SimHarness h(osc_params, /*seed=*/1, config);
//   int gps = h.AddReference(ref_params, GpsInfo(), /*seed=*/2);
//   h.reference(gps).AddOutage(1800, 5400);
//   h.RemoveReference(gps);             // between two RunUntil calls
//   h.RunUntil(5400, [&](const SimCheck& c) { ... c.error_ns, c.bound_ns ...
//   });
#ifndef ZG_TESTS_SIM_SIM_HARNESS_H_
#define ZG_TESTS_SIM_SIM_HARNESS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/time/clock_model.h"
#include "servo/discipline/clock_discipline.h"
#include "tests/sim/sim_clock.h"

namespace zg::sim {

// One observation, taken right after the discipline's Update at t_s.
struct SimCheck {
  double t_s = 0;
  core::SyncState state = core::SyncState::kFreerun;
  uint8_t clock_class = 0;
  uint8_t stratum = 0;
  bool synchronized = false;  // the fresh model, at its anchor
  // The model just published, at its anchor.
  int64_t error_ns = 0;  // served TAI - true TAI
  int64_t bound_ns = 0;  // ErrorBoundNs there
  // The model published one step earlier, evaluated now (what a worker
  // serves just before the new model lands: the oldest it gets).
  bool aged_valid = false;
  bool aged_synchronized = false;
  int64_t aged_error_ns = 0;
  int64_t aged_bound_ns = 0;
  const core::ClockModel* model = nullptr;
};

// A source info for tests: stratum 0, traceable, priority `priority`.
servo::SourceInfo SimSourceInfo(const char* name, int priority);

class SimHarness {
 public:
  SimHarness(const OscillatorParams& osc, uint64_t seed,
             servo::DisciplineConfig config, double poll_interval_s = 1.0);

  int AddReference(const ReferenceParams& params, const servo::SourceInfo& info,
                   uint64_t seed);
  // Stops polling reference `i` and removes its source from the discipline
  // (an operator's delete).
  void RemoveReference(int i);
  int source_index(int i) const { return ids_[i]; }
  SimReference& reference(int i) { return *refs_[i]; }

  using Observer = std::function<void(const SimCheck&)>;
  // Polls and updates every poll interval until true time t_end_s.
  void RunUntil(double t_end_s, const Observer& observe = nullptr);

  servo::ClockDiscipline& discipline() { return *discipline_; }
  SimOscillator& oscillator() { return osc_; }
  const std::vector<servo::DisciplineEvent>& events() const { return events_; }
  // Events of `kind` (and, if given, with to_state == state).
  int CountEvents(servo::EventKind kind) const;

 private:
  SimOscillator osc_;
  double poll_interval_s_;
  std::unique_ptr<servo::ClockDiscipline> discipline_;
  std::vector<std::unique_ptr<SimReference>> refs_;
  std::vector<int> ids_;  // the discipline's index; -1 once removed
  std::vector<servo::DisciplineEvent> events_;
  std::vector<servo::ReferenceSample> buf_;
  core::ClockModel last_;
  bool have_last_ = false;
};

}  // namespace zg::sim

#endif  // ZG_TESTS_SIM_SIM_HARNESS_H_
