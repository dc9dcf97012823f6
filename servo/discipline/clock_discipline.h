// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline: the control plane's clock. It takes reference samples from
// every source, selects one, filters its samples, runs the servo, tracks the
// holdover state and the honest error bound, and produces the core::ClockModel
// that the control thread publishes (PublishedClock::Write) for the workers.
//
// Deterministic: it never reads a clock. The caller passes raw ticks — of the
// same raw clock the samples are measured against — as "now"; all timeouts
// and ages are raw-tick differences at the nominal rate. The simulation in
// tests/sim drives it exactly as the control thread does:
//
//   ZG_ASSIGN_OR_RETURN(auto discipline, ClockDiscipline::Create(config));
//   ZG_ASSIGN_OR_RETURN(int gps, discipline->AddSource(gps_source->info()));
//   discipline->SetEventSink([&](const DisciplineEvent& e) { audit.Write(e);
//   }); for (;;) {                                   // control thread loop
//     samples.clear();
//     if (gps_source->Poll(&samples).ok()) discipline->AddSamples(gps,
//     samples); published.Write(discipline->Update(raw_clock.NowTicks()));
//     SleepFor(poll_interval);
//   }
//
// The life of a sample: AddSamples keeps the poll's least uncertain sample
// (PickBest) and drops popcorn spikes (OutlierFilter, once locked). Update
// then refreshes source health (timeouts), selects a source (SourceSelector:
// priorities, falsetickers, hysteresis), passes the selected source's samples
// through the jump/spoof gate (CheckJump against the error bound) into the
// servo (PI or linreg: the model's phase and rate) and the frequency estimator
// (holdover frequency and its uncertainty), advances the holdover state
// machine, and builds the ClockModel. doc/servo.md has the math. Each stage
// has its own file; servo/discipline/clock_discipline.cc lists them.
//
// Owned and called by the control thread only (not thread-safe); workers see
// only the ClockModel it returns, through the PublishedClock seqlock.
#ifndef ZG_SERVO_CLOCK_DISCIPLINE_H_
#define ZG_SERVO_CLOCK_DISCIPLINE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/time/clock_model.h"
#include "servo/discipline/clock_quality.h"
#include "servo/discipline/discipline_event.h"
#include "servo/discipline/sample_filter.h"
#include "servo/discipline/selection.h"
#include "servo/estimation/frequency_estimator.h"
#include "servo/estimation/servo.h"
#include "servo/holdover/holdover.h"
#include "servo/holdover/oscillator.h"
#include "servo/sources/reference_source.h"

namespace zg::servo {

struct DisciplineConfig {
  double raw_nominal_hz = 0;  // RawClock::NominalHz(); required, 1 kHz..100 GHz
  // The servo; its nominal_ns_per_tick is filled in from raw_nominal_hz.
  // servo.sync_interval_s should be the sources' sample interval.
  ServoConfig servo;
  OutlierFilterConfig outlier;
  JumpGateConfig jump;
  // A source whose last N samples all failed the jump gate is suspect: not
  // selectable (it still votes).
  int jump_suspect_after = 3;
  // With 1-2 sources nothing can out-vote a jumped reference. If > 0, the
  // selected source's jump is accepted after this many consecutive
  // rejections and the servo re-acquires as at start-up (stepping if
  // servo.first_step_threshold_ns allows). 0: never (anti-spoofing default;
  // the discipline holds over instead).
  int jump_accept_after = 0;
  // When 3+ sources agree on a time the model's bound excludes, the model is
  // wrong — or every source is being spoofed alike (GNSS spoofing reaches
  // every antenna on the roof). If true, the discipline re-acquires (and may
  // step) to follow the majority; if false (default) it reports
  // kModelOutvoted and keeps rejecting, holding over until an operator acts
  // or the bound passes the free-run limit.
  bool follow_outvoting_majority = false;
  SelectorConfig selection;
  // Widening of a candidate's interval with its sample's age, ppb (at least
  // the model's own frequency uncertainty is used).
  double selection_phi_ppb = 1'000;
  // A source with no sample for this long is down; with no accepted sample
  // for this long the reference is lost (holdover).
  int64_t source_timeout_ns = 5'000'000'000;
  // With no accepted sample for this long the model already coasts on the
  // holdover frequency (the servo's last correction, noisy, is dropped), while
  // the state waits for source_timeout_ns.
  int64_t coast_after_ns = 1'500'000'000;
  FrequencyEstimatorConfig estimator;
  // Frequency uncertainty of the raw clock before it is measured (ppb):
  // the TSC's nominal rate, or a NIC clock's crystal tolerance.
  double initial_frequency_tolerance_ppb = 200'000;
  OscillatorProfile oscillator = TcxoProfile();
  HoldoverEnvironment environment;
  HoldoverConfig holdover;
  ClassPolicy class_policy;
  // Longest time workers may extrapolate one published model before calling
  // it stale (never longer than the bound takes to leave its limit).
  int64_t max_extrapolation_ns = 10'000'000'000;
  int8_t precision_log2 = -24;
  // clockAccuracy covers the largest bound of the last N samples.
  int accuracy_window = 16;
  // Offsets kept for offsetScaledLogVariance.
  int variance_window = 64;
};

absl::Status ValidateDisciplineConfig(const DisciplineConfig& config);

// Per-source view for metrics and zgctl.
struct SourceStatus {
  bool enabled = true;  // selectable (SetSourceEnabled)
  bool up = false;
  bool selected = false;
  bool suspect = false;       // consecutive jump-gate failures
  bool falseticker = false;   // out-voted at the last selection
  double last_offset_ns = 0;  // latest sample vs the model
  // RMS of the differences between successive offsets (exponential average,
  // weight 1/8, as RFC 5905's peer jitter); 0 until two samples.
  double jitter_ns = 0;
  int64_t last_uncertainty_ns = -1;  // the latest sample's; -1: none yet
  core::TaiNs last_sample_tai;       // its taken_at (0: none yet)
  uint64_t samples = 0;              // offered (after burst reduction)
  uint64_t accepted = 0;             // fed to the servo
  uint64_t outliers = 0;
  uint64_t jumps = 0;
  uint64_t invalid = 0;
};

struct DisciplineStatus {
  core::SyncState state = core::SyncState::kFreerun;
  ServoState servo_state = ServoState::kUnlocked;
  int selected = -1;
  int64_t bound_ns = -1;     // at the last Update; -1: unknown
  double frequency_ppb = 0;  // model vs nominal
  double frequency_uncertainty_ppb = 0;
  double holdover_s = 0;  // time since the reference was lost
  uint64_t steps = 0;
  uint64_t updates = 0;
};

class ClockDiscipline {
 public:
  static constexpr int kMaxSources = 32;  // configured at once

  static absl::StatusOr<std::unique_ptr<ClockDiscipline>> Create(
      const DisciplineConfig& config);

  // Registers a source; returns its index (used in AddSamples and events).
  // The index of a removed source may be given again once nothing refers to
  // it: not while it is still the selected one (until the next Update) nor
  // while the model follows its last samples (the published refid and
  // stratum name it).
  absl::StatusOr<int> AddSource(const SourceInfo& info);

  // Live changes (an operator's, between two Updates). From the next Update
  // on a removed source neither votes nor is selected; if it was selected,
  // selection hands over exactly as when a selected source goes down
  // (another source if one is usable, else holdover): the model is never
  // stepped for it. A disabled source is still measured (its status and
  // offset stay current) but is never selected and does not vote (chrony's
  // noselect). Each change makes the next Update select the best usable
  // source at once, without the selector's hysteresis. NotFound for an
  // index that is not a configured source.
  absl::Status RemoveSource(int source);
  absl::Status SetSourceEnabled(int source, bool enabled);
  absl::Status SetSourcePriority(int source, int priority);

  // One poll's samples from `source` (may be empty). Keeps the least
  // uncertain one and filters it; the rest happens in Update. Invalid samples
  // (see RejectReason::kInvalid, or raw ticks more than an hour from the last
  // Update's) are counted and reported.
  void AddSamples(int source, absl::Span<const ReferenceSample> samples);

  // Runs one control step at raw clock `raw_now` and returns the model to
  // publish (valid until the next call).
  const core::ClockModel& Update(uint64_t raw_now);

  void SetEventSink(EventSink sink) { sink_ = std::move(sink); }
  // Leap-second information copied into every published model.
  void SetLeap(int32_t utc_offset_s, core::LeapPending leap,
               core::TaiNs leap_at);

  const core::ClockModel& model() const { return model_; }
  const DisciplineStatus& status() const { return status_; }
  int source_count() const { return static_cast<int>(sources_.size()); }
  const SourceInfo& source_info(int source) const;
  const SourceStatus& source_status(int source) const;
  const Servo& servo() const { return *servo_; }
  const FrequencyEstimator& estimator() const { return estimator_; }
  // How long the served time stays within the holdover in-spec limit from
  // raw `raw_now` on without an accepted sample (seconds): in holdover, what
  // is left of it; while tracking, how long a holdover that began now would
  // last. 0 when the bound is already past the limit; -1 before the first
  // accepted sample. Capped at kHoldoverHorizonS.
  double HoldoverInSpecLeftS(uint64_t raw_now) const;
  static constexpr double kHoldoverHorizonS = 10.0 * 365 * 86400;

 private:
  // Per-source state; written and read by the control thread only.
  struct Source {
    Source(const SourceInfo& i, const OutlierFilterConfig& c)
        : info(i), outlier(c) {}
    SourceInfo info;
    OutlierFilter outlier;
    SourceStatus status;
    std::vector<ReferenceSample> pending;  // filtered, not yet processed
    bool has_latest = false;
    ReferenceSample latest;
    bool has_offset = false;  // status.last_offset_ns holds one (jitter)
    int gate_failures = 0;    // consecutive jump-gate failures
    bool removed = false;     // RemoveSource: the slot awaits reuse
  };

  explicit ClockDiscipline(const DisciplineConfig& config,
                           std::unique_ptr<Servo> servo);

  // clock_discipline.cc: events and raw-tick arithmetic.
  bool Configured(int source) const;
  bool Reusable(int source) const;
  void Emit(DisciplineEvent e);
  DisciplineEvent MakeEvent(EventKind kind, uint64_t raw, int source) const;
  double SecondsBetween(uint64_t from, uint64_t to) const;
  bool PlausibleRaw(uint64_t raw) const;
  static constexpr double kPlausibleRawWindowS = 3600;

  // discipline_intake.cc: source health (AddSamples is public).
  void UpdateHealth(uint64_t raw_now);
  // Stage 3 of the filter for one sample of `source` (see sample_filter.h);
  // reports and counts a rejection.
  bool PassesJumpGate(int source, const ReferenceSample& s, double offset);

  // discipline_selection.cc.
  void RunSelection(uint64_t raw_now);

  // discipline_tracking.cc: samples into the servo.
  void ProcessPending();
  void Accept(int source, const ReferenceSample& s);
  void Reacquire();

  // discipline_holdover.cc: the error bound and the state machine.
  // The predicted error bound `dt_s` seconds after raw `raw` (ns); -1 when
  // there is no model yet.
  double BoundNs(uint64_t raw, double dt_s = 0) const;
  double FrequencyUncertaintyPpb() const;
  void AdvanceState(uint64_t raw_now, bool reacquire);
  void OnStateChange(uint64_t raw_now, core::SyncState from,
                     core::SyncState to);
  void EnterHoldover(uint64_t raw_now);

  // discipline_publish.cc: the ClockModel and the status.
  void Publish(uint64_t raw_now);
  double MaxExtrapolationS(uint64_t raw_now, double bound_now) const;

  DisciplineConfig config_;
  double nominal_ns_per_tick_;
  std::unique_ptr<Servo> servo_;
  FrequencyEstimator estimator_;
  HoldoverStateMachine machine_;
  SourceSelector selector_;
  std::vector<Source> sources_;
  EventSink sink_;

  // Error bound bookkeeping (see BoundNs).
  bool have_sample_ = false;    // a sample was ever accepted
  uint64_t sample_raw_ = 0;     // raw ticks of the last accepted sample
  double sample_bound_ns_ = 0;  // |offset| + uncertainty there
  double track_growth_ppb_ = 0;
  bool in_holdover_ = false;  // the model runs on the holdover frequency
  uint64_t holdover_raw_ = 0;
  double holdover_bound_ns_ = 0;
  double holdover_freq_unc_ppb_ = 0;

  int synced_source_ = -1;  // the source the model last followed
  bool bypass_gate_ = false;
  bool outvoted_ = false;
  bool reacquire_pending_ = false;
  double holdover_wander0_ns_ = 0;
  std::vector<SelectionCandidate> candidates_;
  core::TaiNs reference_time_;
  std::vector<double> recent_bounds_;   // ring, accuracy_window
  std::vector<double> recent_offsets_;  // ordered, variance_window
  size_t bounds_next_ = 0;

  bool have_now_ = false;
  uint64_t last_raw_now_ = 0;  // raw_now of the last Update

  int32_t utc_offset_s_ = 37;
  core::LeapPending leap_ = core::LeapPending::kNone;
  core::TaiNs leap_at_;

  core::ClockModel model_;
  DisciplineStatus status_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CLOCK_DISCIPLINE_H_
